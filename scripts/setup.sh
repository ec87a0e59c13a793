#!/usr/bin/env bash
# Installs every Debian package uma needs to build, test and run (Debian 12).
# Idempotent: installs only what is missing, without recommended extras.
set -euo pipefail

packages=(
  # build
  g++ cmake ninja-build ccache git ca-certificates
  # libraries
  libfmt-dev libcli11-dev nlohmann-json3-dev libonnx-dev libprotobuf-dev protobuf-compiler
  libssl-dev
  # the dnnl backend (optional: the build goes on without it)
  libdnnl-dev
  # tests and benchmarks: GoogleTest, Google Benchmark, lit + FileCheck, Python for lit
  libgtest-dev libgmock-dev libbenchmark-dev llvm-15-tools python3
  # ONNX conformance tests and real models, generated at test time with Debian's Python
  python3-onnx python3-numpy python3-torch python3-torchvision
  # the Python module (python/) and its tests
  pybind11-dev python3-dev python3-pytest
  # fuzzing and sanitizer builds
  clang libclang-rt-14-dev
  # tools: formatting; Graphviz's dot draws the graph of uma compile's report.html
  clang-format graphviz
)

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
