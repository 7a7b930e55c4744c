#!/bin/sh
# Load test of `geno serve` with wrk: isolated /run requests per second,
# latency, failed and mixed-up responses, server memory over a long run,
# the fork floor, workers killed under load, and the reference's server
# for the ratio.
#
#   bench/serve.sh [GENO_BINARY]            (default: build/geno)
#   bench/serve.sh --memory [GENO_BINARY]   the server's RSS over many requests only
#
# Environment (defaults): DURATION=10 seconds per wrk run, CONNS="1 16 64",
# WRK_THREADS=2 wrk threads (fewer when fewer connections: wrk's threads
# each drive their share of the connections with epoll, and on a 2-core
# machine more threads than cores only add contention with the server),
# WRK_CPU unset (a CPU number: wrk runs bound to it with taskset, the
# server and its children stay where the scheduler and the spawner
# placement put them; the server's own variables, GENO_SPAWNERS and
# GENO_SPAWNER_CPUS included, pass through),
# KILL_SECONDS=10 (0 skips the kill test), REF_RUNS=5 requests against the
# reference (0 skips; needs GENO_REF, default /work/ref); with --memory,
# MEM_REQUESTS=100000 requests at 16 connections (RSS sampled every 10 s).
#
# Workloads: "small" (main returns a number) and "fib" (fib(20), 21,891
# calls, plus its example). Every request carries its own number and every
# response is checked against it (bench/serve/check.lua). The server runs
# on 127.0.0.1 on a free port with the rate limit off and the concurrency
# cap above the largest connection count, and is stopped by its PID.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
memory_only=0
if [ "${1:-}" = "--memory" ]; then
  memory_only=1
  shift
fi
geno=${1:-$here/../build/geno}
duration=${DURATION:-10}
conns=${CONNS:-"1 16 64"}
wrk_threads=${WRK_THREADS:-2}
wrk_cpu=${WRK_CPU:-}
mem_requests=0
[ "$memory_only" = 1 ] && mem_requests=${MEM_REQUESTS:-100000}
kill_seconds=${KILL_SECONDS:-10}
ref_runs=${REF_RUNS:-5}
ref=${GENO_REF:-/work/ref}
command -v wrk >/dev/null 2>&1 || { echo "serve.sh: needs wrk (apt-get install wrk)" >&2; exit 2; }
[ -x "$geno" ] || { echo "serve.sh: no geno binary at $geno" >&2; exit 2; }
tmp=$(mktemp -d)
pid=""
refpid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  [ -n "$refpid" ] && kill "$refpid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
# a signal (^C, a closed pipe to `head`, a hang-up) ends the script through
# its EXIT trap, so the server is never left running
trap 'exit 1' INT TERM HUP PIPE

echo "# bench/serve.sh  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- the floor: fork + exit + wait of a process holding 1 MB -------------
if [ "$memory_only" = 0 ]; then
  cc -O2 -o "$tmp/fork_floor" "$here/serve/fork_floor.c"
  set -- $("$tmp/fork_floor" 2000)
  echo "fork+exit+wait (1 MB process, dynamic): ${1} us wall, ${2} us CPU" \
    "(2 cores: $(awk "BEGIN{printf \"%.0f\", 2e6/$2}")/s)"
  # two at once, each bound to a CPU of its own (as the server's per-CPU
  # spawners fork): whether the floor holds when both CPUs fork
  if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
    taskset -c 0 "$tmp/fork_floor" 2000 >"$tmp/ff0" &
    ffpid=$!
    taskset -c 1 "$tmp/fork_floor" 2000 >"$tmp/ff1"
    wait "$ffpid"
    set -- $(cat "$tmp/ff0") $(cat "$tmp/ff1")
    echo "fork+exit+wait (1 MB process, dynamic), CPUs 0 and 1 at once: ${2} and ${4} us CPU" \
      "(together: $(awk "BEGIN{printf \"%.0f\", 1e6/$2 + 1e6/$4}")/s)"
  fi
  # the same linked statically: the fewest mappings a process can have
  if cc -O2 -static -o "$tmp/fork_floor_static" "$here/serve/fork_floor.c" 2>/dev/null; then
    set -- $("$tmp/fork_floor_static" 2000)
    echo "fork+exit+wait (1 MB process, static):  ${1} us wall, ${2} us CPU" \
      "(2 cores: $(awk "BEGIN{printf \"%.0f\", 2e6/$2}")/s)"
  fi
fi

# ---- start the server ------------------------------------------------------
GENO_RATE_LIMIT_REQUESTS=0 GENO_MAX_CONCURRENT_REQUESTS=256 GENO_MAX_CONNECTIONS=512 \
  "$geno" serve --port 0 2>"$tmp/server.log" &
pid=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*Serving Geno runtime on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/server.log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "serve.sh: the server did not start:" >&2; cat "$tmp/server.log" >&2; exit 1; }
url="http://127.0.0.1:$port"
# wrk WORKLOAD CONNECTIONS [wrk arguments]: wrk with the thread count and
# CPU binding chosen above
wrk_run() {
  w=$1 c=$2
  shift 2
  t=$wrk_threads
  [ "$c" -lt "$t" ] && t=$c
  WORKLOAD=$w ${wrk_cpu:+taskset -c "$wrk_cpu"} wrk -t "$t" -c "$c" "$@" -s "$here/serve/check.lua" "$url"
}
rss() { awk '/VmRSS/{print $2}' "/proc/$pid/status"; }
children() { cat /proc/"$pid"/task/*/children 2>/dev/null | tr ' ' '\n' | grep . || true; }
# the spawners the workers fork from (as the placement chose: one per
# CPU, or one): the server's children from the start
spawners=$(children | tr '\n' ' ')
# CPU of the server, its reaped workers and the spawners (which fork them
# and are reaped only at the end)
cpu_ticks() {
  for s in $pid $spawners; do cat "/proc/$s/stat"; done | awk '{t += $14 + $15 + $16 + $17} END {print t}'
}

# run_wrk WORKLOAD CONNECTIONS SECONDS: prints one result row
run_wrk() {
  w=$1 c=$2 d=$3
  t0=$(cpu_ticks)
  wrk_run "$w" "$c" -d "${d}s" --latency >"$tmp/wrk.out" 2>&1 || true
  t1=$(cpu_ticks)
  rps=$(awk '/^Requests\/sec/{print $2}' "$tmp/wrk.out")
  line=$(grep '^checked=' "$tmp/wrk.out" || echo "checked=0 mismatched=? non200=? p50_ms=? p99_ms=?")
  sock=$(awk '/Socket errors/{print $0}' "$tmp/wrk.out")
  n=$(echo "$line" | sed 's/checked=\([0-9]*\).*/\1/')
  cpu_ms=$(awk "BEGIN{ if ($n > 0) printf \"%.2f\", ($t1 - $t0) * 1000 / $(getconf CLK_TCK) / $n; else print \"?\" }")
  printf '%-6s c=%-3s %8s req/s  %s  cpu_ms/req=%s %s\n' "$w" "$c" "${rps:-?}" "$line" "$cpu_ms" "${sock:+ [$sock]}"
}

echo "server pid $pid on $url, RSS $(rss) kB, $(grep -o '[0-9]* spawners started' "$tmp/server.log" || echo 'no spawner')" \
  "(bound to CPUs:$(for s in $spawners; do printf ' %s' "$(awk '/Cpus_allowed_list/{print $2}' /proc/$s/status)"; done));" \
  "wrk: $wrk_threads threads${wrk_cpu:+, bound to CPU $wrk_cpu}"
sed -n 's/.*geno.server: \(Spawner placement.*\)/\1/p' "$tmp/server.log"
wrk_run small 2 -d 2s >/dev/null 2>&1 || true # warm-up
if [ "$memory_only" = 0 ]; then
  for w in small fib; do
    for c in $conns; do run_wrk "$w" "$c" "$duration"; done
  done
else
  kill_seconds=0
  ref_runs=0
fi

# ---- memory over many requests ------------------------------------------------
if [ "$mem_requests" -gt 0 ]; then
  before=$(rss)
  max=$before
  total=0 bad=0
  # wrk stops on time only: runs of 10 s until enough requests were answered
  while [ "$total" -lt "$mem_requests" ]; do
    wrk_run small 16 -d 10s >"$tmp/mem.out" 2>&1 || true
    n=$(sed -n 's/^checked=\([0-9]*\) mismatched=\([0-9]*\) non200=\([0-9]*\).*/\1/p' "$tmp/mem.out")
    e=$(sed -n 's/^checked=\([0-9]*\) mismatched=\([0-9]*\) non200=\([0-9]*\).*/\2 + \3/p' "$tmp/mem.out")
    [ -n "$n" ] && [ "$n" -gt 0 ] || break
    total=$((total + n))
    bad=$((bad + $e))
    r=$(rss)
    [ "$r" -gt "$max" ] && max=$r
    echo "  after $total requests: RSS $r kB"
  done
  echo "memory: $total requests ($bad failed or mismatched): RSS ${before} kB before, ${max} kB peak," \
    "$(rss) kB after"
fi

# ---- workers killed at random under load ------------------------------------------
if [ "$kill_seconds" -gt 0 ]; then
  kills=0
  # fib(25): runs of several milliseconds, so that a worker is alive when
  # the loop looks (the small program's live ~3 ms and were seldom caught)
  wrk_run slow 16 -d "${kill_seconds}s" >"$tmp/kill.out" 2>&1 &
  wrkpid=$!
  while kill -0 "$wrkpid" 2>/dev/null; do
    # at a random moment, every worker alive then (one at a time is too
    # slow to catch: a worker lives a few milliseconds)
    for v in $(children); do
      case " $spawners " in *" $v "*) continue ;; esac
      kill -9 "$v" 2>/dev/null && kills=$((kills + 1))
    done
    sleep "0.0$(shuf -i 10-50 -n 1)"
  done
  wait "$wrkpid" || true
  health=$(curl -s -o /dev/null -w '%{http_code}' "$url/healthz")
  echo "kill test: $kills workers killed; $(grep '^checked=' "$tmp/kill.out")" \
    "$(awk '/Socket errors/{print "["$0"]"}' "$tmp/kill.out"); /healthz afterwards: $health"
fi

# ---- the reference's server, for the ratio -----------------------------------------
if [ "$ref_runs" -gt 0 ] && [ -d "$ref/geno" ]; then
  rport=$((port + 1))
  (cd "$ref" && GENO_RATE_LIMIT_REQUESTS=0 exec python3 -m geno serve --port "$rport" 2>"$tmp/ref.log") &
  refpid=$!
  for _ in $(seq 300); do grep -q "Serving Geno runtime" "$tmp/ref.log" 2>/dev/null && break; sleep 0.1; done
  body='{"source":"func main() -> Int\n    return 42\nend func\n"}'
  timeit() {
    total=0
    for i in $(seq "$ref_runs"); do
      t=$(curl -s -o "$tmp/resp" -w '%{time_total}' -H 'Content-Type: application/json' -d "$body" "$1/run")
      grep -q '"value":42' "$tmp/resp" || echo "serve.sh: unexpected answer from $1: $(cat "$tmp/resp")" >&2
      total=$(awk "BEGIN{print $total + $t}")
    done
    awk "BEGIN{printf \"%.2f\", $total * 1000 / $ref_runs}"
  }
  ours=$(timeit "$url")
  theirs=$(timeit "http://127.0.0.1:$rport")
  echo "reference: $ref_runs sequential /run: reference ${theirs} ms, geno-c ${ours} ms per request" \
    "(ratio $(awk "BEGIN{printf \"%.0f\", $theirs / $ours}")x)"
fi
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=""
