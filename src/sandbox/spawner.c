/* The spawner: a small single-threaded process, forked from the host once,
 * from which the sandboxed children of isolated runs are forked instead of
 * from the host itself (geno_config.spawner).
 *
 * Why: forking a large, multi-threaded host (a server) makes every page
 * the host writes afterwards a copy-on-write fault while the child lives,
 * and each such fault in a multi-threaded process must flush the TLBs of
 * the other CPUs running its threads. The spawner is forked before the
 * host's threads start and writes almost nothing, so a child costs it
 * little, and the host never shares its pages with a child at all.
 *
 * Protocol, per run (the host's thread, the spawner, the child):
 * - the host makes the channel (a socket pair) and a memfd holding the
 *   output region followed by the request (source, file name, the
 *   configuration and its arrays), and sends the child's end of the
 *   channel and the memfd over the spawner's control socket (one
 *   SOCK_SEQPACKET message, so threads need no lock);
 * - the spawner forks with CLONE_PARENT: the child is the host's child,
 *   so the host supervises, kills and reaps it exactly as a child it
 *   forked itself; the child's first act, before any of the request is
 *   read, is to write its pid as the first four bytes of the channel
 *   (trusted code still: nothing of the request has run);
 * - the child maps the memfd, rebuilds the configuration (the spawner is
 *   a fork of the host: function addresses are the same) and continues as
 *   every sandbox child does (sbx_child_main).
 * The spawner never reads the request: it handles two descriptors and a
 * pid. It dies with the host (PR_SET_PDEATHSIG). */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <stdlib.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#endif
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../vm/vm.h"
#include "wire.h"

struct geno_spawner {
  int ctl;          /* host's end of the control socket */
  pid_t pid;        /* the spawner process */
  atomic_bool dead; /* it died and was reaped (geno_spawner_alive) */
  bool separate;    /* a process of its own executable (geno_spawner_exec) */
};

/* What the host sends with the two descriptors. */
typedef struct SpawnMsg {
  uint64_t map_len;   /* whole memfd size */
  uint64_t out_cap;   /* output region capacity (data bytes) */
  uint64_t req_off;   /* where the request starts in the memfd */
  uint64_t req_len;
} SpawnMsg;

/* ---- request encoding (host -> child, trusted both ways) -------------- */

static void put_u64(Buf *b, uint64_t v) { buf_append(b, (const char *)&v, sizeof v); }
static void put_str(Buf *b, const char *s, size_t n) {
  put_u64(b, n);
  buf_append(b, s ? s : "", n);
  buf_append(b, "", 1); /* NUL, so the child can use it in place */
}

static bool encode_request(Buf *b, const char *source, size_t len, const char *filename, const geno_config *cfg,
                           SbxChildFn fn, void *arg) {
  buf_append(b, (const char *)cfg, sizeof *cfg);
  put_u64(b, sbx_child_body_id(fn));
  buf_append(b, (const char *)&fn, sizeof fn);
  buf_append(b, (const char *)&arg, sizeof arg);
  put_str(b, source, len);
  put_u64(b, cfg->test_filter ? 1 : 0);
  if (cfg->test_filter) put_str(b, cfg->test_filter, strlen(cfg->test_filter));
  put_u64(b, filename ? 1 : 0);
  if (filename) put_str(b, filename, strlen(filename));
  put_u64(b, cfg->ncallbacks);
  for (size_t i = 0; i < cfg->ncallbacks; i++) put_str(b, cfg->callbacks[i].name, strlen(cfg->callbacks[i].name));
  put_u64(b, cfg->nmodules);
  for (size_t i = 0; i < cfg->nmodules; i++) {
    put_str(b, cfg->modules[i].name, strlen(cfg->modules[i].name));
    put_str(b, cfg->modules[i].source, cfg->modules[i].length);
  }
  put_u64(b, cfg->ncli_args);
  for (size_t i = 0; i < cfg->ncli_args; i++) {
    const char *a = cfg->cli_args[i] ? cfg->cli_args[i] : "";
    put_str(b, a, strlen(a));
  }
  put_u64(b, cfg->ntargets);
  for (size_t i = 0; i < cfg->ntargets; i++) put_str(b, cfg->targets[i], strlen(cfg->targets[i]));
  return !b->failed;
}

typedef struct Cursor {
  const char *p, *end;
} Cursor;

static uint64_t get_u64(Cursor *c) {
  uint64_t v = 0;
  if (c->end - c->p >= 8) memcpy(&v, c->p, 8);
  c->p += 8;
  return v;
}

static const char *get_str(Cursor *c, size_t *len) {
  size_t n = (size_t)get_u64(c);
  const char *s = c->p;
  c->p += n + 1;
  if (len) *len = n;
  return s;
}

/* A callback the child never calls: sbx_forwarders replaces every one. */
static geno_value *never_called(const char *name, const geno_value *const *args, size_t nargs, void *userdata,
                                char **error) {
  (void)name, (void)args, (void)nargs, (void)userdata;
  *error = NULL;
  return NULL;
}

GENO_NORETURN static void child_exit(int status) {
  for (;;) syscall(SYS_exit_group, status);
}

/* In the spawner's fresh child: say who it is, map the request, run. */
GENO_NORETURN static void spawned_child(int chan, int memfd, const SpawnMsg *m, pid_t host, bool prepared,
                                        uint64_t spawner_mapped, bool separate) {
  uint32_t p32 = (uint32_t)getpid();
  if (!sbx_write_all(chan, &p32, sizeof p32)) child_exit(SBX_EXIT_CHANNEL);
  /* The memfd, like the spawner's control socket, stays open until the
   * child closes every descriptor but its channel (sbx_child_main), which
   * it does before anything of the request runs. */
  char *base = mmap(NULL, (size_t)m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
  if (base == MAP_FAILED) child_exit(SBX_EXIT_SETUP);
  Cursor c = {base + m->req_off, base + m->req_off + m->req_len};
  /* On the stack, which the child writes anyway (a static would cost a
   * copy-on-write fault of a data page); sbx_child_main never returns. */
  geno_config cfg;
  memcpy(&cfg, c.p, sizeof cfg);
  c.p += sizeof cfg;
  unsigned body = (unsigned)get_u64(&c);
  SbxChildFn fn;
  void *arg;
  memcpy(&fn, c.p, sizeof fn);
  c.p += sizeof fn;
  memcpy(&arg, c.p, sizeof arg);
  c.p += sizeof arg;
  /* A separate executable has its own addresses: only the numbered
   * bodies, which take no argument (the host never sends it another). */
  if (separate) {
    fn = sbx_child_body(body);
    arg = NULL;
    if (!fn) child_exit(SBX_EXIT_SETUP);
  }
  size_t len;
  const char *source = get_str(&c, &len);
  cfg.test_filter = get_u64(&c) ? get_str(&c, NULL) : NULL;
  const char *filename = get_u64(&c) ? get_str(&c, NULL) : NULL;
  cfg.ncallbacks = (size_t)get_u64(&c);
  geno_callback *cbs = calloc(cfg.ncallbacks + 1, sizeof *cbs);
  for (size_t i = 0; cbs && i < cfg.ncallbacks; i++) {
    cbs[i].name = get_str(&c, NULL);
    cbs[i].fn = never_called;
  }
  cfg.callbacks = cbs;
  cfg.nmodules = (size_t)get_u64(&c);
  geno_module *mods = calloc(cfg.nmodules + 1, sizeof *mods);
  for (size_t i = 0; mods && i < cfg.nmodules; i++) {
    mods[i].name = get_str(&c, NULL);
    mods[i].source = get_str(&c, &mods[i].length);
  }
  cfg.modules = mods;
  cfg.ncli_args = (size_t)get_u64(&c);
  const char **args = calloc(cfg.ncli_args + 1, sizeof *args);
  for (size_t i = 0; args && i < cfg.ncli_args; i++) args[i] = get_str(&c, NULL);
  cfg.cli_args = args;
  cfg.ntargets = (size_t)get_u64(&c);
  const char **targets = calloc(cfg.ntargets + 1, sizeof *targets);
  for (size_t i = 0; targets && i < cfg.ntargets; i++) targets[i] = get_str(&c, NULL);
  cfg.targets = targets;
  cfg.monitor = NULL;
  cfg.module_loader = NULL;
  cfg.spawner = NULL;
  if (!cbs || !mods || !args || !targets || c.p > c.end) child_exit(SBX_EXIT_SETUP);
  SbxChildCtx ctx = {host,     chan, (SbxOutput *)(void *)base, (size_t)m->out_cap, &cfg, source, len, filename, fn,
                     arg,      prepared, spawner_mapped ? spawner_mapped + m->map_len : 0};
  sbx_child_main(&ctx);
}

/* Take every free chunk of the spawner's heap (and its thread cache) out
 * of reach, so that a child's allocations come from the top of the heap,
 * in pages the spawner does not hold, rather than from holes scattered
 * over pages shared with it: each write into a shared page is a
 * copy-on-write fault with a TLB flush, the dearest thing a child does.
 * The chunks stay allocated in the spawner, which never frees them; the
 * heap's free pages were given back first (malloc_trim), so what stays
 * taken is a few pages. Sizes from 256 KiB down to 16 bytes: at each, take
 * chunks until one comes from the top, which is returned. */
static void plug_heap_holes(void) {
  malloc_trim(0);
  for (size_t size = (size_t)256 << 10; size >= 16; size /= 2) {
    for (int n = 0; n < 100000; n++) {
      struct mallinfo2 mi = mallinfo2();
      char *top = (char *)sbrk(0) - mi.keepcost;
      char *p = malloc(size);
      if (!p) return;
      if (p >= top) {
        free(p);
        break;
      }
    }
  }
}

bool sbx_thp_allowed(void) {
  /* disabled for this process (PR_SET_THP_DISABLE, inherited through exec) */
  if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) > 0) return false;
  /* A system setting that cannot be read (a container may hide /sys) is
   * no answer: the advice itself then tells (madvise fails where the
   * kernel has no huge pages, and smaps shows whether any came). */
  int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char text[128];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return true;
  text[n] = '\0';
  return strstr(text, "[never]") == NULL;
}

/* Bytes the heap is grown by for the children, in huge pages (see
 * huge_heap_top). Less than the VM's stack: a request the top chunk can
 * meet is carved from it whatever its size, and the 16 MiB stack, of which
 * a run uses the first pages, is better mapped on its own than spread
 * over the huge pages the rest of the run uses (each one touched is
 * zeroed whole). */
#define SBX_HUGE_HEAP ((size_t)12 << 20)
#define SBX_HUGE_PAGE ((uintptr_t)2 << 20)
_Static_assert(SBX_HUGE_HEAP + ((size_t)1 << 20) < VM_STACK_SLOTS * sizeof(Value),
               "the VM's stack must not fit in the heap kept for the children");

/* Leave the top of the heap, where a child's allocations land
 * (plug_heap_holes), in transparent huge pages. Without this a child
 * faults in each 4 KiB of heap it touches (11 faults for `return 6 * 7`,
 * 1,159 for a program building a list of 20,000 strings, each a dear trap
 * on a paravirtualised MMU); with it, one fault per 2 MiB. The heap is
 * grown by SBX_HUGE_HEAP bytes that the spawner never touches, advised
 * MADV_HUGEPAGE, and its top chunk is made to start on a 2 MiB boundary
 * inside them (one allocation, kept for good, fills the stretch before).
 * malloc is set to keep it so: the top of the heap is never given back
 * (a child exits instead), and requests up to 4 MiB are served from the
 * heap rather than each mapped apart (the VM's 16 MiB stack is still
 * mapped on its own: a run uses its first pages only). Those settings
 * end glibc's sliding mmap threshold, for the children too. Where huge
 * pages are not allowed (the system's "never", disabled for the process)
 * nothing changes; a check that fails leaves the heap as it was, but for
 * the settings. A child touching any of it holds 2 MiB of memory at least. */
static void huge_heap_top(void) {
#if !defined(__SANITIZE_ADDRESS__) /* the sanitizer's allocator has no brk heap */
  if (!sbx_thp_allowed()) return;
  if (!mallopt(M_TRIM_THRESHOLD, (int)(SBX_HUGE_HEAP * 4)) || !mallopt(M_MMAP_THRESHOLD, 4 << 20) ||
      !mallopt(M_TOP_PAD, (int)SBX_HUGE_HEAP))
    return;
  /* a request the top chunk cannot meet grows the heap by it and the pad;
   * freed, it joins the top chunk again (volatile: the compiler may not
   * drop the pair) */
  void *volatile grow = malloc(mallinfo2().keepcost + ((size_t)256 << 10));
  free(grow);
  mallopt(M_TOP_PAD, 128 << 10); /* glibc's default, for any later growth */
  uintptr_t end = (uintptr_t)sbrk(0);
  uintptr_t top = end - mallinfo2().keepcost;
  /* at least 1 MiB above the top: the plug below is then too large for
   * any free chunk of malloc's bins and is carved from the top chunk (with
   * 64 bytes, as before, the brk's random offset made it small now and then,
   * a free chunk served it, the check below gave up, and that spawner's
   * children got small pages: 1 clean-clone test run in some hundreds) */
  uintptr_t start = (top + ((uintptr_t)1 << 20) + SBX_HUGE_PAGE - 1) / SBX_HUGE_PAGE * SBX_HUGE_PAGE;
  /* to the end of the heap, not the last 2 MiB boundary: one mapping
   * fewer for each fork to copy (the last, partial 2 MiB gets small pages) */
  uintptr_t stop = end;
  if (top % 16 || end % 4096 || stop < start + SBX_HUGE_PAGE) return;
  /* a chunk from `top` to 16 bytes before `start` (its size is the
   * request plus 8, rounded to 16): the top chunk's header then sits in
   * the last 16 bytes below the boundary, and a child's first allocation
   * from it begins exactly there */
  char *plug = malloc((size_t)(start - 16 - top) - 8);
  if ((uintptr_t)plug != top + 16 || (uintptr_t)sbrk(0) != end || mallinfo2().keepcost != end - (start - 16))
    return; /* not where expected: leave the heap as it is (the chunk stays taken) */
  /* The stretch may hold pages, or page tables, from the spawner's start
   * (the heap reached there, then shrank), and a 2 MiB range with a page
   * table gets small pages only. Only zeros lie there (the inside of the
   * free top chunk), so it is replaced by fresh memory: no page, no table. */
  void *fresh = mmap((void *)start, (size_t)(stop - start), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (fresh == MAP_FAILED) {
    /* the kernel keeps the old stretch when it can; when it did not, the
     * top chunk has a hole and this spawner must not fork anything (the
     * host then forks runs itself) */
    unsigned char page;
    if (mincore((void *)start, 4096, &page) != 0 && errno == ENOMEM) child_exit(1);
    return;
  }
  madvise((void *)start, (size_t)(stop - start), MADV_HUGEPAGE);
#endif
}

/* Stop the kernel's restartable-sequences bookkeeping for the spawner's
 * thread (glibc registers it at start-up). With it, the kernel writes the
 * thread's current CPU into the registered area (in the thread's TLS)
 * whenever the thread returns to user space on a new CPU or after a fork;
 * as that page is shared copy-on-write between the spawner and every
 * child alive, each such write is a copy-on-write fault with a TLB flush:
 * one in every child as it first runs, one in the spawner after every
 * fork. Only sched_getcpu reads the area, and glibc falls back to the
 * system call when it is unregistered. Failing is harmless (a cost). */
static void unregister_rseq(void) {
#if defined(SYS_rseq) && defined(RSEQ_SIG)
  if (__rseq_size == 0) return; /* not registered */
  void *area = (char *)__builtin_thread_pointer() + __rseq_offset;
  /* the length given at registration: glibc's __rseq_size, or the
   * original 32-byte struct rseq when it reports the feature size only */
  if (syscall(SYS_rseq, area, __rseq_size, 1 /* RSEQ_FLAG_UNREGISTER */, RSEQ_SIG) != 0)
    syscall(SYS_rseq, area, 32u, 1, RSEQ_SIG);
#endif
}

/* The spawner's loop: one message, one child. */
GENO_NORETURN static void spawner_main(int ctl, pid_t host, int cpu, bool separate) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != host) child_exit(0);
  /* Bound to its CPU first, so that all it touches from here on (and
   * every child, which inherits the binding) stays there. The host
   * checked that the CPU is one it may use. */
  if (cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) child_exit(1);
  }
  /* Do now what every child would otherwise do itself (signals to their
   * defaults, the bounding set, the timezone, the stack bounds). */
  bool prepared = sbx_prepare_spawner();
  /* a change of credentials cleared it */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != host) child_exit(0);
  plug_heap_holes();
  huge_heap_top();
  unregister_rseq();
  /* Read the clocks once: the vDSO's data pages (the kernel's clock data,
   * the paravirtual clock's page) are then mapped here, and fork copies
   * such entries (they map no ordinary memory), so a child reading the
   * time does not fault them in. */
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  clock_gettime(CLOCK_REALTIME, &now);
  /* The spawner maps nothing more from here on: a child's address space
   * at its start is this plus its request's region (give or take the few
   * pages its small tables take), so it need not read /proc for it. */
  uint64_t mapped = sbx_mapped_bytes();
  /* A separate spawner tells the host it is ready (geno_spawner_exec). */
  if (separate && send(ctl, "r", 1, MSG_NOSIGNAL) != 1) child_exit(1);
  for (;;) {
    SpawnMsg m;
    struct iovec iov = {&m, sizeof m};
    union {
      struct cmsghdr h;
      char buf[CMSG_SPACE(2 * sizeof(int))];
    } u;
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    ssize_t n = recvmsg(ctl, &msg, MSG_CMSG_CLOEXEC);
    if (n == 0) child_exit(0); /* the host closed the spawner */
    if (n < 0) {
      if (errno == EINTR) continue;
      child_exit(1);
    }
    struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
    int fds[2] = {-1, -1};
    if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
        h->cmsg_len == CMSG_LEN(2 * sizeof(int)))
      memcpy(fds, CMSG_DATA(h), sizeof fds);
    if (n != (ssize_t)sizeof m || fds[0] < 0 || fds[1] < 0) {
      if (fds[0] >= 0) close(fds[0]);
      if (fds[1] >= 0) close(fds[1]);
      continue; /* the host's channel end closes: it sees no pid */
    }
    pid_t pid = (pid_t)syscall(SYS_clone, (unsigned long)(CLONE_PARENT | SIGCHLD), 0, NULL, NULL, 0);
    if (pid == 0) {
      spawned_child(fds[0], fds[1], &m, host, prepared, mapped, separate);
    }
    close(fds[0]);
    close(fds[1]);
  }
}

geno_spawner *geno_spawner_start(void) { return geno_spawner_start_on(-1); }

geno_spawner *geno_spawner_start_on(int cpu) {
  if (cpu >= 0) {
    cpu_set_t mine;
    if (cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof mine, &mine) != 0 || !CPU_ISSET(cpu, &mine)) {
      errno = EINVAL;
      return NULL;
    }
  }
  geno_spawner *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  char err[160];
  if (!sbx_filter_prepare(err, sizeof err)) { /* compiled once, inherited */
    free(s);
    errno = ENOSYS;
    return NULL;
  }
  vm_prepare_thread();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    free(s);
    return NULL;
  }
  pid_t host = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    /* keep only the control socket */
    int keep = sv[1];
    if (keep != 3) {
      if (dup2(keep, 3) < 0) child_exit(1);
      keep = 3;
    }
#ifdef SYS_close_range
    syscall(SYS_close_range, 4, ~0U, 0);
#endif
    for (int fd = 0; fd < 3; fd++) close(fd);
    int devnull = open("/dev/null", O_RDWR); /* 0 */
    if (devnull == 0) {
      dup2(0, 1);
      dup2(0, 2);
    }
    spawner_main(keep, host, cpu, false);
  }
  close(sv[1]);
  if (pid < 0) {
    close(sv[0]);
    free(s);
    return NULL;
  }
  s->ctl = sv[0];
  s->pid = pid;
  return s;
}

geno_spawner *geno_spawner_exec(const char *path, int cpu) {
  if (!path || !*path || (cpu >= 0 && cpu >= CPU_SETSIZE)) {
    errno = EINVAL;
    return NULL;
  }
  if (cpu >= 0) {
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0 || !CPU_ISSET(cpu, &mine)) {
      errno = EINVAL;
      return NULL;
    }
  }
  geno_spawner *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    free(s);
    return NULL;
  }
  /* Everything the new process is given is prepared before the fork:
   * between fork and exec a child of a threaded host may only make
   * async-signal-safe calls. */
  char host_arg[24], cpu_arg[24];
  snprintf(host_arg, sizeof host_arg, "%d", (int)getpid());
  snprintf(cpu_arg, sizeof cpu_arg, "%d", cpu);
  char *const argv[] = {(char *)"geno-spawner", host_arg, cpu_arg, NULL};
  pid_t pid = fork();
  if (pid == 0) {
    if (dup2(sv[1], 3) < 0) child_exit(1); /* dup2 clears close-on-exec */
#ifdef SYS_close_range
    syscall(SYS_close_range, 4, ~0U, 0);
#endif
    int devnull = open("/dev/null", O_RDWR);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0) child_exit(1);
    if (devnull > 3) close(devnull);
    /* the host's environment as it is now, as a forked spawner holds it
     * (what a run granted the env capability may read) */
    execve(path, argv, environ);
    child_exit(127);
  }
  close(sv[1]);
  if (pid < 0) {
    close(sv[0]);
    free(s);
    return NULL;
  }
  s->ctl = sv[0];
  s->pid = pid;
  s->separate = true;
  /* It says "r" once set up; end of file (exec failed, or it could not
   * set itself up) or silence for 10 s: no spawner. */
  struct pollfd p = {sv[0], POLLIN, 0};
  char ready = 0;
  int n;
  do n = poll(&p, 1, 10000);
  while (n < 0 && errno == EINTR);
  if (n != 1 || recv(sv[0], &ready, 1, 0) != 1 || ready != 'r') {
    geno_spawner_free(s);
    errno = ENOEXEC;
    return NULL;
  }
  return s;
}

int sbx_spawner_exec_main(int argc, char **argv) {
  if (argc != 3) return 2;
  char *end;
  long host = strtol(argv[1], &end, 10);
  if (*end || host <= 0 || host != (pid_t)host) return 2;
  long cpu = strtol(argv[2], &end, 10);
  if (*end || cpu < -1 || cpu >= CPU_SETSIZE) return 2;
  if (getppid() != (pid_t)host) return 2;
  char err[160];
  if (!sbx_filter_prepare(err, sizeof err)) return 1; /* compiled once, inherited */
  vm_prepare_thread();
  spawner_main(3, (pid_t)host, (int)cpu, true);
}

bool geno_spawner_alive(geno_spawner *s) {
  if (!s || atomic_load(&s->dead)) return false;
  pid_t r = waitpid(s->pid, NULL, WNOHANG);
  /* ECHILD: another thread reaped it a moment ago */
  if (r == s->pid || (r < 0 && errno == ECHILD)) {
    atomic_store(&s->dead, true);
    return false;
  }
  return true;
}

int geno_spawner_pid(const geno_spawner *s) { return s ? (int)s->pid : 0; }

void geno_spawner_free(geno_spawner *s) {
  if (!s) return;
  close(s->ctl); /* the spawner exits when it reads the end */
  if (!atomic_load(&s->dead)) {
    kill(s->pid, SIGKILL);
    while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  free(s);
}

int sbx_spawner_launch(const geno_spawner *sp, int chan_child_end, const char *source, size_t len,
                       const char *filename, const geno_config *cfg, SbxChildFn fn, void *arg, size_t out_cap,
                       int *region) {
  if (sp->separate && !sbx_child_body_id(fn)) return -ENOTSUP; /* forked from the host instead */
  Buf req = BUF_INIT;
  if (!encode_request(&req, source, len, filename, cfg, fn, arg)) {
    buf_free(&req);
    return -ENOMEM;
  }
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t req_off = (sizeof(SbxOutput) + out_cap + page - 1) / page * page;
  size_t total = req_off + req.len;
  int memfd = (int)syscall(SYS_memfd_create, "geno-run", 1u /* MFD_CLOEXEC */);
  /* A new memfd reads as zeros: the output header's len is 0 already. */
  if (memfd < 0 || ftruncate(memfd, (off_t)total) != 0) {
    int e = errno;
    if (memfd >= 0) close(memfd);
    buf_free(&req);
    return -e;
  }
  size_t done = 0;
  while (done < req.len) {
    ssize_t k = pwrite(memfd, req.data + done, req.len - done, (off_t)(req_off + done));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      int e = k < 0 ? errno : EIO;
      close(memfd);
      buf_free(&req);
      return -e;
    }
    done += (size_t)k;
  }
  SpawnMsg m = {total, out_cap, req_off, req.len};
  buf_free(&req);
  struct iovec iov = {&m, sizeof m};
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(2 * sizeof(int))];
  } u;
  memset(&u, 0, sizeof u);
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = u.buf;
  msg.msg_controllen = sizeof u.buf;
  struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
  h->cmsg_level = SOL_SOCKET;
  h->cmsg_type = SCM_RIGHTS;
  h->cmsg_len = CMSG_LEN(2 * sizeof(int));
  int fds[2] = {chan_child_end, memfd};
  memcpy(CMSG_DATA(h), fds, sizeof fds);
  ssize_t k;
  do k = sendmsg(sp->ctl, &msg, MSG_NOSIGNAL);
  while (k < 0 && errno == EINTR);
  int e = errno;
  if (k != (ssize_t)sizeof m) {
    close(memfd);
    return -(e ? e : EIO);
  }
  *region = memfd;
  return 0;
}
