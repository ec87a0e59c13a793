#!/usr/bin/python3
"""Checks that print -> parse -> print is the identity on every graph IR text we have.

Each golden test file (split on '// -----' lines, as `uma opt --split-input-file` does)
and each bundled example is parsed and printed once; the printed text must then come
back unchanged through `uma opt`. Parts that do not parse (expected-error tests) are
counted and skipped: their errors are checked by their own lit tests.
"""
import pathlib
import subprocess
import sys


def opt(uma, text):
    return subprocess.run([uma, "opt", "-"], input=text, capture_output=True, text=False)


def main():
    uma, *roots = sys.argv[1:]
    checked = skipped = failed = 0
    for root in roots:
        for path in sorted(pathlib.Path(root).rglob("*.uma")):
            chunks = path.read_bytes().split(b"\n// -----\n")
            for index, chunk in enumerate(chunks):
                first = opt(uma, chunk)
                if first.returncode != 0:
                    skipped += 1
                    continue
                second = opt(uma, first.stdout)
                checked += 1
                if second.returncode != 0 or second.stdout != first.stdout:
                    failed += 1
                    print(f"FAIL: {path} part {index}: print -> parse -> print changed the text")
                    print(second.stderr.decode(errors="replace"))
    print(f"round trip: {checked} modules checked, {skipped} expected-error parts skipped")
    print(f"{checked - failed} passed, {failed} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
