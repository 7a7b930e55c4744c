/* The `geno` command: dispatch to subcommands. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "../server/server.h"
#include "cli.h"

static const char main_help[] =
    "usage: geno <command> [options] FILE...\n"
    "\n"
    "geno-c " GENO_VERSION ", an implementation of the Geno " GENO_LANGUAGE_VERSION " language.\n"
    "\n"
    "commands:\n"
    "  run FILE     check FILE, verify its examples, then run main\n"
    "  check FILE   check FILE without running it\n"
    "  test FILE... run every example and test block\n"
    "  fmt [PATH]   format source files in the canonical layout\n"
    "  init NAME    create a project from a template\n"
    "  repl         read and run definitions, statements and expressions\n"
    "               (also `geno` alone at a terminal)\n"
    "  bundle       write a project's modules as one JSON artifact\n"
    "  doc PATH     HTML documentation from declarations and /// comments\n"
    "  watch [PATH] run (or test, -t) again whenever a source file changes\n"
    "  constrain [PREFIX]  can PREFIX (or stdin) still become a program that parses?\n"
    "  serve        the hosted execution service (HTTP: /run, /check, /test, ...)\n"
    "  compile FILE --target js|python   to JavaScript for Node, or a Python\n"
    "               launcher that runs the program on geno-c\n"
    "  build FILE   build a web page (index.html + app.js)\n"
    "\n"
    "options:\n"
    "  -h, --help     show this help (also: geno <command> --help)\n"
    "  --version      print the version\n"
    "\n"
    "exit status: 0 success, 1 program or check error, 2 usage error\n";

/* A standard descriptor the caller left closed gets /dev/null opened
 * read-only in its place: nothing the command opens later (a sandbox
 * pipe, a file) can take descriptor 1 and receive the program's output,
 * and a write to it fails, which finish() reports. */
static void guard_std_fds(void) {
  for (int fd = 0; fd <= 2; fd++)
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      int n = open("/dev/null", O_RDONLY);
      if (n >= 0 && n != fd) {
        dup2(n, fd);
        close(n);
      }
    }
}

/* Output that could not be written (a full disk, a closed stdout) is an
 * error, never a silent success. */
static int finish(int rc) {
  errno = 0;
  bool flush_failed = fflush(stdout) != 0;
  if (flush_failed || ferror(stdout)) {
    int e = errno;
    fprintf(stderr, "geno: error writing output: %s\n", e ? strerror(e) : "write failed");
    return rc == EXIT_OK ? EXIT_FAIL : rc;
  }
  return rc;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    /* at a terminal, the REPL, as the reference; otherwise usage */
    if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) return cmd_repl(0, argv + 1);
    fputs(main_help, stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    fputs(main_help, stdout);
    return EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    printf("geno-c %s (Geno %s)\n", GENO_VERSION, GENO_LANGUAGE_VERSION);
    return EXIT_OK;
  }
  if (strcmp(cmd, "check") == 0) return cmd_check(argc - 2, argv + 2);
  if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
  if (strcmp(cmd, "test") == 0) return cmd_test(argc - 2, argv + 2);
  if (strcmp(cmd, "fmt") == 0) return cmd_fmt(argc - 2, argv + 2);
  if (strcmp(cmd, "init") == 0) return cmd_init(argc - 2, argv + 2);
  if (strcmp(cmd, "repl") == 0) return cmd_repl(argc - 2, argv + 2);
  if (strcmp(cmd, "doc") == 0) return cmd_doc(argc - 2, argv + 2);
  if (strcmp(cmd, "watch") == 0) return cmd_watch(argc - 2, argv + 2);
  if (strcmp(cmd, "bundle") == 0) return cmd_bundle(argc - 2, argv + 2);
  if (strcmp(cmd, "constrain") == 0) return cmd_constrain(argc - 2, argv + 2);
  if (strcmp(cmd, "serve") == 0) return srv_main(argc - 1, argv + 1);
  if (strcmp(cmd, "compile") == 0) return cmd_compile(argc - 2, argv + 2);
  if (strcmp(cmd, "build") == 0) return cmd_build(argc - 2, argv + 2);
  if (cmd[0] == '-') return cli_usage_error(NULL, "unrecognized option '%s' (expected --help or --version)", cmd);
  return cli_usage_error(NULL, "unknown command '%s' (see geno --help)", cmd);
}

int main(int argc, char **argv) {
  guard_std_fds();
  return finish(dispatch(argc, argv));
}
