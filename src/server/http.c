/* `geno serve` on libmicrohttpd: one event thread (epoll) holds every
 * connection (HTTP/1.1, keep-alive) and runs the reference's pipeline for
 * POST up to the body (Host, path, Origin, request id and client address,
 * rate limit, auth, concurrency, body headers), GET /healthz, /metrics and
 * the playground, and OPTIONS. A POST's body is handed to a worker thread
 * (fields, execution in a sandboxed child) while its connection is
 * suspended, and answered when the worker resumes it: a slow request never
 * holds up another connection, and an idle or half-open connection costs a
 * descriptor and its buffer, not a thread. SIGTERM drains: stop accepting,
 * let the requests in flight finish, exit 0. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server.h"
#include "../host/httpd.h"

typedef struct Req Req;

typedef struct Srv {
  SrvConfig cfg;
  geno_metrics *metrics;
  SrvRateLimiter *rate;
  int port;                 /* bound port */
  atomic_uint executing;    /* requests holding a concurrency slot */
  atomic_int open_requests; /* requests between URI and completion */
  atomic_bool draining;
  /* The workers: threads made on demand, at most max_concurrent (a job
   * holds a concurrency slot, so no more can be waiting). */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  Req *jobs, *jobs_tail;    /* bodies received, waiting for a worker */
  unsigned njobs, idle, nthreads;
  pthread_t *threads;
  bool stopping;
} Srv;

struct Req {
  char *uri;
  double start;
  bool started, responded, slot, post_logged;
  bool queued;              /* handed to a worker; the connection is suspended */
  SrvEndpoint endpoint;
  char path[128];           /* for metrics and logs (cut) */
  char request_id[40];
  char client[64];
  char *body;
  size_t len, expect;
  size_t source_bytes;
  struct MHD_Connection *conn;
  SrvReply reply;           /* the worker's answer */
  Req *next;                /* in the job queue */
};

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

/* ---- headers ---------------------------------------------------------- */

typedef HostHeader HeaderCount;

static HeaderCount header(struct MHD_Connection *c, const char *name) { return host_httpd_header(c, name); }

static void add_security_headers(struct MHD_Response *r) {
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(r, "Cache-Control", "no-store");
  MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
}

static void add_cors_headers(Srv *s, struct MHD_Connection *c, struct MHD_Response *r) {
  MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  MHD_add_response_header(r, "Access-Control-Allow-Headers", "Content-Type, Authorization, X-API-Key");
  MHD_add_response_header(r, "Access-Control-Max-Age", "3600");
  HeaderCount o = header(c, "Origin");
  if (o.count == 1) {
    for (size_t i = 0; i < s->cfg.cors_origins.count; i++)
      if (strcmp(s->cfg.cors_origins.items[i], o.first) == 0) {
        MHD_add_response_header(r, "Access-Control-Allow-Origin", o.first);
        MHD_add_response_header(r, "Vary", "Origin");
      }
  }
}

enum { H_JSON = 1, H_CORS = 2, H_SECURITY = 4, H_REQID = 8 };

/* Queue a response whose body is taken and released with release (free,
 * or geno_free for the library's text); NULL for none. */
static enum MHD_Result respond_owned(Srv *s, struct MHD_Connection *c, Req *q, int status, char *body, size_t len,
                                     void (*release)(void *), const char *content_type, unsigned flags) {
  struct MHD_Response *r = body ? MHD_create_response_from_buffer_with_free_callback(len, body, release)
                                : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
  if (!r) {
    if (body) release(body);
    return MHD_NO;
  }
  if (content_type) MHD_add_response_header(r, "Content-Type", content_type);
  if (flags & H_CORS) add_cors_headers(s, c, r);
  if (flags & H_SECURITY) add_security_headers(r);
  if ((flags & H_REQID) && q && q->request_id[0]) MHD_add_response_header(r, "X-Request-Id", q->request_id);
  if (atomic_load(&s->draining)) MHD_add_response_header(r, "Connection", "close");
  enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
  MHD_destroy_response(r);
  if (q) q->responded = true;
  return ret;
}

/* respond_owned for a malloc'd body. */
static enum MHD_Result respond(Srv *s, struct MHD_Connection *c, Req *q, int status, char *body, size_t len,
                               const char *content_type, unsigned flags) {
  return respond_owned(s, c, q, status, body, len, free, content_type, flags);
}

static const char JSON_TYPE[] = "application/json; charset=utf-8";

static enum MHD_Result respond_json_error(Srv *s, struct MHD_Connection *c, Req *q, int status, const char *msg,
                                          unsigned flags) {
  SrvReply rep;
  srv_error_reply(&rep, status, "", msg);
  return respond(s, c, q, status, rep.body, rep.len, JSON_TYPE, flags | H_JSON);
}

static enum MHD_Result respond_bad_host(Srv *s, struct MHD_Connection *c, Req *q) {
  static const char body[] = "{\"error\": \"invalid Host header\"}\n";
  char *b = strdup(body);
  return respond(s, c, q, 421, b, b ? sizeof body - 1 : 0, JSON_TYPE, H_SECURITY);
}

/* ---- pipeline pieces -------------------------------------------------- */

static void peer_address(struct MHD_Connection *c, char *out, size_t n) {
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  snprintf(out, n, "unknown");
  if (!ci || !ci->client_addr) return;
  const struct sockaddr *sa = ci->client_addr;
  if (sa->sa_family == AF_INET) {
    inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out, (socklen_t)n);
  } else if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(s6->sin6_addr.s6_addr, mapped, 12) == 0)
      inet_ntop(AF_INET, s6->sin6_addr.s6_addr + 12, out, (socklen_t)n);
    else inet_ntop(AF_INET6, &s6->sin6_addr, out, (socklen_t)n);
  }
}

static bool host_ok(Srv *s, struct MHD_Connection *c, bool healthz_get) {
  HeaderCount h = header(c, "Host");
  if (s->cfg.hosts_any) return true;
  if (h.count != 1) return false;
  if (srv_host_allowed(&s->cfg, s->cfg.host, s->port, h.first)) return true;
  if (healthz_get) { /* local probes (containers) may name any loopback port */
    char peer[64];
    peer_address(c, peer, sizeof peer);
    char *hh;
    int hp;
    if (srv_is_loopback_name(peer) && srv_parse_host_port(h.first, &hh, &hp)) {
      bool ok = srv_is_loopback_name(hh);
      free(hh);
      return ok;
    }
  }
  return false;
}

static bool authenticated(Srv *s, struct MHD_Connection *c) {
  if (!s->cfg.api_key) return false;
  HeaderCount a = header(c, "Authorization");
  if (a.count == 1 && strncmp(a.first, "Bearer ", 7) == 0 &&
      srv_key_equal(a.first + 7, strlen(a.first + 7), s->cfg.api_key))
    return true;
  HeaderCount k = header(c, "X-API-Key");
  if (k.count == 1 && k.first[0] && srv_key_equal(k.first, strlen(k.first), s->cfg.api_key)) return true;
  return false;
}

/* Record and log a POST that got past the request id. */
static void post_done(Srv *s, Req *q, int status, const char *outcome) {
  if (q->post_logged) return;
  q->post_logged = true;
  geno_metrics_record_http(s->metrics, q->path, status, outcome);
  srv_log(SRV_LOG_INFO, "request_id=%s client_ip=%s status=%d duration_ms=%.2f source_bytes=%zu outcome=%s",
          q->request_id, q->client, status, now_ms() - q->start, q->source_bytes, outcome);
}

static enum MHD_Result post_error(Srv *s, struct MHD_Connection *c, Req *q, int status, const char *outcome,
                                  const char *msg) {
  post_done(s, q, status, outcome);
  return respond_json_error(s, c, q, status, msg, H_CORS | H_SECURITY | H_REQID);
}

static bool endpoint_of(const char *uri, SrvEndpoint *e) {
  if (strcmp(uri, "/run") == 0) *e = SRV_RUN;
  else if (strcmp(uri, "/check") == 0) *e = SRV_CHECK;
  else if (strcmp(uri, "/test") == 0) *e = SRV_TEST;
  else if (strcmp(uri, "/constrain") == 0) *e = SRV_CONSTRAIN;
  else return false;
  return true;
}

static enum MHD_Result unknown_endpoint(Srv *s, struct MHD_Connection *c, Req *q) {
  char *msg = NULL;
  if (asprintf(&msg, "unknown endpoint: %s", q->uri) < 0) msg = NULL;
  enum MHD_Result r = respond_json_error(s, c, q, 404, msg ? msg : "unknown endpoint", H_CORS | H_SECURITY);
  free(msg);
  return r;
}

/* Content-Length as the reference reads it. NULL when fine. */
static const char *body_header_error(Srv *s, struct MHD_Connection *c, size_t *length) {
  if (header(c, "Transfer-Encoding").count) return "Transfer-Encoding is not supported";
  HeaderCount ct = header(c, "Content-Type");
  if (ct.count == 0) return "missing Content-Type header";
  if (ct.count > 1) return "ambiguous Content-Type header";
  const char *v = ct.first;
  while (*v == ' ' || *v == '\t') v++;
  size_t n = strcspn(v, ";");
  while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
  if (n != 16 || strncasecmp(v, "application/json", 16) != 0) return "Content-Type must be application/json";
  switch (host_httpd_content_length(c, s->cfg.max_body, length)) {
    case HOST_CL_OK: return NULL;
    case HOST_CL_NONE: return "missing Content-Length header";
    case HOST_CL_AMBIGUOUS: return "ambiguous Content-Length header";
    case HOST_CL_NEGATIVE: return "invalid Content-Length: must not be negative";
    case HOST_CL_INVALID: return "invalid Content-Length header";
    case HOST_CL_TOO_LARGE: return "__too_large__";
  }
  return "invalid Content-Length header";
}

/* ---- POST --------------------------------------------------------------- */

static enum MHD_Result post_first(Srv *s, struct MHD_Connection *c, Req *q) {
  if (!host_ok(s, c, false)) return respond_bad_host(s, c, q);
  if (!endpoint_of(q->uri, &q->endpoint)) return unknown_endpoint(s, c, q);
  snprintf(q->path, sizeof q->path, "%s", q->uri);
  HeaderCount origin = header(c, "Origin");
  if (origin.count > 1) return respond_json_error(s, c, q, 403, "cross-origin request is not allowed", H_CORS | H_SECURITY);
  char peer[64];
  peer_address(c, peer, sizeof peer);
  if (origin.count == 1 && origin.first[0]) {
    const char *scheme = "http";
    if (s->cfg.trusted_proxy && strcmp(s->cfg.trusted_proxy, peer) == 0) {
      HeaderCount xfp = header(c, "X-Forwarded-Proto");
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
    HeaderCount host = header(c, "Host");
    if (!scheme || host.count != 1 || !srv_origin_allowed(&s->cfg, origin.first, scheme, host.first))
      return respond_json_error(s, c, q, 403, "cross-origin request is not allowed", H_CORS | H_SECURITY);
  }
  uuid4(q->request_id);
  HeaderCount xff = {"X-Forwarded-For", 0, NULL, NULL, true};
  host_httpd_header_into(c, &xff);
  srv_client_ip(&s->cfg, peer, xff.joined, q->client, sizeof q->client);
  free(xff.joined);
  if (!srv_rate_allow(s->rate, q->client)) {
    srv_log(SRV_LOG_WARNING, "rate_limited request_id=%s client_ip=%s", q->request_id, q->client);
    return post_error(s, c, q, 429, "rate_limited", "rate limit exceeded");
  }
  if (s->cfg.api_key && !authenticated(s, c)) {
    srv_log(SRV_LOG_WARNING, "auth_failed request_id=%s client_ip=%s", q->request_id, q->client);
    return post_error(s, c, q, 401, "auth_failed", "authentication required");
  }
  unsigned running = atomic_fetch_add(&s->executing, 1);
  q->slot = true;
  if (running >= s->cfg.max_concurrent)
    return post_error(s, c, q, 503, "concurrency_rejected", "Too many concurrent requests");
  size_t length = 0;
  const char *bad = body_header_error(s, c, &length);
  if (bad && strcmp(bad, "__too_large__") == 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "request body too large (max %llu bytes)", (unsigned long long)s->cfg.max_body);
    return post_error(s, c, q, 400, "bad_request", msg);
  }
  if (bad) return post_error(s, c, q, 400, "bad_request", bad);
  q->expect = length;
  q->body = malloc(length + 1);
  if (!q->body) return post_error(s, c, q, 500, "internal_error", "internal server error");
  return MHD_YES;
}

/* In a worker thread: the fields, then the run; the answer goes into
 * q->reply and the connection is resumed (q belongs to the event thread
 * again from then on). */
static void run_job(Srv *s, Req *q) {
  q->body[q->len] = '\0';
  SrvRequest req;
  bool owned;
  const char *msg = srv_request_parse(&s->cfg, q->endpoint, q->body, q->len, &req, &owned);
  free(q->body);
  q->body = NULL;
  if (msg) {
    srv_error_reply(&q->reply, 400, "bad_request", msg);
    if (owned) free((char *)msg);
  } else {
    q->source_bytes = req.source_len;
    srv_execute(&s->cfg, s->metrics, &req, &q->reply);
    srv_request_free(&req);
  }
  MHD_resume_connection(q->conn);
}

static void *worker_main(void *arg) {
  Srv *s = arg;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    s->idle++;
    while (!s->jobs && !s->stopping) pthread_cond_wait(&s->wake, &s->lock);
    s->idle--;
    if (!s->jobs) break;
    Req *q = s->jobs;
    s->jobs = q->next;
    if (!s->jobs) s->jobs_tail = NULL;
    s->njobs--;
    pthread_mutex_unlock(&s->lock);
    run_job(s, q);
    pthread_mutex_lock(&s->lock);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

/* Hand q to a worker (a new one if none is idle and the cap allows). */
static bool enqueue(Srv *s, Req *q) {
  pthread_mutex_lock(&s->lock);
  q->next = NULL;
  if (s->jobs_tail) s->jobs_tail->next = q;
  else s->jobs = q;
  s->jobs_tail = q;
  s->njobs++;
  bool ok = true;
  if (s->idle < s->njobs && s->nthreads < s->cfg.max_concurrent) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1u << 20); /* the run is in the child; this thread only supervises */
    if (pthread_create(&s->threads[s->nthreads], &attr, worker_main, s) == 0) s->nthreads++;
    else if (s->nthreads == 0) ok = false;
    pthread_attr_destroy(&attr);
  }
  if (!ok) { /* no worker at all: take the job back */
    s->jobs = s->jobs_tail = NULL;
    s->njobs = 0;
  } else pthread_cond_signal(&s->wake);
  pthread_mutex_unlock(&s->lock);
  return ok;
}

static enum MHD_Result post_execute(Srv *s, struct MHD_Connection *c, Req *q) {
  if (q->len < q->expect) return post_error(s, c, q, 400, "bad_request", "incomplete request body");
  q->conn = c;
  q->queued = true;
  MHD_suspend_connection(c);
  if (!enqueue(s, q)) {
    MHD_resume_connection(c);
    srv_log(SRV_LOG_ERROR, "no worker thread could be started");
    srv_error_reply(&q->reply, 500, "internal_error", "internal server error");
  }
  return MHD_YES;
}

/* Back from the worker: answer with its reply. */
static enum MHD_Result post_answer(Srv *s, struct MHD_Connection *c, Req *q) {
  SrvReply rep = q->reply;
  memset(&q->reply, 0, sizeof q->reply);
  if (!rep.body) return post_error(s, c, q, 500, "internal_error", "internal server error");
  post_done(s, q, rep.status, rep.outcome);
  return respond_owned(s, c, q, rep.status, rep.body, rep.len, rep.release ? rep.release : free, JSON_TYPE,
                       H_JSON | H_CORS | H_SECURITY | H_REQID);
}

/* ---- GET ---------------------------------------------------------------- */

/* 0 = allowed; otherwise the response was queued. */
static int get_auth(Srv *s, struct MHD_Connection *c, Req *q, bool required, enum MHD_Result *ret) {
  if (!required) return 0;
  if (!s->cfg.api_key) {
    *ret = respond_json_error(s, c, q, 503,
                              "authentication is required for this endpoint, but GENO_API_KEY is not configured",
                              H_CORS | H_SECURITY);
    return 1;
  }
  if (!authenticated(s, c)) {
    *ret = respond_json_error(s, c, q, 401, "authentication required", H_CORS | H_SECURITY);
    return 1;
  }
  return 0;
}

static enum MHD_Result handle_get(Srv *s, struct MHD_Connection *c, Req *q) {
  bool healthz = strcmp(q->uri, "/healthz") == 0;
  if (!host_ok(s, c, healthz)) return respond_bad_host(s, c, q);
  enum MHD_Result ret = MHD_NO;
  if (healthz) {
    char *body;
    if (s->cfg.api_key && !authenticated(s, c)) body = strdup("{\"status\":\"ok\"}");
    else body = geno_metrics_health_json(s->metrics, NULL, 0);
    if (!body) return respond_json_error(s, c, q, 500, "internal server error", H_CORS | H_SECURITY);
    return respond(s, c, q, 200, body, strlen(body), JSON_TYPE, H_CORS | H_SECURITY);
  }
  if (strcmp(q->uri, "/metrics") == 0) {
    bool need = s->cfg.require_auth_metrics == 1 || (s->cfg.require_auth_metrics == -1 && s->cfg.api_key);
    if (get_auth(s, c, q, need, &ret)) return ret;
    char *text = geno_metrics_prometheus(s->metrics);
    if (!text) return respond_json_error(s, c, q, 500, "internal server error", H_CORS | H_SECURITY);
    return respond(s, c, q, 200, text, strlen(text), "text/plain; version=0.0.4; charset=utf-8", H_SECURITY);
  }
  if (strcmp(q->uri, "/") == 0 || strcmp(q->uri, "/playground") == 0 || q->uri[0] == '\0') {
    if (get_auth(s, c, q, s->cfg.require_auth_playground, &ret)) return ret;
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(srv_playground_html), (void *)srv_playground_html,
                                                             MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
    add_cors_headers(s, c, r);
    add_security_headers(r);
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                            "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
                            "frame-ancestors 'none'");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    q->responded = true;
    return ret;
  }
  return unknown_endpoint(s, c, q);
}

/* ---- libmicrohttpd callbacks ------------------------------------------- */

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c) {
  Srv *s = cls;
  Req *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->uri = strdup(uri ? uri : "");
  q->start = now_ms();
  atomic_fetch_add(&s->open_requests, 1);
  return q;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
  Srv *s = cls;
  Req *q = *con_cls;
  if (!q) return;
  if (q->request_id[0] && !q->post_logged && toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
    post_done(s, q, 400, "bad_request"); /* the client went away or timed out mid-body */
  if (q->slot) atomic_fetch_sub(&s->executing, 1);
  if (q->reply.body) (q->reply.release ? q->reply.release : free)(q->reply.body);
  free(q->body);
  free(q->uri);
  free(q);
  *con_cls = NULL;
  atomic_fetch_sub(&s->open_requests, 1);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
  Srv *s = cls;
  Req *q = *con_cls;
  if (!q) return MHD_NO;
  if (q->responded) { /* an error was answered before the body: drop the rest */
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (q->queued) return post_answer(s, c, q); /* resumed by its worker */
  if (!q->started) {
    q->started = true;
    if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) return handle_get(s, c, q);
    if (strcmp(method, "OPTIONS") == 0) {
      if (!host_ok(s, c, false)) return respond_bad_host(s, c, q);
      return respond(s, c, q, 204, NULL, 0, NULL, H_CORS | H_SECURITY);
    }
    if (strcmp(method, "POST") != 0) {
      static const char page[] = "<!DOCTYPE HTML>\n<html><head><title>Error response</title></head>\n"
                                 "<body><h1>Error response</h1><p>Error code: 501</p>\n"
                                 "<p>Message: Unsupported method.</p></body></html>\n";
      char *b = strdup(page);
      return respond(s, c, q, 501, b, b ? sizeof page - 1 : 0, "text/html;charset=utf-8", H_SECURITY);
    }
    return post_first(s, c, q);
  }
  if (*upload_data_size) {
    size_t n = *upload_data_size;
    if (q->body && q->len + n <= q->expect) {
      memcpy(q->body + q->len, upload_data, n);
      q->len += n;
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  return post_execute(s, c, q);
}

/* ---- start, serve, drain --------------------------------------------------- */

static bool resolve_bind(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len) {
  char h[256];
  size_t n = strlen(host);
  if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
    if (n - 2 >= sizeof h) return false;
    memcpy(h, host + 1, n - 2);
    h[n - 2] = '\0';
  } else snprintf(h, sizeof h, "%s", host);
  struct addrinfo hints = {0}, *res = NULL;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  char ps[16];
  snprintf(ps, sizeof ps, "%d", port);
  if (getaddrinfo(h, ps, &hints, &res) != 0 || !res) return false;
  memcpy(ss, res->ai_addr, res->ai_addrlen);
  *len = res->ai_addrlen;
  freeaddrinfo(res);
  return true;
}

int srv_main(int argc, char **argv) {
  static Srv srv;
  Srv *s = &srv;
  int rc = srv_config_load(&s->cfg, argc, argv);
  if (rc) {
    srv_config_free(&s->cfg);
    return rc < 0 ? 0 : rc;
  }
  SrvConfig *cfg = &s->cfg;
  bool loopback = srv_is_loopback_name(cfg->host);
  if (!loopback && !cfg->allow_insecure) {
    if (!cfg->api_key) {
      srv_log(SRV_LOG_ERROR, "Refusing to bind %s without GENO_API_KEY: a non-loopback server must authenticate "
                             "requests (set GENO_API_KEY and GENO_ALLOWED_HOSTS, or pass --allow-insecure)",
              cfg->host);
      srv_config_free(cfg);
      return 1;
    }
    if (cfg->nallowed_hosts == 0 && !cfg->hosts_any) {
      srv_log(SRV_LOG_ERROR, "Refusing to bind %s without GENO_ALLOWED_HOSTS: list the Host names clients use "
                             "(or pass --allow-insecure)",
              cfg->host);
      srv_config_free(cfg);
      return 1;
    }
  }
  if (cfg->allow_insecure && cfg->nallowed_hosts == 0) cfg->hosts_any = true;
  s->metrics = geno_metrics_new(cfg->service, cfg->revision);
  s->rate = srv_rate_new(cfg->rate_limit, cfg->rate_window, cfg->rate_buckets);
  if (!s->metrics || !s->rate) {
    fprintf(stderr, "geno serve: error: out of memory\n");
    return 1;
  }
  srv_filter_environment(cfg);
  signal(SIGPIPE, SIG_IGN);
  char *fail = srv_warm_up();
  /* Children fork from a spawner started now, single-threaded and warm,
   * rather than from this process once its connection threads run. */
  cfg->spawner = geno_spawner_start();
  if (!cfg->spawner) srv_log(SRV_LOG_WARNING, "spawner unavailable (%s): workers fork from the server", strerror(errno));
  if (!fail) fail = srv_self_test(cfg);
  if (fail) {
    srv_log(SRV_LOG_ERROR, "Startup check failed: %s", fail);
    const char *errs[1] = {fail};
    geno_metrics_set_startup_errors(s->metrics, errs, 1);
    if (!cfg->skip_startup_checks) {
      srv_log(SRV_LOG_ERROR, "Refusing to start: startup checks failed. Set GENO_SKIP_STARTUP_CHECKS=1 to start "
                             "anyway.");
      free(fail);
      return 1;
    }
    free(fail);
  } else {
    srv_log(SRV_LOG_INFO, "Startup checks passed");
  }
  if (cfg->api_key) srv_log(SRV_LOG_INFO, "API key authentication enabled");
  else
    srv_log(SRV_LOG_WARNING, "No GENO_API_KEY configured — /run and /constrain are unauthenticated. Set "
                             "GENO_API_KEY before exposing this server beyond localhost.");
  /* Every connection holds a descriptor (and each running request four
   * more for its child): take the hard limit, and keep the connection cap
   * inside it. */
  struct rlimit nofile;
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
    if (nofile.rlim_cur < nofile.rlim_max) {
      nofile.rlim_cur = nofile.rlim_max;
      (void)setrlimit(RLIMIT_NOFILE, &nofile);
      (void)getrlimit(RLIMIT_NOFILE, &nofile);
    }
    uint64_t room = nofile.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)nofile.rlim_cur;
    uint64_t need = (uint64_t)cfg->max_connections + 4ull * cfg->max_concurrent + 64;
    if (need > room) {
      uint64_t fit = room > 4ull * cfg->max_concurrent + 64 + 16 ? room - 4ull * cfg->max_concurrent - 64 : 16;
      srv_log(SRV_LOG_WARNING, "GENO_MAX_CONNECTIONS=%u does not fit the descriptor limit (%llu): using %llu",
              cfg->max_connections, (unsigned long long)room, (unsigned long long)fit);
      cfg->max_connections = (unsigned)fit;
    }
  }
  s->threads = calloc(cfg->max_concurrent, sizeof *s->threads);
  if (!s->threads || pthread_mutex_init(&s->lock, NULL) != 0 || pthread_cond_init(&s->wake, NULL) != 0) {
    fprintf(stderr, "geno serve: error: out of memory\n");
    return 1;
  }
  struct sockaddr_storage ss;
  socklen_t sl;
  if (!resolve_bind(cfg->host, cfg->port, &ss, &sl)) {
    srv_log(SRV_LOG_ERROR, "cannot resolve bind address %s", cfg->host);
    return 1;
  }
  /* Signals: every thread blocks them; this one waits for them. */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
  if (ss.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
  size_t mem = (size_t)cfg->max_header + 16384;
  struct MHD_Daemon *d = MHD_start_daemon(
      flags, (uint16_t)cfg->port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned)cfg->request_timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem, MHD_OPTION_URI_LOG_CALLBACK, on_uri,
      s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_END);
  if (!d) {
    srv_log(SRV_LOG_ERROR, "cannot listen on %s:%d: %s", cfg->host, cfg->port, strerror(errno));
    return 1;
  }
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  s->port = di ? di->port : cfg->port;
  bool v6 = strchr(cfg->host, ':') && cfg->host[0] != '[';
  srv_log(SRV_LOG_INFO, "Serving Geno runtime on http://%s%s%s:%d", v6 ? "[" : "", cfg->host, v6 ? "]" : "",
          s->port);
  int sig = 0;
  while (sigwait(&stop, &sig) != 0) {
  }
  srv_log(SRV_LOG_INFO, "Received %s, shutting down gracefully", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  atomic_store(&s->draining, true);
  MHD_socket listener = MHD_quiesce_daemon(d); /* no new connections; requests in flight go on */
  if (listener != MHD_INVALID_SOCKET) close(listener);
  double deadline = now_ms() + (cfg->max_wall + 5.0) * 1000.0;
  while (atomic_load(&s->open_requests) > 0 && now_ms() < deadline) {
    struct timespec t = {0, 10 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
  MHD_stop_daemon(d);
  pthread_mutex_lock(&s->lock);
  s->stopping = true;
  pthread_cond_broadcast(&s->wake);
  pthread_mutex_unlock(&s->lock);
  for (unsigned i = 0; i < s->nthreads; i++) pthread_join(s->threads[i], NULL);
  free(s->threads);
  geno_spawner_free(cfg->spawner);
  srv_rate_free(s->rate);
  geno_metrics_free(s->metrics);
  srv_config_free(cfg);
  return 0;
}
