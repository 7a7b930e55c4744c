/* The `geno` command: dispatch to subcommands. */
#include <string.h>

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
    "\n"
    "options:\n"
    "  -h, --help     show this help (also: geno <command> --help)\n"
    "  --version      print the version\n"
    "\n"
    "exit status: 0 success, 1 program or check error, 2 usage error\n";

int main(int argc, char **argv) {
  if (argc < 2) {
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
  if (cmd[0] == '-') return cli_usage_error(NULL, "unrecognized option '%s' (expected --help or --version)", cmd);
  return cli_usage_error(NULL, "unknown command '%s' (expected run, check or test)", cmd);
}
