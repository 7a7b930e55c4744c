#!/bin/sh
# Compare geno-c with Lua 5.4 and CPython on the same workloads, in one run.
#
#   bench/run.sh [GENO_BINARY] [WORKLOAD...]
#
# GENO_BINARY defaults to build-rel/geno (configure it with
# -DCMAKE_BUILD_TYPE=Release). Each workload NAME has NAME.geno, NAME.lua
# and NAME.py here computing the same result; every engine's output is
# checked against the others'. Each program runs RUNS times (default 3),
# the engines taking turns, and the best wall time counts; peak memory is
# the maximum resident set size reported by /usr/bin/time. Installs
# lua5.4 with apt-get when it is missing.
#
# Output: one row per workload with times, the geno/lua and geno/python
# ratios (below 1.0 means geno-c is faster) and peak memory of each.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
geno=${1:-$here/../build-rel/geno}
[ $# -gt 0 ] && shift
workloads=${*:-"fib loop strings hof trees sort vec mmap alloc rest"}
runs=${RUNS:-3}

if ! command -v lua5.4 >/dev/null 2>&1; then
  echo "installing lua5.4 ..." >&2
  (apt-get install -y lua5.4 >/dev/null 2>&1 || sudo apt-get install -y lua5.4 >/dev/null 2>&1) || true
fi
command -v lua5.4 >/dev/null 2>&1 || { echo "bench: lua5.4 is not available" >&2; exit 2; }
[ -x "$geno" ] || { echo "bench: no geno binary at $geno (build with -DCMAKE_BUILD_TYPE=Release)" >&2; exit 2; }
timebin=/usr/bin/time
[ -x "$timebin" ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# once NAME CMD...: runs CMD once; updates best_NAME (seconds, nanosecond
# clock) and mem_NAME (peak KB from /usr/bin/time); output in $tmp/NAME.out.
# The engines take turns within each round (geno, lua, python, geno, ...),
# so a burst of load from elsewhere on the machine hits all of them alike
# instead of skewing one engine's every run.
once() {
  name=$1
  shift
  eval "cur=\${best_$name:-}"
  [ "$cur" = FAIL ] && return
  t0=$(date +%s%N)
  if ! "$timebin" -f "%M" -o "$tmp/mem" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
    eval "best_$name=FAIL mem_$name=0"
    return
  fi
  t1=$(date +%s%N)
  t=$(echo "$t0 $t1" | awk '{ printf "%.3f", ($2 - $1) / 1e9 }')
  m=$(tail -n 1 "$tmp/mem")
  eval "memv=\${mem_$name:-0}"
  if [ -z "$cur" ] || [ "$(echo "$t < $cur" | bc -l)" = 1 ]; then eval "best_$name=$t"; fi
  [ "$m" -gt "$memv" ] && eval "mem_$name=$m"
  return 0
}

ratio() {
  case "$1$2" in *FAIL*) echo "-" ;; *) echo "$1 $2" | awk '{ if ($2 > 0) printf "%.2f", $1 / $2; else print "-" }' ;; esac
}

printf "%-8s %9s %9s %9s %8s %8s %9s %9s %9s\n" workload geno_s lua_s python_s geno/lua geno/py geno_KB lua_KB py_KB
for w in $workloads; do
  [ -f "$here/$w.geno" ] || { echo "$w: no such workload" >&2; continue; }
  best_geno="" best_lua="" best_py="" mem_geno=0 mem_lua=0 mem_py=0
  i=0
  while [ $i -lt "$runs" ]; do
    once geno "$geno" run --max-steps 0 --timeout 0 "$here/$w.geno"
    once lua lua5.4 "$here/$w.lua"
    once py python3 "$here/$w.py"
    i=$((i + 1))
  done
  g=$best_geno gm=$mem_geno l=$best_lua lm=$mem_lua p=$best_py pm=$mem_py
  note=""
  if [ "$g" != FAIL ] && ! cmp -s "$tmp/geno.out" "$tmp/lua.out"; then note="  (outputs differ!)"; fi
  if [ "$g" = FAIL ]; then note="  ($(head -c 120 "$tmp/geno.err" | tr '\n' ' '))"; fi
  printf "%-8s %9s %9s %9s %8s %8s %9s %9s %9s%s\n" "$w" "$g" "$l" "$p" "$(ratio "$g" "$l")" "$(ratio "$g" "$p")" \
    "$gm" "$lm" "$pm" "$note"
done
