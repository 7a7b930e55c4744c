#!/bin/sh
# bench/js.sh [GENO] [WORKLOAD...]: the bench workloads (bench/*.geno)
# compiled to JavaScript by geno-c (`geno compile --target js`) and by the
# reference (GENO_REF, default /work/ref: `python3 -m geno compile --target
# js`), both run under the same node, best of RUNS (default 3) wall-clock
# times. Prints one line per workload: the two times and the ratio
# reference / geno-c (above 1: geno-c's output is faster). Outputs are
# compared first; a workload whose outputs differ is reported as such.
# Also prints each output's size in bytes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
geno=${1:-$here/../build/geno}
[ $# -gt 0 ] && shift
workloads=${*:-"fib loop strings hof trees sort vec mmap alloc"}
runs=${RUNS:-3}
ref=${GENO_REF:-/work/ref}
command -v node >/dev/null 2>&1 || { echo "bench/js.sh: node is not installed" >&2; exit 2; }
[ -x "$geno" ] || { echo "bench/js.sh: no geno binary at $geno" >&2; exit 2; }
[ -d "$ref/geno" ] || { echo "bench/js.sh: no reference at $ref (set GENO_REF)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() { # best wall time in seconds of running node on $1 with caps
  b=""
  i=0
  while [ $i -lt "$runs" ]; do
    s=$(date +%s.%N)
    node --stack-size=8000 "$1" --cap print >"$tmp/out" 2>"$tmp/err" || true
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
    i=$((i + 1))
  done
  echo "$b"
}

printf "%-8s %10s %10s %8s %10s %10s\n" workload geno-c ref ratio size-c size-ref
for w in $workloads; do
  src=$here/$w.geno
  "$geno" compile --target js --max-steps 0 --timeout 0 --max-recursion-depth 10000 -o "$tmp/$w.c.js" "$src" >/dev/null
  (cd "$ref" && python3 -m geno compile --target js -o "$tmp/$w.ref.js" "$src" >/dev/null 2>"$tmp/referr") || {
    echo "$w: the reference cannot compile it: $(tail -1 "$tmp/referr")"; continue; }
  node --stack-size=8000 "$tmp/$w.c.js" --cap print >"$tmp/c.out" 2>&1 || true
  node --stack-size=8000 "$tmp/$w.ref.js" --cap print >"$tmp/r.out" 2>&1 || true
  same=""
  cmp -s "$tmp/c.out" "$tmp/r.out" || same=" (outputs differ)"
  tc=$(best "$tmp/$w.c.js")
  tr=$(best "$tmp/$w.ref.js")
  ratio=$(echo "scale=2; $tr / $tc" | bc)
  printf "%-8s %9.3fs %9.3fs %7sx %10d %10d%s\n" "$w" "$tc" "$tr" "$ratio" \
    "$(wc -c <"$tmp/$w.c.js")" "$(wc -c <"$tmp/$w.ref.js")" "$same"
done
