/* libFuzzer target: the hosted service's request pipeline without sockets
 * (src/server/pipeline.c: srv_service_begin, then the body rules of
 * srv_request_parse), on hostile requests: method, target, headers (Host,
 * Origin, Authorization / X-API-Key, X-Forwarded-For / -Proto,
 * Content-Type / -Length, Transfer-Encoding, repeats) and the JSON body of
 * /run, /check, /test and /constrain. Nothing is run: a body that passes
 * validation is not handed to a sandboxed child (that is fuzz_run's and
 * the isolation tests' ground), except /constrain, which the pipeline
 * answers in process, and GET /healthz, /metrics and the playground.
 *
 * Input: byte 0 picks one of four services (configurations below), byte 1
 * the peer address; the rest is a request in HTTP/1.1 text form,
 *   METHOD SP TARGET LF (NAME ":" VALUE LF)* LF BODY
 * (CR before LF is dropped, a NUL ends a value as it would in
 * libmicrohttpd's C strings). The body given to the pipeline is what
 * follows the blank line, cut at Content-Length when longer.
 *
 * Properties checked (a failure prints "*** fuzz property failed" and
 * traps), besides the sanitizers:
 * - every request is answered or waits for exactly Content-Length bytes
 *   (at most the body limit), never both;
 * - the status is one of the pipeline's (200 204 400 401 403 404 413 421
 *   429 500 501 503 504);
 * - no response header name or value holds CR, LF or NUL (no header
 *   injection through Origin or anything else echoed), names are tokens;
 * - a JSON body (every status but the GET pages) is valid JSON, ASCII only;
 *   error bodies are {"error": String};
 * - a POST that got a request id answers with X-Request-Id of 36 characters;
 * - a validated request holds only what the service allows: capabilities
 *   within --allow-capability, timeout within the maximum, steps within the
 *   maximum, at most GENO_MAX_MODULES modules each within the size limit,
 *   the source within the body limit. */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <geno.h>

#include "server/server.h"

#define FAIL(...)                                                \
  do {                                                           \
    fprintf(stderr, "*** fuzz property failed: " __VA_ARGS__);   \
    fputc('\n', stderr);                                         \
    __builtin_trap();                                            \
  } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NSERVICES = 4, MAX_HEADERS = 64 };

static SrvService *services[NSERVICES];
static geno_metrics *metrics;

static const char *const peers[] = {"127.0.0.1", "10.0.0.7", "::1", "203.0.113.9"};

/* The four configurations: defaults; a key, allowed hosts and CORS
 * origins; a trusted proxy with a tight rate limit, small body and module
 * limits; every capability allowed with the env allow-list. */
static SrvService *service(int which) {
  static const char *const vars[] = {
      "GENO_API_KEY", "GENO_ALLOWED_HOSTS", "GENO_CORS_ORIGINS", "GENO_TRUSTED_PROXY",
      "GENO_RATE_LIMIT_REQUESTS", "GENO_MAX_REQUEST_BODY_BYTES", "GENO_MAX_MODULES",
      "GENO_MAX_MODULE_SOURCE_BYTES", "GENO_MAX_JSON_NESTING_DEPTH", "GENO_ALLOWED_ENV_NAMES",
      "GENO_MAX_TIMEOUT_SECONDS", "GENO_REQUIRE_AUTH_FOR_METRICS"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) unsetenv(vars[i]);
  char *argv[8] = {"serve"};
  int argc = 1;
  switch (which) {
  case 1:
    setenv("GENO_API_KEY", "k3y-secret", 1);
    setenv("GENO_ALLOWED_HOSTS", "api.example.com,Example.ORG:8443,[::1]", 1);
    setenv("GENO_CORS_ORIGINS", "https://app.example.com,http://localhost:3000", 1);
    setenv("GENO_REQUIRE_AUTH_FOR_METRICS", "true", 1);
    break;
  case 2:
    setenv("GENO_TRUSTED_PROXY", "10.0.0.7", 1);
    setenv("GENO_RATE_LIMIT_REQUESTS", "3", 1);
    setenv("GENO_MAX_REQUEST_BODY_BYTES", "512", 1);
    setenv("GENO_MAX_MODULES", "2", 1);
    setenv("GENO_MAX_MODULE_SOURCE_BYTES", "64", 1);
    setenv("GENO_MAX_JSON_NESTING_DEPTH", "4", 1);
    setenv("GENO_MAX_TIMEOUT_SECONDS", "2.5", 1);
    break;
  case 3:
    argv[argc++] = "--allow-capability";
    argv[argc++] = "print,clock,random,env,fs,http,process";
    setenv("GENO_ALLOWED_ENV_NAMES", "HOME,LANG", 1);
    break;
  default: break;
  }
  SrvConfig cfg;
  if (srv_config_load(&cfg, argc, argv) != 0) {
    fprintf(stderr, "fuzz_server: configuration %d was refused\n", which);
    abort();
  }
  SrvService *s = srv_service_new(&cfg, metrics);
  if (!s) abort();
  return s;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  metrics = geno_metrics_new("fuzz", NULL);
  if (!metrics) abort();
  for (int i = 0; i < NSERVICES; i++) services[i] = service(i);
  /* quiet (a log line per POST otherwise); after loading, which sets it */
  srv_log_level = SRV_LOG_ERROR + 10;
  return 0;
}

/* A copy of [p, p+n) up to its first NUL, without a trailing CR. */
static char *text(const uint8_t *p, size_t n) {
  const uint8_t *z = memchr(p, 0, n);
  if (z) n = (size_t)(z - p);
  if (n && p[n - 1] == '\r') n--;
  char *s = malloc(n + 1);
  if (!s) abort();
  memcpy(s, p, n);
  s[n] = '\0';
  return s;
}

static bool is_token_char(unsigned char c) {
  return c > 32 && c < 127 && !strchr("()<>@,;:\\\"/[]?={}", c);
}

static void check_headers(const SrvExchange *x) {
  for (size_t i = 0; i < x->nout; i++) {
    const char *n = x->out[i].name, *v = x->out[i].value;
    if (!n || !v || !n[0]) FAIL("response header %zu without a name or value", i);
    for (const char *p = n; *p; p++)
      if (!is_token_char((unsigned char)*p)) FAIL("response header name '%s' is not a token", n);
    for (const char *p = v; *p; p++)
      if (*p == '\r' || *p == '\n') FAIL("response header %s holds a line break: '%s'", n, v);
  }
}

static const char *out_header(const SrvExchange *x, const char *name) {
  for (size_t i = 0; i < x->nout; i++)
    if (strcmp(x->out[i].name, name) == 0) return x->out[i].value;
  return NULL;
}

static void check_answer(const SrvExchange *x, bool post) {
  static const int statuses[] = {200, 204, 400, 401, 403, 404, 413, 421, 429, 500, 501, 503, 504};
  bool known = false;
  for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++) known |= x->status == statuses[i];
  if (!known) FAIL("status %d is not one the pipeline gives", x->status);
  check_headers(x);
  const char *type = out_header(x, "Content-Type");
  if (x->status == 204 && x->body_len) FAIL("a 204 with a body");
  if (type && strncmp(type, "application/json", 16) == 0) {
    for (size_t i = 0; i < x->body_len; i++)
      if ((unsigned char)x->body[i] >= 0x80) FAIL("JSON body not ASCII at byte %zu", i);
    json_error_t e;
    json_t *j = json_loadb(x->body, x->body_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    if (!j) FAIL("JSON body does not parse (%s): %.*s", e.text, (int)(x->body_len > 300 ? 300 : x->body_len), x->body);
    if (x->status >= 400 && !(json_is_object(j) && json_is_string(json_object_get(j, "error"))))
      FAIL("error body %d is not {\"error\": String}", x->status);
    json_decref(j);
  }
  if (post && x->request_id[0]) {
    const char *id = out_header(x, "X-Request-Id");
    if (x->status != 421 && (!id || strlen(id) != 36)) FAIL("POST answered %d without its X-Request-Id", x->status);
  }
}

static void check_request(const SrvConfig *cfg, const SrvRequest *req) {
  if (req->caps & ~cfg->allowed_caps) FAIL("capabilities %#x beyond the allowed %#x", req->caps, cfg->allowed_caps);
  if (req->endpoint != SRV_CONSTRAIN) {
    /* 5 s when not given (the reference's default, which the maximum does
     * not cap: the wall-clock limit does) */
    if (!(req->timeout_s > 0) || (req->timeout_s > cfg->max_timeout && req->timeout_s != 5.0))
      FAIL("timeout %g outside (0, %g]", req->timeout_s, cfg->max_timeout);
    if (req->max_steps == 0 || req->max_steps > cfg->max_steps)
      FAIL("max_steps %llu outside [1, %llu]", (unsigned long long)req->max_steps,
           (unsigned long long)cfg->max_steps);
  }
  if (req->source_len > cfg->max_body) FAIL("source of %zu bytes past the body limit", req->source_len);
  if (req->nmodules > cfg->max_modules) FAIL("%zu modules past the limit", req->nmodules);
  for (size_t i = 0; i < req->nmodules; i++) {
    if (!req->modules[i].name || !req->modules[i].name[0]) FAIL("module %zu without a name", i);
    if (req->modules[i].length > cfg->max_module_bytes) FAIL("module %zu past the size limit", i);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  SrvService *s = services[data[0] % NSERVICES];
  const char *peer = peers[data[1] % (sizeof peers / sizeof *peers)];
  const char *scheme = (data[1] & 0x80) ? "https" : NULL;
  data += 2;
  size -= 2;
  /* request line */
  const uint8_t *end = data + size, *p = data;
  const uint8_t *nl = memchr(p, '\n', size);
  if (!nl) return 0;
  char *line = text(p, (size_t)(nl - p));
  p = nl + 1;
  char *sp = strchr(line, ' ');
  const char *method = line, *target = "";
  if (sp) {
    *sp = '\0';
    target = sp + 1;
  }
  /* headers */
  SrvHttpHeader headers[MAX_HEADERS];
  char *owned[MAX_HEADERS];
  size_t nh = 0;
  while (p < end) {
    nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    const uint8_t *next = nl ? nl + 1 : end;
    if (n == 0 || (n == 1 && p[0] == '\r')) {
      p = next;
      break;
    }
    char *h = text(p, n);
    p = next;
    char *colon = strchr(h, ':');
    if (!colon || nh == MAX_HEADERS) {
      free(h);
      continue;
    }
    *colon = '\0';
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t') v++;
    owned[nh] = h;
    headers[nh].name = h;
    headers[nh].value = v;
    nh++;
  }
  const char *body = (const char *)p;
  size_t body_len = (size_t)(end - p);

  SrvExchange x;
  memset(&x, 0, sizeof x);
  x.method = method;
  x.target = target;
  x.headers = headers;
  x.nheaders = nh;
  x.peer = peer;
  x.bind_host = "127.0.0.1";
  x.port = 8000;
  x.scheme = scheme;
  bool post = strcmp(method, "POST") == 0;
  srv_service_begin(s, &x);
  SrvConfig *cfg = srv_service_config(s);
  if (x.done == x.awaiting_body) FAIL("done %d and awaiting the body %d", x.done, x.awaiting_body);
  if (x.awaiting_body) {
    if (!post) FAIL("%s waits for a body", method);
    if (x.need_body > cfg->max_body) FAIL("waits for %zu bytes, past the body limit", x.need_body);
    size_t len = body_len < x.need_body ? body_len : x.need_body;
    if (x.endpoint == SRV_CONSTRAIN || len < x.need_body) {
      /* answered in process: the recognizer, or the short body's 400 */
      srv_service_finish(s, &x, body, len);
      if (!x.done) FAIL("the body did not finish the request");
      check_answer(&x, true);
    } else {
      /* the validation srv_service_finish does before the run */
      char *copy = malloc(len + 1);
      if (!copy) abort();
      memcpy(copy, body, len);
      copy[len] = '\0';
      SrvRequest req;
      bool msg_owned = false;
      const char *msg = srv_request_parse(cfg, x.endpoint, copy, len, &req, &msg_owned);
      free(copy);
      if (msg) {
        if (!msg[0]) FAIL("an empty validation message");
        SrvReply rep;
        srv_error_reply(&rep, 400, "bad_request", msg);
        if (!rep.body) abort();
        json_error_t e;
        json_t *j = json_loadb(rep.body, rep.len, 0, &e);
        if (!j) FAIL("the 400 body for '%s' does not parse", msg);
        json_decref(j);
        free(rep.body);
        if (msg_owned) free((char *)msg);
      } else {
        if (req.endpoint != x.endpoint) FAIL("parsed for another endpoint");
        check_request(cfg, &req);
        srv_request_free(&req);
      }
    }
  } else {
    check_answer(&x, post);
  }
  srv_exchange_end(s, &x);
  for (size_t i = 0; i < nh; i++) free(owned[i]);
  free(line);
  return 0;
}
