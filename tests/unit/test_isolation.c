/* Unit tests: process isolation (src/sandbox). Each test hands sbx_run a
 * child body written here, which runs after the sandbox is installed,
 * exactly where geno_run would run. This is the test hook: it is not in
 * the library at all (sbx_run is internal and hidden from libgeno.so), so
 * release builds carry nothing a program or an embedder could switch on.
 *
 * Covered: results and output crossing the boundary, the wall-clock kill
 * (E501) with earlier output kept, memory exhaustion (E504, not the OOM
 * killer), crashes (E500, parent unharmed), the CPU limit, seccomp refusing
 * files, sockets, processes and signals to others, unknown system calls
 * killing the child, the closed descriptor table and rlimits, protocol
 * violations, the host-callback broker, and no leaked descriptors or
 * zombies. */
#include "unit.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/result.h"
#include "sandbox/sandbox.h"
#include "sandbox/wire.h"

/* The memory tests need allocation failure to return NULL under
 * AddressSanitizer too (its default is to abort). Unused otherwise. */
const char *__asan_default_options(void) __attribute__((visibility("default")));
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static geno_config config(double timeout) {
  geno_config c;
  geno_config_init(&c);
  c.timeout_s = timeout;
  return c;
}

static geno_result *run(const geno_config *c, SbxChildFn fn, void *arg) {
  geno_result *r = sbx_run("", 0, "t.geno", c, fn, arg);
  assert_non_null(r);
  return r;
}

/* The output of the child body running now (its SbxChildFn argument). */
static const VmOutput *test_out;

static bool emit(const char *s, size_t n) { return test_out->write(test_out->ud, s, n); }
static void print(const char *s) { emit(s, strlen(s)); }

/* A result whose value is the string s (the probes report this way). */
static geno_result *string_result(const char *s) {
  geno_result *r = rt_result_new();
  if (!r) return NULL;
  r->value = geno_value_new_string(s, strlen(s));
  Buf b = BUF_INIT;
  buf_json_string(&b, s, strlen(s));
  rt_result_set_value_json(r, buf_take(&b));
  r->value_text = strdup(s);
  return r;
}

static const char *value_string(const geno_result *r) {
  const geno_value *v = geno_result_value(r);
  const char *s = geno_value_string(v, NULL);
  if (!s) fail_msg("no string value; diagnostics: %s %s", unit_codes(r), unit_message(r));
  return s;
}

/* ---- results and output ---- */

static geno_result *body_ok(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)c, (void)arg;
  print("line 1\n");
  print("l\xc3\xa9ne 2\n");
  geno_result *r = rt_result_new();
  r->steps = 42;
  r->value = geno_value_new_some(geno_value_new_int(7));
  rt_result_set_value_json(r, strdup("{\"_constructor\": \"Some\", \"fields\": {\"value\": 7}}"));
  r->value_text = strdup("Some(value: 7)");
  rt_result_set_output(r, "line 1\nl\xc3\xa9ne 2\n", 15);
  Span sp = {file, 1, 2, 1, 5};
  rt_result_add(r, 400, &sp, "Division by zero");
  return r;
}

static void result_crosses_intact(void **state) {
  (void)state;
  geno_config c = config(5);
  geno_result *r = run(&c, body_ok, NULL);
  assert_false(geno_result_ok(r));
  assert_int_equal(geno_result_steps(r), 42);
  assert_string_equal(geno_result_value_text(r), "Some(value: 7)");
  assert_string_equal(geno_result_value_json(r), "{\"_constructor\": \"Some\", \"fields\": {\"value\": 7}}");
  assert_string_equal(geno_value_name(geno_result_value(r)), "Some");
  size_t n;
  assert_memory_equal(geno_result_output(r, &n), "line 1\nl\xc3\xa9ne 2\n", 15);
  assert_int_equal(n, 15);
  const geno_diagnostic *d = geno_result_diagnostic(r, 0);
  assert_string_equal(d->code, "E400");
  assert_string_equal(d->filename, "t.geno");
  assert_int_equal(d->column, 2);
  geno_result_free(r);
  assert_true(unit_no_children());
}

/* ---- the wall-clock deadline ---- */

static geno_result *body_spin(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c, (void)arg;
  print("tick 1\n");
  print("tick 2\n");
  for (volatile unsigned long i = 0;; i++) {
  }
  return NULL;
}

/* The sandboxed child holds no capability while the program runs, and a
 * child of a root host runs as nobody (it kept root's full set). Read from
 * the outside, in /proc, while a body spins. */
typedef struct CapProbe {
  pid_t parent;
  char status[4096]; /* the child's /proc status, once seen running */
} CapProbe;

static pid_t find_child(pid_t parent) {
  DIR *d = opendir("/proc");
  pid_t found = 0;
  struct dirent *e;
  while (d && !found && (e = readdir(d))) {
    char path[300], buf[512];
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    int ppid = 0;
    char state;
    if (close_paren && sscanf(close_paren + 1, " %c %d", &state, &ppid) == 2 && ppid == parent)
      found = (pid_t)atoi(e->d_name);
  }
  if (d) closedir(d);
  return found;
}

static void *probe_caps(void *arg) {
  CapProbe *p = arg;
  double t0 = now_s();
  while (now_s() - t0 < 5) {
    pid_t pid = find_child(p->parent);
    /* the child's setup takes a moment: wait until it spins (state R) with
     * its limits in place, then read it */
    if (pid) {
      struct timespec ms = {0, 300 * 1000 * 1000};
      nanosleep(&ms, NULL);
      char path[64];
      snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
      FILE *f = fopen(path, "r");
      if (f) {
        size_t n = fread(p->status, 1, sizeof p->status - 1, f);
        p->status[n] = '\0';
        fclose(f);
        return NULL;
      }
    }
    struct timespec ms = {0, 5 * 1000 * 1000};
    nanosleep(&ms, NULL);
  }
  return NULL;
}

static const char *status_field(const char *status, const char *name) {
  static char value[128];
  const char *at = strstr(status, name);
  value[0] = '\0';
  if (!at) return value;
  at += strlen(name);
  while (*at == ' ' || *at == '\t') at++;
  size_t n = strcspn(at, "\n");
  if (n >= sizeof value) n = sizeof value - 1;
  memcpy(value, at, n);
  value[n] = '\0';
  /* a trailing blank (an empty Groups: line) is no value */
  while (n && (value[n - 1] == ' ' || value[n - 1] == '\t')) value[--n] = '\0';
  return value;
}

static void child_holds_no_capability(void **state) {
  (void)state;
  geno_config c = config(1.0);
  CapProbe probe = {getpid(), {0}};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, probe_caps, &probe), 0);
  geno_result *r = run(&c, body_spin, NULL);
  pthread_join(t, NULL);
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E501");
  geno_result_free(r);
  if (!probe.status[0]) fail_msg("the child was never seen in /proc");
  assert_string_equal(status_field(probe.status, "CapEff:"), "0000000000000000");
  assert_string_equal(status_field(probe.status, "CapPrm:"), "0000000000000000");
  assert_string_equal(status_field(probe.status, "CapInh:"), "0000000000000000");
  assert_string_equal(status_field(probe.status, "CapAmb:"), "0000000000000000");
  if (geteuid() == 0) {
    assert_string_equal(status_field(probe.status, "CapBnd:"), "0000000000000000");
    /* real, effective, saved and file-system ids */
    assert_string_equal(status_field(probe.status, "Uid:"), "65534\t65534\t65534\t65534");
    assert_string_equal(status_field(probe.status, "Gid:"), "65534\t65534\t65534\t65534");
    assert_string_equal(status_field(probe.status, "Groups:"), "");
  }
  assert_true(unit_no_children());
}

static void endless_loop_is_killed_at_the_deadline(void **state) {
  (void)state;
  geno_config c = config(0.3);
  double t0 = now_s();
  geno_result *r = run(&c, body_spin, NULL);
  double took = now_s() - t0;
  assert_false(geno_result_ok(r));
  assert_int_equal(geno_result_diagnostic_count(r), 1);
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E501");
  assert_string_equal(unit_message(r), "Execution timed out after 0.3 seconds");
  size_t n;
  assert_string_equal(geno_result_output(r, &n), "tick 1\ntick 2\n"); /* survived the SIGKILL */
  assert_true(took >= 0.3 + SBX_KILL_GRACE_S - 0.01);
  assert_true(took < 0.3 + SBX_KILL_GRACE_S + 20.0); /* killed, not left to spin (slack for a loaded host) */
  assert_int_equal(geno_result_outcome(r), GENO_OUTCOME_TIMEOUT);
  geno_result_free(r);
  assert_true(unit_no_children());
}

/* Partial output never exceeds the run's own output limit budget, and a
 * child cut off mid-character yields only whole characters. */
static geno_result *body_flood(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c, (void)arg;
  for (int i = 0; i < 100000; i++) print("\xe2\x82\xac"); /* 3-byte euro signs, past the cap */
  emit("\xe2\x82", 2);                                     /* and half of one more */
  raise(SIGKILL);
  return NULL;
}

static void partial_output_is_bounded_and_valid(void **state) {
  (void)state;
  geno_config c = config(5);
  c.max_output_length = 10; /* cap: 4 bytes a character plus slack */
  geno_result *r = run(&c, body_flood, NULL);
  size_t n;
  const char *out = geno_result_output(r, &n);
  assert_true(n > 0 && n <= 10 * 4 + (64u << 10));
  assert_int_equal(n % 3, 0);
  assert_memory_equal(out, "\xe2\x82\xac\xe2\x82\xac", 6);
  geno_result_free(r);
}

/* The region is the only copy of the output: a finished run's output is
 * read from it, every byte the hook accepted, and a piece that does not
 * fit is refused whole (the runtime then ends the run with E505). */
static geno_result *body_fill(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c, (void)arg;
  size_t taken = 0;
  while (emit("abcdefg\n", 8)) taken += 8;
  char msg[64];
  snprintf(msg, sizeof msg, "%zu %zu", taken, test_out->capacity);
  return string_result(msg);
}

static void output_comes_from_the_region_whole(void **state) {
  (void)state;
  geno_config c = config(5);
  c.max_output_length = 10; /* region: 40 bytes plus 64 KiB */
  geno_result *r = run(&c, body_fill, NULL);
  size_t taken = 0, cap = 0, n;
  assert_int_equal(sscanf(value_string(r), "%zu %zu", &taken, &cap), 2);
  assert_int_equal(cap, 40 + (64u << 10));
  assert_true(taken <= cap && taken + 8 > cap);
  const char *out = geno_result_output(r, &n);
  assert_int_equal(n, taken);
  assert_memory_equal(out + n - 8, "abcdefg\n", 8);
  geno_result_free(r);
}

/* A real program printing more than 64 MiB (the region's old size) keeps
 * every byte; it used to come back ok with no output at all. */
static void large_output_survives_isolation(void **state) {
  (void)state;
  static const char prog[] =
      "func main() -> Unit\n"
      "    let line: String = repeat_string(\"x\", 999999)\n"
      "    var i: Int = 0\n"
      "    while i < 70 do\n"
      "        print(line)\n"
      "        i = i + 1\n"
      "    end while\n"
      "    print(\"done\")\n"
      "end func\n";
  geno_config c = config(60);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_PRINT;
  c.max_output_length = 80000000;
  geno_result *r = geno_run_isolated(prog, strlen(prog), "big.geno", &c);
  size_t n;
  const char *out = geno_result_output(r, &n);
  assert_true(geno_result_ok(r));
  assert_int_equal(n, 70u * 1000000u + 5u);
  assert_memory_equal(out + n - 5, "done\n", 5);
  assert_int_equal(out[123456], 'x');
  geno_result_free(r);
}

/* ---- memory ---- */

static geno_result *body_eat_memory(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c, (void)arg;
  /* Allocate and touch 1 MiB blocks until allocation fails; like the VM,
   * report failure by returning NULL ("out of memory"). Bounded so that a
   * missing limit fails the test instead of the machine. */
  void *volatile chain = NULL; /* blocks are linked so the compiler cannot drop them */
  for (int i = 0; i < 4096; i++) {
    char *p = malloc(1u << 20);
    if (!p) return NULL;
    memset(p, 1, 1u << 20);
    *(void **)p = chain;
    chain = p;
  }
  return string_result(chain ? "no limit" : "?");
}

static void memory_bomb_is_e504_not_the_oom_killer(void **state) {
  (void)state;
  geno_config c = config(20);
  c.memory_bytes = 64u << 20;
  geno_result *r = run(&c, body_eat_memory, NULL);
  assert_false(geno_result_ok(r));
  assert_string_equal(unit_codes(r), "E504");
  assert_non_null(strstr(unit_message(r), "Memory limit exceeded"));
  assert_int_equal(geno_result_outcome(r), GENO_OUTCOME_RESOURCE_LIMIT);
  geno_result_free(r);
  assert_true(unit_no_children());
}

/* ---- crashes ---- */

static geno_result *body_segv(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c, (void)arg;
  print("before the crash\n");
  raise(SIGSEGV);
  return NULL;
}

static geno_result *body_abort(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c, (void)arg;
  abort();
}

static void a_crash_is_a_diagnostic_and_the_parent_carries_on(void **state) {
  (void)state;
  geno_config c = config(5);
  geno_result *r = run(&c, body_segv, NULL);
  assert_string_equal(unit_codes(r), "E500");
  assert_string_equal(unit_message(r), "sandbox child crashed (signal 11, SIGSEGV)");
  assert_string_equal(geno_result_output(r, NULL), "before the crash\n");
  geno_result_free(r);
  r = run(&c, body_abort, NULL); /* abort() goes through tgkill to itself */
  assert_string_equal(unit_message(r), "sandbox child crashed (signal 6, SIGABRT)");
  geno_result_free(r);
  r = run(&c, body_ok, NULL); /* and the next run is unaffected */
  assert_int_equal(geno_result_steps(r), 42);
  geno_result_free(r);
  assert_true(unit_no_children());
}

/* ---- CPU limit ---- */

/* No wall clock here: with no deadline (timeout_s 0) only the CPU limit
 * can end the spinning child, however slowly a loaded machine gives it
 * its second of CPU (a 30 s deadline used to win on a busy 2-core host,
 * and a wall-time bound failed there too). */
static void cpu_limit_ends_a_busy_child(void **state) {
  (void)state;
  geno_config c = config(0);
  c.cpu_seconds = 1;
  geno_result *r = run(&c, body_spin, NULL);
  assert_string_equal(unit_codes(r), "E501");
  assert_string_equal(unit_message(r), "CPU time limit exceeded (1 seconds)");
  assert_int_equal(geno_result_isolation(r), GENO_ISOLATION_CPU_LIMIT);
  assert_string_equal(geno_result_output(r, NULL), "tick 1\ntick 2\n");
  geno_result_free(r);
  assert_int_equal(sbx_cpu_limit(&c), 1);
  c.cpu_seconds = 0;
  c.timeout_s = 5;
  assert_int_equal(sbx_cpu_limit(&c), 7); /* ceil(5 + 0.5) + 1 */
  c.timeout_s = 0;
  assert_int_equal(sbx_cpu_limit(&c), 0);
}

/* ---- seccomp and the stripped process ---- */

static const char *errno_name(int e) {
  switch (e) {
  case 0: return "ok";
  case EPERM: return "EPERM";
  case EACCES: return "EACCES";
  case EAGAIN: return "EAGAIN";
  case EBADF: return "EBADF";
  case EMFILE: return "EMFILE";
  case ENOSYS: return "ENOSYS";
  default: return "other";
  }
}

typedef enum Probe {
  PROBE_OPEN, PROBE_OPENAT, PROBE_CREAT, PROBE_SOCKET_INET, PROBE_SOCKET_UNIX, PROBE_SOCKETPAIR,
  PROBE_FORK, PROBE_CLONE, PROBE_EXECVE, PROBE_KILL_PARENT, PROBE_STAT, PROBE_COUNT
} Probe;

static const char *const probe_names[PROBE_COUNT] = {
    "open", "openat", "creat", "socket(AF_INET)", "socket(AF_UNIX)", "socketpair", "fork", "clone", "execve",
    "kill(parent)", "stat"};

static pid_t test_pid;

/* Attempt one way out; return "EPERM" etc. (the attempt must fail). */
static int attempt(Probe p) {
  errno = 0;
  long rc = -1;
  switch (p) {
  case PROBE_OPEN: rc = open("/etc/passwd", O_RDONLY); break;
  case PROBE_OPENAT: rc = openat(AT_FDCWD, "/proc/self/status", O_RDONLY); break;
  case PROBE_CREAT: rc = open("/tmp/geno-sandbox-probe", O_WRONLY | O_CREAT, 0600); break;
  case PROBE_SOCKET_INET: rc = socket(AF_INET, SOCK_STREAM, 0); break;
  case PROBE_SOCKET_UNIX: rc = socket(AF_UNIX, SOCK_STREAM, 0); break;
  case PROBE_SOCKETPAIR: {
    int sv[2];
    rc = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    break;
  }
  case PROBE_FORK:
    rc = fork();
    if (rc == 0) _exit(0);
    break;
  case PROBE_CLONE: rc = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0); if (rc == 0) _exit(0); break;
  case PROBE_EXECVE: {
    char *argv[] = {(char *)"/bin/true", NULL};
    rc = execve("/bin/true", argv, NULL);
    break;
  }
  case PROBE_KILL_PARENT: rc = kill(test_pid, SIGKILL); break;
  case PROBE_STAT: {
    struct stat st;
    rc = stat("/etc/passwd", &st);
    break;
  }
  case PROBE_COUNT: break;
  }
  if (rc < 0) return errno;
  if (p == PROBE_OPEN || p == PROBE_OPENAT || p == PROBE_CREAT || p == PROBE_SOCKET_INET || p == PROBE_SOCKET_UNIX)
    close((int)rc); /* only reached outside the sandbox (the controls) */
  return 0;
}

static geno_result *body_probe(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c;
  return string_result(errno_name(attempt((Probe)(intptr_t)arg)));
}

static void seccomp_refuses_files_sockets_and_processes(void **state) {
  (void)state;
  test_pid = getpid();
  geno_config c = config(5);
  for (int p = 0; p < PROBE_COUNT; p++) {
    geno_result *r = run(&c, body_probe, (void *)(intptr_t)p);
    const char *got = value_string(r);
    if (strcmp(got, "EPERM") != 0) fail_msg("%s in the sandbox gave %s, expected EPERM", probe_names[p], got);
    geno_result_free(r);
  }
  /* The same attempts that are not destructive succeed outside it, so the
   * refusal is the sandbox's doing. */
  Probe control[] = {PROBE_OPEN, PROBE_OPENAT, PROBE_SOCKET_INET, PROBE_SOCKET_UNIX, PROBE_STAT};
  for (size_t i = 0; i < sizeof control / sizeof *control; i++)
    if (attempt(control[i]) != 0) fail_msg("control %s failed outside the sandbox", probe_names[control[i]]);
  assert_true(unit_no_children());
}

/* A system call outside the allow-list (and outside the EPERM list) kills
 * the child at once. */
static geno_result *body_forbidden(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c;
  print("about to misbehave\n");
  if (arg == (void *)1) syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
  else if (arg == (void *)2) mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  else if (arg == (void *)3) syscall(SYS_mkdirat, AT_FDCWD, "/tmp/geno-probe-dir", 0700);
  else setrlimit(RLIMIT_AS, &(struct rlimit){RLIM_INFINITY, RLIM_INFINITY}); /* raising a limit */
  return string_result("survived");
}

static void unknown_system_calls_kill_the_child(void **state) {
  (void)state;
  geno_config c = config(5);
  for (intptr_t which = 1; which <= 4; which++) {
    geno_result *r = run(&c, body_forbidden, (void *)which);
    if (!unit_has_code(r, 500)) fail_msg("probe %ld: got %s %s", (long)which, unit_codes(r), unit_message(r));
    assert_non_null(strstr(unit_message(r), "seccomp"));
    assert_string_equal(geno_result_output(r, NULL), "about to misbehave\n");
    assert_int_equal(geno_result_outcome(r), GENO_OUTCOME_SECURITY_VIOLATION);
    geno_result_free(r);
  }
}

/* Only the channel is open, and the limits are what the header says. */
static geno_result *body_inspect(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c, (void)arg;
  Buf b = BUF_INIT;
  for (int fd = 0; fd < 1024; fd++)
    if (write(fd, "", 0) == 0) buf_printf(&b, "fd%d ", fd);
  static const struct {
    int res;
    const char *name;
  } lims[] = {{RLIMIT_CORE, "core"}, {RLIMIT_FSIZE, "fsize"}, {RLIMIT_NPROC, "nproc"}, {RLIMIT_NOFILE, "nofile"}};
  for (size_t i = 0; i < sizeof lims / sizeof *lims; i++) {
    struct rlimit rl;
    if (getrlimit(lims[i].res, &rl) != 0) buf_printf(&b, "%s=? ", lims[i].name);
    else buf_printf(&b, "%s=%llu/%llu ", lims[i].name, (unsigned long long)rl.rlim_cur,
                    (unsigned long long)rl.rlim_max);
  }
  struct rlimit as, cpu;
  getrlimit(RLIMIT_AS, &as);
  getrlimit(RLIMIT_CPU, &cpu);
  buf_printf(&b, "as_finite=%d cpu=%llu/%llu", as.rlim_cur != RLIM_INFINITY, (unsigned long long)cpu.rlim_cur,
             (unsigned long long)cpu.rlim_max);
  geno_result *r = string_result(b.data);
  buf_free(&b);
  return r;
}

static void only_the_channel_is_open_and_limits_are_set(void **state) {
  (void)state;
  geno_config c = config(2);
  int spare = open("/dev/null", O_RDONLY); /* an fd the host holds without CLOEXEC */
  assert_true(spare >= 0);
  geno_result *r = run(&c, body_inspect, NULL);
  close(spare);
  assert_string_equal(value_string(r),
                      "fd3 core=0/0 fsize=0/0 nproc=0/0 nofile=0/0 as_finite=1 cpu=4/5"); /* ceil(2.5)+1 */
  geno_result_free(r);
}

/* ---- protocol violations ---- */

static geno_result *body_raw(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c;
  const Buf *frame = arg;
  sbx_write_all(SBX_CHILD_FD, frame->data, frame->len);
  for (;;) pause(); /* wait to be killed */
  return NULL;
}

static void expect_violation(Buf *frame, const char *needle) {
  geno_config c = config(60);
  double t0 = now_s();
  geno_result *r = run(&c, body_raw, frame);
  if (!unit_has_code(r, 500) || !strstr(unit_message(r), needle))
    fail_msg("wanted E500 with '%s', got %s: %s", needle, unit_codes(r), unit_message(r));
  assert_true(now_s() - t0 < 30); /* stopped at once, not at the 60 s deadline (slack for a loaded host) */
  geno_result_free(r);
  buf_free(frame);
}

static void protocol_violations_stop_the_child(void **state) {
  (void)state;
  Buf f = BUF_INIT;
  sbx_frame_begin(&f, (SbxMsgType)99);
  sbx_frame_end(&f);
  expect_violation(&f, "unknown message");

  buf_reserve(&f, 8); /* a header announcing 4 GiB */
  f.len = 8;
  memcpy(f.data, "\x01\x00\x00\x00\xf0\xff\xff\xff", 8);
  expect_violation(&f, "oversized");

  sbx_frame_begin(&f, SBX_MSG_RESULT);
  sbx_put_u8(&f, 1);
  sbx_put_u32(&f, 77);
  sbx_frame_end(&f);
  expect_violation(&f, "malformed result");

  sbx_frame_begin(&f, SBX_MSG_CALL); /* no capability granted in this config */
  sbx_put_bytes(&f, "fs_read_text", 12);
  sbx_put_u32(&f, 0);
  sbx_frame_end(&f);
  expect_violation(&f, "not granted");

  sbx_frame_begin(&f, SBX_MSG_CALL);
  sbx_put_bytes(&f, "length", 6);
  sbx_put_u32(&f, 0);
  sbx_frame_end(&f);
  expect_violation(&f, "does not exist");
  assert_true(unit_no_children());
}

/* A child that sends its result but lingers is not waited for. */
static geno_result *body_linger(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c, (void)arg;
  geno_result *r = string_result("done");
  Buf b = BUF_INIT;
  sbx_frame_begin(&b, SBX_MSG_RESULT);
  sbx_put_result(&b, r);
  sbx_frame_end(&b);
  sbx_write_all(SBX_CHILD_FD, b.data, b.len);
  for (;;) pause();
  return NULL;
}

/* A child that closes its channel and spins is still killed on time. */
static geno_result *body_hide(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)c, (void)arg;
  close(SBX_CHILD_FD);
  for (volatile unsigned long i = 0;; i++) {
  }
  return NULL;
}

static void lingering_and_hiding_children(void **state) {
  (void)state;
  geno_config c = config(60);
  double t0 = now_s();
  geno_result *r = run(&c, body_linger, NULL);
  assert_string_equal(value_string(r), "done");
  assert_true(now_s() - t0 < 30); /* not kept to the 60 s deadline */
  geno_result_free(r);
  c.timeout_s = 0.2;
  r = run(&c, body_hide, NULL);
  assert_string_equal(unit_codes(r), "E501");
  geno_result_free(r);
  assert_true(unit_no_children());
}

/* ---- the host-callback broker ---- */

typedef struct HostState {
  int calls;
  pid_t ran_in;
} HostState;

static geno_value *host_read(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                             char **error) {
  HostState *h = ud;
  h->calls++;
  h->ran_in = getpid();
  size_t n;
  const char *path = nargs == 1 ? geno_value_string(args[0], &n) : NULL;
  if (!path) {
    *error = strdup("bad arguments");
    return NULL;
  }
  if (strcmp(path, "/secret") == 0) {
    *error = strdup("host policy: /secret is not readable");
    return NULL;
  }
  if (strcmp(path, "/nothing") == 0) return NULL; /* neither value nor error */
  char text[256];
  snprintf(text, sizeof text, "%s:%s", name, path);
  return geno_value_new_ok(geno_value_new_string(text, strlen(text)));
}

/* The child calls the forwarder the way the runtime calls a host
 * callback: through cfg->callbacks, by name. */
static geno_result *body_call(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file;
  const char *path = arg;
  for (size_t i = 0; i < c->ncallbacks; i++) {
    if (strcmp(c->callbacks[i].name, "fs_read_text") != 0) continue;
    geno_value *a = geno_value_new_string(path, strlen(path));
    const geno_value *args[1] = {a};
    char *error = NULL;
    geno_value *v = c->callbacks[i].fn("fs_read_text", args, 1, c->callbacks[i].userdata, &error);
    geno_value_free(a);
    Buf b = BUF_INIT;
    if (v) {
      const geno_value *inner = geno_value_item(v, 0);
      buf_printf(&b, "%s(%s) pid=%d", geno_value_name(v), geno_value_string(inner, NULL), (int)getpid());
    } else {
      buf_printf(&b, "error: %s", error ? error : "(none)");
    }
    geno_value_free(v);
    free(error);
    geno_result *r = string_result(b.data);
    buf_free(&b);
    return r;
  }
  return string_result("no callback");
}

static void host_callbacks_run_in_the_parent(void **state) {
  (void)state;
  HostState host = {0, 0};
  geno_callback cb = {"fs_read_text", host_read, &host};
  geno_config c = config(5);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_FS;
  c.callbacks = &cb;
  c.ncallbacks = 1;
  geno_result *r = run(&c, body_call, "/data.txt");
  const char *got = value_string(r);
  assert_non_null(strstr(got, "Ok(fs_read_text:/data.txt) pid="));
  assert_int_not_equal(atoi(strstr(got, "pid=") + 4), getpid()); /* asked from the child ... */
  assert_int_equal(host.calls, 1);                                /* ... answered by the host, here */
  assert_int_equal(host.ran_in, getpid());
  geno_result_free(r);
  r = run(&c, body_call, "/secret");
  assert_string_equal(value_string(r), "error: host policy: /secret is not readable");
  geno_result_free(r);
  r = run(&c, body_call, "/nothing");
  assert_string_equal(value_string(r), "error: host callback 'fs_read_text' returned no value and no error");
  geno_result_free(r);
  assert_int_equal(host.calls, 3);
  /* Not granted: the parent refuses even a direct request, and the host
   * function never runs. */
  c.capabilities = GENO_CAP_PRINT;
  r = run(&c, body_call, "/data.txt");
  assert_true(unit_has_code(r, 500));
  assert_non_null(strstr(unit_message(r), "not granted"));
  assert_int_equal(host.calls, 3);
  geno_result_free(r);
  c.capabilities_set = false; /* unset means none, even with a callback configured */
  c.capabilities = GENO_CAP_FS;
  r = run(&c, body_call, "/data.txt");
  assert_true(unit_has_code(r, 500));
  assert_int_equal(host.calls, 3);
  geno_result_free(r);
}

/* The monitor runs once, in the parent; the child gets none. */
static int monitor_calls;
static geno_result *body_monitor(const char *src, size_t len, const char *file, const geno_config *c, const VmOutput *o,
                          void *arg) {
  test_out = o;
  (void)src, (void)len, (void)file, (void)arg;
  return string_result(c->monitor ? "child has a monitor" : "child has no monitor");
}

static void monitor(const geno_result *r, const char *op, void *ud) {
  (void)r, (void)op, (void)ud;
  monitor_calls++;
}

static void the_child_never_calls_the_monitor(void **state) {
  (void)state;
  geno_config c = config(5);
  c.monitor = monitor;
  monitor_calls = 0;
  geno_result *r = run(&c, body_monitor, NULL);
  assert_string_equal(value_string(r), "child has no monitor");
  assert_int_equal(monitor_calls, 0); /* sbx_run leaves it to geno_run_isolated */
  geno_result_free(r);
  r = geno_run_isolated("func main() -> Int\n    return 1\nend func\n", 38, "m.geno", &c);
  assert_non_null(r);
  assert_int_equal(monitor_calls, 1);
  geno_result_free(r);
}

/* ---- hygiene ---- */

static void *thread_run(void *arg) {
  geno_config c = config(arg ? 0.2 : 5);
  return sbx_run("", 0, "t.geno", &c, arg ? body_spin : body_ok, NULL);
}

static void concurrent_runs_and_no_leaks(void **state) {
  (void)state;
  int fds = unit_open_fds();
  for (int i = 0; i < 10; i++) {
    geno_config c = config(0.05);
    geno_result_free(run(&c, i % 3 == 0 ? body_spin : i % 3 == 1 ? body_segv : body_ok, NULL));
  }
  pthread_t a, b;
  pthread_create(&a, NULL, thread_run, (void *)1);
  pthread_create(&b, NULL, thread_run, NULL);
  geno_result *ra, *rb;
  pthread_join(a, (void **)&ra);
  pthread_join(b, (void **)&rb);
  assert_string_equal(unit_codes(ra), "E501");
  assert_int_equal(geno_result_steps(rb), 42);
  geno_result_free(ra);
  geno_result_free(rb);
  assert_int_equal(unit_open_fds(), fds);
  assert_true(unit_no_children());
}

/* A host that ignores SIGCHLD (children auto-reaped) still gets results. */
static void sigchld_ignored_by_the_host(void **state) {
  (void)state;
  struct sigaction old, ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigaction(SIGCHLD, &ign, &old);
  geno_config c = config(5);
  geno_result *r = run(&c, body_ok, NULL);
  assert_int_equal(geno_result_steps(r), 42);
  geno_result_free(r);
  r = run(&c, body_segv, NULL); /* status lost, still a diagnostic */
  assert_true(unit_has_code(r, 500));
  assert_string_equal(geno_result_output(r, NULL), "before the crash\n");
  geno_result_free(r);
  sigaction(SIGCHLD, &old, NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(result_crosses_intact),
      cmocka_unit_test(endless_loop_is_killed_at_the_deadline),
      cmocka_unit_test(partial_output_is_bounded_and_valid),
      cmocka_unit_test(output_comes_from_the_region_whole),
      cmocka_unit_test(large_output_survives_isolation),
      cmocka_unit_test(memory_bomb_is_e504_not_the_oom_killer),
      cmocka_unit_test(a_crash_is_a_diagnostic_and_the_parent_carries_on),
      cmocka_unit_test(cpu_limit_ends_a_busy_child),
      cmocka_unit_test(child_holds_no_capability),
      cmocka_unit_test(seccomp_refuses_files_sockets_and_processes),
      cmocka_unit_test(unknown_system_calls_kill_the_child),
      cmocka_unit_test(only_the_channel_is_open_and_limits_are_set),
      cmocka_unit_test(protocol_violations_stop_the_child),
      cmocka_unit_test(lingering_and_hiding_children),
      cmocka_unit_test(host_callbacks_run_in_the_parent),
      cmocka_unit_test(the_child_never_calls_the_monitor),
      cmocka_unit_test(concurrent_runs_and_no_leaks),
      cmocka_unit_test(sigchld_ignored_by_the_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
