/* Clock and DateTime builtins (capability clock): clock_*, datetime_* and
 * sleep_ms (a host callback).
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <gmp.h>
#include <math.h>
#include <time.h>

#include <geno.h>

#include "../vm/vmapi.h"
#include "families.h"
#include "timefmt.h"

/* An Int result, through GMP so that max_integer_bits applies to it like
 * to every other Int a builtin returns. */
static bool int_result(VM *vm, int64_t i, Value *out) {
  mpz_t z;
  mpz_init_set_si(z, (long)i);
  bool ok = vm_int_from_mpz(vm, z, out);
  mpz_clear(z);
  return ok;
}

/* Python's int(x) of a float: truncation toward zero, any size. */
static bool truncate_to_int(VM *vm, double x, Value *out) {
  if (isnan(x)) return vm_error(vm, E_RUNTIME, "cannot convert float NaN to integer");
  if (isinf(x)) return vm_error(vm, E_RUNTIME, "cannot convert float infinity to integer");
  mpz_t z;
  mpz_init_set_d(z, x);
  bool ok = vm_int_from_mpz(vm, z, out);
  mpz_clear(z);
  return ok;
}

/* clock_now() -> Int, datetime_now() -> Int: whole Unix seconds (UTC). */
static bool lib_clock_now(VM *vm, Value *args, int nargs, Value *out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int_result(vm, (int64_t)ts.tv_sec, out);
}

static bool format_time(VM *vm, Value ts, Value fmt, Value *out) {
  double t;
  if (!vm_num_to_double(vm, ts, &t)) return false;
  size_t n;
  const char *f = vm_str_bytes(fmt, &n);
  Buf text = BUF_INIT, err = BUF_INIT;
  bool ok = lib_clock_format(t, f, n, &text, &err) ? vm_string(vm, text.data ? text.data : "", text.len, out)
                                                   : vm_error(vm, E_RUNTIME, "%s", err.data ? err.data : "");
  buf_free(&text);
  buf_free(&err);
  return ok;
}

/* clock_format(timestamp: Float, fmt: String) -> String (UTC). */
static bool lib_clock_format_fn(VM *vm, Value *args, int nargs, Value *out) {
  return format_time(vm, args[0], args[1], out);
}

/* clock_parse(text, fmt) -> Option[Float]; as_int: datetime_parse's
 * Option[Int], the float truncated. */
static bool parse_time(VM *vm, Value *args, bool as_int, Value *out) {
  size_t tn, fn;
  const char *t = vm_str_bytes(args[0], &tn), *f = vm_str_bytes(args[1], &fn);
  Buf err = BUF_INIT;
  double ts;
  int rc = lib_clock_parse(t, tn, f, fn, &ts, &err);
  bool ok = true;
  if (rc < 0) ok = vm_error(vm, E_RUNTIME, "%s", err.data ? err.data : "");
  else if (rc == 0) *out = vm_none(vm);
  else if (as_int) ok = truncate_to_int(vm, ts, out) && vm_some(vm, *out, out);
  else ok = vm_some(vm, v_float(ts), out);
  buf_free(&err);
  return ok;
}

static bool lib_clock_parse_fn(VM *vm, Value *args, int nargs, Value *out) {
  return parse_time(vm, args, false, out);
}

/* clock_elapsed(start, end_time) -> Float: float(end) - float(start). */
static bool lib_clock_elapsed(VM *vm, Value *args, int nargs, Value *out) {
  double a, b;
  if (!vm_num_to_double(vm, args[0], &a) || !vm_num_to_double(vm, args[1], &b)) return false;
  *out = v_float(b - a);
  return true;
}

/* datetime_format(timestamp: Int, fmt) -> String: clock_format of
 * float(timestamp) (its messages say clock_format). */
static bool lib_datetime_format(VM *vm, Value *args, int nargs, Value *out) {
  return format_time(vm, args[0], args[1], out);
}

static bool lib_datetime_parse(VM *vm, Value *args, int nargs, Value *out) {
  return parse_time(vm, args, true, out);
}

/* datetime_elapsed(start: Int, end_time: Int) -> Int:
 * int(float(end) - float(start)), truncated toward zero. */
static bool lib_datetime_elapsed(VM *vm, Value *args, int nargs, Value *out) {
  double a, b;
  if (!vm_num_to_double(vm, args[0], &a) || !vm_num_to_double(vm, args[1], &b)) return false;
  return truncate_to_int(vm, b - a, out);
}

const BuiltinDef lib_clock_builtins[] = {
    {"clock_elapsed", "(start: Float, end_time: Float) -> Float", GENO_CAP_CLOCK, "clock", 0, lib_clock_elapsed, "$b_clock_elapsed"},
    {"clock_format", "(timestamp: Float, fmt: String) -> String", GENO_CAP_CLOCK, "clock", 0, lib_clock_format_fn, "$b_clock_format"},
    {"clock_now", "() -> Int", GENO_CAP_CLOCK, "clock", 0, lib_clock_now, "$b_clock_now"},
    {"clock_parse", "(text: String, fmt: String) -> Option[Float]", GENO_CAP_CLOCK, "clock", 0, lib_clock_parse_fn, "$b_clock_parse"},
    {"datetime_elapsed", "(start: Int, end_time: Int) -> Int", GENO_CAP_CLOCK, "clock", 0, lib_datetime_elapsed, "$b_datetime_elapsed"},
    {"datetime_format", "(timestamp: Int, fmt: String) -> String", GENO_CAP_CLOCK, "clock", 0, lib_datetime_format, "$b_datetime_format"},
    {"datetime_now", "() -> Int", GENO_CAP_CLOCK, "clock", 0, lib_clock_now, "$b_datetime_now"},
    {"datetime_parse", "(text: String, fmt: String) -> Option[Int]", GENO_CAP_CLOCK, "clock", 0, lib_datetime_parse, "$b_datetime_parse"},
    {"sleep_ms", "(ms: Int) -> Unit", GENO_CAP_CLOCK, "clock", BF_CALLBACK, NULL, "$b_sleep_ms"},
};
const size_t lib_clock_builtin_count = ARRAY_LEN(lib_clock_builtins);
