/* Where `geno serve`'s spawners go: how many, bound to which CPUs, and
 * whether a run's supervising thread follows its spawner's CPU.
 *
 * Operators say it with GENO_SPAWNER_CPUS (a CPU list) and GENO_SPAWNERS
 * (a count); by default (`auto`) the server measures at start whether
 * forking scales across the CPUs it may use, and picks the layout:
 *
 * - it scales (bare metal, most hypervisors): one spawner per CPU, each
 *   bound with its children to its CPU, the worker threads following
 *   (spawners.c says why);
 * - it does not (a paravirtualised guest with shadow page tables, where
 *   page-table work on two CPUs at once is serialised by the hypervisor:
 *   two CPUs forking at once there fork less than one alone): one
 *   spawner, bound to the last CPU, the server's own threads left to the
 *   scheduler. docs/deploy.md ("One spawner per CPU") has the figures.
 *
 * The measurement: one helper process per CPU, forked from the server
 * before its threads start and bound to its CPU, runs trivial
 * fork + _exit + waitpid loops for a short window, first the last CPU's
 * helper alone, then all at once, in a few alternating rounds. What is
 * compared is CPU time per fork (the helper's and its reaped children's),
 * not wall time: CPU time is what contention in the hypervisor inflates
 * (the CPU spins there), and unlike wall time it barely depends on what
 * else the machine runs. The whole of it is capped in wall time; a run
 * that does not finish in time (a loaded machine) keeps the per-CPU
 * layout. It only picks a layout: every layout is correct. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

/* Each window of fork loops: long enough for several forks at this
 * machine's ~0.5-2.5 ms each, short enough that five rounds of two
 * windows stay near 150 ms. */
#define PLACE_WINDOW_US 15000u
/* Alternating rounds (alone, then all at once), each giving a ratio; the
 * median decides, so a round another process disturbed does not. */
#define PLACE_ROUNDS 5
/* The whole calibration, helpers' start and reaping included, never takes
 * longer than this: on a loaded machine start-up does not wait for it. */
#define PLACE_BUDGET_MS 300
/* A window stops after this many forks even if it has time left (a
 * machine forking in 20 microseconds needs no more to be measured). */
#define PLACE_MAX_FORKS 400
/* Helpers at most, on machines with more CPUs (the first ones listed). */
#define PLACE_MAX_HELPERS 64
/* All CPUs forking at once must fork at least this many times what one
 * CPU forks alone for one spawner per CPU to be worth it: between 1.0
 * (no gain) and the CPU count (perfect scaling), with room for noise. */
#define PLACE_MIN_SCALE 1.3

int srv_cpus_allowed(int *cpus, unsigned cap) {
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return 0;
  unsigned n = 0;
  for (int c = 0; c < CPU_SETSIZE && n < cap; c++)
    if (CPU_ISSET(c, &mine)) cpus[n++] = c;
  return (int)n;
}

/* A CPU number at *p (digits only); false when there is none or it is
 * too large to be a CPU. */
static bool cpu_number(const char **p, long *out) {
  const char *s = *p;
  if (*s < '0' || *s > '9') return false;
  long v = 0;
  while (*s >= '0' && *s <= '9') {
    v = v * 10 + (*s++ - '0');
    if (v > 1000000000) v = 1000000000; /* no such CPU: reported as one */
  }
  *p = s;
  *out = v;
  return true;
}

static void list_text(const int *cpus, unsigned n, char *out, size_t len) {
  size_t k = 0;
  out[0] = '\0';
  for (unsigned i = 0; i < n && k < len; i++) {
    unsigned j = i;
    while (j + 1 < n && cpus[j + 1] == cpus[j] + 1) j++;
    int w = j > i ? snprintf(out + k, len - k, "%s%d-%d", i ? "," : "", cpus[i], cpus[j])
                  : snprintf(out + k, len - k, "%s%d", i ? "," : "", cpus[i]);
    if (w > 0) k += (size_t)w;
    i = j;
  }
}

int srv_cpu_list_parse(const char *text, int *cpus, unsigned cap, unsigned *n, char *err, size_t errlen) {
  int allowed[CPU_SETSIZE];
  int nallowed = srv_cpus_allowed(allowed, CPU_SETSIZE);
  char mine[256];
  list_text(allowed, (unsigned)nallowed, mine, sizeof mine);
  *n = 0;
  const char *p = text;
  while (*p == ' ' || *p == '\t') p++;
  if (strncasecmp(p, "all", 3) == 0 && p[3 + strspn(p + 3, " \t")] == '\0') {
    for (int i = 0; i < nallowed && *n < cap; i++) cpus[(*n)++] = allowed[i];
    return 0;
  }
  for (;;) {
    long a, b;
    while (*p == ' ' || *p == '\t') p++;
    if (!cpu_number(&p, &a)) goto syntax;
    b = a;
    if (*p == '-') {
      p++;
      if (!cpu_number(&p, &b) || b < a) goto syntax;
    }
    for (long c = a; c <= b; c++) {
      bool ok = false;
      for (int i = 0; i < nallowed && !ok; i++) ok = allowed[i] == c;
      if (!ok) {
        snprintf(err, errlen, "GENO_SPAWNER_CPUS names CPU %ld, which this process may not use (its CPUs: %s)", c,
                 mine);
        return -1;
      }
      for (unsigned i = 0; i < *n; i++)
        if (cpus[i] == c) {
          snprintf(err, errlen, "GENO_SPAWNER_CPUS names CPU %ld twice: one spawner per CPU listed", c);
          return -1;
        }
      if (*n >= cap) { /* unreachable while cap >= the CPUs allowed */
        snprintf(err, errlen, "GENO_SPAWNER_CPUS names too many CPUs (at most %u)", cap);
        return -1;
      }
      cpus[(*n)++] = (int)c;
    }
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\0') return 0;
    if (*p++ != ',') goto syntax;
  }
syntax:
  snprintf(err, errlen,
           "GENO_SPAWNER_CPUS must be auto, all, or a list of CPU numbers and ranges such as 1, 0,2 or 0-3, "
           "got '%s'",
           text);
  return -1;
}

/* ---- the calibration ---- */

typedef struct {
  uint32_t helper;  /* which helper wrote it */
  uint32_t forks;   /* forks completed in the window; UINT32_MAX: ready */
  uint64_t cpu_ns;  /* the helper's CPU and its reaped children's, in the window */
} ForkSample;

static uint64_t mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t cpu_ns(void) {
  struct rusage self, kids;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  uint64_t us = (uint64_t)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                           kids.ru_stime.tv_sec) * 1000000u +
                (uint64_t)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                           kids.ru_stime.tv_usec);
  return us * 1000u;
}

static bool fork_once(void) {
  pid_t p = fork();
  if (p == 0) _exit(0);
  return p > 0 && waitpid(p, NULL, 0) == p;
}

/* A helper: bound to its CPU, it forks for each window the server asks
 * for and reports. System calls only (it is a fork of the server); it
 * dies with the server. */
static _Noreturn void helper_main(uint32_t index, int cpu, pid_t server, int cmd, int res) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != server) _exit(0);
  signal(SIGCHLD, SIG_DFL); /* reaped here, whatever the server inherited */
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) _exit(1);
  /* warm: the first forks pay for the helper's own copy-on-write faults */
  if (!fork_once() || !fork_once()) _exit(1);
  ForkSample s = {index, UINT32_MAX, 0};
  if (write(res, &s, sizeof s) != (ssize_t)sizeof s) _exit(1);
  uint32_t window_us;
  while (read(cmd, &window_us, sizeof window_us) == (ssize_t)sizeof window_us && window_us > 0) {
    uint64_t t0 = mono_ns(), c0 = cpu_ns(), end = t0 + (uint64_t)window_us * 1000u;
    uint32_t k = 0;
    while (k < PLACE_MAX_FORKS && mono_ns() < end && fork_once()) k++;
    s.forks = k;
    s.cpu_ns = cpu_ns() - c0;
    if (write(res, &s, sizeof s) != (ssize_t)sizeof s) _exit(1);
  }
  _exit(0);
}

/* Read `want` samples (or ready marks) into the sums; false at the
 * deadline or on a helper's failure. */
static bool collect(int res, unsigned want, uint64_t deadline, uint32_t *forks, uint64_t *cpu, unsigned nhelpers) {
  while (want > 0) {
    uint64_t now = mono_ns();
    if (now >= deadline) return false;
    struct pollfd pf = {res, POLLIN, 0};
    int r = poll(&pf, 1, (int)((deadline - now) / 1000000u) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    ForkSample s;
    if (read(res, &s, sizeof s) != (ssize_t)sizeof s || s.helper >= nhelpers) return false;
    if (s.forks != UINT32_MAX && forks) {
      forks[s.helper] += s.forks;
      cpu[s.helper] += s.cpu_ns;
    }
    want--;
  }
  return true;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n) (n > 0; sorts v). */
static double median(double *v, unsigned n) {
  qsort(v, n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool srv_fork_scaling(const int *cpus, unsigned n, SrvForkScaling *out) {
  memset(out, 0, sizeof *out);
  if (n > PLACE_MAX_HELPERS) n = PLACE_MAX_HELPERS;
  out->cpus = n;
  if (n < 2) {
    snprintf(out->why_not, sizeof out->why_not, "fewer than two CPUs");
    return false;
  }
  uint64_t start = mono_ns(), deadline = start + (uint64_t)PLACE_BUDGET_MS * 1000000u;
  pid_t helpers[PLACE_MAX_HELPERS];
  int cmd[PLACE_MAX_HELPERS];
  unsigned started = 0, rounds = 0;
  bool ok = true;
  int res[2];
  if (pipe2(res, O_CLOEXEC) != 0) {
    snprintf(out->why_not, sizeof out->why_not, "pipe: %s", strerror(errno));
    return false;
  }
  pid_t server = getpid();
  for (; started < n; started++) {
    int c[2];
    if (pipe2(c, O_CLOEXEC) != 0) break;
    pid_t p = fork();
    if (p == 0) {
      close(c[1]);
      close(res[0]);
      helper_main(started, cpus[started], server, c[0], res[1]);
    }
    close(c[0]);
    if (p < 0) {
      close(c[1]);
      break;
    }
    helpers[started] = p;
    cmd[started] = c[1];
  }
  close(res[1]);
  if (started < n) {
    snprintf(out->why_not, sizeof out->why_not, "a helper did not start: %s", strerror(errno));
    ok = false;
  } else if (!collect(res[0], n, deadline, NULL, NULL, n)) {
    snprintf(out->why_not, sizeof out->why_not, "the helpers were not ready within %d ms", PLACE_BUDGET_MS);
    ok = false;
  }
  uint32_t window = PLACE_WINDOW_US;
  double alone[PLACE_ROUNDS], together[PLACE_ROUNDS], scale[PLACE_ROUNDS]; /* rates per round */
  for (; ok && rounds < PLACE_ROUNDS;) {
    /* a round is two windows; none starts that could not end in time */
    if (mono_ns() + 2u * (uint64_t)window * 1000u >= deadline) break;
    uint32_t f[PLACE_MAX_HELPERS] = {0}, fa[PLACE_MAX_HELPERS] = {0};
    uint64_t c[PLACE_MAX_HELPERS] = {0}, ca[PLACE_MAX_HELPERS] = {0};
    ok = write(cmd[n - 1], &window, sizeof window) == (ssize_t)sizeof window &&
         collect(res[0], 1, deadline, fa, ca, n);
    for (unsigned i = 0; ok && i < n; i++) ok = write(cmd[i], &window, sizeof window) == (ssize_t)sizeof window;
    if (ok) ok = collect(res[0], n, deadline, f, c, n);
    if (!ok) {
      snprintf(out->why_not, sizeof out->why_not, "not done within %d ms", PLACE_BUDGET_MS);
      break;
    }
    /* forks per CPU-second: one CPU alone, all CPUs at once summed */
    bool counted = fa[n - 1] >= 2 && ca[n - 1] > 0;
    double sum = 0;
    for (unsigned i = 0; counted && i < n; i++) {
      counted = f[i] > 0 && c[i] > 0;
      if (counted) sum += f[i] * 1e9 / (double)c[i];
    }
    if (!counted) continue; /* a window too disturbed to count: the next */
    alone[rounds] = fa[n - 1] * 1e9 / (double)ca[n - 1];
    together[rounds] = sum;
    scale[rounds] = sum / alone[rounds];
    rounds++;
  }
  /* stop them: EOF on their command pipes ends them; at the deadline, a kill */
  for (unsigned i = 0; i < started; i++) close(cmd[i]);
  close(res[0]);
  for (unsigned i = 0; i < started; i++) {
    for (;;) {
      pid_t w = waitpid(helpers[i], NULL, WNOHANG);
      if (w == helpers[i] || (w < 0 && errno != EINTR)) break;
      if (mono_ns() >= deadline) {
        kill(helpers[i], SIGKILL);
        waitpid(helpers[i], NULL, 0);
        break;
      }
      struct timespec nap = {0, 200000};
      nanosleep(&nap, NULL);
    }
  }
  out->rounds = rounds;
  out->elapsed_ms = (double)(mono_ns() - start) / 1e6;
  if (rounds == 0) {
    if (ok) snprintf(out->why_not, sizeof out->why_not, "no round measured");
    return false;
  }
  /* medians: a round another process disturbed (its forks slowed in one
   * window and not the other) does not decide */
  out->alone_rate = median(alone, rounds);
  out->together_rate = median(together, rounds);
  out->scale = median(scale, rounds);
  out->why_not[0] = '\0';
  return true;
}

/* ---- the layout ---- */

int srv_spawner_layout(const SrvConfig *cfg, bool calibrate, SrvLayout *out) {
  memset(out, 0, sizeof *out);
  int *mine = malloc(CPU_SETSIZE * sizeof *mine);
  if (!mine) return -1;
  unsigned nmine = (unsigned)srv_cpus_allowed(mine, CPU_SETSIZE);
  char what[320] = "";
  const char *threads_why = "";
  if (cfg->nspawner_cpus > 0) { /* GENO_SPAWNER_CPUS: exactly those */
    memcpy(mine, cfg->spawner_cpus, cfg->nspawner_cpus * sizeof *mine);
    out->ncpus = cfg->nspawner_cpus;
    out->count = cfg->spawners ? cfg->spawners : out->ncpus;
    snprintf(what, sizeof what, "GENO_SPAWNER_CPUS");
  } else if (nmine <= 1) { /* nothing to choose */
    out->ncpus = 0;
    out->count = cfg->spawners ? cfg->spawners : 1;
    snprintf(what, sizeof what, "one CPU");
  } else if (cfg->spawners_given) { /* GENO_SPAWNERS: so many over every CPU (0: one each) */
    out->count = cfg->spawners ? cfg->spawners : nmine;
    out->ncpus = nmine;
    if (out->count == 1) mine[0] = mine[nmine - 1], out->ncpus = 1; /* the last CPU: the first takes more interrupts */
    snprintf(what, sizeof what, "GENO_SPAWNERS=%u", cfg->spawners);
  } else if (!calibrate) {
    out->count = out->ncpus = nmine;
    snprintf(what, sizeof what, "auto without calibration");
  } else {
    SrvForkScaling m;
    bool measured = srv_fork_scaling(mine, nmine, &m);
    if (measured && m.scale < PLACE_MIN_SCALE) {
      mine[0] = mine[nmine - 1];
      out->count = out->ncpus = 1;
    } else {
      out->count = out->ncpus = nmine;
    }
    if (measured)
      snprintf(what, sizeof what,
               "auto: %.0f forks per CPU-second on CPU %d alone, %.0f on %u CPUs at once (%.2fx: %s %.1fx; "
               "%u rounds in %.0f ms)",
               m.alone_rate, mine[nmine - 1], m.together_rate, m.cpus, m.scale,
               m.scale < PLACE_MIN_SCALE ? "under" : "at least", PLACE_MIN_SCALE, m.rounds, m.elapsed_ms);
    else
      snprintf(what, sizeof what, "auto: not measured (%s, after %.0f ms)", m.why_not, m.elapsed_ms);
  }
  if (out->ncpus > 0) {
    out->cpus = mine;
  } else {
    free(mine);
  }
  /* the threads follow their spawner only when the spawners are on
   * several CPUs: with one pinned spawner the server's threads are better
   * left to the scheduler (the measurement in docs/deploy.md) */
  unsigned distinct = out->ncpus < out->count ? out->ncpus : out->count;
  if (cfg->bind_threads >= 0) {
    out->bind_threads = cfg->bind_threads == 1 && out->ncpus > 0;
    threads_why = "GENO_SPAWNER_BIND_THREADS";
  } else {
    out->bind_threads = distinct > 1;
    threads_why = "default";
  }
  char cpus_text[256] = "";
  if (out->ncpus) list_text(out->cpus, out->ncpus, cpus_text, sizeof cpus_text);
  snprintf(out->text, sizeof out->text, "Spawner placement (%s): %u spawner%s %s%s; worker threads %s (%s)", what,
           out->count, out->count == 1 ? "" : "s", out->ncpus == 0 ? "not bound" : distinct > 1 ? "bound to CPUs " : "bound to CPU ",
           out->ncpus ? cpus_text : "", out->bind_threads ? "follow their spawner's CPU" : "not bound",
           threads_why);
  return 0;
}

void srv_layout_free(SrvLayout *layout) {
  free(layout->cpus);
  layout->cpus = NULL;
}
