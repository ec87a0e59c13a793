#!/usr/bin/python3
"""Trains examples/digits/digits_cnn.onnx: a small CNN that reads handwritten digits.

The data is scikit-learn's bundled digits set (1797 grey 8x8 images, values 0..16, no
download; Debian's python3-sklearn). The network has three padded 3x3 convolutions, so a
backend that offloads 2-D convolutions has real work:

    image 1x1x8x8 in [0, 1]
    conv 1->8, relu; conv 8->16, relu; max-pool 2; conv 16->16, relu   (all 3x3, padding 1)
    flatten; dense 256->10                                             -> logits 1x10

Training is deterministic (fixed seeds, deterministic algorithms, one thread), so running
the script again gives the same weights and the same predictions. It writes, next to itself:

    digits_cnn.onnx            ONNX opset 13, input `image` [1,1,8,8], output `logits` [1,10]
    sample_<i>_label<d>.npy    held-out test images, float32 [1,1,8,8], never trained on
    sample_<i>_logits.npy      torch's logits for that image, float32 [1,10] (for --expect)
    samples.txt                each sample's file, true label and torch's prediction

Run with Debian's interpreter: /usr/bin/python3 examples/digits/make_digits_cnn.py
"""
import pathlib
import random
import time

import numpy as np
import torch
from sklearn.datasets import load_digits

SEED = 2026
EPOCHS = 12
BATCH = 32
NUM_SAMPLES = 6
TRAIN_FRACTION = 0.8


class DigitsCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.ReLU())
        self.classifier = torch.nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def make_deterministic():
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)


def load_split():
    """Images scaled to [0, 1] as N x 1 x 8 x 8, split by a seeded permutation."""
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int64)
    order = np.random.RandomState(SEED).permutation(len(labels))
    cut = int(TRAIN_FRACTION * len(labels))
    train, test = order[:cut], order[cut:]
    return images[train], labels[train], images[test], labels[test]


def train(model, images, labels):
    x, y = torch.from_numpy(images), torch.from_numpy(labels)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
    shuffle = torch.Generator().manual_seed(SEED)
    model.train()
    for epoch in range(EPOCHS):
        total = 0.0
        for batch in torch.randperm(len(y), generator=shuffle).split(BATCH):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        print(f"epoch {epoch + 1:2d}: train loss {total / len(y):.4f}")


def logits_of(model, images):
    model.eval()
    with torch.no_grad():
        return model(torch.from_numpy(images)).numpy()


def main():
    make_deterministic()
    out = pathlib.Path(__file__).resolve().parent
    train_x, train_y, test_x, test_y = load_split()
    print(f"digits: {len(train_y)} training and {len(test_y)} held-out test images")

    model = DigitsCNN()
    start = time.perf_counter()
    train(model, train_x, train_y)
    print(f"training took {time.perf_counter() - start:.1f} s")
    logits = logits_of(model, test_x)
    predicted = logits.argmax(1)
    accuracy = float((predicted == test_y).mean())
    print(f"held-out test accuracy: {accuracy:.4f} "
          f"({int((predicted == test_y).sum())}/{len(test_y)})")

    onnx_path = out / "digits_cnn.onnx"
    torch.onnx.export(model, torch.from_numpy(test_x[:1]), str(onnx_path), opset_version=13,
                      input_names=["image"], output_names=["logits"], do_constant_folding=True)
    print(f"wrote {onnx_path} ({onnx_path.stat().st_size} bytes)")

    # The first held-out image of each of a few different digits, so the samples vary.
    chosen, seen = [], set()
    for i, label in enumerate(test_y):
        if label not in seen:
            chosen.append(i)
            seen.add(label)
        if len(chosen) == NUM_SAMPLES:
            break
    lines = ["# file true_label torch_prediction"]
    for n, i in enumerate(chosen):
        path = out / f"sample_{n}_label{test_y[i]}.npy"
        np.save(path, test_x[i:i + 1])
        np.save(out / f"sample_{n}_logits.npy", logits[i:i + 1])
        lines.append(f"{path.name} {test_y[i]} {predicted[i]}")
        print(f"wrote {path} (label {test_y[i]}, torch predicts {predicted[i]})")
    (out / "samples.txt").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'samples.txt'}")


if __name__ == "__main__":
    main()
