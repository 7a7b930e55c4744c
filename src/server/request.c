/* Request bodies: the JSON rules (UTF-8, nesting depth, no NaN/Infinity,
 * no unpaired surrogate escapes, a top-level object) and the fields of
 * /run, /check, /test and /constrain, checked in the reference's order
 * with its messages. JSON is parsed by Jansson (Debian libjansson), which
 * rejects invalid UTF-8, non-finite literals and lone surrogates itself. */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

static const char *const fixed_limits[] = {
    "max_cpu_time",        "max_file_size_bytes", "max_integer_bits",   "max_memory_bytes",
    "max_output_length",   "max_processes",       "max_recursion_depth", "max_collection_size",
};

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char *s = NULL;
  if (vasprintf(&s, f, ap) < 0) s = NULL;
  va_end(ap);
  return s;
}

/* The reference's depth rule: count [ and { outside strings. */
static bool nested_too_deeply(const char *s, size_t n, uint64_t max) {
  uint64_t depth = 0;
  bool in_str = false, esc = false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (in_str) {
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') in_str = true;
    else if (c == '[' || c == '{') {
      if (++depth > max) return true;
    } else if ((c == ']' || c == '}') && depth) depth--;
  }
  return false;
}

static bool valid_module_name(const char *s, size_t n) {
  if (n == 0 || !(s[0] >= 'A' && s[0] <= 'Z')) return false;
  for (size_t i = 1; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_') || (unsigned char)s[i] >= 0x80) return false;
  return true;
}

/* Python's repr() of a short ASCII-or-not string, for messages. */
static void py_repr(char *out, size_t outlen, const char *s, size_t n) {
  char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
  size_t o = 0;
  if (outlen < 8) return;
  out[o++] = q;
  for (size_t i = 0; i < n && o + 8 < outlen; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == (unsigned char)q || c == '\\') o += (size_t)snprintf(out + o, outlen - o, "\\%c", c);
    else if (c == '\n') o += (size_t)snprintf(out + o, outlen - o, "\\n");
    else if (c == '\t') o += (size_t)snprintf(out + o, outlen - o, "\\t");
    else if (c == '\r') o += (size_t)snprintf(out + o, outlen - o, "\\r");
    else if (c < 0x20 || c == 0x7f) o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", c);
    else out[o++] = (char)c;
  }
  out[o++] = q;
  out[o] = '\0';
}

static char *copy_bytes(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

static const char *oom(bool *owned) {
  *owned = false;
  return "out of memory";
}

const char *srv_request_parse(const SrvConfig *cfg, SrvEndpoint endpoint, const char *body, size_t len,
                              SrvRequest *req, bool *owned) {
  memset(req, 0, sizeof *req);
  req->endpoint = endpoint;
  *owned = false;
  if (nested_too_deeply(body, len, cfg->max_depth)) return "request body JSON is nested too deeply";
  json_error_t jerr;
  json_t *root = json_loadb(body, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
  if (!root) return "request body must be valid JSON";
  const char *msg = NULL;
  if (!json_is_object(root)) {
    msg = "request body must be a JSON object";
    goto out;
  }
  if (endpoint == SRV_CONSTRAIN) {
    json_t *p = json_object_get(root, "prefix");
    if (!json_is_string(p)) {
      msg = "'prefix' must be a string";
      goto out;
    }
    req->source_len = json_string_length(p);
    req->source = copy_bytes(json_string_value(p), req->source_len);
    req->filename = strdup("<prefix>");
    if (!req->source || !req->filename) msg = oom(owned);
    goto out;
  }
  json_t *src = json_object_get(root, "source");
  if (!json_is_string(src)) {
    msg = "'source' must be a string";
    goto out;
  }
  json_t *fn = json_object_get(root, "filename");
  if (fn && !json_is_string(fn)) {
    msg = "'filename' must be a string when provided";
    goto out;
  }
  /* operator-controlled limits first */
  const char *bad[8];
  size_t nbad = 0;
  for (size_t i = 0; i < sizeof fixed_limits / sizeof fixed_limits[0]; i++)
    if (json_object_get(root, fixed_limits[i])) bad[nbad++] = fixed_limits[i];
  if (nbad) {
    qsort(bad, nbad, sizeof bad[0], cmp_str);
    char list[256] = "";
    for (size_t i = 0; i < nbad; i++) {
      if (i) strcat(list, ", ");
      strcat(list, bad[i]);
    }
    msg = fmt("hosted /run clients may configure only timeout and max_steps; operator-controlled resource "
              "limits are fixed: %s", list);
    *owned = msg != NULL;
    if (!msg) msg = oom(owned);
    goto out;
  }
  json_t *t = json_object_get(root, "timeout");
  req->timeout_s = 5.0;
  if (t) {
    /* JSON null is not a number either: the reference rejects it too */
    if (!json_is_number(t) || !isfinite(json_number_value(t)) || json_number_value(t) <= 0) {
      msg = "'timeout' must be a positive number";
      goto out;
    }
    req->timeout_s = json_number_value(t);
    if (req->timeout_s > cfg->max_timeout) {
      char num[64];
      snprintf(num, sizeof num, "%.17g", cfg->max_timeout);
      if (!strpbrk(num, ".en")) strcat(num, ".0");
      msg = fmt("'timeout' exceeds server maximum (%ss)", num);
      *owned = msg != NULL;
      if (!msg) msg = oom(owned);
      goto out;
    }
  }
  json_t *ms = json_object_get(root, "max_steps");
  req->max_steps = cfg->default_steps;
  if (ms && !json_is_null(ms)) {
    if (!json_is_integer(ms) || json_integer_value(ms) <= 0) {
      msg = "'max_steps' must be a positive integer when provided";
      goto out;
    }
    if ((uint64_t)json_integer_value(ms) > cfg->max_steps) {
      msg = fmt("'max_steps' exceeds server maximum (%llu)", (unsigned long long)cfg->max_steps);
      *owned = msg != NULL;
      if (!msg) msg = oom(owned);
      goto out;
    }
    req->max_steps = (uint64_t)json_integer_value(ms);
  }
  json_t *ce = json_object_get(root, "check_examples");
  req->check_examples = true;
  if (ce) {
    if (!json_is_boolean(ce)) {
      msg = "'check_examples' must be a boolean";
      goto out;
    }
    req->check_examples = json_is_true(ce);
  }
  json_t *caps = json_object_get(root, "capabilities");
  if (caps && !json_is_null(caps)) {
    if (!json_is_array(caps)) {
      msg = "'capabilities' must be a list of strings";
      goto out;
    }
    size_t i;
    json_t *c;
    json_array_foreach(caps, i, c) {
      if (!json_is_string(c)) {
        msg = "'capabilities' must be a list of strings";
        goto out;
      }
    }
    json_array_foreach(caps, i, c) {
      const char *s = json_string_value(c);
      size_t n = json_string_length(c);
      while (n && isspace((unsigned char)*s)) s++, n--;
      while (n && isspace((unsigned char)s[n - 1])) n--;
      if (n == 0) {
        msg = "Capability names must not be empty.";
        goto out;
      }
      char name[64];
      unsigned bit = 0;
      if (n < sizeof name && !memchr(s, '\0', n)) {
        memcpy(name, s, n);
        name[n] = '\0';
        bit = geno_capability_from_name(name);
      }
      if (!bit) {
        char shown[300];
        py_repr(shown, sizeof shown, s, n > 200 ? 200 : n);
        shown[0] = shown[strlen(shown) - 1] = '\'';
        const char *sug = n < sizeof name ? geno_capability_suggest(name) : NULL;
        msg = fmt("Unknown capability %s. Valid capabilities: clock, env, fs, http, print, process, random, "
                  "regex, serve, stdin.%s%s%s",
                  shown, sug ? " Did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
        *owned = msg != NULL;
        if (!msg) msg = oom(owned);
        goto out;
      }
      req->caps |= bit;
    }
    unsigned outside = req->caps & ~cfg->allowed_caps;
    if (outside) {
      const char *names[32];
      size_t nn = 0;
      for (unsigned b = 1; b && nn < 32; b <<= 1)
        if (outside & b) names[nn++] = geno_capability_name(b);
      qsort(names, nn, sizeof names[0], cmp_str);
      char list[256] = "";
      for (size_t k = 0; k < nn; k++) {
        if (k) strcat(list, ", ");
        strncat(list, names[k] ? names[k] : "?", 32);
      }
      msg = fmt("unsupported capabilities requested: %s", list);
      *owned = msg != NULL;
      if (!msg) msg = oom(owned);
      goto out;
    }
  }
  if ((req->caps & GENO_CAP_ENV) && cfg->env_names.count == 0 && cfg->env_prefixes.count == 0) {
    msg = "env capability requires GENO_ALLOWED_ENV_NAMES or GENO_ALLOWED_ENV_PREFIXES";
    goto out;
  }
  json_t *mods = json_object_get(root, "modules");
  if (mods && !json_is_null(mods)) {
    if (!json_is_object(mods)) {
      msg = "'modules' must be an object of {name: source}";
      goto out;
    }
    size_t count = json_object_size(mods);
    if (count > cfg->max_modules) {
      msg = fmt("too many modules (%zu, max %llu)", count, (unsigned long long)cfg->max_modules);
      *owned = msg != NULL;
      if (!msg) msg = oom(owned);
      goto out;
    }
    req->modules = calloc(count ? count : 1, sizeof *req->modules);
    if (!req->modules) {
      msg = oom(owned);
      goto out;
    }
    const char *key;
    size_t klen;
    json_t *v;
    void *tmp;
    json_object_keylen_foreach_safe(mods, tmp, key, klen, v) {
      if (!json_is_string(v)) {
        msg = "'modules' entries must be string -> string";
        goto out;
      }
      if (!valid_module_name(key, klen)) {
        char shown[300];
        py_repr(shown, sizeof shown, key, klen > 200 ? 200 : klen);
        msg = fmt("invalid module name %s: expected a simple PascalCase identifier", shown);
        *owned = msg != NULL;
        if (!msg) msg = oom(owned);
        goto out;
      }
      size_t n = json_string_length(v);
      if (n > cfg->max_module_bytes) {
        msg = fmt("module '%s' exceeds size limit (%zu bytes, max %llu)", key, n,
                  (unsigned long long)cfg->max_module_bytes);
        *owned = msg != NULL;
        if (!msg) msg = oom(owned);
        goto out;
      }
      geno_module *m = &req->modules[req->nmodules++];
      m->name = copy_bytes(key, klen);
      m->source = copy_bytes(json_string_value(v), n);
      m->length = n;
      if (!m->name || !m->source) {
        msg = oom(owned);
        goto out;
      }
    }
  }
  req->source_len = json_string_length(src);
  req->source = copy_bytes(json_string_value(src), req->source_len);
  req->filename = fn ? copy_bytes(json_string_value(fn), json_string_length(fn)) : strdup("<http>");
  if (!req->source || !req->filename) msg = oom(owned);
out:
  json_decref(root);
  if (msg) {
    srv_request_free(req);
    req->endpoint = endpoint;
  }
  return msg;
}

void srv_request_free(SrvRequest *req) {
  free(req->source);
  free(req->filename);
  for (size_t i = 0; i < req->nmodules; i++) {
    free((char *)req->modules[i].name);
    free((char *)req->modules[i].source);
  }
  free(req->modules);
  memset(req, 0, sizeof *req);
}
