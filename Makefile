# Delta — build, test and documentation targets.
GO      ?= go
BIN     ?= bin
GOBIN   ?= $(shell $(GO) env GOPATH)/bin
PKGS    := ./cmd/... ./plugins/...
TESTFLAGS ?= -timeout 15m

.PHONY: all build install test bench man check demo proto clean

all: build

## build: every binary, first-party plugins included, into ./bin
build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ $(PKGS)

## install: every binary into GOBIN
install:
	GOBIN=$(GOBIN) $(GO) install $(PKGS)

## test: format and vet checks, then all tests (testscript CLI tests and fuzz seed corpora included)
test: check
	$(GO) test $(TESTFLAGS) ./...

## bench: the speed and memory benchmarks (BenchmarkDeltaRunVsMinimalClient
## in cmd/delta-run reports the agent loop against a minimal client)
bench:
	$(GO) test $(TESTFLAGS) -run '^$$' -bench . -benchmem ./...

## man: regenerate man/*.1 from the kong definitions
man: build
	@for b in $(BIN)/delta*; do \
		n=$$(basename $$b); \
		case $$n in delta-plugin-*) continue;; esac; \
		$$b --man > man/$$n.1 || exit 1; \
	done

## check: gofmt, go vet, and no oversized file tracked
check:
	@./scripts/check-size.sh
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## demo: run examples/hello-world offline with the scripted provider
demo: build
	./scripts/demo.sh

## proto: regenerate the plugin protocol's Go code (needs protoc)
proto:
	$(MAKE) -C plugins/proto

clean:
	rm -rf $(BIN)
