/* Unit tests: geno_value construction, inspection, ownership and copy
 * (runtime/hostvalue.c). Leak-freedom of the ownership rules is checked by
 * running this suite under ASan/LSan (make asan). */
#include "unit.h"

static void scalars(void **state) {
  (void)state;
  geno_value *u = geno_value_new_unit();
  assert_int_equal(geno_value_type(u), GENO_UNIT);
  geno_value *t = geno_value_new_bool(true);
  assert_int_equal(geno_value_type(t), GENO_BOOL);
  assert_true(geno_value_bool(t));
  geno_value *f = geno_value_new_float(-2.5);
  assert_true(geno_value_float(f) == -2.5);
  geno_value *i = geno_value_new_int(INT64_MIN);
  int64_t out = 0;
  assert_true(geno_value_int(i, &out));
  assert_true(out == INT64_MIN);
  assert_string_equal(geno_value_int_text(i), "-9223372036854775808");
  /* Accessors of another kind are neutral. */
  assert_false(geno_value_bool(i));
  assert_true(geno_value_float(i) == 0.0);
  assert_null(geno_value_string(i, NULL));
  assert_null(geno_value_int_text(f));
  assert_false(geno_value_int(f, &out));
  geno_value_free(u);
  geno_value_free(t);
  geno_value_free(f);
  geno_value_free(i);
}

static void null_is_neutral(void **state) {
  (void)state;
  int64_t out = 7;
  size_t len = 9;
  assert_int_equal(geno_value_type(NULL), GENO_UNIT);
  assert_false(geno_value_int(NULL, &out));
  assert_int_equal(out, 7);
  assert_null(geno_value_string(NULL, &len));
  assert_int_equal(len, 0);
  assert_int_equal(geno_value_count(NULL), 0);
  assert_null(geno_value_item(NULL, 0));
  assert_null(geno_value_key(NULL, 0));
  assert_null(geno_value_name(NULL));
  assert_null(geno_value_field_name(NULL, 0));
  assert_null(geno_value_container(NULL));
  assert_null(geno_value_copy(NULL));
  geno_value_free(NULL);
}

static void big_int_text(void **state) {
  (void)state;
  const char *digits = "-123456789012345678901234567890";
  geno_value *v = geno_value_new_int_text(digits);
  assert_non_null(v);
  int64_t out = 0;
  assert_false(geno_value_int(v, &out)); /* more than 64 bits */
  assert_string_equal(geno_value_int_text(v), digits);
  geno_value_free(v);
  const char *bad[] = {"", "-", "+5", "12a", " 1", "1 ", "0x10", "1.0", "--1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    if (geno_value_new_int_text(bad[i])) fail_msg("'%s' accepted as an Int", bad[i]);
  assert_null(geno_value_new_int_text(NULL));
}

static void strings_must_be_valid_utf8(void **state) {
  (void)state;
  size_t len = 0;
  geno_value *s = geno_value_new_string("h\xc3\xa9llo", 6);
  assert_non_null(s);
  assert_memory_equal(geno_value_string(s, &len), "h\xc3\xa9llo", 6);
  assert_int_equal(len, 6);
  geno_value_free(s);
  geno_value *empty = geno_value_new_string(NULL, 0);
  assert_non_null(empty);
  assert_string_equal(geno_value_string(empty, &len), "");
  geno_value_free(empty);
  /* NUL is a character: kept, with the length */
  geno_value *nul = geno_value_new_string("a\0b", 3);
  assert_non_null(nul);
  assert_memory_equal(geno_value_string(nul, &len), "a\0b", 3);
  assert_int_equal(len, 3);
  geno_value_free(nul);
  /* invalid byte, overlong '/', a surrogate, > U+10FFFF, truncated */
  const char *bad[] = {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"};
  const size_t lens[] = {1, 2, 3, 4, 2};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    if (geno_value_new_string(bad[i], lens[i])) fail_msg("bad string %zu accepted", i);
  assert_null(geno_value_new_string(NULL, 3));
}

static void containers_take_ownership(void **state) {
  (void)state;
  geno_value *items[3] = {geno_value_new_int(1), geno_value_new_string("two", 3), geno_value_new_unit()};
  geno_value *list = geno_value_new_list(items, 3);
  assert_non_null(list);
  assert_int_equal(geno_value_type(list), GENO_LIST);
  assert_string_equal(geno_value_container(list), "List");
  assert_int_equal(geno_value_count(list), 3);
  assert_ptr_equal(geno_value_item(list, 1), items[1]); /* taken, not copied */
  assert_null(geno_value_item(list, 3));
  geno_value_free(list); /* frees the items too */

  /* On failure the items are still taken (and freed): no leak, no double
   * ownership for the caller to get wrong. */
  geno_value *some[2] = {geno_value_new_int(5), NULL};
  assert_null(geno_value_new_tuple(some, 2));
  assert_null(geno_value_new_list(NULL, 2));

  geno_value *pair[2] = {geno_value_new_bool(false), geno_value_new_float(1.5)};
  geno_value *tuple = geno_value_new_tuple(pair, 2);
  assert_int_equal(geno_value_type(tuple), GENO_TUPLE);
  assert_null(geno_value_container(tuple));
  geno_value_free(tuple);
  geno_value *none = geno_value_new_list(NULL, 0);
  assert_int_equal(geno_value_count(none), 0);
  geno_value_free(none);
}

static void constructors(void **state) {
  (void)state;
  geno_value *some = geno_value_new_some(geno_value_new_int(3));
  assert_int_equal(geno_value_type(some), GENO_CTOR);
  assert_string_equal(geno_value_name(some), "Some");
  assert_int_equal(geno_value_count(some), 1);
  assert_string_equal(geno_value_field_name(some, 0), "value");
  int64_t out;
  assert_true(geno_value_int(geno_value_item(some, 0), &out));
  assert_int_equal(out, 3);
  geno_value_free(some);
  geno_value *err = geno_value_new_err(geno_value_new_string("boom", 4));
  assert_string_equal(geno_value_field_name(err, 0), "error");
  geno_value_free(err);
  geno_value *none = geno_value_new_none();
  assert_string_equal(geno_value_name(none), "None");
  assert_int_equal(geno_value_count(none), 0);
  geno_value_free(none);
  geno_value *ok = geno_value_new_ok(geno_value_new_unit());
  assert_string_equal(geno_value_name(ok), "Ok");
  geno_value_free(ok);

  const char *names[2] = {"exit_code", "stdout"};
  geno_value *f[2] = {geno_value_new_int(0), geno_value_new_string("hi\n", 3)};
  geno_value *pr = geno_value_new_ctor("ProcessResult", names, f, 2);
  assert_non_null(pr);
  assert_string_equal(geno_value_field_name(pr, 1), "stdout");
  geno_value_free(pr);

  /* A constructor name must start with a capital; fields are still taken. */
  geno_value *g[1] = {geno_value_new_int(1)};
  assert_null(geno_value_new_ctor("some", names, g, 1));
  geno_value *h[1] = {geno_value_new_int(1)};
  assert_null(geno_value_new_ctor("Some", NULL, h, 1)); /* fields without names */
  assert_null(geno_value_new_ctor(NULL, NULL, NULL, 0));
  /* A NULL inner value makes the wrapper fail instead of holding a hole. */
  assert_null(geno_value_new_some(NULL));
}

static void copy_is_deep_and_independent(void **state) {
  (void)state;
  const char *names[1] = {"value"};
  geno_value *inner[2] = {geno_value_new_string("x", 1), geno_value_new_int_text("99999999999999999999")};
  geno_value *fields[1] = {geno_value_new_list(inner, 2)};
  geno_value *orig = geno_value_new_ctor("Some", names, fields, 1);
  geno_value *copy = geno_value_copy(orig);
  assert_non_null(copy);
  assert_ptr_not_equal(geno_value_item(copy, 0), geno_value_item(orig, 0));
  geno_value_free(orig); /* the copy must not share anything */
  assert_string_equal(geno_value_name(copy), "Some");
  assert_string_equal(geno_value_field_name(copy, 0), "value");
  const geno_value *list = geno_value_item(copy, 0);
  assert_string_equal(geno_value_container(list), "List");
  size_t len;
  assert_string_equal(geno_value_string(geno_value_item(list, 0), &len), "x");
  assert_int_equal(len, 1);
  assert_string_equal(geno_value_int_text(geno_value_item(list, 1)), "99999999999999999999");
  geno_value_free(copy);
}

/* Host values nest at most GENO_VALUE_MAX_DEPTH levels: a deeper one
 * cannot be built (a host's million-deep list used to crash
 * geno_value_free by recursion). */
static void depth_is_bounded(void **state) {
  (void)state;
  geno_value *v = geno_value_new_unit();
  for (int i = 1; i < GENO_VALUE_MAX_DEPTH; i++) {
    v = geno_value_new_list(&v, 1);
    assert_non_null(v);
  }
  geno_value *copy = geno_value_copy(v);
  assert_non_null(copy);
  geno_value *one_more = geno_value_new_list(&copy, 1); /* takes copy */
  assert_null(one_more);
  geno_value *some = geno_value_new_some(v); /* takes v */
  assert_null(some);
  /* a host trying for a million levels gets NULL at the bound, no crash */
  geno_value *w = geno_value_new_int(1);
  int built = 1;
  for (int i = 0; i < 1000000 && w; i++) {
    w = geno_value_new_list(&w, 1);
    if (w) built++;
  }
  assert_null(w);
  assert_int_equal(built, GENO_VALUE_MAX_DEPTH);
}

/* A program value deeper than GENO_VALUE_MAX_DEPTH: as a callback argument
 * the call fails with E502 (it was reported as E504 "Memory limit
 * exceeded", and isolated runs had a lower bound than in-process ones);
 * as main's value it is past GENO_RESULT_MAX_DEPTH too (E502). Both modes
 * agree. */
static geno_value *print_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  (void)name, (void)args, (void)nargs, (void)ud, (void)error;
  return geno_value_new_unit();
}

static char *chain_program(int depth, bool print_it) {
  char *src = malloc(1024);
  snprintf(src, 1024,
           "type C = Link(next: C) | End\n"
           "func main() -> %s\n"
           "    var c: C = End\n"
           "    var i: Int = 0\n"
           "    while i < %d do\n"
           "        c = Link(c)\n"
           "        i = i + 1\n"
           "    end while\n"
           "    %s\n"
           "end func\n",
           print_it ? "Unit" : "C", depth - 1, print_it ? "print(c)" : "return c");
  return src;
}

static void deep_values_at_the_boundary(void **state) {
  (void)state;
  geno_callback cb = {"print", print_cb, NULL};
  for (int iso = 0; iso < 2; iso++) {
    geno_config cfg;
    geno_config_init(&cfg);
    cfg.capabilities_set = true;
    cfg.capabilities = GENO_CAP_PRINT;
    cfg.callbacks = &cb;
    cfg.ncallbacks = 1;
    for (int depth = GENO_VALUE_MAX_DEPTH; depth <= GENO_VALUE_MAX_DEPTH + 1; depth++) {
      char *src = chain_program(depth, true);
      geno_result *r = iso ? geno_run_isolated(src, strlen(src), "d.geno", &cfg) : geno_run(src, strlen(src), "d.geno", &cfg);
      if (depth <= GENO_VALUE_MAX_DEPTH) {
        assert_true(geno_result_ok(r));
      } else {
        assert_false(geno_result_ok(r));
        assert_string_equal(geno_result_diagnostic(r, 0)->code, "E502");
        assert_non_null(strstr(geno_result_diagnostic(r, 0)->message, "pass to the host callback 'print'"));
      }
      geno_result_free(r);
      free(src);
      src = chain_program(depth, false);
      r = iso ? geno_run_isolated(src, strlen(src), "d.geno", &cfg) : geno_run(src, strlen(src), "d.geno", &cfg);
      /* as main's value it is also past GENO_RESULT_MAX_DEPTH (RunResult
       * JSON that recursive parsers can read): E502, no value */
      assert_false(geno_result_ok(r));
      assert_string_equal(geno_result_diagnostic(r, 0)->code, "E502");
      assert_non_null(strstr(geno_result_diagnostic(r, 0)->message, "nested too deeply to return"));
      assert_null(geno_result_value(r));
      geno_result_free(r);
      free(src);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(scalars),
      cmocka_unit_test(null_is_neutral),
      cmocka_unit_test(big_int_text),
      cmocka_unit_test(strings_must_be_valid_utf8),
      cmocka_unit_test(containers_take_ownership),
      cmocka_unit_test(constructors),
      cmocka_unit_test(copy_is_deep_and_independent),
      cmocka_unit_test(depth_is_bounded),
      cmocka_unit_test(deep_values_at_the_boundary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
