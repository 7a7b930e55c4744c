/* A host callback named after a gated builtin the library implements itself
 * (print, clock_now ...) replaces that builtin, in-process and isolated;
 * the capability is still required first. */
#include "unit.h"

static int calls;

static geno_value *capture_print(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                 char **error) {
  (void)error;
  calls++;
  assert_string_equal(name, "print");
  assert_int_equal(nargs, 1);
  char *text = geno_value_to_string(args[0]);
  strcat((char *)ud, text);
  strcat((char *)ud, ";");
  geno_free(text);
  return geno_value_new_unit();
}

static const char prog[] =
    "func main() -> Unit\n"
    "    print(\"hello\")\n"
    "    print([1, 2])\n"
    "end func\n";

static void run_with(bool isolated, bool granted) {
  char captured[256] = "";
  calls = 0;
  geno_callback cb = {"print", capture_print, captured};
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = granted ? GENO_CAP_PRINT : 0;
  cfg.callbacks = &cb;
  cfg.ncallbacks = 1;
  geno_result *r = isolated ? geno_run_isolated(prog, strlen(prog), "override.geno", &cfg)
                            : geno_run(prog, strlen(prog), "override.geno", &cfg);
  assert_non_null(r);
  size_t n;
  const char *out = geno_result_output(r, &n);
  if (granted) {
    assert_true(geno_result_ok(r));
    assert_int_equal(n, 0); /* the host took the output */
    /* Isolated: the child forwards each call to this process. */
    assert_int_equal(calls, 2);
    assert_string_equal(captured, "hello;[1, 2];");
  } else {
    assert_false(geno_result_ok(r));
    assert_string_equal(unit_codes(r), "E412");
    assert_int_equal(calls, 0);
    (void)out;
  }
  geno_result_free(r);
}

static void override_in_process(void **state) {
  (void)state;
  run_with(false, true);
}

static void override_needs_the_capability(void **state) {
  (void)state;
  run_with(false, false);
  run_with(true, false);
}

static void override_isolated(void **state) {
  (void)state;
  run_with(true, true);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(override_in_process),
      cmocka_unit_test(override_needs_the_capability),
      cmocka_unit_test(override_isolated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
