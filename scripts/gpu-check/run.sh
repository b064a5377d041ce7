#!/usr/bin/env bash
# Checks gpuguard on a real NVIDIA GPU: `profile capture` (NVML through go-nvml) runs the
# workloads of workload.py, whose declared profiles are in profiles/, and writes their measured
# profiles, a timeline and PyTorch's own memory statistics, to set beside `gpuguard fit`'s
# estimates. Also --pid (a process tree started elsewhere) and --duration (no command).
#
#   bash scripts/gpu-check/run.sh GPUGUARD OUTDIR [CASE...]
#
# With CASE names, only those workloads run, and not the --pid, --duration and bad-profile checks
# unless EXTRAS=1.
# The first five cases calibrated the estimator; the next five were estimated before they ran and
# revised it; the next four were estimated by the revised one before they ran, and the four Qwen
# cases, a shape the estimator was not fitted on (larger vocabulary, 2 KV heads, wider MLP), too.
# The next four, two mixtures of experts (one with multi-head latent attention), were estimated
# before they ran, too, and revised the estimator (routed experts' copies, q and k norms); the
# next three were estimated by the revised one before they ran (the Mixtral one came out low,
# and gave the fragmentation margin of a prefill), and the next by the result; the two Gemma 3
# runs were estimated before they ran as well, and gave Gemma's output norms; the next two were
# estimated by that before they ran. The last five do not fit an H100's 80 GB: they were
# estimated before they ran on an H200 (141 GB), with gpt2xl-b8, which ran out of memory on the
# H100, and eight of the H100 cases run again there. The "-saved" cases count what autograd
# saved for backward, by node and tensor (workload.py --saved): GPT-2 XL's layers kept 89.4·h
# bytes a token, which no count explained; at 16 x 512 the score matrices are half as long,
# --sdpa flash holds attention to one kernel, --gelu fused swaps gelu_new for one GELU kernel,
# and pure bf16 drops autocast. They gave the GELU count (docs/memory-model.md, "GPT-2's layers,
# tensor by tensor"); full-b4-saved and pure-bf16-b4-saved read a Llama layer the same way
# ("Llama's layers, tensor by tensor"). The last four were estimated before they ran: a padded
# batch (--pad: every layer's attention takes a mask, training.padded_batches), Gemma 3, whose
# windowed layers take a mask at 2,048 tokens, and LoRA's frozen Llama layers.
# GPT-2 XL at 8 x 1024 needs more than an H100 holds.
#
# PyTorch's allocator settings in the environment reach every workload, and profile capture
# writes them into each profile (runtime.pytorch_alloc_conf): testdata/profiles/h100-expandable
# is twenty of these cases run with PYTORCH_ALLOC_CONF=expandable_segments:True.
#
# GPUGUARD is a gpuguard built with cgo (CGO_ENABLED=1 go build ./cmd/gpuguard). The machine
# needs the NVIDIA driver, python3 with torch, transformers and peft. Results go to
# OUTDIR/gpu-check.tar.gz; docs/memory-validation.md records a run.
set -u
gg=$(realpath "$1"); out=$2
here=$(cd "$(dirname "$0")" && pwd)
# RES names the folder for the results (default: a new temporary one), so that a run cut short
# by a time limit still leaves what it measured.
res=${RES:-$(mktemp -d)}
mkdir -p "$res"
cd "$res"
log() { echo "== $(date -u +%H:%M:%S) $*"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,mig.mode.current --format=csv > smi.csv 2>&1
cat smi.csv
python3 -c 'import torch, transformers, peft; print("torch", torch.__version__, "transformers", transformers.__version__, "peft", peft.__version__)' > versions.txt 2>&1
cat versions.txt

declare -A args=(
	[full-b4]="--batch 4 --seq 2048"
	[full-ckpt-b8]="--batch 8 --seq 2048 --checkpointing"
	[pure-bf16-b4]="--pure-bf16 --batch 4 --seq 2048"
	[lora-b8]="--method lora --batch 8 --seq 2048"
	[generate-b16]="--mode generate --batch 16 --seq 4096 --new-tokens 64"
	[gpt2xl-b8]="--shape gpt2xl --batch 8 --seq 1024"
	[llama3b-b1]="--shape llama3b --batch 1 --seq 2048"
	[llama3b-pure-ckpt-b4]="--shape llama3b --pure-bf16 --checkpointing --batch 4 --seq 4096"
	[lora-attn-ckpt-b16]="--method lora --lora-targets attention --checkpointing --batch 16 --seq 2048"
	[generate-b4-8k]="--mode generate --batch 4 --seq 8192 --new-tokens 64"
	[llama3b-lora-b4]="--shape llama3b --method lora --batch 4 --seq 2048"
	[full-ckpt-b12]="--batch 12 --seq 2048 --checkpointing"
	[generate-b32-2k]="--mode generate --batch 32 --seq 2048 --new-tokens 64"
	[llama3b-pure-b2]="--shape llama3b --pure-bf16 --batch 2 --seq 2048"
	[qwen1.5b-b4]="--shape qwen1.5b --batch 4 --seq 2048"
	[qwen1.5b-ckpt-b8]="--shape qwen1.5b --batch 8 --seq 2048 --checkpointing"
	[qwen1.5b-lora-b4]="--shape qwen1.5b --method lora --batch 4 --seq 2048"
	[qwen1.5b-generate-b16]="--shape qwen1.5b --mode generate --batch 16 --seq 4096 --new-tokens 64"
	[qwen3moe-pure-b2]="--shape qwen3moe --pure-bf16 --batch 2 --seq 2048"
	[qwen3moe-lora-attn-b4]="--shape qwen3moe --method lora --lora-targets attention --batch 4 --seq 2048"
	[qwen3moe-generate-b16]="--shape qwen3moe --mode generate --batch 16 --seq 4096 --new-tokens 64"
	[deepseek-lite-generate-b8]="--shape deepseek-lite --mode generate --batch 8 --seq 4096 --new-tokens 64"
	[qwen3-1.7b-b2]="--shape qwen3-1.7b --batch 2 --seq 2048"
	[qwen3moe-pure-ckpt-b4]="--shape qwen3moe --pure-bf16 --checkpointing --batch 4 --seq 2048"
	[mixtral-mini-generate-b8]="--shape mixtral-mini --mode generate --batch 8 --seq 4096 --new-tokens 64"
	[mixtral-mini-generate-b8-8k]="--shape mixtral-mini --mode generate --batch 8 --seq 8192 --new-tokens 64"
	[gemma3-1b-b2]="--shape gemma3-1b --batch 2 --seq 2048"
	[gemma3-1b-lora-b4]="--shape gemma3-1b --method lora --batch 4 --seq 2048"
	[gemma3-1b-pure-b2]="--shape gemma3-1b --pure-bf16 --batch 2 --seq 2048"
	[qwen3-1.7b-lora-b4]="--shape qwen3-1.7b --method lora --batch 4 --seq 2048"
	[full-b8]="--batch 8 --seq 2048"
	[llama3b-b4]="--shape llama3b --batch 4 --seq 2048"
	[qwen1.5b-b8]="--shape qwen1.5b --batch 8 --seq 2048"
	[gemma3-1b-b8]="--shape gemma3-1b --batch 8 --seq 2048"
	[mixtral-mini-generate-b16-8k]="--shape mixtral-mini --mode generate --batch 16 --seq 8192 --new-tokens 64"
	[gpt2xl-b8-saved]="--shape gpt2xl --batch 8 --seq 1024 --saved"
	[gpt2xl-b8-flash-saved]="--shape gpt2xl --batch 8 --seq 1024 --saved --sdpa flash"
	[gpt2xl-b16-s512-saved]="--shape gpt2xl --batch 16 --seq 512 --saved"
	[full-b4-saved]="--batch 4 --seq 2048 --saved"
	[gpt2xl-b8-fused-saved]="--shape gpt2xl --batch 8 --seq 1024 --saved --gelu fused"
	[gpt2xl-pure-b8-saved]="--shape gpt2xl --pure-bf16 --batch 8 --seq 1024 --saved"
	[gpt2xl-pure-b8-fused-saved]="--shape gpt2xl --pure-bf16 --batch 8 --seq 1024 --saved --gelu fused"
	[pure-bf16-b4-saved]="--pure-bf16 --batch 4 --seq 2048 --saved"
	[gpt2xl-b8-nocache-saved]="--shape gpt2xl --batch 8 --seq 1024 --saved --no-cache"
	[gpt2xl-lora-attn-b8-saved]="--shape gpt2xl --method lora --lora-targets attention --batch 8 --seq 1024 --saved"
	[gpt2xl-ckpt-b16]="--shape gpt2xl --checkpointing --batch 16 --seq 1024"
	[full-b4-pad-saved]="--batch 4 --seq 2048 --saved --pad 512"
	[gemma3-1b-b2-saved]="--shape gemma3-1b --batch 2 --seq 2048 --saved"
	[gemma3-1b-pure-b2-saved]="--shape gemma3-1b --pure-bf16 --batch 2 --seq 2048 --saved"
	[lora-b8-saved]="--method lora --batch 8 --seq 2048 --saved"
)
order=(full-b4 full-ckpt-b8 pure-bf16-b4 lora-b8 generate-b16 gpt2xl-b8 llama3b-b1 llama3b-pure-ckpt-b4 lora-attn-ckpt-b16 generate-b4-8k
	llama3b-lora-b4 full-ckpt-b12 generate-b32-2k llama3b-pure-b2
	qwen1.5b-b4 qwen1.5b-ckpt-b8 qwen1.5b-lora-b4 qwen1.5b-generate-b16
	qwen3moe-pure-b2 qwen3moe-lora-attn-b4 qwen3moe-generate-b16 deepseek-lite-generate-b8
	qwen3-1.7b-b2 qwen3moe-pure-ckpt-b4 mixtral-mini-generate-b8 mixtral-mini-generate-b8-8k
	gemma3-1b-b2 gemma3-1b-lora-b4 gemma3-1b-pure-b2 qwen3-1.7b-lora-b4
	full-b8 llama3b-b4 qwen1.5b-b8 gemma3-1b-b8 mixtral-mini-generate-b16-8k
	gpt2xl-b8-saved gpt2xl-b8-flash-saved gpt2xl-b16-s512-saved full-b4-saved gpt2xl-b8-fused-saved
	gpt2xl-pure-b8-saved gpt2xl-pure-b8-fused-saved pure-bf16-b4-saved
	gpt2xl-b8-nocache-saved gpt2xl-lora-attn-b8-saved gpt2xl-ckpt-b16
	full-b4-pad-saved gemma3-1b-b2-saved gemma3-1b-pure-b2-saved lora-b8-saved)
cases=("${@:3}")
[ ${#cases[@]} -gt 0 ] || cases=("${order[@]}")

run() { # case, workload args...
	local c=$1; shift
	log "$c"
	"$gg" profile capture --profile "$here/profiles/$c.yaml" --output "$c.yaml" --interval 100ms \
		--timeline "$c.svg" -- python3 "$here/workload.py" --out "$c.json" "$@" > "$c.log" 2>&1
	echo "exit $?" >> "$c.log"
	tail -n 3 "$c.log"
}
for c in "${cases[@]}"; do
	[ -n "${args[$c]:-}" ] || { echo "unknown case $c"; exit 2; }
	# shellcheck disable=SC2086 # the arguments are words
	run "$c" ${args[$c]}
done

if [ $# -gt 2 ] && [ "${EXTRAS:-0}" != 1 ]; then
	mkdir -p "$out"
	tar czf "$out/gpu-check.tar.gz" -C "$res" .
	log done
	exit 0
fi

# A workload started elsewhere: --pid follows its tree; --duration samples the whole GPU.
log "pid and duration"
python3 "$here/workload.py" --out pid.json --batch 2 --seq 1024 --steps 3 --hold 8 > pid-workload.log 2>&1 &
p=$!
sleep 1
("$gg" profile capture --pid "$p" --interval 100ms --name follow-pid --type training --output pid.yaml > pid.log 2>&1
	echo "exit $?" >> pid.log) &
# Once the job holds its memory (it imports PyTorch first), sample the whole GPU for 4 s.
for _ in $(seq 60); do
	[ -s pid.json ] && break
	sleep 0.5
done
"$gg" profile capture --duration 4s --interval 100ms --name whole-gpu --output duration.yaml > duration.log 2>&1
echo "exit $?" >> duration.log
wait
tail -n 2 pid.log duration.log

# Fails fast: a base profile that does not validate never starts the job.
printf 'apiVersion: gpuguard.dev/v1\nkind: WorkloadProfile\nmetadata: {name: bad}\nworkload: {type: training}\nmodel: {precision: bf16}\n' > bad.yaml
"$gg" profile capture --profile bad.yaml --output never.yaml -- touch started > bad.log 2>&1
echo "exit $? started=$(test -e started && echo yes || echo no)" >> bad.log
cat bad.log

mkdir -p "$out"
tar czf "$out/gpu-check.tar.gz" -C "$res" .
log done
