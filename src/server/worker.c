/* Carrying out a request: every program runs in a sandboxed child of its
 * own (geno_run_isolated / geno_check_isolated: fork, rlimits, seccomp,
 * no descriptors but its channel, SIGKILL at the wall-clock budget), never
 * in the server process; granted effects that need the machine (fs,
 * http, process, sleep) are carried out here by the src/host policies
 * while the child waits. How the child ended decides the status: its own
 * outcome (200/400 with the RunResult), the budget's kill (504), or a
 * failure of the machinery (500). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../host/host.h"
#include "server.h"

/* The code point of the UTF-8 sequence at s (its length in *n), or -1
 * with *n = 1 when it is not one. */
static long utf8_point(const unsigned char *s, size_t *n) {
  *n = 1;
  if (s[0] < 0x80) return s[0];
  int k = s[0] >= 0xF0 && s[0] < 0xF5 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
  if (!k) return -1;
  long cp = s[0] & (0x7F >> k);
  for (int i = 1; i < k; i++) {
    if ((s[i] & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  static const long min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min[k] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  *n = (size_t)k;
  return cp;
}

/* The JSON escape of a non-ASCII code point as the reference writes it
 * (ASCII-only output: \uXXXX, a surrogate pair above U+FFFF). */
static size_t escape_point(char out[32], long cp) {
  if (cp < 0x10000) return (size_t)snprintf(out, 32, "\\u%04x", (unsigned)cp & 0xFFFFu);
  cp -= 0x10000;
  return (size_t)snprintf(out, 32, "\\u%04x\\u%04x", (0xD800u + ((unsigned)cp >> 10)) & 0xFFFFu,
                          (0xDC00u + ((unsigned)cp & 0x3FFu)) & 0xFFFFu);
}

static void json_escape(char **p, size_t *len, size_t *cap, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    char tmp[32];
    const char *piece = tmp;
    size_t pn, k;
    long cp;
    if (c == '"' || c == '\\') tmp[0] = '\\', tmp[1] = (char)c, pn = 2;
    else if (c >= 0x80 && (cp = utf8_point((const unsigned char *)s, &k)) >= 0) {
      pn = escape_point(tmp, cp);
      s += k - 1;
    } else if (c < 0x20 || c >= 0x7f) pn = (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", c);
    else tmp[0] = (char)c, pn = 1;
    if (*len + pn + 1 > *cap) {
      size_t nc = (*cap + pn + 1) * 2;
      char *q = realloc(*p, nc);
      if (!q) return;
      *p = q;
      *cap = nc;
    }
    memcpy(*p + *len, piece, pn);
    *len += pn;
    (*p)[*len] = '\0';
  }
}

void srv_error_reply(SrvReply *out, int status, const char *outcome, const char *msg) {
  size_t cap = strlen(msg) * 2 + 32, len = 0;
  char *b = malloc(cap);
  out->status = status;
  out->outcome = outcome;
  out->release = free;
  if (!b) {
    out->body = NULL;
    out->len = 0;
    return;
  }
  len = (size_t)snprintf(b, cap, "{\"error\":\"");
  json_escape(&b, &len, &cap, msg);
  if (len + 3 > cap) {
    char *q = realloc(b, len + 3);
    if (q) b = q, cap = len + 3;
  }
  if (len + 3 <= cap) {
    memcpy(b + len, "\"}", 3);
    len += 2;
  }
  out->body = b;
  out->len = len;
}

size_t srv_json_compact(char *json) {
  size_t o = 0;
  bool in_str = false, esc = false;
  for (size_t i = 0; json[i]; i++) {
    char c = json[i];
    if (in_str) {
      json[o++] = c;
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    if (c == '"') in_str = true;
    json[o++] = c;
  }
  json[o] = '\0';
  return o;
}

char *srv_json_ascii(const char *json, size_t n, size_t *out_len) {
  size_t extra = 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)json[i] >= 0x7f) extra += 12; /* at most 12 bytes out per byte in */
  char *o = malloc(n + extra + 1);
  if (!o) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)json[i];
    size_t len;
    long cp;
    if (c == 0x7f) { /* DEL: escaped as the reference's JSON writer escapes it (only in a string) */
      memcpy(o + k, "\\u007f", 6);
      k += 6;
      i++;
    } else if (c >= 0x80 && (cp = utf8_point((const unsigned char *)json + i, &len)) >= 0) {
      char tmp[32];
      size_t m = escape_point(tmp, cp);
      memcpy(o + k, tmp, m);
      k += m;
      i += len;
    } else {
      o[k++] = (char)c;
      i++;
    }
  }
  o[k] = '\0';
  *out_len = k;
  return o;
}

/* /check's body: {"ok", "diagnostics", "timing"} cut from the RunResult. */
static size_t check_shape(char *json, size_t len) {
  char *d = strstr(json, ",\"diagnostics\":[");
  char *s = strstr(json, ",\"steps_used\":");
  char *ok_end = strstr(json, ",\"value\":");
  if (!d || !s || !ok_end || !(ok_end < d && d < s)) return len;
  size_t head = (size_t)(ok_end - json);
  size_t mid = (size_t)(s - d);
  memmove(json + head, d, mid);
  json[head + mid] = '}';
  json[head + mid + 1] = '\0';
  return head + mid + 1;
}

static const char *endpoint_path(SrvEndpoint e) {
  switch (e) {
  case SRV_RUN: return "/run";
  case SRV_CHECK: return "/check";
  case SRV_TEST: return "/test";
  default: return "/constrain";
  }
}

void srv_execute(const SrvConfig *cfg, geno_metrics *metrics, const SrvRequest *req, SrvReply *out) {
  memset(out, 0, sizeof *out);
  if (req->endpoint == SRV_CONSTRAIN) {
    /* Syntax only: a recognizer over the prefix's bytes, linear in its
     * length (at most the body limit), that runs no program; so it runs in
     * this worker thread, not in a child. */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    geno_constraint_result cr;
    if (!geno_constrain_prefix(req->source, req->source_len, &cr)) {
      srv_error_reply(out, 500, "internal_error", "internal server error");
      return;
    }
    char *json = geno_constraint_result_json(&cr, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    geno_metrics_record_constrain(metrics, cr.valid ? 1 : 0, ms);
    bool valid = cr.valid;
    geno_constraint_result_free(&cr);
    if (!json) {
      srv_error_reply(out, 500, "internal_error", "internal server error");
    } else if (strlen(json) > cfg->max_response) {
      geno_free(json);
      srv_log(SRV_LOG_WARNING, "Response exceeded configured limit request_id=%s path=/constrain",
              req->request_id ? req->request_id : "");
      srv_error_reply(out, 413, "response_too_large", "response too large");
    } else {
      size_t n;
      char *ascii = srv_json_ascii(json, strlen(json), &n);
      geno_free(json);
      if (!ascii) {
        srv_error_reply(out, 500, "internal_error", "internal server error");
        return;
      }
      out->status = 200;
      out->outcome = valid ? "constrain_ok" : "constrain_invalid";
      out->body = ascii;
      out->release = free;
      out->len = n;
    }
    return;
  }
  geno_config c;
  geno_config_init(&c);
  c.timeout_s = req->timeout_s;
  c.max_steps = req->max_steps;
  c.check_examples = req->check_examples;
  c.capabilities_set = true;
  c.capabilities = req->caps;
  c.modules = req->modules;
  c.nmodules = req->nmodules;
  c.memory_bytes = cfg->worker_memory;
  c.cpu_seconds = cfg->worker_cpu;
  double wall = fmin(req->timeout_s * 3.0, cfg->max_wall);
  c.wall_clock_s = wall;
  c.max_source_bytes = cfg->max_body > cfg->max_module_bytes ? cfg->max_body : cfg->max_module_bytes;
  c.max_total_source_bytes = 0; /* the body bound covers every module */
  c.run_tests = req->endpoint == SRV_TEST;
  int slot = srv_spawners_acquire(cfg->spawner_set, &c.spawner);
  c.monitor = geno_metrics_monitor;
  c.monitor_userdata = metrics;
  /* Effects that need the machine, under the CLI's policies. stdin is
   * never the program's in a server. */
  Host host;
  bool have_host = false;
  unsigned host_caps = req->caps & (GENO_CAP_FS | GENO_CAP_HTTP | GENO_CAP_PROCESS | GENO_CAP_CLOCK);
  if (host_caps && req->endpoint != SRV_CHECK) {
    HostOptions ho = {.caps = host_caps,
                      .timeout_s = req->timeout_s,
                      .max_collection = c.max_collection_size,
                      .program_path = "./server.geno",
                      .fs_roots = cfg->fs_roots,
                      .fs_read_only = cfg->fs_read_only,
                      .http_allow_private = cfg->http_allow_private,
                      .process_path_search = cfg->process_path_search,
                      .process_executables = cfg->process_executables};
    char *err = NULL;
    if (!host_init(&host, &ho, &err)) {
      srv_log(SRV_LOG_ERROR, "host callbacks could not be set up: %s", err ? err : "out of memory");
      free(err);
      srv_error_reply(out, 500, "internal_error", "internal server error");
      srv_spawners_release(cfg->spawner_set, slot);
      return;
    }
    have_host = true;
    c.callbacks = host.callbacks;
    c.ncallbacks = host.ncallbacks;
    host_start_clock(&host);
  }
  geno_result *r = req->endpoint == SRV_CHECK
                       ? geno_check_isolated(req->source, req->source_len, req->filename, &c)
                       : geno_run_isolated(req->source, req->source_len, req->filename, &c);
  srv_spawners_release(cfg->spawner_set, slot);
  if (have_host) host_free(&host);
  if (!r) {
    srv_error_reply(out, 500, "internal_error", "internal server error");
    return;
  }
  geno_isolation_end end = geno_result_isolation(r);
  if (end == GENO_ISOLATION_DEADLINE) {
    char msg[80]; /* the budget with one decimal, as the reference prints it: (15.0s), (0.0s) */
    snprintf(msg, sizeof msg, "Wall-clock timeout (%.1fs)", wall);
    srv_error_reply(out, 504, "wall_timeout", msg);
  } else if (end == GENO_ISOLATION_CRASHED || end == GENO_ISOLATION_SETUP_FAILED) {
    if (cfg->sandbox_debug || srv_log_level <= SRV_LOG_DEBUG) {
      const geno_diagnostic *d = geno_result_diagnostic(r, geno_result_diagnostic_count(r) - 1);
      srv_log(SRV_LOG_WARNING, "worker failed on %s: %s", endpoint_path(req->endpoint),
              d && d->message ? d->message : "?");
    }
    srv_error_reply(out, 500, "internal_error", "internal server error");
  } else {
    char *json = geno_result_to_json(r);
    if (!json) {
      srv_error_reply(out, 500, "internal_error", "internal server error");
    } else {
      size_t n = srv_json_compact(json);
      if (req->endpoint == SRV_CHECK) n = check_shape(json, n);
      char *ascii = srv_json_ascii(json, n, &n);
      geno_free(json);
      json = ascii;
      if (!json) {
        srv_error_reply(out, 500, "internal_error", "internal server error");
      } else if (n > cfg->max_response) {
        free(json);
        srv_log(SRV_LOG_WARNING, "Response exceeded configured limit request_id=%s path=%s",
                req->request_id ? req->request_id : "", endpoint_path(req->endpoint));
        srv_error_reply(out, 413, "response_too_large", "response too large");
      } else {
        out->status = geno_result_ok(r) ? 200 : 400;
        out->outcome = geno_result_ok(r) ? "ok" : "run_error";
        out->body = json;
        out->release = free;
        out->len = n;
      }
    }
  }
  geno_result_free(r);
}

static const char self_test_program[] =
    "func id(x: Int) -> Int\n"
    "    example 1 -> 1\n"
    "    return x\n"
    "end func\n"
    "\n"
    "func main() -> Int\n"
    "    return id(42)\n"
    "end func\n";

char *srv_warm_up(void) {
  /* Our own fixed program, never a request's: checking and running it
   * here once makes every lazily built table (builtins, checker, VM) part
   * of what the spawner and so every child inherits. */
  geno_result *r = geno_check(self_test_program, sizeof self_test_program - 1, "<startup>", NULL);
  bool ok = r && geno_result_ok(r);
  geno_result_free(r);
  if (!ok) return strdup("the type checker rejected the self-test program");
  r = geno_run(self_test_program, sizeof self_test_program - 1, "<startup>", NULL);
  ok = r && geno_result_ok(r);
  geno_result_free(r);
  return ok ? NULL : strdup("the self-test program failed in process");
}

char *srv_self_test(const SrvConfig *cfg) {
  geno_config c;
  geno_config_init(&c);
  c.timeout_s = 5.0;
  c.memory_bytes = cfg->worker_memory;
  char *err = NULL;
  geno_result *r = NULL;
  /* every spawner, so that one that cannot run a child is found now */
  unsigned n = srv_spawners_count(cfg->spawner_set);
  for (unsigned i = 0; i < (n ? n : 1) && !err; i++) {
    c.spawner = srv_spawners_at(cfg->spawner_set, i);
    r = geno_run_isolated(self_test_program, sizeof self_test_program - 1, "<startup>", &c);
    if (!r) err = strdup("out of memory");
    else if (!geno_result_ok(r) || strcmp(geno_result_value_json(r), "42") != 0) {
      const geno_diagnostic *d = geno_result_diagnostic(r, 0);
      if (asprintf(&err, "sandboxed self-test run failed: %s", d && d->message ? d->message : "wrong value") < 0)
        err = NULL;
    }
    geno_result_free(r);
  }
  return err;
}

/* The reference's list of names that look like secrets. */
static bool sensitive_name(const char *name, size_t n) {
  char up[256];
  if (n >= sizeof up) n = sizeof up - 1;
  for (size_t i = 0; i < n; i++) up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
  up[n] = '\0';
  static const char *const names[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                                      "GENO_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"};
  static const char *const prefixes[] = {"AWS_", "AZURE_", "GCP_", "GCLOUD_", "GOOGLE_"};
  static const char *const suffixes[] = {"_CREDENTIAL", "_CREDENTIALS", "_KEY", "_PASS", "_PWD"};
  static const char *const parts[] = {"APIKEY", "CONNECTION_STRING", "DATABASE_URL", "DB_URL", "PASSPHRASE",
                                      "PASSWD", "PASSWORD", "PRIVATE_KEY", "SECRET", "TOKEN"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(up, names[i]) == 0) return true;
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp(up, prefixes[i], strlen(prefixes[i])) == 0) return true;
  for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
    size_t k = strlen(suffixes[i]);
    if (n >= k && strcmp(up + n - k, suffixes[i]) == 0) return true;
  }
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    if (strstr(up, parts[i])) return true;
  return false;
}

extern char **environ;

void srv_filter_environment(const SrvConfig *cfg) {
  size_t n = 0;
  for (char **e = environ; e && *e; e++) n++;
  char **keep = calloc(n + 1, sizeof *keep);
  size_t k = 0;
  for (char **e = environ; keep && e && *e; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq) continue;
    size_t nl = (size_t)(eq - *e);
    bool ok = nl == 2 && strncmp(*e, "TZ", 2) == 0;
    for (size_t i = 0; !ok && i < cfg->env_names.count; i++)
      ok = strlen(cfg->env_names.items[i]) == nl && strncmp(cfg->env_names.items[i], *e, nl) == 0;
    for (size_t i = 0; !ok && i < cfg->env_prefixes.count; i++) {
      size_t pl = strlen(cfg->env_prefixes.items[i]);
      ok = nl >= pl && strncmp(cfg->env_prefixes.items[i], *e, pl) == 0 && !sensitive_name(*e, nl);
    }
    if (ok) keep[k++] = strdup(*e);
  }
  clearenv();
  for (size_t i = 0; keep && i < k; i++) {
    if (keep[i]) putenv(keep[i]); /* the environment owns it from now on */
  }
  free(keep);
}
