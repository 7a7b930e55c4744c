/* Unit tests of geno_run (src/runtime/run.c, src/runtime/hostconv.c and the
 * VM behind them): results and their JSON, kept output, diagnostics with
 * call stacks, capabilities, host callbacks, test mode, the heap limit and
 * result values converted to geno_value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <geno.h>

static geno_result *run_cfg(const char *src, geno_config *cfg) {
  geno_result *r = geno_run(src, strlen(src), "t.geno", cfg);
  assert_non_null(r);
  return r;
}

static geno_result *run(const char *src) {
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT;
  return run_cfg(src, &cfg);
}

static void test_value_and_output(void **state) {
  (void)state;
  geno_result *r = run("func main() -> List[Int]\n    print(\"hi\")\n    return [1, 2]\nend func\n");
  assert_true(geno_result_ok(r));
  size_t n;
  assert_string_equal(geno_result_output(r, &n), "hi\n");
  assert_int_equal(n, 3);
  assert_string_equal(geno_result_value_json(r), "[1, 2]");
  assert_string_equal(geno_result_value_text(r), "[1, 2]");
  const geno_value *v = geno_result_value(r);
  assert_int_equal(geno_value_type(v), GENO_LIST);
  assert_string_equal(geno_value_container(v), "List");
  assert_int_equal(geno_value_count(v), 2);
  int64_t x = 0;
  assert_true(geno_value_int(geno_value_item(v, 1), &x));
  assert_int_equal(x, 2);
  assert_true(geno_result_steps(r) > 0);
  geno_result_free(r);
}

static void test_ctor_value(void **state) {
  (void)state;
  geno_result *r = run("type P = P(x: Int, name: String)\nfunc main() -> Option[P]\n"
                       "    return Some(P(3, \"a\"))\nend func\n");
  assert_true(geno_result_ok(r));
  assert_string_equal(geno_result_value_json(r),
                      "{\"_constructor\": \"Some\", \"fields\": {\"value\": {\"_constructor\": \"P\", "
                      "\"fields\": {\"x\": 3, \"name\": \"a\"}}}}");
  const geno_value *v = geno_result_value(r);
  assert_int_equal(geno_value_type(v), GENO_CTOR);
  assert_string_equal(geno_value_name(v), "Some");
  const geno_value *p = geno_value_item(v, 0);
  assert_string_equal(geno_value_field_name(p, 1), "name");
  size_t len;
  assert_string_equal(geno_value_string(geno_value_item(p, 1), &len), "a");
  char *text = geno_value_to_string(v);
  if (text) {
    assert_string_equal(text, "Some(value: P(x: 3, name: \"a\"))");
    geno_free(text);
  }
  geno_result_free(r);
}

static void test_runtime_error_keeps_output(void **state) {
  (void)state;
  geno_result *r = run("func f(n: Int) -> Int\n    example 1 -> -10\n    return 10 / (n - 2)\nend func\n"
                       "func main() -> Unit\n    print(\"before\")\n    print(f(2))\nend func\n");
  assert_false(geno_result_ok(r));
  size_t n;
  assert_string_equal(geno_result_output(r, &n), "before\n");
  assert_int_equal(geno_result_diagnostic_count(r), 1);
  const geno_diagnostic *d = geno_result_diagnostic(r, 0);
  assert_string_equal(d->code, "E400");
  assert_int_equal(d->line, 3);
  assert_int_equal(d->column, 12);
  const char *file;
  int line, col;
  assert_string_equal(geno_result_trace(r, 0, &file, &line, &col), "main");
  assert_int_equal(line, 5);
  assert_string_equal(geno_result_trace(r, 1, &file, &line, &col), "f");
  assert_int_equal(line, 7); /* the call site */
  assert_null(geno_result_trace(r, 2, NULL, NULL, NULL));
  geno_result_free(r);
}

static void test_no_capabilities(void **state) {
  (void)state;
  geno_config cfg;
  geno_config_init(&cfg); /* capabilities_set = false: nothing granted */
  geno_result *r = run_cfg("func main() -> Unit\n    print(1)\nend func\n", &cfg);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E412");
  geno_result_free(r);
}

static int sleeps;
static int64_t slept_ms;

static geno_value *fake_sleep(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                              char **error) {
  (void)ud;
  (void)error;
  assert_string_equal(name, "sleep_ms");
  assert_int_equal(nargs, 1);
  assert_true(geno_value_int(args[0], &slept_ms));
  sleeps++;
  return geno_value_new_unit();
}

static geno_value *failing_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                              char **error) {
  (void)name;
  (void)args;
  (void)nargs;
  (void)ud;
  *error = strdup("disk on fire");
  return NULL;
}

static const char sleep_prog[] = "func main() -> Unit with clock\n    sleep_ms(25)\n    sleep_ms(5)\nend func\n";

static void test_host_callback(void **state) {
  (void)state;
  geno_callback cb = {"sleep_ms", fake_sleep, NULL};
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_CLOCK;
  cfg.callbacks = &cb;
  cfg.ncallbacks = 1;
  sleeps = 0;
  geno_result *r = run_cfg(sleep_prog, &cfg);
  assert_true(geno_result_ok(r));
  assert_int_equal(sleeps, 2);
  assert_int_equal(slept_ms, 5);
  geno_result_free(r);

  /* granted but no callback: E413; not granted: E412 */
  cfg.callbacks = NULL;
  cfg.ncallbacks = 0;
  r = run_cfg(sleep_prog, &cfg);
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E413");
  geno_result_free(r);
  cfg.capabilities = GENO_CAP_PRINT;
  r = run_cfg(sleep_prog, &cfg);
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E412");
  geno_result_free(r);

  /* a failing callback is a catchable runtime error with its message */
  geno_callback bad = {"sleep_ms", failing_cb, NULL};
  cfg.capabilities = GENO_CAP_CLOCK | GENO_CAP_PRINT;
  cfg.callbacks = &bad;
  cfg.ncallbacks = 1;
  r = run_cfg("func main() -> Unit with clock, io\n    try\n        sleep_ms(1)\n    catch e: String\n"
              "        print(e)\n    end try\nend func\n",
              &cfg);
  assert_true(geno_result_ok(r));
  assert_string_equal(geno_result_output(r, NULL), "disk on fire\n");
  geno_result_free(r);
}

static void test_test_mode(void **state) {
  (void)state;
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT;
  cfg.run_tests = true;
  geno_result *r = run_cfg("func inc(x: Int) -> Int\n    example 1 -> 2\n    example 2 -> 4\n    return x + 1\nend func\n"
                           "test \"adds\"\n    assert inc(1) == 2\nend test\n"
                           "test \"fails\"\n    assert inc(1) == 3\nend test\n"
                           "func main() -> Unit\n    print(\"main does not run\")\nend func\n",
                           &cfg);
  assert_string_equal(geno_result_value_json(r),
                      "{\"total\": 4, \"passed\": 2, \"failed\": 2, \"untested\": [], \"violations\": ["
                      "{\"kind\": \"example\", \"function\": \"inc\", \"message\": \"expected 4, got 3\"}, "
                      "{\"kind\": \"test\", \"function\": \"fails\", \"message\": "
                      "\"t.geno:10:5: Runtime Error: Assertion failed\"}]}");
  assert_int_equal(geno_result_diagnostic_count(r), 2);
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E409");
  assert_int_equal(geno_result_diagnostic(r, 0)->line, 3);
  assert_non_null(strstr(geno_result_diagnostic(r, 1)->message, "Assertion failed"));
  assert_string_equal(geno_result_output(r, NULL), "");
  geno_result_free(r);
}

/* The test-mode report lists the entry file's @untested functions and
 * names a broken contract by its kind; strings in it are JSON-escaped. */
static void test_test_mode_report(void **state) {
  (void)state;
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.run_tests = true;
  geno_result *r = run_cfg("@untested(\"needs \\\"quotes\\\"\")\nfunc f(x: Int) -> Int\n    return x\nend func\n"
                           "func pos(x: Int) -> Int\n    requires x > 0\n    example 0 -> 0\n    return x\nend func\n",
                           &cfg);
  assert_string_equal(geno_result_value_json(r),
                      "{\"total\": 1, \"passed\": 0, \"failed\": 1, \"untested\": [{\"function\": \"f\", "
                      "\"reason\": \"needs \\\"quotes\\\"\"}], \"violations\": [{\"kind\": \"requires\", "
                      "\"function\": \"pos\", \"message\": \"Runtime error: t.geno:6:14: Runtime Error: "
                      "Precondition failed for pos: requires clause evaluated to false\"}]}");
  geno_result_free(r);
}

static void test_heap_limit(void **state) {
  (void)state;
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.memory_bytes = 2u << 20;
  /* doubling strings all kept alive: 2 MiB is passed after ~21 rounds */
  geno_result *r = run_cfg("func main() -> Int\n    var xs: List[String] = []\n    var s = \"x\"\n    var i = 0\n"
                           "    while i < 23 do\n        s = s + s\n        xs = append(xs, s)\n"
                           "        i = i + 1\n    end while\n    return length(xs)\nend func\n",
                           &cfg);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E504");
  assert_non_null(strstr(geno_result_diagnostic(r, 0)->message, "Memory limit exceeded"));
  geno_result_free(r);
}

static void test_result_json(void **state) {
  (void)state;
  geno_result *r = run("func main() -> (Int, Float)\n    return (1, 2.5)\nend func\n");
  char *j = geno_result_to_json(r);
  assert_non_null(j);
  assert_non_null(strstr(j, "\"value\": {\"_tuple\": [1, 2.5]}"));
  assert_non_null(strstr(j, "\"ok\": true"));
  geno_free(j);
  geno_result_free(r);
}

/* The reference's two Units: a `()` written in the source or a bare
 * `return` is the empty tuple ({"_tuple": []}, an empty GENO_TUPLE for
 * hosts); a Unit no `()` wrote (main or a function ending without a
 * return, a builtin's result) is null, GENO_UNIT. Same in a child process. */
static const struct {
  const char *src, *json;
} unit_cases[] = {
    {"func main() -> Unit\n    print(\"a\")\nend func\n", "null"},
    {"func main() -> Unit\n    return ()\nend func\n", "{\"_tuple\": []}"},
    {"func main() -> Unit\n    if true then\n        return\n    end if\n    print(1)\nend func\n", "{\"_tuple\": []}"},
    {"func main() -> Unit\n    ensures true\n    return\nend func\n", "{\"_tuple\": []}"},
    {"func main() -> Unit\n    ensures true\n    print(1)\nend func\n", "null"},
    {"func main() -> (Int, Unit)\n    return (1, ())\nend func\n", "{\"_tuple\": [1, {\"_tuple\": []}]}"},
    {"func f() -> Unit\n    example () -> ()\n    print(1)\nend func\n"
     "func g() -> Unit\n    example () -> ()\n    return\nend func\n"
     "func main() -> List[Unit]\n    return [f(), (), g(), print(2)]\nend func\n",
     "[null, {\"_tuple\": []}, {\"_tuple\": []}, null]"},
    {"func g() -> Unit\n    example () -> ()\n    return\nend func\nfunc main() -> Unit\n    return g()\nend func\n",
     "{\"_tuple\": []}"},
    {"func main() -> Option[Unit]\n    return Some(())\nend func\n",
     "{\"_constructor\": \"Some\", \"fields\": {\"value\": {\"_tuple\": []}}}"},
};

static void test_unit_shapes(void **state) {
  (void)state;
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT;
  for (int isolated = 0; isolated < 2; isolated++) {
    for (size_t i = 0; i < sizeof unit_cases / sizeof unit_cases[0]; i++) {
      const char *src = unit_cases[i].src;
      geno_result *r = isolated ? geno_run_isolated(src, strlen(src), "t.geno", &cfg) : run_cfg(src, &cfg);
      assert_non_null(r);
      if (!geno_result_ok(r)) fail_msg("case %zu: %s", i, geno_result_diagnostic(r, 0)->message);
      assert_string_equal(geno_result_value_json(r), unit_cases[i].json);
      char *whole = geno_result_to_json(r);
      char want[256];
      snprintf(want, sizeof want, "\"value\": %s", unit_cases[i].json);
      if (!strstr(whole, want)) fail_msg("case %zu: %s lacks %s", i, whole, want);
      free(whole);
      /* the host value has the same shape, and renders to the same JSON */
      const geno_value *v = geno_result_value(r);
      char *vj = geno_value_to_json(v);
      assert_string_equal(vj, unit_cases[i].json);
      free(vj);
      geno_result_free(r);
    }
  }
  geno_result *r = run_cfg("func main() -> Unit\n    return ()\nend func\n", &cfg);
  assert_int_equal(geno_value_type(geno_result_value(r)), GENO_TUPLE);
  assert_int_equal(geno_value_count(geno_result_value(r)), 0);
  assert_null(geno_result_value_text(r)); /* still Unit: no `=> ...` text */
  geno_result_free(r);
  r = run_cfg("func main() -> Unit\n    print(1)\nend func\n", &cfg);
  assert_non_null(geno_result_value(r));
  assert_int_equal(geno_value_type(geno_result_value(r)), GENO_UNIT);
  geno_result_free(r);
}

/* Set elements in the JSON value come sorted by their JSON text (the
 * reference's order), whatever the insertion order. */
static void test_set_json_order(void **state) {
  (void)state;
  geno_result *r = run("func main() -> Set[String] with mutation\n    let s: Set[String] = set_new()\n"
                       "    set_add(s, \"b\")\n    set_add(s, \"\u00e9\")\n    set_add(s, \"B\")\n"
                       "    set_add(s, \"ab\")\n    set_add(s, \"a\")\n    return s\nend func\n");
  assert_true(geno_result_ok(r));
  assert_string_equal(geno_result_value_json(r), "{\"_set\": [\"B\", \"a\", \"ab\", \"b\", \"\u00e9\"]}");
  geno_result_free(r);
}

/* A loop whose every step copies a 30 MB string runs few steps per
 * second: polling the clock only every 4,096 steps would let it copy for
 * seconds past the deadline (about 700 copies). The allocator's
 * volume-based poll stops it within a few copies of the deadline. */
static const char copy_loop[] =
    "func main() -> Unit with mutation\n    let big = repeat_string(\"x\", 30000000)\n"
    "    var n = 0\n    while %s do\n        let t = big + \"y\"\n"
    "        n = n + length(t)\n    end while\nend func\n";

static geno_result *run_copies(const char *cond, double timeout_s) {
  char src[512];
  snprintf(src, sizeof src, copy_loop, cond);
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT;
  cfg.timeout_s = timeout_s;
  cfg.max_steps = 0;
  cfg.max_collection_size = 40000000;
  return run_cfg(src, &cfg);
}

static void test_deadline_by_allocation(void **state) {
  (void)state;
  /* What 20 copies cost on this machine, in this build, under this load:
   * the bound below is in copies, not in absolute time. */
  geno_result *base = run_copies("n < 20 * 30000001", 0);
  assert_true(geno_result_ok(base));
  double twenty = geno_result_timing(base).run_ms;
  geno_result_free(base);
  geno_result *r = run_copies("true", 0.3);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E501");
  /* Stopped within about 20 copies of the deadline (clock polling alone
   * would let it make hundreds). */
  double run_ms = geno_result_timing(r).run_ms;
  if (run_ms > 300 + twenty + 200) fail_msg("ran %.0f ms; 20 copies take %.0f ms", run_ms, twenty);
  geno_result_free(r);
}

/* steps_used never exceeds max_steps: steps are charged per basic block,
 * and the count of a run stopped by the limit used to overshoot it. */
static void test_steps_used_at_the_limit(void **state) {
  (void)state;
  static const char src[] =
      "func main() -> Unit\n"
      "    print(\"start\")\n"
      "    var i: Int = 0\n"
      "    while true do\n"
      "        i = i + 1\n"
      "    end while\n"
      "end func\n";
  for (uint64_t limit = 50; limit <= 1000; limit += 317) {
    geno_config cfg;
    geno_config_init(&cfg);
    cfg.max_steps = limit;
    cfg.capabilities_set = true;
    cfg.capabilities = GENO_CAP_PRINT;
    geno_result *r = run_cfg(src, &cfg);
    assert_false(geno_result_ok(r));
    assert_string_equal(geno_result_diagnostic(r, 0)->code, "E503");
    assert_int_equal(geno_result_steps(r), limit);
    assert_string_equal(geno_result_output(r, NULL), "start\n");
    geno_result_free(r);
  }
}

/* geno_run on a thread with a small stack: two legal 9,990-deep values
 * compared (two, since a value is equal to itself at once), printed and
 * returned ends with E502 instead of overflowing the thread's stack (the
 * depth limits alone assumed about 8 MiB). */
typedef struct DeepRun {
  bool isolated;
  geno_result *r;
} DeepRun;

static void *deep_on_small_stack(void *arg) {
  static const char src[] =
      "type C = Link(next: C) | End\n"
      "func main() -> Unit\n"
      "    var c: C = End\n"
      "    var d: C = End\n"
      "    var i: Int = 0\n"
      "    while i < 9990 do\n"
      "        c = Link(c)\n"
      "        d = Link(d)\n"
      "        i = i + 1\n"
      "    end while\n"
      "    print(\"built\")\n"
      "    print(c == d)\n"
      "end func\n";
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT;
  DeepRun *d = arg;
  d->r = d->isolated ? geno_run_isolated(src, strlen(src), "deep.geno", &cfg) : geno_run(src, strlen(src), "deep.geno", &cfg);
  return NULL;
}

static void test_small_thread_stack(void **state) {
  (void)state;
  static const size_t sizes[] = {256u << 10, 1u << 20};
  for (int iso = 0; iso < 2; iso++)
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      pthread_attr_t attr;
      pthread_attr_init(&attr);
      assert_int_equal(pthread_attr_setstacksize(&attr, sizes[k]), 0);
      pthread_t t;
      DeepRun d = {iso == 1, NULL};
      assert_int_equal(pthread_create(&t, &attr, deep_on_small_stack, &d), 0);
      pthread_join(t, NULL);
      pthread_attr_destroy(&attr);
      geno_result *r = d.r;
      assert_non_null(r);
      assert_string_equal(geno_result_output(r, NULL), "built\n");
      /* 1 MiB may hold the whole comparison; otherwise E502, never a crash
       * (isolated: never E500) */
      if (!geno_result_ok(r)) assert_string_equal(geno_result_diagnostic(r, 0)->code, "E502");
      else assert_true(sizes[k] >= (1u << 20));
      geno_result_free(r);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_value_and_output),     cmocka_unit_test(test_ctor_value),
      cmocka_unit_test(test_runtime_error_keeps_output), cmocka_unit_test(test_no_capabilities),
      cmocka_unit_test(test_host_callback),        cmocka_unit_test(test_test_mode),
      cmocka_unit_test(test_test_mode_report),
      cmocka_unit_test(test_heap_limit),           cmocka_unit_test(test_result_json),
      cmocka_unit_test(test_unit_shapes),
      cmocka_unit_test(test_set_json_order),       cmocka_unit_test(test_deadline_by_allocation),
      cmocka_unit_test(test_steps_used_at_the_limit),
      cmocka_unit_test(test_small_thread_stack),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
