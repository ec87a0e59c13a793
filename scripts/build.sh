#!/usr/bin/env bash
# Configures and builds uma. `--sanitize` builds with ASan + UBSan into build-sanitize/.
# Targets after it build those alone (`scripts/build.sh uma`: the tool, what the demo needs);
# ninja shows its progress ([done/total], on one line on a terminal).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
cmake_flags=()
if [ "${1:-}" = "--sanitize" ]; then
  shift
  build_dir=build-sanitize
  # Optimised, so that the real-model tests finish in minutes under the sanitizers too.
  cmake_flags+=(-DUMA_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
fi

# ccache (installed by setup.sh) makes rebuilds of an unchanged file, in any checkout, a copy.
if command -v ccache >/dev/null; then
  cmake_flags+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
fi

cmake -S . -B "$build_dir" -G Ninja "${cmake_flags[@]}" >/dev/null
ninja -C "$build_dir" -j "$(nproc)" "$@"
