#!/usr/bin/env bash
# Installs the external tools the test suite drives, from Debian's packages,
# skipping every tool already on PATH: Verilator, Icarus Verilog, Yosys,
# nextpnr-ice40 and icestorm (icepack). Needs root or sudo for apt-get.
set -euo pipefail

tools=(verilator:verilator iverilog:iverilog vvp:iverilog yosys:yosys
       nextpnr-ice40:nextpnr-ice40 icepack:fpga-icestorm)
missing=()
for pair in "${tools[@]}"; do
  tool=${pair%%:*}
  package=${pair##*:}
  if ! command -v "$tool" >/dev/null 2>&1; then
    [[ " ${missing[*]-} " == *" $package "* ]] || missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-tools: all test tools present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || {
    echo "install-tools: need root (or sudo) to apt-get install ${missing[*]}" >&2
    exit 1
  }
  sudo=sudo
fi
echo "install-tools: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
