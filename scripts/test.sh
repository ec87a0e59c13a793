#!/usr/bin/env bash
# Sets everything up, builds, and runs the whole test suite: unit tests (GoogleTest)
# and golden text tests (lit + FileCheck), through ctest.
# `--sanitize` runs the same tests on an ASan + UBSan build.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh "$@"

build_dir=build
if [ "${1:-}" = "--sanitize" ]; then
  build_dir=build-sanitize
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # What CPython and pybind11 keep until exit by design (the Python tests and plugin).
  export LSAN_OPTIONS=suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0
fi

ctest --test-dir "$build_dir" --output-on-failure -V -j "$(nproc)" 2>&1 |
  grep -v -E '^([0-9]+: )?(UpdateCTestConfiguration|Parse Config|Constructing a list|Checking test dependency|Updating test list|Test project|test [0-9]+$|Test command:|Working Directory:|Test timeout computed)'
exit "${PIPESTATUS[0]}"
