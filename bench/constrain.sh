#!/bin/sh
# Constrained decoding: microseconds per fed token and per token mask over
# OpenAI's o200k_base vocabulary (199,998 tokens), decoding programs of the
# corpus token by token, and the reference's constrain_prefix on the same
# prefixes, in one run.
#
#   bench/constrain.sh [BUILD_DIR]
#
# BUILD_DIR (default build) must hold tests/token_check (any build type;
# use a Release build). Needs node with tools/tokenizers/node_modules
# (scripts/install-deps.sh installs it) and, for the ratio, the reference
# at $GENO_REF (default /work/ref; skipped when absent).
# FILES: how many corpus programs (default 60, evenly spread; 0 = all).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:-$root/build}
check="$build/tests/token_check"
[ -x "$check" ] || { echo "bench: no $check (make build)" >&2; exit 2; }
tools="$root/tools/tokenizers"
[ -d "$tools/node_modules/js-tiktoken" ] || { echo "bench: run scripts/install-deps.sh (js-tiktoken)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nfiles=${FILES:-60}
all=$(find "$root/tests" "$root/examples" "$root/bench" -name '*.geno' | sort)
total=$(echo "$all" | wc -l)
if [ "$nfiles" -gt 0 ] && [ "$nfiles" -lt "$total" ]; then
  step=$((total / nfiles))
  files=$(echo "$all" | awk -v s="$step" 'NR % s == 0')
else
  files=$all
fi
# shellcheck disable=SC2086
NODE_PATH="$tools/node_modules" node "$tools/export.js" o200k_base "$work" $files >/dev/null
"$check" "$work/o200k_base.vocab" "$work/o200k_base.tokens" --times "$work/times"
python3 - "$work" "${GENO_REF:-/work/ref}" <<'PY'
import os, statistics, sys, time
work, ref = sys.argv[1], sys.argv[2]
rows = [l.split() for l in open(f"{work}/times")]
feed = sorted(float(r[1]) for r in rows if r[0] == "feed")
mask = sorted(float(r[1]) for r in rows if r[0] == "mask")
feed_cpu = sorted(float(r[2]) for r in rows if r[0] == "feed")
mask_cpu = sorted(float(r[4]) for r in rows if r[0] == "mask")
def pct(xs, p): return xs[min(len(xs) - 1, int(len(xs) * p))]
for what, xs in (("wall", feed), ("cpu", feed_cpu)):
    print(f"feed ({what}): {len(xs)} tokens, median {statistics.median(xs):.2f} us, mean {statistics.mean(xs):.2f} us, "
          f"p99 {pct(xs, .99):.2f} us")
for what, xs in (("wall", mask), ("cpu", mask_cpu)):
    print(f"mask ({what}): {len(xs)} masks, median {statistics.median(xs):.0f} us, mean {statistics.mean(xs):.0f} us, "
          f"p90 {pct(xs, .90):.0f} us, p99 {pct(xs, .99):.0f} us")
if not os.path.isdir(os.path.join(ref, "geno")):
    print("reference: skipped (no GENO_REF)")
    sys.exit(0)
sys.path.insert(0, ref)
from geno.api import constrain_prefix  # the reference, for the ratio
vocab = [bytes.fromhex(l.strip()) for l in open(f"{work}/o200k_base.vocab")]
calls, spent = 0, 0.0
for line in open(f"{work}/o200k_base.tokens"):
    path, ids = line.rstrip("\n").split("\t")
    text = b""
    for i in ids.split():
        text += vocab[int(i)]
        try:
            prefix = text.decode("utf-8")
        except UnicodeDecodeError:
            continue
        t = time.perf_counter()
        constrain_prefix(prefix)
        spent += time.perf_counter() - t
        calls += 1
ref_us = spent / calls * 1e6
print(f"reference constrain_prefix: {calls} prefixes, mean {ref_us:.0f} us per call "
      f"(the whole prefix each time; geno-c's feed is incremental)")
print(f"ratio reference call / geno-c feed (mean): {ref_us / statistics.mean(feed):.0f}x; "
      f"/ geno-c mask (mean): {ref_us / statistics.mean(mask):.2f}x")
PY
