/* host.h -- the host policies: real implementations of the builtins the
 * library leaves to host callbacks (files, HTTP, processes, standard
 * input, sleep_ms), each behind the policy the reference's CLI applies.
 * The `geno` command (src/cli) and the server (src/server) both use them.
 * See docs/SECURITY.md, "The CLI as a host".
 *
 * The library never touches the machine; a capability granted with --cap
 * only lets a program *ask*. These callbacks are what answers, and they
 * run in the host process (the CLI or the server): in the default isolated mode the program sits in
 * a sandboxed child and its requests reach them through the broker, so
 * every argument is hostile data. Callbacks are installed only for the
 * capabilities granted with --cap (fail closed: no --cap fs, no fs
 * callback, and the builtin stays E412/E413).
 *
 * Error shapes follow the reference: a builtin whose type returns a Result
 * reports ordinary failures as Err(text); the others (fs_read_text,
 * http_fetch, ...) fail the call, which the program sees as a catchable
 * runtime error (E499) with the same text. */
#ifndef GENO_HOST_H
#define GENO_HOST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <geno.h>

/* One slot per BF_CALLBACK builtin the CLI implements (7 fs, 3 http, 4
 * process, stdin_read_all, sleep_ms, http_route, http_listen). */
#define HOST_MAX_CALLBACKS 18

/* A route of a program that serves HTTP (serve.c). */
typedef struct HostRoute HostRoute;

/* How far past the CLI's own estimate of the run's deadline a blocking
 * callback (sleep_ms, a process, an HTTP transfer, reading stdin) may
 * wait. The runtime starts its clock a little after the CLI does (after
 * parsing and checking), so a callback that stopped exactly at the CLI's
 * estimate could return just before the run's real deadline and let the
 * program go on after a shortened sleep. 250 ms covers checking any
 * program within the source-size limits, and stays below the 500 ms after
 * the deadline at which isolation kills the child (the parent cannot
 * supervise while it runs a callback). */
#define HOST_DEADLINE_SLACK_S 0.25

/* What the host needs to know about the run. */
typedef struct HostOptions {
  unsigned caps;               /* capabilities granted with --cap (0 = none) */
  double timeout_s;            /* the run's timeout (0 = none) */
  uint64_t max_collection;     /* max_collection_size: bounds what callbacks return */
  uint64_t max_file_bytes;     /* bytes one fs write may leave in a file (0: no limit) */
  bool limit_processes;        /* max_processes applies */
  uint64_t max_processes;      /* processes exec may start in one run */
  const char *program_path;    /* the entry file, for the fs roots */
  /* A ':'-separated list of directories that are then the only fs roots
   * (the server's GENO_FS_ROOTS); NULL: the CLI's roots (the current
   * directory, the program's, the project's, path-like arguments). An
   * entry that cannot be resolved fails host_init. */
  const char *fs_roots;
  const char *const *args;     /* program arguments, for the fs roots */
  size_t nargs;
  /* The operator's policy switches. The host layer never reads the
   * environment for them (the server empties its environment at start);
   * the CLI fills them with host_policy_from_env. */
  bool fs_read_only;              /* GENO_FS_READ_ONLY: every fs write refused */
  bool http_allow_private;        /* GENO_HTTP_ALLOW_PRIVATE: loopback/private targets allowed */
  bool process_path_search;       /* GENO_PROCESS_ALLOW_PATH_SEARCH: a bare name is looked up in PATH */
  /* GENO_PROCESS_EXECUTABLES: ':'-separated paths; exec and spawn run only
   * these (by real path). NULL or no entry: any absolute path (the CLI's
   * default, as the reference's; the server refuses `process` then). */
  const char *process_executables;
} HostOptions;

typedef struct Host {
  unsigned caps;              /* granted capabilities */
  double timeout_s;           /* as given */
  double deadline;            /* monotonic seconds; 0 = no deadline */
  uint64_t max_collection;    /* code points / elements a result may hold */
  uint64_t max_file_bytes;    /* as given (0: no limit) */
  bool limit_processes;       /* as given */
  uint64_t max_processes;
  uint64_t processes_started; /* by exec / exec_with_input so far */
  /* fs */
  char **roots;               /* real paths of the directories fs may reach */
  size_t nroots;
  /* http */
  bool http_allow_private;    /* GENO_HTTP_ALLOW_PRIVATE=1 */
  bool http_ready;            /* the http family is installed (libcurl loads on first use) */
  bool fs_read_only;          /* HostOptions.fs_read_only */
  /* process */
  bool inherit_env;           /* env granted too: children get our environment */
  bool path_search;           /* GENO_PROCESS_ALLOW_PATH_SEARCH=1 */
  char **exe_allow;           /* GENO_PROCESS_EXECUTABLES, real paths; NULL = no list */
  size_t nexe_allow;
  /* serve */
  HostRoute *routes;          /* http_route's table, in registration order */
  size_t nroutes, route_cap;
  bool serving;               /* http_listen is running */
  /* what cmd_run hands to geno_config */
  geno_callback callbacks[HOST_MAX_CALLBACKS];
  size_t ncallbacks;
} Host;

/* Build the host for one run: the policies from the options and the
 * environment, and callbacks for exactly the granted capabilities among
 * fs, http, process, stdin, clock (sleep_ms) and serve (http_route,
 * http_listen: serve.c). On failure returns false
 * with a malloc'd *err (nothing to free). */
bool host_init(Host *h, const HostOptions *o, char **err);
/* Fill o's policy switches and process_executables from the GENO_*
 * variables of the environment (the CLI's way). process_executables
 * points into the environment: valid until it changes. */
void host_policy_from_env(HostOptions *o);
void host_free(Host *h);
/* Start the deadline clock: call right before geno_run. */
void host_start_clock(Host *h);

/* The nearest geno.toml at or above FILE's directory, as a malloc'd path,
 * or NULL (none, or out of memory); its directory is the project root. */
char *host_find_manifest(const char *file);

/* ---- shared by the files of src/host ------------------------------------ */

/* A growable byte string; `s` is always NUL-terminated once anything was
 * added. An allocation failure sets `oom` and later additions do nothing. */
typedef struct HostStr {
  char *s;
  size_t len, cap;
  bool oom;
} HostStr;

void host_str_add(HostStr *b, const char *s, size_t n);
void host_str_puts(HostStr *b, const char *s);
void host_str_printf(HostStr *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void host_str_free(HostStr *b);
/* Hand the buffer over (malloc'd, NUL-terminated; "" when empty); NULL on
 * a failed allocation (the buffer is freed either way). */
char *host_str_take(HostStr *b);

/* Python's repr() of a str, as the reference's messages show paths:
 * 'a b', "it's", '\n', and a byte that is not UTF-8 as '\udcff' (Python's
 * surrogateescape). */
void host_py_repr(HostStr *b, const char *s, size_t n);

/* UTF-8 as CPython's codec judges it. At s[0..n) returns the length of
 * the valid sequence that starts there (1-4), or 0 when it is invalid:
 * then *bad is the number of bytes CPython reports (and replaces with one
 * U+FFFD) and *reason its explanation; or -1 when the bytes are a valid
 * but incomplete prefix and `final` is false (more may follow). */
int host_utf8_seq(const unsigned char *s, size_t n, bool final, size_t *bad, const char **reason);
/* CPython's UnicodeDecodeError text for the bad bytes at `pos`:
 * "'utf-8' codec can't decode byte 0xff in position 3: invalid start byte". */
void host_utf8_error(HostStr *b, const unsigned char *at, size_t pos, size_t bad, const char *reason);
/* Decode with errors="replace" into out (each invalid piece becomes one
 * U+FFFD), counting code points in *ncp. */
void host_utf8_replace(HostStr *out, const unsigned char *s, size_t n, size_t *ncp);

/* The reference reads streams (HTTP bodies, process output) 8 KiB at a
 * time and checks the collection limit after each piece, so the count it
 * reports is the total after the piece that crossed the limit. */
#define HOST_READ_CHUNK 8192
/* Decode s[0..n) with errors="replace" as the reference reads a stream.
 * True with the text appended to out; false when it holds more than
 * `limit` code points, with *report the count the reference's message
 * shows (out then holds only the first `limit`). */
bool host_decode_limited(HostStr *out, const unsigned char *s, size_t n, uint64_t limit, uint64_t *report);

/* Seconds left before the run's deadline plus HOST_DEADLINE_SLACK_S
 * (never negative), or -1 when the run has no deadline. */
double host_remaining(const Host *h);
/* Monotonic clock in seconds. */
double host_now(void);

/* Callback results. Each returns NULL after setting *error (the program
 * sees a runtime error with that text), so a callback can `return
 * host_fail(error, ...)`. */
geno_value *host_fail(char **error, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Take the text of b as the error (b is freed). */
geno_value *host_fail_str(char **error, HostStr *b);
/* Err(text) / Ok(String), or NULL with *error set when out of memory. */
geno_value *host_err(char **error, const char *text);
geno_value *host_err_str(char **error, HostStr *b);
geno_value *host_ok_string(char **error, const char *s, size_t n);
/* Check that v is non-NULL (an allocation succeeded); sets *error if not. */
geno_value *host_value(char **error, geno_value *v);
/* The reference's message for a result over the collection limit:
 * "String size exceeds limit (n > limit)". */
geno_value *host_size_error(char **error, const char *kind, uint64_t n, uint64_t limit);

/* Argument i as a String (bytes and length), or NULL if it is not one. */
const char *host_arg_str(const geno_value *const *args, size_t nargs, size_t i, size_t *len);

/* Environment switches the reference reads: "1", "true", "yes", "on"
 * (any case, surrounding spaces ignored). */
bool host_env_truthy(const char *name);

/* The families. Each adds its callbacks to h->callbacks; false with *err
 * on failure. */
bool host_fs_install(Host *h, const HostOptions *o, char **err);
bool host_http_install(Host *h, const HostOptions *o, char **err);
bool host_process_install(Host *h, const HostOptions *o, char **err);
bool host_stdin_install(Host *h, char **err);
bool host_clock_install(Host *h, char **err);
bool host_serve_install(Host *h, char **err);
void host_fs_free(Host *h);
void host_http_free(Host *h);
void host_process_free(Host *h);
void host_serve_free(Host *h);

/* Add one callback (false when the table is full, which is a bug). */
bool host_add(Host *h, const char *name, geno_callback_fn fn);

/* Exposed for tests (tests/unit/test_host_*.c). */

/* Python's os.path.realpath (non-strict) of an absolute path: symbolic
 * links resolved, `.`/`..` and repeated slashes removed, components that
 * do not exist kept as written. Sets *nul when the path holds a NUL byte
 * (Python's "embedded null byte"). malloc'd, NULL when out of memory. */
char *host_fs_realpath(const char *path, size_t len, bool *nul);
/* Test hook: open files as on a kernel without openat2 (the component
 * walk with O_NOFOLLOW). */
extern bool host_fs_no_openat2;
/* Whether `path` (normalized, absolute) is `root` or below it. */
bool host_fs_under_root(const char *path, const char *root);

/* The reference's HTTP address policy: is this IPv4 (4 bytes) or IPv6 (16
 * bytes) address one a program may reach? Denies loopback, private,
 * link-local, shared (CGNAT), documentation, benchmarking, multicast,
 * reserved and unspecified space, and IPv6 forms embedding such an IPv4
 * address (mapped, compatible, NAT64, 6to4, Teredo). */
bool host_http_address_public(const unsigned char *addr, size_t len);
/* Test hook: when set, replaces host_http_address_public for connections
 * (so a test can treat its loopback server as "public"). */
extern bool (*host_http_address_policy)(const unsigned char *addr, size_t len);

/* Python's shlex.split (POSIX mode). Returns the words (malloc'd array of
 * malloc'd strings, NULL-terminated) or NULL with a malloc'd *err
 * ("No closing quotation", "No escaped character"). */
char **host_shlex_split(const char *s, size_t n, size_t *count, char **err);
void host_strv_free(char **v);

#endif
