/* `geno constrain [PREFIX] [--json] [--validate]`: the reference's report
 * on a program prefix (include/geno.h, geno_constrain_prefix). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char constrain_help[] =
    "usage: geno constrain [PREFIX] [--json] [--validate]\n"
    "\n"
    "Say whether PREFIX (or all of stdin when PREFIX is omitted) can still be\n"
    "completed into a Geno program that parses, and which kinds of token the\n"
    "reference's coarse model allows next.\n"
    "\n"
    "options:\n"
    "  --json       print the report as JSON (wins over --validate)\n"
    "  --validate   print only `valid`, or the reason on stderr\n"
    "  -h, --help   show this help\n"
    "\n"
    "exit status: 0 valid prefix, 1 invalid prefix, 2 usage error\n";

static char *read_stdin(size_t *len) {
  size_t cap = 1 << 14, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      char *p = realloc(buf, cap * 2);
      if (!p) {
        free(buf);
        return NULL;
      }
      buf = p;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, stdin);
    n += got;
    if (got == 0) break;
  }
  *len = n;
  return buf;
}

int cmd_constrain(int argc, char **argv) {
  const char *prefix = NULL;
  bool json = false, validate = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(constrain_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--json") == 0) {
      json = true;
    } else if (strcmp(a, "--validate") == 0) {
      validate = true;
    } else if (a[0] == '-' && a[1] && strcmp(a, "--") != 0) {
      return cli_usage_error("constrain", "unrecognized arguments: %s", a);
    } else if (!prefix) {
      prefix = strcmp(a, "--") == 0 && i + 1 < argc ? argv[++i] : a;
    } else {
      return cli_usage_error("constrain", "unrecognized arguments: %s", a);
    }
  }
  char *owned = NULL;
  size_t len;
  if (prefix) {
    len = strlen(prefix);
  } else {
    owned = read_stdin(&len);
    if (!owned) {
      fprintf(stderr, "geno constrain: error: cannot read stdin\n");
      return EXIT_FAIL;
    }
    prefix = owned;
  }
  geno_constraint_result r;
  if (!geno_constrain_prefix(prefix, len, &r)) {
    free(owned);
    fprintf(stderr, "geno constrain: error: out of memory\n");
    return EXIT_FAIL;
  }
  free(owned);
  if (json) {
    char *j = geno_constraint_result_json(&r, 2);
    if (j) printf("%s\n", j);
    free(j);
  } else if (validate) {
    if (r.valid) {
      puts("valid");
    } else {
      cli_printf_clean(stderr, "Invalid prefix: %s\n", r.error);
      if (r.n_unclosed_blocks) {
        fputs("Unclosed blocks: ", stderr);
        for (size_t i = 0; i < r.n_unclosed_blocks; i++) cli_printf_clean(stderr, "%s%s", i ? ", " : "", r.unclosed_blocks[i]);
        fputc('\n', stderr);
      }
    }
  } else {
    FILE *out = r.valid ? stdout : stderr;
    if (!r.valid) cli_printf_clean(out, "Invalid prefix: %s\n", r.error);
    char *t = geno_constraint_result_text(&r);
    if (t) fprintf(out, "%s\n", t);
    free(t);
  }
  int rc = r.valid ? EXIT_OK : EXIT_FAIL;
  geno_constraint_result_free(&r);
  return rc;
}
