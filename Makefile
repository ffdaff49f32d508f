# zarrgw — the two entry points a newcomer needs are `make run` and `make test`.
GO      ?= go
# -timeout: a package of many real-server tests outlasts go test's 10-minute
# default on a loaded machine (tests/conformance did, at load 13); CI allows 90.
GOTEST  ?= $(GO) test -p 2 -timeout 30m
FUZZTIME ?= 10s
BIN     := bin/zarrgw
# Example plugins and the Kubernetes examples, each a Go module of its own.
EXAMPLES := plugins/codecs/bitshave plugins/stores/zipstore plugins/transformers/keyprefix examples/kubernetes

.PHONY: run build build-libzstd test unit unit-libzstd fuzz setup vet bench clean

build:
	$(GO) build -o $(BIN) ./cmd/zarrgw

# The opt-in build whose zstd codec is libzstd through cgo (its sources come
# with github.com/DataDog/zstd: gcc is all it needs); `zarrgw version` says
# which zstd a binary has.
build-libzstd:
	CGO_ENABLED=1 $(GO) build -tags libzstd -o $(BIN) ./cmd/zarrgw

# The gateway on examples/gateway/zarrgw.hcl, with its sample dataset
# made on first start; it prints the URLs to try. Ctrl-C stops it.
run: build
	@[ -e examples/gateway/data/sample.zarr/zarr.json ] || $(GO) run ./examples/mksample examples/gateway/data/sample.zarr
	@[ -e examples/gateway/data/sample_v2.zarr/.zgroup ] || $(GO) run ./examples/mksample -format 2 examples/gateway/data/sample_v2.zarr
	$(BIN) serve -c examples/gateway/zarrgw.hcl

setup:
	bash scripts/setup.sh

vet:
	gofmt -l $$(git ls-files '*.go') | (! grep .) || (echo "gofmt needed"; exit 1)
	$(GO) vet ./...
	for m in $(EXAMPLES); do (cd $$m && $(GO) vet ./...) || exit 1; done

# Tests that build zarrgw or plugin binaries and run them: the test cache
# cannot see those binaries' sources, so these always run afresh.
BINTESTS := ./cmd/zarrgw ./tests/cli ./tests/config ./tests/plugins ./tests/gateway ./tests/cloud ./tests/transfer ./tests/s3 ./tests/install ./tests/security ./tests/cache ./tests/identity ./tests/telemetry ./tests/scaleout
# the same as grep patterns, to leave them out of the cached run
BINPATTERNS := $(patsubst ./%,-e '.*/%',$(BINTESTS))

unit:
	$(GOTEST) $$($(GO) list ./... | grep -v -x $(BINPATTERNS))
	$(GOTEST) -count=1 $(BINTESTS)
	@# the example modules (plugins, Kubernetes manifests) are modules of their own
	for m in $(EXAMPLES); do (cd $$m && $(GOTEST) ./...) || exit 1; done
	@# the summary lines (results come from the test cache, nothing runs twice)
	@$(GOTEST) -v -run 'TestConformance' ./tests/conformance/ | grep -E '^conformance' || true
	@$(GOTEST) -v ./tests/interop/ | grep -E '^interop ' || true

# The zstd codec's tests (and vet) in the libzstd build; compiling libzstd
# costs about 90 s of CPU once, then comes from the build cache.
unit-libzstd:
	CGO_ENABLED=1 $(GOTEST) -tags libzstd ./plugins/codecs/zstdcodec
	CGO_ENABLED=1 $(GO) vet -tags libzstd ./plugins/codecs/zstdcodec

# Brief runs of the fuzz targets (each also runs its seed corpus in `unit`).
fuzz:
	bash scripts/fuzz.sh $(FUZZTIME)

test: setup vet unit unit-libzstd fuzz

bench:
	bash bench/run.sh

clean:
	rm -rf bin
