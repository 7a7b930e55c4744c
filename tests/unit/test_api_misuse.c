/* The C API under a careless host: every public entry point given NULL
 * refuses with an error (never a crash), and the ownership rules of
 * include/geno.h ("Ownership") cannot be broken silently: a value given
 * twice to a constructor, a value already inside another, a result's
 * value, or a callback's borrowed argument returned as its result is
 * refused or copied, never freed twice. Run under ASan (`make asan`) a
 * double free here is a failure. */
#include "unit.h"

/* ---- NULL everywhere ---- */

static void test_null_arguments(void **state) {
  (void)state;
  /* values */
  assert_null(geno_value_new_int_text(NULL));
  assert_null(geno_value_new_string(NULL, 3));
  assert_null(geno_value_new_list(NULL, 2));
  assert_null(geno_value_new_tuple(NULL, 1));
  assert_null(geno_value_new_ctor(NULL, NULL, NULL, 0));
  assert_null(geno_value_new_some(NULL));
  assert_null(geno_value_new_ok(NULL));
  assert_null(geno_value_new_err(NULL));
  assert_null(geno_value_copy(NULL));
  geno_value_free(NULL);
  assert_null(geno_value_to_string(NULL));
  assert_null(geno_value_to_json(NULL));
  assert_false(geno_value_int(NULL, NULL));
  geno_value *one = geno_value_new_int(1);
  assert_false(geno_value_int(one, NULL));
  geno_value_free(one);
  assert_null(geno_value_string(NULL, NULL));
  assert_false(geno_callback_name_valid(NULL));
  assert_int_equal(geno_capability_from_name(NULL), 0);
  assert_null(geno_capability_suggest(NULL));

  /* config */
  geno_config_init(NULL);
  /* a NULL configuration means the defaults everywhere: valid */
  assert_null(geno_config_validate(NULL));

  /* the front end and runs: a NULL source with a length is an error
   * result, never a read of address 0 */
  geno_result *r = geno_parse(NULL, 10, NULL, NULL);
  assert_non_null(r);
  assert_false(geno_result_ok(r));
  geno_result_free(r);
  r = geno_check(NULL, 10, NULL, NULL);
  assert_non_null(r);
  assert_false(geno_result_ok(r));
  geno_result_free(r);
  r = geno_run(NULL, 10, NULL, NULL);
  assert_non_null(r);
  assert_false(geno_result_ok(r));
  geno_result_free(r);
  r = geno_run_isolated(NULL, 10, NULL, NULL);
  assert_non_null(r);
  assert_false(geno_result_ok(r));
  geno_result_free(r);

  /* imports: nowhere to put the names */
  assert_int_equal(geno_source_imports("import A\n", 9, NULL), -1);
  char **names = (char **)1;
  assert_int_equal(geno_source_imports(NULL, 5, &names), -1);
  assert_null(names);
  geno_strings_free(NULL, 3);

  /* results */
  assert_false(geno_result_ok(NULL));
  assert_int_equal(geno_result_diagnostic_count(NULL), 0);
  assert_null(geno_result_diagnostic(NULL, 0));
  /* accessors answer a neutral value ("" or NULL) */
  const char *out = geno_result_output(NULL, NULL);
  assert_true(out == NULL || *out == '\0');
  assert_string_equal(geno_result_value_json(NULL), "null");
  assert_null(geno_result_value(NULL));
  assert_null(geno_result_value_text(NULL));
  (void)geno_result_timing(NULL);
  assert_null(geno_result_trace(NULL, 0, NULL, NULL, NULL));
  assert_int_equal(geno_result_steps(NULL), 0);
  assert_null(geno_result_to_json(NULL));
  geno_result_free(NULL);
  (void)geno_result_outcome(NULL);
  assert_null(geno_outcome_name((geno_outcome)12345));

  /* metrics */
  geno_metrics_free(NULL);
  geno_metrics_monitor(NULL, NULL, NULL);
  geno_metrics_record(NULL, NULL, NULL);
  geno_metrics_record_http(NULL, NULL, 200, NULL);
  geno_metrics_record_constrain(NULL, 1, 1.0);
  geno_metrics_record_benchmark(NULL, 1, 1, 1);
  assert_false(geno_metrics_set_startup_errors(NULL, NULL, 1));
  assert_null(geno_metrics_snapshot_json(NULL));
  assert_null(geno_metrics_health_json(NULL, NULL, 3));
  assert_null(geno_metrics_prometheus(NULL));
  geno_metrics *m = geno_metrics_new(NULL, NULL);
  if (m) {
    geno_metrics_record(m, NULL, NULL);
    geno_metrics_record_http(m, NULL, 200, NULL);
    assert_false(geno_metrics_set_startup_errors(m, NULL, 2));
    char *h = geno_metrics_health_json(m, NULL, 2);
    free(h);
    geno_metrics_free(m);
  }
}

/* ---- constructors given the same or an owned value ---- */

static void test_repeated_children(void **state) {
  (void)state;
  geno_value *x = geno_value_new_int(7);
  geno_value *items[2] = {x, x};
  assert_null(geno_value_new_list(items, 2)); /* refused; x freed once */
  x = geno_value_new_string("a", 1);
  geno_value *tuple_items[3] = {geno_value_new_int(1), x, x};
  assert_null(geno_value_new_tuple(tuple_items, 3));

  /* a value already inside another cannot go into a second one */
  geno_value *inner = geno_value_new_int(3);
  geno_value *first_items[1] = {inner};
  geno_value *first = geno_value_new_list(first_items, 1);
  assert_non_null(first);
  geno_value *second_items[1] = {inner};
  assert_null(geno_value_new_list(second_items, 1));
  assert_null(geno_value_new_some(inner));
  /* and freeing it on its own is ignored: its list owns it */
  geno_value_free(inner);
  assert_int_equal(geno_value_count(first), 1);
  int64_t got = 0;
  assert_true(geno_value_int(geno_value_item(first, 0), &got));
  assert_int_equal(got, 3);
  geno_value_free(first);

  /* a field given twice to a constructor */
  geno_value *f = geno_value_new_bool(true);
  const char *names[2] = {"a", "b"};
  geno_value *fields[2] = {f, f};
  assert_null(geno_value_new_ctor("P", names, fields, 2));
}

/* ---- a result's value belongs to the result ---- */

static void test_result_value_is_owned(void **state) {
  (void)state;
  const char *src = "func main() -> List[Int]\n    return [1, 2]\nend func\n";
  for (int iso = 0; iso < 2; iso++) {
    geno_result *r = iso ? geno_run_isolated(src, strlen(src), "t.geno", NULL) : geno_run(src, strlen(src), "t.geno", NULL);
    assert_true(geno_result_ok(r));
    geno_value *v = (geno_value *)geno_result_value(r);
    assert_non_null(v);
    geno_value_free(v); /* ignored: the result owns it */
    geno_value *items[1] = {v};
    assert_null(geno_value_new_list(items, 1)); /* refused, not taken */
    geno_value *copy = geno_value_copy(v);      /* a copy is the host's */
    geno_value *citems[1] = {copy};
    geno_value *wrapped = geno_value_new_list(citems, 1);
    assert_non_null(wrapped);
    geno_value_free(wrapped);
    assert_string_equal(geno_result_value_json(r), "[1, 2]");
    assert_int_equal(geno_value_count(geno_result_value(r)), 2);
    geno_result_free(r);
  }
}

/* ---- callbacks that return their borrowed argument ---- */

static geno_value *echo_arg(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  (void)name;
  (void)nargs;
  (void)ud;
  (void)error;
  return (geno_value *)args[0]; /* the borrowed argument itself */
}

static geno_value *free_arg_then_fail(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                      char **error) {
  (void)name;
  (void)nargs;
  (void)ud;
  geno_value_free((geno_value *)args[0]); /* not the callback's to free: ignored */
  *error = strdup("refused");
  return NULL;
}

static geno_value *wrap_arg(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  (void)name;
  (void)nargs;
  (void)ud;
  (void)error;
  /* putting a borrowed argument in a new value is refused: NULL, and the
   * host then reports nothing (no value and no error) */
  geno_value *items[1] = {(geno_value *)args[0]};
  return geno_value_new_list(items, 1);
}

static geno_result *run_with(geno_callback_fn fn, bool isolated, const char *src) {
  geno_callback cb = {"fs_read_text", fn, NULL};
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT | GENO_CAP_FS;
  cfg.callbacks = &cb;
  cfg.ncallbacks = 1;
  return isolated ? geno_run_isolated(src, strlen(src), "cb.geno", &cfg) : geno_run(src, strlen(src), "cb.geno", &cfg);
}

static void test_callback_returns_borrowed_argument(void **state) {
  (void)state;
  const char *src =
      "func main() -> String\n"
      "    return fs_read_text(\"notes.txt\") + \"!\"\n"
      "end func\n";
  const char *src_catch =
      "func main() -> String\n"
      "    try\n"
      "        return fs_read_text(\"notes.txt\")\n"
      "    catch e: String\n"
      "        return \"caught: \" + e\n"
      "    end try\n"
      "end func\n";
  for (int iso = 0; iso < 2; iso++) {
    geno_result *r = run_with(echo_arg, iso, src);
    if (!geno_result_ok(r)) fail_msg("%s: %s %s", iso ? "isolated" : "in-process", unit_codes(r), unit_message(r));
    assert_string_equal(geno_result_value_json(r), "\"notes.txt!\"");
    geno_result_free(r);

    r = run_with(free_arg_then_fail, iso, src_catch);
    assert_true(geno_result_ok(r));
    assert_string_equal(geno_result_value_json(r), "\"caught: refused\"");
    geno_result_free(r);

    r = run_with(wrap_arg, iso, src_catch);
    assert_true(geno_result_ok(r));
    assert_non_null(strstr(geno_result_value_json(r), "returned no value and no error"));
    geno_result_free(r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_repeated_children),
      cmocka_unit_test(test_result_value_is_owned),
      cmocka_unit_test(test_callback_returns_borrowed_argument),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
