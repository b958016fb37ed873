# Delta — build, test and documentation targets.
GO      ?= go
BIN     ?= bin
GOBIN   ?= $(shell $(GO) env GOPATH)/bin
PKGS    := ./cmd/... ./plugins/...
TESTFLAGS ?= -timeout 15m
# The version --version prints: the tag or commit of the checkout and its date.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel) ($(shell git log -1 --format=%cs 2>/dev/null))
# -s -w: built and installed binaries carry no symbol table or DWARF (a
# smaller file; panics still name functions, from the kept pclntab).
LDFLAGS := -s -w -X 'github.com/deltakit/delta/lib/cli.version=$(VERSION)'
MANDIR  ?= $(abspath $(GOBIN)/../share/man)

# The first-party plugins (main packages under plugins/): their checksums go
# into delta-plugins.sha256 beside the binaries, which delta-run trusts
# without a `delta plugin install` (third-party plugins still need one).
FIRST_PARTY_PLUGINS := delta-plugin-coding delta-plugin-web
define plugin_manifest
cd $(1) && { command -v sha256sum >/dev/null && sha256sum $(FIRST_PARTY_PLUGINS) || shasum -a 256 $(FIRST_PARTY_PLUGINS); } > delta-plugins.sha256.tmp && mv delta-plugins.sha256.tmp delta-plugins.sha256
endef

.PHONY: all build install test bench man check demo proto clean cross snapshot chaos

all: build

## build: every binary, first-party plugins included, into ./bin. Static
## (CGO_ENABLED=0: no dynamic loader or libc to map at each start, which
## every short-lived command pays) and reproducible (-trimpath).
BUILDFLAGS ?= -trimpath
build:
	@mkdir -p $(BIN)
	@[ -x $(BIN)/delta-run ] || echo "building Delta into $(BIN)/ (the first build downloads modules and takes a few minutes)" >&2
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -ldflags "$(LDFLAGS)" -o $(BIN)/ $(PKGS)
	@$(call plugin_manifest,$(BIN))

## install: every binary into GOBIN, the man pages into MANDIR (GOBIN/../share/man,
## which man(1) finds when GOBIN is on PATH)
install:
	CGO_ENABLED=0 GOBIN=$(GOBIN) $(GO) install $(BUILDFLAGS) -ldflags "$(LDFLAGS)" $(PKGS)
	@$(call plugin_manifest,$(GOBIN))
	@mkdir -p $(MANDIR)/man1 $(MANDIR)/man5 $(MANDIR)/man7
	cp man/*.1 $(MANDIR)/man1/
	cp man/*.5 $(MANDIR)/man5/
	cp man/*.7 $(MANDIR)/man7/
	@echo "installed into $(GOBIN); man pages into $(MANDIR)" >&2

## test: format and vet checks, then all tests (testscript CLI tests and fuzz seed corpora included),
## then every benchmark once, so that none breaks unseen (their figures come from make bench)
test: check
	$(GO) test $(TESTFLAGS) ./...
	$(GO) test $(TESTFLAGS) -run '^$$' -bench . -benchtime 1x ./...

## cross: go vet and go build of every package for every supported target
## (Linux and macOS, amd64 and arm64) whatever the host, with the release's
## flags (so make snapshot after it finds every package compiled), and a check that a
## Windows build stops at the one message saying Windows is not supported
## (WSL is; the go command's "downloading" lines, printed when a
## Windows-only dependency is fetched for the first time, are not the build's
## output). Nothing is kept: it proves the code builds everywhere.
CROSS_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
cross:
	@for t in $(CROSS_TARGETS); do \
		echo "cross: vet and build for $$t" >&2; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) vet $(BUILDFLAGS) ./... || exit 1; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) ./... || exit 1; \
	done
	@echo "cross: windows/amd64 must refuse with one message" >&2
	@out=$$(GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build ./cmd/... 2>&1); \
	if [ -z "$$out" ] || echo "$$out" | grep -v -e '^#' -e '^go: downloading ' | grep -qv 'Delta_does_not_support_Windows'; then \
		echo "cross: a Windows build should fail with only the not-supported message, got:"; echo "$$out"; exit 1; \
	fi

## snapshot: a local release into dist/ with GoReleaser (.goreleaser.yaml):
## the archives of every target with man pages, completions and the coding
## plugin, checksums.txt and the Homebrew cask; nothing is published.
## GORELEASER names the binary (.ci/run installs one into its cache).
GORELEASER ?= goreleaser
snapshot:
	$(GORELEASER) release --snapshot --clean

## chaos: the randomized fault run of the cluster (cmd/delta-cluster TestChaos):
## batches on three workers over a three-node in-process cluster while nodes
## are killed, isolated and restarted and workers SIGKILLed, then checks every
## mirrored journal's seq and hash chain, each tool call run at most once and
## one result per task. DELTA_CHAOS_DURATION (default 3m), DELTA_CHAOS_SEED
## (printed, to replay a failure). Not part of make test, nor of CI.
chaos:
	DELTA_CHAOS=1 $(GO) test -run '^TestChaos$$' -timeout 30m -v ./cmd/delta-cluster/

## bench: the speed and memory benchmarks (BenchmarkDeltaRunVsMinimalClient
## in cmd/delta-run reports the agent loop against a minimal client)
bench:
	$(GO) test $(TESTFLAGS) -run '^$$' -bench . -benchmem ./...

## man: regenerate man/*.1 from the kong definitions
man: build
	@for b in $(BIN)/delta*; do \
		n=$$(basename $$b); \
		case $$n in delta-plugin-*|*.sha256) continue;; esac; \
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

## smoke: the integration smoke test against real providers: every provider whose
## key is set (OPENAI_API_KEY or DELTA_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY)
## runs its coding agent through create, edit, run, truncation, steering, subagent
## and timeout steps, then the parity matrix is printed as a table and as JSON;
## skipped with the reason when no key is set. SMOKEFLAGS: -model PROVIDER=MODEL,
## -providers LIST, -json FILE, -keep. Not part of make test (which runs its
## offline tests against a fake model).
.PHONY: smoke
smoke: build
	$(GO) run ./scripts/smoke -bin $(BIN) $(SMOKEFLAGS)

## proto: regenerate the plugin protocol's Go code (needs protoc)
proto:
	$(MAKE) -C plugins/proto

clean:
	rm -rf $(BIN)
