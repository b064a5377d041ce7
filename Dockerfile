# gpuguard's GitHub Action image (action.yml): a static binary on a small non-root image with
# git, which diff needs to read the base ref. The build steps are scripts/build-static.sh, which
# CI runs too (scripts/action-smoke.sh), since no Docker engine runs on CI machines.
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN sh scripts/build-static.sh /out/gpuguard "$VERSION"

FROM alpine:3.22
RUN apk add --no-cache git ca-certificates \
	&& adduser -D -u 1001 -h /home/gpuguard gpuguard
COPY --from=build /out/gpuguard /usr/local/bin/gpuguard
COPY action/entrypoint.sh /usr/local/bin/gpuguard-action
# 1001 is the runner's user on GitHub-hosted runners, which owns the mounted workspace.
USER 1001
ENTRYPOINT ["/usr/local/bin/gpuguard-action"]
