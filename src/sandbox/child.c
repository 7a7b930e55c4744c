/* The child's side of process isolation: strip the inherited process down
 * (signals, descriptors), impose resource limits and the seccomp filter,
 * run the body, and send its result to the parent.
 *
 * Order matters and is fail-closed: every step that narrows what the child
 * can do happens before any user code runs, and a step that fails ends the
 * child with SETUP_FAILED instead of running the program with less
 * protection than promised. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../runtime/hostvalue.h"
#include "../runtime/result.h"
#include "../runtime/run.h"
#include "../vm/vm.h"
#include "wire.h"

uint64_t sbx_cpu_limit(const geno_config *cfg) {
  if (cfg->cpu_seconds > 0) return (uint64_t)ceil(cfg->cpu_seconds);
  /* A program granted serve may answer requests for as long as its host
   * lets it: the CPU its requests add up to is not bounded by one
   * timeout. Each request is bounded instead (the parent kills a child
   * whose handler overruns timeout_s, isolate.c), and so is the time
   * before it starts serving (the wall-clock kill). */
  if (cfg->capabilities_set && (cfg->capabilities & GENO_CAP_SERVE)) return 0;
  if (cfg->timeout_s > 0) return (uint64_t)ceil(cfg->timeout_s + SBX_KILL_GRACE_S) + 1;
  return 0;
}

/* End the child at once. The raw system call, not _exit(): sanitizer
 * runtimes intercept _exit to run leak checks and reports that need system
 * calls the filter forbids, and nothing of the host's process (atexit
 * handlers, stdio buffers) may run in the child anyway. */
GENO_NORETURN static void child_exit(int status) {
  for (;;) syscall(SYS_exit_group, status);
}

/* Tell the parent why the sandbox could not be installed, then exit. */
GENO_NORETURN static void setup_failed(int fd, const char *why) {
  Buf b = BUF_INIT;
  sbx_frame_begin(&b, SBX_MSG_SETUP_FAILED);
  sbx_put_bytes(&b, why, strlen(why));
  if (sbx_frame_end(&b)) sbx_write_all(fd, b.data, b.len);
  child_exit(SBX_EXIT_SETUP);
}

/* Signal dispositions and the mask are inherited from the host, which may
 * ignore SIGPIPE or SIGXCPU or block them; the child needs the defaults so
 * that limits and a vanished parent end it. */
static void reset_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &sa, NULL); /* SIGKILL/SIGSTOP fail harmlessly */
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Keep only the channel, as descriptor SBX_CHILD_FD. */
static bool close_descriptors(int chan, char *err, size_t errlen) {
  if (chan != SBX_CHILD_FD && dup2(chan, SBX_CHILD_FD) < 0) {
    snprintf(err, errlen, "dup2: %s", strerror(errno));
    return false;
  }
  bool done = false;
#ifdef SYS_close_range
  done = syscall(SYS_close_range, SBX_CHILD_FD + 1, ~0U, 0) == 0;
#endif
  if (!done) { /* kernels before 5.9: close every possible number */
    struct rlimit rl;
    rlim_t max = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
    if (max == RLIM_INFINITY || max > (1u << 20)) max = 1u << 20;
    for (rlim_t fd = SBX_CHILD_FD + 1; fd < max; fd++) close((int)fd);
  }
#ifdef SYS_close_range
  if (done && syscall(SYS_close_range, 0, SBX_CHILD_FD - 1, 0) == 0) return true;
#endif
  for (int fd = 0; fd < SBX_CHILD_FD; fd++) close(fd);
  return true;
}

/* The unprivileged user a child started by root runs as: nobody. */
#define SBX_NOBODY ((uid_t)65534)

/* Empty the capability bounding set (root only; for anyone else it holds
 * nothing that matters, and dropping needs CAP_SETPCAP). */
static bool drop_bounding_set(char *err, size_t errlen) {
  if (geteuid() != 0) return true;
  for (int cap = 0; cap <= 63; cap++) {
    int has = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
    if (has < 0) break; /* past the kernel's last capability */
    if (has == 1 && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      snprintf(err, errlen, "prctl(PR_CAPBSET_DROP, %d): %s", cap, strerror(errno));
      return false;
    }
  }
  return true;
}

/* Give up every Linux capability before the program runs: a host started
 * as root would otherwise hand its child root's full set (seccomp and
 * no_new_privs hold the calls, but a capability is authority the child
 * never needs: a kernel bug or a future allowed call must not find it).
 * As root: the bounding set emptied, no supplementary groups, and the
 * real, effective and saved ids set to nobody (which also clears the
 * permitted and effective sets). For anyone: the ambient, effective,
 * permitted and inheritable sets cleared. */
static bool drop_privileges(char *err, size_t errlen) {
  if (!drop_bounding_set(err, errlen)) return false;
  if (geteuid() == 0) {
    if (setgroups(0, NULL) != 0 || setresgid(SBX_NOBODY, SBX_NOBODY, SBX_NOBODY) != 0 ||
        setresuid(SBX_NOBODY, SBX_NOBODY, SBX_NOBODY) != 0) {
      snprintf(err, errlen, "dropping root for nobody: %s", strerror(errno));
      return false;
    }
  }
  /* EINVAL: a kernel without ambient capabilities (before 4.3) has none */
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    snprintf(err, errlen, "prctl(PR_CAP_AMBIENT_CLEAR_ALL): %s", strerror(errno));
    return false;
  }
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &hdr, data) != 0) {
    snprintf(err, errlen, "capset: %s", strerror(errno));
    return false;
  }
  return true;
}

/* Address space mapped right now (bytes), from /proc/self/statm; 0 when
 * unknown. The child inherits the host's whole address space at fork, so
 * its memory limit is a budget on top of that: an absolute cap would make
 * a large host (or an AddressSanitizer build, which reserves terabytes)
 * unable to run anything, while a small one would get less than asked. */
uint64_t sbx_mapped_bytes(void) {
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  unsigned long long pages = strtoull(text, NULL, 10);
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

/* Set a limit (soft, hard); an unprivileged process (a spawner's child
 * already runs as nobody) cannot raise the hard limit it inherited, so a
 * value above it becomes that hard limit: never looser than asked. */
static bool set_limit_pair(int resource, rlim_t soft, rlim_t hard, const char *name, char *err, size_t errlen) {
  struct rlimit rl = {soft, hard};
  if (setrlimit(resource, &rl) == 0) return true;
  struct rlimit now;
  if (errno == EPERM && getrlimit(resource, &now) == 0 && now.rlim_max != RLIM_INFINITY &&
      (hard == RLIM_INFINITY || hard > now.rlim_max)) {
    rl.rlim_max = now.rlim_max;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > rl.rlim_max) rl.rlim_cur = rl.rlim_max;
    if (setrlimit(resource, &rl) == 0) return true;
  }
  snprintf(err, errlen, "setrlimit(%s): %s", name, strerror(errno));
  return false;
}

static bool limit(int resource, uint64_t value, const char *name, char *err, size_t errlen) {
  rlim_t v = value >= RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)value;
  return set_limit_pair(resource, v, v, name, err, errlen);
}

/* Address space the child may map beyond memory_bytes: the interpreter's
 * own structures (value stack, frames, the front end's arenas, libc's
 * arenas) that the VM's heap budget does not count. Without it a tiny
 * memory_bytes (1, 4096) made the child's first allocations fail inside
 * libc and abort (E500) before the VM could say E504; with it the VM's
 * budget is what a program meets, in both modes. */
#define SBX_AS_HEADROOM ((uint64_t)64 << 20)

static bool set_limits(const geno_config *cfg, uint64_t baseline, bool prepared, char *err, size_t errlen) {
  if (cfg->memory_bytes) {
    uint64_t as = baseline + SBX_AS_HEADROOM + cfg->memory_bytes;
    if (as < baseline) as = UINT64_MAX; /* saturate */
    if (!limit(RLIMIT_AS, as, "RLIMIT_AS", err, errlen)) return false;
  }
  uint64_t cpu = sbx_cpu_limit(cfg);
  if (cpu) {
    /* The soft limit sends SIGXCPU; the hard one, a second later, SIGKILL
     * in case SIGXCPU is somehow survived. */
    if (!set_limit_pair(RLIMIT_CPU, (rlim_t)cpu, (rlim_t)cpu + 1, "RLIMIT_CPU", err, errlen)) return false;
  }
  /* the spawner set the first two on itself (sbx_prepare_spawner) */
  return (prepared || limit(RLIMIT_CORE, 0, "RLIMIT_CORE", err, errlen)) &&   /* no core dump of host memory */
         (prepared || limit(RLIMIT_FSIZE, 0, "RLIMIT_FSIZE", err, errlen)) && /* no file may grow */
         limit(RLIMIT_NPROC, 0, "RLIMIT_NPROC", err, errlen) && /* no new processes (not for root: seccomp) */
         limit(RLIMIT_NOFILE, 0, "RLIMIT_NOFILE", err, errlen); /* no new descriptors */
}

/* The output hook: append to the shared region, the only copy of the
 * output (the parent reads it there, whether the child finishes or is
 * killed). A piece that does not fit is refused whole, and the run ends
 * with E505. The data is written before the length is published, so the
 * parent never reads bytes that were not written, even if it looked while
 * the child ran. */
static bool output_hook(void *ud, const char *text, size_t n) {
  const SbxChildCtx *c = ud;
  uint64_t len = __atomic_load_n(&c->out->len, __ATOMIC_RELAXED);
  if (len > c->out_cap || n > c->out_cap - len) return false;
  memcpy(c->out->data + len, text, n);
  __atomic_store_n(&c->out->len, len + n, __ATOMIC_RELEASE);
  return true;
}

/* The frame sent when there is no memory left to encode anything: built
 * without allocating. */
static void send_no_memory(int fd) {
  unsigned char frame[SBX_FRAME_HEADER] = {SBX_MSG_NO_MEMORY, 0, 0, 0, 0, 0, 0, 0};
  sbx_write_all(fd, frame, sizeof frame);
}

static void send_result(int fd, geno_result *r) {
  if (!r) {
    send_no_memory(fd);
    return;
  }
  Buf b = BUF_INIT;
  sbx_frame_begin(&b, SBX_MSG_RESULT);
  sbx_put_result(&b, r);
  if (!sbx_frame_end(&b)) {
    /* Too big for a frame, or no memory to encode it: give up the value
     * (the biggest part, and freeing it makes room) and say why. */
    buf_free(&b);
    rt_hv_free(r->value);
    r->value = NULL;
    free(r->value_text);
    r->value_text = NULL;
    free(r->value_json);
    r->value_json = NULL;
    rt_result_add(r, 504, NULL,
                  "The program's result is too large to return from the sandbox "
                  "(it must encode in at most 256 MiB)");
    r->ok = false;
    sbx_frame_begin(&b, SBX_MSG_RESULT);
    sbx_put_result(&b, r);
    if (!sbx_frame_end(&b)) {
      buf_free(&b);
      send_no_memory(fd);
      return;
    }
  }
  sbx_write_all(fd, b.data, b.len);
  buf_free(&b);
}

/* The steps that leave a process without authority and that fork
 * inherits: credentials (nobody for a root host, no capability, the
 * bounding set empty), not dumpable, no_new_privs, no core dump and no
 * file growth. */
static bool drop_authority(char *err, size_t errlen) {
  if (!drop_privileges(err, errlen)) return false;
  /* Not dumpable: other processes of the same user cannot ptrace the
   * child or read its memory through /proc. */
  if (prctl(PR_SET_DUMPABLE, 0) != 0) {
    snprintf(err, errlen, "prctl(PR_SET_DUMPABLE) failed");
    return false;
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    snprintf(err, errlen, "prctl(PR_SET_NO_NEW_PRIVS) failed");
    return false;
  }
  return limit(RLIMIT_CORE, 0, "RLIMIT_CORE", err, errlen) && limit(RLIMIT_FSIZE, 0, "RLIMIT_FSIZE", err, errlen);
}

bool sbx_prepare_spawner(void) {
  char err[160];
  reset_signals();
  tzset();
  vm_prepare_thread();
  rt_prepare_fork();
  return drop_authority(err, sizeof err);
}

void sbx_child_main(const SbxChildCtx *ctx) {
  char err[256];
  if (!ctx->prepared) reset_signals();
  /* Die with the parent: a child must never outlive its supervisor. The
   * check after it closes the race with a parent that already died. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != ctx->parent) child_exit(SBX_EXIT_CHANNEL);
  if (!close_descriptors(ctx->chan, err, sizeof err)) {
    /* The channel may be unusable; try it anyway. */
    setup_failed(ctx->chan, err);
  }
  const int fd = SBX_CHILD_FD;
  /* Load what libc would otherwise read from disk lazily (the timezone,
   * for clock_format), so the builtins behave as in-process. */
  if (!ctx->prepared) tzset();
  uint64_t baseline = ctx->mapped ? ctx->mapped : sbx_mapped_bytes();
  if (!set_limits(ctx->cfg, baseline, ctx->prepared, err, sizeof err)) setup_failed(fd, err);
  /* A spawner's child inherits all of it from the spawner, which did it
   * once for itself (sbx_prepare_spawner) before forking any child. */
  if (!ctx->prepared && !drop_authority(err, sizeof err)) setup_failed(fd, err);
  /* Prepare everything that needs the host's configuration before the
   * filter goes on (the forwarders allocate, which stays allowed). */
  /* Lives as long as the child: this function never returns. (A static
   * would cost a copy-on-write fault of a data page in every child.) */
  SbxForward chan = {fd, NULL};
  geno_config cfg = *ctx->cfg;
  cfg.monitor = NULL; /* the host's monitor runs in the parent, once */
  cfg.monitor_userdata = NULL;
  geno_callback *fwd = NULL;
  if (cfg.ncallbacks) {
    fwd = sbx_forwarders(ctx->cfg, &chan);
    if (!fwd) setup_failed(fd, "out of memory preparing host callbacks");
    cfg.callbacks = fwd;
  }
  if (!ctx->prepared) vm_prepare_thread(); /* normally learnt by the parent before fork */
  if (!sbx_filter_install(err, sizeof err)) setup_failed(fd, err);
  /* From here on the child holds no authority: user code may run. */
  VmOutput output = {output_hook, (void *)ctx, ctx->out_cap};
  geno_result *r = ctx->fn(ctx->source, ctx->len, ctx->filename, &cfg, &output, ctx->arg);
  send_result(fd, r);
  /* No cleanup: the kernel frees everything. */
  child_exit(0);
}
