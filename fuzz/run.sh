#!/bin/sh
# Run the libFuzzer targets of a GENO_FUZZ build.
#
# usage: fuzz/run.sh BUILD_DIR [SECONDS]
#
# Runs every fuzz_* executable in BUILD_DIR/fuzz (or only those named in
# $FUZZ_TARGETS, space-separated) for SECONDS each (default 60), one after
# another. Each target keeps a working corpus in fuzz/corpus-work/<target>
# (git-ignored, reused across runs) seeded from every .geno file under
# tests/ and examples/, plus fuzz/seeds/<target>/ when that exists.
# Dictionary: fuzz/<target>.dict if present, else fuzz/geno.dict.
#
# Limits (per input): 2 GiB RSS, 10 s, 64 KiB. A crash, leak, sanitizer
# report, timeout or out-of-memory leaves the input in
# BUILD_DIR/fuzz-artifacts/<target>/ and makes this script exit 1.
# $FUZZ_JOBS > 1 runs that many fuzzing processes per target (-fork).
set -eu

BUILD=${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS]}
SECONDS_PER_TARGET=${2:-60}
JOBS=${FUZZ_JOBS:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)

case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac

if [ -n "${FUZZ_TARGETS:-}" ]; then
  TARGETS=$FUZZ_TARGETS
else
  TARGETS=$(cd "$BUILD/fuzz" 2>/dev/null && ls fuzz_* 2>/dev/null | grep -v '\.' || true)
fi
if [ -z "$TARGETS" ]; then
  echo "fuzz/run.sh: no fuzz_* targets in $BUILD/fuzz (build with -DGENO_FUZZ=ON)" >&2
  exit 2
fi

status=0
for t in $TARGETS; do
  bin="$BUILD/fuzz/$t"
  [ -x "$bin" ] || { echo "fuzz/run.sh: $bin not built" >&2; exit 2; }
  corpus="$ROOT/fuzz/corpus-work/$t"
  artifacts="$BUILD/fuzz-artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  # Seed: one file per program (names keep the corpus free of duplicates
  # across runs; libFuzzer dedupes by content anyway).
  find "$ROOT/tests" "$ROOT/examples" -name '*.geno' -size -64k 2>/dev/null |
    while read -r f; do
      cp "$f" "$corpus/seed-$(printf '%s' "$f" | cksum | cut -d' ' -f1).geno"
    done
  seeds=""
  [ -d "$ROOT/fuzz/seeds/$t" ] && seeds="$ROOT/fuzz/seeds/$t"
  dict="$ROOT/fuzz/geno.dict"
  [ -f "$ROOT/fuzz/$t.dict" ] && dict="$ROOT/fuzz/$t.dict"
  fork=""
  [ "$JOBS" -gt 1 ] && fork="-fork=$JOBS"
  echo "== $t: ${SECONDS_PER_TARGET}s, corpus $corpus"
  start="$artifacts/.run-start"
  touch "$start"
  # detect_leaks: a leak fails the run like a crash.
  if ! ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
       UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
       "$bin" $fork \
         -max_total_time="$SECONDS_PER_TARGET" \
         -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
         -dict="$dict" \
         -artifact_prefix="$artifacts/" \
         -print_final_stats=1 \
         "$corpus" $seeds; then
    echo "== $t: FAILED (inputs in $artifacts)" >&2
    status=1
  fi
  # With -fork, a child's finding may not fail the parent: look for new
  # artifacts too.
  if [ -n "$(find "$artifacts" -type f -newer "$start" ! -name '.run-start' | head -1)" ]; then
    echo "== $t: new findings in $artifacts" >&2
    status=1
  fi
done
exit $status
