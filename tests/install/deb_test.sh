#!/usr/bin/env bash
# The Debian package on a clean machine: installs the package `cpack -G DEB` made into a fresh
# Debian 12 root (debootstrap), with apt, which brings its dependencies; there, `uma
# new-backend` writes a backend's project, which builds against the installed uma (with
# find_package, from /usr) and passes its test, and the digits model runs on vanilla,
# checked against the reference interpreter, from the tool and from Python. Run as root (chroot); the root is made once
# and reused (apt leaves it as it was after the first run only in what it installed).
#   tests/install/deb_test.sh ROOT build/uma_<version>_amd64.deb
set -euo pipefail
root=$1
package=$(realpath "$2")
source=$(realpath "$(dirname "$0")/../..")

if [ ! -x "$root/usr/bin/apt-get" ]; then
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/proc" "$root/dev"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
mountpoint -q "$root/dev" || mount --bind /dev "$root/dev"
trap 'umount "$root/dev" "$root/proc"' EXIT

rm -rf "$root/test" && mkdir -p "$root/test"
cp "$package" "$root/test/"
cp "$source/examples/digits/digits_cnn.onnx" "$root/test/"
cp "$(ls "$source"/examples/digits/sample_*.npy | head -1)" "$root/test/sample.npy"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  DEBIAN_FRONTEND=noninteractive "$@"; }

in_root apt-get update -qq
# The package and what it depends on; g++, cmake and ninja to build the backend's project.
in_root apt-get install -y -qq --no-install-recommends "/test/$(basename "$package")" \
  g++ cmake ninja-build >/dev/null
in_root uma --help | head -1
in_root sh -c 'cd /test && uma new-backend my_npu &&
  cmake -S my_npu -B my_npu/build -G Ninja >/dev/null && cmake --build my_npu/build &&
  ctest --test-dir my_npu/build --output-on-failure'
in_root uma run /test/digits_cnn.onnx --target vanilla --check --print-limit 3
# The Python package, with the python3 and numpy the package depends on.
in_root python3 -c 'import numpy as np, uma
model, x = "/test/digits_cnn.onnx", np.load("/test/sample.npy")
[y] = uma.build(uma.load(model), targets=["vanilla"])(x)
[expected] = uma.interpret(uma.load(model), x)
assert np.allclose(y, expected, rtol=1e-4, atol=1e-5), (y, expected)
print("python: digit", y.argmax())'
echo "deb_test: the package installs and works in a fresh Debian 12 root"
