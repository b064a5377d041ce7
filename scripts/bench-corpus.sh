#!/usr/bin/env bash
# Times `gpuguard check` on a generated corpus (docs/performance.md).
#
#   scripts/bench-corpus.sh [STACKS]        default 1000 Terraform stacks
#
# Uses hyperfine when installed (apt-get install hyperfine), else a loop of /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
stacks=${1:-1000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gpuguard" ./cmd/gpuguard
go run ./internal/corpus/gencorpus -terraform "$stacks" -out "$work/corpus"
echo "corpus: $stacks Terraform stacks, $(find "$work/corpus/terraform" -name '*.tf' | xargs cat | wc -l) lines of HCL"
cmd="$work/gpuguard check $work/corpus/terraform --format json"
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine -N --warmup 2 --runs 20 "$cmd"
else
  for i in 1 2 3 4 5; do /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB max RSS" $cmd >/dev/null; done
fi
