/* token_check: constrained decoding under a real model tokenizer.
 *
 * usage: token_check VOCAB TOKENS [--mask-every N] [--exact-every N] [--times FILE]
 * VOCAB: one token per line, its bytes in hex (tools/tokenizers/export.js);
 * TOKENS: lines "PATH<TAB>id id ...", the tokenization of each program.
 * Each program that parses (geno_parse) is decoded token by token in one
 * session: before every N-th token (default 1: every token) the mask is
 * computed and must contain that token; then the token is fed and the
 * text must stay valid; at the end it must be complete. With --times,
 * the microseconds of every feed and every mask are written to FILE
 * ("feed WALL CPU" / "mask WALL PATH INDEX CPU" lines, microseconds) for bench/constrain.sh. With
 * --exact-every N, before every N-th token the whole mask is checked
 * against the slow path: each token of the vocabulary fed to a clone of
 * the session, in the mask iff the clone stays valid.
 * Exit status 0 when every check holds, 1 otherwise, 2 on usage/I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <geno.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* CPU time of this thread: steadier than wall time on a loaded machine */
static double cpu_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: token_check VOCAB TOKENS [--mask-every N] [--times FILE]\n");
    return 2;
  }
  long every = 1, exact_every = 0;
  FILE *times = NULL;
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "--mask-every") == 0 && i + 1 < argc) every = strtol(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--exact-every") == 0 && i + 1 < argc) exact_every = strtol(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--times") == 0 && i + 1 < argc) times = fopen(argv[++i], "w");
    else return fprintf(stderr, "token_check: bad argument %s\n", argv[i]), 2;
  }
  if (every < 1) every = 1;
  size_t vlen, tlen;
  char *vtext = read_all(argv[1], &vlen), *ttext = read_all(argv[2], &tlen);
  if (!vtext || !ttext) return fprintf(stderr, "token_check: cannot read input\n"), 2;
  /* vocabulary: decode hex in place */
  size_t n = 0, cap = 1024;
  char **toks = malloc(cap * sizeof *toks);
  size_t *lens = malloc(cap * sizeof *lens);
  for (char *p = vtext; p < vtext + vlen;) {
    char *e = strchr(p, '\n');
    if (!e) e = vtext + vlen;
    if (n == cap) {
      cap *= 2;
      toks = realloc(toks, cap * sizeof *toks);
      lens = realloc(lens, cap * sizeof *lens);
    }
    size_t k = 0;
    for (char *q = p; q + 1 < e; q += 2) p[k++] = (char)(hexval(q[0]) * 16 + hexval(q[1]));
    toks[n] = p;
    lens[n] = k;
    n++;
    p = e + 1;
  }
  double t0 = now_us();
  geno_constrain_vocab *v = geno_constrain_vocab_new((const char *const *)toks, lens, n);
  double build_ms = (now_us() - t0) / 1e3;
  if (!v) return fprintf(stderr, "token_check: out of memory\n"), 2;
  uint64_t *bits = malloc((n + 63) / 64 * sizeof *bits);
  int bad = 0, programs = 0;
  long fed = 0, masks = 0, exact_checks = 0;
  double feed_total = 0, mask_total = 0;
  char *text = NULL;
  size_t text_cap = 0;
  for (char *line = ttext; line < ttext + tlen;) {
    char *e = strchr(line, '\n');
    if (!e) e = ttext + tlen;
    *e = '\0';
    char *tab = strchr(line, '\t');
    if (!tab) {
      line = e + 1;
      continue;
    }
    *tab = '\0';
    const char *path = line;
    /* ids, and the program's text */
    size_t nids = 0, idcap = 256, tl = 0;
    long *ids = malloc(idcap * sizeof *ids);
    for (char *q = tab + 1; *q;) {
      char *end;
      long id = strtol(q, &end, 10);
      if (end == q) break;
      if (id < 0 || (size_t)id >= n) return fprintf(stderr, "token_check: bad id in %s\n", path), 2;
      if (nids == idcap) ids = realloc(ids, (idcap *= 2) * sizeof *ids);
      ids[nids++] = id;
      if (tl + lens[id] + 1 > text_cap) text = realloc(text, text_cap = (tl + lens[id] + 1) * 2);
      memcpy(text + tl, toks[id], lens[id]);
      tl += lens[id];
      q = end;
    }
    geno_result *r = geno_parse(text ? text : "", tl, path, NULL);
    bool ok = r && geno_result_ok(r) && geno_result_diagnostic_count(r) == 0;
    geno_result_free(r);
    if (ok) {
      programs++;
      geno_constrain *s = geno_constrain_new();
      for (size_t j = 0; j < nids; j++) {
        long id = ids[j];
        if ((long)j % every == 0) {
          double a = now_us(), ac = cpu_us();
          geno_constrain_mask(s, v, bits);
          double d = now_us() - a, dc = cpu_us() - ac;
          mask_total += d;
          masks++;
          if (times) fprintf(times, "mask %.2f %s %zu %.2f\n", d, path, j, dc);
          if (!((bits[id / 64] >> (id % 64)) & 1)) {
            printf("%s: token %zu (id %ld) is not in the mask\n", path, j, id);
            bad++;
            break;
          }
        }
        if (exact_every > 0 && fed % exact_every == exact_every / 2) { /* spread over the whole run */
          size_t count = geno_constrain_mask(s, v, bits), want = 0;
          for (size_t t = 0; t < n; t++) {
            geno_constrain *c = geno_constrain_clone(s);
            bool keeps = c && geno_constrain_feed(c, toks[t], lens[t]);
            geno_constrain_free(c);
            want += keeps;
            if (keeps != ((bits[t / 64] >> (t % 64)) & 1)) {
              printf("%s: before token %zu, vocabulary token %zu is %s the mask but %s the text valid\n", path, j, t,
                     keeps ? "not in" : "in", keeps ? "keeps" : "does not keep");
              bad++;
              break;
            }
          }
          exact_checks++;
          if (count != want && !bad) {
            printf("%s: before token %zu, mask counts %zu, slow path %zu\n", path, j, count, want);
            bad++;
          }
        }
        double a = now_us(), ac = cpu_us();
        bool still = geno_constrain_feed(s, toks[id], lens[id]);
        double d = now_us() - a, dc = cpu_us() - ac;
        feed_total += d;
        fed++;
        if (times) fprintf(times, "feed %.3f %.3f\n", d, dc);
        if (!still) {
          printf("%s: token %zu (id %ld) made the text invalid: %s\n", path, j, id, geno_constrain_error(s));
          bad++;
          break;
        }
      }
      if (geno_constrain_state(s) != GENO_CONSTRAIN_COMPLETE) {
        printf("%s: decoded text is not complete\n", path);
        bad++;
      }
      geno_constrain_free(s);
    }
    free(ids);
    line = e + 1;
  }
  printf("token_check: %zu tokens (vocabulary built in %.0f ms), %d programs, %ld tokens fed (%.2f us each), "
         "%ld masks (%.1f us mean), %ld masks checked against the slow path, %d failures\n",
         n, build_ms, programs, fed, fed ? feed_total / fed : 0, masks, masks ? mask_total / masks : 0, exact_checks,
         bad);
  if (times) fclose(times);
  geno_constrain_vocab_free(v);
  free(bits);
  free(text);
  free(toks);
  free(lens);
  free(vtext);
  free(ttext);
  return bad ? 1 : 0;
}
