#!/usr/bin/env bash
# Installs the Debian packages uma needs (Debian 12). `setup.sh main`: what building the tool
# and running scripts/demo.sh need (no torch, no ONNX Python, no Chromium: a few minutes
# less of download on a fresh machine); `setup.sh` (or `setup.sh all`): everything the test
# suite needs too. Idempotent: installs only what is missing, without recommended extras.
set -euo pipefail

profile=${1:-all}
case "$profile" in
  main|all) ;;
  *) echo "usage: scripts/setup.sh [main|all]" >&2; exit 2 ;;
esac

packages=(
  # build
  g++ cmake ninja-build ccache git ca-certificates
  # libraries
  libfmt-dev libcli11-dev nlohmann-json3-dev libonnx-dev libprotobuf-dev protobuf-compiler
  libssl-dev
  # the dnnl backend (optional: the build goes on without it)
  libdnnl-dev
  # what configuring the build looks for: GoogleTest, Google Benchmark, lit + FileCheck
  libgtest-dev libgmock-dev libbenchmark-dev llvm-15-tools python3
  # the demo draws the digits with numpy; Graphviz's dot draws uma compile's report.html
  python3-numpy graphviz
)
if [ "$profile" = all ]; then
  packages+=(
    # ONNX conformance tests and real models, generated at test time with Debian's Python
    python3-onnx python3-torch python3-torchvision
    # the Python module (python/) and its tests
    pybind11-dev python3-dev python3-pytest
    # the install test finds the installed uma with pkg-config too (uma.pc)
    pkg-config
    # fuzzing and sanitizer builds
    clang libclang-rt-14-dev
    # formatting
    clang-format
    # report.html's test loads the page in headless Chromium (tests/report/)
    chromium
  )
fi

missing=()
for p in "${packages[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
