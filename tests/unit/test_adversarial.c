/* Generated adversarial test: every builtin of the table (src/lib/
 * registry.c) called on hostile arguments (fuzz/hostile.c: values built by
 * sharing with 2^80 paths, values nested past the comparison bound, a
 * 1M-character String, lists of 65,536 references to one value, extreme
 * Ints, lambdas returning them), in-process, under a 1,000,000-step
 * budget, a 1 s timeout and 64 MiB of memory. Each run must end, ok or
 * with a diagnostic code, within 2 s (wall and CPU; a run over in wall
 * time only is tried once more, for loaded machines), and the process's
 * resident set may grow by no more than the budget plus RSS_MARGIN during
 * the run. Three argument choices per builtin, fixed (a seeded generator),
 * so failures reproduce; GENO_ADV_PRINT=name prints that builtin's
 * programs. */
#include <time.h>

#include "hostile.h"
#include "lib/builtins.h"
#include "unit.h"

#define VARIANTS 3
#define MEMORY_BUDGET ((uint64_t)64 << 20)
/* The VM's fixed structures (value stack pages, frames, pools), the front
 * end's arena and the allocator's slack, beyond the heap budget. */
#define RSS_MARGIN_KIB (96L << 10)

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long status_kib(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  size_t n = strlen(field);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0 && line[n] == ':') {
      kib = strtol(line + n + 1, NULL, 10);
      break;
    }
  fclose(f);
  return kib;
}

/* Resets VmHWM to the current resident set (Linux >= 4.0). */
static bool reset_peak(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  bool ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

typedef struct Rng {
  uint64_t s;
} Rng;

static uint32_t rng_choose(void *ctx, uint32_t n) {
  Rng *r = ctx;
  r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(r->s >> 33) % n;
}

static void test_every_builtin_on_hostile_arguments(void **state) {
  (void)state;
  size_t nb;
  const BuiltinDef *b = lib_builtins(&nb);
  const char *print_only = getenv("GENO_ADV_PRINT");
  static char src[1 << 17];
  int runs = 0, builtins = 0, unsupported = 0, rejected = 0, failures = 0, ok = 0, limits = 0;
  double worst = 0;
  const char *worst_name = "";
  bool can_reset = reset_peak();
  for (size_t i = 0; i < nb; i++) {
    if (!b[i].sig || (!b[i].fn && !(b[i].flags & BF_CALLBACK)) || (b[i].flags & BF_APP_STUB)) continue;
    Sig s;
    if (!gt_sig_parse(&s, b[i].name, b[i].sig)) {
      unsupported++;
      continue;
    }
    bool any = false;
    for (int v = 0; v < VARIANTS; v++) {
      Rng rng = {0x9e3779b97f4a7c15ULL * (i + 1) + (uint64_t)v * 0x632be59bd9b4e019ULL};
      if (!hostile_program(&s, rng_choose, &rng, src, sizeof src)) continue;
      any = true;
      bool show = print_only && strcmp(print_only, b[i].name) == 0;
      if (show) printf("---- %s variant %d\n%s", b[i].name, v, src);
      geno_config cfg;
      geno_config_init(&cfg);
      cfg.max_steps = 1000000;
      cfg.timeout_s = 1;
      cfg.memory_bytes = MEMORY_BUDGET;
      cfg.capabilities_set = true;
      cfg.capabilities = ~0u & ((1u << 10) - 1); /* every GENO_CAP_*; host callbacks: none (E413) */
      cfg.check_examples = false;
      if (can_reset) reset_peak();
      long rss0 = status_kib("VmRSS");
      double w0 = wall_s(), c0 = cpu_s();
      geno_result *r = geno_run(src, strlen(src), "hostile.geno", &cfg);
      double wall = wall_s() - w0, cpu = cpu_s() - c0;
      long peak = status_kib("VmHWM");
      runs++;
      assert_non_null(r);
      const char *codes = unit_codes(r);
      if (show) printf("=> %s %s (%.2f s)\n", geno_result_ok(r) ? "ok" : "error", codes, wall);
      if (geno_result_ok(r)) ok++;
      else if (geno_result_diagnostic_count(r) == 0) {
        printf("FAIL %s variant %d: failed without a diagnostic\n", b[i].name, v);
        failures++;
      } else if (codes[0] == 'E' && codes[1] == '3') {
        rejected++; /* the checker refused the generated program */
        if (show) printf("%s\n", geno_result_diagnostic(r, 0)->message);
      } else if (codes[0] == 'E' && codes[1] == '5') {
        limits++;
      }
      if (wall > worst) {
        worst = wall;
        worst_name = b[i].name;
      }
      if (cpu < 2.0 && wall >= 2.0) {
        /* over in wall time only: the machine may have starved this run,
         * so it gets one more try (work the deadline missed burns CPU) */
        double w1 = wall_s();
        geno_result *again = geno_run(src, strlen(src), "hostile.geno", &cfg);
        wall = wall_s() - w1;
        geno_result_free(again);
      }
      if (cpu >= 2.0 || wall >= 2.0) {
        printf("FAIL %s variant %d: %.2f s wall, %.2f s CPU (%s)\n", b[i].name, v, wall, cpu, codes);
        failures++;
      }
      if (can_reset && rss0 > 0 && peak > 0 && peak - rss0 > (long)(MEMORY_BUDGET >> 10) + RSS_MARGIN_KIB) {
        printf("FAIL %s variant %d: resident set grew by %ld MiB (%s)\n", b[i].name, v, (peak - rss0) >> 10, codes);
        failures++;
      }
      geno_result_free(r);
    }
    builtins += any;
  }
  printf("adversarial: %d builtins, %d runs (%d ok, %d limit codes, %d other errors, %d programs the checker "
         "refused), %d signatures unsupported, slowest %.2f s (%s), %d failures\n",
         builtins, runs, ok, limits, runs - ok - limits - rejected, rejected, unsupported, worst, worst_name,
         failures);
  assert_int_equal(failures, 0);
  /* the generator must reach nearly the whole table */
  assert_true(builtins * 10 >= (int)nb * 8);
  assert_true(rejected * 10 <= runs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_builtin_on_hostile_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
