#!/usr/bin/env python3
"""Compare `geno constrain --json` with the reference's constrain_prefix on
every prefix (every character) of the programs in the reference's tests of
constraints (geno/tests/test_constraints.py under $GENO_REF). A development
check, not a test: CI has no reference. Prints the prefixes where `valid`
differs (each must be a row of docs/compatibility.md) and those where both
are valid but the reports differ (there should be none).

usage: GENO_REF=/work/ref tools/constrain_compare.py BUILD/geno
"""
import ast
import json
import os
import subprocess
import sys


def programs(test_file):
    """The string constants of the test file that are programs (not docstrings)."""
    tree = ast.parse(open(test_file, encoding="utf-8").read())
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in docs or not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        s = node.value
        if len(s) > 3 and ("func" in s or "type" in s or "\n" in s):
            found.add(s)
    return sorted(found)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    geno = sys.argv[1]
    ref = os.environ.get("GENO_REF", "/work/ref")
    sys.path.insert(0, ref)
    from geno.api import constrain_prefix  # the reference

    total = agree = 0
    valid_differs, report_differs = [], []
    for src in programs(os.path.join(ref, "geno", "tests", "test_constraints.py")):
        for cut in range(len(src) + 1):
            prefix = src[:cut]
            theirs = constrain_prefix(prefix).to_dict()
            out = subprocess.run([geno, "constrain", "--json"], input=prefix.encode(), capture_output=True).stdout
            ours = json.loads(out)
            total += 1
            if theirs["valid"] != ours["valid"]:
                valid_differs.append((prefix, theirs["valid"], ours["valid"]))
            elif theirs["valid"] and theirs != ours:
                report_differs.append((prefix, theirs, ours))
            else:
                agree += 1
    print(f"{total} prefixes: {agree} agree, {len(valid_differs)} differ in `valid`, "
          f"{len(report_differs)} valid for both with different reports")
    for prefix, t, o in valid_differs:
        print(f"  valid: reference {t}, geno-c {o}: {prefix!r}")
    for prefix, t, o in report_differs:
        print(f"  report: {prefix!r}\n    reference {json.dumps(t)}\n    geno-c    {json.dumps(o)}")
    sys.exit(1 if report_differs else 0)


if __name__ == "__main__":
    main()
