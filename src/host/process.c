/* The CLI's process callbacks (capability process): exec, exec_with_input,
 * spawn, spawn_with_input, with the reference CLI's policy.
 *
 * - No shell, ever: exec splits its command as Python's shlex.split does
 *   (POSIX rules: quotes and backslashes group, nothing else is special),
 *   and spawn takes the program and its arguments as given. `;`, `|`,
 *   `$(...)` are ordinary characters in an argument.
 * - The executable must be an absolute path (unless
 *   GENO_PROCESS_ALLOW_PATH_SEARCH=1, then PATH is searched); it is
 *   resolved to its real path, which must be in GENO_PROCESS_EXECUTABLES
 *   (a ':'-separated list) when that is set.
 * - The child gets only PATH from the environment, or all of it when env
 *   is granted too. Its standard input is the given text, or the CLI's
 *   own when none is given; it runs in a new process group.
 * - 30 seconds at most, and never past the run's deadline; then the whole
 *   group is killed: Err("Process timed out"), or E501 when the run's
 *   deadline was the limit.
 * - No process outlives its call. The child is started by a keeper, a
 *   process forked for the call that makes itself a child subreaper
 *   (PR_SET_CHILD_SUBREAPER): every descendant the child leaves behind,
 *   even one that called setsid or double-forked to leave its group, is
 *   reparented to the keeper instead of init. When the child ends (by
 *   itself, or killed at the deadline with its group) the keeper kills
 *   every process reparented to it, round after round, until it has no
 *   child left, and only then reports the child's status. Background
 *   work a command starts therefore ends with the command; the reference
 *   leaves it running (docs/compatibility.md).
 * - stdout and stderr are captured (decoded as UTF-8 with replacement)
 *   up to the collection limit; a child writing more is killed.
 * Result: Ok(ProcessResult(exit_code, stdout, stderr)), exit_code -N for
 * a child killed by signal N; failures to start are Err(text). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host.h"

/* The reference's limit on one process, in seconds. */
#define PROC_TIMEOUT_S 30.0
/* Arguments in one command: far more than any real command line (the
 * kernel's ARG_MAX allows about 2 MB in total), few enough that the argv
 * array stays small. */
#define PROC_MAX_ARGS 65536

extern char **environ;

/* ---- shlex.split -------------------------------------------------------------- */

static bool push_word(char ***v, size_t *n, size_t *cap, HostStr *w) {
  if (*n + 2 > *cap) {
    size_t c = *cap ? *cap * 2 : 8;
    char **t = realloc(*v, c * sizeof *t);
    if (!t) return false;
    *v = t;
    *cap = c;
  }
  char *s = host_str_take(w);
  if (!s) return false;
  (*v)[(*n)++] = s;
  (*v)[*n] = NULL;
  return true;
}

char **host_shlex_split(const char *s, size_t n, size_t *count, char **err) {
  char **v = calloc(1, sizeof *v);
  size_t nv = 0, cap = v ? 1 : 0;
  HostStr w = {0};
  bool in_word = false;
  const char *fail = NULL;
  if (!v) goto oom;
  for (size_t i = 0; i < n && !fail;) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      if (in_word && !push_word(&v, &nv, &cap, &w)) goto oom;
      in_word = false;
      i++;
    } else if (c == '\\') { /* outside quotes: the next character, whatever it is */
      if (i + 1 >= n) fail = "No escaped character";
      else host_str_add(&w, s + i + 1, 1);
      in_word = true;
      i += 2;
    } else if (c == '\'') { /* everything literal up to the closing quote */
      const char *close = memchr(s + i + 1, '\'', n - i - 1);
      if (!close) fail = "No closing quotation";
      else {
        host_str_add(&w, s + i + 1, (size_t)(close - s - i - 1));
        if (!w.s) host_str_add(&w, "", 0); /* '' is an empty word */
        i = (size_t)(close - s) + 1;
      }
      in_word = true;
    } else if (c == '"') { /* backslash escapes only " and \ */
      i++;
      host_str_add(&w, "", 0);
      for (;;) {
        if (i >= n) {
          fail = "No closing quotation";
          break;
        }
        if (s[i] == '"') {
          i++;
          break;
        }
        if (s[i] == '\\') {
          if (i + 1 >= n) {
            fail = "No escaped character";
            break;
          }
          if (s[i + 1] != '"' && s[i + 1] != '\\') host_str_add(&w, "\\", 1);
          host_str_add(&w, s + i + 1, 1);
          i += 2;
          continue;
        }
        host_str_add(&w, s + i, 1);
        i++;
      }
      in_word = true;
    } else {
      host_str_add(&w, s + i, 1);
      in_word = true;
      i++;
    }
    if (w.oom) goto oom;
    if (nv >= PROC_MAX_ARGS) fail = "too many arguments";
  }
  if (!fail && in_word && !push_word(&v, &nv, &cap, &w)) goto oom;
  host_str_free(&w);
  if (fail) {
    host_strv_free(v);
    *err = strdup(fail);
    return NULL;
  }
  *count = nv;
  return v;
oom:
  host_str_free(&w);
  host_strv_free(v);
  *err = NULL;
  return NULL;
}

/* ---- policy ------------------------------------------------------------------------ */

/* shutil.which over the PATH the child would get. */
static char *search_path(const char *prog) {
  struct stat st;
  if (strchr(prog, '/')) return access(prog, X_OK) == 0 && stat(prog, &st) == 0 && !S_ISDIR(st.st_mode) ? strdup(prog) : NULL;
  const char *path = getenv("PATH");
  if (!path) return NULL;
  for (const char *p = path;;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    HostStr c = {0};
    if (len) host_str_add(&c, p, len);
    else host_str_add(&c, ".", 1);
    host_str_puts(&c, "/");
    host_str_puts(&c, prog);
    char *cand = host_str_take(&c);
    if (cand && access(cand, X_OK) == 0 && stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) return cand;
    free(cand);
    if (!end) return NULL;
    p = end + 1;
  }
}

/* Check argv against the policy and replace argv[0] by the real path of
 * the executable. NULL when allowed, else the reference's message. */
static const char *check_argv(Host *h, char **argv, size_t argc, HostStr *msg) {
  if (argc == 0) return "process: command must not be empty";
  char *found = NULL;
  if (argv[0][0] != '/') {
    if (!h->path_search) return "process: executable must be an absolute path";
    found = search_path(argv[0]);
    if (!found) {
      host_str_printf(msg, "process: executable not found: %s", argv[0]);
      return msg->s;
    }
  }
  const char *exe = found ? found : argv[0];
  bool nul;
  char *real = exe[0] == '/' ? host_fs_realpath(exe, strlen(exe), &nul) : NULL;
  if (!real && exe[0] != '/') { /* a relative PATH entry: resolve against the current directory */
    char *cwd = getcwd(NULL, 0);
    HostStr a = {0};
    if (cwd) host_str_printf(&a, "%s/%s", cwd, exe);
    free(cwd);
    char *abs = host_str_take(&a);
    real = abs ? host_fs_realpath(abs, strlen(abs), &nul) : NULL;
    free(abs);
  }
  free(found);
  if (!real) return "out of memory";
  if (h->exe_allow) {
    bool listed = false;
    for (size_t i = 0; i < h->nexe_allow && !listed; i++) listed = strcmp(h->exe_allow[i], real) == 0;
    if (!listed) {
      free(real);
      return "process: executable is not in the configured allowlist";
    }
  }
  free(argv[0]);
  argv[0] = real;
  return NULL;
}

/* ---- running ------------------------------------------------------------------------- */

typedef struct Capture {
  HostStr bytes; /* what the child wrote, at most byte_cap bytes */
  bool over;    /* it wrote more: it was stopped */
} Capture;

/* envp for the child: everything, or just PATH (the reference's minimal
 * environment; the other names it keeps exist only on Windows). */
static char **child_env(Host *h, char *path_entry[2]) {
  if (h->inherit_env) return environ;
  path_entry[0] = path_entry[1] = NULL;
  for (char **e = environ; e && *e; e++)
    if (strncmp(*e, "PATH=", 5) == 0) {
      path_entry[0] = *e;
      break;
    }
  return path_entry;
}

static void kill_group(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
}

/* ---- the keeper -------------------------------------------------------------------- */
/* Everything below runs in the keeper, a fork of a host that may have other
 * threads: async-signal-safe calls only (no malloc, no stdio). */

/* The keeper's descriptors, fixed so the child's exec closes both. */
enum { KEEPER_STATUS_FD = 3, /* the child writes execve's errno here */
       KEEPER_REPORT_FD = 4  /* the keeper writes the child's pid, then its wait status */ };

static void write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    c += w;
    n -= (size_t)w;
  }
}

/* Append the decimal digits of v at p; returns the end (no snprintf here). */
static char *put_num(char *p, long v) {
  char digits[24];
  int n = 0;
  do digits[n++] = (char)('0' + v % 10);
  while ((v /= 10) > 0);
  while (n) *p++ = digits[--n];
  return p;
}

static char *put_str(char *p, const char *s) {
  while (*s) *p++ = *s++;
  return p;
}

/* "/proc/<pid><tail>" into buf. */
static void proc_path(char *buf, long pid, const char *tail) {
  *put_str(put_num(put_str(buf, "/proc/"), pid), tail) = '\0';
}

/* SIGKILL every pid in a text of decimal numbers separated by anything
 * else. Counts the kills that worked. */
static void kill_listed(const char *text, size_t n, long *pending, int *killed) {
  for (size_t i = 0; i < n; i++) {
    if (text[i] >= '0' && text[i] <= '9') {
      *pending = *pending * 10 + (text[i] - '0');
      continue;
    }
    if (*pending > 0 && kill((pid_t)*pending, SIGKILL) == 0) (*killed)++;
    *pending = 0;
  }
}

/* SIGKILL every child of the keeper. -1 when they cannot be listed (no
 * /proc), else how many kills worked. The kernel lists them in
 * /proc/PID/task/PID/children (the keeper has one thread); without that
 * file (CONFIG_PROC_CHILDREN off) /proc is scanned for processes whose
 * parent is the keeper. */
static int kill_children(void) {
  pid_t self = getpid();
  char path[96], buf[4096];
  int killed = 0;
  long pending = 0;
  /* /proc/<self>/task/<self>/children */
  *put_str(put_num(put_str(put_num(put_str(path, "/proc/"), self), "/task/"), self), "/children") = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
      if (r > 0) kill_listed(buf, (size_t)r, &pending, &killed);
    kill_listed(" ", 1, &pending, &killed);
    close(fd);
    return killed;
  }
  /* the fallback: every /proc/N/stat whose fourth field is our pid */
  int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  long got;
  while ((got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
    for (long off = 0; off < got;) {
      unsigned short reclen;
      memcpy(&reclen, buf + off + 16, sizeof reclen); /* d_reclen, after d_ino and d_off */
      const char *name = buf + off + 19;              /* d_name, after d_type */
      off += reclen;
      long pid = 0;
      const char *c = name;
      for (; *c >= '0' && *c <= '9'; c++) pid = pid * 10 + (*c - '0');
      if (*c || pid <= 0) continue;
      char stat_path[64], stat[512];
      proc_path(stat_path, pid, "/stat");
      int sfd = open(stat_path, O_RDONLY | O_CLOEXEC);
      if (sfd < 0) continue;
      ssize_t n = read(sfd, stat, sizeof stat - 1);
      close(sfd);
      if (n <= 0) continue;
      stat[n] = '\0';
      /* "pid (comm) S ppid ...": comm may hold anything, so from the last ')' */
      char *close_paren = NULL;
      for (char *q = stat; *q; q++)
        if (*q == ')') close_paren = q;
      if (!close_paren || close_paren[1] != ' ' || !close_paren[2] || close_paren[3] != ' ') continue;
      long ppid = 0;
      for (c = close_paren + 4; *c >= '0' && *c <= '9'; c++) ppid = ppid * 10 + (*c - '0');
      if (ppid == self && kill((pid_t)pid, SIGKILL) == 0) killed++;
    }
  }
  close(dir);
  return killed;
}

/* Kill every descendant left: each round kills the keeper's children and
 * waits for one to end; a killed process's own children are reparented
 * to the keeper before its parent can reap it, so when waitpid says there
 * is no child, no descendant is left. Gives up (leaving the rest to init)
 * only when children can neither be listed nor killed. */
static void sweep(void) {
  for (;;) {
    pid_t w;
    while ((w = waitpid(-1, NULL, WNOHANG)) > 0) {
    }
    if (w < 0 && errno != EINTR) return; /* ECHILD: none left */
    if (w < 0) continue;
    if (kill_children() <= 0) {
      /* none could be killed: maybe all are dead and not yet reapable,
       * else nothing more can be done */
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, NULL);
      if (waitpid(-1, NULL, WNOHANG) == 0 && kill_children() <= 0) return;
      continue;
    }
    while (waitpid(-1, NULL, 0) < 0 && errno == EINTR) {
    }
  }
}

/* The keeper: set up the child's standard streams, start it in its own
 * group, report its pid, wait for it, sweep, report its status. */
_Noreturn static void keeper(char **argv, char **envp, int in_fd, int out_fd, int err_fd, int status_fd,
                             int report_fd) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; s++) sigaction(s, &dfl, NULL); /* ignored signals stay ignored across exec */
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) _exit(126);
  /* every pipe first above the numbers dup2 fills below (a host may have
   * closed its standard streams, so a pipe can be 0, 1 or 2) */
  int in_hi = in_fd >= 0 ? fcntl(in_fd, F_DUPFD, 10) : -1, out_hi = fcntl(out_fd, F_DUPFD, 10),
      err_hi = fcntl(err_fd, F_DUPFD, 10), st_hi = fcntl(status_fd, F_DUPFD, 10),
      rep_hi = fcntl(report_fd, F_DUPFD, 10);
  if ((in_fd >= 0 && in_hi < 0) || out_hi < 0 || err_hi < 0 || st_hi < 0 || rep_hi < 0) _exit(126);
  if ((in_hi >= 0 && dup2(in_hi, 0) < 0) || dup2(out_hi, 1) < 0 || dup2(err_hi, 2) < 0) _exit(126);
  if (dup2(st_hi, KEEPER_STATUS_FD) < 0 || dup2(rep_hi, KEEPER_REPORT_FD) < 0) _exit(126);
  /* every other descriptor of the host goes; these two close on exec */
  if (close_range(KEEPER_REPORT_FD + 1, ~0U, 0) != 0)
    for (int fd = KEEPER_REPORT_FD + 1; fd < 1024; fd++) close(fd);
  fcntl(KEEPER_STATUS_FD, F_SETFD, FD_CLOEXEC);
  fcntl(KEEPER_REPORT_FD, F_SETFD, FD_CLOEXEC);
  pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);
    execve(argv[0], argv, envp);
    int e = errno;
    write_all(KEEPER_STATUS_FD, &e, sizeof e);
    _exit(127);
  }
  if (child < 0) {
    int e = errno, no = -1;
    write_all(KEEPER_STATUS_FD, &e, sizeof e);
    write_all(KEEPER_REPORT_FD, &no, sizeof no);
    _exit(126);
  }
  setpgid(child, child); /* also here: the host's kill of the group must find it */
  /* the child alone holds its streams now: they close when it and what it
   * started are gone */
  close(0);
  close(1);
  close(2);
  close(KEEPER_STATUS_FD);
  int pid_report = (int)child;
  write_all(KEEPER_REPORT_FD, &pid_report, sizeof pid_report);
  int st = 0;
  while (waitpid(child, &st, 0) < 0 && errno == EINTR) {
  }
  sweep();
  write_all(KEEPER_REPORT_FD, &st, sizeof st);
  _exit(0);
}

/* Read one int from the keeper's report pipe; false at EOF. */
static bool read_report(int fd, int *v) {
  size_t got = 0;
  while (got < sizeof *v) {
    ssize_t r = read(fd, (char *)v + got, sizeof *v - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += (size_t)r;
  }
  return true;
}

/* Run argv (argv[0] resolved) to completion. Returns NULL with the result
 * in *out ("Ok" value) or an error: *err_text set means Err(text), else
 * *error is set (a raised error). */
static geno_value *run(Host *h, char **argv, const char *input, size_t inlen, bool has_input, char **error) {
  double left = host_remaining(h);
  if (left == 0) return host_fail(error, "process: the run's deadline has passed");
  bool by_deadline = left >= 0 && left < PROC_TIMEOUT_S;
  double end = host_now() + (by_deadline ? left : PROC_TIMEOUT_S);
  int out[2] = {-1, -1}, errp[2] = {-1, -1}, in[2] = {-1, -1}, status[2] = {-1, -1}, keep[2] = {-1, -1};
  char *path_entry[2];
  char **envp = child_env(h, path_entry);
  HostStr msg = {0};
  geno_value *result = NULL;
  pid_t pid = -1; /* the child (the keeper's) */
  if (pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) || pipe2(status, O_CLOEXEC) || pipe2(keep, O_CLOEXEC) ||
      (has_input && pipe2(in, O_CLOEXEC))) {
    host_str_printf(&msg, "[Errno %d] %s", errno, strerror(errno));
    result = host_err_str(error, &msg);
    goto close_all;
  }
  pid_t keeper_pid = fork();
  if (keeper_pid < 0) {
    host_str_printf(&msg, "[Errno %d] %s", errno, strerror(errno));
    result = host_err_str(error, &msg);
    goto close_all;
  }
  if (keeper_pid == 0) keeper(argv, envp, has_input ? in[0] : -1, out[1], errp[1], status[1], keep[1]);
  close(out[1]);
  close(errp[1]);
  close(status[1]);
  close(keep[1]);
  out[1] = errp[1] = status[1] = keep[1] = -1;
  if (has_input) {
    close(in[0]);
    in[0] = -1;
    fcntl(in[1], F_SETFL, O_NONBLOCK);
  }
  int exec_errno = 0, reported = -1;
  if (!read_report(keep[0], &reported) || reported <= 0) { /* the keeper could not start the child */
    read_report(status[0], &exec_errno);
    while (waitpid(keeper_pid, NULL, 0) < 0 && errno == EINTR) {
    }
    if (!exec_errno) exec_errno = EAGAIN;
    host_str_printf(&msg, "[Errno %d] %s", exec_errno, strerror(exec_errno));
    result = host_err_str(error, &msg);
    goto close_all;
  }
  pid = (pid_t)reported;
  ssize_t got;
  do got = read(status[0], &exec_errno, sizeof exec_errno);
  while (got < 0 && errno == EINTR);
  if (got == (ssize_t)sizeof exec_errno) { /* execve failed: Python's OSError */
    while (waitpid(keeper_pid, NULL, 0) < 0 && errno == EINTR) {
    }
    host_str_printf(&msg, "[Errno %d] %s: ", exec_errno, strerror(exec_errno));
    host_py_repr(&msg, argv[0], strlen(argv[0]));
    result = host_err_str(error, &msg);
    goto close_all;
  }
  /* Feed stdin and drain both outputs until they close. A child that
   * stops reading its input must not kill us with SIGPIPE. */
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigprocmask(SIG_BLOCK, &pipe_set, &old_set);
  Capture cap[2] = {{{0}, false}, {{0}, false}};
  /* enough bytes for limit+1 code points however they are encoded, plus
   * the reference's last read */
  size_t byte_cap = h->max_collection > (SIZE_MAX - 2 * HOST_READ_CHUNK) / 4 ? SIZE_MAX / 2
                                                                                : (size_t)h->max_collection * 4 + 2 * HOST_READ_CHUNK;
  size_t fed = 0;
  bool timed_out = false, too_much = false;
  int fds[2] = {out[0], errp[0]};
  while (fds[0] >= 0 || fds[1] >= 0) {
    struct pollfd p[3];
    int np = 0, idx[3];
    for (int k = 0; k < 2; k++)
      if (fds[k] >= 0) {
        p[np] = (struct pollfd){.fd = fds[k], .events = POLLIN};
        idx[np++] = k;
      }
    if (has_input && in[1] >= 0) {
      p[np] = (struct pollfd){.fd = in[1], .events = POLLOUT};
      idx[np++] = 2;
    }
    double rest = end - host_now();
    if (rest <= 0) {
      timed_out = true;
      break;
    }
    int rc = poll(p, (nfds_t)np, (int)(rest * 1000) + 1);
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) break;
    for (int j = 0; j < np; j++) {
      if (!p[j].revents) continue;
      int k = idx[j];
      if (k == 2) {
        ssize_t w = fed < inlen ? write(in[1], input + fed, inlen - fed) : 0;
        if (w > 0) fed += (size_t)w;
        if (fed >= inlen || (w < 0 && errno != EAGAIN && errno != EINTR)) { /* all fed, or EPIPE */
          close(in[1]);
          in[1] = -1;
        }
        continue;
      }
      char buf[65536];
      ssize_t r = read(fds[k], buf, sizeof buf);
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r <= 0) {
        close(fds[k]);
        fds[k] = -1;
        continue;
      }
      size_t room = byte_cap - cap[k].bytes.len;
      if ((size_t)r > room) { /* keep exactly byte_cap bytes: more code points than the limit */
        host_str_add(&cap[k].bytes, buf, room);
        cap[k].over = true;
        too_much = true;
      } else host_str_add(&cap[k].bytes, buf, (size_t)r);
    }
    if (too_much) break;
  }
  /* drop a SIGPIPE our writes may have raised, then restore the mask */
  struct timespec zero = {0, 0};
  while (sigtimedwait(&pipe_set, NULL, &zero) > 0) {
  }
  sigprocmask(SIG_SETMASK, &old_set, NULL);
  if (timed_out || too_much) kill_group(pid);
  /* the keeper reports the child's status once it has swept away every
   * process the child left */
  int st = 0;
  if (!read_report(keep[0], &st)) st = SIGKILL; /* the keeper died: report a killed child */
  while (waitpid(keeper_pid, NULL, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    result = by_deadline ? host_fail(error, "process: " GENO_DEADLINE_PASSED " while the process ran")
                         : host_err(error, "Process timed out");
    goto free_caps;
  }
  {
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1;
    HostStr text[2] = {{0}, {0}};
    uint64_t report = 0;
    bool ok = true;
    for (int k = 0; k < 2 && ok; k++)
      ok = host_decode_limited(&text[k], (const unsigned char *)(cap[k].bytes.s ? cap[k].bytes.s : ""),
                              cap[k].bytes.len, h->max_collection, &report);
    if (!ok || too_much)
      result = host_size_error(error, "String", ok ? h->max_collection + 1 : report, h->max_collection);
    else if (text[0].oom || text[1].oom || cap[0].bytes.oom || cap[1].bytes.oom)
      result = host_fail(error, "out of memory");
    else {
      static const char *const names[] = {"exit_code", "stdout", "stderr"};
      geno_value *f[3] = {geno_value_new_int(code), geno_value_new_string(text[0].s ? text[0].s : "", text[0].len),
                          geno_value_new_string(text[1].s ? text[1].s : "", text[1].len)};
      geno_value *pr = NULL;
      if (f[0] && f[1] && f[2]) pr = geno_value_new_ctor("ProcessResult", names, f, 3);
      else
        for (int k = 0; k < 3; k++) geno_value_free(f[k]);
      result = host_value(error, pr ? geno_value_new_ok(pr) : NULL);
    }
    host_str_free(&text[0]);
    host_str_free(&text[1]);
  }
free_caps:
  host_str_free(&cap[0].bytes);
  host_str_free(&cap[1].bytes);
  out[0] = fds[0];
  errp[0] = fds[1];
close_all:
  for (int k = 0; k < 2; k++) {
    if (out[k] >= 0) close(out[k]);
    if (errp[k] >= 0) close(errp[k]);
    if (in[k] >= 0) close(in[k]);
    if (status[k] >= 0) close(status[k]);
    if (keep[k] >= 0) close(keep[k]);
  }
  host_str_free(&msg);
  return result;
}

/* Check the policy, then run. Takes ownership of argv. */
static geno_value *run_argv(Host *h, char **argv, size_t argc, const char *input, size_t inlen, bool has_input,
                            char **error) {
  /* --max-processes: the processes one run may start */
  if (h->limit_processes && h->processes_started >= h->max_processes) {
    host_strv_free(argv);
    char lim[160];
    snprintf(lim, sizeof lim, "process limit: this run may start at most %llu process%s (--max-processes)",
             (unsigned long long)h->max_processes, h->max_processes == 1 ? "" : "es");
    return host_fail(error, "%s", lim);
  }
  h->processes_started++;
  HostStr msg = {0};
  const char *why = check_argv(h, argv, argc, &msg);
  geno_value *r;
  if (why) r = strcmp(why, "out of memory") == 0 ? host_fail(error, "out of memory") : host_err(error, why);
  else r = run(h, argv, input, inlen, has_input, error);
  host_str_free(&msg);
  host_strv_free(argv);
  return r;
}

static geno_value *exec_common(Host *h, const geno_value *const *args, size_t nargs, bool with_input,
                               char **error) {
  size_t clen, inlen = 0;
  const char *cmd = host_arg_str(args, nargs, 0, &clen);
  const char *input = with_input ? host_arg_str(args, nargs, 1, &inlen) : NULL;
  if (!cmd) return host_err(error, with_input ? "exec_with_input: command must be String" : "exec: command must be String");
  if (with_input && !input) return host_err(error, "exec_with_input: stdin must be String");
  char *why = NULL;
  size_t argc = 0;
  char **argv = host_shlex_split(cmd, clen, &argc, &why);
  if (!argv) {
    geno_value *r = why ? host_err(error, why) : host_fail(error, "out of memory");
    free(why);
    return r;
  }
  if (memchr(cmd, '\0', clen)) { /* a NUL cannot reach execve; Python refuses it */
    host_strv_free(argv);
    return host_err(error, "embedded null byte");
  }
  return run_argv(h, argv, argc, input, inlen, with_input, error);
}

static geno_value *spawn_common(Host *h, const geno_value *const *args, size_t nargs, bool with_input,
                                char **error) {
  const char *fn = with_input ? "spawn_with_input" : "spawn";
  size_t plen, inlen = 0;
  const char *prog = host_arg_str(args, nargs, 0, &plen);
  const geno_value *list = nargs > 1 ? args[1] : NULL;
  if (!prog) {
    HostStr m = {0};
    host_str_printf(&m, "%s: program must be String", fn);
    return host_err_str(error, &m);
  }
  if (geno_value_type(list) != GENO_LIST) {
    HostStr m = {0};
    host_str_printf(&m, "%s: args must be List[String]", fn);
    return host_err_str(error, &m);
  }
  const char *input = with_input ? host_arg_str(args, nargs, 2, &inlen) : NULL;
  if (with_input && !input) return host_err(error, "spawn_with_input: stdin must be String");
  size_t argc = 1 + geno_value_count(list);
  if (argc > PROC_MAX_ARGS) return host_err(error, "too many arguments");
  char **argv = calloc(argc + 1, sizeof *argv);
  if (!argv) return host_fail(error, "out of memory");
  bool nul = memchr(prog, '\0', plen) != NULL, ok = (argv[0] = strndup(prog, plen)) != NULL;
  for (size_t i = 1; ok && i < argc; i++) {
    size_t n;
    const char *a = geno_value_string(geno_value_item(list, i - 1), &n);
    if (!a) {
      host_strv_free(argv);
      HostStr m = {0};
      host_str_printf(&m, "%s: args must be List[String]", fn);
      return host_err_str(error, &m);
    }
    nul |= memchr(a, '\0', n) != NULL;
    ok = (argv[i] = strndup(a, n)) != NULL;
  }
  if (!ok) {
    host_strv_free(argv);
    return host_fail(error, "out of memory");
  }
  if (nul) {
    host_strv_free(argv);
    return host_err(error, "embedded null byte");
  }
  return run_argv(h, argv, argc, input, inlen, with_input, error);
}

static geno_value *exec_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  return exec_common(ud, args, nargs, false, error);
}
static geno_value *exec_with_input_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                      char **error) {
  return exec_common(ud, args, nargs, true, error);
}
static geno_value *spawn_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud, char **error) {
  return spawn_common(ud, args, nargs, false, error);
}
static geno_value *spawn_with_input_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                                       char **error) {
  return spawn_common(ud, args, nargs, true, error);
}

bool host_process_install(Host *h, const HostOptions *o, char **err) {
  (void)err;
  h->inherit_env = (h->caps & GENO_CAP_ENV) != 0;
  h->path_search = o->process_path_search;
  const char *list = o->process_executables;
  if (list && *list) { /* real paths of the allowed executables */
    h->exe_allow = calloc(1, sizeof *h->exe_allow);
    if (!h->exe_allow) return false;
    for (const char *p = list;;) {
      const char *end = strchr(p, ':');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      if (len) {
        bool nul;
        char *real = p[0] == '/' ? host_fs_realpath(p, len, &nul) : strndup(p, len);
        char **t = real ? realloc(h->exe_allow, (h->nexe_allow + 2) * sizeof *t) : NULL;
        if (!t) {
          free(real);
          return false;
        }
        h->exe_allow = t;
        h->exe_allow[h->nexe_allow++] = real;
        h->exe_allow[h->nexe_allow] = NULL;
      }
      if (!end) break;
      p = end + 1;
    }
  }
  return host_add(h, "exec", exec_cb) && host_add(h, "exec_with_input", exec_with_input_cb) &&
         host_add(h, "spawn", spawn_cb) && host_add(h, "spawn_with_input", spawn_with_input_cb);
}

void host_process_free(Host *h) {
  for (size_t i = 0; i < h->nexe_allow; i++) free(h->exe_allow[i]);
  free(h->exe_allow);
  h->exe_allow = NULL;
  h->nexe_allow = 0;
}
