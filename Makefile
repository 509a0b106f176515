# routergen: `make test` installs the external tools the tests need and runs
# every check; `make router` builds the release binary; `make matrix` runs
# every router configuration routergen supports through its own generated
# checks (lint, Icarus testbench, Yosys), with a summary table.

CARGO ?= cargo
# cargo-nextest when present (clearer report, parallel per test), else cargo test.
NEXTEST := $(shell $(CARGO) nextest --version >/dev/null 2>&1 && echo yes)

.PHONY: test tools check-style router matrix

test: tools check-style
ifeq ($(NEXTEST),yes)
	$(CARGO) nextest run --profile ci
else
	$(CARGO) test
endif

tools:
	bash testbench/install-tools.sh

check-style:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings

router:
	$(CARGO) build --release

matrix:
	$(CARGO) test --test outdir matrix_lint_sim_synth -- --ignored --nocapture
