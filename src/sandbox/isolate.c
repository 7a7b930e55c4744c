/* geno_run_isolated and the parent's side of process isolation: fork the
 * child, supervise it (wall-clock deadline, host-callback broker, message
 * bounds), always reap it, and turn how it ended into a geno_result.
 *
 * Invariants the parent keeps whatever the child does:
 * - it never blocks without a bound while a deadline is set (all waiting
 *   is poll() against the kill time; replies are sent non-blocking);
 * - the child is always killed (if still running) and reaped before
 *   returning, and every descriptor and mapping made here is released;
 * - nothing from the child is used before it is checked (wire.c);
 * - a child that breaks the protocol is killed and reported as E500. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../base/utf8.h"
#include "../runtime/config.h"
#include "../runtime/hostvalue.h"
#include "../runtime/preload.h"
#include "../runtime/result.h"
#include "../runtime/run.h"
#include "../vm/vm.h"
#include "wire.h"

/* Largest shared output region: the child writes its output there and
 * nowhere else, and the parent takes it from there, whether the run
 * finished or the child was killed. Mapped without reserving memory, so
 * only the pages written cost anything; output beyond it ends the run
 * with E505 (the output so far kept). 1 GiB is 2,600 times the bytes the
 * default output limit allows. */
#define SBX_MAX_SHARED_OUTPUT ((size_t)1 << 30)

/* Output bytes allowed on top of 4 per character of max_output_length
 * (the most a code point takes in UTF-8), for anything the runtime adds
 * outside the program's prints (test-mode reports). */
#define SBX_OUTPUT_SLACK ((size_t)64 << 10)

/* Without pidfd_open (Linux < 5.3) the parent learns of a child's death by
 * polling waitpid this often; 10 ms is far below any useful timeout. */
#define SBX_POLL_TICK_MS 10

/* Bytes asked of each read() from the channel. */
#define SBX_READ_CHUNK ((size_t)64 << 10)

/* A reply to an INVOKE the parent waits for (see sup_invoke). */
typedef struct SupWait {
  bool done;
  char *body; /* malloc'd copy of the INVOKE_REPLY body */
  size_t len;
} SupWait;

typedef struct Sup {
  const geno_config *cfg;
  RtCallLink *link;      /* how host callbacks call functions the child lent (NULL: they cannot) */
  SupWait *waiting;      /* the innermost INVOKE in progress, or NULL */
  bool dead;             /* a call into the child failed: it was stopped */
  pid_t pid;
  int sock;              /* parent's end, non-blocking */
  int pidfd;             /* readable when the child ends; -1 if unsupported */
  double kill_at;        /* monotonic ms at which the child is killed; 0 = never */
  char *in;              /* bytes received and not yet consumed */
  size_t in_len, in_cap;
  bool eof;              /* the child's end is closed */
  /* What was learnt about the end of the run: */
  geno_result *result;   /* a valid RESULT */
  char *setup_error;     /* SETUP_FAILED text */
  bool no_memory;        /* NO_MEMORY */
  const char *violation; /* protocol violation (static text) */
  bool parent_oom;       /* this process ran out of memory */
  bool timed_out;        /* the deadline passed; the SIGKILL is ours */
  bool reaped, status_known;
  int status;
  struct rusage ru;
} Sup;

static bool finished(const Sup *s) {
  return s->result || s->setup_error || s->no_memory || s->violation || s->parent_oom;
}

static size_t output_cap(const geno_config *cfg) {
  uint64_t chars = cfg->max_output_length;
  if (chars > (SIZE_MAX - SBX_OUTPUT_SLACK) / 4) return SIZE_MAX;
  return (size_t)chars * 4 + SBX_OUTPUT_SLACK;
}

static int ms_left(const Sup *s) {
  if (s->kill_at <= 0) return -1;
  double left = s->kill_at - rt_now_ms();
  if (left <= 0) return 0;
  return left > INT_MAX ? INT_MAX : (int)ceil(left);
}

/* Send a reply without ever blocking past the deadline or dying of
 * SIGPIPE if the child is gone. False when it could not be sent. */
static bool send_reply(Sup *s, const char *p, size_t n) {
  while (n) {
    ssize_t k = send(s->sock, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k > 0) {
      p += k;
      n -= (size_t)k;
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int left = ms_left(s);
      if (left == 0) return false;
      struct pollfd pf = {s->sock, POLLOUT, 0};
      if (poll(&pf, 1, left) < 0 && errno != EINTR) return false;
      continue;
    }
    return false;
  }
  return true;
}

static void handle_frame(Sup *s, uint32_t type, const char *body, size_t len) {
  switch (type) {
  case SBX_MSG_RESULT: {
    SbxReader r;
    sbx_reader_init(&r, body, len, sbx_node_budget(s->cfg->memory_bytes, len));
    s->result = sbx_get_result(&r, output_cap(s->cfg));
    if (!s->result) {
      if (r.bad) s->violation = "the sandbox child sent a malformed result";
      else s->parent_oom = true;
    }
    return;
  }
  case SBX_MSG_INVOKE_REPLY:
    if (!s->waiting || s->waiting->done) {
      s->violation = "the sandbox child answered a call nobody made";
      return;
    }
    s->waiting->body = malloc(len ? len : 1);
    if (!s->waiting->body) {
      s->parent_oom = true;
      return;
    }
    memcpy(s->waiting->body, body, len);
    s->waiting->len = len;
    s->waiting->done = true;
    return;
  case SBX_MSG_CALL: {
    Buf reply = BUF_INIT;
    const char *why = NULL;
    if (!sbx_broker_handle(s->cfg, body, len, &reply, &why, s->link)) s->violation = why;
    else if (reply.failed || reply.len < SBX_FRAME_HEADER) s->parent_oom = true;
    else send_reply(s, reply.data, reply.len); /* a lost reply shows as the child's end */
    buf_free(&reply);
    return;
  }
  case SBX_MSG_SETUP_FAILED: {
    size_t n = len, bad;
    if (!utf8_valid(body, n, &bad)) n = bad;
    if (n > 512) n = 512; /* an honest message is one line */
    s->setup_error = malloc(n + 1);
    if (!s->setup_error) {
      s->parent_oom = true;
      return;
    }
    memcpy(s->setup_error, body, n);
    s->setup_error[n] = '\0';
    return;
  }
  case SBX_MSG_NO_MEMORY:
    if (len) s->violation = "the sandbox child sent a malformed message";
    else s->no_memory = true;
    return;
  default:
    s->violation = "the sandbox child sent an unknown message";
  }
}

/* Drop the first n bytes of the input buffer. */
static void consume(Sup *s, size_t n) {
  memmove(s->in, s->in + n, s->in_len - n);
  s->in_len -= n;
}

/* Handle every complete frame in the input buffer, each taken out of it
 * first when its handling can read more frames (a host callback may call
 * functions in the child, which reads and handles their replies). */
static void process_frames(Sup *s) {
  while (!finished(s) && s->in_len >= SBX_FRAME_HEADER) {
    uint32_t type, len;
    sbx_frame_header(s->in, &type, &len);
    if (len > SBX_MAX_FRAME) {
      s->violation = "the sandbox child sent an oversized message";
      break;
    }
    if (s->in_len - SBX_FRAME_HEADER < len) break; /* incomplete */
    if (type == SBX_MSG_CALL) {
      char *body = malloc(len ? len : 1);
      if (!body) {
        s->parent_oom = true;
        break;
      }
      memcpy(body, s->in + SBX_FRAME_HEADER, len);
      consume(s, SBX_FRAME_HEADER + (size_t)len);
      handle_frame(s, type, body, len);
      free(body);
    } else {
      handle_frame(s, type, s->in + SBX_FRAME_HEADER, len);
      consume(s, SBX_FRAME_HEADER + (size_t)len);
    }
  }
}

/* Make room for `extra` more input bytes (exactly, for large frames). */
static bool in_reserve(Sup *s, size_t extra) {
  if (s->in_cap - s->in_len >= extra) return true;
  size_t cap = s->in_len + extra;
  char *p = realloc(s->in, cap);
  if (!p) return false;
  s->in = p;
  s->in_cap = cap;
  return true;
}

/* Read whatever the child has sent, handling frames as they complete,
 * until the socket would block, closes, or the run is decided. */
static void read_available(Sup *s) {
  while (!s->eof && !finished(s)) {
    size_t want = SBX_READ_CHUNK;
    if (s->in_len >= SBX_FRAME_HEADER) { /* a partial frame: read the rest at once */
      uint32_t type, len;
      sbx_frame_header(s->in, &type, &len);
      if (len <= SBX_MAX_FRAME && SBX_FRAME_HEADER + (size_t)len - s->in_len > want)
        want = SBX_FRAME_HEADER + (size_t)len - s->in_len;
    }
    if (!in_reserve(s, want)) {
      s->parent_oom = true;
      return;
    }
    ssize_t k = recv(s->sock, s->in + s->in_len, want, MSG_DONTWAIT);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return; /* EAGAIN: nothing more for now (or an error: the end shows via the pid) */
    if (k == 0) {
      s->eof = true;
      return;
    }
    s->in_len += (size_t)k;
    process_frames(s);
  }
}

/* Collect the child's exit status; with WNOHANG, false while it runs. */
static bool reap(Sup *s, int flags) {
  for (;;) {
    pid_t r = wait4(s->pid, &s->status, flags, &s->ru);
    if (r == s->pid) {
      s->reaped = s->status_known = true;
      return true;
    }
    if (r == 0) return false;
    if (errno == EINTR) continue;
    /* ECHILD: the host reaped it (SIGCHLD ignored, or a waitpid(-1)
     * elsewhere). It is gone; only its status is lost. */
    s->reaped = true;
    return true;
  }
}

static void float_repr(char *out, size_t n, double d);

/* ---- calls into the child (geno_function_call in the parent) ---------------- */

static bool sup_alive(RtCallLink *link) {
  Sup *s = link->ctx;
  return s && !s->dead && !s->eof && !s->reaped && !finished(s);
}

/* Send an INVOKE and wait for its reply, handling the child's own host
 * callbacks meanwhile (a route handler may read a file). The wait has a
 * deadline of its own, timeout_s + the kill grace from now: the child
 * enforces timeout_s on the function cooperatively, and one that does not
 * answer by then is killed, which ends the run (E501). */
static geno_value *sup_invoke(RtCallLink *link, uint32_t handle, const geno_value *const *args, size_t nargs,
                              char **error) {
  Sup *s = link->ctx;
  if (!s || !sup_alive(link)) {
    *error = strdup("the sandboxed program has ended");
    return NULL;
  }
  Buf b = BUF_INIT;
  sbx_frame_begin(&b, SBX_MSG_INVOKE);
  sbx_put_u32(&b, handle);
  sbx_put_u32(&b, (uint32_t)nargs);
  bool encoded = true;
  for (size_t i = 0; i < nargs && encoded; i++) encoded = sbx_put_value(&b, args[i]);
  if (!encoded || !sbx_frame_end(&b)) {
    buf_free(&b);
    *error = strdup(encoded ? "the arguments are too large to pass to the program"
                            : "an argument is nested too deeply to pass to the program");
    return NULL;
  }
  double saved_kill = s->kill_at;
  double timeout = s->cfg->timeout_s;
  s->kill_at = timeout > 0 ? rt_now_ms() + (timeout + SBX_KILL_GRACE_S) * 1000.0 : 0;
  SupWait w = {0};
  SupWait *outer = s->waiting;
  s->waiting = &w;
  bool ok = send_reply(s, b.data, b.len), late = false;
  buf_free(&b);
  while (ok && !w.done && !finished(s) && !s->eof) {
    int wait_ms = ms_left(s);
    if (wait_ms == 0) {
      late = true;
      break;
    }
    if (s->pidfd < 0 && (wait_ms < 0 || wait_ms > SBX_POLL_TICK_MS)) wait_ms = SBX_POLL_TICK_MS;
    struct pollfd p[2] = {{s->sock, POLLIN, 0}, {s->pidfd, POLLIN, 0}};
    int n = poll(p, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (p[0].revents) read_available(s);
    if (w.done || finished(s)) break;
    if (s->pidfd >= 0 ? p[1].revents != 0 : reap(s, WNOHANG)) {
      read_available(s);
      break;
    }
  }
  s->waiting = outer;
  s->kill_at = saved_kill;
  if (w.done) {
    SbxReader r;
    sbx_reader_init(&r, w.body, w.len, sbx_node_budget(s->cfg->memory_bytes, w.len));
    uint8_t status = sbx_get_u8(&r);
    geno_value *v = NULL;
    if (status == 1) {
      v = sbx_get_value(&r);
      if (!v && r.bad) s->violation = "the sandbox child sent a malformed reply";
      if (!v) *error = strdup(r.bad ? "the program's reply could not be decoded" : "out of memory");
    } else {
      *error = sbx_get_text(&r, SBX_MAX_FRAME);
      if (!*error) {
        s->violation = "the sandbox child sent a malformed reply";
        *error = strdup("the program's reply could not be decoded");
      }
    }
    free(w.body);
    return v;
  }
  /* The child is gone, broke the protocol, or overran its time: it is
   * stopped now, and nothing it lent can be called any more. */
  s->dead = true;
  if (late) s->timed_out = true;
  if (!s->reaped) kill(s->pid, SIGKILL);
  char t[40];
  float_repr(t, sizeof t, timeout);
  Buf m = BUF_INIT;
  if (late) buf_printf(&m, "E501: the program did not answer within %s seconds and was stopped", t);
  else buf_printf(&m, "the sandboxed program ended while the host called it");
  *error = m.failed ? (buf_free(&m), strdup("the sandboxed program was stopped")) : buf_take(&m);
  return NULL;
}

static void supervise(Sup *s) {
  for (;;) {
    if (finished(s)) return;
    int wait_ms = ms_left(s);
    if (wait_ms == 0) {
      s->timed_out = true;
      return;
    }
    if (s->pidfd < 0 && (wait_ms < 0 || wait_ms > SBX_POLL_TICK_MS)) wait_ms = SBX_POLL_TICK_MS;
    struct pollfd p[2] = {{s->eof ? -1 : s->sock, POLLIN, 0}, {s->pidfd, POLLIN, 0}};
    int n = poll(p, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      s->violation = "the sandbox could not wait for its child";
      return;
    }
    if (p[0].revents) read_available(s);
    if (finished(s)) return;
    bool ended = s->pidfd >= 0 ? p[1].revents != 0 : reap(s, WNOHANG);
    if (ended) {
      read_available(s); /* whatever it sent before it ended */
      return;
    }
  }
}

/* Python's repr of a float in the range timeouts use (`5.0`, `0.3`), as
 * the reference prints it in the timeout message. */
static void float_repr(char *out, size_t n, double d) {
  if (d >= 1e-4 && d < 1e16) {
    for (int k = 1; k <= 17; k++) {
      snprintf(out, n, "%.*f", k, d);
      if (strtod(out, NULL) == d) return;
    }
  }
  snprintf(out, n, "%.17g", d);
}

static void add_diag(geno_result *r, int code, const char *fmt, ...) GENO_PRINTF(3, 4);
static void add_diag(geno_result *r, int code, const char *fmt, ...) {
  Buf b = BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(&b, fmt, ap);
  va_end(ap);
  rt_result_add(r, code, NULL, b.failed ? "sandbox failure" : b.data);
  buf_free(&b);
  r->ok = false;
}

static void add_timeout(geno_result *r, const geno_config *cfg) {
  r->isolation = GENO_ISOLATION_DEADLINE;
  char t[40];
  float_repr(t, sizeof t, cfg->timeout_s);
  add_diag(r, E_TIMEOUT, "Execution timed out after %s seconds", t);
}

static void add_memory(geno_result *r, const geno_config *cfg) {
  r->isolation = GENO_ISOLATION_MEMORY;
  add_diag(r, E_RESOURCE, "Memory limit exceeded: the program needed more than the sandbox's %llu bytes",
           (unsigned long long)cfg->memory_bytes);
}

/* Explain the end of a child that did not deliver a result. */
static void diagnose(const Sup *s, geno_result *r) {
  const geno_config *cfg = s->cfg;
  if (s->violation) {
    r->isolation = GENO_ISOLATION_VIOLATION;
    add_diag(r, E_SECURITY, "Sandbox violation: %s; the child was stopped", s->violation);
    return;
  }
  if (s->parent_oom) {
    r->isolation = GENO_ISOLATION_SETUP_FAILED;
    add_diag(r, E_RESOURCE, "The host ran out of memory while supervising the sandboxed run");
    return;
  }
  if (s->setup_error) {
    r->isolation = GENO_ISOLATION_SETUP_FAILED;
    add_diag(r, E_SECURITY, "Sandbox setup failed, nothing was run: %s", s->setup_error);
    return;
  }
  if (s->no_memory) {
    add_memory(r, cfg);
    return;
  }
  if (s->status_known && WIFSIGNALED(s->status)) {
    int sig = WTERMSIG(s->status);
    uint64_t cpu_limit = sbx_cpu_limit(cfg);
    uint64_t cpu_used = (uint64_t)s->ru.ru_utime.tv_sec + (uint64_t)s->ru.ru_stime.tv_sec;
    const char *abbrev = sigabbrev_np(sig);
    r->isolation = GENO_ISOLATION_CRASHED;
    if (sig == SIGKILL && s->timed_out) add_timeout(r, cfg);
    else if (sig == SIGXCPU || (sig == SIGKILL && cpu_limit && cpu_used + 1 >= cpu_limit)) {
      r->isolation = GENO_ISOLATION_CPU_LIMIT;
      add_diag(r, E_TIMEOUT, "CPU time limit exceeded (%llu seconds)", (unsigned long long)cpu_limit);
    } else if (sig == SIGKILL)
      add_diag(r, E_RESOURCE, "The sandbox child was killed by the system (most likely out of memory)");
    else if (sig == SIGSYS) {
      r->isolation = GENO_ISOLATION_VIOLATION;
      add_diag(r, E_SECURITY, "The sandbox child made a forbidden system call and was killed by the "
                              "seccomp filter (signal %d, SIGSYS)", sig);
    } else if (sig == SIGXFSZ) {
      r->isolation = GENO_ISOLATION_VIOLATION;
      add_diag(r, E_SECURITY, "The sandbox child tried to write to a file (signal %d, SIGXFSZ)", sig);
    } else
      add_diag(r, E_SECURITY, "sandbox child crashed (signal %d, SIG%s)", sig, abbrev ? abbrev : "?");
    return;
  }
  if (s->timed_out) {
    add_timeout(r, cfg);
    return;
  }
  r->isolation = GENO_ISOLATION_CRASHED;
  if (s->status_known && WIFEXITED(s->status))
    add_diag(r, E_SECURITY, "The sandbox child exited with status %d without a result", WEXITSTATUS(s->status));
  else
    add_diag(r, E_SECURITY, "The sandbox child ended without a result and its exit status was taken "
                            "by another part of the host (is SIGCHLD ignored?)");
}

/* The output a child printed before it ended, from the shared region:
 * the longest valid UTF-8 prefix of what it published (the child may have
 * been killed mid-character, or may have written garbage on purpose). */
static void partial_output(geno_result *r, const SbxOutput *out, int region, size_t cap) {
  if (out) {
    uint64_t len = __atomic_load_n(&out->len, __ATOMIC_ACQUIRE);
    size_t n = len > cap ? cap : (size_t)len;
    size_t bad;
    if (!utf8_valid(out->data, n, &bad)) n = bad;
    rt_result_set_output(r, out->data, n);
    return;
  }
  /* The spawner's memfd, read rather than mapped (see sbx_spawner_launch);
   * the child is gone, so nothing changes under the reads. */
  uint64_t len = 0;
  if (pread(region, &len, sizeof len, 0) != (ssize_t)sizeof len) len = 0;
  size_t n = len > cap ? cap : (size_t)len;
  char *data = n ? malloc(n) : NULL;
  size_t got = 0;
  while (data && got < n) {
    ssize_t k = pread(region, data + got, n - got, (off_t)(offsetof(SbxOutput, data) + got));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  size_t bad;
  if (data && !utf8_valid(data, got, &bad)) got = bad;
  rt_result_set_output(r, data ? data : "", data ? got : 0);
  free(data);
}

/* The pid the spawner writes first into a spawned child's channel; 0
 * when it does not come within 10 seconds (the spawner is gone). */
static pid_t read_spawned_pid(int sock) {
  uint32_t pid = 0;
  size_t got = 0;
  double until = rt_now_ms() + 10000.0;
  while (got < sizeof pid) {
    int left = (int)(until - rt_now_ms());
    if (left <= 0) return 0;
    struct pollfd p = {sock, POLLIN, 0};
    int n = poll(&p, 1, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    ssize_t k = recv(sock, (char *)&pid + got, sizeof pid - got, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return 0;
    got += (size_t)k;
  }
  return pid > 0 && pid < (1u << 30) ? (pid_t)pid : 0;
}

geno_result *sbx_run(const char *source, size_t len, const char *filename, const geno_config *cfg,
                     SbxChildFn fn, void *arg) {
  Sup s;
  memset(&s, 0, sizeof s);
  s.cfg = cfg;
  s.pidfd = -1;
  geno_result *r = NULL;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    r = rt_result_new();
    if (r) {
      r->isolation = GENO_ISOLATION_SETUP_FAILED;
      add_diag(r, E_SECURITY, "Sandbox setup failed, nothing was run: socketpair: %s", strerror(errno));
    }
    return r;
  }
  size_t out_cap = output_cap(cfg);
  if (out_cap > SBX_MAX_SHARED_OUTPUT) out_cap = SBX_MAX_SHARED_OUTPUT;
  size_t map_len = sizeof(SbxOutput) + out_cap;
  SbxOutput *out = NULL; /* the output region when mapped here (no spawner) */
  int region = -1;       /* or the spawner's memfd holding it */
  double start = rt_now_ms();
  if (cfg->spawner && !cfg->module_loader &&
      sbx_spawner_launch(cfg->spawner, sv[1], source, len, filename, cfg, fn, arg, out_cap, &region) == 0) {
    close(sv[1]);
    s.pid = read_spawned_pid(sv[0]);
    if (s.pid <= 0) {
      close(sv[0]);
      close(region);
      r = rt_result_new();
      if (r) {
        r->isolation = GENO_ISOLATION_SETUP_FAILED;
        add_diag(r, E_SECURITY, "Sandbox setup failed, nothing was run: the spawner did not start the child");
      }
      return r;
    }
  } else {
    /* A spawner that is gone (or none): fork from here. */
    out = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (out == MAP_FAILED) {
      close(sv[0]);
      close(sv[1]);
      r = rt_result_new();
      if (r) {
        r->isolation = GENO_ISOLATION_SETUP_FAILED;
        add_diag(r, E_RESOURCE, "Sandbox setup failed, nothing was run: no memory for the output region");
      }
      return r;
    }
    out->len = 0;
    SbxChildCtx ctx = {getpid(), sv[1], out, out_cap, cfg, source, len, filename, fn, arg, false, 0};
    /* The child inherits this thread's stack bounds (it cannot read /proc
     * for them once its descriptors are closed and its filter is on). */
    vm_prepare_thread();
    rt_prepare_fork();
    char ferr[160];
    (void)sbx_filter_prepare(ferr, sizeof ferr); /* a failure shows in the child's setup */
    s.pid = fork();
    if (s.pid == 0) sbx_child_main(&ctx); /* never returns */
    close(sv[1]);
    if (s.pid < 0) {
      int e = errno;
      close(sv[0]);
      munmap(out, map_len);
      r = rt_result_new();
      if (r) {
        r->isolation = GENO_ISOLATION_SETUP_FAILED;
        add_diag(r, E_RESOURCE, "Sandbox setup failed, nothing was run: fork: %s", strerror(e));
      }
      return r;
    }
  }
  s.sock = sv[0];
  fcntl(s.sock, F_SETFL, fcntl(s.sock, F_GETFL) | O_NONBLOCK);
#ifdef SYS_pidfd_open
  s.pidfd = (int)syscall(SYS_pidfd_open, s.pid, 0);
#endif
  if (cfg->wall_clock_s > 0) s.kill_at = start + cfg->wall_clock_s * 1000.0;
  else if (cfg->timeout_s > 0) s.kill_at = start + (cfg->timeout_s + SBX_KILL_GRACE_S) * 1000.0;
  s.link = rt_link_new(); /* without it (no memory) lent functions are not callable */
  if (s.link) {
    s.link->ctx = &s;
    s.link->call = sup_invoke;
    s.link->alive = sup_alive;
  }
  supervise(&s);
  if (s.link) { /* the run is over: functions the host kept stop here */
    s.link->call = NULL;
    s.link->alive = NULL;
    s.link->ctx = NULL;
    rt_link_release(s.link);
  }
  /* Always kill before reaping: a child that sent its result but lingers,
   * or one past its deadline, must not run on. Its pid stays ours until it
   * is reaped, so the signal cannot reach another process. */
  if (!s.reaped) {
    kill(s.pid, SIGKILL);
    reap(&s, 0);
  }
  if (s.result && !s.violation) {
    r = s.result;
    s.result = NULL;
    partial_output(r, out, region, out_cap); /* the output lives in the region only */
  } else {
    r = rt_result_new();
    if (r) {
      partial_output(r, out, region, out_cap);
      diagnose(&s, r);
      r->timing.total_ms = rt_now_ms() - start;
    }
  }
  geno_result_free(s.result);
  free(s.setup_error);
  free(s.in);
  if (s.pidfd >= 0) close(s.pidfd);
  close(s.sock);
  if (region >= 0) close(region);
  else munmap(out, map_len);
  return r;
}

/* ------------------------------------------------------------------------ */
/* geno_run_isolated                                                        */
/* ------------------------------------------------------------------------ */

static geno_result *child_run(const char *source, size_t len, const char *filename, const geno_config *cfg,
                              const VmOutput *output, void *arg) {
  return rt_run(source, len, filename, cfg, output, true); /* the child exits after sending it */
}

static geno_result *child_check(const char *source, size_t len, const char *filename, const geno_config *cfg,
                                const VmOutput *output, void *arg) {
  return geno_check(source, len, filename, cfg);
}

/* The child bodies a spawner of its own executable can run, by number
 * (its children cannot be handed a function address of the host). */
static const SbxChildFn bodies[] = {NULL, child_run, child_check};

unsigned sbx_child_body_id(SbxChildFn fn) {
  for (unsigned i = 1; i < ARRAY_LEN(bodies); i++)
    if (bodies[i] == fn) return i;
  return 0;
}

SbxChildFn sbx_child_body(unsigned id) { return id < ARRAY_LEN(bodies) ? bodies[id] : NULL; }

geno_isolation_end geno_result_isolation(const geno_result *r) { return r ? r->isolation : GENO_ISOLATION_FINISHED; }

static geno_result *isolated(const char *source, size_t len, const char *filename, const geno_config *cfg,
                             SbxChildFn fn, const char *operation) {
  double start = rt_now_ms();
  geno_config adopted; /* the caller's config in this library's layout */
  const char *unreadable = NULL;
  cfg = rt_config_adopt(cfg, &adopted, &unreadable);
  geno_result *r;
  if (!cfg) {
    r = rt_result_new();
    if (r) add_diag(r, E_RUNTIME, "%s", unreadable);
    return r;
  }
  char *bad = rt_config_problem(cfg, source, len);
  if (bad) {
    r = rt_result_new();
    /* worded and numbered as geno_run / geno_check word and number it */
    if (r) add_diag(r, fn == child_check ? E_PROJECT : E_RUNTIME, "%s", bad);
    free(bad);
  } else if (cfg->module_loader) {
    /* the host's loader runs here, before the fork (preload.h) */
    RtPreload pre;
    if (!rt_preload_modules(&pre, source ? source : "", source ? len : 0, cfg)) {
      r = rt_result_new();
      if (r) add_diag(r, E_RESOURCE, "out of memory while loading modules");
    } else if (pre.timed_out) {
      r = rt_result_new();
      if (r) add_diag(r, E_TIMEOUT, "Execution timed out while loading modules");
      rt_preload_free(&pre);
    } else {
      geno_config served = *cfg;
      served.module_loader = rt_preloaded_loader;
      served.module_loader_userdata = &pre;
      r = sbx_run(source ? source : "", source ? len : 0, filename, &served, fn, NULL);
      rt_preload_free(&pre);
    }
  } else {
    r = sbx_run(source ? source : "", source ? len : 0, filename, cfg, fn, NULL);
  }
  if (!r) return NULL;
  r->timing.total_ms = rt_now_ms() - start; /* the whole call, fork included */
  if (cfg->monitor) cfg->monitor(r, operation, cfg->monitor_userdata);
  return r;
}

geno_result *geno_run_isolated(const char *source, size_t len, const char *filename, const geno_config *cfg) {
  return isolated(source, len, filename, cfg, child_run, "run_isolated");
}

geno_result *geno_check_isolated(const char *source, size_t len, const char *filename, const geno_config *cfg) {
  return isolated(source, len, filename, cfg, child_check, "check");
}
