#!/bin/sh
# Regenerates the Go code of the plugin protocol from proto/zarrgw/v1/*.proto
# into zarrgwv1/. Run from anywhere: ./pluginapi/generate.sh
# Installs protoc (Debian/Ubuntu) and the Go generators when missing; the
# generated code is committed, so builds never need any of them.
set -eu

cd "$(dirname "$0")"
GOBIN="$(go env GOPATH)/bin"
PATH="$GOBIN:$PATH"

if ! command -v protoc >/dev/null 2>&1; then
	apt-get install -y --no-install-recommends protobuf-compiler
fi
# The generators are pinned so that regenerating does not churn the output.
command -v protoc-gen-go >/dev/null 2>&1 ||
	GOFLAGS= go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
command -v protoc-gen-go-grpc >/dev/null 2>&1 ||
	GOFLAGS= go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2

rm -f zarrgwv1/*.pb.go
mkdir -p zarrgwv1
protoc -I proto \
	--go_out=zarrgwv1 --go_opt=paths=source_relative \
	--go-grpc_out=zarrgwv1 --go-grpc_opt=paths=source_relative \
	proto/zarrgw/v1/*.proto
# paths=source_relative mirrors proto/zarrgw/v1; flatten into the package dir.
mv zarrgwv1/zarrgw/v1/*.go zarrgwv1/
rm -r zarrgwv1/zarrgw
