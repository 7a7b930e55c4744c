/* The CLI's host: setting up the callbacks for the granted capabilities,
 * and the pieces the host_*.c families share (strings, CPython's UTF-8
 * rules and repr, deadlines, callback results). See host.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <utf8proc.h>

#include "host.h"

/* ---- strings ---------------------------------------------------------------- */

static bool str_reserve(HostStr *b, size_t extra) {
  if (b->oom) return false;
  if (extra > SIZE_MAX / 2 - b->len) {
    b->oom = true;
    return false;
  }
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) {
    b->oom = true;
    return false;
  }
  b->s = s;
  b->cap = cap;
  return true;
}

void host_str_add(HostStr *b, const char *s, size_t n) {
  if (!str_reserve(b, n)) return;
  if (n) memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

void host_str_puts(HostStr *b, const char *s) { host_str_add(b, s, strlen(s)); }

void host_str_printf(HostStr *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !str_reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void host_str_free(HostStr *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}

char *host_str_take(HostStr *b) {
  if (!b->oom && !b->s) str_reserve(b, 0);
  if (b->oom) {
    host_str_free(b);
    return NULL;
  }
  char *s = b->s;
  memset(b, 0, sizeof *b);
  return s;
}

/* ---- CPython's UTF-8 ----------------------------------------------------------- */

int host_utf8_seq(const unsigned char *s, size_t n, bool final, size_t *bad, const char **reason) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  int need;          /* continuation bytes */
  unsigned lo = 0x80, hi = 0xBF; /* range of the first continuation byte */
  if (c >= 0xC2 && c <= 0xDF) need = 1;
  else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;      /* no overlong forms */
    else if (c == 0xED) hi = 0x9F; /* no surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;      /* no overlong forms */
    else if (c == 0xF4) hi = 0x8F; /* nothing past U+10FFFF */
  } else {
    *bad = 1;
    *reason = "invalid start byte";
    return 0;
  }
  for (int k = 1; k <= need; k++) {
    if ((size_t)k >= n) {
      if (!final) return -1;
      *bad = (size_t)k;
      *reason = "unexpected end of data";
      return 0;
    }
    unsigned x = s[k];
    bool ok = k == 1 ? (x >= lo && x <= hi) : (x >= 0x80 && x <= 0xBF);
    if (!ok) {
      *bad = (size_t)k;
      *reason = "invalid continuation byte";
      return 0;
    }
  }
  return need + 1;
}

void host_utf8_error(HostStr *b, const unsigned char *at, size_t pos, size_t bad, const char *reason) {
  if (bad == 1)
    host_str_printf(b, "'utf-8' codec can't decode byte 0x%02x in position %zu: %s", at[0], pos, reason);
  else
    host_str_printf(b, "'utf-8' codec can't decode bytes in position %zu-%zu: %s", pos, pos + bad - 1, reason);
}

void host_utf8_replace(HostStr *out, const unsigned char *s, size_t n, size_t *ncp) {
  size_t i = 0, count = 0;
  while (i < n) {
    size_t start = i;
    /* copy the longest valid run in one go */
    for (;;) {
      size_t bad = 0;
      const char *why;
      int k = i < n ? host_utf8_seq(s + i, n - i, true, &bad, &why) : 0;
      if (i >= n || k <= 0) {
        host_str_add(out, (const char *)s + start, i - start);
        if (i < n) {
          host_str_add(out, "\xEF\xBF\xBD", 3);
          count++;
          i += bad;
        }
        break;
      }
      i += (size_t)k;
      count++;
    }
  }
  if (ncp) *ncp = count;
}

bool host_decode_limited(HostStr *out, const unsigned char *s, size_t n, uint64_t limit, uint64_t *report) {
  uint64_t total = 0;
  size_t boundary = HOST_READ_CHUNK, i = 0;
  while (i < n) {
    size_t bad = 0;
    const char *why;
    int k = host_utf8_seq(s + i, n - i, true, &bad, &why);
    size_t end = i + (k > 0 ? (size_t)k : bad);
    for (; end > boundary; boundary += HOST_READ_CHUNK) /* a chunk was complete */
      if (total > limit) {
        *report = total;
        return false;
      }
    total++;
    if (total <= limit) {
      if (k > 0) host_str_add(out, (const char *)s + i, (size_t)k);
      else host_str_add(out, "\xEF\xBF\xBD", 3);
    }
    i = end;
  }
  *report = total;
  return total <= limit;
}

/* Python's str.isprintable for one code point: everything but the
 * "Other" and "Separator" categories, except the ASCII space. */
static bool py_printable(int32_t cp) {
  if (cp == ' ') return true;
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_CC: case UTF8PROC_CATEGORY_CF: case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO: case UTF8PROC_CATEGORY_CN: case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP: case UTF8PROC_CATEGORY_ZS:
      return false;
    default: return true;
  }
}

void host_py_repr(HostStr *b, const char *s, size_t n) {
  bool has_single = memchr(s, '\'', n) != NULL, has_double = memchr(s, '"', n) != NULL;
  char q = has_single && !has_double ? '"' : '\'';
  host_str_add(b, &q, 1);
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    size_t bad;
    const char *why;
    int k = host_utf8_seq(u + i, n - i, true, &bad, &why);
    if (k <= 0) { /* surrogateescape: each undecodable byte is U+DC80+byte */
      host_str_printf(b, "\\udc%02x", u[i]);
      i++;
      continue;
    }
    int32_t cp;
    utf8proc_iterate(u + i, k, &cp);
    if (cp == '\\' || cp == q) {
      char e[2] = {'\\', (char)cp};
      host_str_add(b, e, 2);
    } else if (cp == '\t') host_str_puts(b, "\\t");
    else if (cp == '\n') host_str_puts(b, "\\n");
    else if (cp == '\r') host_str_puts(b, "\\r");
    else if (!py_printable(cp)) {
      if (cp < 0x100) host_str_printf(b, "\\x%02x", (unsigned)cp);
      else if (cp < 0x10000) host_str_printf(b, "\\u%04x", (unsigned)cp);
      else host_str_printf(b, "\\U%08x", (unsigned)cp);
    } else host_str_add(b, s + i, (size_t)k);
    i += (size_t)k;
  }
  host_str_add(b, &q, 1);
}

/* ---- time ------------------------------------------------------------------------ */

double host_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double host_remaining(const Host *h) {
  if (h->deadline <= 0) return -1;
  double left = h->deadline + HOST_DEADLINE_SLACK_S - host_now();
  return left > 0 ? left : 0;
}

void host_start_clock(Host *h) {
  h->deadline = h->timeout_s > 0 ? host_now() + h->timeout_s : 0;
}

/* ---- callback results ------------------------------------------------------------- */

geno_value *host_fail(char **error, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *m = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (m) {
    va_start(ap, fmt);
    vsnprintf(m, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  *error = m; /* NULL: the runtime reports "host callback failed" */
  return NULL;
}

geno_value *host_fail_str(char **error, HostStr *b) {
  HostStr text = {0}; /* the message becomes a String the program can catch */
  if (!b->oom) host_utf8_replace(&text, (const unsigned char *)(b->s ? b->s : ""), b->len, NULL);
  host_str_free(b);
  *error = host_str_take(&text);
  return NULL;
}

geno_value *host_value(char **error, geno_value *v) {
  if (!v) return host_fail(error, "out of memory");
  return v;
}

geno_value *host_err(char **error, const char *text) {
  HostStr b = {0};
  host_str_puts(&b, text);
  return host_err_str(error, &b);
}

geno_value *host_err_str(char **error, HostStr *b) {
  /* Err texts carry paths, names and library messages; whatever bytes
   * they hold, the String must be valid UTF-8 */
  HostStr text = {0};
  if (!b->oom) host_utf8_replace(&text, (const unsigned char *)(b->s ? b->s : ""), b->len, NULL);
  bool oom = b->oom || text.oom;
  host_str_free(b);
  geno_value *s = oom ? NULL : geno_value_new_string(text.s ? text.s : "", text.len);
  host_str_free(&text);
  if (oom) return host_fail(error, "out of memory");
  return host_value(error, s ? geno_value_new_err(s) : NULL);
}

geno_value *host_ok_string(char **error, const char *s, size_t n) {
  geno_value *v = geno_value_new_string(s, n);
  return host_value(error, v ? geno_value_new_ok(v) : NULL);
}

geno_value *host_size_error(char **error, const char *kind, uint64_t n, uint64_t limit) {
  return host_fail(error, "%s size exceeds limit (%llu > %llu)", kind, (unsigned long long)n,
                       (unsigned long long)limit);
}

const char *host_arg_str(const geno_value *const *args, size_t nargs, size_t i, size_t *len) {
  if (i >= nargs || geno_value_type(args[i]) != GENO_STRING) return NULL;
  return geno_value_string(args[i], len);
}

bool host_env_truthy(const char *name) {
  const char *v = getenv(name);
  if (!v) return false;
  while (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r') v++;
  size_t n = strlen(v);
  while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\n' || v[n - 1] == '\r')) n--;
  static const char *const yes[] = {"1", "true", "yes", "on"};
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
    if (n == strlen(yes[i]) && strncasecmp(v, yes[i], n) == 0) return true;
  return false;
}

/* ---- setup ------------------------------------------------------------------------ */

bool host_add(Host *h, const char *name, geno_callback_fn fn) {
  if (h->ncallbacks >= HOST_MAX_CALLBACKS) return false;
  h->callbacks[h->ncallbacks++] = (geno_callback){name, fn, h};
  return true;
}

void host_policy_from_env(HostOptions *o) {
  o->fs_read_only = host_env_truthy("GENO_FS_READ_ONLY");
  o->http_allow_private = host_env_truthy("GENO_HTTP_ALLOW_PRIVATE");
  o->process_path_search = host_env_truthy("GENO_PROCESS_ALLOW_PATH_SEARCH");
  o->process_executables = getenv("GENO_PROCESS_EXECUTABLES");
}

bool host_init(Host *h, const HostOptions *o, char **err) {
  memset(h, 0, sizeof *h);
  *err = NULL;
  h->caps = o->caps;
  h->timeout_s = o->timeout_s;
  h->max_collection = o->max_collection;
  h->max_file_bytes = o->max_file_bytes;
  h->limit_processes = o->limit_processes;
  h->max_processes = o->max_processes;
  h->processes_started = 0;
  h->fs_read_only = o->fs_read_only;
  bool ok = true;
  if (ok && (o->caps & GENO_CAP_FS)) ok = host_fs_install(h, o, err);
  if (ok && (o->caps & GENO_CAP_HTTP)) ok = host_http_install(h, o, err);
  if (ok && (o->caps & GENO_CAP_PROCESS)) ok = host_process_install(h, o, err);
  if (ok && (o->caps & GENO_CAP_STDIN)) ok = host_stdin_install(h, err);
  if (ok && (o->caps & GENO_CAP_CLOCK)) ok = host_clock_install(h, err);
  if (ok && (o->caps & GENO_CAP_SERVE)) ok = host_serve_install(h, err);
  if (!ok) {
    if (!*err) *err = strdup("out of memory");
    host_free(h);
    return false;
  }
  return true;
}

void host_free(Host *h) {
  host_fs_free(h);
  host_http_free(h);
  host_process_free(h);
  host_serve_free(h);
  h->ncallbacks = 0;
}

void host_strv_free(char **v) {
  if (!v) return;
  for (char **p = v; *p; p++) free(*p);
  free(v);
}
