#!/bin/sh
# Runs the GitHub Action the way GitHub would, without Docker: the static binary from
# scripts/build-static.sh (the Dockerfile's build step) and action/entrypoint.sh (the image's
# entrypoint), with INPUT_* variables, a pull_request event payload, and a fake GitHub API on
# loopback. It checks the exit status, the step outputs, the annotations, the comment posted and
# that the token is never printed. .ci/run runs it.
set -eu

repo_root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
fake_pid=""
cleanup() {
	if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "action-smoke: FAIL: $*" >&2
	for f in "$tmp"/log.*; do
		[ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }
	done
	exit 1
}

cd "$repo_root"
mkdir -p "$tmp/bin"
sh scripts/build-static.sh "$tmp/bin/gpuguard" smoke
go build -o "$tmp/fakegithub" ./internal/github/githubtest/fakegithub
"$tmp/bin/gpuguard" version | grep -q "gpuguard smoke" || fail "the static binary does not report its version"

# A repository whose main branch holds the base and whose feature branch holds the head.
git_() { git -C "$tmp/repo" -c user.name=smoke -c user.email=smoke@example.com "$@"; }
mkdir -p "$tmp/repo/infra"
git_ init -q -b main
cp testdata/diff/increase/base/main.tf "$tmp/repo/infra/"
# vars/: a stack whose GPU type comes from a variables file the pull request changes.
mkdir -p "$tmp/repo/vars/envs"
cat >"$tmp/repo/vars/main.tf" <<'TF'
variable "gpu_type" { type = string }
variable "zones" { type = list(string) }
provider "aws" { region = "us-east-1" }
resource "aws_instance" "train" {
  count             = length(var.zones)
  ami               = "ami-123"
  instance_type     = var.gpu_type
  availability_zone = var.zones[count.index]
}
TF
echo 'gpu_type = "g5.xlarge"' >"$tmp/repo/vars/envs/prod.tfvars"
git_ add . && git_ commit -q -m base
git_ checkout -q -b feature
cp testdata/diff/increase/head/main.tf testdata/diff/increase/head/.gpuguard.yaml "$tmp/repo/infra/"
echo 'gpu_type = "p4d.24xlarge"' >"$tmp/repo/vars/envs/prod.tfvars"
git_ add . && git_ commit -q -m head
head_sha=$(git_ rev-parse HEAD)
base_sha=$(git_ rev-parse main)
printf '{"action":"synchronize","number":7,"pull_request":{"number":7,"head":{"sha":"%s"},"base":{"sha":"%s"}}}\n' "$head_sha" "$base_sha" >"$tmp/event.json"

token=ghs_smokeTestSecretToken

# start_fake DUMP [FLAGS...]: runs the fake API and sets $api_url.
start_fake() {
	dump=$1
	shift
	"$tmp/fakegithub" -dump "$dump" -issue 7 "$@" >"$tmp/fake.url" &
	fake_pid=$!
	i=0
	while [ ! -s "$tmp/fake.url" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "the fake GitHub API did not start"
		sleep 0.1
	done
	api_url=$(head -n 1 "$tmp/fake.url")
}

stop_fake() {
	kill -TERM "$fake_pid"
	wait "$fake_pid" || true
	fake_pid=""
	: >"$tmp/fake.url"
}

# run_action NAME [VAR=VALUE...]: runs the entrypoint in the repository with a clean environment.
run_action() {
	name=$1
	shift
	: >"$tmp/out.$name"
	set +e
	(cd "$tmp/repo" && env -i PATH="$tmp/bin:/usr/local/bin:/usr/bin:/bin" HOME="$tmp" RUNNER_TEMP="$tmp" \
		GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$tmp/event.json" GITHUB_REPOSITORY=acme/infra GITHUB_WORKSPACE="$tmp/repo" \
		GITHUB_API_URL="$api_url" GITHUB_OUTPUT="$tmp/out.$name" GITHUB_STEP_SUMMARY="$tmp/summary.$name" \
		"$@" sh "$repo_root/action/entrypoint.sh") >"$tmp/log.$name" 2>&1
	status=$?
	set -e
	if grep -q "$token" "$tmp/log.$name"; then
		fail "$name: the token was printed"
	fi
}

expect_output() {
	grep -qx "$2" "$tmp/out.$1" || fail "$1: GITHUB_OUTPUT lacks '$2': $(cat "$tmp/out.$1")"
}

expect_log() {
	grep -qF -- "$2" "$tmp/log.$1" || fail "$1: the log lacks '$2'"
}

# 1. A pull request from the same repository: diff against main, GPU001 denies the increase, the
# earlier gpuguard comment is edited in place.
start_fake "$tmp/dump.same" -seed "<!-- gpuguard:comment -->
an old report"
run_action same INPUT_PATH=infra INPUT_BASE_REF=main INPUT_FAIL_ON=deny INPUT_COMMENT=true \
	INPUT_BEHAVIOR=update INPUT_GITHUB_TOKEN=$token
stop_fake
[ "$status" -eq 2 ] || fail "same: exit status $status, want 2 (GPU001 deny)"
expect_output same "monthly-cost=83600.18"
expect_output same "monthly-delta=48801.02"
expect_output same "max-monthly-cost=163958.58"
expect_output same "failed=true"
expect_log same "::error file=infra/.gpuguard.yaml,line=2,title=gpuguard GPU001 GPU spend over budget::this change adds \$48,801.02 a month"
expect_log same "::warning file=infra/main.tf,line=31,title=gpuguard GPU006"
expect_log same "updated its comment on acme/infra#7"
python3 - "$tmp/dump.same" "$head_sha" "$base_sha" <<'PY' || fail "same: the comment on the fake API is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
head, base = sys.argv[2], sys.argv[3]
cs = d["comments"]
assert len(cs) == 1, cs
c = cs[0]
assert c["id"] == 1001, c["id"]  # the seeded comment, edited in place
assert c["body"].startswith("<!-- gpuguard:comment -->"), c["body"][:80]
assert "GPU spend $34,799.16 → $83,600.18 a month (+$48,801.02, +140.2%)" in c["body"], c["body"][:300]
assert any(r.startswith("PATCH /repos/acme/infra/issues/comments/1001") for r in d["requests"]), d["requests"]
# Resources link to their lines: the head's at the pull request's head commit, a removed one at the base.
blob = "https://github.com/acme/infra/blob/"
for want in ["[`aws_instance.serve[2]`](" + blob + head + "/infra/main.tf#L22)",
             "[`aws_instance.retired`](" + blob + base + "/infra/main.tf#L26)"]:
    assert want in c["body"], (want, c["body"])
PY
grep -q "gpuguard: GPU spend" "$tmp/summary.same" || fail "same: no job summary"

# 2. A pull request from a fork: the token is read-only (403). The report stays in the job
# summary, once, and the exit status is the report's.
start_fake "$tmp/dump.fork" -fail 403
run_action fork INPUT_PATH=infra INPUT_BASE_REF=main INPUT_GITHUB_TOKEN=$token
stop_fake
[ "$status" -eq 2 ] || fail "fork: exit status $status, want 2"
expect_log fork "cannot comment on acme/infra#7"
expect_log fork "The report is in the job summary."
[ "$(grep -c 'gpuguard:comment' "$tmp/summary.fork")" -eq 1 ] || fail "fork: the summary should hold the report once"

# 3. No base: check the head alone, no comment, never fail.
start_fake "$tmp/dump.check"
run_action check "INPUT_PATH=infra" INPUT_FAIL_ON=never INPUT_COMMENT=false INPUT_JSON_REPORT=report.json
stop_fake
[ "$status" -eq 0 ] || fail "check: exit status $status, want 0"
expect_output check "monthly-cost=83600.18"
expect_output check "monthly-delta="
expect_output check "failed=false"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["totals"]["monthly_cost"] == 83600.18, d["totals"]' "$tmp/repo/report.json" ||
	fail "check: json-report was not written"
python3 -c 'import json,sys; assert not json.load(open(sys.argv[1]))["comments"]' "$tmp/dump.check" || fail "check: a comment was posted"

# 4. Terraform variables: a variables file read on each side, and a value with spaces, a comma
# and brackets passed whole. Two p4d.24xlarge instead of two g5.xlarge: +$30,589.40.
start_fake "$tmp/dump.vars"
run_action vars INPUT_PATH=vars INPUT_BASE_REF=main INPUT_FAIL_ON=never INPUT_COMMENT=false \
	INPUT_VAR_FILE=vars/envs/prod.tfvars 'INPUT_VAR=zones=["us-east-1a", "us-east-1b"]'
stop_fake
[ "$status" -eq 0 ] || fail "vars: exit status $status, want 0"
expect_output vars "monthly-cost=32058.16"
expect_output vars "monthly-delta=30589.40"

# 5. A bad input is the tool failing: exit 1.
start_fake "$tmp/dump.bad"
run_action bad INPUT_PATH=infra INPUT_FAIL_ON=sometimes
stop_fake
[ "$status" -eq 1 ] || fail "bad: exit status $status, want 1"
expect_log bad "--fail-on must be deny, warn, notice or never"

echo "action-smoke: ok (static binary, entrypoint, outputs, annotations, comment update, fork fallback, variables)"
