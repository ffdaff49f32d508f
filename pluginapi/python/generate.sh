#!/bin/sh
# Regenerates the Python code of the plugin protocol, from the same
# .proto files as the Go code (../proto/zarrgw/v1) and the go-plugin, gRPC
# health and google.rpc.Status declarations in proto/, into
# zarrgw_plugin/_proto (or into the directory given as the first argument,
# which the tests use to check the committed code is current).
# Run from anywhere: ./pluginapi/python/generate.sh
# Needs protoc and grpc_python_plugin: Debian's protobuf-compiler and
# protobuf-compiler-grpc, installed when missing. The generated code is
# committed, so plugins never need either.
set -eu

here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/zarrgw_plugin/_proto}"

if ! command -v protoc >/dev/null 2>&1 || ! command -v grpc_python_plugin >/dev/null 2>&1; then
	apt-get install -y --no-install-recommends protobuf-compiler protobuf-compiler-grpc >/dev/null
fi

rm -rf "$out"
mkdir -p "$out"
cd "$here"
protoc -I ../proto -I proto \
	--python_out="$out" \
	--grpc_python_out="$out" --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" \
	../proto/zarrgw/v1/*.proto proto/plugin/*.proto proto/grpc/health/v1/*.proto proto/google/rpc/*.proto

# protoc writes imports relative to the include path ("from zarrgw.v1
# import types_pb2"); the modules live inside zarrgw_plugin._proto.
find "$out" -name '*.py' -exec sed -i -E \
	's/^from (zarrgw\.v1|plugin|grpc\.health\.v1|google\.rpc) import /from zarrgw_plugin._proto.\1 import /' {} +
find "$out" -type d -exec sh -c 'for d; do : > "$d/__init__.py"; done' sh {} +
