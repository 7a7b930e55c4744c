/* UTC calendar arithmetic and the clock builtins' formatting and parsing,
 * independent of the VM. Formats accept only %Y %m %d %H %M %S %% (the
 * reference's portable subset); times are seconds since 1970-01-01 UTC.
 * Messages are complete ("clock_format: year 10000 is out of range") and
 * raised by the caller as E499. */
#ifndef GENO_LIB_TIMEFMT_H
#define GENO_LIB_TIMEFMT_H

#include "../base/buf.h"

/* Days since 1970-01-01 of a proleptic Gregorian date, and back. */
int64_t lib_days_from_civil(int64_t y, int m, int d);
void lib_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* Check fmt for builtin fn ("clock_format", "clock_parse"). */
bool lib_clock_check_format(const char *fn, const char *fmt, size_t n, Buf *err);

/* clock_format(ts, fmt), as the reference checks it: a negative ts, then
 * the format, then the conversion (NaN, time_t range, year range). The
 * text goes to out. */
bool lib_clock_format(double ts, const char *fmt, size_t n, Buf *out, Buf *err);

/* clock_parse(text, fmt): 1 with the time in *ts, 0 when the text does not
 * match or is not a valid date (the builtin's None), -1 on an error
 * (an invalid format; message in err). */
int lib_clock_parse(const char *text, size_t tn, const char *fmt, size_t n, double *ts, Buf *err);

#endif
