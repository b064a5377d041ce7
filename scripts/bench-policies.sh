#!/usr/bin/env bash
# Measures policy evaluation over 4,000 resources (issue 5's target: under 100 ms) under the
# garbage-collector settings that decide it, so that runs on different machines compare alike:
#
#   scripts/bench-policies.sh [COUNT]
#
# - default GC: the test binary's GOGC=100;
# - GOGC=800: as the gpuguard binary runs (cmd/gpuguard/main.go sets it when GOGC is unset);
# - GOGC=off: no collection, the floor the rules' own work sets.
# Each benchmark runs COUNT times (default 3) for 10 iterations. The evaluation includes the
# input's conversion; BenchmarkGuardrailsCorpus4000 runs the guardrails on real check output.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/policies.test" ./policies
go test -c -o "$work/check.test" ./internal/check
for gc in default 800 off; do
  echo "== GOGC=$gc"
  env_gc=()
  [ "$gc" = default ] || env_gc=(GOGC="$gc")
  (cd policies && env "${env_gc[@]}" "$work/policies.test" -test.run '^$' -test.bench 'Evaluate4000|Input4000' -test.benchtime 10x -test.count "$count" | grep '^Benchmark')
  (cd internal/check && env "${env_gc[@]}" "$work/check.test" -test.run '^$' -test.bench 'GuardrailsCorpus4000' -test.benchtime 10x -test.count "$count" | grep '^Benchmark')
done
