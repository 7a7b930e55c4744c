/* parse_file: test driver that parses one file through the public API with
 * the source-size limits lifted, for tests/gen_bad_inputs.py (hostile and
 * huge inputs that `geno check` would refuse as too large).
 *
 * usage: parse_file FILE
 * Prints one line per diagnostic, "E201 3:5 message" (newlines in the
 * message escaped), then "imports N" from geno_source_imports on the same
 * text, "parse_ms T" (the CPU time geno_parse took: unlike wall time it
 * does not grow when the machine is busy) and "peak_rss_kb K" (the
 * process's high-water mark, from /proc; absent elsewhere). Exit status: 0 no diagnostics, 1 diagnostics, 2 usage or I/O
 * error, 3 geno_parse and geno_source_imports disagree about lexical
 * validity (geno_source_imports fails exactly on a lexical error, E1xx). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <geno.h>

/* Generated inputs stay well below this; it only bounds the read. */
#define MAX_INPUT_BYTES ((size_t)256 << 20)

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      if (cap >= MAX_INPUT_BYTES) {
        free(buf);
        buf = NULL;
        break;
      }
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

/* Peak resident memory of this process in KiB (VmHWM), or -1. Unlike
 * getrusage's ru_maxrss it does not include the parent's memory before
 * exec, so a test runner that holds big inputs does not inflate it. */
static long peak_rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  fclose(f);
  return kb;
}

static double cpu_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void print_escaped(const char *s) {
  for (; *s; s++) {
    if (*s == '\n') fputs("\\n", stdout);
    else if (*s == '\r') fputs("\\r", stdout);
    else putchar(*s);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: parse_file FILE\n");
    return 2;
  }
  size_t len = 0;
  char *src = read_all(argv[1], &len);
  if (!src) {
    fprintf(stderr, "parse_file: cannot read %s\n", argv[1]);
    return 2;
  }
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.max_source_bytes = 0; /* no limit: the parser itself is under test */
  cfg.max_total_source_bytes = 0;
  double t0 = cpu_ms();
  geno_result *r = geno_parse(src, len, argv[1], &cfg);
  double parse_ms = cpu_ms() - t0;
  if (!r) {
    fprintf(stderr, "parse_file: out of memory\n");
    free(src);
    return 2;
  }
  size_t n = geno_result_diagnostic_count(r);
  for (size_t i = 0; i < n; i++) {
    const geno_diagnostic *d = geno_result_diagnostic(r, i);
    printf("%s %d:%d ", d->code, d->line, d->column);
    print_escaped(d->message);
    putchar('\n');
  }
  bool ok = geno_result_ok(r);
  bool lexical_error = false;
  for (size_t i = 0; i < n; i++) {
    int code = geno_result_diagnostic(r, i)->code_number;
    lexical_error |= code >= 100 && code < 200;
  }
  geno_result_free(r);

  char **names = NULL;
  int count = geno_source_imports(src, len, &names);
  printf("imports %d\n", count);
  printf("parse_ms %.1f\n", parse_ms);
  long rss = peak_rss_kb();
  if (rss >= 0) printf("peak_rss_kb %ld\n", rss);
  geno_strings_free(names, count > 0 ? (size_t)count : 0);
  free(src);
  if (lexical_error != (count < 0)) {
    fprintf(stderr, "parse_file: geno_parse %s a lexical error but geno_source_imports returned %d\n",
            lexical_error ? "reports" : "reports no", count);
    return 3;
  }
  return ok ? 0 : 1;
}
