/* `geno check FILE [--json] [--syntax-only]` */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char check_help[] =
    "usage: geno check FILE [--json] [--syntax-only]\n"
    "\n"
    "Check a Geno program without running it: syntax, types, effects and\n"
    "the other static rules. Modules it imports are read from <Name>.geno\n"
    "beside FILE.\n"
    "\n"
    "options:\n"
    "  --json          print {\"ok\": bool, \"diagnostics\": [...]} on stdout\n"
    "  --syntax-only   stop after parsing (lexer and parser errors only)\n"
    "  -h, --help      show this help\n"
    "\n"
    "exit status: 0 clean, 1 errors found, 2 usage error\n";

static void print_json(const geno_result *r) {
  char *full = geno_result_to_json(r);
  /* The check form is the RunResult's "ok" and "diagnostics" members. */
  printf("{\n  \"ok\": %s,\n  \"diagnostics\": ", geno_result_ok(r) ? "true" : "false");
  const char *d = full ? strstr(full, "\"diagnostics\": ") : NULL;
  const char *t = full ? strstr(full, ",\n  \"timing\"") : NULL;
  if (d && t) {
    d += strlen("\"diagnostics\": ");
    fwrite(d, 1, (size_t)(t - d), stdout);
  } else {
    fputs("[]", stdout);
  }
  printf("\n}\n");
  free(full);
}

int cmd_check(int argc, char **argv) {
  const char *file = NULL;
  bool json = false, syntax_only = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(check_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--json") == 0) {
      json = true;
    } else if (strcmp(a, "--syntax-only") == 0) {
      syntax_only = true;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("check", "unrecognized option '%s' (expected --json, --syntax-only or --help)", a);
    } else if (file) {
      return cli_usage_error("check", "unexpected argument '%s': check takes one FILE", a);
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("check", "missing FILE");
  CliProgram prog;
  if (!cli_load_program(file, &prog)) {
    if (json) printf("{\n  \"ok\": false,\n  \"diagnostics\": []\n}\n");
    return EXIT_FAIL;
  }
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.modules = prog.modules;
  cfg.nmodules = prog.nmodules;
  geno_result *r = syntax_only ? geno_parse(prog.source, prog.length, prog.path, &cfg)
                               : geno_check(prog.source, prog.length, prog.path, &cfg);
  if (!r) {
    fprintf(stderr, "Error: out of memory\n");
    cli_free_program(&prog);
    return EXIT_FAIL;
  }
  int status = geno_result_ok(r) ? EXIT_OK : EXIT_FAIL;
  if (json) {
    print_json(r);
  } else if (status == EXIT_OK) {
    printf("Check passed: %s\n", file);
  } else {
    cli_print_diagnostics(stderr, r, &prog);
    size_t n = geno_result_diagnostic_count(r);
    fprintf(stderr, "%zu error%s found\n", n, n == 1 ? "" : "s");
  }
  geno_result_free(r);
  cli_free_program(&prog);
  return status;
}
