#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job on the bundled example: the small CNN
# in examples/tiny_cnn.uma, simplified by the core graph passes and run by the reference
# interpreter on a seeded random image.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh >/dev/null

echo "== examples/tiny_cnn.uma after fold-constant,cse,dce (weights elided):"
build/uma opt examples/tiny_cnn.uma --passes=fold-constant,cse,dce --elide-data
echo "== run through the reference interpreter:"
build/uma run examples/tiny_cnn.uma --seed 1
