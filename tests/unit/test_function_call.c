/* geno_function_call: a host keeps the handler a program gave http_route
 * and calls it from its http_listen callback, in-process and isolated
 * (src/runtime/hostcall.c, src/sandbox/broker.c and isolate.c). Checks
 * results, the fresh budget of each call, errors that leave the run going,
 * argument checks, and that nothing is callable once the run has ended. */
#include "unit.h"

static const char PROGRAM[] =
    "func greet(req: HttpRequest) -> HttpResponse\n"
    "    example HttpRequest(\"GET\", \"/\", \"q\", [], \"\") -> HttpResponse(200, \"GET q\", [])\n"
    "    return HttpResponse(200, req.method + \" \" + req.query, [])\n"
    "end func\n"
    "@untested(\"handler\")\n"
    "func divide(req: HttpRequest) -> HttpResponse\n"
    "    return HttpResponse(200, to_string(10 / length(req.body)), [])\n"
    "end func\n"
    "@untested(\"handler\")\n"
    "func work(req: HttpRequest) -> HttpResponse\n"
    "    let t: Int = fold(list: range(0, 500), initial: 0, reducer: fn(a: Int, x: Int) -> a + x)\n"
    "    return HttpResponse(200, to_string(t), [])\n"
    "end func\n"
    "@untested(\"handler\")\n"
    "func slow(req: HttpRequest) -> HttpResponse\n"
    "    let t: Int = fold(list: range(0, 30000), initial: 0, reducer: fn(a: Int, x: Int) -> a + fold(list: "
    "range(0, 3000), initial: 0, reducer: fn(b: Int, y: Int) -> b + y))\n"
    "    return HttpResponse(200, to_string(t), [])\n"
    "end func\n"
    "func main() -> Unit\n"
    "    http_route(method: \"GET\", path: \"/greet\", handler: greet)\n"
    "    http_route(method: \"GET\", path: \"/divide\", handler: divide)\n"
    "    http_route(method: \"GET\", path: \"/work\", handler: work)\n"
    "    http_route(method: \"GET\", path: \"/slow\", handler: slow)\n"
    "    http_listen(port: 1)\n"
    "end func\n";

typedef struct Host {
  geno_value *handlers[8];
  int n;
  bool slow;           /* call the slow handler too */
  /* what the http_listen callback saw */
  char greet[64];
  char divide_error[256];
  int work_ok;         /* calls of `work` that succeeded */
  char wrong_arg[256];
  char slow_error[256];
  bool callable_after_slow;
} Host;

static geno_value *request(const char *query) {
  static const char *const names[5] = {"method", "path", "query", "headers", "body"};
  geno_value *f[5] = {geno_value_new_string("GET", 3), geno_value_new_string("/", 1),
                      geno_value_new_string(query, strlen(query)), geno_value_new_list(NULL, 0),
                      geno_value_new_string("", 0)};
  return geno_value_new_ctor("HttpRequest", names, f, 5);
}

static geno_value *on_route(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  Host *h = ud;
  assert_int_equal(nargs, 3);
  assert_int_equal(geno_value_type(args[2]), GENO_FUNCTION);
  assert_true(geno_function_callable(args[2]));
  if (h->n < 8) h->handlers[h->n++] = geno_value_copy(args[2]);
  return geno_value_new_unit();
}

static void copy_error(char *to, size_t n, char *err) {
  snprintf(to, n, "%s", err ? err : "(none)");
  geno_free(err);
}

static geno_value *on_listen(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  Host *h = ud;
  assert_int_equal(h->n, 4);
  geno_value *req = request("q=1");
  const geno_value *argv[1] = {req};
  char *err = NULL;
  geno_value *r = geno_function_call(h->handlers[0], argv, 1, &err);
  assert_non_null(r);
  assert_null(err);
  assert_string_equal(geno_value_name(r), "HttpResponse");
  size_t len;
  const char *body = geno_value_string(geno_value_item(r, 1), &len);
  snprintf(h->greet, sizeof h->greet, "%.*s", (int)len, body);
  geno_value_free(r);
  /* a runtime error fails the call and the run goes on */
  assert_null(geno_function_call(h->handlers[1], argv, 1, &err));
  copy_error(h->divide_error, sizeof h->divide_error, err);
  /* ~2,000 steps each under max_steps 3,000: only a fresh budget per call
   * lets all three through */
  for (int i = 0; i < 3; i++) {
    err = NULL;
    r = geno_function_call(h->handlers[2], argv, 1, &err);
    if (r) h->work_ok++;
    geno_value_free(r);
    geno_free(err);
  }
  /* an argument of the wrong type is refused before the program sees it */
  geno_value *wrong = geno_value_new_int(3);
  const geno_value *wargv[1] = {wrong};
  err = NULL;
  assert_null(geno_function_call(h->handlers[0], wargv, 1, &err));
  copy_error(h->wrong_arg, sizeof h->wrong_arg, err);
  geno_value_free(wrong);
  if (h->slow) {
    err = NULL;
    r = geno_function_call(h->handlers[3], argv, 1, &err);
    geno_value_free(r);
    copy_error(h->slow_error, sizeof h->slow_error, err);
    h->callable_after_slow = geno_function_callable(h->handlers[3]);
  }
  geno_value_free(req);
  return geno_value_new_unit();
}

static geno_result *run(Host *h, bool isolated, double timeout, uint64_t steps) {
  memset(h, 0, sizeof *h);
  geno_callback cbs[2] = {{"http_route", on_route, h}, {"http_listen", on_listen, h}};
  geno_config c;
  geno_config_init(&c);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_SERVE | GENO_CAP_PRINT;
  c.callbacks = cbs;
  c.ncallbacks = 2;
  c.timeout_s = timeout;
  c.max_steps = steps;
  return isolated ? geno_run_isolated(PROGRAM, strlen(PROGRAM), "serve.geno", &c)
                  : geno_run(PROGRAM, strlen(PROGRAM), "serve.geno", &c);
}

static void after_run(Host *h) {
  for (int i = 0; i < h->n; i++) {
    assert_false(geno_function_callable(h->handlers[i]));
    char *err = NULL;
    geno_value *req = request("");
    const geno_value *argv[1] = {req};
    assert_null(geno_function_call(h->handlers[i], argv, 1, &err));
    assert_non_null(err);
    assert_true(strstr(err, "ended") != NULL);
    geno_free(err);
    geno_value_free(req);
    geno_value_free(h->handlers[i]);
  }
}

static void calls(bool isolated) {
  Host h;
  geno_result *r = run(&h, isolated, 5.0, 3000);
  assert_true(geno_result_ok(r));
  assert_string_equal(h.greet, "GET q=1");
  assert_true(strncmp(h.divide_error, "E400: Division by zero", 22) == 0);
  assert_int_equal(h.work_ok, 3);
  assert_true(strstr(h.wrong_arg, "argument 1 has the wrong type") != NULL);
  geno_result_free(r);
  after_run(&h);
}

static void in_process(void **state) { calls(false); }
static void isolated(void **state) { calls(true); }

/* A handler past its timeout: the VM stops it (E501, in the child when
 * isolated) and the run goes on; its handler stays callable. */
static void slow(bool isolated) {
  Host h;
  memset(&h, 0, sizeof h);
  h.slow = true;
  geno_callback cbs[2] = {{"http_route", on_route, &h}, {"http_listen", on_listen, &h}};
  geno_config c;
  geno_config_init(&c);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_SERVE;
  c.callbacks = cbs;
  c.ncallbacks = 2;
  c.timeout_s = 0.3;
  c.max_steps = 0;
  geno_result *r = isolated ? geno_run_isolated(PROGRAM, strlen(PROGRAM), "serve.geno", &c)
                            : geno_run(PROGRAM, strlen(PROGRAM), "serve.geno", &c);
  assert_true(strncmp(h.slow_error, "E501: Execution timed out", 25) == 0);
  assert_true(h.callable_after_slow);
  geno_result_free(r);
  after_run(&h);
}

static void slow_in_process(void **state) { slow(false); }
static void slow_isolated(void **state) {
  slow(true);
  assert_true(unit_no_children());
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(in_process),
      cmocka_unit_test(isolated),
      cmocka_unit_test(slow_in_process),
      cmocka_unit_test(slow_isolated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
