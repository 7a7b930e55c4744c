/* `geno check FILE [--target T]... [--json] [--syntax-only]` */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char check_help[] =
    "usage: geno check FILE|DIR [--target T]... [--json] [--syntax-only]\n"
    "\n"
    "Check a Geno program without running it: syntax, types, effects and\n"
    "the other static rules. Modules it imports are read from <Name>.geno\n"
    "beside FILE. A directory DIR is a project: the modules its geno.toml\n"
    "lists under `files` (or every *.geno in it) are all checked, starting\n"
    "from its `entrypoint`. On success prints `Type check passed: FILE`\n"
    "and the number of definitions and modules checked.\n"
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
  else cli_printf_clean(stderr, "error[E204]: %s\n", msg);
}

/* One checked file: prints its diagnostics (human form) and adds the
 * modules it parsed to `seen` (file names, malloc'd) and their
 * definitions to *defs. Returns the result (caller frees) or NULL. */
typedef struct Seen {
  char **files;
  size_t n;
} Seen;

static bool seen_has(const Seen *s, const char *f) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->files[i], f) == 0) return true;
  return false;
}

static void seen_add_modules(Seen *s, const geno_result *r, size_t *defs) {
  const char *f;
  size_t d;
  for (size_t i = 0; (f = geno_result_module(r, i, &d)); i++) {
    if (seen_has(s, f)) continue;
    char **g = realloc(s->files, (s->n + 1) * sizeof *g);
    char *copy = strdup(f);
    if (!g || !copy) {
      free(g ? NULL : copy);
      if (g) s->files = g;
      free(copy);
      return;
    }
    s->files = g;
    s->files[s->n++] = copy;
    *defs += d;
  }
}

static void seen_free(Seen *s) {
  for (size_t i = 0; i < s->n; i++) free(s->files[i]);
  free(s->files);
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
      return cli_usage_error("check", "unexpected argument '%s': check takes one FILE or DIR", a);
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("check", "missing FILE");
  /* A directory is a project: its entry module and every other module. */
  CliProject proj;
  bool is_project = cli_is_dir(file);
  if (is_project) {
    char *perr = NULL;
    if (!cli_project_open(file, &proj, &perr)) {
      print_manifest_error(perr ? perr : "out of memory", json);
      free(perr);
      return EXIT_FAIL;
    }
  }
  const char *entry = is_project ? proj.files[proj.entry].path : file;
  /* Without --target, the project's declared targets apply. */
  char **declared = NULL, *manifest = NULL, *err = NULL;
  size_t ndeclared = 0;
  if (ntargets == 0 && !syntax_only && !cli_manifest_targets(entry, &declared, &ndeclared, &manifest, &err)) {
    print_manifest_error(err ? err : "cannot read geno.toml", json);
    free(err);
    if (is_project) cli_project_free(&proj);
    return EXIT_FAIL;
  }
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.targets = ntargets ? targets : (const char *const *)declared;
  cfg.ntargets = ntargets ? ntargets : ndeclared;
  int status = EXIT_OK;
  size_t nerrors = 0, ndefs = 0;
  Seen seen = {0};
  bool first = true;
  /* The entry first, then each project module it does not import. */
  for (size_t k = 0; k < (is_project ? proj.nfiles + 1 : 1); k++) {
    const char *path = k == 0 ? entry : proj.files[k - 1].path;
    if (k > 0 && (k - 1 == proj.entry || seen_has(&seen, path))) continue;
    CliProgram prog;
    if (!cli_load_program(path, &prog, json ? CLI_JSON_CHECK : CLI_JSON_NONE)) {
      status = EXIT_FAIL;
      break;
    }
    prog.project = is_project ? &proj : NULL;
    /* imported modules are read as the front end meets their imports */
    cfg.module_loader = cli_module_loader;
    cfg.module_loader_userdata = &prog;
    geno_result *r = syntax_only ? geno_parse(prog.source, prog.length, prog.path, &cfg)
                                 : geno_check(prog.source, prog.length, prog.path, &cfg);
    if (!r) {
      fprintf(stderr, "Error: out of memory\n");
      cli_free_program(&prog);
      status = EXIT_FAIL;
      break;
    }
    seen_add_modules(&seen, r, &ndefs);
    if (!geno_result_ok(r)) status = EXIT_FAIL;
    if (json) {
      /* one object: the entry's (a project's other modules add their
       * diagnostics in the human form only) */
      if (first) print_json(r);
    } else if (!geno_result_ok(r)) {
      if (manifest && first) cli_printf_clean(stderr, "(targets from %s)\n", manifest);
      cli_print_diagnostics(stderr, r, &prog);
      nerrors += geno_result_diagnostic_count(r);
    }
    first = false;
    geno_result_free(r);
    cli_free_program(&prog);
    if (json) break;
  }
  if (!json && status == EXIT_OK) {
    /* --syntax-only applies no target rule: claim none */
    size_t shown = syntax_only ? 0 : cfg.ntargets;
    cli_printf_clean(stdout, "%s passed: %s", syntax_only ? "Syntax check" : "Type check", file);
    for (size_t i = 0; i < shown; i++) cli_printf_clean(stdout, "%s%s", i ? ", " : shown > 1 ? " (targets: " : " (target: ", cfg.targets[i]);
    printf("%s\n", shown ? ")" : "");
    if (shown > 1)
      for (size_t i = 0; i < shown; i++) cli_printf_clean(stdout, "  %s: passed\n", cfg.targets[i]);
    /* worded as the reference words it, "1 definitions" included */
    if (!syntax_only) printf("  %zu definitions, %zu modules\n", ndefs, seen.n);
  } else if (!json && nerrors) {
    fprintf(stderr, "%zu error%s found\n", nerrors, nerrors == 1 ? "" : "s");
  }
  seen_free(&seen);
  if (is_project) cli_project_free(&proj);
  for (size_t i = 0; i < ndeclared; i++) free(declared[i]);
  free(declared);
  free(manifest);
  return status;
}
