/* Finding the programs under a directory (geno test, geno fmt). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

typedef struct Found {
  char **items;
  size_t n, cap;
} Found;

static bool found_add(Found *f, char *path) {
  if (f->n == f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 16;
    char **g = realloc(f->items, cap * sizeof *g);
    if (!g) {
      free(path);
      return false;
    }
    f->items = g;
    f->cap = cap;
  }
  f->items[f->n++] = path;
  return true;
}

static bool ends_with_geno(const char *s) {
  size_t n = strlen(s);
  return n >= 5 && strcmp(s + n - 5, ".geno") == 0;
}

int cli_check_output_name(const char *cmd, const char *opt, const char *path) {
  if (!ends_with_geno(path)) return EXIT_OK;
  return cli_usage_error(cmd, "%s %s names Geno source: the output would replace it (name it .py, .js, .html ...)",
                         opt, path);
}

/* Symbolic links to directories are not followed (a link cycle cannot
 * loop), and the depth is bounded. */
static bool walk(const char *dir, Found *out, int depth) {
  if (depth > 64) {
    cli_printf_clean(stderr, "warning: not searching '%s': more than 64 directory levels deep\n", dir);
    return true;
  }
  DIR *d = opendir(dir);
  if (!d) return true; /* unreadable: nothing found there */
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    char *path = malloc(len);
    if (!path) {
      ok = false;
      break;
    }
    snprintf(path, len, strcmp(dir, "/") == 0 ? "%s%s" : "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      ok = walk(path, out, depth + 1);
    } else if (lstat(path, &st) == 0 && ends_with_geno(e->d_name) && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
      ok = found_add(out, path);
      path = NULL;
    }
    free(path);
  }
  closedir(d);
  return ok;
}

bool cli_path_under(const char *real, const char *root) {
  size_t rn = strlen(root);
  return strncmp(real, root, rn) == 0 && (real[rn] == '/' || (rn == 1 && root[0] == '/'));
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

bool cli_find_sources(const char *dir, char ***paths, size_t *n) {
  Found f = {0};
  bool ok = walk(dir, &f, 0);
  if (!ok) {
    for (size_t i = 0; i < f.n; i++) free(f.items[i]);
    free(f.items);
    *paths = NULL;
    *n = 0;
    return false;
  }
  if (f.n) qsort(f.items, f.n, sizeof *f.items, cmp_str);
  *paths = f.items;
  *n = f.n;
  return true;
}
