/* The spawners a server's children fork from: one per CPU the process may
 * use, each bound to its CPU together with every child it forks, and the
 * worker thread that supervises a run bound to the same CPU while it does;
 * or, where forking does not scale across CPUs, one spawner bound to one
 * CPU (placement.c chooses).
 *
 * Why: a child's life (the fork, its page faults, the TLB flushes of its
 * copy-on-write pages, its exit) costs about twice the CPU when the
 * spawner, the child and the supervising thread run on different CPUs
 * (docs/deploy.md, "Size it": on a paravirtualised guest each cross-CPU
 * flush and wake-up goes through the hypervisor). With one spawner per
 * CPU a run never leaves the CPU it started on, and the CPUs together
 * run as many children as they can each alone.
 *
 * Choice: a run goes to the spawner with the fewest runs in flight, the
 * thread's own (the one it ran its last run on) when it ties, so that a
 * thread changes CPU only when the load asks for it (one system call). A
 * spawner that died (killed from outside) is skipped from then on and
 * /healthz reports it; it is not replaced, because a new one could only
 * be forked from the server as it is now, with other requests' data in
 * its memory, which every child of it would inherit. With none left, the
 * runs fork from the server itself (sbx_run's fallback) and /healthz
 * reports failure. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

struct SrvSpawners {
  unsigned n;
  geno_spawner **s;
  int *cpu;            /* the CPU each is bound to (-1: none) */
  atomic_uint *busy;   /* runs in flight on each */
  atomic_ullong *runs; /* runs started on each */
  bool bind_threads;   /* bind the supervising thread to its run's CPU */
};

/* The spawner the calling thread last used (its index + 1; 0: none yet). */
static _Thread_local unsigned thread_home;

SrvSpawners *srv_spawners_start(unsigned count, const int *cpus, unsigned ncpus, bool bind_threads, const char *exe) {
  if (count == 0) count = 1;
  if (!cpus) ncpus = 0;
  SrvSpawners *set = calloc(1, sizeof *set);
  if (!set) return NULL;
  set->s = calloc(count, sizeof *set->s);
  set->cpu = calloc(count, sizeof *set->cpu);
  set->busy = calloc(count, sizeof *set->busy);
  set->runs = calloc(count, sizeof *set->runs);
  if (!set->s || !set->cpu || !set->busy || !set->runs) {
    srv_spawners_free(set);
    errno = ENOMEM;
    return NULL;
  }
  set->bind_threads = ncpus > 0 && bind_threads;
  int err = 0;
  for (unsigned i = 0; i < count; i++) {
    int cpu = ncpus ? cpus[i % ncpus] : -1;
    geno_spawner *sp = NULL;
    if (exe && *exe) {
      sp = geno_spawner_exec(exe, cpu);
      if (!sp)
        srv_log(SRV_LOG_WARNING, "spawner %u (CPU %d): %s did not start (%s): forked from the server instead", i,
                cpu, exe, strerror(errno));
    }
    if (!sp) sp = geno_spawner_start_on(cpu);
    if (!sp) {
      err = errno;
      srv_log(SRV_LOG_WARNING, "spawner %u (CPU %d) did not start: %s", i, cpu, strerror(err));
      continue;
    }
    set->s[set->n] = sp;
    set->cpu[set->n] = cpu;
    set->n++;
  }
  if (set->n == 0) {
    srv_spawners_free(set);
    errno = err ? err : EAGAIN;
    return NULL;
  }
  return set;
}

void srv_spawners_free(SrvSpawners *set) {
  if (!set) return;
  for (unsigned i = 0; set->s && i < set->n; i++) geno_spawner_free(set->s[i]);
  free(set->s);
  free(set->cpu);
  free((void *)set->busy);
  free((void *)set->runs);
  free(set);
}

int srv_spawners_acquire(SrvSpawners *set, geno_spawner **out) {
  *out = NULL;
  if (!set) return -1;
  unsigned home = thread_home ? thread_home - 1 : 0;
  if (home >= set->n) home = 0;
  int best = -1;
  unsigned best_busy = 0;
  for (unsigned k = 0; k < set->n; k++) {
    unsigned i = (home + k) % set->n; /* the home first: it wins ties */
    unsigned b = atomic_load(&set->busy[i]);
    if (best >= 0 && b >= best_busy) continue;
    if (!geno_spawner_alive(set->s[i])) continue;
    best = (int)i;
    best_busy = b;
  }
  if (best < 0) return -1;
  atomic_fetch_add(&set->busy[best], 1);
  atomic_fetch_add(&set->runs[best], 1);
  if (set->bind_threads && thread_home != (unsigned)best + 1 && set->cpu[best] >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(set->cpu[best], &one);
    (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one); /* a cost if it fails, not an error */
  }
  thread_home = (unsigned)best + 1;
  *out = set->s[best];
  return best;
}

void srv_spawners_release(SrvSpawners *set, int index) {
  if (set && index >= 0 && (unsigned)index < set->n) atomic_fetch_sub(&set->busy[index], 1);
}

unsigned srv_spawners_count(const SrvSpawners *set) { return set ? set->n : 0; }

geno_spawner *srv_spawners_at(const SrvSpawners *set, unsigned i) { return set && i < set->n ? set->s[i] : NULL; }

bool srv_spawners_info(SrvSpawners *set, unsigned i, SrvSpawnerInfo *info) {
  if (!set || i >= set->n) return false;
  info->pid = geno_spawner_pid(set->s[i]);
  info->cpu = set->cpu[i];
  info->alive = geno_spawner_alive(set->s[i]);
  info->runs = atomic_load(&set->runs[i]);
  info->busy = atomic_load(&set->busy[i]);
  return true;
}

const char *srv_spawners_health(SrvSpawners *set, char *detail, size_t n) {
  unsigned alive = 0, total = srv_spawners_count(set);
  size_t len = 0;
  detail[0] = '\0';
  for (unsigned i = 0; i < total; i++) {
    SrvSpawnerInfo in;
    srv_spawners_info(set, i, &in);
    alive += in.alive;
    if (len < n) {
      int k = snprintf(detail + len, n - len, "%sspawner %u (cpu %d): %s, %llu runs", i ? "; " : "", i, in.cpu,
                       in.alive ? "running" : "died", (unsigned long long)in.runs);
      if (k > 0) len += (size_t)k;
    }
  }
  if (total == 0) {
    snprintf(detail, n, "no spawner started: runs fork from the server");
    return "warn";
  }
  return alive == total ? "pass" : alive > 0 ? "warn" : "fail";
}
