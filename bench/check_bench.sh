#!/bin/sh
# check_bench.sh -- speed of `geno check` against the reference checker.
#
# Times `build/geno check` on the reference's self-hosted type checker
# (selfhost/TypeChecker.geno, importing Tokens, Ast and Types: ~3,000 lines,
# 140 KB in all) and `python3 -m geno check` on the same files, and prints
# both times and their ratio. It also times `geno --version` in the same
# runs: the cost of starting the process (exec, dynamic linking), which
# every command pays and which no change to the checker can remove. The reference's files are copied to a
# scratch directory at run time and never stored in this repository.
#
# usage: bench/check_bench.sh [GENO_BINARY]   (default build/geno)
# env:   GENO_REF   extracted reference implementation (default /tmp/geno-ref)
#        RUNS       timed runs per engine for geno-c (default 30; the
#                   reference gets RUNS/10, at least 3, as it is much slower)
#
# Wall times move with the machine's load; when valgrind is installed the
# script also counts the instructions geno-c executes (callgrind), a
# number that only changes when the code does.
set -eu
GENO=${1:-build/geno}
GENO_REF=${GENO_REF:-/tmp/geno-ref}
RUNS=${RUNS:-30}
if [ ! -x "$GENO" ]; then echo "check_bench: no executable at $GENO (build first)" >&2; exit 2; fi
if [ ! -f "$GENO_REF/selfhost/TypeChecker.geno" ]; then
  echo "check_bench: reference not found at $GENO_REF (set GENO_REF)" >&2; exit 2
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp "$GENO_REF"/selfhost/*.geno "$WORK/"
GENO=$(cd "$(dirname "$GENO")" && pwd)/$(basename "$GENO")
python3 - "$GENO" "$GENO_REF" "$WORK/TypeChecker.geno" "$RUNS" <<'PY'
import os, re, shutil, statistics, subprocess, sys, tempfile, time
geno, ref, target, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def timed(cmd, n, **kw):
    """Best and median wall time of n runs, in ms; fails loudly on errors."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, **kw)
        times.append((time.perf_counter() - t0) * 1000)
        if r.returncode != 0:
            sys.exit("check_bench: %s failed:\n%s" % (cmd[0], (r.stdout + r.stderr).decode()[-500:]))
    return min(times), statistics.median(times)

lines = sum(open(os.path.join(os.path.dirname(target), f)).read().count("\n")
            for f in ("TypeChecker.geno", "Tokens.geno", "Ast.geno", "Types.geno"))
ours_best, ours_med = timed([geno, "check", target], runs)
start_best, start_med = timed([geno, "--version"], runs)
env = dict(os.environ, PYTHONPATH=ref)
ref_best, ref_med = timed([sys.executable, "-m", "geno", "check", target], max(3, runs // 10), env=env, cwd=ref)
print("program: selfhost/TypeChecker.geno + 3 modules (%d lines)" % lines)
print("geno-c    check: best %8.2f ms  median %8.2f ms" % (ours_best, ours_med))
print("geno-c    start: best %8.2f ms  median %8.2f ms  (geno --version)" % (start_best, start_med))
print("reference check: best %8.2f ms  median %8.2f ms" % (ref_best, ref_med))
print("ratio (reference / geno-c, medians): %.1fx" % (ref_med / ours_med))
if shutil.which("valgrind"):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, geno, "check", target],
                           capture_output=True)
        m = re.search(rb"refs:\s+([\d,]+)", r.stderr)
        if m:
            print("geno-c    check: %s instructions (callgrind)" % m.group(1).decode())
PY
