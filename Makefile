# routergen: `make test` installs the external tools the tests need and runs
# every check; `make router` builds the release binary; `make matrix` runs
# every router configuration routergen supports through its own generated
# checks (lint, Icarus testbench, Yosys), with a summary table.
#
# `make matrix` and `make prove-all` run their work as jobs (docs/cluster.md):
# EXEC passes executor flags (EXEC="-j 1", EXEC="--executor slurm
# --slurm-args '-p short'", EXEC="--plan DIR" to keep and resume the plan),
# ONLY=name-part selects some configurations or proofs.

CARGO ?= cargo
# cargo-nextest when present (clearer report, parallel per test), else cargo test.
NEXTEST := $(shell $(CARGO) nextest --version >/dev/null 2>&1 && echo yes)

.PHONY: test test-slow tools check-style router gen-time network-bench network-large prove matrix fpga-all synth-perf compare-chien sim-matrix sim-bench sim-plot studies
.PHONY: install waves-fst outdir-slow prove-all writer-code equiv-before install-check slurm-up slurm-down

test: tools check-style
ifeq ($(NEXTEST),yes)
	$(CARGO) nextest run --profile ci
else
	$(CARGO) test
endif

# The tests too slow for the default suite (each marked `#[ignore = "slow:
# make test-slow"]`, or ignored with a make target of its own named in its
# comment), apart from the matrix-scale ones with targets of their own
# (matrix, writer-code, equiv-before, sim-matrix, install-check); its 33
# tests take up to several minutes each.
SLOW_SKIP := matrix_every_configuration the_code_is_rust_hdls_on_every_matrix_router every_matrix_router_is_the_earlier_routergens cargo_install_gives_a_binary every_algorithm_on_meshes_and_tori_both_engines
test-slow: tools
ifeq ($(NEXTEST),yes)
	$(CARGO) nextest run --profile slow --run-ignored only -E 'not ($(foreach t,$(SLOW_SKIP),test(/$(t)/) |) none())'
else
	$(CARGO) test -- --ignored $(foreach t,$(SLOW_SKIP),--skip $(t))
endif

tools:
	bash testbench/install-tools.sh

check-style:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings

router:
	$(CARGO) build --release

# Wall time of `routergen -o DIR` for the largest networks routergen builds
# (docs/performance.md, "Generation time").
gen-time: router
	bash testbench/generation-time.sh

# A 4x4 network's generation time, an 8x8 network's Verilator build time
# and simulation speed (docs/network.md, "Speed").
network-bench: router
	bash testbench/network-bench.sh

network-large: router tools
	bash testbench/network-large.sh

# routergen's proof suite (docs/prove.md), each proof and each mutant it must
# fail on a job (`routergen prove --all`): every block at its default sizes
# and some at smaller ones, the router's bounded check (dimension order and
# Duato), its credit, liveness and order proofs, and their mutants (the
# liveness and order jobs take minutes each on a shared two-core machine).
# `make test` runs the quick ones. `prove` is the same as `prove-all`.
prove-all: tools
	$(CARGO) run --release -- prove --all $(if $(ONLY),--only "$(ONLY)") $(EXEC)

prove: prove-all

# The output-directory checks too slow for the default suite (the 3-D
# torus's plane slices through Icarus).
outdir-slow:
	$(CARGO) test --test outdir -- --ignored --nocapture

# Every configuration of routergen's matrix (src/router: every algorithm on
# every topology it routes, 137 routers) through lint, the Icarus testbench
# and generic synthesis, each router a job; a table at the end.
matrix:
	$(CARGO) run --release -- matrix $(if $(ONLY),--only "$(ONLY)") $(EXEC)

# The always blocks the Verilog writer (src/hdl/) writes, for every
# configuration of `make matrix`, the code rust-hdl's own hdl_gen writes
# for each block; the default suite checks a sample.
writer-code:
	$(CARGO) test --release --lib the_code_is_rust_hdls_on_every_matrix_router -- --ignored

# Every configuration of `make matrix` and each option family it does not
# vary (ONLY=name-part[,name-part...] selects some) as
# this routergen writes it, proved equivalent by Yosys and ABC to the
# Verilog an earlier routergen binary writes (BEFORE=path): the check of a
# change meant to keep the hardware. JOBS=n proofs at once (default: one
# per core); DONE=log skips the routers an earlier run's log proved.
equiv-before:
	@test -n "$(BEFORE)" || { echo "make equiv-before: give BEFORE=path/to/an/earlier/routergen"; exit 2; }
	ROUTERGEN_BEFORE="$(abspath $(BEFORE))" MATRIX_ONLY="$(ONLY)" EQUIV_JOBS="$(JOBS)" \
	  EQUIV_DONE="$(if $(DONE),$(abspath $(DONE)))" $(CARGO) test --release --test equiv \
	  every_matrix_router_is_the_earlier_routergens -- --ignored --nocapture

# Bitstreams of the bring-up design for every board (out/fpga/<board>/build/).
FPGA_BOARDS := icebreaker hx8k-breakout ulx3s orangecrab
FPGA_SPEC ?= --algo dor --vcs 1 --depth 2
fpga-all: tools
	@failed=""; for b in $(FPGA_BOARDS); do \
	  $(CARGO) run --release -- fpga --board $$b $(FPGA_SPEC) -o out/fpga/$$b --build \
	    || failed="$$failed $$b"; \
	done; \
	if [ -n "$$failed" ]; then echo "fpga-all: no bitstream for:$$failed"; exit 1; fi

# The performance point of docs/performance.md: 5 ports, 2 VCs, 32-bit flits,
# 4 flits per VC, dimension order on a 2-D mesh, on iCE40-HX8K and ECP5.
PERF_SPEC := --algo dor --vcs 2 --flit-width 32 --depth 4
synth-perf: tools
	$(CARGO) run --release -- synth $(PERF_SPEC) --target ice40-hx8k -o out/perf/ice40-hx8k
	$(CARGO) run --release -- synth $(PERF_SPEC) --target ecp5-85k -o out/perf/ecp5-85k
	$(CARGO) run --release -- synth $(PERF_SPEC) --buffers bram --target ice40-hx8k -o out/perf/ice40-hx8k-bram
	$(CARGO) run --release -- synth $(PERF_SPEC) --buffers bram --target ecp5-85k -o out/perf/ecp5-85k-bram

# Chien's model beside Yosys and nextpnr for every algorithm the router builds.
compare-chien: tools
	$(CARGO) run --release -- synth --compare-chien --target ice40-hx8k

# Network simulation: every algorithm on 4-ary 2-D and 3-D meshes and tori at
# low and high load on both engines, per-flit traces compared.
sim-matrix:
	$(CARGO) test --lib sim::tests::every_algorithm -- --ignored --nocapture

# Router-cycles per second of each engine on an 8x8 mesh (docs/sim.md figures).
sim-bench:
	$(CARGO) run --release -- bench

# The example plot of docs/sim.md (docs/sim-latency.svg).
sim-plot:
	$(CARGO) run -- sim --algos dor,duato --load 0.1,0.2,0.3,0.4,0.5,0.6 \
	  --warmup 500 --measure 2000 --svg docs/sim-latency.svg --csv docs/sim-latency.csv

# The studies of docs/analyze.md: routergen's routers simulated beside the
# papers' models, written into docs/studies/<name>/ (long: release build;
# chien synthesizes each router for two FPGAs unless docs/studies/chien/fmax/
# holds its report).
studies:
	$(CARGO) run --release -- study quaglia -o docs/studies/quaglia
	$(CARGO) run --release -- study dally -o docs/studies/dally
	$(CARGO) run --release -- study lapses -o docs/studies/lapses
	$(CARGO) run --release -- study chien -o docs/studies/chien
# The release binary, its man pages and its bash, zsh and fish completions
# under PREFIX (default ~/.local; `sudo make install PREFIX=/usr/local`).
PREFIX ?= $(HOME)/.local
install: router
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 target/release/routergen $(DESTDIR)$(PREFIX)/bin/routergen
	target/release/routergen man -o $(DESTDIR)$(PREFIX)/share/man/man1
	target/release/routergen completions bash -o $(DESTDIR)$(PREFIX)/share/bash-completion/completions/routergen
	target/release/routergen completions zsh -o $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_routergen
	target/release/routergen completions fish -o $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/routergen.fish

# The Verilator waveform test (traced builds): make sim-verilator WAVES=1,
# and the FST a failing make sim-verilator writes.
waves-fst:
	$(CARGO) test --test outdir_extras make_sim_verilator_writes_an_fst -- --ignored

# The release binary installed by `cargo install --path . --root DIR`, run
# from an unrelated directory (a release build: minutes).
install-check:
	$(CARGO) test --test install -- --ignored --nocapture

# A one-node Slurm cluster on this machine under SLURM_DIR, to try
# `--executor slurm` by hand (docs/cluster.md); root only.
SLURM_DIR ?= /tmp/routergen-slurm
slurm-up: tools
	bash testbench/slurm.sh start $(SLURM_DIR)
	@echo "export SLURM_CONF=$(SLURM_DIR)/slurm.conf"
slurm-down:
	bash testbench/slurm.sh stop $(SLURM_DIR)
