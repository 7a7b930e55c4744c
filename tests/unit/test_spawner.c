/* Unit tests: isolated runs forked from a spawner (geno_spawner_start,
 * geno_config.spawner) give the same results as runs forked from the
 * caller, the child is the caller's own (killed at the deadline and
 * reaped: no zombie), host callbacks and modules cross over, and a dead
 * spawner falls back to forking from the caller. Also the isolation end
 * classification (geno_result_isolation) and geno_check_isolated; a
 * spawner bound to a CPU (geno_spawner_start_on) and geno_spawner_alive.
 * Every test runs twice: with a spawner forked from this process and with
 * the separate spawner executable (geno_spawner_exec, geno-spawner). */
#include "unit.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

static geno_spawner *spawner;

static int setup(void **state) {
  (void)state;
  spawner = geno_spawner_start();
  return spawner ? 0 : -1;
}

static int setup_exec(void **state) {
  (void)state;
  spawner = geno_spawner_exec(GENO_SPAWNER_EXE, -1);
  return spawner ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  geno_spawner_free(spawner);
  return 0;
}

/* No child of ours but the spawner, reaped or not. */
static bool only_the_spawner_left(void) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  /* a zombie of ours would show here (WNOWAIT leaves it) */
  return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}

static geno_result *run(const char *src, geno_config *c) {
  c->spawner = spawner;
  return geno_run_isolated(src, strlen(src), "t.geno", c);
}

static void same_result_as_a_fork(void **state) {
  (void)state;
  const char *src = "func main() -> Int\n    print(\"hi\")\n    return 6 * 7\nend func\n";
  geno_config c;
  geno_config_init(&c);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_PRINT;
  geno_result *a = geno_run_isolated(src, strlen(src), "t.geno", &c);
  geno_result *b = run(src, &c);
  assert_non_null(a);
  assert_non_null(b);
  assert_true(geno_result_ok(b));
  assert_string_equal(geno_result_value_json(b), "42");
  size_t n;
  assert_string_equal(geno_result_output(b, &n), "hi\n");
  assert_string_equal(geno_result_value_json(a), geno_result_value_json(b));
  assert_int_equal(geno_result_isolation(b), GENO_ISOLATION_FINISHED);
  assert_int_equal(geno_result_steps(a), geno_result_steps(b));
  geno_result_free(a);
  geno_result_free(b);
  assert_true(only_the_spawner_left());
}

static void many_runs_leave_nothing_behind(void **state) {
  (void)state;
  int fds = unit_open_fds();
  for (int i = 0; i < 50; i++) {
    char src[96];
    snprintf(src, sizeof src, "func main() -> Int\n    return %d\nend func\n", i);
    geno_config c;
    geno_config_init(&c);
    geno_result *r = run(src, &c);
    char want[16];
    snprintf(want, sizeof want, "%d", i);
    assert_string_equal(geno_result_value_json(r), want);
    geno_result_free(r);
  }
  assert_int_equal(unit_open_fds(), fds);
  assert_true(only_the_spawner_left());
}

static void modules_and_errors_cross_over(void **state) {
  (void)state;
  geno_module m = {"Util", "func twice(x: Int) -> Int\n    example 1 -> 2\n    return x * 2\nend func\n", 0};
  m.length = strlen(m.source);
  geno_config c;
  geno_config_init(&c);
  c.modules = &m;
  c.nmodules = 1;
  geno_result *r = run("import Util\nfunc main() -> Int\n    return Util.twice(4)\nend func\n", &c);
  assert_string_equal(geno_result_value_json(r), "8");
  geno_result_free(r);
  r = run("func main() -> Int\n    return 1 / 0\nend func\n", &c);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E400");
  assert_string_equal(geno_result_diagnostic(r, 0)->filename, "t.geno");
  assert_int_equal(geno_result_isolation(r), GENO_ISOLATION_FINISHED);
  geno_result_free(r);
}

static geno_value *echo_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  (void)name, (void)args, (void)nargs, (void)ud, (void)error;
  return geno_value_new_string("from the host", 13);
}

static void host_callbacks_reach_the_caller(void **state) {
  (void)state;
  geno_callback cb = {"fs_read_text", echo_cb, NULL};
  geno_config c;
  geno_config_init(&c);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_FS;
  c.callbacks = &cb;
  c.ncallbacks = 1;
  geno_result *r = run("func main() -> String\n    return fs_read_text(\"x\")\nend func\n", &c);
  assert_true(geno_result_ok(r));
  assert_string_equal(geno_result_value_json(r), "\"from the host\"");
  geno_result_free(r);
}

static void the_wall_clock_budget_kills_the_child(void **state) {
  (void)state;
  const char *loop = "func main() -> Int\n    var i = 0\n    while true do\n"
                     "        i = i + length(repeat_string(\"ab\", 100000))\n    end while\n    return i\nend func\n";
  geno_config c;
  geno_config_init(&c);
  c.timeout_s = 10;
  c.max_steps = 0;
  c.wall_clock_s = 0.3;
  geno_result *r = run(loop, &c);
  assert_false(geno_result_ok(r));
  assert_int_equal(geno_result_isolation(r), GENO_ISOLATION_DEADLINE);
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E501");
  assert_true(geno_result_timing(r).total_ms < 5000);
  geno_result_free(r);
  assert_true(only_the_spawner_left());
}

/* The output region is read back from the run's memfd (the host never
 * maps it): what a killed child printed before the kill is kept, and a
 * large output arrives whole; the next run sees none of it. */
static void output_survives_the_kill_and_stays_with_its_run(void **state) {
  (void)state;
  const char *loop = "func main() -> Int\n    print(\"before\")\n    var i = 0\n    while true do\n"
                     "        i = i + length(repeat_string(\"ab\", 100000))\n    end while\n    return i\nend func\n";
  geno_config c;
  geno_config_init(&c);
  c.timeout_s = 10;
  c.max_steps = 0;
  c.wall_clock_s = 0.3;
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_PRINT;
  geno_result *r = run(loop, &c);
  size_t n;
  assert_int_equal(geno_result_isolation(r), GENO_ISOLATION_DEADLINE);
  assert_string_equal(geno_result_output(r, &n), "before\n");
  geno_result_free(r);
  const char *big = "func main() -> Int\n    var i = 0\n    while i < 5000 do\n        print(\"line \" + to_string(i))\n"
                    "        i = i + 1\n    end while\n    return 1\nend func\n";
  geno_config_init(&c);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_PRINT;
  c.max_steps = 10000000;
  r = run(big, &c);
  assert_true(geno_result_ok(r));
  const char *out = geno_result_output(r, &n);
  assert_true(n > 40000);
  assert_memory_equal(out, "line 0\nline 1\n", 14);
  assert_memory_equal(out + n - 10, "line 4999\n", 10);
  geno_result_free(r);
  r = run("func main() -> Int\n    return 3\nend func\n", &c);
  assert_true(geno_result_ok(r));
  assert_int_equal(strlen(geno_result_output(r, &n)), 0);
  geno_result_free(r);
  assert_true(only_the_spawner_left());
}

static void check_isolated_never_runs_the_program(void **state) {
  (void)state;
  const char *src = "func main() -> Int\n    return \"x\"\nend func\n";
  geno_config c;
  geno_config_init(&c);
  c.spawner = spawner;
  geno_result *r = geno_check_isolated(src, strlen(src), "t.geno", &c);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E300");
  geno_result_free(r);
  const char *ok = "func main() -> Int\n    return 1 / 0\nend func\n";
  r = geno_check_isolated(ok, strlen(ok), "t.geno", &c);
  assert_true(geno_result_ok(r)); /* checked, not run: no division */
  geno_result_free(r);
}

static void read_children(char *buf, size_t n) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  FILE *f = fopen(path, "r");
  buf[0] = '\0';
  if (!f) return;
  size_t k = fread(buf, 1, n - 1, f);
  buf[k] = '\0';
  fclose(f);
}

static void a_dead_spawner_falls_back_to_fork(void **state) {
  (void)state;
  char before[512], after[512];
  read_children(before, sizeof before);
  geno_spawner *own = geno_spawner_start();
  assert_non_null(own);
  read_children(after, sizeof after);
  /* the new child is the spawner: kill it behind the library's back */
  pid_t victim = 0;
  for (char *tok = strtok(after, " \n"); tok; tok = strtok(NULL, " \n")) {
    char pat[32];
    snprintf(pat, sizeof pat, " %s ", tok);
    char padded[520];
    snprintf(padded, sizeof padded, " %s ", before);
    if (!strstr(padded, pat)) victim = (pid_t)atoi(tok);
  }
  assert_true(victim > 0);
  kill(victim, SIGKILL);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  waitid(P_PID, (id_t)victim, &si, WEXITED | WNOWAIT); /* dead, not reaped */
  geno_config c;
  geno_config_init(&c);
  c.spawner = own;
  const char *src = "func main() -> Int\n    return 5\nend func\n";
  geno_result *r = geno_run_isolated(src, strlen(src), "t.geno", &c);
  assert_string_equal(geno_result_value_json(r), "5");
  geno_result_free(r);
  geno_spawner_free(own); /* reaps the dead spawner */
}

/* The CPUs a process may run on, from /proc (Cpus_allowed_list). */
static void cpus_allowed(pid_t pid, char *out, size_t n) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Cpus_allowed_list: %63s", out) == 1) break;
  fclose(f);
}

static void a_bound_spawner_stays_on_its_cpu_and_reports_its_death(void **state) {
  (void)state;
  errno = 0;
  assert_null(geno_spawner_start_on(CPU_SETSIZE + 5));
  assert_int_equal(errno, EINVAL);
  cpu_set_t mine;
  assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
  int last = -1;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &mine)) last = c;
  geno_spawner *own = geno_spawner_start_on(last);
  assert_non_null(own);
  pid_t pid = (pid_t)geno_spawner_pid(own);
  assert_true(pid > 0);
  geno_config c;
  geno_config_init(&c);
  c.spawner = own;
  const char *src = "func main() -> Int\n    return 9\nend func\n";
  geno_result *r = geno_run_isolated(src, strlen(src), "t.geno", &c);
  assert_string_equal(geno_result_value_json(r), "9");
  geno_result_free(r);
  char got[64], want[16];
  cpus_allowed(pid, got, sizeof got);
  snprintf(want, sizeof want, "%d", last);
  assert_string_equal(got, want);
  assert_true(geno_spawner_alive(own));
  kill(pid, SIGKILL);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT); /* dead, not reaped */
  assert_false(geno_spawner_alive(own));            /* reaps it */
  assert_false(geno_spawner_alive(own));
  r = geno_run_isolated(src, strlen(src), "t.geno", &c); /* forks from here */
  assert_string_equal(geno_result_value_json(r), "9");
  geno_result_free(r);
  geno_spawner_free(own);
  assert_true(only_the_spawner_left());
}

/* A field of /proc/PID/status ("" when absent). */
static void status_field(pid_t pid, const char *name, char *out, size_t n) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  size_t k = strlen(name);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, name, k) == 0) {
      const char *v = line + k;
      while (*v == ' ' || *v == '\t') v++;
      snprintf(out, n, "%.*s", (int)strcspn(v, "\n"), v);
      break;
    }
  fclose(f);
}

typedef struct Watch {
  pid_t spawner;
  char uid[64], cap_eff[32], cap_bnd[32], nnp[8];
  bool seen;
} Watch;

/* From outside: the first child of ours that is not the spawner, once it
 * has run a moment (its set-up done). */
static void *watch_child(void *arg) {
  Watch *w = arg;
  for (int tries = 0; tries < 1000 && !w->seen; tries++) {
    char kids[512];
    read_children(kids, sizeof kids);
    for (char *tok = strtok(kids, " \n"); tok; tok = strtok(NULL, " \n")) {
      pid_t pid = (pid_t)atoi(tok);
      if (pid == w->spawner) continue;
      struct timespec ms = {0, 200 * 1000 * 1000};
      nanosleep(&ms, NULL);
      status_field(pid, "Uid:", w->uid, sizeof w->uid);
      status_field(pid, "CapEff:", w->cap_eff, sizeof w->cap_eff);
      status_field(pid, "CapBnd:", w->cap_bnd, sizeof w->cap_bnd);
      status_field(pid, "NoNewPrivs:", w->nnp, sizeof w->nnp);
      w->seen = w->uid[0] != '\0';
      break;
    }
    struct timespec ms = {0, 5 * 1000 * 1000};
    nanosleep(&ms, NULL);
  }
  return NULL;
}

/* The spawner leaves itself without authority once (credentials, no
 * capability, no_new_privs) and its children inherit that instead of
 * doing it each: a child still runs as nobody (for a root host) with no
 * capability and no_new_privs, and so does the spawner. */
static void a_spawners_child_holds_no_authority(void **state) {
  (void)state;
  Watch w;
  memset(&w, 0, sizeof w);
  w.spawner = (pid_t)geno_spawner_pid(spawner);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, watch_child, &w), 0);
  const char *loop = "func main() -> Int\n    var i = 0\n    while true do\n        i = i + 1\n"
                     "    end while\n    return i\nend func\n";
  geno_config c;
  geno_config_init(&c);
  c.timeout_s = 10;
  c.max_steps = 0;
  c.wall_clock_s = 1.0;
  geno_result *r = run(loop, &c);
  pthread_join(t, NULL);
  assert_int_equal(geno_result_isolation(r), GENO_ISOLATION_DEADLINE);
  geno_result_free(r);
  assert_true(w.seen);
  assert_string_equal(w.cap_eff, "0000000000000000");
  assert_string_equal(w.nnp, "1");
  char sp_cap[32], sp_nnp[8], sp_uid[64];
  status_field(w.spawner, "CapEff:", sp_cap, sizeof sp_cap);
  status_field(w.spawner, "NoNewPrivs:", sp_nnp, sizeof sp_nnp);
  status_field(w.spawner, "Uid:", sp_uid, sizeof sp_uid);
  assert_string_equal(sp_cap, "0000000000000000");
  assert_string_equal(sp_nnp, "1");
  if (geteuid() == 0) {
    assert_string_equal(w.uid, "65534\t65534\t65534\t65534");
    assert_string_equal(w.cap_bnd, "0000000000000000");
    assert_string_equal(sp_uid, "65534\t65534\t65534\t65534");
  }
  assert_true(only_the_spawner_left());
}

/* The separate spawner is the small program, not a copy of this one: its
 * executable is geno-spawner and it maps a handful of regions (this test
 * program maps many more), it was given no descriptor but its control
 * socket and /dev/null, and a missing executable is refused cleanly. */
static void a_separate_spawner_is_its_own_small_program(void **state) {
  (void)state;
  pid_t pid = (pid_t)geno_spawner_pid(spawner);
  char path[64], exe[4096];
  snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
  ssize_t n = readlink(path, exe, sizeof exe - 1);
  assert_true(n > 0);
  exe[n] = '\0';
  char want[4096];
  assert_non_null(realpath(GENO_SPAWNER_EXE, want));
  assert_string_equal(exe, want);
  snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
  DIR *d = opendir(path);
  assert_non_null(d);
  int count = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') count++;
  closedir(d);
  assert_int_equal(count, 4); /* 0-2 on /dev/null, 3 the control socket */
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *maps = fopen(path, "r");
  assert_non_null(maps);
  int regions = 0;
  for (int ch; (ch = fgetc(maps)) != EOF;)
    if (ch == '\n') regions++;
  fclose(maps);
  assert_true(regions > 0);
#if !defined(__SANITIZE_ADDRESS__)
  assert_true(regions < 40); /* static: about a dozen (a sanitized build links it dynamically) */
#endif
  errno = 0;
  assert_null(geno_spawner_exec("/nonexistent/geno-spawner", -1));
  assert_int_equal(errno, ENOEXEC);
  errno = 0;
  assert_null(geno_spawner_exec(GENO_SPAWNER_EXE, CPU_SETSIZE + 5));
  assert_int_equal(errno, EINVAL);
  assert_true(only_the_spawner_left());
}

/* ---- the separate spawner's code and constants in huge pages ---------------- */

#define HUGE_2M ((uint64_t)2 << 20)

/* The executable's code segment and its constants' (read-only, not the
 * headers at offset 0), from its program headers. */
typedef struct RoSegment {
  uint64_t vaddr, align;
} RoSegment;

static void spawner_segments(RoSegment *code, RoSegment *constants) {
  memset(code, 0, sizeof *code);
  memset(constants, 0, sizeof *constants);
  FILE *f = fopen(GENO_SPAWNER_EXE, "rb");
  assert_non_null(f);
  Elf64_Ehdr eh;
  assert_int_equal(fread(&eh, sizeof eh, 1, f), 1);
  assert_int_equal(memcmp(eh.e_ident, ELFMAG, SELFMAG), 0);
  for (int i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    assert_int_equal(fseek(f, (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize), SEEK_SET), 0);
    assert_int_equal(fread(&ph, sizeof ph, 1, f), 1);
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W)) continue;
    if (ph.p_flags & PF_X) *code = (RoSegment){ph.p_vaddr, ph.p_align};
    else if (ph.p_offset != 0) *constants = (RoSegment){ph.p_vaddr, ph.p_align};
  }
  fclose(f);
  assert_true(code->align && constants->align);
}

/* The mapping of process pid that starts at `start`: its kilobytes in
 * huge pages (-1: no mapping starts there) and its file ("" when
 * anonymous). */
static long huge_kb_at(pid_t pid, uint64_t start, char *file, size_t filelen) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/smaps", (int)pid);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[1024];
  long kb = -1;
  bool in = false;
  file[0] = '\0';
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi, off, inode;
    char perms[8], dev[16];
    int end = 0;
    if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", &lo, &hi, perms, &off, dev, &inode, &end) >= 6) {
      if (in) break;
      in = lo == start;
      if (in) {
        snprintf(file, filelen, "%s", line + end);
        file[strcspn(file, "\n")] = '\0';
      }
    } else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) {
      break;
    }
  }
  fclose(f);
  return in ? kb : -1;
}

/* Whether this process can get a transparent huge page for memory it
 * advises MADV_HUGEPAGE right now (the system allows it and has one). */
static bool huge_pages_to_be_had(void) {
  size_t len = (size_t)(2 * HUGE_2M);
  char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return false;
  char *p = (char *)(((uintptr_t)raw + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
  bool ok = false;
  if (madvise(p, (size_t)HUGE_2M, MADV_HUGEPAGE) == 0) {
    p[0] = 1;
    char file[256];
    ok = huge_kb_at(getpid(), (uint64_t)(uintptr_t)p, file, sizeof file) >= 2048;
  }
  munmap(raw, len);
  return ok;
}

/* geno-spawner is linked with its segments 2 MiB aligned and, where
 * transparent huge pages are to be had, moves its code and constants into
 * them at start (src/spawner/hugetext.c): anonymous huge pages, which fork
 * copies as single entries, so that its children do not fault them in. A
 * child of a small program then makes about half the page faults it made
 * with them file-mapped (23 against 44, measured; bound here at 40). */
static void the_separate_spawners_code_is_in_huge_pages(void **state) {
  (void)state;
  RoSegment code, constants;
  spawner_segments(&code, &constants);
#if !defined(__SANITIZE_ADDRESS__)
  assert_true(code.align >= HUGE_2M && code.vaddr % HUGE_2M == 0);
  assert_true(constants.align >= HUGE_2M && constants.vaddr % HUGE_2M == 0);
#endif
  pid_t pid = (pid_t)geno_spawner_pid(spawner);
  char file[1024];
  bool huge = code.align >= HUGE_2M && huge_pages_to_be_had();
  if (huge) {
    assert_true(huge_kb_at(pid, code.vaddr, file, sizeof file) >= 2048);
    assert_string_equal(file, "");
    assert_true(huge_kb_at(pid, constants.vaddr, file, sizeof file) >= 2048);
    assert_string_equal(file, "");
  } else {
    fprintf(stderr, "note: no transparent huge page to be had here; only the runs are checked\n");
  }
  /* children run from them, and fault far less */
  const char *src = "func main() -> Int\n    return 6 * 7\nend func\n";
  geno_config c;
  geno_config_init(&c);
  struct rusage before, after;
  assert_int_equal(getrusage(RUSAGE_CHILDREN, &before), 0);
  enum { RUNS = 20 };
  for (int i = 0; i < RUNS; i++) {
    geno_result *r = run(src, &c);
    assert_non_null(r);
    assert_string_equal(geno_result_value_json(r), "42");
    geno_result_free(r);
  }
  assert_int_equal(getrusage(RUSAGE_CHILDREN, &after), 0);
  long faults = (after.ru_minflt - before.ru_minflt) / RUNS;
#if !defined(__SANITIZE_ADDRESS__)
  if (huge) assert_in_range(faults, 1, 40);
#endif
  (void)faults;
  assert_true(only_the_spawner_left());
}

/* Where transparent huge pages are to be had, the spawner leaves the top
 * of its heap, where its children's allocations land, untouched and
 * advised MADV_HUGEPAGE from a 2 MiB boundary on (huge_heap_top in
 * src/sandbox/spawner.c): a child that builds a list of 20,000 strings
 * (about 4 MiB) then faults a few huge pages in rather than a thousand
 * small ones (14 against 1,159, measured; bound here at 300). */
static void a_childs_heap_is_in_huge_pages(void **state) {
  (void)state;
#if !defined(__SANITIZE_ADDRESS__) /* the sanitizer's allocator has no brk heap */
  if (!huge_pages_to_be_had()) {
    fprintf(stderr, "note: no transparent huge page to be had here; skipped\n");
    return;
  }
  /* the spawner's heap: a 2 MiB-aligned stretch of it advised, of at
   * least 8 MiB, none of it touched */
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/smaps", geno_spawner_pid(spawner));
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[1024];
  unsigned long lo = 0, hi = 0, rss = 1;
  bool heap = false, found = false;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long a, b;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3) {
      heap = strstr(line, "[heap]") != NULL;
      lo = a, hi = b;
    } else if (heap && sscanf(line, "Rss: %lu kB", &rss) == 1) {
    } else if (heap && strncmp(line, "VmFlags:", 8) == 0 && strstr(line, " hg")) {
      found = true;
    }
  }
  fclose(f);
  assert_true(found);
  assert_int_equal(lo % HUGE_2M, 0);
  assert_true(hi - lo >= 8 * (1ul << 20));
  assert_int_equal(rss, 0);
  const char *src = "func main() -> Int\n"
                    "    let xs: List[Int] = [x * 2 for x: Int in range(0, 20000)]\n"
                    "    let s: List[String] = [to_string(x) for x: Int in xs]\n"
                    "    return length(s)\n"
                    "end func\n";
  geno_config c;
  geno_config_init(&c);
  struct rusage before, after;
  assert_int_equal(getrusage(RUSAGE_CHILDREN, &before), 0);
  enum { RUNS = 3 };
  for (int i = 0; i < RUNS; i++) {
    geno_result *r = run(src, &c);
    assert_non_null(r);
    assert_string_equal(geno_result_value_json(r), "20000");
    geno_result_free(r);
  }
  assert_int_equal(getrusage(RUSAGE_CHILDREN, &after), 0);
  assert_in_range((after.ru_minflt - before.ru_minflt) / RUNS, 1, 300);
  assert_true(only_the_spawner_left());
#endif
}

/* With transparent huge pages disabled for it (inherited through exec),
 * the spawner leaves its code file-mapped, as before, and works the same. */
static void without_huge_pages_the_spawner_works_as_before(void **state) {
  (void)state;
  RoSegment code, constants;
  spawner_segments(&code, &constants);
  assert_int_equal(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0);
  geno_spawner *plain = geno_spawner_exec(GENO_SPAWNER_EXE, -1);
  assert_int_equal(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
  assert_non_null(plain);
  char file[1024], want[4096];
  assert_non_null(realpath(GENO_SPAWNER_EXE, want));
  pid_t pid = (pid_t)geno_spawner_pid(plain);
  /* at those addresses when linked as a fixed-address executable (the
   * sanitized build links a position-independent one, moved nowhere) */
  if (code.align >= HUGE_2M) {
    assert_int_equal(huge_kb_at(pid, code.vaddr, file, sizeof file), 0);
    assert_string_equal(file, want);
    assert_int_equal(huge_kb_at(pid, constants.vaddr, file, sizeof file), 0);
    assert_string_equal(file, want);
  }
  const char *src = "func main() -> Int\n    return 6 * 7\nend func\n";
  geno_config c;
  geno_config_init(&c);
  c.spawner = plain;
  geno_result *r = geno_run_isolated(src, strlen(src), "t.geno", &c);
  assert_non_null(r);
  assert_string_equal(geno_result_value_json(r), "42");
  geno_result_free(r);
  geno_spawner_free(plain);
  assert_true(only_the_spawner_left());
}

/* Test mode with a filter: the filter reaches the child as data. */
static void a_test_filter_crosses_over(void **state) {
  (void)state;
  const char *src = "func double(x: Int) -> Int\n    example 2 -> 4\n    return x * 2\nend func\n"
                    "func triple(x: Int) -> Int\n    example 2 -> 6\n    return x * 3\nend func\n"
                    "func main() -> Int\n    return 0\nend func\n";
  geno_config c;
  geno_config_init(&c);
  c.run_tests = true;
  c.test_filter = "tri*";
  geno_result *r = run(src, &c);
  assert_non_null(r);
  const char *v = geno_result_value_json(r);
  assert_non_null(v);
  assert_non_null(strstr(v, "\"total\": 1"));
  assert_non_null(strstr(v, "\"passed\": 1"));
  geno_result_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(same_result_as_a_fork),
      cmocka_unit_test(many_runs_leave_nothing_behind),
      cmocka_unit_test(modules_and_errors_cross_over),
      cmocka_unit_test(host_callbacks_reach_the_caller),
      cmocka_unit_test(the_wall_clock_budget_kills_the_child),
      cmocka_unit_test(output_survives_the_kill_and_stays_with_its_run),
      cmocka_unit_test(check_isolated_never_runs_the_program),
      cmocka_unit_test(a_dead_spawner_falls_back_to_fork),
      cmocka_unit_test(a_bound_spawner_stays_on_its_cpu_and_reports_its_death),
      cmocka_unit_test(a_spawners_child_holds_no_authority),
      cmocka_unit_test(a_test_filter_crosses_over),
      cmocka_unit_test(a_childs_heap_is_in_huge_pages),
  };
  const struct CMUnitTest separate[] = {
      cmocka_unit_test(a_separate_spawner_is_its_own_small_program),
      cmocka_unit_test(the_separate_spawners_code_is_in_huge_pages),
      cmocka_unit_test(without_huge_pages_the_spawner_works_as_before),
  };
  int failed = cmocka_run_group_tests_name("forked spawner", tests, setup, teardown);
  failed += cmocka_run_group_tests_name("separate spawner", tests, setup_exec, teardown);
  failed += cmocka_run_group_tests_name("separate spawner only", separate, setup_exec, teardown);
  return failed;
}
