package profiles

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// An SGLang command line gives the profile SGLang's rules judge: the model by its Hub name,
// the context from --context-length or the model's config.json, the tensor-parallel size, the
// weights' and KV cache's precision, and what decides its static share. Names are read as
// SGLang's argparse parser reads them: aliases, unambiguous prefixes, negative numbers as values.
func TestFromSGLang(t *testing.T) {
	type want struct {
		preset, precision, kv  string
		seq, tp, batchedTokens int
		fraction               float64
		chunk, total           int
	}
	cases := []struct {
		name, line string
		want       *want  // nil: no profile
		why        string // part of the reason when there is none
	}{
		{"launch_server with = values and no context: Llama 3.1's 131,072 tokens",
			"python3 -m sglang.launch_server --model-path=meta-llama/Llama-3.1-8B-Instruct --host=0.0.0.0 --port=30000",
			&want{"llama-3.1-8b", "bf16", "bf16", 131072, 1, 8192, 0, 0, 0}, ""},
		{"sglang serve, aliases, a prefix of --mem-fraction-static",
			"sglang serve --model Qwen/Qwen2.5-7B-Instruct --tp 2 --context-length 8192 --mem-frac 0.85",
			&want{"qwen2.5-7b", "bf16", "bf16", 8192, 2, 8192, 0.85, 0, 0}, ""},
		{"Qwen 2.5 Instruct's own 32k context; fp8 KV cache; a chunk of 4,096",
			"python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --kv-cache-dtype fp8_e5m2 --chunked-prefill-size 4096",
			&want{"qwen2.5-7b", "bf16", "fp8", 32768, 1, 4096, 0, 4096, 0}, ""},
		{"chunked prefill off (a negative value): prefills run --max-prefill-tokens",
			"python -m sglang.launch_server --model-path mistralai/Mistral-7B-Instruct-v0.1 --chunked-prefill-size -1 --max-prefill-tokens 32768 --tensor-parallel-size 1",
			&want{"mistral-7b", "bf16", "bf16", 32768, 1, 32768, 0, -1, 0}, ""},
		{"a quantized checkpoint by its name; --dtype half; a shell line",
			"sh -c python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct-AWQ --dtype half --tp-size 4 --context-length 16384",
			&want{"qwen2.5-72b", "int4", "fp16", 16384, 4, 8192, 0, 0, 0}, ""},
		{"--quantization fp8; two data-parallel engines (TestDataParallelServers)",
			"python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --quantization fp8 --tp 4 --dp 2 --context-length 32768 --cuda-graph-max-bs 64",
			&want{"llama-3.1-70b", "fp8", "bf16", 32768, 4, 8192, 0, 0, 0}, ""},
		{"a path into a Hugging Face cache names the model it holds, a quantized checkpoint's included",
			"python3 -m dynamo.sglang --model-path /model-store/hub/models--Qwen--Qwen3-32B-FP8/snapshots/aa55da1e --tp-size 2",
			&want{"qwen3-32b", "fp8", "bf16", 40960, 2, 8192, 0, 0, 0}, ""},
		{"MiniMax-M2 on four GPUs as SGLang's guide serves it: FP8 by its checkpoint, 196,608 tokens",
			"python -m sglang.launch_server --model-path MiniMaxAI/MiniMax-M2 --tp-size 4 --tool-call-parser minimax-m2 --reasoning-parser minimax-append-think --host 0.0.0.0 --trust-remote-code --port 8000 --mem-fraction-static 0.85",
			&want{"minimax-m2", "fp8", "bf16", 196608, 4, 8192, 0.85, 0, 0}, ""},
		{"GLM-4.5-Air", "python3 -m sglang.launch_server --model-path zai-org/GLM-4.5-Air --tp-size 2 --context-length 65536",
			&want{"glm-4.5-air", "bf16", "bf16", 65536, 2, 8192, 0, 0, 0}, ""},
		{"an ambiguous prefix is no flag", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --c 5",
			&want{"llama-3.1-8b", "bf16", "bf16", 131072, 1, 8192, 0, 0, 0}, ""},
		{"no model", "python3 -m sglang.launch_server --port 30000", nil, "names no model"},
		{"a local path", "python3 -m sglang.launch_server --model-path /models/acme", nil, "not one of gpuguard's model presets"},
		{"LoRA adapters", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --enable-lora", nil, "--enable-lora loads LoRA adapters"},
		{"LoRA paths", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --lora-paths a=/x", nil, "--lora-paths loads LoRA adapters"},
		{"speculative decoding by EAGLE", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --speculative-algorithm EAGLE", nil, "speculative decoding by EAGLE loads a draft model"},
		{"n-gram speculation loads nothing on the GPU", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --speculative-algorithm NGRAM --speculative-num-draft-tokens 8 --context-length 8192",
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 8192, 0, 0, 0}, ""},
		{"its older name", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --speculative-algorithm lookahead --context-length 8192",
			&want{"llama-3.1-8b", "bf16", "bf16", 8192, 1, 8192, 0, 0, 0}, ""},
		{"several nodes", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B --tp 16 --nnodes 2", nil, "several nodes"},
		{"pipeline parallelism", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B --pp-size 2", nil, "pipeline parallelism"},
		{"a pool capped by hand", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --max-total-tokens 4096",
			&want{"llama-3.1-8b", "bf16", "bf16", 131072, 1, 8192, 0, 0, 4096}, ""},
		{"a share over the card", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --mem-fraction-static 1.2", nil, `--mem-fraction-static "1.2" is not a fraction`},
		{"a context that is no count", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 8k", nil, `--context-length "8k" is not a count`},
		{"a negative tensor-parallel size", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --tp -2", nil, `--tp-size "-2" is not a count`},
		{"an unmodelled KV cache type", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --kv-cache-dtype int4", nil, `SGLang's --kv-cache-dtype "int4" is not modelled`},
		{"an unmodelled quantization", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --quantization gguf", nil, `SGLang's --quantization "gguf" is not modelled`},
	}
	for _, c := range cases {
		p, why := FromSGLang(strings.Split(c.line, " "))
		if c.want == nil {
			if p != nil || !strings.Contains(why, c.why) {
				t.Errorf("%s: profile %v, why %q; want none, because of %q", c.name, p != nil, why, c.why)
			}
			continue
		}
		if p == nil {
			t.Errorf("%s: no profile: %s", c.name, why)
			continue
		}
		in, s := p.Inference, p.Inference.SGLang
		if s == nil {
			t.Errorf("%s: no SGLang arguments on the profile", c.name)
			continue
		}
		got := want{p.Model.Preset, p.Model.Precision, in.KVCachePrecision, in.MaxSequenceLength, in.TensorParallel, in.MaxBatchedTokens, s.MemFractionStatic, s.ChunkedPrefill, s.MaxTotalTokens}
		if got != *c.want || in.BatchSize != 1 || in.GPUMemoryUtilization != 0 || p.ContextFlag != "--context-length" || !strings.HasPrefix(p.Inferred, "SGLang arguments: model ") {
			t.Errorf("%s: got %+v (batch %d, utilization %g, flag %q, %q), want %+v", c.name, got, in.BatchSize, in.GPUMemoryUtilization, p.ContextFlag, p.Inferred, *c.want)
		}
	}
}

// SGLang's static share of a GPU: --mem-fraction-static when given, else what v0.5 derives from
// the GPU's memory (nvidia-smi's total, MiB) and the tensor-parallel size. Worked by hand:
//   - L4, 23,034 MiB: chunk 2,048, graphs up to 24: 512 + 3,072 + 48 + 128 = 3,760 MiB reserved,
//     (23,034 - 3,760) / 23,034 = 0.8368 -> 0.837.
//   - H100 80GB, 81,559 MiB: chunk 8,192, graphs up to 256: 512 + 12,288 + 512 + 128 = 13,440
//     (over the 10 GiB floor), 68,119 / 81,559 = 0.8352 -> 0.835; at tp 8 graphs up to 512 and
//     1,024 for the GPUs: 14,848, 66,711 / 81,559 = 0.8180 -> 0.818.
//   - A100 40GB, 40,960 MiB: chunk 4,096, graphs up to 32: 512 + 6,144 + 64 + 128 = 6,848,
//     34,112 / 40,960 = 0.8328 -> 0.833; at tp 2, 256 for the GPUs: 6,976 -> 0.8297 -> 0.830.
//   - T4, 15,360 MiB: chunk 2,048, graphs up to 8: 512 + 3,072 + 16 + 128 = 3,728 -> 0.757.
//   - H100 with chunked prefill off: 16,384 prefill tokens, 512 + 24,576 + 512 + 128 = 25,728
//     -> 55,831 / 81,559 = 0.6845 -> 0.685.
//   - A GPU of 64 GiB with a 2,048 chunk set by hand: 512 + 3,072 + 512 + 128 = 4,224 is under
//     the 10 GiB floor, so 10,240: (65,536 - 10,240) / 65,536 = 0.84375 -> 0.844.
//   - H200, 143,771 MiB, tp 8: chunk 8,192, graphs up to 512: 14,848 -> 128,923 / 143,771 =
//     0.8967 -> 0.897. With data-parallel attention over 8 ranks, 512·8·3 = 12,288 and, as 512
//     is over 300, 512·8·1.5 = 6,144 more: 33,280 -> 110,491 / 143,771 = 0.7685 -> 0.769.
//   - H100 at tp 8 with graphs up to 256 set by hand and data-parallel attention over 8:
//     512 + 12,288 + 512 + 1,024 + 256·8·3 = 20,480 -> 61,079 / 81,559 = 0.7489 -> 0.749.
func TestSGLangStaticFraction(t *testing.T) {
	cases := []struct {
		name   string
		s      SGLangServer
		gpuMiB float64
		tp     int
		want   float64
	}{
		{"L4", SGLangServer{}, 23034, 1, 0.837},
		{"H100", SGLangServer{}, 81559, 1, 0.835},
		{"H100 at tp 8", SGLangServer{}, 81559, 8, 0.818},
		{"A100 40GB", SGLangServer{}, 40960, 1, 0.833},
		{"A100 40GB at tp 2", SGLangServer{}, 40960, 2, 0.830},
		{"T4", SGLangServer{}, 15360, 1, 0.757},
		{"H100, chunked prefill off", SGLangServer{ChunkedPrefill: -1, MaxPrefillTokens: 16384}, 81559, 1, 0.685},
		{"the 10 GiB floor", SGLangServer{ChunkedPrefill: 2048}, 65536, 1, 0.844},
		{"--mem-fraction-static", SGLangServer{MemFractionStatic: 0.7}, 23034, 1, 0.7},
		{"H200 at tp 8", SGLangServer{}, 143771, 8, 0.897},
		{"H200, data-parallel attention", SGLangServer{DPAttention: 8}, 143771, 8, 0.769},
		{"H100, data-parallel attention, 256 graphs", SGLangServer{DPAttention: 8, CUDAGraphMaxBS: 256}, 81559, 8, 0.749},
	}
	for _, c := range cases {
		if got := c.s.StaticFraction(c.gpuMiB, c.tp); got != c.want {
			t.Errorf("%s: %g, want %g", c.name, got, c.want)
		}
	}
}

// Any command line gives a valid profile or a reason, never a panic.
func FuzzFromSGLang(f *testing.F) {
	f.Add("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 8192 --tp 2")
	f.Add("sglang serve --model=qwen/qwen2.5-7b --mem-frac=0.8 --quantization awq --kv-cache-dtype fp8_e4m3 --chunked-prefill-size -1")
	f.Add("sglang serve --model-path gpt2 --context-length 1024 --dtype float --cuda-graph-max-bs 0")
	f.Add("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 --dp 8 --enable-dp-attention --chunked-prefill-size 4096")
	f.Add("python -m sglang.launch_server --model-path MiniMaxAI/MiniMax-M2 --tp-size 8 --ep-size 8 --mem-fraction-static 0.85 --enable-dp-attention --dp 8")
	f.Add("python3 -m sglang.launch_server --model-path zai-org/GLM-4.5-Air --speculative-algorithm NGRAM --speculative-num-draft-tokens 8")
	f.Add("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3-0324 --tp 8 --speculative-algorithm EAGLE --speculative-draft lmsys/DeepSeek-V3-0324-NextN")
	f.Fuzz(func(t *testing.T, line string) {
		p, why := FromSGLang(strings.Split(line, " "))
		if p == nil {
			if why == "" {
				t.Fatalf("%q: no profile and no reason", line)
			}
			return
		}
		in := p.Inference
		if in.MaxSequenceLength <= 0 || in.TensorParallel < 1 || in.BatchSize != 1 || in.MaxBatchedTokens <= 0 || in.SGLang == nil || p.Model.Layers == 0 || p.Inferred == "" {
			t.Fatalf("%q: profile %+v %+v", line, p.Model, *in)
		}
		if f := in.SGLang.StaticFraction(23034, in.TensorParallel); f < 0 || f >= 1 {
			t.Fatalf("%q: static fraction %g", line, f)
		}
	})
}

// Data-parallel servers run several engines of their tensor-parallel size side by side, each
// with its own copy of the model: vLLM's --data-parallel-size (-dp; --data-parallel-size-local
// on this node when the ranks span nodes) and SGLang's --dp-size. vLLM's engines of a mixture
// of experts split its expert layers over all the deployment's GPUs (ExpertParallel, set for
// any vLLM data-parallel server and read only for a mixture); SGLang's each hold theirs
// (DataParallelController starts dp tensor-parallel groups, each on GPUs of its own).
func TestDataParallelServers(t *testing.T) {
	cases := []struct {
		name       string
		infer      func([]string) (*Profile, string)
		line       string
		dp, tp, ep int
		declined   string
	}{
		{"vLLM -dp", FromVLLM, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 -dp 4 -tp 2", 4, 2, 8, ""},
		{"vLLM's ranks on this node", FromVLLM, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --data-parallel-size 4 --data-parallel-size-local 2", 2, 1, 4, ""},
		{"SGLang --dp", FromSGLang, "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --dp 2 --tp 2", 2, 2, 0, ""},
		{"vLLM, a mixture of experts", FromVLLM, "vllm serve mistralai/Mixtral-8x7B-Instruct-v0.1 --max-model-len 8192 -dp 2 -tp 2", 2, 2, 4, ""},
		{"vLLM, DeepSeek's experts over two nodes", FromVLLM, "vllm serve deepseek-ai/DeepSeek-R1 --data-parallel-size 16 --data-parallel-size-local 8 --enable-expert-parallel", 8, 1, 16, ""},
		{"SGLang, a mixture of experts", FromSGLang, "python3 -m sglang.launch_server --model-path mistralai/Mixtral-8x7B-Instruct-v0.1 --dp-size 2 --tp 2", 2, 2, 0, ""},
	}
	for _, c := range cases {
		p, why := c.infer(strings.Fields(c.line))
		switch {
		case c.declined != "":
			if p != nil || !strings.Contains(why, c.declined) {
				t.Errorf("%s: profile %v, why %q", c.name, p != nil, why)
			}
		case p == nil:
			t.Errorf("%s: no profile: %s", c.name, why)
		case p.Inference.DataParallel != c.dp || p.Inference.TensorParallel != c.tp || p.Inference.ExpertParallel != c.ep:
			t.Errorf("%s: %d engines of %d GPUs, experts over %d, want %d of %d over %d", c.name, p.Inference.DataParallel, p.Inference.TensorParallel, p.Inference.ExpertParallel, c.dp, c.tp, c.ep)
		}
	}
}

// SGLang's --enable-dp-attention (with --dp-size over 1) runs one engine of --tp-size GPUs
// whose attention is dp groups of tp/dp GPUs: no more engines, each rank prefilling its share
// of the chunk, and the share reserving for it. It is ignored at --dp-size 1, as SGLang does,
// refused where SGLang refuses it (dp not dividing tp), and declined on a dense model and
// with the output layer or dense MLPs placed by hand.
func TestSGLangDataParallelAttention(t *testing.T) {
	const r1 = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --trust-remote-code "
	cases := []struct {
		name, line string
		adp, tp    int
		batched    int
		declined   string
	}{
		{"DeepSeek R1, tp 8 dp 8", r1 + "--tp 8 --dp 8 --enable-dp-attention", 8, 8, 1024, ""},
		{"two groups of four", r1 + "--tp 8 --dp-size 2 --enable-dp-attention --chunked-prefill-size 4096", 2, 8, 2048, ""},
		{"--dp 1 turns it off", r1 + "--tp 8 --dp 1 --enable-dp-attention", 0, 8, 8192, ""},
		{"dp not dividing tp", r1 + "--tp 8 --dp 3 --enable-dp-attention", 0, 0, 0, "--dp-size 3 to divide --tp-size 8"},
		{"a dense model", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp 8 --dp 8 --enable-dp-attention", 0, 0, 0, "modelled for mixtures of experts"},
		{"the output layer by hand", r1 + "--tp 8 --dp 8 --enable-dp-attention --enable-dp-lm-head", 0, 0, 0, "--enable-dp-lm-head splits the output layer"},
		{"the dense MLPs by hand", r1 + "--tp 8 --dp 8 --enable-dp-attention --moe-dense-tp-size 1", 0, 0, 0, "--moe-dense-tp-size keeps the dense layers"},
	}
	for _, c := range cases {
		p, why := FromSGLang(strings.Fields(c.line))
		if c.declined != "" {
			if p != nil || !strings.Contains(why, c.declined) {
				t.Errorf("%s: profile %v, why %q", c.name, p != nil, why)
			}
			continue
		}
		if p == nil {
			t.Errorf("%s: no profile: %s", c.name, why)
			continue
		}
		in := p.Inference
		if in.AttentionDataParallel != c.adp || in.SGLang.DPAttention != c.adp || in.TensorParallel != c.tp || in.DataParallel != 0 || in.MaxBatchedTokens != c.batched {
			t.Errorf("%s: attention dp %d (server %d), tp %d, engines %d, %d batched tokens; want %d, %d, 0 engines, %d", c.name, in.AttentionDataParallel, in.SGLang.DPAttention, in.TensorParallel, in.DataParallel, in.MaxBatchedTokens, c.adp, c.tp, c.batched)
		}
		if c.adp > 1 && !strings.Contains(p.Inferred, fmt.Sprintf("--enable-dp-attention with --dp-size %d", c.adp)) {
			t.Errorf("%s: %q does not say what it read", c.name, p.Inferred)
		}
	}
}

// TestSGLangMTPSpeculation: EAGLE over a checkpoint with MTP layers, and NEXTN, draft with those
// layers (Z.ai's GLM commands; SGLang's DeepSeek commands, which name the layer published apart
// as ORG/NAME-NextN), and the default share leaves 2 GiB more for the draft; EAGLE heads of
// another checkpoint, and NEXTN on a model without MTP layers, are refused.
func TestSGLangMTPSpeculation(t *testing.T) {
	for _, c := range []struct {
		name, line string
		why        string // "" when served with the preset's MTP layers
	}{
		{"Z.ai's GLM-4.5-Air command", "python3 -m sglang.launch_server --model-path zai-org/GLM-4.5-Air-FP8 --tp-size 4 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --mem-fraction-static 0.7", ""},
		{"NEXTN by its name", "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 --speculative-algorithm NEXTN", ""},
		{"the NextN layer published apart", "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3-0324 --tp 8 --speculative-algorithm EAGLE --speculative-draft-model-path lmsys/DeepSeek-V3-0324-NextN --speculative-num-steps 3", ""},
		{"the served model as the draft", "python3 -m sglang.launch_server --model-path zai-org/GLM-4.5 --tp 8 --speculative-algorithm NEXTN --speculative-draft-model zai-org/GLM-4.5", ""},
		{"EAGLE heads of another checkpoint", "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 --speculative-algorithm EAGLE --speculative-draft-model-path org/DeepSeek-R1-EAGLE", "drafts with org/DeepSeek-R1-EAGLE, a checkpoint other than the served one"},
		{"NEXTN on a model without MTP layers", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm NEXTN", "the checkpoint of qwen3-8b does not hold"},
		{"EAGLE on a model without MTP layers", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE --speculative-draft-model-path org/Qwen3-8B-EAGLE", "speculative decoding by EAGLE loads a draft model"},
		{"EAGLE-3", "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 --speculative-algorithm EAGLE3 --speculative-draft-model-path org/eagle3", "by EAGLE3 loads a draft model"},
	} {
		p, why := FromSGLang(strings.Fields(c.line))
		switch {
		case c.why == "" && p == nil:
			t.Errorf("%s: no profile: %s", c.name, why)
		case c.why == "" && (p.Inference.MTPLayers != 1 || p.Inference.SGLang.Speculative == "" || !strings.Contains(p.Inferred, "multi-token prediction layer as the draft")):
			t.Errorf("%s: MTP layers %d, speculative %q, inferred %q", c.name, p.Inference.MTPLayers, p.Inference.SGLang.Speculative, p.Inferred)
		case c.why != "" && (p != nil || !strings.Contains(why, c.why)):
			t.Errorf("%s: profile %v, why %q; want none, because %q", c.name, p != nil, why, c.why)
		}
	}
	// SGLang's default share on an H100 (81,559 MiB) at --tp-size 8 leaves 2 GiB more for the
	// draft; a share given by hand stays as given.
	with, without := &SGLangServer{Speculative: "EAGLE", MaxPrefillTokens: 16384}, &SGLangServer{MaxPrefillTokens: 16384}
	const h100 = 81559.0
	if got := (without.StaticFraction(h100, 8) - with.StaticFraction(h100, 8)) * h100; math.Abs(got-2048) > 0.001*h100 {
		t.Errorf("an MTP draft takes %.0f MiB more out of the share, want 2,048", got)
	}
	with.MemFractionStatic = 0.7
	if got := with.StaticFraction(h100, 8); got != 0.7 {
		t.Errorf("--mem-fraction-static 0.7 with a draft: share %.3f", got)
	}
}
