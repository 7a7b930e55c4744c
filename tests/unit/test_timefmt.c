/* Unit tests: UTC calendar arithmetic and the clock builtins' format and
 * parse (lib/timefmt.c). Expected values are the reference's on the same
 * inputs (a differential run over 80,000 random inputs agreed too). */
#include "unit.h"

#include <math.h>

#include "base/buf.h"
#include "lib/timefmt.h"

static void calendar_round_trips(void **state) {
  (void)state;
  assert_int_equal(lib_days_from_civil(1970, 1, 1), 0);
  assert_int_equal(lib_days_from_civil(1969, 12, 31), -1);
  assert_int_equal(lib_days_from_civil(2000, 3, 1), 11017);
  assert_int_equal(lib_days_from_civil(1, 1, 1), -719162);
  for (int64_t d = -800000; d <= 3000000; d += 97) {
    int64_t y;
    int m, day;
    lib_civil_from_days(d, &y, &m, &day);
    assert_int_equal(lib_days_from_civil(y, m, day), d);
    assert_true(m >= 1 && m <= 12 && day >= 1 && day <= 31);
  }
  int64_t y;
  int m, d;
  lib_civil_from_days(lib_days_from_civil(2024, 2, 29), &y, &m, &d);
  assert_int_equal(y, 2024);
  assert_int_equal(m, 2);
  assert_int_equal(d, 29);
}

static void expect_format(double ts, const char *fmt, const char *want) {
  Buf out = BUF_INIT, err = BUF_INIT;
  bool ok = lib_clock_format(ts, fmt, strlen(fmt), &out, &err);
  const char *got = ok ? (out.data ? out.data : "") : err.data;
  if (strcmp(got, want)) fail_msg("clock_format(%.17g, %s): got '%s', want '%s'", ts, fmt, got, want);
  buf_free(&out);
  buf_free(&err);
}

static void formatting(void **state) {
  (void)state;
  expect_format(0.0, "%Y-%m-%d %H:%M:%S", "1970-01-01 00:00:00");
  expect_format(1700000000.5, "%Y/%m/%d", "2023/11/14");
  expect_format(1700000000.5, "%H:%M:%S %% done", "22:13:20 % done");
  expect_format(0.9999995, "%S", "01"); /* rounds half-even to microseconds first */
  expect_format(0.9999994, "%S", "00");
  expect_format(86399.9999996, "%d %H:%M:%S", "02 00:00:00");
  expect_format(253402300799.0, "%Y-%m-%d", "9999-12-31");
  expect_format(951782400.0, "\xc3\xa9%d", "\xc3\xa9" "29"); /* 2000-02-29 */
  expect_format(-1.0, "%j", "clock_format: negative timestamps (pre-1970) are not supported");
  expect_format(0.0, "%j", "clock_format: unsupported format directive '%j' (supported: %Y %m %d %H %M %S %%)");
  expect_format(0.0, "%\xc3\xa9", "clock_format: unsupported format directive '%\xc3\xa9' (supported: %Y %m %d %H %M %S %%)");
  expect_format(0.0, "%Y%", "clock_format: trailing '%' with no directive in format string");
  expect_format(253402300800.0, "%Y", "clock_format: year 10000 is out of range");
  expect_format(1e13, "%Y", "clock_format: year 318857 is out of range");
  expect_format(1e17, "%Y", "clock_format: [Errno 75] Value too large for defined data type");
  expect_format(9.3e18, "%Y", "clock_format: timestamp out of range for platform time_t");
  expect_format(INFINITY, "%Y", "clock_format: timestamp out of range for platform time_t");
  expect_format(NAN, "%Y", "clock_format: Invalid value NaN (not a number)");
}

static void expect_parse(const char *text, const char *fmt, int rc_want, double want, const char *err_want) {
  Buf err = BUF_INIT;
  double ts = -12345;
  int rc = lib_clock_parse(text, strlen(text), fmt, strlen(fmt), &ts, &err);
  if (rc != rc_want) fail_msg("clock_parse('%s', '%s'): rc %d, want %d (%s)", text, fmt, rc, rc_want, err.data);
  if (rc == 1 && ts != want) fail_msg("clock_parse('%s', '%s'): %.1f, want %.1f", text, fmt, ts, want);
  if (rc < 0 && strcmp(err.data, err_want)) fail_msg("clock_parse: '%s', want '%s'", err.data, err_want);
  buf_free(&err);
}

static void parsing(void **state) {
  (void)state;
  expect_parse("2024", "%Y", 1, 1704067200.0, NULL);
  expect_parse("\xd9\xa2\xd9\xa0\xd9\xa2\xd9\xa4", "%Y", 1, 1704067200.0, NULL); /* Arabic-Indic digits */
  expect_parse("12:30", "%H:%M", 1, 45000.0, NULL);
  expect_parse("1969-12-31", "%Y-%m-%d", 1, -86400.0, NULL);
  expect_parse("2024-02-29", "%Y-%m-%d", 1, 1709164800.0, NULL);
  expect_parse("2024\n", "%Y", 1, 1704067200.0, NULL); /* Python's $ */
  expect_parse("a.b", "a.b", 1, 0.0, NULL);
  expect_parse("50%", "%S%%", 1, 50.0, NULL);
  expect_parse("2023-02-29", "%Y-%m-%d", 0, 0, NULL); /* not a leap year */
  expect_parse("2024-02-30", "%Y-%m-%d", 0, 0, NULL);
  expect_parse("0000", "%Y", 0, 0, NULL);
  expect_parse("2024\n\n", "%Y", 0, 0, NULL);
  expect_parse("24:00", "%H:%M", 0, 0, NULL);
  expect_parse("00:60", "%H:%M", 0, 0, NULL);
  expect_parse("00:00:60", "%H:%M:%S", 0, 0, NULL);
  expect_parse("axb", "a.b", 0, 0, NULL);
  expect_parse("202", "%Y", 0, 0, NULL);
  expect_parse("20245", "%Y", 0, 0, NULL);
  expect_parse("2024", "%j", -1, 0, "clock_parse: unsupported format directive '%j' (supported: %Y %m %d %H %M %S %%)");
  expect_parse("2024-2024", "%Y-%Y", -1, 0, "redefinition of group name 'Y' as group 2; was group 1 at position 19");
  expect_parse("01 01", "%d.%H %d", -1, 0, "redefinition of group name 'd' as group 3; was group 1 at position 33");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(calendar_round_trips),
      cmocka_unit_test(formatting),
      cmocka_unit_test(parsing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
