/* Number text: Floats exactly as Python's repr() prints them, Ints in
 * decimal (render.h). */
#include <math.h>
#include <stdio.h>

#include "render.h"

/* Shortest round-trip digits of a finite, nonzero |d|: the first precision
 * p (1..17) whose correctly rounded p-digit decimal reads back as d. That
 * decimal is the closest p-digit one, so it is the string Python's
 * dtoa-based repr picks. Stores digits (no dot, no trailing zeros) and the
 * decimal exponent `decpt` such that value = 0.DIGITS * 10^decpt. */
static void shortest_digits(double d, char *digits, int *ndigits, int *decpt) {
  char tmp[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(tmp, sizeof tmp, "%.*e", p - 1, d);
    if (p == 17 || strtod(tmp, NULL) == d) break;
  }
  /* tmp = "D.DDDDe[+-]XX" */
  int n = 0;
  const char *s = tmp;
  while (*s && *s != 'e') {
    if (*s >= '0' && *s <= '9') digits[n++] = *s;
    s++;
  }
  int exp10 = atoi(s + 1);
  while (n > 1 && digits[n - 1] == '0') n--;
  digits[n] = '\0';
  *ndigits = n;
  *decpt = exp10 + 1;
}

void fmt_float(double d, char *out, size_t cap) {
  if (isnan(d)) {
    snprintf(out, cap, "nan");
    return;
  }
  if (isinf(d)) {
    snprintf(out, cap, d > 0 ? "inf" : "-inf");
    return;
  }
  if (d == 0) {
    snprintf(out, cap, signbit(d) ? "-0.0" : "0.0");
    return;
  }
  char digits[24];
  int n, decpt;
  shortest_digits(fabs(d), digits, &n, &decpt);
  char buf[64];
  int k = 0;
  if (d < 0) buf[k++] = '-';
  if (decpt > -4 && decpt <= 16) {
    /* positional notation (Python's repr switches at 1e-4 and 1e16) */
    if (decpt <= 0) {
      buf[k++] = '0';
      buf[k++] = '.';
      for (int i = 0; i < -decpt; i++) buf[k++] = '0';
      for (int i = 0; i < n; i++) buf[k++] = digits[i];
    } else if (decpt < n) {
      for (int i = 0; i < decpt; i++) buf[k++] = digits[i];
      buf[k++] = '.';
      for (int i = decpt; i < n; i++) buf[k++] = digits[i];
    } else {
      for (int i = 0; i < n; i++) buf[k++] = digits[i];
      for (int i = n; i < decpt; i++) buf[k++] = '0';
      buf[k++] = '.';
      buf[k++] = '0';
    }
    buf[k] = '\0';
  } else {
    buf[k++] = digits[0];
    if (n > 1) {
      buf[k++] = '.';
      for (int i = 1; i < n; i++) buf[k++] = digits[i];
    }
    int e = decpt - 1;
    snprintf(buf + k, sizeof buf - (size_t)k, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
  }
  snprintf(out, cap, "%s", buf);
}

bool fmt_int(VM *vm, Value v, Buf *out) {
  if (v.tag == T_INT) {
    buf_printf(out, "%lld", (long long)v.as.i);
    return true;
  }
  const mpz_t *z = &AS_BIG(v)->z;
  size_t digits = mpz_sizeinbase(*z, 10);
  if (digits > FMT_MAX_INT_DIGITS) {
    /* mpz_sizeinbase may overestimate by one: count exactly for the
     * message, but only where that is cheap. A huge Int (`1 << 4000000000`
     * under a large max_integer_bits) would take minutes to convert just
     * to be refused, so past a million digits the estimate stands. */
    char *s = digits <= 1000000 ? mpz_get_str(NULL, 10, *z) : NULL;
    size_t len = s ? strlen(s) - (s[0] == '-') : digits;
    void (*freefn)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &freefn);
    if (s) freefn(s, strlen(s) + 1);
    if (len > FMT_MAX_INT_DIGITS)
      return vm_raise(vm, E_RUNTIME, NULL,
                      "Integer too large to convert to text (%zu digits; the limit is %d digits)", len,
                      FMT_MAX_INT_DIGITS);
  }
  char *s = mpz_get_str(NULL, 10, *z);
  if (!s) return vm_raise_oom(vm);
  buf_puts(out, s);
  void (*freefn)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &freefn);
  freefn(s, strlen(s) + 1);
  return true;
}
