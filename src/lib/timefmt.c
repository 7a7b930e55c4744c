/* UTC calendar arithmetic and clock formatting/parsing (see timefmt.h).
 * The date algorithms are Howard Hinnant's days_from_civil and
 * civil_from_days (proleptic Gregorian, exact for any int64 day count that
 * matters here). Behaviour at the edges follows the reference, which
 * formats with Python's datetime.fromtimestamp(ts, utc).strftime and parses
 * with a regular expression plus datetime(...). */
#include "timefmt.h"

#include <math.h>
#include <stdio.h>
#include <utf8proc.h>

#include "../base/utf8.h"

/* Largest year glibc's gmtime represents (tm_year is an int counted from
 * 1900); beyond it Python reports gmtime's EOVERFLOW. */
#define GMTIME_MAX_YEAR ((int64_t)INT32_MAX + 1900)

/* Python's datetime covers years 1..9999. */
#define DATETIME_MAX_YEAR 9999

/* 2^63: Python refuses to convert a float timestamp at or past it to
 * time_t. */
#define TIME_T_LIMIT 9223372036854775808.0

int64_t lib_days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;                                  /* [0, 399] */
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* [0, 365] */
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;          /* [0, 146096] */
  return era * 146097 + doe - 719468;
}

void lib_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

bool lib_clock_check_format(const char *fn, const char *fmt, size_t n, Buf *err) {
  for (size_t i = 0; i < n; i++) {
    if (fmt[i] != '%') continue;
    if (i + 1 >= n) {
      buf_printf(err, "%s: trailing '%%' with no directive in format string", fn);
      return false;
    }
    char c = fmt[i + 1];
    if (!strchr("YmdHMS%", c) || c == '\0') {
      /* Name the whole character after '%', which may be multi-byte. */
      int32_t cp;
      int k = utf8_decode((const unsigned char *)fmt + i + 1, n - i - 1, &cp);
      buf_printf(err, "%s: unsupported format directive '%%%.*s' (supported: %%Y %%m %%d %%H %%M %%S %%%%)", fn,
                 k > 0 ? k : 1, fmt + i + 1);
      return false;
    }
    i++;
  }
  return true;
}

bool lib_clock_format(double ts, const char *fmt, size_t n, Buf *out, Buf *err) {
  if (ts < 0) {
    buf_puts(err, "clock_format: negative timestamps (pre-1970) are not supported");
    return false;
  }
  if (!lib_clock_check_format("clock_format", fmt, n, err)) return false;
  if (isnan(ts)) {
    buf_puts(err, "clock_format: Invalid value NaN (not a number)");
    return false;
  }
  if (!(ts < TIME_T_LIMIT)) {
    buf_puts(err, "clock_format: timestamp out of range for platform time_t");
    return false;
  }
  /* Round the fraction half-even to microseconds, then drop it: a
   * fraction that rounds up to a whole second carries. */
  double ip, frac = modf(ts, &ip);
  if (nearbyint(frac * 1e6) >= 1e6) ip += 1;
  int64_t secs = (int64_t)ip;
  int64_t days = secs / 86400, rem = secs % 86400;
  int64_t year;
  int month, day;
  lib_civil_from_days(days, &year, &month, &day);
  if (year > GMTIME_MAX_YEAR) {
    buf_puts(err, "clock_format: [Errno 75] Value too large for defined data type");
    return false;
  }
  if (year > DATETIME_MAX_YEAR) {
    buf_printf(err, "clock_format: year %lld is out of range", (long long)year);
    return false;
  }
  int fields[128] = {0};
  fields['Y'] = (int)year;
  fields['m'] = month;
  fields['d'] = day;
  fields['H'] = (int)(rem / 3600);
  fields['M'] = (int)(rem / 60 % 60);
  fields['S'] = (int)(rem % 60);
  for (size_t i = 0; i < n; i++) {
    if (fmt[i] != '%') {
      buf_putc(out, fmt[i]);
      continue;
    }
    char c = fmt[++i];
    if (c == '%') buf_putc(out, '%');
    else buf_printf(out, c == 'Y' ? "%04d" : "%02d", fields[(int)c]);
  }
  return !out->failed;
}

/* The value 0-9 of a Unicode decimal digit (category Nd), or -1. Python's
 * \d and int() accept every script's digits; Nd digits come in runs of
 * ten from zero to nine, so the value is the offset in the run. */
static int digit_value(int32_t cp) {
  if (cp >= '0' && cp <= '9') return cp - '0';
  if (cp < 128 || utf8proc_category(cp) != UTF8PROC_CATEGORY_ND) return -1;
  int32_t start = cp;
  while (start > 0 && utf8proc_category(start - 1) == UTF8PROC_CATEGORY_ND && cp - start < 60) start--;
  return (int)((cp - start) % 10);
}

/* Python's re.escape(c) length: 2 for its special characters, else 1. */
static int escaped_len(int32_t c) {
  return c > 0 && c < 128 && strchr("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", (int)c) ? 2 : 1;
}

/* The error Python's regex compiler gives when a directive repeats, with
 * its position in the pattern the reference builds from fmt. */
static bool duplicate_directive(const char *fmt, size_t n, Buf *err) {
  int group_of[128] = {0};
  int groups = 0;
  size_t pos = 1; /* after the leading '^' */
  for (size_t i = 0; i < n;) {
    if (fmt[i] == '%' && i + 1 < n && fmt[i + 1] == '%') {
      pos += 1;
      i += 2;
      continue;
    }
    if (fmt[i] == '%' && i + 1 < n) {
      int c = fmt[i + 1];
      groups++;
      if (group_of[c]) {
        buf_printf(err, "redefinition of group name '%c' as group %d; was group %d at position %zu", c, groups,
                   group_of[c], pos + 4);
        return true;
      }
      group_of[c] = groups;
      pos += 12; /* (?P<X>\d{4}) */
      i += 2;
      continue;
    }
    int32_t cp;
    int k = utf8_decode((const unsigned char *)fmt + i, n - i, &cp);
    if (k <= 0) {
      cp = (unsigned char)fmt[i];
      k = 1;
    }
    pos += (size_t)escaped_len(cp);
    i += (size_t)k;
  }
  return false;
}

/* Read exactly `count` Unicode digits at text[*i]; -1 if not there. */
static long read_digits(const char *text, size_t tn, size_t *i, int count) {
  long v = 0;
  for (int k = 0; k < count; k++) {
    int32_t cp;
    int len = *i < tn ? utf8_decode((const unsigned char *)text + *i, tn - *i, &cp) : 0;
    int dv = len > 0 ? digit_value(cp) : -1;
    if (dv < 0) return -1;
    v = v * 10 + dv;
    *i += (size_t)len;
  }
  return v;
}

static int days_in_month(long y, long m) {
  static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : dim[m - 1];
}

int lib_clock_parse(const char *text, size_t tn, const char *fmt, size_t n, double *ts, Buf *err) {
  if (!lib_clock_check_format("clock_parse", fmt, n, err)) return -1;
  if (duplicate_directive(fmt, n, err)) return -1;
  long f[128];
  f['Y'] = 1970, f['m'] = 1, f['d'] = 1, f['H'] = 0, f['M'] = 0, f['S'] = 0;
  size_t i = 0;
  for (size_t k = 0; k < n; k++) {
    if (fmt[k] == '%') {
      char c = fmt[++k];
      if (c == '%') {
        if (i >= tn || text[i] != '%') return 0;
        i++;
        continue;
      }
      long v = read_digits(text, tn, &i, c == 'Y' ? 4 : 2);
      if (v < 0) return 0;
      f[(int)c] = v;
      continue;
    }
    if (i >= tn || text[i] != fmt[k]) return 0; /* literal, byte by byte */
    i++;
  }
  /* The pattern ends in Python's '$', which also matches before a final
   * newline. */
  if (!(i == tn || (i + 1 == tn && text[i] == '\n'))) return 0;
  if (f['Y'] < 1 || f['m'] < 1 || f['m'] > 12 || f['d'] < 1 || f['d'] > days_in_month(f['Y'], f['m']) ||
      f['H'] > 23 || f['M'] > 59 || f['S'] > 59)
    return 0;
  int64_t days = lib_days_from_civil(f['Y'], (int)f['m'], (int)f['d']);
  *ts = (double)(days * 86400 + f['H'] * 3600 + f['M'] * 60 + f['S']);
  return 1;
}
