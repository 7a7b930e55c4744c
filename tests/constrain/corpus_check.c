/* corpus_check: the prefix property of the constrained-decoding session on
 * real programs.
 *
 * usage: corpus_check FILE...
 * For each file, the parser (geno_parse) says whether it parses. If it
 * does, every prefix (at every byte) must be valid and the whole text
 * complete; if it does not, the whole text must not be complete. Each
 * file is fed in one session, one byte at a time, and the session state
 * is read after every byte. Prints one line per violation and a summary;
 * exit status 0 when there is none, 1 otherwise, 2 on usage/I/O errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <geno.h>

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      char *p = realloc(buf, cap * 2);
      if (!p) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = p;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  *len = n;
  return buf;
}

static bool parses(const char *src, size_t len, const char *name) {
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.max_source_bytes = 0;
  cfg.max_total_source_bytes = 0;
  geno_result *r = geno_parse(src, len, name, &cfg);
  bool ok = r && geno_result_ok(r) && geno_result_diagnostic_count(r) == 0;
  geno_result_free(r);
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: corpus_check FILE...\n");
    return 2;
  }
  int bad = 0, files = 0, good_files = 0;
  size_t bytes = 0;
  for (int a = 1; a < argc; a++) {
    size_t len;
    char *src = read_all(argv[a], &len);
    if (!src) {
      fprintf(stderr, "corpus_check: cannot read %s\n", argv[a]);
      return 2;
    }
    files++;
    bool ok = parses(src, len, argv[a]);
    good_files += ok;
    geno_constrain *s = geno_constrain_new();
    if (!s) return 2;
    size_t i = 0;
    for (; i < len; i++) {
      if (!geno_constrain_feed(s, src + i, 1)) break;
      (void)geno_constrain_state(s);
    }
    bytes += i;
    geno_constrain_status st = geno_constrain_state(s);
    if (ok && i < len) {
      /* show the line of the failure */
      size_t ls = i;
      while (ls > 0 && src[ls - 1] != '\n') ls--;
      size_t le = i;
      while (le < len && src[le] != '\n') le++;
      printf("%s: prefix of %zu bytes called invalid (%s): %.*s<<HERE>>%.*s\n", argv[a], i + 1,
             geno_constrain_error(s), (int)(i - ls), src + ls, (int)(le - i), src + i);
      bad++;
    } else if (ok && st != GENO_CONSTRAIN_COMPLETE) {
      printf("%s: parses but the session does not call it complete\n", argv[a]);
      bad++;
    } else if (!ok && st == GENO_CONSTRAIN_COMPLETE) {
      printf("%s: does not parse but the session calls it complete\n", argv[a]);
      bad++;
    }
    geno_constrain_free(s);
    free(src);
  }
  printf("corpus_check: %d files (%d parse), %zu bytes fed, %d violations\n", files, good_files, bytes, bad);
  return bad ? 1 : 0;
}
