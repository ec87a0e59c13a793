#!/usr/bin/python3
"""Prints an 8x8 digit sample as ASCII art, so a person can check what the model predicts.

    ascii.py sample.npy [logits.npy]

sample.npy holds ink intensities in [0, 1] (any shape with 64 elements), drawn from no ink to
full ink as ' .:-=+*#%@'. With logits.npy (e.g. output_0.npy of `uma run --output-dir`), it also
prints the predicted digit, the index of the largest logit.
"""
import sys

import numpy as np

RAMP = " .:-=+*#%@"


def load(path):
    try:
        return np.load(path).astype(np.float64)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read it as a .npy array: {e}")


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__.strip())
    image = load(argv[1])
    if image.size != 64:
        sys.exit(f"{argv[1]}: expected 64 values (an 8x8 image), found shape {image.shape}")
    levels = np.clip(np.rint(image.reshape(8, 8) * (len(RAMP) - 1)), 0, len(RAMP) - 1)
    for row in levels.astype(int):
        # Each pixel twice as wide, since terminal cells are about twice as tall as wide.
        print("".join(RAMP[v] * 2 for v in row))
    if len(argv) == 3:
        print(f"predicted: {int(load(argv[2]).reshape(-1).argmax())}")


if __name__ == "__main__":
    main(sys.argv)
