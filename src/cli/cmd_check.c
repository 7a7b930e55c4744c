/* `geno check FILE [--target T]... [--json] [--syntax-only]` */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char check_help[] =
    "usage: geno check FILE [--target T]... [--json] [--syntax-only]\n"
    "\n"
    "Check a Geno program without running it: syntax, types, effects and\n"
    "the other static rules. Modules it imports are read from <Name>.geno\n"
    "beside FILE.\n"
    "\n"
    "options:\n"
    "  --target T      also apply the rules of execution target T (repeatable):\n"
    "                  python-cli, node-cli, browser or python-hosted. Without\n"
    "                  --target, the `targets` of the nearest geno.toml at or\n"
    "                  above FILE's directory are used, if any\n"
    "  --json          print {\"ok\": bool, \"diagnostics\": [...]} on stdout\n"
    "  --syntax-only   stop after parsing (lexer and parser errors only)\n"
    "  -h, --help      show this help\n"
    "\n"
    "exit status: 0 clean, 1 errors found, 2 usage error\n";

/* More --target options than there are targets can only repeat some. */
#define CHECK_MAX_TARGETS 16

static const char *const target_choices[] = {"python-cli", "node-cli", "browser", "python-hosted"};

static bool valid_target(const char *t) {
  for (size_t i = 0; i < sizeof target_choices / sizeof target_choices[0]; i++)
    if (strcmp(t, target_choices[i]) == 0) return true;
  return false;
}

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
  geno_free(full);
}

/* A manifest error as the one diagnostic of a failed check (E204, the
 * reference's project-resolution code). */
static void print_manifest_error(const char *msg, bool json) {
  if (json) cli_json_failure(false, "E204", msg);
  else fprintf(stderr, "error[E204]: %s\n", msg);
}

int cmd_check(int argc, char **argv) {
  const char *file = NULL;
  bool json = false, syntax_only = false;
  const char *targets[CHECK_MAX_TARGETS];
  size_t ntargets = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(check_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--json") == 0) {
      json = true;
    } else if (strcmp(a, "--syntax-only") == 0) {
      syntax_only = true;
    } else if (strcmp(a, "--target") == 0 || strncmp(a, "--target=", 9) == 0) {
      const char *t = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      if (!t) return cli_usage_error("check", "--target needs a value (python-cli, node-cli, browser or python-hosted)");
      if (!valid_target(t))
        return cli_usage_error("check", "invalid --target '%s' (choose from python-cli, node-cli, browser, python-hosted)", t);
      if (ntargets == CHECK_MAX_TARGETS) return cli_usage_error("check", "too many --target options");
      targets[ntargets++] = t;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("check", "unrecognized option '%s' (expected --target, --json, --syntax-only or --help)",
                             a);
    } else if (file) {
      return cli_usage_error("check", "unexpected argument '%s': check takes one FILE", a);
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("check", "missing FILE");
  CliProgram prog;
  if (!cli_load_program(file, &prog, json ? CLI_JSON_CHECK : CLI_JSON_NONE)) return EXIT_FAIL;
  /* Without --target, the project's declared targets apply. */
  char **declared = NULL, *manifest = NULL, *err = NULL;
  size_t ndeclared = 0;
  if (ntargets == 0 && !syntax_only && !cli_manifest_targets(file, &declared, &ndeclared, &manifest, &err)) {
    print_manifest_error(err ? err : "cannot read geno.toml", json);
    free(err);
    cli_free_program(&prog);
    return EXIT_FAIL;
  }
  geno_config cfg;
  geno_config_init(&cfg);
  /* imported modules are read as the front end meets their imports */
  cfg.module_loader = cli_module_loader;
  cfg.module_loader_userdata = &prog;
  cfg.targets = ntargets ? targets : (const char *const *)declared;
  cfg.ntargets = ntargets ? ntargets : ndeclared;
  geno_result *r = syntax_only ? geno_parse(prog.source, prog.length, prog.path, &cfg)
                               : geno_check(prog.source, prog.length, prog.path, &cfg);
  if (!r) {
    fprintf(stderr, "Error: out of memory\n");
    cli_free_program(&prog);
    for (size_t i = 0; i < ndeclared; i++) free(declared[i]);
    free(declared);
    free(manifest);
    return EXIT_FAIL;
  }
  int status = geno_result_ok(r) ? EXIT_OK : EXIT_FAIL;
  if (json) {
    print_json(r);
  } else if (status == EXIT_OK) {
    /* --syntax-only applies no target rule: claim none */
    size_t shown = syntax_only ? 0 : cfg.ntargets;
    printf("%s passed: %s", syntax_only ? "Syntax check" : "Check", file);
    for (size_t i = 0; i < shown; i++) printf("%s%s", i ? ", " : " (targets: ", cfg.targets[i]);
    printf("%s\n", shown ? ")" : "");
  } else {
    if (manifest) fprintf(stderr, "(targets from %s)\n", manifest);
    cli_print_diagnostics(stderr, r, &prog);
    size_t n = geno_result_diagnostic_count(r);
    fprintf(stderr, "%zu error%s found\n", n, n == 1 ? "" : "s");
  }
  geno_result_free(r);
  cli_free_program(&prog);
  for (size_t i = 0; i < ndeclared; i++) free(declared[i]);
  free(declared);
  free(manifest);
  return status;
}
