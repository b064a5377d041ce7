#!/bin/sh
# Builds the static gpuguard binary the action's image ships: CGO_ENABLED=0, no libc, so it runs
# on any Linux image. The Dockerfile runs this script; so does CI (scripts/action-smoke.sh), since
# no Docker engine runs there. NVML capture needs cgo and is not in this build: it reports a clear
# error, and capture runs on GPU runners with a cgo build (docs/profile-capture.md).
#
# usage: scripts/build-static.sh OUTPUT [VERSION]
set -eu
out=${1:?usage: scripts/build-static.sh OUTPUT [VERSION]}
version=${2:-${GPUGUARD_VERSION:-dev}}
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$out" ./cmd/gpuguard
# A static binary has no program interpreter (PT_INTERP); refuse to ship anything else.
if command -v readelf >/dev/null 2>&1 && readelf -l "$out" | grep -q 'Requesting program interpreter'; then
	echo "build-static: $out is dynamically linked" >&2
	exit 1
fi
