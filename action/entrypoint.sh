#!/bin/sh
# The entrypoint of gpuguard's GitHub Action (action.yml, Dockerfile). It maps the action's
# inputs to gpuguard's flags, runs check (or diff when base-ref is set), posts the pull-request
# comment, and exits with gpuguard's status. scripts/action-smoke.sh runs it in CI without Docker.
#
# Inputs arrive as INPUT_<NAME> variables, with the hyphen of a name such as base-ref turned
# into an underscore by action.yml's runs.env (GitHub itself keeps the hyphen, INPUT_BASE-REF,
# which a POSIX shell drops from its environment).
set -u
set -f # no pathname expansion: paths and policies are passed as written

GPUGUARD=${GPUGUARD:-gpuguard}

# input NAME DEFAULT prints the input, trimmed, or DEFAULT when it is empty or not set.
input() {
	var=INPUT_$(printf '%s' "$1" | tr '[:lower:]-' '[:upper:]_')
	eval "value=\${$var-}"
	# Trim surrounding white space (YAML block scalars end in a newline).
	value=$(printf '%s' "$value" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
	printf '%s' "${value:-$2}"
}

paths=$(input path .)
base=$(input base-ref "")
config=$(input config "")
policy=$(input policy "")
var_files=$(input var-file "")
vars=$(input var "")
fail_on=$(input fail-on deny)
comment=$(input comment true)
behavior=$(input behavior update)
json_report=$(input json-report "")
token=$(input github-token "")

case "$comment" in
true | false) ;;
*)
	echo "::error title=gpuguard::input comment must be true or false, got '$comment'"
	exit 1
	;;
esac

# The flags, built as positional parameters so that values keep their spaces.
set -- --format github --fail-on "$fail_on"
[ -n "$config" ] && set -- "$@" --config "$config"
# policy, var-file and path take several values, one per line or separated by commas or spaces.
old_ifs=$IFS
IFS=$(printf ', \n\t')
for p in $policy; do
	set -- "$@" --policy "$p"
done
for p in $var_files; do
	set -- "$@" --var-file "$p"
done
# A variable's value may hold spaces, commas and brackets: one per line, and no globbing.
IFS=$(printf '\n_')
IFS=${IFS%_}
set -f
for v in $vars; do
	set -- "$@" --var "$v"
done
set +f
IFS=$old_ifs

report_dir=$(mktemp -d "${RUNNER_TEMP:-/tmp}/gpuguard.XXXXXX") || exit 1
report="$report_dir/report.json"
trap 'rm -rf "$report_dir"' EXIT

if [ -n "$base" ]; then
	# The workspace is owned by the runner's user, not the container's: let git read it.
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
	set -- diff --base "$base" "$@"
else
	set -- check "$@"
fi
set -- "$@" --json-output "$report" --

IFS=$(printf ', \n\t')
for p in $paths; do
	set -- "$@" "$p"
done
IFS=$old_ifs

"$GPUGUARD" "$@"
status=$?

if [ -n "$json_report" ] && [ -s "$report" ]; then
	cp "$report" "$json_report" || status=1
fi

if [ "$comment" = true ]; then
	case "${GITHUB_EVENT_NAME:-}" in
	pull_request | pull_request_target | workflow_run | issue_comment)
		if [ ! -s "$report" ]; then
			echo "gpuguard: no report to post (the run failed before writing one)"
		elif [ -z "$token" ] && [ -z "${GITHUB_TOKEN:-}" ]; then
			echo "::warning title=gpuguard::no github-token input: the report is in the job summary, not on the pull request"
		else
			# The token goes to gpuguard through its environment only, never on a command line.
			GITHUB_TOKEN=${token:-${GITHUB_TOKEN:-}} "$GPUGUARD" comment github --input "$report" --behavior "$behavior" --fail-on never
			comment_status=$?
			# A comment that could not be posted for permissions exits 0 (gpuguard fell back to the
			# job summary); any other failure of the tool wins over findings, as everywhere.
			if [ "$comment_status" -ne 0 ]; then
				status=1
			fi
		fi
		;;
	*)
		echo "gpuguard: not a pull request event (${GITHUB_EVENT_NAME:-none}): no comment posted"
		;;
	esac
fi

exit "$status"
