/* Run outcomes and the metrics collector: counters behind a mutex,
 * rendered as the reference's snapshot JSON, health report and Prometheus
 * text (names, HELP texts and order as geno/monitoring.py has them). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <geno.h>

#include "../base/buf.h"
#include "../base/utf8.h"
#include "result.h"

/* Distinct values kept per label (endpoints, HTTP outcomes, statuses,
 * operations). Endpoint labels are request paths, which a client chooses:
 * without a cap, each new path would cost memory and a Prometheus series
 * forever. 64 is well above the server's real endpoints (/run, /check,
 * /constrain ...); further values count under "other". */
#define METRICS_MAX_LABELS 64

/* Longest label value kept; longer ones are cut (paths can be long). */
#define METRICS_MAX_LABEL_BYTES 256

/* ------------------------------------------------------------------------ */
/* Outcomes                                                                 */
/* ------------------------------------------------------------------------ */

static const char *const outcome_names[GENO_OUTCOME_COUNT] = {
    "success",           "syntax_error",          "type_error",
    "runtime_error",     "timeout",               "capability_denied",
    "host_callback_missing", "security_violation", "resource_limit",
};

const char *geno_outcome_name(geno_outcome o) {
  return (unsigned)o < GENO_OUTCOME_COUNT ? outcome_names[o] : NULL;
}

/* A code such as "E412" as its number, or -1. */
static int code_number(const char *code) {
  if (!code || code[0] != 'E' || !code[1] || strlen(code) > 4) return -1;
  int n = 0;
  for (const char *p = code + 1; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    n = n * 10 + (*p - '0');
  }
  return n;
}

/* The classification rule of geno.h, given which codes occurred. */
static geno_outcome outcome_of(bool ok, const bool has[1000]) {
  if (ok) return GENO_OUTCOME_SUCCESS;
  if (has[501]) return GENO_OUTCOME_TIMEOUT;
  if (has[412]) return GENO_OUTCOME_CAPABILITY_DENIED;
  if (has[413]) return GENO_OUTCOME_HOST_CALLBACK_MISSING;
  if (has[500]) return GENO_OUTCOME_SECURITY_VIOLATION;
  if (has[502] || has[503] || has[504]) return GENO_OUTCOME_RESOURCE_LIMIT;
  for (int c = 100; c <= 103; c++)
    if (has[c] || has[c + 100]) return GENO_OUTCOME_SYNTAX_ERROR; /* E100-E103, E200-E203 */
  for (int c = 300; c <= 309; c++)
    if (has[c]) return GENO_OUTCOME_TYPE_ERROR;
  return GENO_OUTCOME_RUNTIME_ERROR;
}

geno_outcome geno_result_outcome(const geno_result *r) {
  if (!r) return GENO_OUTCOME_RUNTIME_ERROR;
  bool has[1000] = {false};
  for (size_t i = 0; i < r->ndiags; i++) {
    int c = r->diags[i].code_number;
    if (c >= 0 && c < 1000) has[c] = true;
  }
  return outcome_of(r->ok, has);
}

geno_outcome geno_outcome_from_codes(bool ok, const char *const *codes, size_t ncodes) {
  bool has[1000] = {false};
  for (size_t i = 0; codes && i < ncodes; i++) {
    int c = code_number(codes[i]);
    if (c >= 0 && c < 1000) has[c] = true;
  }
  return outcome_of(ok, has);
}

/* ------------------------------------------------------------------------ */
/* The collector                                                            */
/* ------------------------------------------------------------------------ */

typedef struct Label {
  char *key; /* malloc'd, valid UTF-8 */
  uint64_t n;
} Label;

typedef struct LabelSet {
  Label items[METRICS_MAX_LABELS + 1]; /* the last slot is "other" */
  size_t count;
} LabelSet;

/* Timing phases recorded per run, in geno_timing order. */
enum { PHASE_LEX, PHASE_PARSE, PHASE_TYPECHECK, PHASE_RUN, PHASE_COUNT };
static const char *const phase_names[PHASE_COUNT] = {"lex", "parse", "typecheck", "run"};

struct geno_metrics {
  pthread_mutex_t lock;
  char *service;
  char *revision;             /* or NULL */
  struct timespec started;    /* CLOCK_MONOTONIC at creation */
  char **startup_errors;
  size_t nstartup;
  /* HTTP (server) */
  uint64_t http_posts;
  LabelSet endpoints, statuses, http_outcomes;
  /* runs */
  uint64_t runs, successes;
  uint64_t by_outcome[GENO_OUTCOME_COUNT];
  double wall_ms;
  uint64_t steps;
  double phase_ms[PHASE_COUNT];
  uint64_t output_bytes;
  uint64_t codes[1000];       /* diagnostics by code number */
  LabelSet operations;
  /* /constrain (server) */
  uint64_t constrain, constrain_valid, constrain_invalid, constrain_timeout;
  double constrain_ms;
  /* benchmark validation */
  uint64_t benchmarks, benchmark_failures;
  bool has_last;
  bool last_success;
  uint64_t last_total, last_passed, last_issues;
};

static char *dup_str(const char *s) {
  size_t n = strlen(s);
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

geno_metrics *geno_metrics_new(const char *service, const char *revision) {
  geno_metrics *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->service = dup_str(service ? service : "geno-runtime");
  m->revision = revision ? dup_str(revision) : NULL;
  if (!m->service || (revision && !m->revision) || pthread_mutex_init(&m->lock, NULL) != 0) {
    free(m->service);
    free(m->revision);
    free(m);
    return NULL;
  }
  clock_gettime(CLOCK_MONOTONIC, &m->started);
  return m;
}

static void labels_free(LabelSet *s) {
  for (size_t i = 0; i < s->count; i++) free(s->items[i].key);
}

static void startup_free(geno_metrics *m) {
  for (size_t i = 0; i < m->nstartup; i++) free(m->startup_errors[i]);
  free(m->startup_errors);
  m->startup_errors = NULL;
  m->nstartup = 0;
}

void geno_metrics_free(geno_metrics *m) {
  if (!m) return;
  labels_free(&m->endpoints);
  labels_free(&m->statuses);
  labels_free(&m->http_outcomes);
  labels_free(&m->operations);
  startup_free(m);
  pthread_mutex_destroy(&m->lock);
  free(m->service);
  free(m->revision);
  free(m);
}

/* A label value as stored: at most METRICS_MAX_LABEL_BYTES, invalid UTF-8
 * bytes replaced by '?', so the JSON and Prometheus renderings stay valid
 * whatever a client put in a request path. */
static char *clean_label(const char *s) {
  Buf b = BUF_INIT;
  size_t n = strlen(s);
  for (size_t i = 0; i < n && b.len < METRICS_MAX_LABEL_BYTES;) {
    int32_t cp;
    int k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
    if (k <= 0) {
      buf_putc(&b, '?');
      i++;
    } else {
      buf_append(&b, s + i, (size_t)k);
      i += (size_t)k;
    }
  }
  if (b.failed) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}

static Label *label_find(LabelSet *s, const char *key) {
  for (size_t i = 0; i < s->count; i++)
    if (strcmp(s->items[i].key, key) == 0) return &s->items[i];
  return NULL;
}

static void label_add(LabelSet *s, const char *key) {
  char *clean = clean_label(key ? key : "");
  if (!clean) return;
  Label *l = label_find(s, clean);
  if (!l && s->count < METRICS_MAX_LABELS) {
    l = &s->items[s->count++];
    l->key = clean;
    l->n = 0;
    clean = NULL;
  }
  free(clean);
  if (!l && !(l = label_find(s, "other"))) { /* full: open the overflow slot */
    char *other = dup_str("other");
    if (!other) return;
    l = &s->items[s->count++];
    l->key = other;
    l->n = 0;
  }
  l->n++;
}

static double finite_or_zero(double d) { return isfinite(d) && d > 0 ? d : 0.0; }

static bool is_run(const char *op) {
  return !op || strcmp(op, "run") == 0 || strcmp(op, "run_isolated") == 0 || strcmp(op, "test") == 0;
}

void geno_metrics_record(geno_metrics *m, const geno_result *r, const char *operation) {
  if (!m || !r) return;
  geno_outcome o = geno_result_outcome(r);
  pthread_mutex_lock(&m->lock);
  label_add(&m->operations, operation ? operation : "run");
  if (is_run(operation)) {
    m->runs++;
    if (r->ok) m->successes++;
    m->by_outcome[o]++;
    m->wall_ms += finite_or_zero(r->timing.total_ms);
    m->steps += r->steps;
    m->phase_ms[PHASE_LEX] += finite_or_zero(r->timing.lex_ms);
    m->phase_ms[PHASE_PARSE] += finite_or_zero(r->timing.parse_ms);
    m->phase_ms[PHASE_TYPECHECK] += finite_or_zero(r->timing.typecheck_ms);
    m->phase_ms[PHASE_RUN] += finite_or_zero(r->timing.run_ms);
    m->output_bytes += r->output_len;
    for (size_t i = 0; i < r->ndiags; i++) {
      int c = r->diags[i].code_number;
      if (c >= 0 && c < 1000) m->codes[c]++;
    }
  }
  pthread_mutex_unlock(&m->lock);
}

void geno_metrics_record_run(geno_metrics *m, geno_outcome outcome, double wall_ms, uint64_t steps,
                             const char *const *codes, size_t ncodes) {
  if (!m || (unsigned)outcome >= GENO_OUTCOME_COUNT) return;
  pthread_mutex_lock(&m->lock);
  label_add(&m->operations, "run");
  m->runs++;
  if (outcome == GENO_OUTCOME_SUCCESS) m->successes++;
  m->by_outcome[outcome]++;
  m->wall_ms += finite_or_zero(wall_ms);
  m->steps += steps;
  for (size_t i = 0; codes && i < ncodes; i++) {
    int c = code_number(codes[i]);
    if (c >= 0 && c < 1000) m->codes[c]++;
  }
  pthread_mutex_unlock(&m->lock);
}

void geno_metrics_monitor(const geno_result *r, const char *operation, void *userdata) {
  geno_metrics_record(userdata, r, operation);
}

void geno_metrics_record_http(geno_metrics *m, const char *endpoint, int status, const char *outcome) {
  if (!m) return;
  char st[16];
  snprintf(st, sizeof st, "%d", status);
  pthread_mutex_lock(&m->lock);
  m->http_posts++;
  label_add(&m->endpoints, endpoint);
  label_add(&m->statuses, st);
  label_add(&m->http_outcomes, outcome);
  pthread_mutex_unlock(&m->lock);
}

void geno_metrics_record_constrain(geno_metrics *m, int valid, double wall_ms) {
  if (!m) return;
  pthread_mutex_lock(&m->lock);
  m->constrain++;
  m->constrain_ms += finite_or_zero(wall_ms);
  if (valid > 0) m->constrain_valid++;
  else if (valid == 0) m->constrain_invalid++;
  else m->constrain_timeout++;
  pthread_mutex_unlock(&m->lock);
}

void geno_metrics_record_benchmark(geno_metrics *m, uint64_t total, uint64_t passed, uint64_t issues) {
  if (!m) return;
  pthread_mutex_lock(&m->lock);
  m->benchmarks++;
  m->has_last = true;
  m->last_success = passed == total && issues == 0;
  if (!m->last_success) m->benchmark_failures++;
  m->last_total = total;
  m->last_passed = passed;
  m->last_issues = issues;
  pthread_mutex_unlock(&m->lock);
}

bool geno_metrics_set_startup_errors(geno_metrics *m, const char *const *errors, size_t count) {
  if (!m) return false;
  char **copy = count ? calloc(count, sizeof *copy) : NULL;
  if (count && !copy) return false;
  for (size_t i = 0; i < count; i++) {
    copy[i] = clean_label(errors[i] ? errors[i] : "");
    if (!copy[i]) {
      for (size_t j = 0; j < i; j++) free(copy[j]);
      free(copy);
      return false;
    }
  }
  pthread_mutex_lock(&m->lock);
  startup_free(m);
  m->startup_errors = copy;
  m->nstartup = count;
  pthread_mutex_unlock(&m->lock);
  return true;
}

/* ------------------------------------------------------------------------ */
/* Rendering                                                                */
/* ------------------------------------------------------------------------ */

/* Python's repr(round(x, digits)) for the non-negative values metrics
 * hold: fixed notation, trailing zeros dropped, at least one decimal. */
static void put_round(Buf *b, double x, int digits) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%.*f", digits, isfinite(x) ? x : 0.0);
  size_t n = strlen(tmp);
  while (n >= 2 && tmp[n - 1] == '0' && tmp[n - 2] != '.') n--;
  buf_append(b, tmp, n);
}

static double avg(double total, uint64_t count) { return count ? total / (double)count : 0.0; }

static int label_cmp(const void *a, const void *b) {
  return strcmp(((const Label *)a)->key, ((const Label *)b)->key);
}

/* The labels sorted by value (a copy; keys stay borrowed). */
static size_t sorted_labels(const LabelSet *s, Label *out) {
  memcpy(out, s->items, s->count * sizeof *out);
  qsort(out, s->count, sizeof *out, label_cmp);
  return s->count;
}

static void json_key(Buf *b, const char *key, bool *first) {
  if (!*first) buf_putc(b, ',');
  *first = false;
  buf_json_string(b, key, strlen(key));
  buf_putc(b, ':');
}

static void json_u64(Buf *b, const char *key, uint64_t v, bool *first) {
  json_key(b, key, first);
  buf_printf(b, "%llu", (unsigned long long)v);
}

static void json_float(Buf *b, const char *key, double v, int digits, bool *first) {
  json_key(b, key, first);
  put_round(b, v, digits);
}

static void json_labels(Buf *b, const char *key, const LabelSet *s, bool *first) {
  Label sorted[METRICS_MAX_LABELS + 1];
  size_t n = sorted_labels(s, sorted);
  json_key(b, key, first);
  buf_putc(b, '{');
  bool inner = true;
  for (size_t i = 0; i < n; i++) json_u64(b, sorted[i].key, sorted[i].n, &inner);
  buf_putc(b, '}');
}

static char *finish(Buf *b) {
  if (b->failed) {
    buf_free(b);
    return NULL;
  }
  return buf_take(b);
}

char *geno_metrics_snapshot_json(geno_metrics *m) {
  if (!m) return NULL;
  Buf b = BUF_INIT;
  bool first = true;
  pthread_mutex_lock(&m->lock);
  buf_putc(&b, '{');
  json_u64(&b, "http_post_requests", m->http_posts, &first);
  json_labels(&b, "http_post_requests_by_endpoint", &m->endpoints, &first);
  json_labels(&b, "http_post_requests_by_status", &m->statuses, &first);
  json_labels(&b, "http_post_requests_by_outcome", &m->http_outcomes, &first);
  json_u64(&b, "total_runs", m->runs, &first);
  json_u64(&b, "successful_runs", m->successes, &first);
  json_u64(&b, "failed_runs", m->runs - m->successes, &first);
  json_float(&b, "success_rate", avg((double)m->successes, m->runs), 4, &first);
  static const char *const outcome_keys[GENO_OUTCOME_COUNT] = {
      NULL, "syntax_error_runs", "type_error_runs", "runtime_error_runs", "timeout_runs",
      "capability_denied_runs", "host_callback_missing_runs", "security_violation_runs",
      "resource_limit_runs"};
  for (int o = 1; o < GENO_OUTCOME_COUNT; o++) json_u64(&b, outcome_keys[o], m->by_outcome[o], &first);
  json_float(&b, "total_wall_time_ms", m->wall_ms, 2, &first);
  json_float(&b, "average_wall_time_ms", avg(m->wall_ms, m->runs), 2, &first);
  json_u64(&b, "total_steps", m->steps, &first);
  json_float(&b, "average_steps", avg((double)m->steps, m->runs), 2, &first);
  json_u64(&b, "constrain_requests", m->constrain, &first);
  json_u64(&b, "valid_constrain_requests", m->constrain_valid, &first);
  json_u64(&b, "invalid_constrain_requests", m->constrain_invalid, &first);
  json_u64(&b, "timeout_constrain_requests", m->constrain_timeout, &first);
  json_float(&b, "total_constrain_wall_time_ms", m->constrain_ms, 2, &first);
  json_float(&b, "average_constrain_wall_time_ms", avg(m->constrain_ms, m->constrain), 2, &first);
  json_u64(&b, "benchmark_validations", m->benchmarks, &first);
  json_u64(&b, "benchmark_validation_failures", m->benchmark_failures, &first);
  json_key(&b, "last_benchmark_validation", &first);
  if (m->has_last) {
    bool inner = true;
    buf_putc(&b, '{');
    json_key(&b, "success", &inner);
    buf_puts(&b, m->last_success ? "true" : "false");
    json_u64(&b, "total_problems", m->last_total, &inner);
    json_u64(&b, "canonical_passed", m->last_passed, &inner);
    json_float(&b, "canonical_pass_rate", avg((double)m->last_passed, m->last_total), 4, &inner);
    json_u64(&b, "problems_with_issues", m->last_issues, &inner);
    buf_putc(&b, '}');
  } else {
    buf_puts(&b, "null");
  }
  /* This library's additions. */
  json_key(&b, "phase_wall_time_ms", &first);
  buf_putc(&b, '{');
  bool inner = true;
  for (int p = 0; p < PHASE_COUNT; p++) json_float(&b, phase_names[p], m->phase_ms[p], 2, &inner);
  buf_putc(&b, '}');
  json_u64(&b, "total_output_bytes", m->output_bytes, &first);
  json_key(&b, "diagnostic_codes", &first);
  buf_putc(&b, '{');
  inner = true;
  for (int c = 0; c < 1000; c++)
    if (m->codes[c]) {
      char code[8];
      snprintf(code, sizeof code, "E%03d", c);
      json_u64(&b, code, m->codes[c], &inner);
    }
  buf_putc(&b, '}');
  json_labels(&b, "operations", &m->operations, &first);
  buf_putc(&b, '}');
  pthread_mutex_unlock(&m->lock);
  return finish(&b);
}

static void json_check(Buf *b, const char *name, const char *status, const char *detail, bool *first) {
  if (!*first) buf_putc(b, ',');
  *first = false;
  buf_puts(b, "{\"name\":");
  buf_json_string(b, name ? name : "", name ? strlen(name) : 0);
  buf_puts(b, ",\"status\":");
  buf_json_string(b, status ? status : "", status ? strlen(status) : 0);
  buf_puts(b, ",\"detail\":");
  buf_json_string(b, detail ? detail : "", detail ? strlen(detail) : 0);
  buf_putc(b, '}');
}

static double seconds_since(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

char *geno_metrics_health_json(geno_metrics *m, const geno_health_check *extra, size_t nextra) {
  if (!m) return NULL;
  Buf checks = BUF_INIT, detail = BUF_INIT, b = BUF_INIT;
  bool any_fail = false, any_warn = false, first = true;
  pthread_mutex_lock(&m->lock);
  if (m->nstartup) {
    for (size_t i = 0; i < m->nstartup; i++) {
      if (i) buf_puts(&detail, "; ");
      buf_puts(&detail, m->startup_errors[i]);
    }
    json_check(&checks, "startup_checks", "fail", detail.data ? detail.data : "", &first);
    any_fail = true;
  } else {
    json_check(&checks, "startup_checks", "pass", "all startup checks passed", &first);
  }
  json_check(&checks, "runtime_api", "pass",
             "geno_run() and geno_run_isolated() are the supported production entry points", &first);
  buf_clear(&detail);
  buf_printf(&detail, "observed_http_post_requests=%llu, observed_runs=%llu, observed_constrain_requests=%llu",
             (unsigned long long)m->http_posts, (unsigned long long)m->runs, (unsigned long long)m->constrain);
  json_check(&checks, "metrics_collector", "pass", detail.data, &first);
  if (m->has_last) {
    buf_clear(&detail);
    buf_printf(&detail, "canonical_passed=%llu/%llu, problems_with_issues=%llu",
               (unsigned long long)m->last_passed, (unsigned long long)m->last_total,
               (unsigned long long)m->last_issues);
    json_check(&checks, "benchmark_validation", m->last_success ? "pass" : "fail", detail.data, &first);
    any_fail = any_fail || !m->last_success;
  }
  struct timespec wall;
  clock_gettime(CLOCK_REALTIME, &wall);
  double uptime = seconds_since(&m->started);
  buf_puts(&b, "{\"status\":");
  for (size_t i = 0; extra && i < nextra; i++) {
    json_check(&checks, extra[i].name, extra[i].status, extra[i].detail, &first);
    if (extra[i].status && strcmp(extra[i].status, "fail") == 0) any_fail = true;
    if (extra[i].status && strcmp(extra[i].status, "warn") == 0) any_warn = true;
  }
  buf_puts(&b, any_fail ? "\"failed\"" : any_warn ? "\"degraded\"" : "\"ok\"");
  buf_puts(&b, ",\"generated_at_unix\":");
  put_round(&b, (double)wall.tv_sec + (double)wall.tv_nsec / 1e9, 3);
  buf_puts(&b, ",\"uptime_seconds\":");
  put_round(&b, uptime, 3);
  buf_puts(&b, ",\"build\":{\"service\":");
  buf_json_string(&b, m->service, strlen(m->service));
  buf_puts(&b, ",\"version\":\"" GENO_VERSION "\",\"language_version\":\"" GENO_LANGUAGE_VERSION "\"");
  buf_puts(&b, ",\"revision\":");
  if (m->revision) buf_json_string(&b, m->revision, strlen(m->revision));
  else buf_puts(&b, "null");
  buf_puts(&b, "},\"checks\":[");
  pthread_mutex_unlock(&m->lock);
  if (checks.failed) b.failed = true;
  else if (checks.len) buf_append(&b, checks.data, checks.len);
  buf_puts(&b, "]}");
  buf_free(&checks);
  buf_free(&detail);
  return finish(&b);
}

/* Prometheus text: one family = HELP, TYPE, samples; lines joined by
 * "\n" with none after the last (as the reference renders it). */
static void prom_head(Buf *b, const char *name, const char *type, const char *help) {
  if (b->len) buf_putc(b, '\n');
  buf_printf(b, "# HELP %s %s\n# TYPE %s %s", name, help, name, type);
}

static void prom_u64(Buf *b, const char *name, const char *type, const char *help, uint64_t v) {
  prom_head(b, name, type, help);
  buf_printf(b, "\n%s %llu", name, (unsigned long long)v);
}

static void prom_float(Buf *b, const char *name, const char *type, const char *help, double v, int digits) {
  prom_head(b, name, type, help);
  buf_printf(b, "\n%s %.*f", name, digits, isfinite(v) ? v : 0.0);
}

static void prom_label_value(Buf *b, const char *v) {
  for (const char *p = v; *p; p++) {
    if (*p == '\\') buf_puts(b, "\\\\");
    else if (*p == '\n') buf_puts(b, "\\n");
    else if (*p == '"') buf_puts(b, "\\\"");
    else buf_putc(b, *p);
  }
}

static void prom_labels(Buf *b, const char *name, const char *help, const char *label, const LabelSet *s) {
  if (!s->count) return;
  Label sorted[METRICS_MAX_LABELS + 1];
  size_t n = sorted_labels(s, sorted);
  prom_head(b, name, "counter", help);
  for (size_t i = 0; i < n; i++) {
    buf_printf(b, "\n%s{%s=\"", name, label);
    prom_label_value(b, sorted[i].key);
    buf_printf(b, "\"} %llu", (unsigned long long)sorted[i].n);
  }
}

char *geno_metrics_prometheus(geno_metrics *m) {
  if (!m) return NULL;
  Buf b = BUF_INIT;
  pthread_mutex_lock(&m->lock);
  prom_u64(&b, "geno_http_post_requests_total", "counter",
           "Total handled POST requests for hosted execution endpoints.", m->http_posts);
  prom_labels(&b, "geno_http_post_requests_by_endpoint_total", "Handled POST requests grouped by endpoint.",
              "endpoint", &m->endpoints);
  prom_labels(&b, "geno_http_post_requests_by_status_total",
              "Handled POST requests grouped by HTTP status code.", "status", &m->statuses);
  prom_labels(&b, "geno_http_post_requests_by_outcome_total",
              "Handled POST requests grouped by server outcome classification.", "outcome", &m->http_outcomes);
  prom_u64(&b, "geno_run_requests_total", "counter", "Total geno.run() invocations.", m->runs);
  prom_u64(&b, "geno_run_success_total", "counter", "Successful runs.", m->successes);
  static const struct {
    const char *name, *help;
    geno_outcome o;
  } fams[] = {
      {"geno_run_syntax_error_total", "Runs that failed with a syntax error.", GENO_OUTCOME_SYNTAX_ERROR},
      {"geno_run_type_error_total", "Runs that failed with a type error.", GENO_OUTCOME_TYPE_ERROR},
      {"geno_run_runtime_error_total", "Runs that failed with a runtime error.", GENO_OUTCOME_RUNTIME_ERROR},
      {"geno_run_timeout_total", "Runs that timed out.", GENO_OUTCOME_TIMEOUT},
      {"geno_run_capability_denied_total", "Runs denied by capability check.", GENO_OUTCOME_CAPABILITY_DENIED},
      {"geno_run_host_callback_missing_total", "Runs with missing host callback.",
       GENO_OUTCOME_HOST_CALLBACK_MISSING},
      {"geno_run_security_violation_total", "Runs with security violation.", GENO_OUTCOME_SECURITY_VIOLATION},
      {"geno_run_resource_limit_total", "Runs hitting resource limits.", GENO_OUTCOME_RESOURCE_LIMIT},
  };
  for (size_t i = 0; i < ARRAY_LEN(fams); i++)
    prom_u64(&b, fams[i].name, "counter", fams[i].help, m->by_outcome[fams[i].o]);
  prom_float(&b, "geno_run_wall_time_ms_total", "counter", "Cumulative wall time in ms.", m->wall_ms, 2);
  prom_float(&b, "geno_run_wall_time_ms_average", "gauge", "Average wall time per run in ms.",
             avg(m->wall_ms, m->runs), 2);
  prom_u64(&b, "geno_run_steps_total", "counter", "Cumulative interpreter steps.", m->steps);
  prom_float(&b, "geno_run_steps_average", "gauge", "Average interpreter steps per run.",
             avg((double)m->steps, m->runs), 2);
  prom_u64(&b, "geno_constrain_requests_total", "counter",
           "Total /constrain requests that reached constraint evaluation.", m->constrain);
  prom_u64(&b, "geno_constrain_valid_total", "counter", "Constrain requests with a valid Geno prefix.",
           m->constrain_valid);
  prom_u64(&b, "geno_constrain_invalid_total", "counter", "Constrain requests with an invalid Geno prefix.",
           m->constrain_invalid);
  prom_u64(&b, "geno_constrain_timeout_total", "counter",
           "Constrain requests that timed out before producing a result.", m->constrain_timeout);
  prom_float(&b, "geno_constrain_wall_time_ms_total", "counter",
             "Cumulative constraint evaluation wall time in ms.", m->constrain_ms, 2);
  prom_float(&b, "geno_constrain_wall_time_ms_average", "gauge",
             "Average constraint evaluation wall time per request in ms.", avg(m->constrain_ms, m->constrain),
             2);
  prom_u64(&b, "geno_benchmark_validation_total", "counter", "Total benchmark validations.", m->benchmarks);
  prom_u64(&b, "geno_benchmark_validation_failures_total", "counter", "Failed benchmark validations.",
           m->benchmark_failures);
  if (m->has_last) {
    prom_float(&b, "geno_benchmark_last_canonical_pass_rate", "gauge",
               "Pass rate from the last benchmark validation.", avg((double)m->last_passed, m->last_total), 4);
    prom_u64(&b, "geno_benchmark_last_problems_with_issues", "gauge",
             "Problems with issues from the last benchmark validation.", m->last_issues);
  }
  /* This library's additions, only once there is something to show, so
   * a fresh collector renders exactly the reference's families. */
  if (m->runs) {
    prom_head(&b, "geno_run_phase_wall_time_ms_total", "counter", "Cumulative wall time per run phase in ms.");
    for (int p = 0; p < PHASE_COUNT; p++)
      buf_printf(&b, "\ngeno_run_phase_wall_time_ms_total{phase=\"%s\"} %.2f", phase_names[p], m->phase_ms[p]);
    prom_u64(&b, "geno_run_output_bytes_total", "counter", "Cumulative program output in bytes.",
             m->output_bytes);
    bool any = false;
    for (int c = 0; c < 1000; c++)
      if (m->codes[c]) {
        if (!any) prom_head(&b, "geno_run_diagnostics_total", "counter", "Diagnostics reported by runs, by code.");
        any = true;
        buf_printf(&b, "\ngeno_run_diagnostics_total{code=\"E%03d\"} %llu", c, (unsigned long long)m->codes[c]);
      }
  }
  prom_labels(&b, "geno_operations_total", "Operations reported to the collector, by kind.", "operation",
              &m->operations);
  pthread_mutex_unlock(&m->lock);
  return finish(&b);
}
