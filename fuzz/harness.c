/* The run harness shared by fuzz_run and fuzz_gen (see harness.h): the
 * fuzzing configuration, fake host callbacks, a JSON validator, an
 * allocation counter, and the checks made on every result. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <geno.h>

#include <sanitizer/allocator_interface.h>

_Noreturn void fz_fail(const char *what, const char *file, int line) {
  fprintf(stderr, "\n*** fuzz property failed: %s (%s:%d)\n", what, file, line);
  __builtin_trap();
}

/* ---- allocation counter ----------------------------------------------------
 * Live bytes handed out by malloc while a run is in progress, and their
 * peak, through the sanitizer allocator's hooks (they see every malloc,
 * GMP's, PCRE2's and the checker's included). */

#define FZ_MEMORY_BUDGET ((int64_t)FZ_HEAP_BYTES + ((int64_t)32 << 20))

static bool counting;
static bool verbose; /* FUZZ_VERBOSE set: one line per run on stderr */
static int64_t live_bytes, peak_bytes;

static void on_malloc(const volatile void *ptr, size_t size) {
  (void)ptr;
  if (!counting) return;
  live_bytes += (int64_t)size;
  if (live_bytes > peak_bytes) peak_bytes = live_bytes;
}

static void on_free(const volatile void *ptr) {
  if (!counting || !ptr) return;
  live_bytes -= (int64_t)__sanitizer_get_allocated_size((const void *)ptr);
}

void fz_init(void) {
  static bool done;
  if (done) return;
  done = true;
  verbose = getenv("FUZZ_VERBOSE") != NULL;
  clearenv();
  __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}

/* ---- fake host callbacks ---------------------------------------------------
 * Deterministic stand-ins for the host: the first String argument picks
 * the behaviour, so programs reach every path of the callback plumbing:
 *   "err..."  the callback fails with a message (E499 in the program);
 *   "bad..."  it returns a value of the wrong type;
 *   "none..." it returns NULL without a message (a broken host);
 *   "big..."  it returns a String over max_collection_size;
 *   anything else: a well-typed fixed value. */

static geno_value *str(const char *s) { return geno_value_new_string(s, strlen(s)); }

static geno_value *ctor3(const char *name, const char *f0, geno_value *v0, const char *f1,
                         geno_value *v1, const char *f2, geno_value *v2) {
  const char *names[3] = {f0, f1, f2};
  geno_value *fields[3] = {v0, v1, v2};
  return geno_value_new_ctor(name, names, fields, 3);
}

static geno_value *pair_list(void) {
  geno_value *t[2] = {str("content-type"), str("text/plain")};
  geno_value *items[1] = {geno_value_new_tuple(t, 2)};
  return geno_value_new_list(items, 1);
}

static geno_value *fake_host(const char *name, const geno_value *const *args, size_t nargs,
                             void *userdata, char **error) {
  (void)userdata;
  const char *arg = "";
  size_t alen = 0;
  for (size_t i = 0; i < nargs; i++)
    if (geno_value_type(args[i]) == GENO_STRING) {
      arg = geno_value_string(args[i], &alen);
      break;
    }
  if (alen >= 3 && memcmp(arg, "err", 3) == 0) {
    *error = strdup("fake host failure");
    return NULL;
  }
  if (alen >= 3 && memcmp(arg, "bad", 3) == 0) return geno_value_new_int(7);
  if (alen >= 4 && memcmp(arg, "none", 4) == 0) return NULL;
  if (alen >= 3 && memcmp(arg, "big", 3) == 0) {
    size_t n = FZ_MAX_COLLECTION + 10;
    char *s = malloc(n);
    if (!s) return NULL;
    memset(s, 'x', n);
    geno_value *v = geno_value_new_string(s, n);
    geno_free(s);
    return v;
  }
  if (strcmp(name, "sleep_ms") == 0 || strcmp(name, "fs_write_text") == 0 ||
      strcmp(name, "http_listen") == 0 || strcmp(name, "http_route") == 0)
    return geno_value_new_unit();
  if (strcmp(name, "fs_exists") == 0) return geno_value_new_bool(alen % 2 == 0);
  if (strcmp(name, "fs_read_text") == 0 || strcmp(name, "http_fetch") == 0 ||
      strcmp(name, "http_post") == 0)
    return geno_value_new_string(arg, alen);
  if (strcmp(name, "fs_canonicalize") == 0) return geno_value_new_ok(str("/fake/path"));
  if (strcmp(name, "stdin_read_all") == 0) return geno_value_new_ok(str("line one\nline two\n"));
  if (strcmp(name, "fs_list_dir") == 0) {
    geno_value *items[2] = {str("a.txt"), str("b")};
    return geno_value_new_ok(geno_value_new_list(items, 2));
  }
  if (strcmp(name, "fs_metadata") == 0 || strcmp(name, "fs_symlink_metadata") == 0)
    return geno_value_new_ok(ctor3("FileMetadata", "kind", geno_value_new_ctor("FileKindFile", NULL, NULL, 0),
                                   "size", geno_value_new_int(3), "modified_ms", geno_value_new_int(0)));
  if (strcmp(name, "http_request") == 0)
    return geno_value_new_ok(ctor3("HttpResponse", "status", geno_value_new_int(200), "body", str("ok"),
                                   "headers", pair_list()));
  if (strncmp(name, "exec", 4) == 0 || strncmp(name, "spawn", 5) == 0)
    return geno_value_new_ok(ctor3("ProcessResult", "exit_code", geno_value_new_int(0), "stdout",
                                   geno_value_new_string(arg, alen), "stderr", str("")));
  *error = strdup("fake host: no such callback");
  return NULL;
}

static const char *const callback_names[] = {
    "fs_canonicalize", "fs_exists",  "fs_list_dir", "fs_metadata",  "fs_read_text",
    "fs_symlink_metadata", "fs_write_text", "http_fetch", "http_listen", "http_post",
    "http_request", "http_route", "exec", "exec_with_input", "spawn",
    "spawn_with_input", "stdin_read_all", "sleep_ms",
};
#define NCALLBACKS (sizeof callback_names / sizeof callback_names[0])

/* A module the programs may import (`import Fz`, `Fz.twice(3)`). */
static const char fz_module[] =
    "export func twice(x: Int) -> Int\n  example 2 -> 4\n  return x * 2\nend func\n"
    "export type Pair = Pair(a: Int, b: String)\n"
    "export func label(p: Pair) -> String\n  example Pair(1, \"x\") -> \"x1\"\n"
    "  return p.b + to_string(p.a)\nend func\n";

/* ---- JSON validator -----------------------------------------------------------
 * RFC 8259 syntax, iterative (results can nest as deep as values do), and
 * the text must be valid UTF-8 without raw control characters in strings. */

static bool utf8_ok(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    if (c < 0x80) { i++; continue; }
    int k;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF) { k = 1; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { k = 2; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { k = 3; cp = c & 0x07; }
    else return false;
    for (int j = 1; j <= k; j++) {
      if (i + (size_t)j >= n || (s[i + j] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + j] & 0x3F);
    }
    if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += (size_t)k + 1;
  }
  return true;
}

static size_t count_code_points(const char *s, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

static void skip_ws(const char *s, size_t n, size_t *i) {
  while (*i < n && (s[*i] == ' ' || s[*i] == '\t' || s[*i] == '\n' || s[*i] == '\r')) (*i)++;
}

static bool json_string(const char *s, size_t n, size_t *i) {
  if (*i >= n || s[*i] != '"') return false;
  (*i)++;
  while (*i < n) {
    unsigned char c = (unsigned char)s[*i];
    if (c == '"') { (*i)++; return true; }
    if (c < 0x20) return false;
    if (c == '\\') {
      (*i)++;
      if (*i >= n) return false;
      char e = s[*i];
      if (e == 'u') {
        for (int k = 1; k <= 4; k++)
          if (*i + (size_t)k >= n || !strchr("0123456789abcdefABCDEF", s[*i + k]) || !s[*i + k]) return false;
        *i += 4;
      } else if (!strchr("\"\\/bfnrt", e) || !e) {
        return false;
      }
    }
    (*i)++;
  }
  return false;
}

static bool json_number(const char *s, size_t n, size_t *i) {
  size_t j = *i;
  if (j < n && s[j] == '-') j++;
  if (j >= n) return false;
  if (s[j] == '0') j++;
  else if (s[j] >= '1' && s[j] <= '9') while (j < n && s[j] >= '0' && s[j] <= '9') j++;
  else return false;
  if (j < n && s[j] == '.') {
    j++;
    if (j >= n || s[j] < '0' || s[j] > '9') return false;
    while (j < n && s[j] >= '0' && s[j] <= '9') j++;
  }
  if (j < n && (s[j] == 'e' || s[j] == 'E')) {
    j++;
    if (j < n && (s[j] == '+' || s[j] == '-')) j++;
    if (j >= n || s[j] < '0' || s[j] > '9') return false;
    while (j < n && s[j] >= '0' && s[j] <= '9') j++;
  }
  *i = j;
  return true;
}

static bool json_valid(const char *s, size_t n) {
  if (!utf8_ok((const unsigned char *)s, n)) return false;
  size_t cap = 64, depth = 0, i = 0;
  char *stack = malloc(cap);
  if (!stack) return true; /* cannot check without memory; not a finding */
  bool ok = false;
  for (;;) {
    /* A value. */
    skip_ws(s, n, &i);
    if (i >= n) goto out;
    char c = s[i];
    if (c == '[' || c == '{') {
      if (depth == cap) {
        char *p = realloc(stack, cap * 2);
        if (!p) { ok = true; goto out; }
        stack = p;
        cap *= 2;
      }
      stack[depth++] = c;
      i++;
      skip_ws(s, n, &i);
      if (i < n && s[i] == (c == '[' ? ']' : '}')) {
        depth--;
        i++;
      } else {
        if (c == '{') {
          if (!json_string(s, n, &i)) goto out;
          skip_ws(s, n, &i);
          if (i >= n || s[i] != ':') goto out;
          i++;
        }
        continue;
      }
    } else if (c == '"') {
      if (!json_string(s, n, &i)) goto out;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      if (!json_number(s, n, &i)) goto out;
    } else if (n - i >= 4 && memcmp(s + i, "true", 4) == 0) {
      i += 4;
    } else if (n - i >= 5 && memcmp(s + i, "false", 5) == 0) {
      i += 5;
    } else if (n - i >= 4 && memcmp(s + i, "null", 4) == 0) {
      i += 4;
    } else {
      goto out;
    }
    /* After a value: close containers, or a comma and the next value. */
    for (;;) {
      skip_ws(s, n, &i);
      if (depth == 0) {
        ok = i == n;
        goto out;
      }
      if (i >= n) goto out;
      char top = stack[depth - 1];
      if (s[i] == (top == '[' ? ']' : '}')) {
        depth--;
        i++;
        continue;
      }
      if (s[i] != ',') goto out;
      i++;
      if (top == '{') {
        skip_ws(s, n, &i);
        if (!json_string(s, n, &i)) goto out;
        skip_ws(s, n, &i);
        if (i >= n || s[i] != ':') goto out;
        i++;
      }
      break;
    }
  }
out:
  free(stack);
  return ok;
}

/* ---- result checks ------------------------------------------------------------ */

static bool valid_code(int c) {
  return (c >= 100 && c <= 103) || (c >= 200 && c <= 204) || (c >= 300 && c <= 312) ||
         (c >= 400 && c <= 413) || c == 499 || (c >= 500 && c <= 505);
}

/* Codes the front end and checker give; each must point into a source. */
static bool front_end_code(int c) {
  return (c >= 100 && c <= 103) || (c >= 200 && c <= 203) || (c >= 300 && c <= 312);
}

static int count_lines(const char *s, size_t n) {
  int lines = 1;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '\n' || (s[i] == '\r' && !(i + 1 < n && s[i + 1] == '\n'))) lines++;
  return lines;
}

/* Every accessor of a returned value, to a bounded depth (values may nest
 * deeper than a C stack should recurse here; the library's own
 * conversions below must cope with any depth). */
static void walk_value(const geno_value *v, int depth) {
  if (!v || depth > 64) return;
  geno_value_kind k = geno_value_type(v);
  FZ_CHECK(k >= GENO_UNIT && k <= GENO_OTHER);
  int64_t i64;
  (void)geno_value_int(v, &i64);
  if (k == GENO_INT) FZ_CHECK(geno_value_int_text(v) != NULL);
  size_t len;
  if (k == GENO_STRING) {
    const char *s = geno_value_string(v, &len);
    FZ_CHECK(s && utf8_ok((const unsigned char *)s, len));
  }
  if (k == GENO_CTOR || k == GENO_FUNCTION) FZ_CHECK(geno_value_name(v) != NULL);
  size_t n = geno_value_count(v);
  for (size_t i = 0; i < n; i++) {
    const geno_value *item = geno_value_item(v, i);
    FZ_CHECK(item != NULL);
    if (k == GENO_MAP) FZ_CHECK(geno_value_key(v, i) != NULL);
    if (k == GENO_CTOR) FZ_CHECK(geno_value_field_name(v, i) != NULL);
    walk_value(item, depth + 1);
    if (k == GENO_MAP) walk_value(geno_value_key(v, i), depth + 1);
  }
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Time a run may take: twice its timeout, in wall time AND in the
 * thread's CPU time (a run that overshoots only in wall time was starved
 * by a loaded machine; work the deadline failed to stop shows in both). GC-stress builds collect
 * before every allocation, so a single builtin call can legitimately take
 * long between two deadline polls; they get a wide margin. */
#ifdef GENO_GC_STRESS
#define FZ_RUN_MS_BOUND (FZ_TIMEOUT_S * 1000.0 * 30)
#else
#define FZ_RUN_MS_BOUND (FZ_TIMEOUT_S * 1000.0 * 2)
#endif

/* Steps past max_steps a run may report: the steps of straight-line code
 * are charged at the next branch, call or return, so the last charge can
 * overshoot by one basic block (bounded by the program's size). */
#define FZ_STEP_SLACK 64

static geno_metrics *metrics;
static unsigned long runs;

void fz_run_checked(const char *src, size_t len, const FzOptions *opt) {
  fz_init();
  geno_callback cbs[NCALLBACKS];
  for (size_t i = 0; i < NCALLBACKS; i++) cbs[i] = (geno_callback){callback_names[i], fake_host, NULL};
  static const char *const args[] = {"--flag", "value"};
  geno_module mods[1] = {{"Fz", fz_module, sizeof fz_module - 1}};

  geno_config cfg;
  geno_config_init(&cfg);
  uint64_t max_steps = opt->max_steps ? opt->max_steps : FZ_MAX_STEPS;
  cfg.max_steps = max_steps;
  cfg.timeout_s = FZ_TIMEOUT_S;
  cfg.max_recursion_depth = FZ_MAX_DEPTH;
  cfg.max_collection_size = opt->max_collection ? opt->max_collection : FZ_MAX_COLLECTION;
  cfg.max_output_length = FZ_MAX_OUTPUT;
  cfg.memory_bytes = FZ_HEAP_BYTES;
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT | GENO_CAP_CLOCK | GENO_CAP_RANDOM | GENO_CAP_FS | GENO_CAP_HTTP |
                     GENO_CAP_REGEX | GENO_CAP_ENV | GENO_CAP_PROCESS | GENO_CAP_STDIN | GENO_CAP_SERVE;
  cfg.callbacks = cbs;
  cfg.ncallbacks = NCALLBACKS;
  cfg.modules = mods;
  cfg.nmodules = 1;
  cfg.cli_args = args;
  cfg.ncli_args = 2;
  cfg.run_tests = opt->run_tests;
  cfg.check_examples = opt->check_examples;
  if (!metrics) metrics = geno_metrics_new("fuzz", NULL);
  cfg.monitor = geno_metrics_monitor;
  cfg.monitor_userdata = metrics;

  live_bytes = peak_bytes = 0;
  counting = true;
  double t0 = now_ms(), c0 = cpu_ms();
  geno_result *r = geno_run(src, len, "fuzz.geno", &cfg);
  double wall = now_ms() - t0, cpu = cpu_ms() - c0;
  counting = false;
  FZ_CHECK(r != NULL);
  if (verbose)
    fprintf(stderr, "fuzz run: %s ok=%d diags=%zu first=%s steps=%llu peak=%lld KiB wall=%.1f ms\n",
            opt->run_tests ? "test" : opt->check_examples ? "examples+main" : "main",
            geno_result_ok(r), geno_result_diagnostic_count(r),
            geno_result_diagnostic_count(r) ? geno_result_diagnostic(r, 0)->message : "-",
            (unsigned long long)geno_result_steps(r), (long long)(peak_bytes >> 10), wall);
  if (peak_bytes > FZ_MEMORY_BUDGET) {
    fprintf(stderr, "peak %lld bytes\n", (long long)peak_bytes);
    FZ_CHECK(!"a run allocated more than its memory budget");
  }

  /* Verdict and diagnostics. */
  size_t nd = geno_result_diagnostic_count(r);
  bool ok = geno_result_ok(r);
  FZ_CHECK(ok || nd > 0);
  FZ_CHECK(ok == (geno_result_outcome(r) == GENO_OUTCOME_SUCCESS));
  int lines = count_lines(src, len);
  bool front_end_error = false;
  for (size_t i = 0; i < nd; i++) {
    const geno_diagnostic *d = geno_result_diagnostic(r, i);
    FZ_CHECK(d && d->code && d->message && d->message[0] && d->severity);
    FZ_CHECK(valid_code(d->code_number));
    char want[16];
    snprintf(want, sizeof want, "E%03d", d->code_number);
    FZ_CHECK(strcmp(want, d->code) == 0);
    FZ_CHECK(utf8_ok((const unsigned char *)d->message, strlen(d->message)));
    if (strcmp(d->severity, "error") == 0) FZ_CHECK(!ok);
    if (front_end_code(d->code_number)) {
      front_end_error = true;
      FZ_CHECK(d->line >= 1 && d->column >= 1 && d->filename);
      if (strcmp(d->filename, "fuzz.geno") == 0) FZ_CHECK(d->line <= lines);
    }
  }
  if (opt->expect_clean && front_end_error) {
    fprintf(stderr, "generated program rejected:\n%.*s\n--\n%s: %s (line %d)\n", (int)len, src,
            geno_result_diagnostic(r, 0)->code, geno_result_diagnostic(r, 0)->message,
            geno_result_diagnostic(r, 0)->line);
    FZ_CHECK(!"a generated program failed to check");
  }

  /* Output: valid UTF-8 within max_output_length characters. */
  size_t olen;
  const char *out = geno_result_output(r, &olen);
  FZ_CHECK(out != NULL);
  FZ_CHECK(utf8_ok((const unsigned char *)out, olen));
  FZ_CHECK(count_code_points(out, olen) <= FZ_MAX_OUTPUT);

  /* Steps and time. */
  FZ_CHECK(geno_result_steps(r) <= max_steps + FZ_STEP_SLACK + len);
  geno_timing t = geno_result_timing(r);
  if (t.run_ms > FZ_RUN_MS_BOUND && cpu > FZ_RUN_MS_BOUND) {
    fprintf(stderr, "run took %.0f ms (wall %.0f ms, CPU %.0f ms)\n", t.run_ms, wall, cpu);
    FZ_CHECK(!"a run took more than twice its timeout");
  }

  /* The value and the JSON forms. */
  const char *vj = geno_result_value_json(r);
  FZ_CHECK(vj && json_valid(vj, strlen(vj)));
  const geno_value *v = geno_result_value(r);
  if (v) {
    walk_value(v, 0);
    char *s = geno_value_to_string(v);
    if (s) {
      FZ_CHECK(utf8_ok((const unsigned char *)s, strlen(s)));
      geno_free(s);
    }
    char *j = geno_value_to_json(v);
    if (j) {
      FZ_CHECK(json_valid(j, strlen(j)));
      geno_free(j);
    }
  }
  const char *vt = geno_result_value_text(r);
  if (vt) FZ_CHECK(utf8_ok((const unsigned char *)vt, strlen(vt)));
  size_t frames = 0;
  const char *file;
  int line, col;
  while (geno_result_trace(r, frames, &file, &line, &col)) {
    FZ_CHECK(frames < 100000);
    frames++;
  }
  char *json = geno_result_to_json(r);
  if (json) {
    if (!json_valid(json, strlen(json))) {
      fprintf(stderr, "invalid result JSON:\n%s\n", json);
      FZ_CHECK(!"geno_result_to_json is not valid JSON");
    }
    geno_free(json);
  }
  geno_result_free(r);

  /* Now and then, the metrics renderings of everything recorded so far. */
  if (++runs % 4096 == 0) {
    char *snap = geno_metrics_snapshot_json(metrics);
    if (snap) {
      FZ_CHECK(json_valid(snap, strlen(snap)));
      geno_free(snap);
    }
    geno_free(geno_metrics_prometheus(metrics));
  }
}
