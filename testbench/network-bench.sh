#!/usr/bin/env bash
# The network figures of docs/network.md ("Speed"), on this machine, with
# the release binary: the wall time to generate a 4x4 network's directory
# (median of 3), and for an 8x8 network (dimension order, 2 VCs, 32-bit
# flits) replaying a `routergen sim` run: the wall time of its Verilator
# build (one) and the network cycles per second of the built model (median
# of 3 runs, response not written, its reading of the stimulus included).
# `make network-bench` runs it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/target/release/routergen"
out="$root/out/network-bench"
rm -rf "$out"
mkdir -p "$out"
now() { date +%s.%N; }
# shellcheck source=testbench/venv-verilator.sh
. "$root/testbench/venv-verilator.sh" network-bench
verilator=("VERILATOR=$vl")
median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }

times=()
for i in 1 2 3; do
  start=$(now)
  "$bin" network --radix 4 -o "$out/net4x4-$i" >/dev/null
  times+=("$(echo "$(now) - $start" | bc)")
done
printf '4x4 network generated (routergen network --radix 4): %.3f s (median of 3)\n' "$(median "${times[@]}")"

"$bin" sim --radix 8 --vcs 2 --load 0.3 --warmup 1000 --measure 20000 \
  --replay "$out/replay8x8" >"$out/sim.log"
cycles=$(wc -l <"$out/replay8x8/stimulus.hex")
start=$(now)
make -C "$out/replay8x8" build/verilator/replay "${verilator[@]}" >"$out/build.log" 2>&1
build=$(echo "$(now) - $start" | bc)
printf '8x8 network Verilator build: %.0f s\n' "$build"
times=()
for i in 1 2 3; do
  start=$(now)
  (cd "$out/replay8x8" && build/verilator/replay +noresponse >/dev/null)
  times+=("$(echo "$(now) - $start" | bc)")
done
run=$(median "${times[@]}")
printf '8x8 network simulated: %d cycles in %.2f s (median of 3): %.0f cycles/s\n' \
  "$cycles" "$run" "$(echo "$cycles / $run" | bc -l)"
