# Golden text tests: each file's RUN lines drive `uma` and check its output with FileCheck.
import os

import lit.formats

config.name = "uma"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".uma", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.uma_tools_dir, "tests", "lit-out")

config.environment["PATH"] = os.pathsep.join(
    [config.uma_tools_dir, config.filecheck_dir, config.environment.get("PATH", "")])
# Sanitizer builds must fail a test on a leak or undefined behaviour, not only print it.
for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.substitutions.append(("%uma_src", config.uma_source_dir))
config.substitutions.append(("%plugins", config.uma_plugin_dir))
