#!/usr/bin/python3
"""Exports the real architectures uma is checked on, with torch's outputs as reference.

For each model and opset this writes OUT/<model>_op<opset>/ with model.onnx, input_0.pb
(the input, as an ONNX TensorProto) and output_0.pb (torch's output for it). Weights are
torchvision's random initialisation (weights=None, seeded), or torch's for the models defined
here, with BatchNorm statistics and affine parameters re-randomised so that activations do
not collapse towards zero.
Generated at test time, never committed.

usage: export_models.py OUT [--models a,b] [--opsets 13,17]
"""
import argparse
import pathlib
import sys
import warnings

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torchvision

warnings.filterwarnings("ignore")


class TextClassifier(torch.nn.Module):
    """A small TransformerEncoder text model: embedding, two encoder layers (GELU), mean, linear."""

    def __init__(self, vocabulary=1000, width=64, heads=4, layers=2, classes=10):
        super().__init__()
        self.embedding = torch.nn.Embedding(vocabulary, width)
        layer = torch.nn.TransformerEncoderLayer(width, heads, dim_feedforward=2 * width,
                                                 dropout=0.1, activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.classifier = torch.nn.Linear(width, classes)

    def forward(self, tokens):
        return self.classifier(self.encoder(self.embedding(tokens)).mean(dim=1))


class SequenceClassifier(torch.nn.Module):
    """A small recurrent model: a two-layer bidirectional LSTM, a GRU over its outputs, linear."""

    def __init__(self, features=16, hidden=24, classes=5):
        super().__init__()
        self.lstm = torch.nn.LSTM(features, hidden, num_layers=2, bidirectional=True,
                                  batch_first=True)
        self.gru = torch.nn.GRU(2 * hidden, hidden, batch_first=True)
        self.classifier = torch.nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.lstm(x)
        _, h = self.gru(y)
        return self.classifier(h[-1])


class TCResNet8(torch.nn.Module):
    """TC-ResNet8 (Choi et al., "Temporal Convolution for Real-time Keyword Spotting on Mobile
    Devices", 2019): keyword spotting on MFCC features, their 40 coefficients the channels of
    a 1-D convolution over 101 frames. A kernel-3 stem, three residual blocks (kernel-9
    convolutions, the first of stride 2, each with batch norm; a 1x1 stride-2 shortcut), an
    average over time and a linear layer to the 12 keywords of Speech Commands."""

    class Block(torch.nn.Module):
        def __init__(self, inputs, outputs):
            super().__init__()
            self.conv1 = torch.nn.Conv1d(inputs, outputs, 9, stride=2, padding=4, bias=False)
            self.bn1 = torch.nn.BatchNorm1d(outputs)
            self.conv2 = torch.nn.Conv1d(outputs, outputs, 9, padding=4, bias=False)
            self.bn2 = torch.nn.BatchNorm1d(outputs)
            self.shortcut = torch.nn.Sequential(
                torch.nn.Conv1d(inputs, outputs, 1, stride=2, bias=False),
                torch.nn.BatchNorm1d(outputs), torch.nn.ReLU())

        def forward(self, x):
            y = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
            return torch.relu(y + self.shortcut(x))

    def __init__(self, coefficients=40, widths=(16, 24, 32, 48), classes=12):
        super().__init__()
        self.stem = torch.nn.Conv1d(coefficients, widths[0], 3, padding=1, bias=False)
        self.blocks = torch.nn.Sequential(
            *(self.Block(a, b) for a, b in zip(widths, widths[1:])))
        self.classifier = torch.nn.Linear(widths[-1], classes)

    def forward(self, features):
        return self.classifier(self.blocks(self.stem(features)).mean(dim=2))


def image_model(factory, **kwargs):
    return lambda: (factory(weights=None, **kwargs), torch.randn(1, 3, 224, 224))


MODELS = {
    "resnet18": image_model(torchvision.models.resnet18),
    "resnet50": image_model(torchvision.models.resnet50),
    "mobilenet_v2": image_model(torchvision.models.mobilenet_v2),
    "mobilenet_v3_small": image_model(torchvision.models.mobilenet_v3_small),
    "squeezenet1_1": image_model(torchvision.models.squeezenet1_1),
    "efficientnet_b0": image_model(torchvision.models.efficientnet_b0),
    "shufflenet_v2": image_model(torchvision.models.shufflenet_v2_x1_0),
    "densenet121": image_model(torchvision.models.densenet121),
    "googlenet": image_model(torchvision.models.googlenet, aux_logits=False, init_weights=True),
    "transformer_text": lambda: (TextClassifier(), torch.randint(0, 1000, (1, 16))),
    # LSTM and GRU (torch exports GRU with linear_before_reset), unrolled at import.
    "lstm_sequence": lambda: (SequenceClassifier(), torch.randn(2, 12, 16)),
    # ResNet-18 once more, exported with its BatchNormalization nodes kept (torch folds them
    # into the convolutions otherwise), so that uma's own folding is checked on a real model.
    "resnet18_bn": image_model(torchvision.models.resnet18),
    # A 1-D audio CNN: what the ultra_trail accelerator is built for.
    "tc_resnet8": lambda: (TCResNet8(), torch.randn(1, 40, 101)),
}
KEEP_BATCH_NORM = {"resnet18_bn"}


def randomise_batch_norm(model, generator):
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            n = module.num_features
            module.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
            module.running_var.copy_(torch.rand(n, generator=generator) + 0.5)
            module.weight.data.copy_(torch.rand(n, generator=generator) + 0.5)
            module.bias.data.copy_(torch.randn(n, generator=generator) * 0.1)


def export(name, opset, out_dir):
    torch.manual_seed(0)
    model, example = MODELS[name]()
    model.eval()
    with torch.no_grad():
        randomise_batch_norm(model, torch.Generator().manual_seed(1))
    folder = out_dir / f"{name}_op{opset}"
    folder.mkdir(parents=True, exist_ok=True)
    # Not inside torch.no_grad(): under it, transformer layers take a fused fast path
    # that the exporter cannot trace.
    keep = name in KEEP_BATCH_NORM
    torch.onnx.export(model, (example,), str(folder / "model.onnx"), opset_version=opset,
                      input_names=["input"], output_names=["output"],
                      do_constant_folding=not keep,
                      training=torch.onnx.TrainingMode.PRESERVE if keep else torch.onnx.TrainingMode.EVAL)
    with torch.no_grad():
        expected = model(example).numpy()
    for file, array in (("input_0.pb", example.numpy()), ("output_0.pb", expected)):
        tensor = onnx.numpy_helper.from_array(np.ascontiguousarray(array))
        (folder / file).write_bytes(tensor.SerializeToString())
    return folder


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--opsets", default="13,17")
    args = parser.parse_args()
    torch.set_num_threads(2)
    for opset in (int(o) for o in args.opsets.split(",")):
        for name in args.models.split(","):
            folder = export(name, opset, args.out)
            print(f"exported {folder.name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
