/* A/B of two geno-spawner executables, run after run: what one sandboxed
 * child costs with each (docs/deploy.md, "Page faults per child").
 *
 *   cc -O2 -Iinclude -o /tmp/spawner_ab bench/serve/spawner_ab.c \
 *      -Lbuild -lgeno -Wl,-rpath,$PWD/build
 *   /tmp/spawner_ab SPAWNER_A SPAWNER_B [RUNS] [CPU]
 *
 * Starts both (geno_spawner_exec, bound to CPU when given) and alternates
 * geno_run_isolated between them, RUNS times each, so that whatever else
 * the machine does falls on both alike. Per run: the child's CPU time
 * (getrusage(RUSAGE_CHILDREN) around the run: a spawner's children are
 * the caller's, reaped inside the call), its page faults (ru_minflt) and
 * the spawner's CPU time (/proc/PID/schedstat, nanoseconds). Prints, for
 * each, the median and quartiles of the child's CPU, the mean spawner CPU
 * per run, the median wall time and the page faults per child. The
 * program is `return 6 * 7`, or the source in the environment variable
 * SRC. */
#include <geno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

static double micros(struct timeval t) { return (double)t.tv_sec * 1e6 + (double)t.tv_usec; }

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* CPU time of process pid so far, in microseconds (0 when unreadable). */
static double process_cpu_us(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
  FILE *f = fopen(path, "r");
  double ns = 0;
  if (f) {
    if (fscanf(f, "%lf", &ns) != 1) ns = 0;
    fclose(f);
  }
  return ns / 1e3;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s SPAWNER_A SPAWNER_B [RUNS] [CPU]\n", argv[0]);
    return 2;
  }
  int runs = argc > 3 ? atoi(argv[3]) : 1000;
  int cpu = argc > 4 ? atoi(argv[4]) : -1;
  if (runs < 1) return 2;
  geno_spawner *sp[2] = {geno_spawner_exec(argv[1], cpu), geno_spawner_exec(argv[2], cpu)};
  if (!sp[0] || !sp[1]) {
    fprintf(stderr, "spawner_ab: a spawner did not start\n");
    return 1;
  }
  const char *src = getenv("SRC") ? getenv("SRC") : "func main() -> Int\n    return 6 * 7\nend func\n";
  double *child[2], *wall[2], spawner_us[2] = {0, 0};
  long faults[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    child[k] = calloc((size_t)runs, sizeof(double));
    wall[k] = calloc((size_t)runs, sizeof(double));
    if (!child[k] || !wall[k]) return 1;
  }
  for (int i = 0; i < 2 * runs; i++) {
    int k = i % 2, n = i / 2;
    geno_config cfg;
    geno_config_init(&cfg);
    cfg.spawner = sp[k];
    struct rusage before, after;
    struct timeval t0, t1;
    double s0 = process_cpu_us(geno_spawner_pid(sp[k]));
    getrusage(RUSAGE_CHILDREN, &before);
    gettimeofday(&t0, NULL);
    geno_result *r = geno_run_isolated(src, strlen(src), "ab.geno", &cfg);
    gettimeofday(&t1, NULL);
    getrusage(RUSAGE_CHILDREN, &after);
    double s1 = process_cpu_us(geno_spawner_pid(sp[k]));
    if (!r || !geno_result_ok(r)) {
      fprintf(stderr, "spawner_ab: the run failed with %s\n", argv[1 + k]);
      return 1;
    }
    geno_result_free(r);
    child[k][n] = micros(after.ru_utime) + micros(after.ru_stime) - micros(before.ru_utime) -
                  micros(before.ru_stime);
    wall[k][n] = micros(t1) - micros(t0);
    faults[k] += after.ru_minflt - before.ru_minflt;
    spawner_us[k] += s1 - s0;
  }
  for (int k = 0; k < 2; k++) {
    qsort(child[k], (size_t)runs, sizeof(double), by_value);
    qsort(wall[k], (size_t)runs, sizeof(double), by_value);
    printf("%s: child CPU us median %.0f (p25 %.0f, p75 %.0f); spawner CPU us per run %.0f; "
           "wall us median %.0f; page faults per child %.1f\n",
           argv[1 + k], child[k][runs / 2], child[k][runs / 4], child[k][3 * runs / 4], spawner_us[k] / runs,
           wall[k][runs / 2], (double)faults[k] / runs);
    free(child[k]);
    free(wall[k]);
  }
  geno_spawner_free(sp[0]);
  geno_spawner_free(sp[1]);
  return 0;
}
