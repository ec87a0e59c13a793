"""Python backends loaded by the `uma` tool (`--plugin my_backend.py`): the examples' backends
run models and appear in the reports like any other, and each way a plugin fails is an
error naming it."""

import os
import subprocess

import pytest

from conftest import DIGITS, DIGITS_MODEL, SOURCE_DIR
from run_conv1d import conv1d_model

TOOL = os.environ.get("UMA_TOOL", "")
EXAMPLES = os.path.join(SOURCE_DIR, "examples", "python")
VANILLA = os.path.join(EXAMPLES, "vanilla.py")

pytestmark = pytest.mark.skipif(not TOOL, reason="set UMA_TOOL to the uma tool to test")


def uma_tool(*args, cwd=None):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def test_uma_run_builds_for_a_python_backend_and_checks_it(tmp_path):
    run = uma_tool("run", DIGITS_MODEL, "--plugin", VANILLA, "--target", "py_vanilla --dimension=8",
                   "--input", f"image={os.path.join(DIGITS, 'sample_1_label7.npy')}", "--check",
                   "--cache-dir", str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "offload: py_vanilla runs 2 function(s)" in run.stdout
    assert "check output 0: max abs error" in run.stdout and run.stdout.rstrip().endswith("ok")


def test_uma_partition_reports_the_python_backends_nodes(tmp_path):
    out = tmp_path / "partitioned.uma"
    run = uma_tool("partition", DIGITS_MODEL, "--plugin", VANILLA, "--targets=py_vanilla",
                   "-o", str(out), "--report=table")
    assert run.returncode == 0, run.stderr
    rows = [line.split() for line in run.stdout.splitlines() if " nn.conv2d " in line]
    assert len(rows) == 3 and all(r[3:5] == ["py_vanilla", "py_vanilla.conv2d"] for r in rows)
    assert 'Compiler = "py_vanilla"' in out.read_text()


def test_a_python_backend_with_loop_ir_passes_runs_from_the_tool(tmp_path):
    model = str(tmp_path / "conv1d.onnx")
    conv1d_model(model)
    run = uma_tool("run", model, "--plugin", os.path.join(EXAMPLES, "ultra_trail.py"),
                   "--target", "py_ultra_trail", "--check", "--cache-dir", str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "offload: py_ultra_trail runs 1 function(s)" in run.stdout
    assert run.stdout.rstrip().endswith("ok")


def plugin(tmp_path, text, name="my_backend.py"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_file_that_registers_nothing_is_an_error(tmp_path):
    path = plugin(tmp_path, "import uma\nbackend = uma.Backend('unregistered')\n")
    run = uma_tool("partition", DIGITS_MODEL, "--plugin", path, "--targets=vanilla")
    assert run.returncode != 0
    assert run.stderr == (f"error: plugin '{path}': it registered no backend: a Python backend "
                          "plugin calls uma.register_backend(MyBackend()) when it runs\n")


def test_a_syntax_error_is_reported_with_its_traceback(tmp_path):
    path = plugin(tmp_path, "import uma\ndef broken(:\n")
    run = uma_tool("partition", DIGITS_MODEL, "--plugin", path, "--targets=vanilla")
    assert run.returncode != 0
    assert run.stderr.startswith(f"error: plugin '{path}': running it raised an exception:\n"
                                 "Traceback (most recent call last):\n")
    assert f'File "{path}", line 2\n    def broken(:\n' in run.stderr
    assert run.stderr.endswith("SyntaxError: invalid syntax\n")


def test_an_exception_in_a_callback_fails_the_tools_build(tmp_path):
    path = plugin(tmp_path, """import uma
def lower(call, target):
    raise RuntimeError("no kernel today")
backend = uma.Backend("failing")
backend.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]))
backend.add_composite_lowering("relu", lower)
uma.register_backend(backend)
""")
    run = uma_tool("run", DIGITS_MODEL, "--plugin", path, "--target", "failing", "--check",
                   "--cache-dir", str(tmp_path))
    assert run.returncode != 0
    assert ("backend 'failing': the lowering of pattern 'relu' raised an exception:\n"
            "Traceback (most recent call last):\n") in run.stderr
    assert run.stderr.endswith("RuntimeError: no kernel today\n")


def test_an_exception_in_a_predicate_fails_the_tools_command(tmp_path):
    path = plugin(tmp_path, """import uma
def check(match, target):
    raise RuntimeError("cannot decide")
backend = uma.Backend("undecided")
backend.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]), check)
uma.register_backend(backend)
""")
    expected_start = ("error: backend 'undecided': the predicate of pattern 'relu' raised an "
                      "exception:\nTraceback (most recent call last):\n")
    for command in (["partition", DIGITS_MODEL, "--targets=undecided"],
                    ["run", DIGITS_MODEL, "--target", "undecided", "--cache-dir", str(tmp_path)]):
        run = uma_tool(*command, "--plugin", path)
        assert run.returncode == 1, run.stderr
        assert run.stderr.startswith(expected_start), run.stderr
        assert run.stderr.endswith("RuntimeError: cannot decide\n")


def test_uma_test_backend_runs_the_kit_on_a_python_backend(tmp_path):
    run = uma_tool("test-backend", "--plugin", os.path.join(EXAMPLES, "ultra_trail.py"),
                   "--max-models", "4", "--cache-dir", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "(the kernel adds one bias, and the convolution has its own)" in run.stdout
    assert run.stdout.endswith("scorecard: 4 model(s), 2 claimed and 2 rejected by the "
                               "predicates; 4 passed, 0 failed\n")


def test_a_plugin_that_ends_the_process_while_loading_is_an_error(tmp_path):
    path = plugin(tmp_path, "import os\nos._exit(0)\n")
    run = uma_tool("partition", DIGITS_MODEL, "--plugin", path, "--targets=vanilla")
    assert run.returncode == 1
    assert run.stderr.startswith(f"error: plugin '{path}': running it raised an exception:\n"
                                 "Traceback (most recent call last):\n")
    assert run.stderr.endswith(
        "RuntimeError: os._exit(0) was called while the plugin loads; a plugin registers its "
        "backends and returns, and uma stops with an error instead\n")


def test_a_plugin_whose_pass_builds_for_its_own_backend_stops_at_the_depth_limit(tmp_path):
    path = plugin(tmp_path, """import uma
TEXT = '''func @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  %0 = nn.relu(%x) : tensor<4xf32>
  return %0
}
'''
def build_again(module, target):
    uma.build(uma.parse(TEXT), targets=["again"])
    return False
backend = uma.Backend("again")
backend.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]))
backend.add_graph_pass("PRE_PARTITIONING", "build-again", build_again)
uma.register_backend(backend)
""")
    run = uma_tool("partition", DIGITS_MODEL, "--plugin", path, "--targets=again")
    assert run.returncode == 1
    assert run.stderr.startswith("error: pass 'build-again': backend 'again': the graph pass "
                                 "'build-again' raised an exception:\n"), run.stderr
    assert ("uma.Error: pass 'build-again': backend 'again': the graph pass 'build-again' "
            "would run 17 callbacks "
            "deep: a callback that builds or partitions re-enters the compiler, and at most 16 "
            "callbacks may nest (does a backend's callback build for that backend?)"
            in run.stderr)
