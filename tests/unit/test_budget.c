/* Unit tests: work and memory that used to escape a run's limits
 * (docs/SECURITY.md, "What in-process execution promises"), in-process
 * and isolated where both apply:
 * - main's value holding 60 references to one 9 MB String is encoded
 *   within memory_bytes (E504), not as gigabytes of copies;
 * - 100 references passed to a host callback fail E504 before the
 *   callback runs;
 * - a module loader serving an endless chain of modules is stopped at the
 *   module limit, quickly;
 * - 80 modules importing in a diamond 40 levels deep are checked in
 *   milliseconds (the cycle search visits each module once);
 * - `1 << 300000000` returned under a huge max_integer_bits is refused
 *   at once instead of converted to text first (15 s of CPU; minutes for
 *   `1 << 4000000000`). */
#include <sys/resource.h>

#include "unit.h"

/* CPU seconds this process has used (user + system). The bounds below are
 * on CPU time, not wall time: what they catch (exponential or needless
 * work) costs CPU, and a loaded machine stretches the wall clock, not the
 * CPU time a computation takes. In-process runs only. */
static double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
         (double)ru.ru_stime.tv_usec / 1e6;
}

/* The process's peak resident set so far, in KiB (VmHWM). */
static long peak_rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  fclose(f);
  return kib;
}

static bool has_code(const geno_result *r, const char *code) {
  for (size_t i = 0; i < geno_result_diagnostic_count(r); i++)
    if (strcmp(geno_result_diagnostic(r, i)->code, code) == 0) return true;
  return false;
}

static geno_result *run_mode(int isolated, const char *src, const geno_config *cfg) {
  return isolated ? geno_run_isolated(src, strlen(src), "t.geno", cfg) : geno_run(src, strlen(src), "t.geno", cfg);
}

static void test_shared_result_is_bounded(void **state) {
  (void)state;
  const char *src =
      "func main() -> List[String]\n"
      "    let s = repeat_string(\"x\", 9000000)\n"
      "    var out: List[String] = []\n"
      "    var i = 0\n"
      "    while i < 60 do\n"
      "        out = append(out, s)\n"
      "        i = i + 1\n"
      "    end while\n"
      "    return out\n"
      "end func\n";
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.timeout_s = 0; /* the memory budget must stop it, however loaded the machine */
  for (int isolated = 0; isolated < 2; isolated++) {
    long before = peak_rss_kib();
    geno_result *r = run_mode(isolated, src, &cfg);
    long after = peak_rss_kib();
    assert_non_null(r);
    assert_false(geno_result_ok(r));
    if (!has_code(r, "E504")) fail_msg("expected E504, got %s", unit_codes(r));
    /* 540 MB of copies were the old behaviour (3.2 GB at peak); the
     * budget is 256 MiB, plus the allocator's and the test's own margin */
    if (!isolated && before > 0 && after - before > 600L * 1024)
      fail_msg("peak RSS grew by %ld MiB", (after - before) / 1024);
    geno_result_free(r);
  }
}

static int callback_calls;

static geno_value *count_call(const char *name, const geno_value *const *args, size_t nargs, void *userdata,
                              char **error) {
  (void)name;
  (void)args;
  (void)nargs;
  (void)userdata;
  (void)error;
  callback_calls++;
  return geno_value_new_unit();
}

static void test_shared_callback_arguments_are_bounded(void **state) {
  (void)state;
  /* a List[String] of 100 references to one 9 MB String: 900 MB as
   * host strings */
  const char *src_list =
      "func main() -> Int\n"
      "    let s = repeat_string(\"x\", 9000000)\n"
      "    var parts: List[String] = []\n"
      "    var i = 0\n"
      "    while i < 100 do\n"
      "        parts = append(parts, s)\n"
      "        i = i + 1\n"
      "    end while\n"
      "    let r = spawn(\"/bin/true\", parts)\n"
      "    return 0\n"
      "end func\n";
  geno_callback cb = {"spawn", count_call, NULL};
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.timeout_s = 0; /* the memory budget must stop it, however loaded the machine */
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PROCESS;
  cfg.callbacks = &cb;
  cfg.ncallbacks = 1;
  for (int isolated = 0; isolated < 2; isolated++) {
    callback_calls = 0;
    long before = peak_rss_kib();
    geno_result *r = run_mode(isolated, src_list, &cfg);
    long after = peak_rss_kib();
    assert_non_null(r);
    if (!has_code(r, "E504")) fail_msg("expected E504, got %s", unit_codes(r));
    assert_int_equal(callback_calls, 0);
    if (!isolated && before > 0 && after - before > 600L * 1024)
      fail_msg("peak RSS grew by %ld MiB", (after - before) / 1024);
    geno_result_free(r);
  }
}

/* Module N imports module N+1, forever. */
static int chain_calls;

static bool endless_loader(void *ud, const char *name, char **source, size_t *length, char **filename,
                           char **error) {
  (void)ud;
  (void)filename;
  (void)error;
  chain_calls++;
  unsigned n = 0;
  if (sscanf(name, "M%u", &n) != 1) return false;
  char buf[128];
  snprintf(buf, sizeof buf, "import M%u\nexport func f%u() -> Int\n    return 1\nend func\n", n + 1, n);
  *source = strdup(buf);
  *length = strlen(buf);
  return *source != NULL;
}

static void test_endless_module_chain_stops(void **state) {
  (void)state;
  const char *src = "import M0\nfunc main() -> Int\n    return 0\nend func\n";
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.module_loader = endless_loader;
  cfg.timeout_s = 0; /* only the module limit may stop it (a deadline hit on a loaded machine is not E204) */
  for (int mode = 0; mode < 3; mode++) {
    chain_calls = 0;
    geno_result *r = mode == 2 ? geno_check(src, strlen(src), "t.geno", &cfg) : run_mode(mode, src, &cfg);
    assert_non_null(r);
    assert_false(geno_result_ok(r));
    if (!has_code(r, "E204")) fail_msg("expected E204, got %s", unit_codes(r));
    bool said = false;
    for (size_t i = 0; i < geno_result_diagnostic_count(r); i++)
      said = said || strstr(geno_result_diagnostic(r, i)->message, "Too many modules") != NULL;
    assert_true(said);
    /* the old front end asked for ~94,000 modules (44 s): counted, not timed */
    assert_true(chain_calls <= 300);
    geno_result_free(r);
  }
}

/* D<k>a and D<k>b both import D<k+1>a and D<k+1>b: 2^40 paths. */
static bool diamond_loader(void *ud, const char *name, char **source, size_t *length, char **filename,
                           char **error) {
  (void)ud;
  (void)filename;
  (void)error;
  unsigned k = 0;
  char side = 0;
  if (sscanf(name, "D%u%c", &k, &side) != 2) return false;
  char buf[256];
  if (k >= 39)
    snprintf(buf, sizeof buf, "export type T%u%c = T%u%c(x: Int)\n", k, side, k, side);
  else
    snprintf(buf, sizeof buf, "import D%ua\nimport D%ub\nexport type T%u%c = T%u%c(x: Int)\n", k + 1, k + 1, k,
             side, k, side);
  *source = strdup(buf);
  *length = strlen(buf);
  return *source != NULL;
}

static void test_diamond_imports_are_linear(void **state) {
  (void)state;
  const char *src = "import D0a\nimport D0b\nfunc main() -> Int\n    return 0\nend func\n";
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.module_loader = diamond_loader;
  cfg.timeout_s = 0;
  double t0 = cpu_s();
  geno_result *r = geno_check(src, strlen(src), "t.geno", &cfg);
  double took = cpu_s() - t0;
  assert_non_null(r);
  if (!geno_result_ok(r)) fail_msg("diamond failed: %s", unit_codes(r));
  /* the old cycle search walked 2^40 paths (it never ended); a few
   * milliseconds of CPU now, seconds under ASan */
  if (took >= 20) fail_msg("%.1f CPU seconds", took);
  geno_result_free(r);
}

static void test_huge_int_result_is_refused_in_time(void **state) {
  (void)state;
  const char *src = "func main() -> Int\n    return 1 << 300000000\nend func\n";
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.max_integer_bits = 400000000u;
  cfg.timeout_s = 0; /* a deadline would end it too; the refusal must come first */
  double t0 = cpu_s();
  geno_result *r = geno_run(src, strlen(src), "t.geno", &cfg);
  double took = cpu_s() - t0;
  assert_non_null(r);
  assert_false(geno_result_ok(r));
  if (!strstr(unit_message(r), "too large to convert")) fail_msg("%s %s", unit_codes(r), unit_message(r));
  /* 90 million digits were converted to text just to be refused: 15 CPU
   * seconds; well under one now (GMP is not instrumented under ASan) */
  if (took >= 5) fail_msg("took %.1f CPU seconds", took);
  geno_result_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shared_result_is_bounded),
      cmocka_unit_test(test_shared_callback_arguments_are_bounded),
      cmocka_unit_test(test_endless_module_chain_stops),
      cmocka_unit_test(test_diamond_imports_are_linear),
      cmocka_unit_test(test_huge_int_result_is_refused_in_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
