# dsight: `make demo` builds and opens a sample report; `make test` runs every test,
# after `make check` (gofmt, go vet, staticcheck). Both install what they need
# (npm packages; Debian's chromium for browser tests; the pinned staticcheck).

GO        ?= go
GOFLAGS_B := -trimpath -buildvcs=false
DEMO_RUN  := out/demo-run
DEMO_OUT  := out/demo-report
WASM_BUDGET := 6000000
# staticcheck is pinned so that every machine reports the same findings; 2026.2.2
# is the release that builds with and understands this Go toolchain.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/tools/staticcheck-$(STATICCHECK_VERSION)/staticcheck

.PHONY: all build assets wasm edge deps browser-deps sqlite-deps demo test test-go test-browser bench bench-browser fuzz check clean

all: build

deps: node_modules/.installed

node_modules/.installed: package.json
	npm install --no-audit --no-fund --loglevel=error
	@touch $@

browser-deps: deps
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian chromium for the browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	  (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null); }

wasm:
	@mkdir -p web/dist
	GOOS=js GOARCH=wasm $(GO) build $(GOFLAGS_B) -ldflags="-s -w" -o web/dist/engine.wasm ./wasm
	@size=$$(wc -c < web/dist/engine.wasm); echo "engine.wasm: $$size bytes (budget $(WASM_BUDGET))"; \
	  test $$size -le $(WASM_BUDGET) || { echo "engine.wasm exceeds its size budget"; exit 1; }

# edge builds the Workers edge (cmd/edge) into out/edge: the Go wasm, the
# syumai/workers glue (worker.mjs, runtime.mjs, wasm_exec.js) and edge.mjs.
EDGE_OUT := out/edge
# Workers accepts a 3 MB (compressed) script on the free plan.
EDGE_GZIP_BUDGET := 3000000
edge:
	@mkdir -p $(EDGE_OUT)
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(EDGE_OUT) >/dev/null
	GOOS=js GOARCH=wasm $(GO) build $(GOFLAGS_B) -ldflags="-s -w" -o $(EDGE_OUT)/app.wasm ./cmd/edge
	cp cmd/edge/edge.mjs cmd/edge/workerd.capnp.tmpl $(EDGE_OUT)/
	@gz=$$(gzip -9 -c $(EDGE_OUT)/app.wasm | wc -c); echo "edge: $$(wc -c < $(EDGE_OUT)/app.wasm) bytes of wasm, $$gz gzip (budget $(EDGE_GZIP_BUDGET))"; \
	  test $$gz -le $(EDGE_GZIP_BUDGET) || { echo "the edge worker exceeds the Workers size limit"; exit 1; }

assets: deps wasm
	$(GO) run ./tools/bundle

build: assets
	$(GO) build $(GOFLAGS_B) -o bin/dsight ./cmd/build

demo: build
	$(GO) run ./tools/gen -out $(DEMO_RUN) -seed 1 -scale 1 -hostile -sources aiperf,frontend,otel,workers,sglang,tokenspeed,tachometer,nsight >/dev/null
	./bin/dsight build $(DEMO_RUN) -o $(DEMO_OUT) --iteration-timezone UTC
	@echo "Report: file://$(abspath $(DEMO_OUT))/index.html"
	@echo "Query:  ./bin/dsight query $(DEMO_OUT) summary"
	@(command -v xdg-open >/dev/null 2>&1 && [ -n "$$DISPLAY" ] && xdg-open "$(abspath $(DEMO_OUT))/index.html" >/dev/null 2>&1 &) || true

test: build browser-deps test-go test-browser

test-go: check sqlite-deps
	$(GO) test -timeout 30m ./...

# The store tests open trace-data.sqlite with the sqlite3 command, as a user would.
sqlite-deps:
	@command -v sqlite3 >/dev/null 2>&1 || { \
	  echo "installing Debian sqlite3 for the store tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null) || \
	  (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null); }

# check is the static gate: formatting, vet and staticcheck over every package.
check: $(STATICCHECK)
	@files=$$(gofmt -l $$(git ls-files '*.go')); test -z "$$files" || { echo "gofmt needed:"; echo "$$files"; exit 1; }
	$(GO) vet ./...
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(abspath $(@D)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

test-browser: build edge browser-deps
	node --test tools/browser/

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./internal/... ./cmd/...

bench-browser: build browser-deps
	node tools/browser/bench.mjs
	node tools/browser/bench-metrics.mjs

# Every fuzz target arms internal/fuzzlimit per input (DSIGHT_FUZZ_INPUT_LIMIT,
# default 10s): an input that hangs crashes the worker, and the run fails with
# the input saved. The outer timeout fails a run whose process stalls whole.
fuzz:
	@for pkg in $$($(GO) list ./internal/...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    timeout $${FUZZ_WALL:-600} $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$${FUZZTIME:-20s} $$pkg || { echo "fuzz $$f failed or hung"; exit 1; }; \
	  done; \
	done

clean:
	rm -rf bin out web/dist/*.js web/dist/*.css web/dist/*.wasm web/dist/index.html
