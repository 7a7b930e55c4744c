/* `geno serve` on libmicrohttpd: one event thread (epoll) holds every
 * connection (HTTP/1.1, keep-alive) and runs the pipeline (pipeline.c:
 * Host, path, Origin, request id and client address, rate limit, auth,
 * concurrency, body headers; GET /healthz, /metrics and the playground;
 * OPTIONS) up to the body. A POST's body is handed to a worker thread
 * (fields, execution in a sandboxed child) while its connection is
 * suspended, and answered when the worker resumes it: a slow request never
 * holds up another connection, and an idle or half-open connection costs a
 * descriptor and its buffer, not a thread. A request must arrive whole
 * (request line, headers, body) within GENO_REQUEST_TIMEOUT_SECONDS of the
 * connection's start or of the previous answer: libmicrohttpd's timeout
 * only counts idle time, so the main thread shuts down the socket of a
 * connection still reading past that deadline (a client trickling bytes).
 * GENO_MAX_CONNECTIONS is counted here: a connection over it is accepted
 * and closed at once (libmicrohttpd's own limit, set above ours, would
 * leave it waiting in the listen backlog). SIGTERM drains: stop accepting,
 * close every connection that is not being answered (idle, or still
 * sending its request), let the requests in flight finish, exit 0. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

typedef struct Req Req;

/* A connection, for its read deadline (below). */
typedef struct Conn {
  int fd;
  atomic_llong deadline_ms; /* monotonic ms by which its request must have arrived; 0: not reading */
  atomic_bool answering;    /* its answer is queued and being written */
  bool hangup_seen;         /* the sweep saw the client's end of stream (main thread's) */
  /* While a POST's body arrives: its answer should the client stop
   * sending (srv_service_incomplete_answer; under conn_lock) */
  char *hangup_answer;
  size_t hangup_len;
  struct Conn *prev, *next;
} Conn;

typedef struct Srv {
  SrvConfig cfg;            /* until the service takes it */
  SrvService *svc;          /* the pipeline, its configuration, rate limiter and slots */
  geno_metrics *metrics;
  int port;                 /* bound port */
  atomic_int open_requests; /* requests between URI and completion */
  atomic_uint connections;  /* open connections, against GENO_MAX_CONNECTIONS */
  atomic_bool draining;
  /* The workers: threads made on demand, at most max_concurrent (a job
   * holds a concurrency slot, so no more can be waiting). */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  Req *jobs, *jobs_tail;    /* bodies received, waiting for a worker */
  unsigned njobs, idle, nthreads, max_threads;
  pthread_t *threads;
  bool stopping;
  /* Connections, for the read deadline: added and removed by the event
   * thread, swept by the main thread. */
  pthread_mutex_t conn_lock;
  Conn *conns;
} Srv;

struct Req {
  SrvExchange x;            /* the pipeline's request and answer */
  char *uri;
  SrvHttpHeader *headers;   /* the request's, borrowed from the connection */
  size_t nheaders, header_cap;
  char peer[64];
  bool started, responded;
  bool deferred;            /* answered before the body: sent on the next call */
  bool queued;              /* handed to a worker; the connection is suspended */
  char *body;
  size_t len;
  struct MHD_Connection *conn;
  Req *next;                /* in the job queue */
};

/* The context of a connection no Conn could be allocated for (it is still
 * counted against the cap; it has no read deadline). */
static Conn no_conn;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

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

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  Req *q = cls;
  if (q->nheaders == q->header_cap) {
    size_t cap = q->header_cap ? q->header_cap * 2 : 16;
    SrvHttpHeader *h = realloc(q->headers, cap * sizeof *h);
    if (!h) return MHD_NO;
    q->headers = h;
    q->header_cap = cap;
  }
  q->headers[q->nheaders].name = key;
  q->headers[q->nheaders].value = value ? value : "";
  q->nheaders++;
  return MHD_YES;
}

/* Queue the pipeline's answer (its body handed to libmicrohttpd). */
static enum MHD_Result answer(Srv *s, struct MHD_Connection *c, Req *q) {
  SrvExchange *x = &q->x;
  struct MHD_Response *r = x->body ? MHD_create_response_from_buffer_with_free_callback(x->body_len, x->body, x->release)
                                   : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
  if (!r) return MHD_NO; /* the body stays in x: srv_exchange_end releases it */
  x->body = NULL;
  for (size_t i = 0; i < x->nout; i++) {
    /* the pipeline names a length only where libmicrohttpd would send none
     * (OPTIONS' 204 carries Content-Length: 0, as the reference's does) */
    if (strcasecmp(x->out[i].name, "Content-Length") == 0)
      MHD_set_response_options(r, MHD_RF_INSANITY_HEADER_CONTENT_LENGTH, MHD_RO_END);
    MHD_add_response_header(r, x->out[i].name, x->out[i].value);
  }
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  Conn *k = ci ? ci->socket_context : NULL;
  if (k && k != &no_conn) atomic_store(&k->answering, true);
  if (atomic_load(&s->draining)) MHD_add_response_header(r, "Connection", "close");
  enum MHD_Result ret = MHD_queue_response(c, (unsigned)x->status, r);
  MHD_destroy_response(r);
  q->responded = true;
  return ret;
}

/* In a worker thread: the fields, then the run; the answer goes into q->x
 * and the connection is resumed (q belongs to the event thread again from
 * then on). */
static void run_job(Srv *s, Req *q) {
  srv_service_finish(s->svc, &q->x, q->body, q->len);
  free(q->body);
  q->body = NULL;
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
  if (s->idle < s->njobs && s->nthreads < s->max_threads) {
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

/* ---- the read deadline ------------------------------------------------------ */

/* c's request must arrive within the request timeout from now (reading),
 * or c is not reading (its request is being answered). */
static void conn_reading(Srv *s, struct MHD_Connection *c, bool reading) {
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  Conn *k = ci ? ci->socket_context : NULL;
  if (!k || k == &no_conn) return;
  long long d = reading ? (long long)now_ms() + 1000ll * srv_service_config(s->svc)->request_timeout : 0;
  atomic_store(&k->deadline_ms, d);
}

/* Set (answer: malloc'd, taken) or clear (NULL) c's answer to a body cut short. */
static void set_hangup_answer(Srv *s, struct MHD_Connection *c, char *answer, size_t len) {
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  Conn *k = ci ? ci->socket_context : NULL;
  if (!k || k == &no_conn) {
    free(answer);
    return;
  }
  pthread_mutex_lock(&s->conn_lock);
  free(k->hangup_answer);
  k->hangup_answer = answer;
  k->hangup_len = answer ? len : 0;
  pthread_mutex_unlock(&s->conn_lock);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe) {
  Srv *s = cls;
  if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
    atomic_fetch_add(&s->connections, 1);
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    Conn *k = ci ? calloc(1, sizeof *k) : NULL;
    if (!k) { /* no deadline: the idle timeout still applies */
      *socket_context = &no_conn;
      return;
    }
    k->fd = ci->connect_fd;
    atomic_init(&k->deadline_ms, (long long)now_ms() + 1000ll * srv_service_config(s->svc)->request_timeout);
    pthread_mutex_lock(&s->conn_lock);
    k->next = s->conns;
    if (s->conns) s->conns->prev = k;
    s->conns = k;
    pthread_mutex_unlock(&s->conn_lock);
    *socket_context = k;
  } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
    atomic_fetch_sub(&s->connections, 1);
    Conn *k = *socket_context;
    *socket_context = NULL;
    if (k == &no_conn) return;
    pthread_mutex_lock(&s->conn_lock);
    if (k->prev) k->prev->next = k->next;
    else s->conns = k->next;
    if (k->next) k->next->prev = k->prev;
    pthread_mutex_unlock(&s->conn_lock);
    free(k->hangup_answer);
    free(k);
  }
}

/* Accept a connection only within GENO_MAX_CONNECTIONS: one over it is
 * closed at once (by libmicrohttpd, on this answer). Called on the event
 * thread, as the connection notifications are, so the count is exact. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
  (void)addr;
  (void)addrlen;
  Srv *s = cls;
  return atomic_load(&s->connections) < srv_service_config(s->svc)->max_connections ? MHD_YES : MHD_NO;
}

/* Whether the client of a connection that is reading has shut its side
 * down with nothing left unread: it will send nothing more. libmicrohttpd
 * (0.9.75, epoll) takes a short read as the end of what is there and does
 * not read again until more arrives, so it can miss that end of stream
 * and keep such a connection until its timeout. */
static bool client_hung_up(int fd) {
  struct pollfd p = {.fd = fd, .events = POLLRDHUP};
  int unread = 0;
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP)) && ioctl(fd, FIONREAD, &unread) == 0 &&
         unread == 0;
}

/* A POST whose client stopped sending before the whole body gets its 400
 * (written here, in one go, as the reference answers it) and k's answer is
 * spent. Call with conn_lock held. */
static void send_hangup_answer(Conn *k) {
  if (!k->hangup_answer) return;
  char head[96];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  size_t n = strftime(head, sizeof head, "HTTP/1.1 400 Bad Request\r\nDate: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
  struct iovec iov[2] = {{head, n}, {k->hangup_answer, k->hangup_len}};
  struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
  (void)sendmsg(k->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT); /* a client gone already gets nothing */
  free(k->hangup_answer);
  k->hangup_answer = NULL;
  k->hangup_len = 0;
}

/* Cut off every connection still reading past its deadline, and every
 * reading one whose client has hung up (seen on two sweeps in a row, so a
 * request that arrived whole just before is already with its worker):
 * shutting the socket down (never closing it: the event thread owns the
 * descriptor) makes libmicrohttpd see the end of the stream and close it. */
static void sweep_deadlines(Srv *s) {
  long long now = (long long)now_ms();
  pthread_mutex_lock(&s->conn_lock);
  for (Conn *k = s->conns; k; k = k->next) {
    long long d = atomic_load(&k->deadline_ms);
    bool reading = d && !atomic_load(&k->answering);
    bool hung_up = reading && client_hung_up(k->fd);
    if ((d && now > d) || (hung_up && k->hangup_seen)) {
      atomic_store(&k->deadline_ms, 0);
      /* libmicrohttpd writes nothing while it reads a body, and this body
       * will never complete */
      if (hung_up) send_hangup_answer(k);
      shutdown(k->fd, SHUT_RDWR);
    }
    k->hangup_seen = hung_up;
  }
  pthread_mutex_unlock(&s->conn_lock);
}

/* On SIGTERM: cut off every connection that is neither being answered nor
 * waiting for its run (idle between requests, or still sending its
 * request line, headers or body), so none of them holds up the exit. */
static void sweep_draining(Srv *s) {
  pthread_mutex_lock(&s->conn_lock);
  for (Conn *k = s->conns; k; k = k->next) {
    if (atomic_load(&k->deadline_ms) && !atomic_load(&k->answering)) {
      atomic_store(&k->deadline_ms, 0);
      shutdown(k->fd, SHUT_RDWR);
    }
  }
  pthread_mutex_unlock(&s->conn_lock);
}

/* ---- libmicrohttpd callbacks ------------------------------------------- */

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c) {
  Srv *s = cls;
  Req *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->uri = strdup(uri ? uri : "");
  if (!q->uri) {
    free(q);
    return NULL;
  }
  atomic_fetch_add(&s->open_requests, 1);
  return q;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
  Srv *s = cls;
  Req *q = *con_cls;
  if (!q) return;
  conn_reading(s, c, true); /* the connection's next request, if any, starts now */
  if (toe == MHD_REQUEST_TERMINATED_CLIENT_ABORT || toe == MHD_REQUEST_TERMINATED_READ_ERROR) {
    /* libmicrohttpd saw the end of the stream itself */
    const union MHD_ConnectionInfo *ki = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    Conn *k = ki ? ki->socket_context : NULL;
    if (k && k != &no_conn) {
      pthread_mutex_lock(&s->conn_lock);
      send_hangup_answer(k);
      pthread_mutex_unlock(&s->conn_lock);
    }
  }
  set_hangup_answer(s, c, NULL, 0);
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  Conn *k = ci ? ci->socket_context : NULL;
  if (k && k != &no_conn) atomic_store(&k->answering, false);
  srv_exchange_end(s->svc, &q->x); /* a POST the client left mid-body is recorded as bad_request */
  free(q->headers);
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
  if (q->queued) return answer(s, c, q); /* resumed by its worker */
  if (q->deferred) { /* a request without a run (GET, OPTIONS, ...): any body is dropped */
    if (*upload_data_size) {
      *upload_data_size = 0;
      return MHD_YES;
    }
    return answer(s, c, q);
  }
  if (!q->started) {
    q->started = true;
    MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, q);
    peer_address(c, q->peer, sizeof q->peer);
    q->x.method = method;
    q->x.target = q->uri;
    q->x.headers = q->headers;
    q->x.nheaders = q->nheaders;
    q->x.peer = q->peer;
    q->x.bind_host = srv_service_config(s->svc)->host;
    q->x.port = s->port;
    srv_service_begin(s->svc, &q->x);
    if (q->x.done && strcmp(method, "POST") != 0) {
      /* answered on the next call, once libmicrohttpd has read the whole
       * request: an answer queued now would close the connection */
      q->deferred = true;
      return MHD_YES;
    }
    if (q->x.done) return answer(s, c, q); /* before the body: the connection closes */
    q->body = malloc(q->x.need_body + 1);
    if (!q->body) {
      srv_service_fail(s->svc, &q->x, 500, "internal_error", "internal server error");
      return answer(s, c, q);
    }
    if (q->x.need_body) {
      size_t n = 0;
      char *a = srv_service_incomplete_answer(s->svc, &q->x, &n);
      set_hangup_answer(s, c, a, n);
    }
    return MHD_YES;
  }
  if (*upload_data_size) {
    size_t n = *upload_data_size;
    if (q->body && q->len + n <= q->x.need_body) {
      memcpy(q->body + q->len, upload_data, n);
      q->len += n;
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  set_hangup_answer(s, c, NULL, 0); /* the body is whole (or libmicrohttpd ended it) */
  if (q->len < q->x.need_body) { /* answered at once: no run */
    srv_service_finish(s->svc, &q->x, q->body, q->len);
    return answer(s, c, q);
  }
  q->conn = c;
  q->queued = true;
  conn_reading(s, c, false); /* arrived: the run has its own budget */
  MHD_suspend_connection(c);
  if (!enqueue(s, q)) {
    srv_log(SRV_LOG_ERROR, "no worker thread could be started");
    srv_service_fail(s->svc, &q->x, 500, "internal_error", "internal server error");
    MHD_resume_connection(c);
  }
  return MHD_YES;
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

/* Connections libmicrohttpd may hold beyond GENO_MAX_CONNECTIONS (closing
 * ones not yet cleaned up). */
enum { CONNECTION_SLACK = 64 };

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
  if (!s->metrics) {
    fprintf(stderr, "geno serve: error: out of memory\n");
    return 1;
  }
  srv_filter_environment(cfg);
  signal(SIGPIPE, SIG_IGN);
  char *fail = srv_warm_up();
  /* Children fork from a spawner started now, single-threaded and warm,
   * rather than from this process once its connection threads run. */
  SrvLayout layout;
  if (srv_spawner_layout(cfg, true, &layout) != 0) {
    fprintf(stderr, "geno serve: error: out of memory\n");
    return 1;
  }
  srv_log(SRV_LOG_INFO, "%s", layout.text);
  cfg->spawner_set = srv_spawners_start(layout.count, layout.cpus, layout.ncpus, layout.bind_threads, cfg->spawner_exe);
  srv_layout_free(&layout);
  if (!cfg->spawner_set)
    srv_log(SRV_LOG_WARNING, "spawner unavailable (%s): workers fork from the server", strerror(errno));
  else srv_log(SRV_LOG_INFO, "%u spawners started", srv_spawners_count(cfg->spawner_set));
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
    uint64_t need = (uint64_t)cfg->max_connections + CONNECTION_SLACK + 4ull * cfg->max_concurrent + 64;
    if (need > room) {
      uint64_t other = CONNECTION_SLACK + 4ull * cfg->max_concurrent + 64;
      uint64_t fit = room > other + 16 ? room - other : 16;
      srv_log(SRV_LOG_WARNING, "GENO_MAX_CONNECTIONS=%u does not fit the descriptor limit (%llu): using %llu",
              cfg->max_connections, (unsigned long long)room, (unsigned long long)fit);
      cfg->max_connections = (unsigned)fit;
    }
  }
  s->threads = calloc(cfg->max_concurrent, sizeof *s->threads);
  s->max_threads = cfg->max_concurrent;
  if (!s->threads || pthread_mutex_init(&s->lock, NULL) != 0 || pthread_cond_init(&s->wake, NULL) != 0 ||
      pthread_mutex_init(&s->conn_lock, NULL) != 0 ||
      !(s->svc = srv_service_new(cfg, s->metrics))) {
    fprintf(stderr, "geno serve: error: out of memory\n");
    return 1;
  }
  cfg = srv_service_config(s->svc); /* the service holds the configuration from here on */
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
  /* libmicrohttpd's own limit stays above ours (on_accept): at its limit
   * it stops accepting, and connections would wait in the backlog */
  struct MHD_Daemon *d = MHD_start_daemon(
      flags, (uint16_t)cfg->port, on_accept, s, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->max_connections + CONNECTION_SLACK, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned)cfg->request_timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem, MHD_OPTION_URI_LOG_CALLBACK, on_uri,
      s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
      MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_END);
  if (!d) {
    srv_log(SRV_LOG_ERROR, "cannot listen on %s:%d: %s", cfg->host, cfg->port, strerror(errno));
    return 1;
  }
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  s->port = di ? di->port : cfg->port;
  bool v6 = strchr(cfg->host, ':') && cfg->host[0] != '[';
  srv_log(SRV_LOG_INFO, "Serving Geno runtime on http://%s%s%s:%d", v6 ? "[" : "", cfg->host, v6 ? "]" : "",
          s->port);
  int sig;
  for (;;) { /* wait for a signal, sweeping the read deadlines 4 times a second */
    struct timespec tick = {0, 250 * 1000 * 1000};
    sig = sigtimedwait(&stop, NULL, &tick);
    if (sig > 0) break;
    if (errno == EAGAIN) sweep_deadlines(s);
  }
  srv_log(SRV_LOG_INFO, "Received %s, shutting down gracefully", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  atomic_store(&s->draining, true);
  MHD_socket listener = MHD_quiesce_daemon(d); /* no new connections; requests in flight go on */
  if (listener != MHD_INVALID_SOCKET) close(listener);
  double deadline = now_ms() + (cfg->max_wall + 5.0) * 1000.0;
  for (unsigned n = 0; atomic_load(&s->open_requests) > 0 && now_ms() < deadline; n++) {
    /* idle connections and clients still sending a request do not hold up
     * the exit (again each time: an answered keep-alive one becomes idle) */
    if (n % 10 == 0) sweep_draining(s);
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
  srv_spawners_free(cfg->spawner_set);
  srv_service_free(s->svc);
  geno_metrics_free(s->metrics);
  return 0;
}
