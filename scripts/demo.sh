#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job on the bundled example: a small CNN
# that reads handwritten digits (examples/digits, trained on the digits data Debian's
# python3-sklearn ships), compiled for the `vanilla` accelerator backend — its C kernel runs
# the convolutions, the host the rest — and checked against the reference interpreter on
# each sample image.
set -euo pipefail
cd "$(dirname "$0")/.."

# Only what the job needs: the packages of the build (no torch), then the tool alone, with
# ninja's progress; the tests' targets wait for scripts/test.sh.
scripts/setup.sh main
scripts/build.sh uma

model=examples/digits/digits_cnn.onnx
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== What the vanilla backend takes from $model (partition report):"
build/uma partition "$model" --targets=vanilla --report=table

echo
echo "== Each sample, compiled for vanilla + the host, checked against the reference interpreter:"
while read -r file label _; do
  case "$file" in \#*|"") continue ;; esac
  echo
  echo "-- examples/digits/$file (true label $label)"
  build/uma run "$model" --target vanilla --input "image=examples/digits/$file" --check \
    --output-dir "$out" --print-limit 0 | grep -E '^(offload|check)'
  /usr/bin/python3 examples/digits/ascii.py "examples/digits/$file" "$out/output_0.npy"
done < examples/digits/samples.txt
