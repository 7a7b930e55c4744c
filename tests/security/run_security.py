#!/usr/bin/env python3
"""Runner for the hostile programs in tests/security.

Each program is a golden test in the format of tests/run_golden.py (read
its docstring): `// config: max_steps=10000`, `// expect runtime error
E503`, `// expect: line`. Every program runs twice and must meet its
expectations both times:

  in-process  `geno run --unsafe ...`  (geno_run: cooperative limits)
  isolated    `geno run ...`           (geno_run_isolated: the sandbox child)

so a limit that only one mode enforces, or a diagnostic that changes when
the program runs behind the process boundary, fails here.

Usage: run_security.py --geno PATH [--jobs N] [--filter SUBSTR] DIR_OR_FILE...
Prints one line per failure and ends with "N passed, N failed, N skipped".
A program that stops because a builtin it uses is not implemented yet
("Builtin 'x' is not available in this build") is skipped, not failed.
Exits 77 (skipped) when `geno run` cannot run programs yet.
"""
import argparse
import concurrent.futures as cf
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import run_golden  # noqa: E402  (tests/run_golden.py)

MODES = (("in-process", True), ("isolated", False))
MISSING_RE = re.compile(r"Builtin \\?'(\w+)\\?' is not available in this build")


def geno_can_run(geno):
    """True when `geno run` executes a trivial program in both modes."""
    with tempfile.NamedTemporaryFile("w", suffix=".geno", delete=False) as f:
        f.write("func main() -> Int\n    return 41 + 1\nend func\n")
        path = f.name
    try:
        for _, unsafe in MODES:
            cmd = [geno, "run"] + (["--unsafe"] if unsafe else []) + [path]
            try:
                p = subprocess.run(cmd, capture_output=True, timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                return False
            if p.returncode != 0 or b"42" not in p.stdout:
                return False
        return True
    finally:
        os.unlink(path)


def check_both(geno, test, timeout):
    fails = []
    for name, unsafe in MODES:
        t = dict(test)
        t["flags"] = set(test["flags"]) - {"unsafe"}
        if unsafe:
            t["flags"].add("unsafe")
        fails += ["[%s] %s" % (name, f) for f in run_golden.check_test(geno, t, timeout)]
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--geno", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    if not geno_can_run(args.geno):
        print("skipped: `geno run` cannot run programs yet")
        return 77
    tests = [run_golden.parse_test(f) for f in run_golden.collect(args.paths) if args.filter in f]
    failed = skipped = 0
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for t, fails in zip(tests, ex.map(lambda t: check_both(args.geno, t, args.timeout), tests)):
            missing = sorted({m for f in fails for m in MISSING_RE.findall(f)})
            if missing:
                skipped += 1
                print("SKIP %s: needs %s" % (t["path"], ", ".join(missing)))
            elif fails:
                failed += 1
                print("FAIL %s" % t["path"])
                for f in fails:
                    print("  " + f)
    print("%d passed, %d failed, %d skipped" % (len(tests) - failed - skipped, failed, skipped))
    return 1 if failed or not tests else 0


if __name__ == "__main__":
    sys.exit(main())
