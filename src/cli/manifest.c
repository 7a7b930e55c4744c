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
#define MANIFEST_MAX_NAME 255
/* Files one project may declare. */
#define MANIFEST_MAX_FILES 4096

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
static bool parse_string_array(const char *p, const char *end, size_t max, char ***out, size_t *nout) {
  p = skip_space(p, end);
  if (p >= end || *p != '[') return false;
  p++;
  char **names = NULL;
  size_t n = 0;
  for (;;) {
    p = skip_space(p, end);
    if (p < end && *p == ']') break;
    if (p >= end || (*p != '"' && *p != '\'') || n >= max) goto bad;
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

/* The value of top-level key `key` (before the first table): a pointer
 * just past its `=`, or NULL when the key is absent. */
static const char *top_level_value(const char *text, size_t len, const char *key) {
  const char *p = text, *end = text + len;
  size_t klen = strlen(key);
  while (p < end) {
    const char *line = p;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    p = eol + (eol < end);
    while (line < eol && (*line == ' ' || *line == '\t')) line++;
    if (line < eol && *line == '[') return NULL; /* the first table ends the top level */
    if ((size_t)(eol - line) < klen || memcmp(line, key, klen) != 0) continue;
    const char *q = line + klen;
    while (q < eol && (*q == ' ' || *q == '\t')) q++;
    if (q >= eol || *q != '=') continue; /* another key that starts with `key` */
    return q + 1;
  }
  return NULL;
}

/* A one-line quoted string value at p (no escapes), malloc'd; NULL when
 * malformed. */
static char *parse_string(const char *p, const char *end) {
  p = skip_space(p, end);
  if (p >= end || (*p != '"' && *p != '\'')) return NULL;
  char quote = *p++;
  const char *s = p;
  while (p < end && *p != quote && *p != '\n' && *p != '\\') p++;
  if (p >= end || *p != quote || (size_t)(p - s) > MANIFEST_MAX_NAME) return NULL;
  return strndup(s, (size_t)(p - s));
}

void cli_manifest_free(CliManifest *m) {
  for (size_t i = 0; i < m->ntargets; i++) free(m->targets[i]);
  free(m->targets);
  for (size_t i = 0; i < m->nfiles; i++) free(m->files[i]);
  free(m->files);
  free(m->entrypoint);
  free(m->path);
  memset(m, 0, sizeof *m);
}

bool cli_manifest_read(const char *path, CliManifest *m, char **err) {
  memset(m, 0, sizeof *m);
  *err = NULL;
  size_t len;
  char *text = cli_read_file(path, &len);
  if (!text) {
    set_error(err, path, strerror(errno));
    return false;
  }
  char *bad = lib_toml_check(text, len);
  if (bad) {
    size_t n = strlen(bad) + 32;
    char *what = malloc(n);
    if (what) snprintf(what, n, "invalid TOML: %s", bad);
    set_error(err, path, what ? what : "invalid TOML");
    free(what);
    free(bad);
    free(text);
    return false;
  }
  const char *end = text + len, *v;
  bool ok = true;
  if ((v = top_level_value(text, len, "targets")) &&
      !parse_string_array(v, end, MANIFEST_MAX_TARGETS, &m->targets, &m->ntargets)) {
    set_error(err, path, "`targets` must be an array of target names, e.g. targets = [\"python-cli\"]");
    ok = false;
  }
  if (ok && (v = top_level_value(text, len, "files")) &&
      !parse_string_array(v, end, MANIFEST_MAX_FILES, &m->files, &m->nfiles)) {
    set_error(err, path, "`files` must be an array of file names, e.g. files = [\"Main.geno\"]");
    ok = false;
  }
  if (ok && (v = top_level_value(text, len, "entrypoint"))) {
    m->entrypoint = parse_string(v, end);
    if (!m->entrypoint) {
      set_error(err, path, "`entrypoint` must be a module name in quotes, e.g. entrypoint = \"Main\"");
      ok = false;
    }
  }
  free(text);
  if (ok) m->path = strdup(path);
  if (!ok || !m->path) {
    cli_manifest_free(m);
    if (!*err) set_error(err, path, "out of memory");
    return false;
  }
  return true;
}

bool cli_manifest_targets(const char *file, char ***targets, size_t *ntargets, char **manifest, char **err) {
  *targets = NULL;
  *ntargets = 0;
  *manifest = NULL;
  *err = NULL;
  char *path = host_find_manifest(file);
  if (!path) return true;
  CliManifest m;
  bool ok = cli_manifest_read(path, &m, err);
  free(path);
  if (!ok) return false;
  *targets = m.targets;
  *ntargets = m.ntargets;
  m.targets = NULL;
  m.ntargets = 0;
  if (*ntargets) {
    *manifest = m.path;
    m.path = NULL;
  }
  cli_manifest_free(&m);
  return true;
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
