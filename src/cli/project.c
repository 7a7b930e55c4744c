/* Projects: a directory given to run, check or test.
 *
 * A project is a directory of modules: the `files` its geno.toml
 * declares (paths relative to the directory, which they may not leave),
 * or, without that key or without a manifest, every *.geno directly in
 * it. The modules are ordered so that each comes after the modules it
 * imports, ties broken by name (Kahn's algorithm with the smallest ready
 * name first, the reference's order); the entry module is the manifest's
 * `entrypoint`, else the last module of that order. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* More modules than this in one directory is refused (bounds the import
 * scan and the quadratic ordering below). */
#define PROJECT_MAX_FILES 4096

bool cli_is_dir(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void set_err(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(char **err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  *err = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!*err) return;
  va_start(ap, fmt);
  vsnprintf(*err, (size_t)n + 1, fmt, ap);
  va_end(ap);
}

static bool has_geno_suffix(const char *s) {
  size_t n = strlen(s);
  return n > 5 && strcmp(s + n - 5, ".geno") == 0;
}

/* "dir/rel", or rel alone when dir is "." (paths as the user typed them). */
static char *join(const char *dir, const char *rel) {
  if (strcmp(dir, ".") == 0) return strdup(rel);
  size_t n = strlen(dir) + strlen(rel) + 2;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", rel);
  return s;
}

/* The module name of a file: its base name without ".geno". */
static char *stem(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 5 && strcmp(base + n - 5, ".geno") == 0) n -= 5;
  return strndup(base, n);
}

static bool add_file(CliProject *p, size_t *cap, char *path) {
  if (!path) return false;
  if (p->nfiles == *cap) {
    size_t c = *cap ? *cap * 2 : 16;
    CliProjectFile *g = realloc(p->files, c * sizeof *g);
    if (!g) {
      free(path);
      return false;
    }
    p->files = g;
    *cap = c;
  }
  char *mod = stem(path);
  if (!mod) {
    free(path);
    return false;
  }
  p->files[p->nfiles].module = mod;
  p->files[p->nfiles].path = path;
  p->nfiles++;
  return true;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every *.geno file directly in dir, by name. */
static bool scan_dir(CliProject *p, size_t *cap, char **err) {
  DIR *d = opendir(p->root);
  if (!d) {
    set_err(err, "cannot read directory '%s': %s", p->root, strerror(errno));
    return false;
  }
  char **names = NULL;
  size_t n = 0, ncap = 0;
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(d))) {
    if (!has_geno_suffix(e->d_name)) continue;
    char *full = join(p->root, e->d_name);
    struct stat st;
    bool regular = full && stat(full, &st) == 0 && S_ISREG(st.st_mode);
    free(full);
    if (!regular) continue;
    if (n == PROJECT_MAX_FILES) {
      set_err(err, "'%s' holds more than %d .geno files", p->root, PROJECT_MAX_FILES);
      ok = false;
      break;
    }
    if (n == ncap) {
      ncap = ncap ? ncap * 2 : 16;
      char **g = realloc(names, ncap * sizeof *g);
      if (!g) {
        ok = false;
        break;
      }
      names = g;
    }
    if (!(names[n] = strdup(e->d_name))) ok = false;
    else n++;
  }
  closedir(d);
  if (ok && n > 1) qsort(names, n, sizeof *names, cmp_name);
  for (size_t i = 0; i < n; i++) {
    if (ok) ok = add_file(p, cap, join(p->root, names[i]));
    free(names[i]);
  }
  free(names);
  if (!ok && !*err) set_err(err, "out of memory");
  return ok;
}

/* A declared file must stay inside the root: relative, without "..". */
static bool contained(const char *rel) {
  if (!*rel || rel[0] == '/') return false;
  for (const char *s = rel; *s;) {
    const char *slash = strchr(s, '/');
    size_t n = slash ? (size_t)(slash - s) : strlen(s);
    if (n == 2 && s[0] == '.' && s[1] == '.') return false;
    s += n + (slash != NULL);
  }
  return true;
}

static bool declared_files(CliProject *p, size_t *cap, char **err) {
  for (size_t i = 0; i < p->manifest.nfiles; i++) {
    const char *rel = p->manifest.files[i];
    if (!contained(rel)) {
      set_err(err, "%s: file '%s' escapes the project root", p->manifest.path, rel);
      return false;
    }
    /* "Main" names Main.geno, as in the reference's manifests */
    char *named = NULL;
    if (!has_geno_suffix(rel)) {
      size_t m = strlen(rel) + 6;
      named = malloc(m);
      if (!named) {
        set_err(err, "out of memory");
        return false;
      }
      snprintf(named, m, "%s.geno", rel);
      rel = named;
    }
    char *full = join(p->root, rel);
    rel = p->manifest.files[i];
    struct stat st;
    if (full && named) {
      /* "notes.md" names no module: say so rather than look for notes.md.geno */
      char *as_is = join(p->root, rel);
      bool exists = as_is && stat(as_is, &st) == 0 && S_ISREG(st.st_mode) && strchr(rel, '.');
      free(as_is);
      if (exists && stat(full, &st) != 0) {
        set_err(err, "%s: file '%s' declared in geno.toml is not a .geno file", p->manifest.path, rel);
        free(full);
        free(named);
        return false;
      }
    }
    free(named);
    if (!full || stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
      set_err(err, "%s: file '%s' declared in geno.toml not found at %s", p->manifest.path, rel,
              full ? full : rel);
      free(full);
      return false;
    }
    /* The same file listed twice ("Main.geno", "./Main.geno", a link to
     * it) is one module: counted, tested and loaded once. Two different
     * files with one module name cannot both be imported: an error. */
    char *real = realpath(full, NULL);
    char *root = realpath(p->root, NULL);
    if (!real || !root) {
      set_err(err, "out of memory");
      free(real);
      free(root);
      free(full);
      return false;
    }
    /* a link inside the project that leads outside it escapes too */
    bool inside = cli_path_under(real, root);
    free(root);
    if (!inside) {
      set_err(err, "%s: file '%s' escapes the project root (it resolves to %s)", p->manifest.path, rel, real);
      free(real);
      free(full);
      return false;
    }
    bool seen = false;
    for (size_t k = 0; k < p->nfiles && !seen; k++) {
      char *other = realpath(p->files[k].path, NULL);
      seen = other && strcmp(other, real) == 0;
      free(other);
    }
    free(real);
    if (seen) {
      free(full);
      continue;
    }
    char *mod = stem(full);
    for (size_t k = 0; mod && k < p->nfiles; k++)
      if (strcmp(p->files[k].module, mod) == 0) {
        set_err(err, "%s: module name collision: '%s' is defined by both %s and %s", p->manifest.path, mod,
                p->files[k].path, full);
        free(mod);
        free(full);
        return false;
      }
    free(mod);
    if (!add_file(p, cap, full)) {
      set_err(err, "out of memory");
      return false;
    }
  }
  return true;
}

bool cli_open_program(const char *path, CliProgram *prog, CliProject *proj) {
  memset(proj, 0, sizeof *proj);
  if (cli_is_dir(path)) {
    char *err = NULL;
    if (!cli_project_open(path, proj, &err)) {
      cli_printf_clean(stderr, "Error: %s\n", err ? err : "out of memory");
      free(err);
      memset(proj, 0, sizeof *proj);
      return false;
    }
    path = proj->files[proj->entry].path;
  }
  if (!cli_load_program(path, prog, CLI_JSON_NONE)) {
    cli_project_free(proj);
    memset(proj, 0, sizeof *proj);
    return false;
  }
  prog->project = proj->nfiles ? proj : NULL;
  return true;
}

void cli_close_program(CliProgram *prog, CliProject *proj) {
  cli_free_program(prog);
  if (proj->nfiles) cli_project_free(proj);
}

/* Order the modules: dependencies first, ties by name. */
static bool order_modules(CliProject *p, char **err) {
  size_t n = p->nfiles;
  /* deps[i][j]: module i imports module j (n is bounded) */
  unsigned char *deps = calloc(n > 0 ? n * n : 1, 1);
  size_t *indeg = calloc(n ? n : 1, sizeof *indeg);
  bool *done = calloc(n ? n : 1, sizeof *done);
  CliProjectFile *sorted = malloc((n ? n : 1) * sizeof *sorted);
  bool ok = deps && indeg && done && sorted;
  for (size_t i = 0; ok && i < n; i++) {
    size_t len;
    char *src = cli_read_file(p->files[i].path, &len);
    if (!src) {
      set_err(err, "cannot read '%s': %s", p->files[i].path, strerror(errno));
      ok = false;
      break;
    }
    char **names = NULL;
    int k = geno_source_imports(src, len, &names);
    free(src);
    for (int m = 0; m < k; m++)
      for (size_t j = 0; j < n; j++)
        if (j != i && strcmp(names[m], p->files[j].module) == 0 && !deps[i * n + j]) {
          deps[i * n + j] = 1;
          indeg[i]++;
        }
    geno_strings_free(names, k > 0 ? (size_t)k : 0);
  }
  size_t out = 0;
  while (ok && out < n) {
    size_t best = n;
    for (size_t i = 0; i < n; i++)
      if (!done[i] && indeg[i] == 0 && (best == n || strcmp(p->files[i].module, p->files[best].module) < 0))
        best = i;
    if (best == n) break; /* a cycle: the front end reports it when it loads */
    done[best] = true;
    sorted[out++] = p->files[best];
    for (size_t i = 0; i < n; i++)
      if (deps[i * n + best]) indeg[i]--;
  }
  if (ok) {
    /* modules in an import cycle keep their name order, after the rest */
    for (size_t i = 0; i < n; i++)
      if (!done[i]) sorted[out++] = p->files[i];
    memcpy(p->files, sorted, n * sizeof *sorted);
  } else if (!*err) {
    set_err(err, "out of memory");
  }
  free(deps);
  free(indeg);
  free(done);
  free(sorted);
  return ok;
}

bool cli_project_open(const char *dir, CliProject *p, char **err) {
  memset(p, 0, sizeof *p);
  *err = NULL;
  size_t cap = 0;
  p->root = strdup(dir);
  if (!p->root) {
    set_err(err, "out of memory");
    return false;
  }
  char *mpath = join(dir, "geno.toml");
  struct stat st;
  bool ok = mpath != NULL;
  if (ok && stat(mpath, &st) == 0) ok = cli_manifest_read(mpath, &p->manifest, err);
  free(mpath);
  if (ok) ok = p->manifest.nfiles ? declared_files(p, &cap, err) : scan_dir(p, &cap, err);
  if (ok && p->nfiles == 0) {
    set_err(err, "No .geno files found in '%s'", dir);
    ok = false;
  }
  if (ok) ok = order_modules(p, err);
  if (ok) {
    p->entry = p->nfiles - 1;
    if (p->manifest.entrypoint) {
      size_t i = 0;
      while (i < p->nfiles && strcmp(p->files[i].module, p->manifest.entrypoint) != 0) i++;
      if (i == p->nfiles) {
        set_err(err, "%s: entrypoint '%s' is not a module of the project (expected %s/%s.geno)",
                p->manifest.path, p->manifest.entrypoint, dir, p->manifest.entrypoint);
        ok = false;
      } else {
        p->entry = i;
      }
    }
  }
  if (!ok) {
    if (!*err) set_err(err, "out of memory");
    cli_project_free(p);
  }
  return ok;
}

void cli_project_free(CliProject *p) {
  for (size_t i = 0; i < p->nfiles; i++) {
    free(p->files[i].module);
    free(p->files[i].path);
  }
  free(p->files);
  cli_manifest_free(&p->manifest);
  free(p->root);
  memset(p, 0, sizeof *p);
}

const char *cli_project_module_path(const CliProject *p, const char *name) {
  for (size_t i = 0; p && i < p->nfiles; i++)
    if (strcmp(p->files[i].module, name) == 0) return p->files[i].path;
  return NULL;
}
