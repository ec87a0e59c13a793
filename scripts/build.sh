#!/usr/bin/env bash
# Configures and builds uma. `--sanitize` builds with ASan + UBSan into build-sanitize/.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
cmake_flags=()
if [ "${1:-}" = "--sanitize" ]; then
  build_dir=build-sanitize
  cmake_flags+=(-DUMA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
fi

cmake -S . -B "$build_dir" -G Ninja "${cmake_flags[@]}" >/dev/null
ninja -C "$build_dir" -j "$(nproc)"
