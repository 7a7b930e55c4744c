/* The project manifest (geno.toml): found, checked, and its `targets`
 * read for `geno check`.
 *
 * The project root is the nearest directory, starting at the checked
 * file's own and walking up to the file-system root, that holds a
 * geno.toml (as the reference finds it). The whole file must be valid
 * TOML (checked by the toml_parse parser, src/lib/toml.h): a typo must not
 * silently drop the rules it holds. Only the top-level `targets` key is
 * used: an array of strings, e.g. targets = ["python-cli", "node-cli"]. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/toml.h"
#include "../host/host.h"
#include "cli.h"

/* More entries than targets exist is certainly a mistake; the cap bounds
 * what a hostile manifest can make us allocate. */
#define MANIFEST_MAX_TARGETS 16
/* Longest target name kept (the real ones are at most 13 bytes). */
#define MANIFEST_MAX_NAME 64

static void set_error(char **err, const char *path, const char *what) {
  size_t n = strlen(path) + strlen(what) + 8;
  *err = malloc(n);
  if (*err) snprintf(*err, n, "%s: %s", path, what);
}

/* Skip spaces, newlines and # comments. */
static const char *skip_space(const char *p, const char *end) {
  while (p < end) {
    if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    else if (*p == '#')
      while (p < end && *p != '\n') p++;
    else break;
  }
  return p;
}

/* Parse `[ "a", 'b', ]` at p. On success stores the strings and returns
 * true; on a malformed value returns false. */
static bool parse_string_array(const char *p, const char *end, char ***out, size_t *nout) {
  p = skip_space(p, end);
  if (p >= end || *p != '[') return false;
  p++;
  char **names = NULL;
  size_t n = 0;
  for (;;) {
    p = skip_space(p, end);
    if (p < end && *p == ']') break;
    if (p >= end || (*p != '"' && *p != '\'') || n >= MANIFEST_MAX_TARGETS) goto bad;
    char quote = *p++;
    const char *s = p;
    while (p < end && *p != quote && *p != '\n' && *p != '\\') p++;
    if (p >= end || *p != quote || (size_t)(p - s) > MANIFEST_MAX_NAME) goto bad;
    char **grown = realloc(names, (n + 1) * sizeof *grown);
    if (!grown) goto bad;
    names = grown;
    names[n] = strndup(s, (size_t)(p - s));
    if (!names[n]) goto bad;
    n++;
    p = skip_space(p + 1, end);
    if (p < end && *p == ',') {
      p++;
      continue;
    }
    if (p < end && *p == ']') break;
    goto bad;
  }
  *out = names;
  *nout = n;
  return true;
bad:
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return false;
}

bool cli_manifest_targets(const char *file, char ***targets, size_t *ntargets, char **manifest, char **err) {
  *targets = NULL;
  *ntargets = 0;
  *manifest = NULL;
  *err = NULL;
  char *path = host_find_manifest(file);
  if (!path) return true;
  size_t len;
  char *text = cli_read_file(path, &len);
  if (!text) {
    set_error(err, path, strerror(errno));
    free(path);
    return false;
  }
  char *bad = lib_toml_check(text, len);
  if (bad) {
    size_t m = strlen(bad) + 32;
    char *what = malloc(m);
    if (what) snprintf(what, m, "invalid TOML: %s", bad);
    set_error(err, path, what ? what : "invalid TOML");
    free(what);
    free(bad);
    free(text);
    free(path);
    return false;
  }
  const char *p = text, *end = text + len;
  bool ok = true;
  while (p < end) {
    const char *line = p;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    p = eol + (eol < end);
    while (line < eol && (*line == ' ' || *line == '\t')) line++;
    if (line < eol && *line == '[') break; /* the first table ends the top level */
    size_t klen = strlen("targets");
    if ((size_t)(eol - line) < klen || memcmp(line, "targets", klen) != 0) continue;
    const char *q = line + klen;
    while (q < eol && (*q == ' ' || *q == '\t')) q++;
    if (q >= eol || *q != '=') continue; /* another key that starts with "targets" */
    if (!parse_string_array(q + 1, end, targets, ntargets)) {
      set_error(err, path, "`targets` must be an array of target names, e.g. targets = [\"python-cli\"]");
      ok = false;
    }
    break;
  }
  free(text);
  if (ok && *ntargets) *manifest = path;
  else free(path);
  return ok;
}

bool cli_manifest_check(const char *file, char **err) {
  char **targets, *manifest;
  size_t n;
  bool ok = cli_manifest_targets(file, &targets, &n, &manifest, err);
  for (size_t i = 0; i < n; i++) free(targets[i]);
  free(targets);
  free(manifest);
  return ok;
}
