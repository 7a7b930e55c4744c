/* The hosted service's request pipeline over any transport (server.h,
 * "pipeline.c"), on a request given as method, target, header list and
 * peer: http.c runs it on libmicrohttpd for `geno serve`, and the Python
 * package's geno.server.create_handler behind a ThreadingHTTPServer. The
 * rules themselves are policy.c's, request.c's and worker.c's; the
 * differential test python/tests/test_server_handler.py sends the same
 * requests to both servers and fails if they answer differently. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "server.h"
#include "../host/httpd.h"

struct SrvService {
  SrvConfig cfg;
  geno_metrics *metrics; /* borrowed */
  SrvRateLimiter *rate;
  atomic_uint executing;
};

SrvService *srv_service_new(SrvConfig *cfg, geno_metrics *metrics) {
  SrvService *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->rate = srv_rate_new(cfg->rate_limit, cfg->rate_window, cfg->rate_buckets);
  if (!s->rate) {
    free(s);
    return NULL;
  }
  s->cfg = *cfg;
  memset(cfg, 0, sizeof *cfg);
  s->metrics = metrics;
  return s;
}

void srv_service_free(SrvService *s) {
  if (!s) return;
  srv_rate_free(s->rate);
  srv_config_free(&s->cfg);
  free(s);
}

SrvConfig *srv_service_config(SrvService *s) { return &s->cfg; }

/* ---- the request's headers ---------------------------------------------- */

static HostHeader header(const SrvExchange *x, const char *name, bool join) {
  HostHeader h = {name, 0, NULL, NULL, join};
  for (size_t i = 0; i < x->nheaders; i++) {
    if (strcasecmp(x->headers[i].name, name) != 0) continue;
    const char *v = x->headers[i].value ? x->headers[i].value : "";
    if (h.count++ == 0) h.first = v;
    if (join) {
      size_t old = h.joined ? strlen(h.joined) : 0, add = strlen(v);
      char *p = realloc(h.joined, old + add + 2);
      if (!p) continue;
      if (old) p[old++] = ',';
      memcpy(p + old, v, add + 1);
      h.joined = p;
    }
  }
  return h;
}

/* ---- responses ----------------------------------------------------------- */

static void add_header(SrvExchange *x, const char *name, const char *value) {
  if (x->nout >= sizeof x->out / sizeof *x->out) return;
  x->out[x->nout].name = name;
  x->out[x->nout].value = value;
  x->nout++;
}

static void add_security_headers(SrvExchange *x) {
  add_header(x, "X-Content-Type-Options", "nosniff");
  add_header(x, "Cache-Control", "no-store");
  add_header(x, "Referrer-Policy", "no-referrer");
}

static void add_cors_headers(SrvService *s, SrvExchange *x) {
  add_header(x, "Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  add_header(x, "Access-Control-Allow-Headers", "Content-Type, Authorization, X-API-Key");
  add_header(x, "Access-Control-Max-Age", "3600");
  HostHeader o = header(x, "Origin", false);
  if (o.count == 1)
    for (size_t i = 0; i < s->cfg.cors_origins.count; i++)
      if (strcmp(s->cfg.cors_origins.items[i], o.first) == 0) {
        add_header(x, "Access-Control-Allow-Origin", o.first);
        add_header(x, "Vary", "Origin");
      }
}

enum { H_CORS = 2, H_SECURITY = 4, H_REQID = 8 };
static const char JSON_TYPE[] = "application/json; charset=utf-8";

/* The answer: status, a body taken (released with release; NULL: none),
 * its type and the header groups of flags. */
static void respond(SrvService *s, SrvExchange *x, int status, char *body, size_t len, void (*release)(void *),
                    const char *content_type, unsigned flags) {
  x->status = status;
  x->body = body;
  x->body_len = body ? len : 0;
  x->release = release ? release : free;
  x->need_body = 0;
  x->done = true;
  if (content_type) add_header(x, "Content-Type", content_type);
  if (flags & H_CORS) add_cors_headers(s, x);
  if (flags & H_SECURITY) add_security_headers(x);
  if ((flags & H_REQID) && x->request_id[0]) add_header(x, "X-Request-Id", x->request_id);
}

static void respond_json_error(SrvService *s, SrvExchange *x, int status, const char *msg, unsigned flags) {
  SrvReply rep;
  srv_error_reply(&rep, status, "", msg);
  respond(s, x, status, rep.body, rep.len, free, JSON_TYPE, flags);
}

static void respond_bad_host(SrvService *s, SrvExchange *x) {
  static const char body[] = "{\"error\": \"invalid Host header\"}\n";
  char *b = strdup(body);
  respond(s, x, 421, b, sizeof body - 1, free, JSON_TYPE, H_SECURITY);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void uuid4(char out[40]) {
  unsigned char b[16];
  size_t got = 0;
  while (got < sizeof b) {
    ssize_t k = getrandom(b + got, sizeof b - got, 0);
    if (k > 0) got += (size_t)k;
    else if (errno != EINTR) break;
  }
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
  snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
           b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* ---- pipeline pieces (http.c's, on the header list) ------------------------ */

static bool host_ok(SrvService *s, SrvExchange *x, bool healthz_get) {
  HostHeader h = header(x, "Host", false);
  if (s->cfg.hosts_any) return true;
  if (h.count != 1) return false;
  if (srv_host_allowed(&s->cfg, x->bind_host, x->port, h.first)) return true;
  if (healthz_get) { /* local probes may name any loopback port */
    char *hh;
    int hp;
    if (srv_is_loopback_name(x->peer) && srv_parse_host_port(h.first, &hh, &hp)) {
      bool ok = srv_is_loopback_name(hh);
      free(hh);
      return ok;
    }
  }
  return false;
}

static bool authenticated(SrvService *s, SrvExchange *x) {
  if (!s->cfg.api_key) return false;
  HostHeader a = header(x, "Authorization", false);
  if (a.count == 1 && strncmp(a.first, "Bearer ", 7) == 0 &&
      srv_key_equal(a.first + 7, strlen(a.first + 7), s->cfg.api_key))
    return true;
  HostHeader k = header(x, "X-API-Key", false);
  return k.count == 1 && k.first[0] && srv_key_equal(k.first, strlen(k.first), s->cfg.api_key);
}

static void post_done(SrvService *s, SrvExchange *x, int status, const char *outcome) {
  if (x->post_logged) return;
  x->post_logged = true;
  geno_metrics_record_http(s->metrics, x->path, status, outcome);
  srv_log(SRV_LOG_INFO, "request_id=%s client_ip=%s status=%d duration_ms=%.2f source_bytes=%zu outcome=%s",
          x->request_id, x->client, status, now_ms() - x->start, x->source_bytes, outcome);
}

static void post_error(SrvService *s, SrvExchange *x, int status, const char *outcome, const char *msg) {
  post_done(s, x, status, outcome);
  respond_json_error(s, x, status, msg, H_CORS | H_SECURITY | H_REQID);
}

static bool endpoint_of(const char *uri, SrvEndpoint *e) {
  if (strcmp(uri, "/run") == 0) *e = SRV_RUN;
  else if (strcmp(uri, "/check") == 0) *e = SRV_CHECK;
  else if (strcmp(uri, "/test") == 0) *e = SRV_TEST;
  else if (strcmp(uri, "/constrain") == 0) *e = SRV_CONSTRAIN;
  else return false;
  return true;
}

static void unknown_endpoint(SrvService *s, SrvExchange *x) {
  char *msg = NULL;
  if (asprintf(&msg, "unknown endpoint: %s", x->target) < 0) msg = NULL;
  respond_json_error(s, x, 404, msg ? msg : "unknown endpoint", H_CORS | H_SECURITY);
  free(msg);
}

static const char *body_header_error(SrvService *s, SrvExchange *x, size_t *length) {
  if (header(x, "Transfer-Encoding", false).count) return "Transfer-Encoding is not supported";
  HostHeader ct = header(x, "Content-Type", false);
  if (ct.count == 0) return "missing Content-Type header";
  if (ct.count > 1) return "ambiguous Content-Type header";
  const char *v = ct.first;
  while (*v == ' ' || *v == '\t') v++;
  size_t n = strcspn(v, ";");
  while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
  if (n != 16 || strncasecmp(v, "application/json", 16) != 0) return "Content-Type must be application/json";
  HostHeader cl = header(x, "Content-Length", false);
  switch (host_content_length_of(cl.count, cl.first, s->cfg.max_body, length)) {
    case HOST_CL_OK: return NULL;
    case HOST_CL_NONE: return "missing Content-Length header";
    case HOST_CL_AMBIGUOUS: return "ambiguous Content-Length header";
    case HOST_CL_NEGATIVE: return "invalid Content-Length: must not be negative";
    case HOST_CL_INVALID: return "invalid Content-Length header";
    case HOST_CL_TOO_LARGE: return "__too_large__";
  }
  return "invalid Content-Length header";
}

static void post_first(SrvService *s, SrvExchange *x) {
  if (!host_ok(s, x, false)) return respond_bad_host(s, x);
  if (!endpoint_of(x->target, &x->endpoint)) return unknown_endpoint(s, x);
  snprintf(x->path, sizeof x->path, "%s", x->target);
  HostHeader origin = header(x, "Origin", false);
  if (origin.count > 1) return respond_json_error(s, x, 403, "cross-origin request is not allowed", H_CORS | H_SECURITY);
  if (origin.count == 1 && origin.first[0]) {
    const char *scheme = x->scheme ? x->scheme : "http";
    if (s->cfg.trusted_proxy && strcmp(s->cfg.trusted_proxy, x->peer) == 0) {
      HostHeader xfp = header(x, "X-Forwarded-Proto", false);
      if (xfp.count > 1) scheme = NULL;
      else if (xfp.count == 1) {
        char v[16] = "";
        const char *p = xfp.first;
        while (*p == ' ') p++;
        size_t n = strlen(p);
        while (n && p[n - 1] == ' ') n--;
        if (n < sizeof v) {
          for (size_t i = 0; i < n; i++) v[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]);
          v[n] = '\0';
        }
        scheme = strcmp(v, "http") == 0 ? "http" : strcmp(v, "https") == 0 ? "https" : NULL;
      }
    }
    HostHeader host = header(x, "Host", false);
    if (!scheme || host.count != 1 || !srv_origin_allowed(&s->cfg, origin.first, scheme, host.first))
      return respond_json_error(s, x, 403, "cross-origin request is not allowed", H_CORS | H_SECURITY);
  }
  uuid4(x->request_id);
  HostHeader xff = header(x, "X-Forwarded-For", true);
  srv_client_ip(&s->cfg, x->peer, xff.joined, x->client, sizeof x->client);
  free(xff.joined);
  if (!srv_rate_allow(s->rate, x->client)) {
    srv_log(SRV_LOG_WARNING, "rate_limited request_id=%s client_ip=%s", x->request_id, x->client);
    return post_error(s, x, 429, "rate_limited", "rate limit exceeded");
  }
  if (s->cfg.api_key && !authenticated(s, x)) {
    srv_log(SRV_LOG_WARNING, "auth_failed request_id=%s client_ip=%s", x->request_id, x->client);
    return post_error(s, x, 401, "auth_failed", "authentication required");
  }
  unsigned running = atomic_fetch_add(&s->executing, 1);
  x->slot = true;
  if (running >= s->cfg.max_concurrent)
    return post_error(s, x, 503, "concurrency_rejected", "Too many concurrent requests");
  size_t length = 0;
  const char *bad = body_header_error(s, x, &length);
  if (bad && strcmp(bad, "__too_large__") == 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "request body too large (max %llu bytes)", (unsigned long long)s->cfg.max_body);
    return post_error(s, x, 400, "bad_request", msg);
  }
  if (bad) return post_error(s, x, 400, "bad_request", bad);
  x->need_body = length;
  x->awaiting_body = true;
}

static bool get_auth(SrvService *s, SrvExchange *x, bool required) {
  if (!required) return true;
  if (!s->cfg.api_key) {
    respond_json_error(s, x, 503, "authentication is required for this endpoint, but GENO_API_KEY is not configured",
                       H_CORS | H_SECURITY);
    return false;
  }
  if (!authenticated(s, x)) {
    respond_json_error(s, x, 401, "authentication required", H_CORS | H_SECURITY);
    return false;
  }
  return true;
}

static void handle_get(SrvService *s, SrvExchange *x) {
  bool healthz = strcmp(x->target, "/healthz") == 0;
  if (!host_ok(s, x, healthz)) return respond_bad_host(s, x);
  if (healthz) {
    char *body;
    if (s->cfg.api_key && !authenticated(s, x)) body = strdup("{\"status\":\"ok\"}");
    else {
      char detail[1024];
      geno_health_check spawners = {"spawners", NULL, detail};
      spawners.status = srv_spawners_health(s->cfg.spawner_set, detail, sizeof detail);
      body = geno_metrics_health_json(s->metrics, &spawners, 1);
    }
    if (!body) return respond_json_error(s, x, 500, "internal server error", H_CORS | H_SECURITY);
    return respond(s, x, 200, body, strlen(body), free, JSON_TYPE, H_CORS | H_SECURITY);
  }
  if (strcmp(x->target, "/metrics") == 0) {
    bool need = s->cfg.require_auth_metrics == 1 || (s->cfg.require_auth_metrics == -1 && s->cfg.api_key);
    if (!get_auth(s, x, need)) return;
    char *text = geno_metrics_prometheus(s->metrics);
    if (!text) return respond_json_error(s, x, 500, "internal server error", H_CORS | H_SECURITY);
    return respond(s, x, 200, text, strlen(text), free, "text/plain; version=0.0.4; charset=utf-8", H_SECURITY);
  }
  if (strcmp(x->target, "/") == 0 || strcmp(x->target, "/playground") == 0 || x->target[0] == '\0') {
    if (!get_auth(s, x, s->cfg.require_auth_playground)) return;
    char *page = strdup(srv_playground_html);
    respond(s, x, 200, page, strlen(srv_playground_html), free, "text/html; charset=utf-8", H_CORS | H_SECURITY);
    add_header(x, "Content-Security-Policy",
               "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
               "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    add_header(x, "X-Frame-Options", "DENY");
    return;
  }
  unknown_endpoint(s, x);
}

/* ---- the two steps ---------------------------------------------------------- */

/* The short HTML error page Python's http.server writes for a request it
 * will not serve (the reference's answer to a method it lacks, a request
 * line too long, headers over the budget). */
static void respond_page(SrvService *s, SrvExchange *x, int status, const char *message) {
  char page[256];
  int n = snprintf(page, sizeof page,
                   "<!DOCTYPE HTML>\n<html><head><title>Error response</title></head>\n"
                   "<body><h1>Error response</h1><p>Error code: %d</p>\n"
                   "<p>Message: %s.</p></body></html>\n",
                   status, message);
  char *b = strdup(page);
  respond(s, x, status, b, b ? (size_t)n : 0, free, "text/html;charset=utf-8", H_SECURITY);
}

/* The request line and headers against their budgets, counted as sent
 * (`METHOD TARGET HTTP/1.x`, each `Name: value`, the CRLFs): a request line
 * over 65,536 bytes is 414 (http.server's fixed cap), request line and
 * headers together over GENO_MAX_REQUEST_HEADER_BYTES 431. The transport's
 * own buffer is a little larger than the budget, so this is the rule. */
enum { REQUEST_LINE_MAX = 65536 };
static bool within_header_budget(SrvService *s, SrvExchange *x) {
  size_t line = strlen(x->method) + 1 + strlen(x->target) + 1 + strlen("HTTP/1.1") + 2;
  if (line > REQUEST_LINE_MAX) {
    respond_page(s, x, 414, "Request-URI Too Long");
    return false;
  }
  size_t total = line + 2;
  for (size_t i = 0; i < x->nheaders; i++) total += strlen(x->headers[i].name) + 2 + strlen(x->headers[i].value) + 2;
  if (total > s->cfg.max_header) {
    respond_page(s, x, 431, "Line too long");
    return false;
  }
  return true;
}

void srv_service_begin(SrvService *s, SrvExchange *x) {
  x->start = now_ms();
  if (!within_header_budget(s, x)) return;
  /* HEAD is not served (501), as the reference's http.server handler has no HEAD */
  if (strcmp(x->method, "GET") == 0) return handle_get(s, x);
  if (strcmp(x->method, "OPTIONS") == 0) {
    if (!host_ok(s, x, false)) return respond_bad_host(s, x);
    respond(s, x, 204, NULL, 0, free, NULL, H_CORS | H_SECURITY);
    add_header(x, "Content-Length", "0"); /* as the reference's; a transport adds none to a 204 */
    return;
  }
  if (strcmp(x->method, "POST") != 0) return respond_page(s, x, 501, "Unsupported method");
  post_first(s, x);
}

void srv_service_finish(SrvService *s, SrvExchange *x, const char *body, size_t len) {
  if (x->done || !x->awaiting_body) return;
  x->awaiting_body = false;
  if (len < x->need_body) return post_error(s, x, 400, "bad_request", "incomplete request body");
  char *copy = malloc(len + 1);
  if (!copy) return post_error(s, x, 500, "internal_error", "internal server error");
  memcpy(copy, body, len);
  copy[len] = '\0';
  SrvRequest req;
  bool owned;
  SrvReply rep;
  const char *msg = srv_request_parse(&s->cfg, x->endpoint, copy, len, &req, &owned);
  free(copy);
  if (msg) {
    srv_error_reply(&rep, 400, "bad_request", msg);
    if (owned) free((char *)msg);
  } else {
    x->source_bytes = req.source_len;
    req.request_id = x->request_id;
    srv_execute(&s->cfg, s->metrics, &req, &rep);
    srv_request_free(&req);
  }
  if (!rep.body) return post_error(s, x, 500, "internal_error", "internal server error");
  post_done(s, x, rep.status, rep.outcome);
  respond(s, x, rep.status, rep.body, rep.len, rep.release, JSON_TYPE, H_CORS | H_SECURITY | H_REQID);
}

char *srv_service_incomplete_answer(SrvService *s, const SrvExchange *x, size_t *len) {
  SrvExchange y = *x; /* the request's fields and id; an answer of its own */
  y.nout = 0;
  y.body = NULL;
  respond_json_error(s, &y, 400, "incomplete request body", H_CORS | H_SECURITY | H_REQID);
  if (!y.body) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < y.nout; i++) n += strlen(y.out[i].name) + strlen(y.out[i].value) + 4;
  n += 96 + y.body_len;
  char *out = malloc(n);
  size_t k = 0;
  for (size_t i = 0; out && i < y.nout; i++)
    k += (size_t)snprintf(out + k, n - k, "%s: %s\r\n", y.out[i].name, y.out[i].value);
  if (out) {
    k += (size_t)snprintf(out + k, n - k, "Connection: close\r\nContent-Length: %zu\r\n\r\n", y.body_len);
    memcpy(out + k, y.body, y.body_len);
    k += y.body_len;
  }
  y.release(y.body);
  *len = k;
  return out;
}

void srv_service_fail(SrvService *s, SrvExchange *x, int status, const char *outcome, const char *msg) {
  if (x->done) return;
  x->awaiting_body = false;
  if (x->request_id[0]) post_error(s, x, status, outcome, msg);
  else respond_json_error(s, x, status, msg, H_CORS | H_SECURITY);
}

void srv_exchange_end(SrvService *s, SrvExchange *x) {
  if (x->request_id[0] && !x->post_logged) post_done(s, x, 400, "bad_request"); /* the client went away */
  if (x->slot) atomic_fetch_sub(&s->executing, 1);
  x->slot = false;
  if (x->body) x->release(x->body);
  x->body = NULL;
}
