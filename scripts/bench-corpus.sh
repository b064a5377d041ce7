#!/usr/bin/env bash
# Times `gpuguard check` on a generated corpus (docs/performance.md).
#
#   scripts/bench-corpus.sh [STACKS] [--profiles]
#
# STACKS defaults to 1000 Terraform stacks. --profiles attaches workload profiles to most GPU
# resources (a .gpuguard.yaml and profiles/), so memory fit, recommendations and every
# guardrail that judges them run too.
# Uses hyperfine when installed (apt-get install hyperfine), else a loop of /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
stacks=${1:-1000}
profiles=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gpuguard" ./cmd/gpuguard
go run ./internal/corpus/gencorpus -terraform "$stacks" ${profiles:+-profiles} -out "$work/corpus"
echo "corpus: $stacks Terraform stacks, $(find "$work/corpus/terraform" -name '*.tf' | xargs cat | wc -l) lines of HCL${profiles:+, profiles attached}"
# --fail-on never: the profiled corpus has deny findings, and the exit code is not measured.
cmd="$work/gpuguard check $work/corpus/terraform --format json --fail-on never"
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine -N --warmup 2 --runs 20 "$cmd"
else
  for i in 1 2 3 4 5; do /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB max RSS" $cmd >/dev/null; done
fi
