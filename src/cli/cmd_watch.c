/* `geno watch [PATH] [-t] [-f GLOB] [-v] [--unsafe] [-- args]`: run (or
 * test) PATH, then again each time a .geno file or geno.toml under it
 * changes (inotify). Each run is this same program started afresh (`geno
 * run` or `geno test`), so a run that crashes or hangs cannot take the
 * watcher with it; Ctrl-C stops watching. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char watch_help[] =
    "usage: geno watch [PATH] [-t] [-f GLOB] [-v] [--unsafe] [-- program args]\n"
    "\n"
    "Run PATH (a .geno file or a project directory; default: the current\n"
    "directory) with `geno run`, then again whenever a .geno file or\n"
    "geno.toml under its directory is written, created, moved or deleted.\n"
    "Ctrl-C stops watching.\n"
    "\n"
    "options:\n"
    "  -t, --test        run `geno test PATH` instead\n"
    "  -f, --filter GLOB with --test: only matching examples and tests\n"
    "  -v, --verbose     with --test: list each failure\n"
    "  --unsafe          run in this process's way (geno run --unsafe)\n"
    "  -h, --help        show this help\n"
    "\n"
    "exit status: 0 when stopped, 1 PATH not found or cannot be watched,\n"
    "2 usage error\n";

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) {
  stop_requested = 1;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Watch dir and every directory under it (not following links; bounded). */
static void add_watches(int fd, const char *dir, int depth) {
  if (depth > 32) return;
  inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_ONLYDIR);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue; /* ., .., hidden folders (.git) */
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) continue;
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) add_watches(fd, path, depth + 1);
  }
  closedir(d);
}

static bool relevant(const struct inotify_event *ev) {
  if (!ev->len) return false;
  size_t n = strlen(ev->name);
  return (n > 5 && strcmp(ev->name + n - 5, ".geno") == 0) || strcmp(ev->name, "geno.toml") == 0 ||
         (ev->mask & IN_ISDIR);
}

/* Run `geno <argv...>` to completion; its exit status, or -1. */
static int run_child(char **argv) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int cmd_watch(int argc, char **argv) {
  const char *path = ".", *filter = NULL;
  bool test = false, verbose = false, unsafe = false, path_given = false;
  int rest = argc;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      rest = i + 1;
      break;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(watch_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "-t") == 0 || strcmp(a, "--test") == 0) {
      test = true;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
      verbose = true;
    } else if (strcmp(a, "--unsafe") == 0) {
      unsafe = true;
    } else if (strcmp(a, "-f") == 0 || strcmp(a, "--filter") == 0) {
      if (i + 1 >= argc) return cli_usage_error("watch", "%s needs a glob", a);
      filter = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("watch", "unrecognized option '%s'", a);
    } else if (path_given) {
      return cli_usage_error("watch", "unexpected argument '%s': watch takes one PATH", a);
    } else {
      path = a;
      path_given = true;
    }
  }
  if ((filter || verbose) && !test) return cli_usage_error("watch", "--filter and --verbose apply to --test");
  struct stat st;
  if (stat(path, &st) != 0) {
    cli_printf_clean(stderr, "Error: '%s' not found\n", path);
    return EXIT_FAIL;
  }
  /* the directory to watch: PATH, or the file's own */
  char dir[PATH_MAX];
  if (S_ISDIR(st.st_mode)) {
    snprintf(dir, sizeof dir, "%s", path);
  } else {
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  }
  int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (fd < 0) {
    cli_printf_clean(stderr, "Error: cannot watch %s: %s\n", dir, strerror(errno));
    return EXIT_FAIL;
  }
  add_watches(fd, dir, 0);
  /* the command run each time */
  char **cmd = calloc((size_t)argc + 8, sizeof *cmd);
  if (!cmd) return EXIT_FAIL;
  int n = 0;
  cmd[n++] = "geno";
  cmd[n++] = test ? "test" : "run";
  if (unsafe) cmd[n++] = "--unsafe";
  if (filter) {
    cmd[n++] = "--filter";
    cmd[n++] = (char *)filter;
  }
  if (verbose) cmd[n++] = "-v";
  cmd[n++] = (char *)path;
  if (rest < argc && !test) {
    cmd[n++] = "--";
    for (int i = rest; i < argc; i++) cmd[n++] = argv[i];
  }
  cmd[n] = NULL;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  if (test) cli_printf_clean(stdout, "Watching %s for changes... (Ctrl+C to stop)\n\n", dir);
  else cli_printf_clean(stdout, "Watching resolved files for %s... (Ctrl+C to stop)\nExecution mode: %s\n\n", path,
              unsafe ? "unsafe interpreter" : "process sandbox");
  for (bool first = true; !stop_requested; first = false) {
    if (!first) printf("\n--- File change detected, re-running ---\n\n");
    double t0 = now_s();
    int status = run_child(cmd);
    if (status != 0) printf("Process exited with status %d\n", status);
    printf("\nCompleted in %.2fs\n", now_s() - t0);
    fflush(stdout);
    /* wait for a change that matters, then let a burst of writes settle */
    bool changed = false;
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    while (!stop_requested && !changed) {
      struct pollfd p = {fd, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      for (;;) {
        ssize_t len = read(fd, buf, sizeof buf);
        if (len <= 0) break;
        for (char *q = buf; q < buf + len;) {
          const struct inotify_event *ev = (const struct inotify_event *)q;
          if (relevant(ev)) changed = true;
          if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO)) && ev->len) {
            char sub[PATH_MAX];
            if ((size_t)snprintf(sub, sizeof sub, "%s/%s", dir, ev->name) < sizeof sub) add_watches(fd, sub, 1);
          }
          q += sizeof *ev + ev->len;
        }
      }
      if (changed) {
        struct pollfd p2 = {fd, POLLIN, 0};
        while (poll(&p2, 1, 100) > 0)
          while (read(fd, buf, sizeof buf) > 0) {
          }
      }
    }
  }
  printf("\nWatch mode stopped.\n");
  free(cmd);
  close(fd);
  return EXIT_OK;
}
