/* Programs that serve HTTP (capability serve): http_route and http_listen,
 * as the reference's CLI carries them out (its _serve.py), on
 * libmicrohttpd.
 *
 * http_route keeps (METHOD, path, handler); the handler is a function the
 * program lent (geno_function_call calls it back, in the VM or, isolated,
 * in the sandboxed child). http_listen binds 127.0.0.1 only, prints
 * "Listening on http://127.0.0.1:PORT" and serves until the process ends,
 * one request at a time on this thread (the callback's: the program's run
 * waits in it). Each request, in the reference's order:
 *   Host must be 127.0.0.1:PORT or localhost:PORT      else 421
 *   no Transfer-Encoding, one valid Content-Length     else 400
 *   a body of at most 1 MiB                            else 413
 *   a body that is UTF-8                               else 400
 *   a route with this method and path                  else 404
 *   the handler answers, with a valid status, headers and body
 *                                                      else 500
 * The handler runs with a fresh budget (geno_function_call): steps from 0,
 * its own timeout, output discarded. Every request is answered with
 * `Connection: close`, so a connection carries one request: a connection
 * idle for 30 s, or whose request (request line, headers and body) has
 * not all arrived 30 s after the connection was accepted, is dropped
 * (a client sending a byte now and then cannot hold it open). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host.h"
#include "httpd.h"

/* The reference's bounds (_serve.py). */
#define SERVE_MAX_BODY ((size_t)1 << 20)   /* request body bytes: 1 MiB */
#define SERVE_TIMEOUT_S 30                 /* idle socket, and a request's whole arrival (seconds) */
#define SERVE_MAX_CONNECTIONS 64           /* open connections (the reference takes one at a time) */
#define SERVE_MAX_HEADER_BYTES (64 * 1024) /* request line and headers */

struct HostRoute {
  char *method; /* upper case */
  char *path;
  geno_value *handler; /* a copy of the lent function */
};

/* ---- http_route ---------------------------------------------------------- */

static geno_value *cb_http_route(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                 char **error) {
  Host *h = ud;
  size_t mlen, plen;
  const char *method = host_arg_str(args, nargs, 0, &mlen), *path = host_arg_str(args, nargs, 1, &plen);
  if (!method || !path || nargs < 3 || geno_value_type(args[2]) != GENO_FUNCTION)
    return host_fail(error, "http_route: expected a method, a path and a handler");
  if (h->nroutes + 1 > h->max_collection)
    return host_fail(error, "Route registry size exceeds limit (%zu > %llu)", h->nroutes + 1,
                     (unsigned long long)h->max_collection);
  if (h->nroutes == h->route_cap) {
    size_t cap = h->route_cap ? h->route_cap * 2 : 8;
    HostRoute *r = realloc(h->routes, cap * sizeof *r);
    if (!r) return host_fail(error, "out of memory");
    h->routes = r;
    h->route_cap = cap;
  }
  HostRoute *r = &h->routes[h->nroutes];
  r->method = strndup(method, mlen);
  r->path = strndup(path, plen);
  r->handler = geno_value_copy(args[2]);
  if (!r->method || !r->path || !r->handler) {
    free(r->method);
    free(r->path);
    geno_value_free(r->handler);
    return host_fail(error, "out of memory");
  }
  /* Python's str.upper(): HTTP methods are ASCII tokens, so ASCII is
   * enough for any method a request can carry */
  for (char *c = r->method; *c; c++)
    if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 32);
  h->nroutes++;
  return host_value(error, geno_value_new_unit());
}

/* ---- requests -------------------------------------------------------------- */

/* An open connection, from its accept to its close (the socket context). */
typedef struct Conn {
  struct MHD_Connection *c;
  double start;   /* host_now() when it was accepted */
  bool answered;  /* a response is queued (or it was cut off) */
  struct Conn *prev, *next;
} Conn;

typedef struct Serve {
  Host *h;
  int port;          /* bound */
  bool program_gone; /* a handler call found the program ended: stop serving */
  char *gone_error;  /* why (malloc'd) */
  Conn *conns;       /* the open connections */
} Serve;

typedef struct Req {
  char *uri;      /* the request target as received (path and query) */
  bool started, answered;
  char *body;
  size_t len, expect;
} Req;

/* Bytes as Python's http.server reads a request line and headers
 * (ISO-8859-1: each byte one code point), as UTF-8. */
static geno_value *latin1_string(const char *s, size_t n) {
  size_t extra = 0;
  for (size_t i = 0; i < n; i++) extra += (unsigned char)s[i] >= 0x80;
  char *u = malloc(n + extra + 1);
  if (!u) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80) u[o++] = (char)c;
    else {
      u[o++] = (char)(0xC0 | (c >> 6));
      u[o++] = (char)(0x80 | (c & 0x3F));
    }
  }
  geno_value *v = geno_value_new_string(u, o);
  free(u);
  return v;
}

/* The connection's request has its answer: the arrival deadline no
 * longer applies (writing the answer is bounded by the idle timeout). */
static void conn_answered(struct MHD_Connection *c) {
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  Conn *k = ci ? ci->socket_context : NULL;
  if (k) k->answered = true;
}

static enum MHD_Result plain(struct MHD_Connection *c, Req *q, unsigned status, const char *text) {
  struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
  MHD_add_response_header(r, "Connection", "close");
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  q->answered = true;
  conn_answered(c);
  return ret;
}

typedef struct HeaderList {
  geno_value **items;
  size_t n, cap;
  bool failed;
} HeaderList;

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  HeaderList *l = cls;
  if (l->failed) return MHD_NO;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    geno_value **g = realloc(l->items, cap * sizeof *g);
    if (!g) {
      l->failed = true;
      return MHD_NO;
    }
    l->items = g;
    l->cap = cap;
  }
  geno_value *pair[2] = {latin1_string(key, strlen(key)), latin1_string(value ? value : "", value ? strlen(value) : 0)};
  geno_value *t = pair[0] && pair[1] ? geno_value_new_tuple(pair, 2) : NULL;
  if (!t) {
    if (!pair[0] || !pair[1]) {
      geno_value_free(pair[0]);
      geno_value_free(pair[1]);
    }
    l->failed = true;
    return MHD_NO;
  }
  l->items[l->n++] = t;
  return MHD_YES;
}

/* HttpRequest(method, path, query, headers, body); NULL when out of memory. */
static geno_value *build_request(struct MHD_Connection *c, const char *method, const Req *q) {
  HeaderList hl = {0};
  MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, &hl);
  geno_value *headers = hl.failed ? NULL : geno_value_new_list(hl.items, hl.n);
  if (hl.failed)
    for (size_t i = 0; i < hl.n; i++) geno_value_free(hl.items[i]);
  free(hl.items);
  const char *uri = q->uri ? q->uri : "/";
  const char *qm = strchr(uri, '?');
  size_t plen = qm ? (size_t)(qm - uri) : strlen(uri);
  geno_value *f[5] = {latin1_string(method, strlen(method)), latin1_string(uri, plen),
                      latin1_string(qm ? qm + 1 : "", qm ? strlen(qm + 1) : 0), headers,
                      geno_value_new_string(q->body ? q->body : "", q->len)};
  for (int i = 0; i < 5; i++)
    if (!f[i]) {
      for (int k = 0; k < 5; k++) geno_value_free(f[k]);
      return NULL;
    }
  static const char *const names[5] = {"method", "path", "query", "headers", "body"};
  return geno_value_new_ctor("HttpRequest", names, f, 5);
}

static const geno_value *field(const geno_value *ctor, const char *name) {
  for (size_t i = 0; i < geno_value_count(ctor); i++)
    if (strcmp(geno_value_field_name(ctor, i), name) == 0) return geno_value_item(ctor, i);
  return NULL;
}

/* A header name as the reference accepts it: an HTTP token. */
static bool token(const char *s, size_t n) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || strchr("!#$%&'*+.^_`|~-", c)))
      return false;
  }
  return true;
}

/* A header value as the reference sends it: no control character but tab,
 * no DEL, every code point at most U+00FF; written out in ISO-8859-1.
 * malloc'd, or NULL when the value is refused. */
static char *latin1_value(const char *s, size_t n) {
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    unsigned cp;
    if (c < 0x80) {
      cp = c;
      i++;
    } else if ((c == 0xC2 || c == 0xC3) && i + 1 < n) { /* U+0080..U+00FF */
      cp = ((unsigned)(c & 0x1F) << 6) | ((unsigned char)s[i + 1] & 0x3F);
      i += 2;
    } else {
      free(out);
      return NULL;
    }
    if ((cp < 32 && cp != '\t') || cp == 127) {
      free(out);
      return NULL;
    }
    out[o++] = (char)cp;
  }
  out[o] = '\0';
  return out;
}

static bool managed_header(const char *name) {
  static const char *const managed[] = {"connection", "content-length", "keep-alive", "proxy-connection",
                                        "te", "trailer", "transfer-encoding", "upgrade"};
  for (size_t i = 0; i < sizeof managed / sizeof *managed; i++)
    if (strcasecmp(name, managed[i]) == 0) return true;
  return false;
}

/* The handler's HttpResponse as an MHD response (status in *status), or
 * NULL with *why when the reference would answer 500. */
static struct MHD_Response *make_response(const geno_value *resp, unsigned *status, const char **why) {
  const geno_value *st = field(resp, "status"), *body = field(resp, "body"), *hdrs = field(resp, "headers");
  int64_t code;
  if (!st || !geno_value_int(st, &code) || code < 200 || code > 599) {
    *why = "Invalid response status";
    return NULL;
  }
  size_t blen = 0;
  const char *b = body ? geno_value_string(body, &blen) : NULL;
  if (!b) {
    *why = "Invalid response body";
    return NULL;
  }
  bool bodyless = code == 204 || code == 205 || code == 304;
  if (bodyless && blen) {
    *why = "this status must not include a response body";
    return NULL;
  }
  struct MHD_Response *r = MHD_create_response_from_buffer(blen, (void *)b, MHD_RESPMEM_MUST_COPY);
  if (!r) {
    *why = "out of memory";
    return NULL;
  }
  for (size_t i = 0; hdrs && i < geno_value_count(hdrs); i++) {
    const geno_value *pair = geno_value_item(hdrs, i);
    size_t nl = 0, vl = 0;
    const char *n = geno_value_count(pair) == 2 ? geno_value_string(geno_value_item(pair, 0), &nl) : NULL;
    const char *v = geno_value_count(pair) == 2 ? geno_value_string(geno_value_item(pair, 1), &vl) : NULL;
    char *value = n && v ? latin1_value(v, vl) : NULL;
    const char *bad = !n || !v ? "Invalid response header entry"
                      : !token(n, nl) ? "Invalid response header name"
                      : !value ? "Invalid response header value"
                      : managed_header(n) ? "Response header is managed by the server"
                      : NULL;
    if (!bad && MHD_add_response_header(r, n, value) != MHD_YES) bad = "Invalid response header value";
    free(value);
    if (bad) {
      MHD_destroy_response(r);
      *why = bad;
      return NULL;
    }
  }
  MHD_add_response_header(r, "Connection", "close");
  *status = (unsigned)code;
  return r;
}

/* Write s to stderr with anything that could act on a terminal shown as
 * '?' (the method and path come from the network). */
static void put_clean(const char *s) {
  for (; *s; s++) fputc((unsigned char)*s < 32 || *s == 127 ? '?' : *s, stderr);
}

static enum MHD_Result dispatch(Serve *sv, struct MHD_Connection *c, const char *method, Req *q) {
  for (size_t i = 0; i < q->len; i++) { /* UTF-8, strictly (CPython's codec) */
    size_t nbad;
    const char *reason;
    int k = host_utf8_seq((const unsigned char *)q->body + i, q->len - i, true, &nbad, &reason);
    if (k <= 0) return plain(c, q, 400, "Request body must be valid UTF-8");
    i += (size_t)k - 1;
  }
  const char *uri = q->uri ? q->uri : "/";
  size_t plen = strcspn(uri, "?");
  HostRoute *route = NULL;
  for (size_t i = 0; i < sv->h->nroutes && !route; i++)
    if (strcmp(sv->h->routes[i].method, method) == 0 && strlen(sv->h->routes[i].path) == plen &&
        strncmp(sv->h->routes[i].path, uri, plen) == 0)
      route = &sv->h->routes[i];
  if (!route) return plain(c, q, 404, "Not Found");
  /* the handler may add routes (http_route moves the table): keep the
   * handler itself, which stays where it is */
  const geno_value *handler = route->handler;
  geno_value *req = build_request(c, method, q);
  if (!req) return plain(c, q, 500, "Internal Server Error");
  /* each request has the whole timeout, for the handler and the host
   * callbacks it makes (a file read, a sleep) */
  double saved = sv->h->deadline;
  host_start_clock(sv->h);
  char *error = NULL;
  const geno_value *const argv[1] = {req};
  geno_value *resp = geno_function_call(handler, argv, 1, &error);
  sv->h->deadline = saved;
  geno_value_free(req);
  unsigned status = 500;
  const char *why = NULL;
  struct MHD_Response *r = resp ? make_response(resp, &status, &why) : NULL;
  geno_value_free(resp);
  if (!r) {
    /* logged here, never told to the client (the reference's M-05) */
    fputs("geno: the handler of ", stderr);
    put_clean(method);
    fputc(' ', stderr);
    put_clean(uri);
    fprintf(stderr, " failed: %s\n", error ? error : why ? why : "error");
    if (!geno_function_callable(handler)) {
      sv->program_gone = true;
      if (!sv->gone_error) sv->gone_error = error, error = NULL;
    }
    geno_free(error);
    return plain(c, q, 500, "Internal Server Error");
  }
  geno_free(error);
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  q->answered = true;
  conn_answered(c);
  return ret;
}

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c) {
  Req *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->uri = strdup(uri ? uri : "/");
  return q;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
  Req *q = *con_cls;
  if (!q) return;
  free(q->body);
  free(q->uri);
  free(q);
  *con_cls = NULL;
}

static bool host_allowed(const char *host, int port) {
  char a[64], b[64];
  snprintf(a, sizeof a, "127.0.0.1:%d", port);
  snprintf(b, sizeof b, "localhost:%d", port);
  if (strcasecmp(host, a) == 0 || strcasecmp(host, b) == 0) return true;
  return port == 80 && (strcasecmp(host, "127.0.0.1") == 0 || strcasecmp(host, "localhost") == 0);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
  Serve *sv = cls;
  Req *q = *con_cls;
  if (!q) return MHD_NO;
  if (q->answered) { /* answered before its body: drop the rest */
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (!q->started) {
    q->started = true;
    HostHeader host = host_httpd_header(c, "Host");
    if (host.count != 1 || !host_allowed(host.first, sv->port)) return plain(c, q, 421, "Misdirected Request");
    if (host_httpd_header(c, "Transfer-Encoding").count) return plain(c, q, 400, "Transfer-Encoding is not supported");
    size_t len = 0;
    switch (host_httpd_content_length(c, SERVE_MAX_BODY, &len)) {
      case HOST_CL_NONE: case HOST_CL_OK: break;
      case HOST_CL_AMBIGUOUS: return plain(c, q, 400, "Ambiguous Content-Length header");
      case HOST_CL_NEGATIVE: return plain(c, q, 400, "Invalid Content-Length: must not be negative");
      case HOST_CL_INVALID: return plain(c, q, 400, "Invalid Content-Length header");
      case HOST_CL_TOO_LARGE: return plain(c, q, 413, "Request body too large");
    }
    q->expect = len;
    q->body = malloc(len + 1);
    if (!q->body) return plain(c, q, 500, "Internal Server Error");
    return MHD_YES;
  }
  if (*upload_data_size) {
    size_t n = *upload_data_size;
    *upload_data_size = 0;
    if (q->len + n > q->expect) return plain(c, q, 400, "Incomplete request body");
    memcpy(q->body + q->len, upload_data, n);
    q->len += n;
    return MHD_YES;
  }
  if (q->len != q->expect) return plain(c, q, 400, "Incomplete request body");
  return dispatch(sv, c, method, q);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe) {
  Serve *sv = cls;
  if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
    Conn *k = calloc(1, sizeof *k);
    *socket_context = k;
    if (!k) return; /* without a record it has only the idle timeout */
    k->c = c;
    k->start = host_now();
    k->next = sv->conns;
    if (sv->conns) sv->conns->prev = k;
    sv->conns = k;
  } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
    Conn *k = *socket_context;
    if (!k) return;
    if (k->prev) k->prev->next = k->next;
    else sv->conns = k->next;
    if (k->next) k->next->prev = k->prev;
    free(k);
    *socket_context = NULL;
  }
}

/* Cut off every connection whose request has not all arrived within
 * SERVE_TIMEOUT_S of its accept: its socket is shut down, so the next
 * MHD_run sees it end and closes it. Returns the milliseconds until the
 * next such deadline (at most 1000). */
static int cut_late(Serve *sv) {
  double now = host_now(), next = 1.0;
  for (Conn *k = sv->conns; k; k = k->next) {
    if (k->answered) continue;
    double left = k->start + SERVE_TIMEOUT_S - now;
    if (left <= 0) {
      const union MHD_ConnectionInfo *ci = MHD_get_connection_info(k->c, MHD_CONNECTION_INFO_CONNECTION_FD);
      if (ci) shutdown(ci->connect_fd, SHUT_RDWR);
      k->answered = true;
      next = 0;
    } else if (left < next) next = left;
  }
  return (int)(next * 1000) + 1;
}

/* ---- http_listen ------------------------------------------------------------- */

static geno_value *cb_http_listen(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                  char **error) {
  Host *h = ud;
  int64_t port;
  if (nargs < 1 || !geno_value_int(args[0], &port)) return host_fail(error, "http_listen: expected a port");
  if (h->serving) return host_fail(error, "http_listen: the program is already serving");
  if (port < 0 || port > 65535)
    return host_fail(error, "Cannot bind to port %lld: port must be 0-65535", (long long)port);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = {0};
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* 127.0.0.1 only, whatever the program asks */
  int one = 1;
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 128) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    return host_fail(error, "Cannot bind to port %lld: [Errno %d] %s", (long long)port, e, strerror(e));
  }
  socklen_t sl = sizeof sa;
  getsockname(fd, (struct sockaddr *)&sa, &sl);
  Serve sv = {h, ntohs(sa.sin_port), false, NULL, NULL};
  struct MHD_Daemon *d = MHD_start_daemon(
      MHD_USE_AUTO, 0, NULL, NULL, on_request, &sv, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
      (unsigned)SERVE_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_TIMEOUT_S,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_MAX_HEADER_BYTES + 16384, MHD_OPTION_URI_LOG_CALLBACK,
      on_uri, &sv, MHD_OPTION_NOTIFY_COMPLETED, on_completed, &sv, MHD_OPTION_NOTIFY_CONNECTION, on_connection, &sv,
      MHD_OPTION_END);
  if (!d) {
    close(fd);
    return host_fail(error, "Cannot bind to port %lld: the HTTP server could not start", (long long)port);
  }
  h->serving = true;
  /* the reference prints this straight to the real stdout, past the
   * program's output buffer; the bound port, so that port 0 works */
  printf("Listening on http://127.0.0.1:%d\n", sv.port);
  fflush(stdout);
  void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN); /* a client that hangs up must not end us */
  while (!sv.program_gone) MHD_run_wait(d, cut_late(&sv));
  signal(SIGPIPE, old_pipe);
  MHD_stop_daemon(d);
  close(fd);
  h->serving = false;
  geno_value *r = host_fail(error, "http_listen: the program stopped answering requests: %s",
                            sv.gone_error ? sv.gone_error : "it ended");
  geno_free(sv.gone_error);
  return r;
}

bool host_serve_install(Host *h, char **err) {
  return host_add(h, "http_route", cb_http_route) && host_add(h, "http_listen", cb_http_listen);
}

void host_serve_free(Host *h) {
  for (size_t i = 0; i < h->nroutes; i++) {
    free(h->routes[i].method);
    free(h->routes[i].path);
    geno_value_free(h->routes[i].handler);
  }
  free(h->routes);
  h->routes = NULL;
  h->nroutes = h->route_cap = 0;
}
