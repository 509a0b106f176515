#!/usr/bin/env bash
# Generation time of `routergen -o DIR` (the release binary), wall seconds,
# median of 3 runs, for the largest networks of each kind routergen builds
# and for a report-only spec (docs/limits.md). `make gen-time` runs it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/target/release/routergen"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
specs=(
  "--algo dor"
  "--algo planar --vcs 3"
  "--algo duato --radix 16"
  "--algo dor --radix 64"
  "--algo duato --radix 64"
  "--algo dor --topology torus --dims 3 --radix 16"
  "--algo planar --dims 3 --radix 16"
  "--algo dor --topology hypercube --dims 10"
  "--algo duato --topology hypercube --dims 10"
  "--algo duato --radix 16 --table economical --lookahead"
)
printf '| spec | nodes | seconds (median of 3) |\n|---|---:|---:|\n'
for spec in "${specs[@]}"; do
  times=()
  for _ in 1 2 3; do
    rm -rf "$tmp/out"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$bin" $spec -o "$tmp/out" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
    end=$(date +%s.%N)
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  nodes=$(grep -o '"nodes": [0-9]*' "$tmp/out/report.json" | grep -o '[0-9]*$')
  printf '| `%s` | %s | %.2f |\n' "$spec" "$nodes" "$median"
done
