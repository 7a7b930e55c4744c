/* Unit tests: run outcomes and the metrics collector (runtime/metrics.c):
 * the reference's classification, snapshot keys, Prometheus text (names,
 * order, formatting, label escaping), the health report, bounded label
 * sets, and thread safety. */
#include "unit.h"

#include <pthread.h>

#include <sys/resource.h>
#include <unistd.h>

#include "runtime/result.h"
#include "sandbox/wire.h"

static geno_result *failed_with(const int *codes, size_t n) {
  geno_result *r = rt_result_new();
  for (size_t i = 0; i < n; i++) rt_result_add(r, codes[i], NULL, "x");
  return r;
}

static geno_outcome outcome_of(const int *codes, size_t n) {
  geno_result *r = failed_with(codes, n);
  geno_outcome o = geno_result_outcome(r);
  geno_result_free(r);
  return o;
}

#define OUTCOME(...) outcome_of((const int[]){__VA_ARGS__}, sizeof((const int[]){__VA_ARGS__}) / sizeof(int))

static void classification_follows_the_reference(void **state) {
  (void)state;
  geno_result *ok = rt_result_new();
  assert_int_equal(geno_result_outcome(ok), GENO_OUTCOME_SUCCESS);
  geno_result_free(ok);
  assert_int_equal(geno_result_outcome(NULL), GENO_OUTCOME_RUNTIME_ERROR);
  /* Precedence: timeout, then capability, callback, security, limits. */
  assert_int_equal(OUTCOME(412, 501), GENO_OUTCOME_TIMEOUT);
  assert_int_equal(OUTCOME(413, 412), GENO_OUTCOME_CAPABILITY_DENIED);
  assert_int_equal(OUTCOME(500, 413), GENO_OUTCOME_HOST_CALLBACK_MISSING);
  assert_int_equal(OUTCOME(503, 500), GENO_OUTCOME_SECURITY_VIOLATION);
  assert_int_equal(OUTCOME(502), GENO_OUTCOME_RESOURCE_LIMIT);
  assert_int_equal(OUTCOME(503), GENO_OUTCOME_RESOURCE_LIMIT);
  assert_int_equal(OUTCOME(300, 504), GENO_OUTCOME_RESOURCE_LIMIT);
  assert_int_equal(OUTCOME(100), GENO_OUTCOME_SYNTAX_ERROR);
  assert_int_equal(OUTCOME(300, 203), GENO_OUTCOME_SYNTAX_ERROR);
  assert_int_equal(OUTCOME(309), GENO_OUTCOME_TYPE_ERROR);
  /* Neither lexer/parser nor type codes: runtime errors. */
  assert_int_equal(OUTCOME(204), GENO_OUTCOME_RUNTIME_ERROR);
  assert_int_equal(OUTCOME(310), GENO_OUTCOME_RUNTIME_ERROR);
  assert_int_equal(OUTCOME(312), GENO_OUTCOME_RUNTIME_ERROR);
  assert_int_equal(OUTCOME(400), GENO_OUTCOME_RUNTIME_ERROR);
  assert_int_equal(OUTCOME(499), GENO_OUTCOME_RUNTIME_ERROR);
  assert_int_equal(OUTCOME(505), GENO_OUTCOME_RUNTIME_ERROR);
  geno_result *bare = rt_result_new(); /* failed without a diagnostic */
  bare->ok = false;
  assert_int_equal(geno_result_outcome(bare), GENO_OUTCOME_RUNTIME_ERROR);
  geno_result_free(bare);
  const char *names[] = {"success", "syntax_error", "type_error", "runtime_error", "timeout", "capability_denied",
                         "host_callback_missing", "security_violation", "resource_limit"};
  for (int o = 0; o < GENO_OUTCOME_COUNT; o++) assert_string_equal(geno_outcome_name((geno_outcome)o), names[o]);
  assert_null(geno_outcome_name((geno_outcome)GENO_OUTCOME_COUNT));
}

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static size_t count_lines(const char *s) {
  size_t n = 1;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* A fresh collector renders exactly the reference's text: 23 families of
 * three lines, 3468 bytes, no trailing newline. */
static void fresh_prometheus_matches_the_reference(void **state) {
  (void)state;
  geno_metrics *m = geno_metrics_new(NULL, NULL);
  char *p = geno_metrics_prometheus(m);
  assert_int_equal(strlen(p), 3468);
  assert_int_equal(count_lines(p), 69);
  assert_true(starts_with(p, "# HELP geno_http_post_requests_total Total handled POST requests for hosted "
                             "execution endpoints.\n# TYPE geno_http_post_requests_total counter\n"
                             "geno_http_post_requests_total 0\n"));
  assert_non_null(strstr(p, "\ngeno_run_wall_time_ms_average 0.00\n"));
  assert_non_null(strstr(p, "# TYPE geno_run_steps_average gauge\n"));
  assert_true(p[strlen(p) - 1] != '\n');
  assert_null(strstr(p, "by_endpoint")); /* labelled families only once used */
  assert_null(strstr(p, "geno_benchmark_last"));
  geno_free(p);
  char *j = geno_metrics_snapshot_json(m);
  assert_true(sbx_json_valid(j, strlen(j)));
  assert_true(starts_with(j, "{\"http_post_requests\":0,\"http_post_requests_by_endpoint\":{},"));
  assert_non_null(strstr(j, "\"success_rate\":0.0,"));
  assert_non_null(strstr(j, "\"last_benchmark_validation\":null,\"phase_wall_time_ms\""));
  geno_free(j);
  geno_metrics_free(m);
}

static geno_result *run_result(bool ok, int code, double total_ms, uint64_t steps, const char *out) {
  geno_result *r = rt_result_new();
  if (!ok) rt_result_add(r, code, NULL, "x");
  r->timing.total_ms = total_ms;
  r->timing.lex_ms = 0.25;
  r->timing.run_ms = 1.0;
  r->steps = steps;
  rt_result_set_output(r, out, strlen(out));
  return r;
}

static void runs_are_counted(void **state) {
  (void)state;
  geno_metrics *m = geno_metrics_new("svc", "rev1");
  geno_result *a = run_result(true, 0, 1.5, 10, "hello\n");
  geno_result *b = run_result(false, 501, 2.0, 0, "");
  geno_result *c = run_result(false, 204, 0.5, 0, "x");
  geno_metrics_monitor(a, "run", m); /* used as cfg.monitor */
  geno_metrics_record(m, b, "run_isolated");
  geno_metrics_record(m, c, "test");
  geno_metrics_record(m, a, "check"); /* not a run */
  geno_metrics_record(m, NULL, "run"); /* ignored */
  geno_metrics_record(NULL, a, "run");
  char *j = geno_metrics_snapshot_json(m);
  assert_non_null(strstr(j, "\"total_runs\":3,\"successful_runs\":1,\"failed_runs\":2,\"success_rate\":0.3333,"));
  assert_non_null(strstr(j, "\"runtime_error_runs\":1,\"timeout_runs\":1,"));
  assert_non_null(strstr(j, "\"total_wall_time_ms\":4.0,\"average_wall_time_ms\":1.33,"));
  assert_non_null(strstr(j, "\"total_steps\":10,\"average_steps\":3.33,"));
  assert_non_null(strstr(j, "\"phase_wall_time_ms\":{\"lex\":0.75,\"parse\":0.0,\"typecheck\":0.0,\"run\":3.0}"));
  assert_non_null(strstr(j, "\"total_output_bytes\":7,"));
  assert_non_null(strstr(j, "\"diagnostic_codes\":{\"E204\":1,\"E501\":1}"));
  assert_non_null(strstr(j, "\"operations\":{\"check\":1,\"run\":1,\"run_isolated\":1,\"test\":1}}"));
  geno_free(j);
  char *p = geno_metrics_prometheus(m);
  assert_non_null(strstr(p, "\ngeno_run_requests_total 3\n"));
  assert_non_null(strstr(p, "\ngeno_run_success_total 1\n"));
  assert_non_null(strstr(p, "\ngeno_run_timeout_total 1\n"));
  assert_non_null(strstr(p, "\ngeno_run_wall_time_ms_total 4.00\n"));
  assert_non_null(strstr(p, "\ngeno_run_wall_time_ms_average 1.33\n"));
  assert_non_null(strstr(p, "\ngeno_run_phase_wall_time_ms_total{phase=\"lex\"} 0.75\n"));
  assert_non_null(strstr(p, "\ngeno_run_output_bytes_total 7\n"));
  assert_non_null(strstr(p, "\ngeno_run_diagnostics_total{code=\"E204\"} 1\ngeno_run_diagnostics_total{code=\"E501\"} 1"));
  assert_non_null(strstr(p, "\ngeno_operations_total{operation=\"check\"} 1\n"));
  geno_free(p);
  geno_result_free(a);
  geno_result_free(b);
  geno_result_free(c);
  geno_metrics_free(m);
}

static void http_labels_sorted_escaped_and_bounded(void **state) {
  (void)state;
  geno_metrics *m = geno_metrics_new(NULL, NULL);
  geno_metrics_record_http(m, "/run", 200, "ok");
  geno_metrics_record_http(m, "/run", 429, "rate_limited");
  geno_metrics_record_http(m, "/a\"b\\c\nd", 400, "bad_request");
  geno_metrics_record_http(m, "/\xff\xfe", 404, "bad_request"); /* not UTF-8 */
  char *p = geno_metrics_prometheus(m);
  assert_non_null(strstr(p, "\ngeno_http_post_requests_total 4\n"));
  assert_non_null(strstr(p, "geno_http_post_requests_by_endpoint_total{endpoint=\"/??\"} 1\n"
                            "geno_http_post_requests_by_endpoint_total{endpoint=\"/a\\\"b\\\\c\\nd\"} 1\n"
                            "geno_http_post_requests_by_endpoint_total{endpoint=\"/run\"} 2\n"));
  assert_non_null(strstr(p, "{status=\"200\"} 1\ngeno_http_post_requests_by_status_total{status=\"400\"} 1\n"));
  assert_non_null(strstr(p, "{outcome=\"bad_request\"} 2\n"));
  geno_free(p);
  char *j = geno_metrics_snapshot_json(m);
  assert_true(sbx_json_valid(j, strlen(j)));
  assert_non_null(strstr(j, "\"http_post_requests_by_endpoint\":{\"/??\":1,\"/a\\\"b\\\\c\\nd\":1,\"/run\":2}"));
  geno_free(j);
  /* A client inventing paths cannot grow the collector without bound. */
  for (int i = 0; i < 1000; i++) {
    char path[32];
    snprintf(path, sizeof path, "/p%d", i);
    geno_metrics_record_http(m, path, 404, "bad_request");
  }
  p = geno_metrics_prometheus(m);
  size_t series = 0;
  for (const char *s = p; (s = strstr(s, "geno_http_post_requests_by_endpoint_total{")); s++) series++;
  assert_int_equal(series, 65); /* 64 values and "other" */
  assert_non_null(strstr(p, "{endpoint=\"other\"} 939\n")); /* 1003 - 64 kept */
  geno_free(p);
  geno_metrics_free(m);
}

static void constrain_and_benchmark(void **state) {
  (void)state;
  geno_metrics *m = geno_metrics_new(NULL, NULL);
  geno_metrics_record_constrain(m, 1, 3.333);
  geno_metrics_record_constrain(m, 0, 1.0);
  geno_metrics_record_constrain(m, -1, 1.0);
  geno_metrics_record_benchmark(m, 3, 3, 0);
  char *h = geno_metrics_health_json(m, NULL, 0);
  assert_non_null(strstr(h, "{\"status\":\"ok\","));
  assert_non_null(strstr(h, "{\"name\":\"benchmark_validation\",\"status\":\"pass\",\"detail\":"
                            "\"canonical_passed=3/3, problems_with_issues=0\"}"));
  geno_free(h);
  geno_metrics_record_benchmark(m, 3, 2, 1);
  char *j = geno_metrics_snapshot_json(m);
  assert_non_null(strstr(j, "\"constrain_requests\":3,\"valid_constrain_requests\":1,"
                            "\"invalid_constrain_requests\":1,\"timeout_constrain_requests\":1,"
                            "\"total_constrain_wall_time_ms\":5.33,\"average_constrain_wall_time_ms\":1.78,"
                            "\"benchmark_validations\":2,\"benchmark_validation_failures\":1,"
                            "\"last_benchmark_validation\":{\"success\":false,\"total_problems\":3,"
                            "\"canonical_passed\":2,\"canonical_pass_rate\":0.6667,\"problems_with_issues\":1}"));
  geno_free(j);
  char *p = geno_metrics_prometheus(m);
  assert_non_null(strstr(p, "\ngeno_benchmark_last_canonical_pass_rate 0.6667\n"));
  assert_true(strstr(p, "\ngeno_benchmark_last_problems_with_issues 1") != NULL);
  geno_free(p);
  h = geno_metrics_health_json(m, NULL, 0);
  assert_non_null(strstr(h, "{\"status\":\"failed\","));
  geno_free(h);
  geno_metrics_free(m);
}

static void health_report(void **state) {
  (void)state;
  geno_metrics *m = geno_metrics_new("geno-api", NULL);
  char *h = geno_metrics_health_json(m, NULL, 0);
  assert_true(sbx_json_valid(h, strlen(h)));
  assert_non_null(strstr(h, "{\"status\":\"ok\",\"generated_at_unix\":"));
  assert_non_null(strstr(h, ",\"uptime_seconds\":0.0"));
  assert_non_null(strstr(h, "\"build\":{\"service\":\"geno-api\",\"version\":\"" GENO_VERSION
                            "\",\"language_version\":\"0.4\",\"revision\":null}"));
  assert_non_null(strstr(h, "\"checks\":[{\"name\":\"startup_checks\",\"status\":\"pass\",\"detail\":"
                            "\"all startup checks passed\"},{\"name\":\"runtime_api\",\"status\":\"pass\""));
  assert_non_null(strstr(h, "{\"name\":\"metrics_collector\",\"status\":\"pass\",\"detail\":\"observed_http_post_"
                            "requests=0, observed_runs=0, observed_constrain_requests=0\"}]}"));
  geno_free(h);
  geno_health_check warn = {"disk", "warn", "90% full"};
  h = geno_metrics_health_json(m, &warn, 1);
  assert_non_null(strstr(h, "{\"status\":\"degraded\","));
  assert_non_null(strstr(h, "{\"name\":\"disk\",\"status\":\"warn\",\"detail\":\"90% full\"}]}"));
  geno_free(h);
  const char *errors[] = {"seccomp unavailable", "bad \"config\""};
  assert_true(geno_metrics_set_startup_errors(m, errors, 2));
  h = geno_metrics_health_json(m, &warn, 1);
  assert_non_null(strstr(h, "{\"status\":\"failed\","));
  assert_non_null(strstr(h, "\"detail\":\"seccomp unavailable; bad \\\"config\\\"\""));
  geno_free(h);
  assert_true(geno_metrics_set_startup_errors(m, NULL, 0));
  h = geno_metrics_health_json(m, NULL, 0);
  assert_non_null(strstr(h, "{\"status\":\"ok\","));
  geno_free(h);
  geno_metrics_free(m);
  assert_null(geno_metrics_health_json(NULL, NULL, 0));
  assert_null(geno_metrics_prometheus(NULL));
  assert_null(geno_metrics_snapshot_json(NULL));
  geno_metrics_free(NULL);
}

enum { THREADS = 8, PER_THREAD = 5000 };

static void *hammer(void *arg) {
  geno_metrics *m = arg;
  geno_result *r = run_result(true, 0, 1.0, 2, "ab");
  for (int i = 0; i < PER_THREAD; i++) {
    geno_metrics_record(m, r, "run");
    geno_metrics_record_http(m, "/run", 200, "ok");
    if (i % 100 == 0) geno_free(geno_metrics_prometheus(m));
  }
  geno_result_free(r);
  return NULL;
}

static void concurrent_recording_loses_nothing(void **state) {
  (void)state;
  geno_metrics *m = geno_metrics_new(NULL, NULL);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, hammer, m);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  char *j = geno_metrics_snapshot_json(m);
  char want[128];
  snprintf(want, sizeof want, "\"total_runs\":%d,\"successful_runs\":%d,", THREADS * PER_THREAD,
           THREADS * PER_THREAD);
  assert_non_null(strstr(j, want));
  snprintf(want, sizeof want, "\"total_steps\":%d,", 2 * THREADS * PER_THREAD);
  assert_non_null(strstr(j, want));
  snprintf(want, sizeof want, "\"http_post_requests\":%d,", THREADS * PER_THREAD);
  assert_non_null(strstr(j, want));
  geno_free(j);
  geno_metrics_free(m);
}

/* geno_run that runs out of memory creating its VM still calls the
 * monitor once (geno.h). The VM needs 16 MiB for its value stack at once,
 * so a child whose address space is capped a little above what it already
 * maps gets through the front end and fails there. Not under ASan, which
 * reserves terabytes of shadow memory. */
#if defined(__SANITIZE_ADDRESS__)
#define UNIT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNIT_ASAN 1
#endif
#endif

#ifndef UNIT_ASAN
static void oom_count(const geno_result *r, const char *op, void *ud) {
  (void)r;
  if (strcmp(op, "run") == 0) ++*(int *)ud;
}
#endif

static void out_of_memory_run_is_monitored_once(void **state) {
  (void)state;
#ifdef UNIT_ASAN
  skip();
#else
  const char *src = "func main() -> Int\n  return 1\nend func\n";
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int calls = 0;
    geno_config c;
    geno_config_init(&c);
    c.monitor = oom_count;
    c.monitor_userdata = &calls;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1) _exit(90);
    fclose(f);
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)6 << 20);
    if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(91);
    geno_result *r = geno_run(src, strlen(src), "t.geno", &c);
    if (!r) _exit(92);
    bool oom = !geno_result_ok(r) && strcmp(unit_codes(r), "E504") == 0;
    _exit(!oom ? 93 : calls == 1 ? 0 : 94);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
#endif
}

/* Runs known only by their summary (geno_metrics_record_run) count like
 * recorded results, and geno_outcome_from_codes classifies as
 * geno_result_outcome does. */
static void runs_recorded_from_a_summary(void **state) {
  (void)state;
  const char *timeout[] = {"E501", "E503"};
  const char *typing[] = {"E300"};
  const char *odd[] = {"E4", "X300", "E1000", NULL};
  assert_int_equal(geno_outcome_from_codes(true, timeout, 2), GENO_OUTCOME_SUCCESS);
  assert_int_equal(geno_outcome_from_codes(false, timeout, 2), GENO_OUTCOME_TIMEOUT);
  assert_int_equal(geno_outcome_from_codes(false, typing, 1), GENO_OUTCOME_TYPE_ERROR);
  assert_int_equal(geno_outcome_from_codes(false, odd, 4), GENO_OUTCOME_RUNTIME_ERROR);
  assert_int_equal(geno_outcome_from_codes(false, NULL, 0), GENO_OUTCOME_RUNTIME_ERROR);
  geno_metrics *m = geno_metrics_new(NULL, NULL);
  geno_metrics_record_run(m, GENO_OUTCOME_TIMEOUT, 12.5, 7, timeout, 2);
  geno_metrics_record_run(m, GENO_OUTCOME_SUCCESS, 0.5, 3, NULL, 0);
  geno_metrics_record_run(m, (geno_outcome)99, 1.0, 1, NULL, 0); /* ignored */
  geno_metrics_record_run(NULL, GENO_OUTCOME_SUCCESS, 1.0, 1, NULL, 0);
  char *j = geno_metrics_snapshot_json(m);
  assert_non_null(strstr(j, "\"total_runs\":2,\"successful_runs\":1,"));
  assert_non_null(strstr(j, "\"timeout_runs\":1,"));
  assert_non_null(strstr(j, "\"total_wall_time_ms\":13.0,"));
  assert_non_null(strstr(j, "\"total_steps\":10,"));
  assert_non_null(strstr(j, "\"E501\":1"));
  geno_free(j);
  geno_metrics_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* first: before other tests leave freed memory in the heap, which
       * malloc would reuse under the address-space cap */
      cmocka_unit_test(out_of_memory_run_is_monitored_once),
      cmocka_unit_test(classification_follows_the_reference),
      cmocka_unit_test(fresh_prometheus_matches_the_reference),
      cmocka_unit_test(runs_are_counted),
      cmocka_unit_test(http_labels_sorted_escaped_and_bounded),
      cmocka_unit_test(constrain_and_benchmark),
      cmocka_unit_test(health_report),
      cmocka_unit_test(concurrent_recording_loses_nothing),
      cmocka_unit_test(runs_recorded_from_a_summary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
