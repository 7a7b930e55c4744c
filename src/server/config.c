/* `geno serve` configuration: flags, then every GENO_* variable of the
 * reference's server, each validated once at start. A bad value is a
 * clear message and exit status 2, never a crash or a silent default. */
#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

int srv_log_level = SRV_LOG_INFO;

void srv_log(int level, const char *fmt, ...) {
  if (level < srv_log_level) return;
  char when[40];
  time_t t = time(NULL);
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", &tm);
  const char *name = level >= SRV_LOG_ERROR ? "ERROR" : level >= SRV_LOG_WARNING ? "WARNING"
                     : level >= SRV_LOG_INFO ? "INFO" : "DEBUG";
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* one write per line, so lines from concurrent requests never mix */
  fprintf(stderr, "%s %s geno.server: %s\n", when, name, msg);
}

static const char serve_help[] =
    "usage: geno serve [-h] [--host HOST] [--port PORT] [--service SERVICE]\n"
    "                  [--revision REVISION] [--allow-capability CAP]\n"
    "                  [--allow-insecure] [--workers N]\n"
    "\n"
    "Serve /run, /check, /test, /constrain, /healthz and /metrics over HTTP.\n"
    "\n"
    "options:\n"
    "  -h, --help            show this help message and exit\n"
    "  --host HOST           address to bind (default 127.0.0.1)\n"
    "  --port PORT           port to bind (default 8000; 0 = any free port)\n"
    "  --service SERVICE     service name in /healthz (default $GENO_SERVICE or geno-api)\n"
    "  --revision REVISION   revision in /healthz (default $GENO_REVISION)\n"
    "  --allow-capability CAP\n"
    "                        capability requests may ask for (repeatable,\n"
    "                        comma-separated). Default: print, clock, random.\n"
    "                        Requests get none unless they list them; fs and\n"
    "                        process also need GENO_FS_ROOTS and\n"
    "                        GENO_PROCESS_EXECUTABLES.\n"
    "  --allow-insecure      allow a non-loopback bind without GENO_API_KEY and\n"
    "                        GENO_ALLOWED_HOSTS\n"
    "  --workers N           requests executed at once (default\n"
    "                        $GENO_MAX_CONCURRENT_REQUESTS or 16); more get 503\n";

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage(const char *fmt, ...) {
  fputs("usage: geno serve [-h] [--host HOST] [--port PORT] [--service SERVICE]\n"
        "                  [--revision REVISION] [--allow-capability CAP]\n"
        "                  [--allow-insecure] [--workers N]\n", stderr);
  fputs("geno serve: error: ", stderr);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 2;
}

static int env_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int env_error(const char *fmt, ...) {
  fputs("geno serve: error: ", stderr);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 2;
}

/* GENO_FS_ROOTS and GENO_PROCESS_EXECUTABLES: ':'-separated absolute
 * paths of existing directories / executables, checked at start so that a
 * typo is an exit 2 and not a refusal at every request. Empty entries are
 * skipped; a variable with no entry counts as unset. */
static int env_bool(const char *key, int def, int *out);
static int load_host_lists(SrvConfig *cfg) {
  static const struct {
    const char *name;
    bool dirs;
  } vars[] = {{"GENO_FS_ROOTS", true}, {"GENO_PROCESS_EXECUTABLES", false}};
  for (size_t v = 0; v < 2; v++) {
    const char *list = getenv(vars[v].name);
    size_t entries = 0;
    for (const char *p = list ? list : ""; *p;) {
      const char *end = strchr(p, ':');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      if (len) {
        char path[PATH_MAX];
        struct stat st;
        if (len >= sizeof path) return env_error("%s has an entry longer than %d bytes", vars[v].name, PATH_MAX - 1);
        memcpy(path, p, len);
        path[len] = 0;
        if (path[0] != '/') return env_error("%s entries must be absolute paths, got '%s'", vars[v].name, path);
        if (stat(path, &st) != 0) return env_error("%s names '%s', which does not exist", vars[v].name, path);
        if (vars[v].dirs && !S_ISDIR(st.st_mode))
          return env_error("%s names '%s', which is not a directory", vars[v].name, path);
        if (!vars[v].dirs && (!S_ISREG(st.st_mode) || access(path, X_OK) != 0))
          return env_error("%s names '%s', which is not an executable file", vars[v].name, path);
        entries++;
      }
      if (!end) break;
      p = end + 1;
    }
    if (vars[v].dirs && entries) {
      cfg->fs_roots = strdup(list);
      if (!cfg->fs_roots) return env_error("out of memory");
    }
    if (!vars[v].dirs && entries) {
      cfg->process_allow_list = true;
      cfg->process_executables = strdup(list);
      if (!cfg->process_executables) return env_error("out of memory");
    }
  }
  int b;
  if (env_bool("GENO_FS_READ_ONLY", 0, &b)) return 2;
  cfg->fs_read_only = b == 1;
  if (env_bool("GENO_HTTP_ALLOW_PRIVATE", 0, &b)) return 2;
  cfg->http_allow_private = b == 1;
  if (env_bool("GENO_PROCESS_ALLOW_PATH_SEARCH", 0, &b)) return 2;
  cfg->process_path_search = b == 1;
  return 0;
}

/* Python's int(): optional sign, digits, surrounding whitespace, single
 * underscores between digits. */
static bool parse_int(const char *s, long long *out) {
  while (isspace((unsigned char)*s)) s++;
  bool neg = false;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  if (!isdigit((unsigned char)*s)) return false;
  unsigned long long v = 0;
  for (; *s; s++) {
    if (*s == '_' && isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[-1])) continue;
    if (!isdigit((unsigned char)*s)) break;
    if (v > (unsigned long long)LLONG_MAX / 10) return false;
    v = v * 10 + (unsigned)(*s - '0');
    if (v > (unsigned long long)LLONG_MAX) return false;
  }
  while (isspace((unsigned char)*s)) s++;
  if (*s) return false;
  *out = neg ? -(long long)v : (long long)v;
  return true;
}

static int env_int(const char *key, long long def, long long min, long long *out) {
  const char *v = getenv(key);
  *out = def;
  if (!v) return 0;
  if (!parse_int(v, out)) return env_error("Environment variable %s must be an integer, got '%s'", key, v);
  if (*out < min)
    return env_error("Environment variable %s must be %s", key, min > 0 ? "positive" : "non-negative");
  return 0;
}

static int env_float(const char *key, double def, double min, bool strict, double *out) {
  const char *v = getenv(key);
  *out = def;
  if (!v) return 0;
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  while (isspace((unsigned char)*end)) end++;
  if (end == v || *end)
    return env_error("Environment variable %s must be a float, got '%s'", key, v);
  if (!isfinite(d)) return env_error("Environment variable %s must be a finite float, got '%s'", key, v);
  if (strict ? d <= min : d < min)
    return env_error("Environment variable %s must be %s", key, strict ? "positive" : "non-negative");
  *out = d;
  return 0;
}

/* -1 when unset; 0/1; 2 when invalid (reported). */
static int env_bool(const char *key, int def, int *out) {
  const char *v = getenv(key);
  *out = def;
  if (!v) return 0;
  char t[16];
  while (isspace((unsigned char)*v)) v++;
  size_t n = strlen(v);
  while (n && isspace((unsigned char)v[n - 1])) n--;
  if (n < sizeof t) {
    for (size_t i = 0; i < n; i++) t[i] = (char)tolower((unsigned char)v[i]);
    t[n] = '\0';
    const char *yes[] = {"1", "true", "yes", "on"}, *no[] = {"0", "false", "no", "off"};
    for (int i = 0; i < 4; i++) {
      if (strcmp(t, yes[i]) == 0) return *out = 1, 0;
      if (strcmp(t, no[i]) == 0) return *out = 0, 0;
    }
  }
  return env_error("Environment variable %s must be a boolean (one of 1/0, true/false, yes/no, on/off)", key);
}

/* Comma-separated list, entries trimmed, empty ones dropped, repeats once. */
static bool env_csv(const char *key, SrvStrings *out) {
  memset(out, 0, sizeof *out);
  const char *v = getenv(key);
  if (!v) return true;
  size_t cap = 1;
  for (const char *p = v; *p; p++) cap += *p == ',';
  out->items = calloc(cap, sizeof(char *));
  if (!out->items) return false;
  const char *p = v;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    const char *a = p;
    while (n && isspace((unsigned char)*a)) a++, n--;
    while (n && isspace((unsigned char)a[n - 1])) n--;
    bool dup = false;
    for (size_t i = 0; i < out->count && n; i++)
      if (strlen(out->items[i]) == n && memcmp(out->items[i], a, n) == 0) dup = true;
    if (n && !dup) {
      out->items[out->count] = strndup(a, n);
      if (!out->items[out->count]) return false;
      out->count++;
    }
    if (!e) break;
    p = e + 1;
  }
  return true;
}

static void strings_free(SrvStrings *s) {
  for (size_t i = 0; i < s->count; i++) free(s->items[i]);
  free(s->items);
  memset(s, 0, sizeof *s);
}

static int add_caps(SrvConfig *cfg, const char *list, bool *given) {
  if (!*given) cfg->allowed_caps = 0; /* the first flag replaces the default */
  *given = true;
  char *copy = strdup(list);
  if (!copy) return 2;
  int rc = 0;
  for (char *tok = strtok(copy, ","); tok && rc == 0; tok = strtok(NULL, ",")) {
    while (isspace((unsigned char)*tok)) tok++;
    size_t n = strlen(tok);
    while (n && isspace((unsigned char)tok[n - 1])) tok[--n] = '\0';
    if (!n || strcmp(tok, "none") == 0) continue;
    unsigned bit = geno_capability_from_name(tok);
    if (!bit) {
      const char *sug = geno_capability_suggest(tok);
      rc = usage("argument --allow-capability: Unknown capability '%s'. Valid capabilities: clock, env, fs, "
                 "http, print, process, random, regex, serve, stdin.%s%s%s",
                 tok, sug ? " Did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
    }
    cfg->allowed_caps |= bit;
  }
  free(copy);
  return rc;
}

static int load_allowed_hosts(SrvConfig *cfg) {
  SrvStrings list;
  if (!env_csv("GENO_ALLOWED_HOSTS", &list)) return env_error("out of memory");
  int rc = 0;
  cfg->allowed_hosts = calloc(list.count + 1, sizeof *cfg->allowed_hosts);
  for (size_t i = 0; i < list.count && rc == 0; i++) {
    if (strcmp(list.items[i], "*") == 0) {
      cfg->hosts_any = true;
      continue;
    }
    char *h;
    int port;
    if (!srv_parse_host_port(list.items[i], &h, &port)) {
      rc = env_error("GENO_ALLOWED_HOSTS: invalid entry '%s' (expected host or host:port)", list.items[i]);
      break;
    }
    cfg->allowed_hosts[cfg->nallowed_hosts].host = h;
    cfg->allowed_hosts[cfg->nallowed_hosts].port = port;
    cfg->nallowed_hosts++;
  }
  strings_free(&list);
  return rc;
}

static char *dup_env(const char *key, const char *def) {
  const char *v = getenv(key);
  if (!v || !*v) return def ? strdup(def) : NULL;
  return strdup(v);
}

/* GENO_SPAWNER_CPUS: unset or auto, the layout chosen at start
 * (placement.c); else the CPUs the spawners are bound to, checked now
 * against the CPUs this process may use. */
static int load_spawner_cpus(SrvConfig *cfg) {
  const char *v = getenv("GENO_SPAWNER_CPUS");
  cfg->spawner_cpus = NULL;
  cfg->nspawner_cpus = 0;
  if (!v) return 0;
  const char *t = v + strspn(v, " \t");
  if (strncasecmp(t, "auto", 4) == 0 && t[4 + strspn(t + 4, " \t")] == '\0') return 0;
  cfg->spawner_cpus = malloc(CPU_SETSIZE * sizeof *cfg->spawner_cpus);
  if (!cfg->spawner_cpus) return env_error("out of memory");
  char err[512];
  if (srv_cpu_list_parse(v, cfg->spawner_cpus, CPU_SETSIZE, &cfg->nspawner_cpus, err, sizeof err) != 0)
    return env_error("%s", err);
  if (cfg->nspawner_cpus == 0) return env_error("GENO_SPAWNER_CPUS: this process may use no CPU it can name");
  return 0;
}

int srv_config_load(SrvConfig *cfg, int argc, char **argv) {
  memset(cfg, 0, sizeof *cfg);
  cfg->host = strdup("127.0.0.1");
  cfg->port = 8000;
  cfg->allowed_caps = GENO_CAP_PRINT | GENO_CAP_CLOCK | GENO_CAP_RANDOM;
  cfg->service = dup_env("GENO_SERVICE", "geno-api");
  cfg->revision = dup_env("GENO_REVISION", NULL);
  bool caps_given = false;
  long long workers = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = NULL;
    const char *names[] = {"--host", "--port", "--service", "--revision", "--allow-capability", "--workers"};
    int which = -1;
    for (int k = 0; k < 6; k++) {
      size_t n = strlen(names[k]);
      if (strncmp(a, names[k], n) == 0 && (a[n] == '\0' || a[n] == '=')) {
        which = k;
        if (a[n] == '=') val = a + n + 1;
        else if (i + 1 < argc) val = argv[++i];
        else return usage("argument %s: expected one argument", names[k]);
        break;
      }
    }
    if (which < 0) {
      if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        fputs(serve_help, stdout);
        return -1;
      }
      if (strcmp(a, "--allow-insecure") == 0) {
        cfg->allow_insecure = true;
        continue;
      }
      return usage("unrecognized arguments: %s", a);
    }
    long long n;
    switch (which) {
    case 0:
      free(cfg->host);
      cfg->host = strdup(val);
      break;
    case 1:
      if (!parse_int(val, &n)) return usage("argument --port: invalid int value: '%s'", val);
      if (n < 0 || n > 65535) return usage("argument --port: must be between 0 and 65535");
      cfg->port = (int)n;
      break;
    case 2:
      free(cfg->service);
      cfg->service = strdup(val);
      break;
    case 3:
      free(cfg->revision);
      cfg->revision = strdup(val);
      break;
    case 4:
      if (add_caps(cfg, val, &caps_given)) return 2;
      break;
    case 5:
      if (!parse_int(val, &n)) return usage("argument --workers: invalid int value: '%s'", val);
      if (n <= 0 || n > 4096) return usage("argument --workers: must be between 1 and 4096");
      workers = n;
      break;
    }
  }
  cfg->api_key = dup_env("GENO_API_KEY", NULL);
  cfg->trusted_proxy = dup_env("GENO_TRUSTED_PROXY", NULL);
  long long i64;
  double d;
  int b;
#define INT(key, def, min, field)                    \
  do {                                               \
    if (env_int(key, def, min, &i64)) return 2;      \
    cfg->field = (__typeof__(cfg->field))i64;        \
  } while (0)
#define FLT(key, def, min, strict, field)                 \
  do {                                                    \
    if (env_float(key, def, min, strict, &d)) return 2;   \
    cfg->field = d;                                       \
  } while (0)
  INT("GENO_MAX_REQUEST_BODY_BYTES", 1048576, 1, max_body);
  INT("GENO_MAX_REQUEST_HEADER_BYTES", 65536, 1, max_header);
  INT("GENO_MAX_RESPONSE_BODY_BYTES", 8388608, 1, max_response);
  INT("GENO_MAX_JSON_NESTING_DEPTH", 128, 1, max_depth);
  INT("GENO_MAX_MODULE_SOURCE_BYTES", 1000000, 0, max_module_bytes);
  INT("GENO_MAX_MODULES", 50, 0, max_modules);
  FLT("GENO_MAX_TIMEOUT_SECONDS", 30.0, 0, true, max_timeout);
  FLT("GENO_MAX_WALL_CLOCK_SECONDS", 30.0, 0, true, max_wall);
  FLT("GENO_CONSTRAIN_WALL_CLOCK_SECONDS", 5.0, 0, true, constrain_wall);
  INT("GENO_DEFAULT_MAX_STEPS", 10000, LLONG_MIN, default_steps);
  long long def_steps = i64;
  INT("GENO_MAX_STEPS", 10000000, LLONG_MIN, max_steps);
  if (def_steps <= 0) return env_error("GENO_DEFAULT_MAX_STEPS must be positive");
  if (def_steps > i64) return env_error("GENO_DEFAULT_MAX_STEPS must be <= GENO_MAX_STEPS");
  FLT("GENO_WORKER_STARTUP_GRACE_SECONDS", 10.0, 0, true, startup_grace);
  INT("GENO_WORKER_MAX_MEMORY_BYTES", 268435456, 0, worker_memory);
  FLT("GENO_WORKER_MAX_CPU_TIME", cfg->max_wall, 0, false, worker_cpu);
  INT("GENO_WORKER_MAX_FILE_SIZE_BYTES", 0, 0, worker_file_size);
  INT("GENO_WORKER_MAX_PROCESSES", 1, 1, worker_processes);
  INT("GENO_MAX_CONCURRENT_REQUESTS", 16, 1, max_concurrent);
  INT("GENO_MAX_CONNECTIONS", 1024, 1, max_connections);
  INT("GENO_SPAWNERS", 0, 0, spawners);
  if (i64 > 1024) return env_error("GENO_SPAWNERS must be at most 1024");
  cfg->spawners_given = getenv("GENO_SPAWNERS") != NULL;
  if (load_spawner_cpus(cfg)) return 2;
  INT("GENO_REQUEST_TIMEOUT_SECONDS", 30, 1, request_timeout);
  INT("GENO_RATE_LIMIT_REQUESTS", 60, 0, rate_limit);
  FLT("GENO_RATE_LIMIT_WINDOW_SECONDS", 60.0, 0, true, rate_window);
  INT("GENO_RATE_LIMIT_MAX_BUCKETS", 4096, 1, rate_buckets);
#undef INT
#undef FLT
  if (cfg->max_connections > 100000) return env_error("GENO_MAX_CONNECTIONS must be at most 100000");
  if (cfg->max_concurrent > 100000) return env_error("GENO_MAX_CONCURRENT_REQUESTS must be at most 100000");
  if (workers > 0) cfg->max_concurrent = (unsigned)workers;
  if (env_bool("GENO_REQUIRE_AUTH_FOR_METRICS", -1, &b)) return 2;
  cfg->require_auth_metrics = b;
  if (env_bool("GENO_REQUIRE_AUTH_FOR_PLAYGROUND", 0, &b)) return 2;
  cfg->require_auth_playground = b == 1;
  if (env_bool("GENO_SPAWNER_BIND_THREADS", -1, &b)) return 2;
  cfg->bind_threads = b;
  /* The separate spawner: by default geno-spawner next to this executable
   * when there is one there; empty: spawners forked from the server. */
  const char *exe = getenv("GENO_SPAWNER_EXECUTABLE");
  cfg->spawner_exe[0] = 0;
  if (exe && *exe) {
    if (exe[0] != '/' || strlen(exe) >= sizeof cfg->spawner_exe || access(exe, X_OK) != 0)
      return env_error("GENO_SPAWNER_EXECUTABLE must be the absolute path of an executable, got '%s'", exe);
    strcpy(cfg->spawner_exe, exe);
  } else if (!exe) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
      self[n] = 0;
      char *slash = strrchr(self, '/');
      if (slash && (size_t)(slash - self) + sizeof "/geno-spawner" <= sizeof cfg->spawner_exe) {
        memcpy(cfg->spawner_exe, self, (size_t)(slash - self));
        strcpy(cfg->spawner_exe + (slash - self), "/geno-spawner");
        if (access(cfg->spawner_exe, X_OK) != 0) cfg->spawner_exe[0] = 0;
      }
    }
  }
  if (env_bool("GENO_SANDBOX_DEBUG", 0, &b)) return 2;
  cfg->sandbox_debug = b == 1;
  const char *skip = getenv("GENO_SKIP_STARTUP_CHECKS");
  cfg->skip_startup_checks = skip && strcmp(skip, "1") == 0;
  const char *lvl = getenv("GENO_LOG_LEVEL");
  cfg->log_level = SRV_LOG_INFO;
  if (lvl && *lvl) {
    static const struct { const char *name; int level; } levels[] = {
        {"DEBUG", SRV_LOG_DEBUG}, {"INFO", SRV_LOG_INFO}, {"WARNING", SRV_LOG_WARNING},
        {"WARN", SRV_LOG_WARNING}, {"ERROR", SRV_LOG_ERROR}, {"CRITICAL", 50}};
    bool found = false;
    for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++)
      if (strcasecmp(lvl, levels[k].name) == 0) cfg->log_level = levels[k].level, found = true;
    long long n;
    if (!found && parse_int(lvl, &n) && n >= 0 && n <= 100) cfg->log_level = (int)n, found = true;
    if (!found) return env_error("GENO_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, got '%s'", lvl);
  }
  srv_log_level = cfg->log_level;
  if (!env_csv("GENO_CORS_ALLOWED_ORIGINS", &cfg->cors_origins) ||
      !env_csv("GENO_ALLOWED_ENV_NAMES", &cfg->env_names) || !env_csv("GENO_ALLOWED_ENV_PREFIXES", &cfg->env_prefixes))
    return env_error("out of memory");
  if (load_allowed_hosts(cfg)) return 2;
  if (load_host_lists(cfg)) return 2;
  if (!cfg->host || !cfg->service) return env_error("out of memory");
  return 0;
}

void srv_config_free(SrvConfig *cfg) {
  free(cfg->spawner_cpus);
  free(cfg->host);
  free(cfg->service);
  free(cfg->revision);
  free(cfg->api_key);
  free(cfg->trusted_proxy);
  free(cfg->fs_roots);
  free(cfg->process_executables);
  for (size_t i = 0; i < cfg->nallowed_hosts; i++) free(cfg->allowed_hosts[i].host);
  free(cfg->allowed_hosts);
  strings_free(&cfg->cors_origins);
  strings_free(&cfg->env_names);
  strings_free(&cfg->env_prefixes);
  memset(cfg, 0, sizeof *cfg);
}
