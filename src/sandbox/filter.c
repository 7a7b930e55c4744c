/* The seccomp allow-list installed in a sandbox child (libseccomp).
 *
 * Policy: the default action KILLS the whole child (SCMP_ACT_KILL_PROCESS).
 * A system call nobody anticipated is the kernel attack surface a sandbox
 * exists to remove, so it must not run even once, and a process that tries
 * one is compromised or broken; the parent reports its death (SIGSYS) as a
 * security violation (E500).
 *
 * A short deny list answers EPERM instead of killing: the calls by which a
 * program would reach the host (open a file, create a socket, start a
 * process, look at a path). They can come from benign library code too
 * (a lazy timezone or locale lookup), and a clean error lets such code fall
 * back and lets the runtime report a diagnostic instead of a dead child.
 * Refusing them costs the child nothing it was ever meant to have.
 *
 * Everything allowed works only on what the child already holds: memory,
 * its one channel descriptor, its own signals, clocks and randomness. See
 * docs/SECURITY.md for the same list with the reason for each entry.
 *
 * The filter is compiled once per process (libseccomp builds it, then it
 * is exported as classic BPF) in the parent before the first fork; a child
 * only patches its own pid into its copy and loads it with one system
 * call. So a child allocates nothing for its filter, and a host that
 * forks a child per request (the server) does not pay for compiling it
 * each time. */
#include "sandbox.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* System calls allowed without conditions. */
static const int allowed[] = {
    SCMP_SYS(read),            /* the channel: callback replies */
    SCMP_SYS(write),           /* the channel: results and callback requests */
    SCMP_SYS(close),           /* releasing descriptors it already has */
    SCMP_SYS(brk),             /* malloc's main heap */
    SCMP_SYS(munmap),          /* returning memory */
    SCMP_SYS(mremap),          /* realloc of large blocks */
    SCMP_SYS(madvise),         /* malloc trimming (MADV_DONTNEED) */
    SCMP_SYS(exit),            /* ending the thread */
    SCMP_SYS(exit_group),      /* ending the child */
    SCMP_SYS(rt_sigreturn),    /* returning from a signal handler */
    SCMP_SYS(rt_sigprocmask),  /* libc masks signals around abort() */
    SCMP_SYS(rt_sigaction),    /* abort() resets SIGABRT to its default */
    SCMP_SYS(restart_syscall), /* the kernel restarting an interrupted call */
    SCMP_SYS(clock_gettime),   /* clocks (normally the vDSO; this is its fallback) */
    SCMP_SYS(clock_getres),
    SCMP_SYS(gettimeofday),
    SCMP_SYS(time),
    SCMP_SYS(getrandom),       /* random_int / random_float seeding */
    SCMP_SYS(futex),           /* libc locks (uncontended in one thread) */
    SCMP_SYS(sched_yield),     /* allocator spin-waits */
    SCMP_SYS(getpid),          /* abort() -> raise() needs its own ids */
    SCMP_SYS(gettid),
    SCMP_SYS(sigaltstack),     /* sanitizer runtimes query the signal stack */
};

/* System calls that fail with EPERM: the ways out to the host, and
 * questions about it. */
static const int denied[] = {
    SCMP_SYS(open),       SCMP_SYS(openat),      SCMP_SYS(openat2),    SCMP_SYS(creat),
    SCMP_SYS(stat),       SCMP_SYS(lstat),       SCMP_SYS(fstat),      SCMP_SYS(newfstatat),
    SCMP_SYS(statx),      SCMP_SYS(access),      SCMP_SYS(faccessat),  SCMP_SYS(faccessat2),
    SCMP_SYS(readlink),   SCMP_SYS(readlinkat),  SCMP_SYS(ioctl),      SCMP_SYS(socket),
    SCMP_SYS(socketpair), SCMP_SYS(connect),     SCMP_SYS(bind),       SCMP_SYS(listen),
    SCMP_SYS(accept),     SCMP_SYS(accept4),     SCMP_SYS(sendto),     SCMP_SYS(sendmsg),
    SCMP_SYS(recvfrom),   SCMP_SYS(recvmsg),     SCMP_SYS(fork),       SCMP_SYS(vfork),
    SCMP_SYS(clone),      SCMP_SYS(clone3),      SCMP_SYS(execve),     SCMP_SYS(execveat),
    SCMP_SYS(kill),
    /* Host information; glibc asks lazily (qsort sizes its buffer from
     * sysinfo) and copes with a refusal. */
    SCMP_SYS(sysinfo),    SCMP_SYS(uname),
};

/* Argument conditions with every field given (libseccomp's SCMP_Ax
 * macros leave datum_b implicit, which clang's -Wextra rejects). */
#define ARG_EQ(arg, value) ((struct scmp_arg_cmp){(arg), SCMP_CMP_EQ, (scmp_datum_t)(value), 0})
#define ARG_MASK_IS(arg, mask, value) \
  ((struct scmp_arg_cmp){(arg), SCMP_CMP_MASKED_EQ, (scmp_datum_t)(mask), (scmp_datum_t)(value)})

static bool fail(char *err, size_t errlen, const char *what, int rc) {
  snprintf(err, errlen, "seccomp: %s failed (%s)", what, strerror(rc < 0 ? -rc : rc));
  return false;
}

/* A value no pid can take (pid_max is at most 2^22), compiled into the
 * tgkill rule and replaced by the child's own pid in its copy. */
#define PID_PLACEHOLDER 0x5ecc0de5u

static struct sock_filter *compiled;   /* the exported program, or NULL */
static unsigned short compiled_len;
static char compile_error[160];
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

static bool export_program(scmp_filter_ctx ctx, char *err, size_t errlen) {
  int fd = (int)syscall(SYS_memfd_create, "geno-seccomp", 1u /* MFD_CLOEXEC */);
  if (fd < 0) return fail(err, errlen, "memfd_create", errno);
  int rc = seccomp_export_bpf(ctx, fd);
  struct stat st;
  if (rc == 0 && fstat(fd, &st) != 0) rc = -errno;
  if (rc) {
    close(fd);
    return fail(err, errlen, "exporting the filter", rc);
  }
  size_t n = (size_t)st.st_size;
  if (n == 0 || n % sizeof(struct sock_filter) || n / sizeof(struct sock_filter) > BPF_MAXINSNS) {
    close(fd);
    return fail(err, errlen, "exporting the filter", EINVAL);
  }
  struct sock_filter *p = malloc(n);
  if (!p || pread(fd, p, n, 0) != (ssize_t)n) {
    free(p);
    close(fd);
    return fail(err, errlen, "reading the exported filter", p ? EIO : ENOMEM);
  }
  close(fd);
  size_t count = n / sizeof *p, patched = 0;
  for (size_t i = 0; i < count; i++)
    if (p[i].code == (BPF_JMP | BPF_JEQ | BPF_K) && p[i].k == PID_PLACEHOLDER) patched++;
  if (patched != 1) { /* the pid comparison must be exactly where we expect it */
    free(p);
    return fail(err, errlen, "locating the pid in the filter", EINVAL);
  }
  compiled = p;
  compiled_len = (unsigned short)count;
  return true;
}

static bool compile_filter(char *err, size_t errlen) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
  if (!ctx) return fail(err, errlen, "seccomp_init", ENOMEM);
  int rc = 0;
  /* The filter matches the native architecture only; libseccomp kills a
   * call made through any other ABI (int 0x80, x32) by default. */
  for (size_t i = 0; i < ARRAY_LEN(allowed) && rc == 0; i++)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
  if (rc) goto out_rule;
  for (size_t i = 0; i < ARRAY_LEN(denied) && rc == 0; i++)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), denied[i], 0);
  if (rc) goto out_rule;
  /* Memory may be mapped and re-protected, but never executable: no new
   * code can enter the child. */
  rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, ARG_MASK_IS(2, PROT_EXEC, 0));
  if (rc == 0)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
                          ARG_MASK_IS(2, PROT_EXEC, 0));
  /* Signals only to itself (abort() raises SIGABRT this way). */
  if (rc == 0)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                          ARG_EQ(0, PID_PLACEHOLDER));
  /* Reading its own resource limits (getrlimit), never changing them. */
  if (rc == 0)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, ARG_EQ(0, 0),
                          ARG_EQ(2, 0));
  if (rc) goto out_rule;
  bool ok = export_program(ctx, err, errlen);
  seccomp_release(ctx);
  return ok;
out_rule:
  seccomp_release(ctx);
  return fail(err, errlen, "adding a rule", rc);
}

static void compile_once_fn(void) {
  if (!compile_filter(compile_error, sizeof compile_error) && !compile_error[0])
    snprintf(compile_error, sizeof compile_error, "seccomp: the filter could not be compiled");
}

bool sbx_filter_prepare(char *err, size_t errlen) {
  pthread_once(&compile_once, compile_once_fn);
  if (compiled) return true;
  snprintf(err, errlen, "%s", compile_error);
  return false;
}

bool sbx_filter_install(char *err, size_t errlen) {
  if (!compiled) { /* prepared in the parent; never compiled in a child */
    snprintf(err, errlen, "seccomp: the filter was not prepared before the fork");
    return false;
  }
  /* The pid is patched into a copy on the stack, which the child writes
   * anyway (patched in place, the heap page holding the program would be
   * one more copy-on-write fault in every child); a program too long for
   * it is patched in place, in the child's own copy-on-write page. The
   * kernel copies the program when it loads it.
   *
   * The copy starts with one load of the instruction pointer, which the
   * program then overwrites (its first act is loading the architecture),
   * so it decides exactly as before. Why: loading a filter makes the
   * kernel build its action cache by emulating the program for every
   * system call number of every architecture, with interrupts off; a value
   * other than the number or the architecture ends that emulation at once.
   * The cache pays off for a long-lived process making millions of calls;
   * a child makes a few dozen, and the emulation was about 5% of the CPU
   * of each child of a small program (children's CPU 0.93-0.98 -> 0.88-0.89
   * ms per /run, three alternating rounds, docs/deploy.md). */
  struct sock_filter local[256]; /* the program is about 90 instructions */
  struct sock_filter *prog_insns = compiled;
  unsigned short len = compiled_len;
  if (compiled_len < ARRAY_LEN(local)) {
    local[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer));
    memcpy(local + 1, compiled, compiled_len * sizeof *local);
    prog_insns = local;
    len = (unsigned short)(compiled_len + 1);
  }
  unsigned pid = (unsigned)getpid();
  for (unsigned i = 0; i < len; i++)
    if (prog_insns[i].code == (BPF_JMP | BPF_JEQ | BPF_K) && prog_insns[i].k == PID_PLACEHOLDER)
      prog_insns[i].k = pid;
  struct sock_fprog prog = {len, prog_insns};
  /* No new privileges (required for an unprivileged filter) was set by the
   * caller; without it the kernel refuses the filter (EACCES), so the
   * child fails closed. */
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
    return fail(err, errlen, "loading the filter", errno);
  return true;
}
