/* The hosted execution service (`geno serve`): internal interface of
 * src/server. A client of include/geno.h like the CLI, plus the host
 * policies of src/host for granted effects.
 *
 *   config.c   flags and GENO_* environment variables, validated at start
 *   policy.c   Host allow-list, Origin, client address (X-Forwarded-For),
 *              authentication, the per-client rate limiter
 *   request.c  request bodies: JSON rules and field validation
 *   worker.c   running a request in a sandboxed child (geno_run_isolated,
 *              geno_check_isolated) and turning the result into a reply
 *   pipeline.c the request pipeline on any transport (method, target,
 *              headers, peer in; status, headers, body out)
 *   http.c     libmicrohttpd glue: connections, worker threads, drain
 *   playground.c  the static playground page
 *
 * Threading: libmicrohttpd's event thread holds the connections and
 * worker threads run the requests (http.c); every function here is safe
 * to call from any of them (the rate limiter and the metrics collector
 * lock; everything else is read-only after start). */
#ifndef GENO_SERVER_SERVER_H
#define GENO_SERVER_SERVER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <geno.h>

/* One entry of GENO_ALLOWED_HOSTS or of the bind's own names: a lower-case
 * host name (IPv6 without brackets) and a port, -1 for any. */
typedef struct SrvHostPort {
  char *host;
  int port;
} SrvHostPort;

typedef struct SrvStrings {
  char **items;
  size_t count;
} SrvStrings;

enum { SRV_LOG_DEBUG = 10, SRV_LOG_INFO = 20, SRV_LOG_WARNING = 30, SRV_LOG_ERROR = 40 };

typedef struct SrvConfig {
  /* flags */
  char *host;                  /* bind address */
  int port;                    /* 0 = any free port (the bound one is logged) */
  char *service, *revision;    /* build info for /healthz */
  unsigned allowed_caps;       /* the ceiling a request may ask for */
  bool allow_insecure;
  /* environment */
  char *api_key;               /* NULL: no authentication */
  SrvHostPort *allowed_hosts;  /* GENO_ALLOWED_HOSTS entries */
  size_t nallowed_hosts;
  bool hosts_any;              /* `*`, or --allow-insecure with no list */
  SrvStrings cors_origins;
  int require_auth_metrics;    /* -1 unset (auth iff a key), 0, 1 */
  bool require_auth_playground;
  char *trusted_proxy;         /* NULL: X-Forwarded-* ignored */
  SrvStrings env_names, env_prefixes;
  /* Effects on the machine need their allow-lists (a request granting fs
   * or process without one is refused, 400): GENO_FS_ROOTS, the only
   * directories fs may reach (':'-separated, as given; NULL: unset), and
   * whether GENO_PROCESS_EXECUTABLES lists at least one executable. */
  char *fs_roots;
  bool process_allow_list;
  char *process_executables;   /* GENO_PROCESS_EXECUTABLES as given (NULL: unset) */
  /* GENO_FS_READ_ONLY, GENO_HTTP_ALLOW_PRIVATE, GENO_PROCESS_ALLOW_PATH_SEARCH:
   * read at start (the environment is emptied before the first request) */
  bool fs_read_only, http_allow_private, process_path_search;
  uint64_t max_body, max_header, max_response, max_depth;
  uint64_t max_module_bytes, max_modules;
  double max_timeout, max_wall, constrain_wall, startup_grace;
  uint64_t default_steps, max_steps;
  uint64_t worker_memory;      /* bytes, 0 = none */
  double worker_cpu;           /* seconds, 0 = none */
  uint64_t worker_file_size, worker_processes;
  unsigned max_concurrent, max_connections, request_timeout;
  uint64_t rate_limit;         /* requests per window; 0 = off */
  double rate_window;
  uint64_t rate_buckets;
  bool skip_startup_checks;
  int log_level;
  bool sandbox_debug;
  unsigned spawners;           /* GENO_SPAWNERS: how many (0 = one per CPU: listed, or the server may use) */
  bool spawners_given;         /* GENO_SPAWNERS set: no calibration */
  int *spawner_cpus;           /* GENO_SPAWNER_CPUS: the CPUs listed (malloc'd; NULL with auto) */
  unsigned nspawner_cpus;      /* 0: auto (or GENO_SPAWNERS alone) */
  int bind_threads;            /* GENO_SPAWNER_BIND_THREADS: -1 unset (follows the layout), 0, 1 */
  char spawner_exe[PATH_MAX];  /* GENO_SPAWNER_EXECUTABLE: the separate spawner; "" = fork spawners from the server */
  /* runtime */
  struct SrvSpawners *spawner_set; /* children fork from these (NULL: from the server) */
} SrvConfig;

/* Parse `geno serve` arguments (argv[0] is "serve") and the GENO_*
 * environment into cfg. Returns 0 on success, -1 after --help (printed),
 * or 2 after printing a clear error (bad flag or variable). */
int srv_config_load(SrvConfig *cfg, int argc, char **argv);
void srv_config_free(SrvConfig *cfg);

/* Log one line to stderr in the reference's format
 * (`2026-12-01T18:00:00+0000 INFO geno.server: msg`) if level passes. */
void srv_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
extern int srv_log_level;

/* ---- policy.c ---- */

/* Normalise "Host"-style text ("Example.COM.:8080", "[::1]:80") into a
 * lower-case host without brackets or trailing dot and a port (-1 when
 * absent). False when malformed. host gets a malloc'd string. */
bool srv_parse_host_port(const char *text, char **host, int *port);
/* Whether the request's Host header value is allowed for the server bound
 * at bind_host:port. */
bool srv_host_allowed(const SrvConfig *cfg, const char *bind_host, int port, const char *host_header);
bool srv_is_loopback_name(const char *host);
/* Origin rule for POST: true when allowed. scheme is "http" or "https". */
bool srv_origin_allowed(const SrvConfig *cfg, const char *origin, const char *scheme, const char *host_header);
/* The client address: the peer, or with a trusted proxy the right-most
 * X-Forwarded-For entry that is an address and not the proxy. xff is the
 * header values joined with ",", or NULL. Writes into out (>= 64 bytes). */
void srv_client_ip(const SrvConfig *cfg, const char *peer, const char *xff, char *out, size_t outlen);
/* Constant-time comparison of a presented credential with the key. */
bool srv_key_equal(const char *given, size_t given_len, const char *key);

typedef struct SrvRateLimiter SrvRateLimiter;
SrvRateLimiter *srv_rate_new(uint64_t limit, double window_s, uint64_t max_buckets);
void srv_rate_free(SrvRateLimiter *rl);
/* Whether one more request from key is allowed now (recording it if so). */
bool srv_rate_allow(SrvRateLimiter *rl, const char *key);

/* ---- request.c ---- */

typedef enum { SRV_RUN, SRV_CHECK, SRV_TEST, SRV_CONSTRAIN } SrvEndpoint;

typedef struct SrvRequest {
  SrvEndpoint endpoint;
  char *source;               /* or the prefix for /constrain */
  size_t source_len;
  char *filename;
  double timeout_s;
  uint64_t max_steps;
  bool check_examples;
  unsigned caps;
  geno_module *modules;
  size_t nmodules;
  const char *request_id;     /* for the log (set by the pipeline, borrowed) */
} SrvRequest;

/* Validate a body (bytes as received) for endpoint. On success fills req
 * and returns NULL; otherwise returns the 400 message (static or
 * malloc'd: *owned tells) and req holds nothing. */
const char *srv_request_parse(const SrvConfig *cfg, SrvEndpoint endpoint, const char *body, size_t len,
                              SrvRequest *req, bool *owned);
void srv_request_free(SrvRequest *req);

/* ---- worker.c ---- */

typedef struct SrvReply {
  int status;
  char *body;                 /* released with release */
  void (*release)(void *);    /* free, or geno_free for the library's text (NULL: free) */
  size_t len;
  const char *outcome;        /* metrics/log label */
} SrvReply;

/* Carry out a validated request in a sandboxed child and build the reply
 * (status, compact JSON). metrics records the run. */
void srv_execute(const SrvConfig *cfg, geno_metrics *metrics, const SrvRequest *req, SrvReply *out);
/* JSON text made ASCII-only as the reference sends it: each non-ASCII
 * UTF-8 sequence (only inside strings) becomes \uXXXX, a surrogate pair
 * above U+FFFF. Returns a malloc'd copy (length in *out_len) or NULL. */
char *srv_json_ascii(const char *json, size_t n, size_t *out_len);
/* A JSON error reply {"error":"msg"} (msg escaped, ASCII-only). */
void srv_error_reply(SrvReply *out, int status, const char *outcome, const char *msg);
/* The indented JSON of geno_result_to_json made compact (whitespace
 * outside strings removed). In place; returns the new length. */
size_t srv_json_compact(char *json);
/* Check and run the server's own fixed self-test program in this process
 * (never a request's), so the library's lazily built tables exist before
 * the spawner is forked and every child inherits them. NULL or a malloc'd
 * error text. */
char *srv_warm_up(void);
/* Run the self-test program in a sandboxed child; NULL or an error text. */
char *srv_self_test(const SrvConfig *cfg);
/* Keep in this process's environment only what the env capability may
 * read (GENO_ALLOWED_ENV_NAMES / _PREFIXES, sensitive names only when
 * named exactly); a sandboxed child sees only that. */
void srv_filter_environment(const SrvConfig *cfg);

/* ---- spawners.c ---- */
/* The spawners the children fork from, one per CPU, each bound to its CPU
 * with its children (see spawners.c). Thread safety: once started, any
 * number of threads may acquire, release and ask at once. */
typedef struct SrvSpawners SrvSpawners;

typedef struct SrvSpawnerInfo {
  int pid, cpu;              /* cpu -1: not bound */
  bool alive;
  unsigned long long runs;   /* runs started on it */
  unsigned busy;             /* runs in flight on it */
} SrvSpawnerInfo;

/* Start `count` spawners (at least 1), spawner i bound to CPU
 * cpus[i % ncpus] (ncpus 0 or cpus NULL: none bound). With bind_threads,
 * a thread that acquires a spawner is bound to its CPU too. `exe` is the
 * separate spawner program ("" or NULL: spawners forked from the server,
 * also the fallback for one that does not start). Call from the main
 * thread before any other starts. NULL with errno set when none started
 * (or out of memory); a spawner that fails is logged and left out. */
SrvSpawners *srv_spawners_start(unsigned count, const int *cpus, unsigned ncpus, bool bind_threads, const char *exe);
/* Stop and reap them all (NULL is fine); no run may still use them. */
void srv_spawners_free(SrvSpawners *set);
/* The spawner for the calling thread's next run: the live one with the
 * fewest runs in flight (ties: the one this thread used last). Returns
 * its index (give it back to srv_spawners_release after the run) with
 * *out set, or -1 with *out NULL when none is alive (fork from the server). */
int srv_spawners_acquire(SrvSpawners *set, geno_spawner **out);
void srv_spawners_release(SrvSpawners *set, int index);
unsigned srv_spawners_count(const SrvSpawners *set);
/* Spawner i (NULL when there is no such spawner), for the self-test. */
geno_spawner *srv_spawners_at(const SrvSpawners *set, unsigned i);
/* Spawner i's state; false when there is no such spawner. */
bool srv_spawners_info(SrvSpawners *set, unsigned i, SrvSpawnerInfo *info);
/* The /healthz check: "pass" (all alive), "warn" (some died, or none was
 * started), "fail" (all died), with a description of each in detail. */
const char *srv_spawners_health(SrvSpawners *set, char *detail, size_t n);

/* ---- placement.c ---- */
/* Where the spawners go (see placement.c): GENO_SPAWNER_CPUS and
 * GENO_SPAWNERS as given, else `auto`, which measures whether forking
 * scales across this machine's CPUs. Not thread-safe: call from the main
 * thread at start, before other threads (the calibration forks). */

/* The CPUs this process may use (its affinity mask), ascending, at most
 * cap of them, into cpus; returns how many (0 when unknown). */
int srv_cpus_allowed(int *cpus, unsigned cap);
/* Parse a CPU list (GENO_SPAWNER_CPUS's value: "1", "0,2", "0-3",
 * "0-1,4", or "all" for every CPU this process may use) into cpus (at
 * most cap) and *n, in the order given. Every CPU must be one this
 * process may use, and none listed twice. 0, or -1 with a message naming
 * the variable in err. */
int srv_cpu_list_parse(const char *text, int *cpus, unsigned cap, unsigned *n, char *err, size_t errlen);

/* What the calibration measured. */
typedef struct SrvForkScaling {
  unsigned cpus;          /* CPUs that forked at once */
  unsigned rounds;        /* alternating rounds measured */
  double alone_rate;      /* forks per CPU-second, the last CPU forking alone (median of the rounds) */
  double together_rate;   /* forks per CPU-second summed over the CPUs forking at once (median) */
  double scale;           /* the median of the rounds' together / alone */
  double elapsed_ms;      /* wall time of the whole calibration */
  char why_not[128];      /* why nothing was measured, when false */
} SrvForkScaling;
/* Measure, in at most 300 ms of wall time, whether fork + exit + wait
 * scales across the CPUs cpus[0..n) (one helper process forked from this
 * one and bound to each; the last one alone, then all at once, in
 * alternating rounds). False (why_not set) when it could not measure: one
 * CPU, a helper that did not start, the time cap reached before a round. */
bool srv_fork_scaling(const int *cpus, unsigned n, SrvForkScaling *out);

/* A layout of spawners, for srv_spawners_start. */
typedef struct SrvLayout {
  unsigned count;       /* spawners to start */
  int *cpus;            /* spawner i bound to cpus[i % ncpus] (malloc'd; NULL: none bound) */
  unsigned ncpus;
  bool bind_threads;    /* a run's thread follows its spawner's CPU */
  char text[1024];      /* the choice and its figures, for the start-up log */
} SrvLayout;
/* Choose the layout from cfg: GENO_SPAWNER_CPUS (those CPUs, one spawner
 * each, or GENO_SPAWNERS of them in turn), else GENO_SPAWNERS over every
 * CPU (one: the last CPU), else auto: with calibrate, srv_fork_scaling
 * decides between one spawner per CPU (forking scales at least 1.3x) and
 * one spawner on the last CPU; without, one per CPU. One CPU: one
 * spawner, not bound. GENO_SPAWNER_BIND_THREADS unset: threads follow
 * their spawner when the spawners are on several CPUs. 0, or -1 out of
 * memory. Free with srv_layout_free. */
int srv_spawner_layout(const SrvConfig *cfg, bool calibrate, SrvLayout *out);
void srv_layout_free(SrvLayout *layout);

/* ---- pipeline.c ---- */
/* The request pipeline of `geno serve` on any transport: a server (http.c
 * on libmicrohttpd; the Python package's create_handler on http.server)
 * hands each request over as method, target, header list and peer
 * address, reads the body when asked, and writes the answer.
 * A service owns its configuration, its rate limiter and its concurrency
 * count; it records into a metrics collector it borrows. Thread safety:
 * one service serves any number of threads at once, each with its own
 * exchange. */
typedef struct SrvService SrvService;

typedef struct SrvHttpHeader {
  const char *name, *value; /* borrowed */
} SrvHttpHeader;

typedef struct SrvExchange {
  /* the request (borrowed; set by the caller before srv_service_begin) */
  const char *method, *target;     /* target: the path as sent, query included */
  const SrvHttpHeader *headers;    /* in the order received, repeats kept */
  size_t nheaders;
  const char *peer;                /* the client's address ("127.0.0.1", "::1") */
  const char *bind_host;           /* the listening address, for the Host rule */
  int port;                        /* the listening port */
  const char *scheme;              /* "http" (NULL) or "https" */
  /* the answer, once done: status, headers (static or borrowed from the
   * request and the service), a body released with release */
  bool done;
  int status;
  SrvHttpHeader out[24];
  size_t nout;
  char *body;
  size_t body_len;
  void (*release)(void *);
  /* not done: read exactly need_body bytes of body, then call
   * srv_service_finish (awaiting_body is set) */
  bool awaiting_body;
  size_t need_body;
  /* the pipeline's own */
  SrvEndpoint endpoint;
  char path[128], request_id[40], client[64];
  double start;
  size_t source_bytes;
  bool slot, post_logged;
} SrvExchange;

/* A service with configuration cfg (moved in: cfg is left empty) that
 * records into metrics (borrowed; it must outlive the service). NULL when
 * out of memory (cfg is then still the caller's). */
SrvService *srv_service_new(SrvConfig *cfg, geno_metrics *metrics);
void srv_service_free(SrvService *s);
/* The service's configuration (owned by it). */
SrvConfig *srv_service_config(SrvService *s);
/* Everything before the body: x (zeroed, then its request fields set) is
 * answered (x->done) or waits for its body (x->awaiting_body). */
void srv_service_begin(SrvService *s, SrvExchange *x);
/* The body, len bytes (fewer than need_body: the client stopped sending):
 * validation, the run in a sandboxed child, the answer in x. Blocks for
 * the run; call without holding locks. */
void srv_service_finish(SrvService *s, SrvExchange *x, const char *body, size_t len);
/* Answer x, still unanswered, with an error of the server's own (out of
 * memory, no worker thread): status, metrics outcome and message. */
void srv_service_fail(SrvService *s, SrvExchange *x, int status, const char *outcome, const char *msg);
/* The answer x (waiting for its body) gets if its client stops sending
 * before the body is whole: the header lines after the status line, the
 * blank line and the 400 body, in a malloc'd buffer (NULL: out of memory).
 * For a transport that learns of it where it cannot call
 * srv_service_finish; srv_exchange_end then records the 400. */
char *srv_service_incomplete_answer(SrvService *s, const SrvExchange *x, size_t *len);
/* After the answer is written (or the client went away): releases the
 * concurrency slot and the body, and records a request that got no answer. */
void srv_exchange_end(SrvService *s, SrvExchange *x);

/* ---- playground.c ---- */
extern const char srv_playground_html[];

/* ---- http.c ---- */
/* `geno serve`: returns the process exit status. */
int srv_main(int argc, char **argv);

#endif
