"""What the tests share: the repository's folders, the examples' vanilla backend registered
once, and unique target names (the process has one context, where a kind registers once)."""

import itertools
import os
import sys

import pytest

import uma

# A sanitizer build preloads the ASan runtime into this interpreter (python/CMakeLists.txt);
# the programs the tests start (the C compiler among them) must not inherit it, or LeakSanitizer
# fails them on their own leaks. What is loaded stays loaded.
os.environ.pop("LD_PRELOAD", None)

SOURCE_DIR = os.environ.get("UMA_SOURCE_DIR",
                            os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DIGITS = os.path.join(SOURCE_DIR, "examples", "digits")
DIGITS_MODEL = os.path.join(DIGITS, "digits_cnn.onnx")
# The real models the `models` test exports (tests/models/); tests that need them skip
# without them.
MODELS_DIR = os.environ.get("UMA_MODELS_DIR", "")

sys.path.insert(0, os.path.join(SOURCE_DIR, "examples", "python"))
import vanilla  # noqa: E402

_names = itertools.count()


def unique_name(prefix):
    return f"{prefix}_{next(_names)}"


@pytest.fixture(scope="session")
def py_vanilla():
    """The examples' vanilla backend, registered as "py_vanilla"."""
    uma.register_backend(vanilla.Vanilla())
    return "py_vanilla"


def model_path(name):
    path = os.path.join(MODELS_DIR, name, "model.onnx")
    if not MODELS_DIR or not os.path.exists(path):
        pytest.skip(f"{name} is not exported (set UMA_MODELS_DIR; the models test exports it)")
    return path
