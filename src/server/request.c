/* Request bodies: the JSON rules (UTF-8, nesting depth, no NaN/Infinity,
 * a top-level object) and the fields of /run, /check, /test and
 * /constrain, checked in the reference's order with its messages. JSON is
 * parsed by Jansson (Debian libjansson), which rejects invalid UTF-8 and
 * non-finite literals itself. Before it, numbers and escapes Jansson
 * cannot hold but the reference's JSON reader accepts are rewritten so the
 * fields meet the reference's rules (json_portable below). */
#include <ctype.h>
#include <errno.h>
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

/* Python's json reads what Jansson refuses: integers of any size (up to
 * 4,300 digits; more is a ValueError, so "request body must be valid
 * JSON"), reals beyond the double range (inf) and escapes of unpaired
 * surrogates. Rewrite them, in a copy, into values the field rules judge
 * the same way:
 * - an integer beyond 64 bits becomes the 64-bit extreme of its sign
 *   (every field compares it with a limit far below that, or rejects it
 *   for its type);
 * - an infinite real becomes [[]]: like inf it is not a number, not a
 *   string, not a list of strings, not an object, not a boolean, so every
 *   field rejects it with the message it gives inf;
 * - an unpaired surrogate escape sets *unpaired (the caller refuses the
 *   body with 400: a geno-c string is UTF-8 and cannot hold a surrogate,
 *   and quietly changing a program's text is worse than saying so; the
 *   reference accepts it and then fails on it) and becomes U+FFFD in the copy.
 * Returns the copy (its length in *out_len), or NULL with *bad set when the
 * body is invalid for the reference too (an integer of more than 4,300
 * digits), or NULL for out of memory. Text that is not JSON is copied as
 * it is, for Jansson to reject. */
#define PY_INT_MAX_DIGITS 4300
static bool hex4(const char *s, const char *end, unsigned *v) {
  if (end - s < 4) return false;
  unsigned x = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    x <<= 4;
    if (c >= '0' && c <= '9') x |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') x |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') x |= (unsigned)(c - 'A' + 10);
    else return false;
  }
  *v = x;
  return true;
}

static char *json_portable(const char *s, size_t n, size_t *out_len, bool *bad, bool *unpaired) {
  *bad = false;
  *unpaired = false;
  /* Never longer than the input: a rewritten integer has at least 19
   * digits, an infinite real at least 5 characters (1e309), and U+FFFD's
   * escape is as long as the one it replaces. */
  char *o = malloc(n + 1);
  if (!o) return NULL;
  size_t k = 0;
  const char *p = s, *end = s + n;
  while (p < end) {
    char c = *p;
    if (c == '"') { /* a string: copy, fixing unpaired surrogate escapes */
      o[k++] = *p++;
      while (p < end && *p != '"') {
        if (*p != '\\' || end - p < 2) {
          o[k++] = *p++;
          continue;
        }
        unsigned u, u2;
        if (p[1] == 'u' && hex4(p + 2, end, &u) && u >= 0xD800 && u <= 0xDFFF) {
          bool paired = u <= 0xDBFF && end - p >= 12 && p[6] == '\\' && p[7] == 'u' && hex4(p + 8, end, &u2) &&
                        u2 >= 0xDC00 && u2 <= 0xDFFF;
          if (paired) {
            memcpy(o + k, p, 12);
            k += 12;
            p += 12;
          } else {
            *unpaired = true;
            memcpy(o + k, "\\ufffd", 6);
            k += 6;
            p += 6;
          }
          continue;
        }
        o[k++] = *p++; /* the backslash and the escaped character */
        o[k++] = *p++;
      }
      if (p < end) o[k++] = *p++;
      continue;
    }
    if (c == '-' || (c >= '0' && c <= '9')) { /* a number token */
      const char *t = p;
      if (*t == '-') t++;
      const char *digits = t;
      while (t < end && *t >= '0' && *t <= '9') t++;
      size_t ndigits = (size_t)(t - digits);
      bool real = t < end && (*t == '.' || *t == 'e' || *t == 'E');
      while (t < end && ((*t >= '0' && *t <= '9') || *t == '.' || *t == 'e' || *t == 'E' || *t == '+' || *t == '-'))
        t++;
      size_t tn = (size_t)(t - p);
      const char *rewrite = NULL;
      if (!real && ndigits > PY_INT_MAX_DIGITS) {
        free(o);
        *bad = true;
        return NULL;
      }
      if (ndigits > 0) {
        char small[32];
        char *tok = tn < sizeof small ? small : malloc(tn + 1);
        if (!tok) {
          free(o);
          return NULL;
        }
        memcpy(tok, p, tn);
        tok[tn] = '\0';
        if (real) {
          if (isinf(strtod(tok, NULL))) rewrite = "[[]]";
        } else if (ndigits > 18) {
          errno = 0;
          (void)strtoll(tok, NULL, 10);
          if (errno == ERANGE) rewrite = *p == '-' ? "-9223372036854775808" : "9223372036854775807";
        }
        if (tok != small) free(tok);
      }
      if (rewrite && strlen(rewrite) <= tn) {
        memcpy(o + k, rewrite, strlen(rewrite));
        k += strlen(rewrite);
      } else {
        memcpy(o + k, p, tn);
        k += tn;
      }
      p = t;
      continue;
    }
    o[k++] = *p++;
  }
  o[k] = '\0';
  *out_len = k;
  return o;
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
  bool too_long, unpaired;
  size_t plen = 0;
  char *portable = json_portable(body, len, &plen, &too_long, &unpaired);
  if (!portable) return too_long ? "request body must be valid JSON" : oom(owned);
  if (unpaired) {
    free(portable);
    return "request body contains an unpaired surrogate escape (\\uD800-\\uDFFF without its pair)";
  }
  json_error_t jerr;
  json_t *root = json_loadb(portable, plen, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
  free(portable);
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
  /* The reference's server installs no host callbacks, so there fs and
   * process end in E413 whatever is allowed; here they are carried out,
   * and only inside the operator's lists (docs/SECURITY.md). */
  if ((req->caps & GENO_CAP_FS) && !cfg->fs_roots) {
    msg = "fs capability requires GENO_FS_ROOTS";
    goto out;
  }
  if ((req->caps & GENO_CAP_PROCESS) && !cfg->process_allow_list) {
    msg = "process capability requires GENO_PROCESS_EXECUTABLES";
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
