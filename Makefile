# sdcaudit: `make demo` runs the demo release, `make test` runs every check.
GO      ?= go
BIN     := bin/sdcaudit
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# Each fuzz target runs FUZZTIME; minimizing each new input is capped at
# FUZZMINIMIZE tries so that shrinking never eats the run.
FUZZTIME ?= 60s
FUZZMINIMIZE ?= 50x

.PHONY: build demo test bench fuzz clean

build:
	$(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $(BIN) ./cmd/sdcaudit

# The demo has sensitive cells by design, so sdcaudit exits 1 (a person must
# look); that is the expected outcome here.
demo: build
	@rm -rf out
	@./$(BIN) run configs/demo.yaml --out out; rc=$$?; \
	  if [ $$rc -gt 1 ]; then exit $$rc; fi

test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -timeout 40m ./...

bench:
	$(GO) test -run='^$$' -bench=. -benchmem -timeout 60m ./...

fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; \
	    $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE) $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin out
