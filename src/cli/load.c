/* Loading a program from disk for the CLI, and printing diagnostics. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli.h"

/* Files larger than this are refused before reading (the library's own
 * per-module limit is lower by default; this only bounds the read). */
#define CLI_MAX_FILE_BYTES ((size_t)64 << 20)

char *cli_read_file(const char *path, size_t *len) {
  /* Opened without blocking: opening a FIFO nobody writes to would wait
   * forever. Reads then block as usual (a pipe from `<(...)` is read to its
   * end); a FIFO without a writer reads as empty. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    errno = EISDIR;
    return NULL;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  if (!buf) {
    fclose(f);
    errno = ENOMEM;
    return NULL;
  }
  for (;;) {
    if (n == cap) {
      if (cap >= CLI_MAX_FILE_BYTES) {
        free(buf);
        fclose(f);
        errno = EFBIG;
        return NULL;
      }
      cap *= 2;
      char *p = realloc(buf, cap + 1);
      if (!p) {
        free(buf);
        fclose(f);
        errno = ENOMEM;
        return NULL;
      }
      buf = p;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  bool err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

static bool is_std(const char *name) {
  static const char *const std[] = {"List", "Map", "Option", "Result", "Math", "String", "Path", "DateTime"};
  for (size_t i = 0; i < sizeof std / sizeof std[0]; i++)
    if (strcmp(std[i], name) == 0) return true;
  return false;
}

/* The library asks for each imported module as it parses the import
 * (geno_module_loader_fn): read <Name>.geno beside the entry file. A copy
 * stays in the program for the snippets of diagnostics in that module. */
/* Keep a copy of a module's source for the snippets of its diagnostics,
 * named by the path they show. */
static void remember_module(CliProgram *p, const char *path, const char *src, size_t len) {
  char *copy = malloc(len ? len : 1);
  geno_module *mods = copy ? realloc(p->modules, (p->nmodules + 1) * sizeof *mods) : NULL;
  if (mods) {
    p->modules = mods;
    mods[p->nmodules].name = strdup(path);
    mods[p->nmodules].source = copy;
    mods[p->nmodules].length = len;
    if (mods[p->nmodules].name) {
      memcpy(copy, src, len);
      p->nmodules++;
      copy = NULL;
    }
  }
  free(copy);
}

/* An import of a bundled program: from the bundle only. */
static bool bundle_loader(CliProgram *p, const char *name, char **source, size_t *length, char **filename,
                          char **error) {
  for (size_t i = 0; i < p->nbundled; i++) {
    if (strcmp(p->bundled[i].name, name) != 0) continue;
    size_t n = p->bundled[i].length;
    char *src = malloc(n + 1), *path = NULL;
    if (src && asprintf(&path, "%s.geno", name) < 0) path = NULL;
    if (!src || !path) {
      free(src);
      free(path);
      return false;
    }
    memcpy(src, p->bundled[i].source, n);
    src[n] = '\0';
    remember_module(p, path, src, n);
    *source = src;
    *length = n;
    *filename = path;
    return true;
  }
  if (!is_std(name) && asprintf(error, "The bundle has no module '%s'", name) < 0) *error = NULL;
  return false;
}

/* True (and *error set) when the module file at `path` exists and
 * resolves outside the folder `dir`. */
static bool module_escapes(const char *dir, const char *path, const char *name, char **error) {
  char *real = realpath(path, NULL);
  if (!real) return false; /* missing: the usual "Searched for" message */
  char *root = realpath(dir, NULL);
  char *parent = dir_of(real);
  bool out = !root || !parent || strcmp(root, parent) != 0;
  if (out && asprintf(error, "Module '%s': '%s.geno' resolves to %s, outside the program's folder %s", name, name,
                      real, root ? root : dir) < 0)
    *error = NULL;
  free(parent);
  free(root);
  free(real);
  return out;
}

bool cli_module_loader(void *userdata, const char *name, char **source, size_t *length, char **filename,
                       char **error) {
  CliProgram *p = userdata;
  if (p->bundled) return bundle_loader(p, name, source, length, filename, error);
  const char *dir = p->dir ? p->dir : ".";
  size_t plen = strlen(dir) + strlen(name) + 7;
  char *path = malloc(plen);
  if (!path) return false;
  /* beside an entry file named without a directory: "Name.geno", as the
   * entry's own diagnostics name it without one */
  const char *in_project = p->project ? cli_project_module_path(p->project, name) : NULL;
  if (in_project) {
    free(path);
    path = strdup(in_project);
    if (!path) return false;
  } else if (p->path && !strchr(p->path, '/')) {
    snprintf(path, plen, "%s.geno", name);
  } else {
    snprintf(path, plen, "%s/%s.geno", dir, name);
  }
  /* a module of a program without a manifest lives in the program's
   * folder: a symlink out of it is not followed (it would read, and show
   * in a diagnostic's excerpt, any file the user can read), as geno.toml
   * projects refuse files that resolve outside their root */
  if (!in_project && module_escapes(dir, path, name, error)) {
    free(path);
    return false;
  }
  size_t mlen;
  char *msrc = cli_read_file(path, &mlen);
  int e = errno;
  if (!msrc) {
    free(path);
    /* a std module name without a file beside the program is the
     * built-in module: no explanation needed */
    if (!is_std(name)) {
      char *abs = realpath(dir, NULL); /* the folder as the user can find it */
      const char *where = abs ? abs : dir;
      size_t m = strlen(name) + strlen(where) + 64;
      *error = malloc(m);
      if (*error) {
        if (e == ENOENT) snprintf(*error, m, "Searched for '%s.geno' in %s", name, where);
        else snprintf(*error, m, "Cannot read '%s/%s.geno': %s", where, name, strerror(e));
      }
      free(abs);
    }
    return false;
  }
  /* the record for snippets is named by the path diagnostics will show */
  remember_module(p, path, msrc, mlen);
  *source = msrc;
  *length = mlen;
  *filename = path;
  return true;
}

bool cli_load_program(const char *path, CliProgram *prog, CliJsonShape json) {
  memset(prog, 0, sizeof *prog);
  /* A device, FIFO or socket is no program (it read as empty and "ran"
   * silently): the reference's words and exit code. */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    size_t m = strlen(path) + 64;
    char *msg = malloc(m);
    if (msg) snprintf(msg, m, "No .geno files found at %s", path);
    cli_printf_clean(stderr, "Error: %s\n", msg ? msg : "no program");
    if (json != CLI_JSON_NONE) cli_json_failure(json == CLI_JSON_RUN, "E204", msg ? msg : "no program");
    free(msg);
    return false;
  }
  size_t len;
  char *src = cli_read_file(path, &len);
  if (!src) {
    int e = errno;
    size_t m = strlen(path) + 128;
    char *msg = malloc(m);
    if (msg) {
      if (e == ENOENT) snprintf(msg, m, "File not found: %s", path);
      else snprintf(msg, m, "Cannot read %s: %s", path, strerror(e));
    }
    cli_printf_clean(stderr, "Error: %s\n", msg ? msg : "cannot read the program");
    if (json != CLI_JSON_NONE) cli_json_failure(json == CLI_JSON_RUN, "E204", msg ? msg : "cannot read the program");
    free(msg);
    return false;
  }
  prog->path = strdup(path);
  prog->source = src;
  prog->length = len;
  prog->dir = dir_of(path);
  return true;
}

/* A bundle's failure: printed, and as JSON when asked. */
static bool bundle_error(const char *path, const char *why, CliJsonShape json) {
  char *msg = NULL;
  if (asprintf(&msg, "Invalid bundle %s: %s", path, why) < 0) msg = NULL;
  cli_printf_clean(stderr, "Error: %s\n", msg ? msg : why);
  if (json != CLI_JSON_NONE) cli_json_failure(json == CLI_JSON_RUN, "E204", msg ? msg : why);
  free(msg);
  return false;
}

bool cli_load_bundle(const char *path, CliProgram *prog, CliJsonShape json) {
  memset(prog, 0, sizeof *prog);
  size_t len;
  char *text = cli_read_file(path, &len);
  if (!text) return bundle_error(path, errno == ENOENT ? "file not found" : strerror(errno), json);
  json_error_t jerr;
  json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  free(text);
  if (!doc) return bundle_error(path, jerr.text, json);
  json_t *mods = json_object_get(doc, "modules");
  const char *version = json_string_value(json_object_get(doc, "version"));
  const char *entry = json_string_value(json_object_get(doc, "entrypoint"));
  const char *why = !json_is_object(doc) ? "not a JSON object"
                    : !version || strcmp(version, "1") != 0 ? "\"version\" must be \"1\""
                    : !entry ? "\"entrypoint\" must be a string"
                    : !json_is_object(mods) ? "\"modules\" must be an object"
                    : !json_is_string(json_object_get(mods, entry)) ? "the entrypoint is not among the modules"
                    : NULL;
  size_t n = json_is_object(mods) ? json_object_size(mods) : 0;
  const char *key;
  json_t *val;
  json_object_foreach(mods, key, val) {
    if (!why && !json_is_string(val)) why = "every module's source must be a string";
    if (!why && (!*key || strchr(key, '/') || strchr(key, '.'))) why = "a module name holds '/' or '.'";
  }
  if (why) {
    json_decref(doc);
    return bundle_error(path, why, json);
  }
  bool ok = (prog->bundled = calloc(n ? n : 1, sizeof *prog->bundled)) != NULL;
  json_object_foreach(mods, key, val) {
    if (!ok) break;
    const char *src = json_string_value(val);
    size_t sl = json_string_length(val);
    if (strcmp(key, entry) == 0) {
      ok = (prog->source = malloc(sl + 1)) && asprintf(&prog->path, "%s.geno", entry) >= 0;
      if (ok) {
        memcpy(prog->source, src, sl);
        prog->source[sl] = '\0';
        prog->length = sl;
      } else {
        prog->path = NULL;
      }
      continue;
    }
    geno_module *m = &prog->bundled[prog->nbundled];
    char *copy = malloc(sl ? sl : 1);
    m->name = strdup(key);
    ok = copy && m->name;
    if (ok) {
      memcpy(copy, src, sl);
      m->source = copy;
      m->length = sl;
      prog->nbundled++;
    } else {
      free(copy);
      free((char *)m->name);
    }
  }
  json_decref(doc);
  prog->dir = strdup(".");
  if (!ok || !prog->dir) {
    cli_free_program(prog);
    return bundle_error(path, "out of memory", json);
  }
  return true;
}

void cli_free_program(CliProgram *prog) {
  for (size_t i = 0; i < prog->nmodules; i++) {
    free((char *)prog->modules[i].name);
    free((char *)prog->modules[i].source);
  }
  free(prog->modules);
  for (size_t i = 0; i < prog->nbundled; i++) {
    free((char *)prog->bundled[i].name);
    free((char *)prog->bundled[i].source);
  }
  free(prog->bundled);
  free(prog->dir);
  free(prog->source);
  free(prog->path);
  memset(prog, 0, sizeof *prog);
}

/* The source text of the file a diagnostic names. */
static const char *source_for(const CliProgram *prog, const char *filename, size_t *len) {
  if (!prog || !filename) return NULL;
  if (prog->path && strcmp(filename, prog->path) == 0) {
    *len = prog->length;
    return prog->source;
  }
  for (size_t i = 0; i < prog->nmodules; i++) {
    if (strcmp(filename, prog->modules[i].name) == 0) { /* the module's path */
      *len = prog->modules[i].length;
      return prog->modules[i].source;
    }
  }
  return NULL;
}

/* Widest source excerpt shown under a diagnostic, in code points: long
 * lines (minified or generated code) are cut to a window around the
 * column so one error cannot flood the terminal. */
#define SNIPPET_WIDTH 120

static bool is_cont(unsigned char ch) { return (ch & 0xC0) == 0x80; }

/* What would act on the terminal or reorder the text, shown as '?' (one
 * column, so a caret still lines up): control characters but tab, bytes
 * that are not UTF-8 (n == 0), C1 controls, and the bidirectional controls
 * that can make a line read differently from what it is ("Trojan
 * Source"). */
static bool hidden_char(uint32_t cp, int n) {
  return n == 0 || (cp < 0x20 && cp != '\t') || (cp >= 0x7F && cp < 0xA0) || cp == 0x061C || cp == 0x200E ||
         cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void cli_put_clean_n(FILE *out, const char *s, size_t len, bool keep_newlines) {
  for (size_t k = 0; k < len;) {
    uint32_t cp = (unsigned char)s[k];
    int n = cli_utf8_char((const unsigned char *)s + k, len - k, &cp);
    if (keep_newlines && n == 1 && cp == '\n') fputc('\n', out);
    else if (hidden_char(cp, n)) fputc('?', out);
    else fwrite(s + k, 1, (size_t)n, out);
    k += n ? (size_t)n : 1;
  }
}

void cli_put_clean(FILE *out, const char *s) { cli_put_clean_n(out, s, s ? strlen(s) : 0, false); }

void cli_printf_clean(FILE *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = NULL;
  int n = vasprintf(&text, fmt, ap);
  va_end(ap);
  if (n < 0) {
    fputs("Error: out of memory\n", out);
    return;
  }
  cli_put_clean_n(out, text, (size_t)n, true);
  free(text);
}

void cli_print_snippet(FILE *out, const char *src, size_t len, int line, int col) {
  int cur = 1;
  size_t i = 0;
  /* lines end at LF, CR LF or a lone CR, as the lexer counts them */
  while (i < len && cur < line) {
    if (src[i] == '\n' || (src[i] == '\r' && (i + 1 >= len || src[i + 1] != '\n'))) cur++;
    i++;
  }
  if (cur != line || i >= len) return;
  size_t end = i;
  while (end < len && src[end] != '\n' && src[end] != '\r') end++;
  /* Window [first, first + SNIPPET_WIDTH) of code points around col. */
  long first = 1;
  if (col > SNIPPET_WIDTH / 2) first = col - SNIPPET_WIDTH / 2;
  long last = first + SNIPPET_WIDTH; /* exclusive */
  long c = 1;
  bool cut_left = first > 1, cut_right = false;
  fputs(cut_left ? "  ..." : "  ", out);
  size_t k = i;
  while (k < end) {
    unsigned char ch = (unsigned char)src[k];
    uint32_t cp = ch;
    int n = cli_utf8_char((const unsigned char *)src + k, end - k, &cp);
    if (c >= last) {
      cut_right = true;
      break;
    }
    if (c >= first) {
      if (hidden_char(cp, n)) fputc('?', out);
      else fwrite(src + k, 1, (size_t)n, out);
    }
    k += n ? (size_t)n : 1;
    /* a stray continuation byte has no column of its own (the caret's
     * count below skips it too) */
    if (n != 0 || !is_cont(ch)) c++;
  }
  fputs(cut_right ? "...\n  " : "\n  ", out);
  if (cut_left) fputs("   ", out);
  /* Columns count code points; pad with the line's own tabs so they line up. */
  c = 1;
  for (k = i; k < end && c < col; k++) {
    unsigned char ch = (unsigned char)src[k];
    if (is_cont(ch)) continue;
    if (c >= first) fputc(ch == '\t' ? '\t' : ' ', out);
    c++;
  }
  fputs("^\n", out);
}

void cli_print_diagnostics(FILE *out, const geno_result *r, const CliProgram *prog) {
  size_t n = geno_result_diagnostic_count(r);
  for (size_t i = 0; i < n; i++) {
    const geno_diagnostic *d = geno_result_diagnostic(r, i);
    /* messages and file names can carry a program's text (a thrown
     * value, a module name): printed clean */
    if (d->filename && d->line > 0) {
      cli_put_clean(out, d->filename);
      fprintf(out, ":%d:%d: ", d->line, d->column);
    }
    fprintf(out, "%s[%s]: ", d->severity, d->code);
    cli_put_clean(out, d->message);
    fputc('\n', out);
    size_t len = 0;
    const char *src = prog && d->filename && d->line > 0 ? source_for(prog, d->filename, &len) : NULL;
    if (src) cli_print_snippet(out, src, len, d->line, d->column);
  }
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "geno%s%s: error: ", cmd ? " " : "", cmd ? cmd : "");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'geno %s%s--help' for more information.\n", cmd ? cmd : "", cmd ? " " : "");
  return EXIT_USAGE;
}
