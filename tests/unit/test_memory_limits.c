/* Running out of memory is E504 and ends the run, in both modes: a program
 * cannot catch it (it once caught "out of memory in toml_parse" or a host
 * callback's too-large result as E499 and went on), and a tiny
 * memory_bytes in an isolated run is the VM's E504, not a child that
 * aborts in libc (E500). */
#include "unit.h"

static geno_result *run_mode(const char *src, geno_config *cfg, bool isolated) {
  geno_result *r = isolated ? geno_run_isolated(src, strlen(src), "mem.geno", cfg)
                            : geno_run(src, strlen(src), "mem.geno", cfg);
  assert_non_null(r);
  return r;
}

static void test_tiny_memory_budget(void **state) {
  (void)state;
  static const uint64_t budgets[] = {1, 4096};
  const char *nothing = "func main() -> Int\n    return 1\nend func\n";
  const char *allocates =
      "func main() -> Int\n"
      "    var xs: List[String] = []\n"
      "    var i: Int = 0\n"
      "    while i < 1000 do\n"
      "        xs = append(xs, repeat_string(\"x\", 100))\n"
      "        i = i + 1\n"
      "    end while\n"
      "    return length(xs)\n"
      "end func\n";
  for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
    bool ok_in_process = false;
    for (int iso = 0; iso < 2; iso++) {
      geno_config cfg;
      geno_config_init(&cfg);
      cfg.memory_bytes = budgets[b];
      cfg.timeout_s = 60; /* a loaded machine must not turn E504 into E501 */
      /* a program that needs no heap: the same answer in both modes */
      geno_result *r = run_mode(nothing, &cfg, iso);
      if (!iso) ok_in_process = geno_result_ok(r);
      else if (geno_result_ok(r) != ok_in_process)
        fail_msg("memory_bytes %llu: in-process ok=%d, isolated %s %s", (unsigned long long)budgets[b],
                 ok_in_process, unit_codes(r), unit_message(r));
      if (!geno_result_ok(r)) assert_string_equal(geno_result_diagnostic(r, 0)->code, "E504");
      geno_result_free(r);
      /* one that does: E504, never a crash */
      r = run_mode(allocates, &cfg, iso);
      if (geno_result_ok(r) || strcmp(geno_result_diagnostic(r, 0)->code, "E504") != 0)
        fail_msg("memory_bytes %llu (%s): %s %s", (unsigned long long)budgets[b], iso ? "isolated" : "in-process",
                 unit_codes(r), unit_message(r));
      geno_result_free(r);
    }
  }
}

/* A host callback whose result the run's memory cannot hold. */
static geno_value *huge_text(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  (void)name;
  (void)args;
  (void)nargs;
  (void)ud;
  size_t n = (size_t)24 << 20;
  char *s = malloc(n);
  if (!s) {
    *error = strdup("host out of memory");
    return NULL;
  }
  memset(s, 'a', n);
  geno_value *v = geno_value_new_string(s, n);
  free(s);
  return v;
}

static void test_callback_result_too_large_is_uncatchable(void **state) {
  (void)state;
  const char *src =
      "func main() -> Int\n"
      "    var caught: Int = 0\n"
      "    var i: Int = 0\n"
      "    while i < 5 do\n"
      "        try\n"
      "            let s = fs_read_text(\"big.txt\")\n"
      "        catch e: String\n"
      "            caught = caught + 1\n"
      "        end try\n"
      "        i = i + 1\n"
      "    end while\n"
      "    return caught\n"
      "end func\n";
  for (int iso = 0; iso < 2; iso++) {
    geno_callback cb = {"fs_read_text", huge_text, NULL};
    geno_config cfg;
    geno_config_init(&cfg);
    cfg.capabilities_set = true;
    cfg.capabilities = GENO_CAP_FS;
    cfg.callbacks = &cb;
    cfg.ncallbacks = 1;
    cfg.memory_bytes = 8u << 20;
    cfg.timeout_s = 60;
    geno_result *r = run_mode(src, &cfg, iso);
    if (geno_result_ok(r) || strcmp(geno_result_diagnostic(r, 0)->code, "E504") != 0)
      fail_msg("%s: %s %s (value %s)", iso ? "isolated" : "in-process", unit_codes(r), unit_message(r),
               geno_result_value_json(r));
    geno_result_free(r);
  }
}

/* The callback's result over a limit of the run, refused before it is
 * sent: a 48 MiB String under max_collection_size 1000 or memory_bytes
 * 8 MiB. The isolated run once encoded it and sent it to the child,
 * which could not even receive it within its address space (8 MiB of
 * budget) and ended with a bare "Memory limit exceeded", its output
 * lost; with room it took seconds, long enough for a deadline to turn
 * E504 into E501. Now both modes say the same, at the call, and keep the
 * output; so does a List over the limit. */
static size_t callback_mib = 48;
static geno_value *mib_text(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  (void)name, (void)args, (void)nargs, (void)ud;
  size_t n = callback_mib << 20;
  char *s = malloc(n);
  if (!s) {
    *error = strdup("host out of memory");
    return NULL;
  }
  memset(s, 'a', n);
  geno_value *v = geno_value_new_string(s, n);
  free(s);
  return v;
}

static geno_value *long_listing(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                char **error) {
  (void)name, (void)args, (void)nargs, (void)ud, (void)error;
  geno_value *items[2000];
  for (int i = 0; i < 2000; i++) items[i] = geno_value_new_string("f", 1);
  return geno_value_new_ok(geno_value_new_list(items, 2000));
}

static void test_callback_result_over_limit_refused_before_sending(void **state) {
  (void)state;
  static const struct {
    const char *builtin, *call;
    geno_callback_fn fn;
    uint64_t max_collection, memory;
    const char *message; /* how the message starts */
  } cases[] = {
      {"fs_read_text", "fs_read_text(\"big.txt\")", mib_text, 1000, 0, "String size exceeds limit (50331648 > 1000)"},
      {"fs_read_text", "fs_read_text(\"big.txt\")", mib_text, 1000, 8u << 20,
       "String size exceeds limit (50331648 > 1000)"},
      {"fs_read_text", "fs_read_text(\"big.txt\")", mib_text, 100000000, 8u << 20, "Memory limit exceeded: "},
      {"fs_list_dir", "fs_list_dir(\".\")", long_listing, 1000, 0, "List size exceeds limit (2000 > 1000)"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char src[512];
    snprintf(src, sizeof src,
             "func main() -> Int\n"
             "    print(\"before\")\n"
             "    let r = %s\n"
             "    print(\"after\")\n"
             "    return 1\n"
             "end func\n",
             cases[c].call);
    for (int iso = 0; iso < 2; iso++) {
      geno_callback cb = {cases[c].builtin, cases[c].fn, NULL};
      geno_config cfg;
      geno_config_init(&cfg);
      cfg.capabilities_set = true;
      cfg.capabilities = GENO_CAP_FS | GENO_CAP_PRINT;
      cfg.callbacks = &cb;
      cfg.ncallbacks = 1;
      cfg.max_collection_size = cases[c].max_collection;
      cfg.memory_bytes = cases[c].memory;
      cfg.timeout_s = 60;
      geno_result *r = run_mode(src, &cfg, iso);
      size_t olen;
      const char *out = geno_result_output(r, &olen);
      if (strcmp(unit_codes(r), "E504") != 0 || strncmp(unit_message(r), cases[c].message, strlen(cases[c].message)))
        fail_msg("case %zu %s: %s %s", c, iso ? "isolated" : "in-process", unit_codes(r), unit_message(r));
      assert_int_equal(geno_result_diagnostic(r, 0)->line, 3);
      assert_string_equal(out, "before\n");
      geno_result_free(r);
    }
  }
}

/* Budgets of 1 to 10 MB, in both modes: E504 at the line that asked, and
 * a message that says what was asked (the request, not the bytes already
 * in use, which was all it said), by which operation, against which
 * budget. */
static void test_memory_message_names_request_operation_and_budget(void **state) {
  (void)state;
  static const uint64_t budgets[] = {1000000, 4000000, 10000000};
  const char *src =
      "func main() -> Int\n"
      "    let n = 2000000\n"
      "    let xs = range(0, n)\n"
      "    return length(xs)\n"
      "end func\n";
  for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++)
    for (int iso = 0; iso < 2; iso++) {
      geno_config cfg;
      geno_config_init(&cfg);
      cfg.memory_bytes = budgets[b];
      cfg.timeout_s = 60;
      geno_result *r = run_mode(src, &cfg, iso);
      if (geno_result_ok(r) || geno_result_diagnostic_count(r) != 1)
        fail_msg("%llu %s: %s", (unsigned long long)budgets[b], iso ? "isolated" : "in-process", unit_codes(r));
      const geno_diagnostic *d = geno_result_diagnostic(r, 0);
      assert_string_equal(d->code, "E504");
      assert_int_equal(d->line, 3); /* the range call */
      const char *asked = strstr(d->message, "range asked for ");
      if (!asked) fail_msg("%s", d->message);
      unsigned long long need = strtoull(asked + strlen("range asked for "), NULL, 10);
      assert_true(need >= 2000000ull * 8); /* two million elements: the request itself */
      char budget[64];
      snprintf(budget, sizeof budget, "memory_bytes) is %llu bytes", (unsigned long long)budgets[b]);
      if (!strstr(d->message, budget)) fail_msg("%s lacks %s", d->message, budget);
      geno_result_free(r);
    }
  /* Geno code's own allocation (no builtin): "the program" asked */
  const char *concat =
      "func main() -> Int\n"
      "    var s = \"x\"\n"
      "    for i: Int in range(0, 40) do\n"
      "        s = s + s\n"
      "    end for\n"
      "    return length(s)\n"
      "end func\n";
  for (int iso = 0; iso < 2; iso++) {
    geno_config cfg;
    geno_config_init(&cfg);
    cfg.memory_bytes = 2000000;
    cfg.timeout_s = 60;
    geno_result *r = run_mode(concat, &cfg, iso);
    assert_string_equal(unit_codes(r), "E504");
    assert_int_equal(geno_result_diagnostic(r, 0)->line, 4);
    if (!strstr(unit_message(r), "the program asked for ")) fail_msg("%s", unit_message(r));
    geno_result_free(r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tiny_memory_budget),
      cmocka_unit_test(test_callback_result_too_large_is_uncatchable),
      cmocka_unit_test(test_memory_message_names_request_operation_and_budget),
      cmocka_unit_test(test_callback_result_over_limit_refused_before_sending),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
