/* A host callback's result must have the return type of the builtin it
 * stands for: the checker typed the program against that signature, so a
 * value of another type is refused at the call (E499, naming the
 * callback and the mismatch) instead of reaching builtins that trust the
 * type. In-process and isolated alike. */
#include "unit.h"

#include "runtime/hostconv.h"

typedef enum { R_INT, R_UNIT, R_LIST_INT, R_BOGUS_CTOR, R_FLOAT, R_STRING, R_NOTHING } Reply;
static Reply reply;

static geno_value *fs_read_text_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                   char **error) {
  (void)name, (void)args, (void)nargs, (void)ud, (void)error;
  switch (reply) {
    case R_INT: return geno_value_new_int(5);
    case R_UNIT: return geno_value_new_unit();
    case R_LIST_INT: {
      geno_value *it[1] = {geno_value_new_int(1)};
      return geno_value_new_list(it, 1);
    }
    case R_BOGUS_CTOR: return geno_value_new_ctor("Bogus", NULL, NULL, 0);
    case R_FLOAT: return geno_value_new_float(1.5);
    case R_STRING: return geno_value_new_string("abc", 3);
    case R_NOTHING: return NULL; /* and no error text */
  }
  return NULL;
}

/* Run src with print and fs granted and `cb` as fs_read_text. */
static geno_result *run_fs(bool isolated, const char *src, geno_callback_fn cb) {
  geno_callback c = {"fs_read_text", cb, NULL};
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT | GENO_CAP_FS;
  cfg.callbacks = &c;
  cfg.ncallbacks = 1;
  return isolated ? geno_run_isolated(src, strlen(src), "cb.geno", &cfg) : geno_run(src, strlen(src), "cb.geno", &cfg);
}

static geno_result *run_read(bool isolated, const char *use) {
  char src[512];
  snprintf(src, sizeof src,
           "func main() -> Unit\n"
           "    print(\"before\")\n"
           "    let t: String = fs_read_text(\"x\")\n"
           "    print(%s)\n"
           "end func\n",
           use);
  return run_fs(isolated, src, fs_read_text_cb);
}

static void wrong_type_refused(bool isolated) {
  static const Reply bad[] = {R_INT, R_UNIT, R_LIST_INT, R_BOGUS_CTOR, R_FLOAT};
  static const char *const found[] = {"found Int where String", "found Unit where String",
                                      "found List where String", "found Bogus where String",
                                      "found Float where String"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    reply = bad[k];
    geno_result *r = run_read(isolated, "to_upper(t)");
    assert_non_null(r);
    assert_false(geno_result_ok(r));
    assert_string_equal(unit_codes(r), "E499");
    const geno_diagnostic *d = geno_result_diagnostic(r, 0);
    assert_non_null(strstr(d->message, "'fs_read_text'"));
    assert_non_null(strstr(d->message, found[k]));
    assert_int_equal(d->line, 3); /* at the call */
    assert_string_equal(geno_result_output(r, NULL), "before\n");
    geno_result_free(r);
  }
  /* NULL without an error text: the same message in both modes */
  reply = R_NOTHING;
  geno_result *n = run_read(isolated, "t");
  assert_string_equal(unit_codes(n), "E499");
  assert_string_equal(geno_result_diagnostic(n, 0)->message,
                      "host callback 'fs_read_text' returned no value and no error");
  geno_result_free(n);
  reply = R_STRING;
  geno_result *r = run_read(isolated, "to_upper(t)");
  assert_true(geno_result_ok(r));
  assert_string_equal(geno_result_output(r, NULL), "before\nABC\n");
  geno_result_free(r);
}

static void wrong_type_in_process(void **state) {
  (void)state;
  wrong_type_refused(false);
}

static void wrong_type_isolated(void **state) {
  (void)state;
  wrong_type_refused(true);
}

/* An error text that is not valid UTF-8 reaches the program with each bad
 * byte replaced by U+FFFD, in both modes (it used to become a String
 * holding invalid UTF-8, which string builtins read past). */
static geno_value *bad_error_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                char **error) {
  (void)name, (void)args, (void)nargs, (void)ud;
  *error = strdup("bad \xff utf8 \xe2\x82");
  return NULL;
}

static void error_text_made_valid(void **state) {
  (void)state;
  static const char src[] =
      "func main() -> Unit\n"
      "    try\n"
      "        let s: String = fs_read_text(\"x\")\n"
      "    catch err: String\n"
      "        print(length(err))\n"
      "        print(to_chars(err))\n"
      "    end try\n"
      "end func\n";
  for (int iso = 0; iso < 2; iso++) {
    geno_result *r = run_fs(iso == 1, src, bad_error_cb);
    assert_true(geno_result_ok(r));
    assert_string_equal(geno_result_output(r, NULL),
                        "13\n[\"b\", \"a\", \"d\", \" \", \"\xef\xbf\xbd\", \" \", \"u\", \"t\", \"f\", \"8\", \" \", "
                        "\"\xef\xbf\xbd\", \"\xef\xbf\xbd\"]\n");
    geno_result_free(r);
  }
}

/* The matcher itself, on the return types builtins declare. */
static void conforms_nested_types(void **state) {
  (void)state;
  char why[200];
  geno_value *s = geno_value_new_string("a", 1);
  geno_value *i = geno_value_new_int(2);
  /* Ok("a") is a Result[String, String]; Ok(2) is not */
  const char *fn[] = {"value"};
  geno_value *ok_s = geno_value_new_ctor("Ok", fn, (geno_value *[]){geno_value_copy(s)}, 1);
  geno_value *ok_i = geno_value_new_ctor("Ok", fn, (geno_value *[]){geno_value_copy(i)}, 1);
  assert_true(rt_host_result_conforms("(p: String) -> Result[String, String]", ok_s, why, sizeof why));
  assert_false(rt_host_result_conforms("(p: String) -> Result[String, String]", ok_i, why, sizeof why));
  assert_non_null(strstr(why, "found Int where String"));
  /* Some(2) is an Option[Int], not an Option[Float] */
  geno_value *some_i = geno_value_new_ctor("Some", fn, (geno_value *[]){geno_value_copy(i)}, 1);
  assert_true(rt_host_result_conforms("() -> Option[Int]", some_i, why, sizeof why));
  assert_false(rt_host_result_conforms("() -> Option[Float]", some_i, why, sizeof why));
  geno_value *none = geno_value_new_ctor("None", NULL, NULL, 0);
  assert_true(rt_host_result_conforms("() -> Option[Float]", none, why, sizeof why));
  /* List[String] with one Int element */
  geno_value *l = geno_value_new_list((geno_value *[]){geno_value_copy(s), geno_value_copy(i)}, 2);
  assert_false(rt_host_result_conforms("() -> List[String]", l, why, sizeof why));
  /* a tuple inside a list: HttpResponse's headers */
  geno_value *hdr = geno_value_new_tuple((geno_value *[]){geno_value_copy(s), geno_value_copy(s)}, 2);
  const char *hf[] = {"status", "body", "headers"};
  geno_value *resp = geno_value_new_ctor(
      "HttpResponse", hf,
      (geno_value *[]){geno_value_new_int(200), geno_value_copy(s), geno_value_new_list((geno_value *[]){hdr}, 1)}, 3);
  assert_false(rt_host_result_conforms("() -> Result[HttpResponse, String]", resp, why, sizeof why));
  geno_value *ok_resp = geno_value_new_ctor("Ok", fn, (geno_value *[]){resp}, 1);
  assert_true(rt_host_result_conforms("() -> Result[HttpResponse, String]", ok_resp, why, sizeof why));
  assert_true(rt_host_result_conforms("() -> HttpResponse", geno_value_item(ok_resp, 0), why, sizeof why));
  /* an unbound type variable takes anything */
  assert_true(rt_host_result_conforms("(x: T) -> T", l, why, sizeof why));
  geno_value *vals[] = {s, i, ok_s, ok_i, some_i, none, l, ok_resp};
  for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) geno_value_free(vals[k]);
}

/* A callback that stopped waiting because the run's deadline passed says
 * so in GENO_DEADLINE_PASSED's words: the run ends with E501, which no
 * try/catch can swallow, even when the VM's own clock (started later in an
 * isolated child) has not run out; the output so far is kept. */
static geno_value *deadline_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                               char **error) {
  (void)name, (void)args, (void)nargs, (void)ud;
  *error = strdup("fs_read_text: " GENO_DEADLINE_PASSED " while waiting");
  return NULL;
}

static void deadline_error_is_e501(void **state) {
  (void)state;
  const char *src =
      "func main() -> Unit\n"
      "    print(\"before\")\n"
      "    try\n"
      "        print(fs_read_text(\"x\"))\n"
      "    catch e: String\n"
      "        print(\"caught \" + e)\n"
      "    end try\n"
      "    print(\"after\")\n"
      "end func\n";
  for (int iso = 0; iso < 2; iso++) {
    geno_result *r = run_fs(iso, src, deadline_cb);
    assert_non_null(r);
    assert_false(geno_result_ok(r));
    if (strcmp(unit_codes(r), "E501") != 0) fail_msg("%s: %s %s", iso ? "isolated" : "in-process", unit_codes(r), unit_message(r));
    assert_non_null(strstr(geno_result_diagnostic(r, 0)->message, "Execution timed out after 5.0 seconds"));
    assert_string_equal(geno_result_output(r, NULL), "before\n");
    geno_result_free(r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(wrong_type_in_process),
      cmocka_unit_test(wrong_type_isolated),
      cmocka_unit_test(conforms_nested_types),
      cmocka_unit_test(error_text_made_valid),
      cmocka_unit_test(deadline_error_is_e501),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
