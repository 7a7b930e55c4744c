/* `geno fmt [PATH] [--check | --diff]`: the canonical layout (geno_format). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char fmt_help[] =
    "usage: geno fmt [PATH] [--check | --diff]\n"
    "\n"
    "Format Geno source files in the canonical layout: four spaces per open\n"
    "block, `end`, `else` and `catch` at the level of their block, no\n"
    "trailing spaces, one newline at the end. Comments and blank lines are\n"
    "kept, and so is every line inside a multi-line string; the program's\n"
    "meaning never changes (a file that does not parse is reported and left\n"
    "alone). PATH is a .geno file or a directory searched recursively for\n"
    "*.geno files (default: the current directory); a file there that is a\n"
    "link to a file outside the directory is skipped, and said so.\n"
    "\n"
    "options:\n"
    "  --check     change nothing; list the files that would change (exit 1\n"
    "              if any)\n"
    "  --diff      change nothing; print a unified diff of what would change\n"
    "  -h, --help  show this help\n"
    "\n"
    "exit status: 0 done (or nothing to do), 1 a file needs formatting\n"
    "(--check), could not be read, written or parsed, 2 usage error\n";

/* Lines of text: [start, end) offsets, the line end excluded; `nl` tells
 * whether the line had one. */
typedef struct Lines {
  size_t *start, *end;
  bool *nl;
  size_t n;
} Lines;

static bool split_lines(const char *s, size_t len, Lines *l) {
  memset(l, 0, sizeof *l);
  size_t cap = 1;
  for (size_t i = 0; i < len; i++) cap += s[i] == '\n' || s[i] == '\r';
  l->start = malloc(cap * sizeof *l->start);
  l->end = malloc(cap * sizeof *l->end);
  l->nl = malloc(cap * sizeof *l->nl);
  if (!l->start || !l->end || !l->nl) return false;
  size_t i = 0;
  while (i < len) {
    size_t a = i;
    while (i < len && s[i] != '\n' && s[i] != '\r') i++;
    l->start[l->n] = a;
    l->end[l->n] = i;
    l->nl[l->n] = i < len;
    l->n++;
    if (i < len && s[i] == '\r' && i + 1 < len && s[i + 1] == '\n') i++;
    if (i < len) i++;
  }
  return true;
}

static void free_lines(Lines *l) {
  free(l->start);
  free(l->end);
  free(l->nl);
}

static bool same_line(const char *a, const Lines *la, size_t i, const char *b, const Lines *lb, size_t j) {
  size_t na = la->end[i] - la->start[i], nb = lb->end[j] - lb->start[j];
  return na == nb && la->nl[i] == lb->nl[j] && memcmp(a + la->start[i], b + lb->start[j], na) == 0;
}

static void put_line(char mark, const char *s, const Lines *l, size_t i) {
  putchar(mark);
  cli_put_clean_n(stdout, s + l->start[i], l->end[i] - l->start[i], false);
  putchar('\n');
  if (!l->nl[i]) fputs("\\ No newline at end of file\n", stdout);
}

/* A unified diff (3 lines of context) of old -> new. The formatter keeps
 * every line where it was (it changes a line's spaces, drops trailing
 * blank lines), so line i of one text is line i of the other. */
static void print_diff(const char *path, const char *old, size_t olen, const char *new, size_t nlen) {
  Lines a, b;
  if (!split_lines(old, olen, &a) || !split_lines(new, nlen, &b)) {
    free_lines(&a);
    free_lines(&b);
    fprintf(stderr, "Error: out of memory\n");
    return;
  }
  size_t n = a.n > b.n ? a.n : b.n;
  cli_printf_clean(stdout, "--- %s\n+++ %s\n", path, path);
  size_t i = 0;
  while (i < n) {
    /* the next changed line */
    while (i < n && i < a.n && i < b.n && same_line(old, &a, i, new, &b, i)) i++;
    if (i >= n) break;
    size_t lo = i >= 3 ? i - 3 : 0, hi = i;
    /* extend while changes are within 6 lines of each other */
    for (size_t j = i; j < n; j++) {
      bool changed = j >= a.n || j >= b.n || !same_line(old, &a, j, new, &b, j);
      if (changed) hi = j + 1;
      else if (j >= hi + 6) break;
    }
    size_t end = hi + 3 < n ? hi + 3 : n;
    size_t ea = end < a.n ? end : a.n, eb = end < b.n ? end : b.n;
    printf("@@ -%zu,%zu +%zu,%zu @@\n", ea > lo ? lo + 1 : lo, ea > lo ? ea - lo : 0, eb > lo ? lo + 1 : lo,
           eb > lo ? eb - lo : 0);
    for (size_t j = lo; j < end;) {
      if (j < a.n && j < b.n && same_line(old, &a, j, new, &b, j)) {
        put_line(' ', old, &a, j++);
        continue;
      }
      /* a run of changed lines: the old ones, then the new ones */
      size_t k = j;
      while (k < end && !(k < a.n && k < b.n && same_line(old, &a, k, new, &b, k))) k++;
      for (size_t m = j; m < k && m < a.n; m++) put_line('-', old, &a, m);
      for (size_t m = j; m < k && m < b.n; m++) put_line('+', new, &b, m);
      j = k;
    }
    i = end;
  }
  free_lines(&a);
  free_lines(&b);
}

/* Replace the file's contents: a new file beside it renamed over it (a
 * failure midway leaves the old text), with the old file's mode. A path
 * through symbolic links writes the file they lead to. */
static bool write_back(const char *path, const char *text, size_t len) {
  char *real = realpath(path, NULL);
  const char *target = real ? real : path;
  size_t n = strlen(target) + 16;
  char *tmp = malloc(n);
  bool ok = false;
  if (tmp) {
    snprintf(tmp, n, "%s.fmtXXXXXX", target);
    int fd = mkstemp(tmp);
    if (fd >= 0) {
      struct stat st;
      if (stat(target, &st) == 0) (void)fchmod(fd, st.st_mode & 07777);
      size_t off = 0;
      ok = true;
      while (ok && off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) ok = false;
        else off += (size_t)w;
      }
      if (close(fd) != 0) ok = false;
      if (ok && rename(tmp, target) != 0) ok = false;
      if (!ok) {
        int e = errno;
        unlink(tmp);
        errno = e;
      }
    }
  }
  free(tmp);
  free(real);
  return ok;
}

int cmd_fmt(int argc, char **argv) {
  const char *path = NULL;
  bool check = false, diff = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(fmt_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--check") == 0) {
      check = true;
    } else if (strcmp(a, "--diff") == 0) {
      diff = true;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("fmt", "unrecognized option '%s' (expected --check, --diff or --help)", a);
    } else if (path) {
      return cli_usage_error("fmt", "unexpected argument '%s': fmt takes one PATH", a);
    } else {
      path = a;
    }
  }
  if (check && diff) return cli_usage_error("fmt", "--check and --diff cannot be used together");
  if (!path) path = ".";
  struct stat st;
  if (stat(path, &st) != 0) {
    cli_printf_clean(stderr, "Error: '%s' not found\n", path);
    return EXIT_FAIL;
  }
  char **files = NULL;
  size_t nfiles = 0;
  if (S_ISDIR(st.st_mode)) {
    if (!cli_find_sources(path, &files, &nfiles)) {
      fprintf(stderr, "Error: out of memory\n");
      return EXIT_FAIL;
    }
    if (nfiles == 0) {
      free(files);
      cli_printf_clean(stderr, "No .geno files found in '%s'\n", path);
      return EXIT_FAIL;
    }
  } else {
    files = malloc(sizeof *files);
    if (!files || !(files[0] = strdup(path))) {
      free(files);
      fprintf(stderr, "Error: out of memory\n");
      return EXIT_FAIL;
    }
    nfiles = 1;
  }
  /* A directory's files are formatted in place: a .geno link that leads
   * out of it is not followed (formatting would rewrite a file elsewhere),
   * as geno run does not follow an import that is a link out of the
   * program's folder. A file named on the command line is the user's
   * choice and is followed. */
  char *root = S_ISDIR(st.st_mode) ? realpath(path, NULL) : NULL;
  bool any_changed = false, had_error = false;
  for (size_t f = 0; f < nfiles; f++) {
    const char *file = files[f];
    if (root) {
      char *real = realpath(file, NULL);
      bool out = real && !cli_path_under(real, root);
      if (out) cli_printf_clean(stderr, "Skipped: %s is a link to %s, outside %s\n", file, real, path);
      free(real);
      if (out) continue;
    }
    size_t len;
    char *src = cli_read_file(file, &len);
    if (!src) {
      cli_printf_clean(stderr, "Error: cannot read %s: %s\n", file, strerror(errno));
      had_error = true;
      continue;
    }
    char *out = NULL;
    size_t olen = 0;
    geno_result *r = geno_format(src, len, file, &out, &olen);
    if (!r || !geno_result_ok(r)) {
      /* not parsed: said, and left as it is */
      cli_printf_clean(stderr, "Error: cannot format %s: it does not parse\n", file);
      if (r) {
        CliProgram prog = {.path = (char *)file, .source = src, .length = len};
        cli_print_diagnostics(stderr, r, &prog);
      } else {
        fprintf(stderr, "Error: out of memory\n");
      }
      had_error = true;
    } else if (olen != len || memcmp(out, src, len) != 0) {
      any_changed = true;
      if (check) {
        cli_printf_clean(stdout, "Would reformat: %s\n", file);
      } else if (diff) {
        print_diff(file, src, len, out, olen);
      } else if (!write_back(file, out, olen)) {
        cli_printf_clean(stderr, "Error: cannot write %s: %s\n", file, strerror(errno));
        had_error = true;
      } else {
        cli_printf_clean(stdout, "Formatted: %s\n", file);
      }
    }
    geno_free(out);
    geno_result_free(r);
    free(src);
  }
  for (size_t f = 0; f < nfiles; f++) free(files[f]);
  free(files);
  free(root);
  if (check && any_changed) printf("\nSome files need formatting. Run `geno fmt` to fix.\n");
  else if (!any_changed && !had_error) printf("All files are properly formatted.\n");
  return had_error || (check && any_changed) ? EXIT_FAIL : EXIT_OK;
}
