/* `geno run FILE` and `geno test FILE...`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "host.h"

static const char run_help[] =
    "usage: geno run FILE [options] [-- program args]\n"
    "\n"
    "Check FILE, verify its examples, then run main. Program output goes to\n"
    "stdout, then `=> value` when main returns something other than ().\n"
    "Modules FILE imports are read from <Name>.geno beside it (each source\n"
    "at most 1 MiB).\n"
    "\n"
    "options:\n"
    "  --cap NAME               grant a capability (repeatable; NAME may be a\n"
    "                           comma-separated list): print clock random fs\n"
    "                           http regex env process stdin serve.\n"
    "                           Default without --cap: print, clock, random;\n"
    "                           --cap none grants nothing.\n"
    "                           fs, http, process, stdin and clock's sleep_ms\n"
    "                           are carried out by this command, only when\n"
    "                           granted with --cap (docs/SECURITY.md, \"The\n"
    "                           CLI as a host\"). fs reaches only files under\n"
    "                           the current directory, FILE's directory and\n"
    "                           the project root (nearest geno.toml)\n"
    "  --json                   print the RunResult as JSON\n"
    "  --unsafe                 run in this process; without it the program\n"
    "                           runs in a sandboxed child process\n"
    "                           (docs/SECURITY.md)\n"
    "  --no-check-examples      skip example verification\n"
    "  --timeout S              wall-clock limit in seconds (default 30; 0: none)\n"
    "  --max-steps N            step limit (default 1000000; 0: none)\n"
    "  --max-recursion-depth N  nested calls (default 500; 1 to 10000)\n"
    "  --max-output-length N    characters of output (default 100000;\n"
    "                           0: no output allowed)\n"
    "  --max-collection-size N  elements per collection (default 10000000;\n"
    "                           0: no elements allowed)\n"
    "  --max-integer-bits N     bits per Int (default 33219)\n"
    "  -h, --help               show this help\n"
    "\n"
    "exit status: 0 success, 1 program or check error, 2 usage error\n";

static const char test_help[] =
    "usage: geno test [options] FILE...\n"
    "\n"
    "Run every example clause and test block of each FILE; one line per\n"
    "file, then `N passed, N failed`.\n"
    "\n"
    "options:\n"
    "  --cap NAME               grant a capability, as for geno run (tests\n"
    "                           that print, read files...)\n"
    "  --unsafe                 run in this process; without it each file runs\n"
    "                           in a sandboxed child process, as for geno run\n"
    "  --timeout S, --max-steps N, ... limits per file, as for geno run\n"
    "  -v, --verbose            list each failure\n"
    "  -h, --help               show this help\n"
    "\n"
    "exit status: 0 all passed, 1 a failure or error, 2 usage error\n";

typedef struct RunOpts {
  geno_config cfg;
  bool json, caps_given, verbose;
  bool unsafe; /* --unsafe: geno_run in this process, not geno_run_isolated */
  const char **files;
  int nfiles;
  const char **prog_args;
  int nprog_args;
} RunOpts;

static bool parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-') return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

static const char *const limit_flags[] = {"--timeout", "--max-steps", "--max-recursion-depth",
                                          "--max-output-length", "--max-collection-size", "--max-integer-bits"};

static int add_caps(const char *cmd, RunOpts *o, const char *list) {
  char *copy = strdup(list);
  if (!copy) return EXIT_FAIL;
  int rc = EXIT_OK;
  for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
    /* `--cap none` grants nothing at all (not even the CLI's defaults). */
    if (strcmp(tok, "none") == 0) continue;
    unsigned bit = geno_capability_from_name(tok);
    if (!bit) {
      const char *sug = geno_capability_suggest(tok);
      rc = cli_usage_error(cmd,
                           "Unknown capability '%s'. Valid capabilities: clock, env, fs, http, print, process, "
                           "random, regex, serve, stdin.%s%s%s",
                           tok, sug ? " Did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
      break;
    }
    o->cfg.capabilities |= bit;
  }
  if (rc == EXIT_OK && strspn(list, ",") == strlen(list))
    rc = cli_usage_error(cmd, "Capability names must not be empty.");
  free(copy);
  o->caps_given = true;
  return rc;
}

/* Parse options shared by run and test; returns EXIT_OK or an exit code
 * (-1 for --help, already printed). */
static int parse_opts(const char *cmd, int argc, char **argv, RunOpts *o, const char *help) {
  memset(o, 0, sizeof *o);
  geno_config_init(&o->cfg);
  o->cfg.timeout_s = 30.0;
  o->files = calloc((size_t)argc + 1, sizeof(char *));
  o->prog_args = calloc((size_t)argc + 1, sizeof(char *));
  if (!o->files || !o->prog_args) return EXIT_FAIL;
  bool rest = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (rest) {
      o->prog_args[o->nprog_args++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      rest = true;
      continue;
    }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(help, stdout);
      return -1;
    }
    const char *val = NULL;
    const char *eq = strchr(a, '=');
    char name[64];
    if (a[0] == '-' && a[1] == '-' && eq && (size_t)(eq - a) < sizeof name) {
      memcpy(name, a, (size_t)(eq - a));
      name[eq - a] = '\0';
      val = eq + 1;
      a = name;
    }
    bool takes = strcmp(a, "--cap") == 0;
    for (size_t k = 0; k < sizeof limit_flags / sizeof *limit_flags; k++) takes |= strcmp(a, limit_flags[k]) == 0;
    if (takes && !val) {
      if (i + 1 >= argc) return cli_usage_error(cmd, "option %s needs a value", a);
      val = argv[++i];
    }
    uint64_t n = 0;
    bool testing = strcmp(cmd, "test") == 0;
    if (testing && (strcmp(a, "--json") == 0 || strcmp(a, "--no-check-examples") == 0))
      return cli_usage_error(cmd, "%s is an option of geno run, not of geno test", a);
    if (strcmp(a, "--cap") == 0) {
      int rc = add_caps(cmd, o, val);
      if (rc != EXIT_OK) return rc;
    } else if (strcmp(a, "--json") == 0) {
      o->json = true;
    } else if (strcmp(a, "--unsafe") == 0) {
      o->unsafe = true;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
      o->verbose = true;
    } else if (strcmp(a, "--no-check-examples") == 0) {
      o->cfg.check_examples = false;
    } else if (strcmp(a, "--timeout") == 0) {
      char *end;
      double t = strtod(val, &end);
      if (*end || !(t >= 0) || t > 1e9)
        return cli_usage_error(cmd, "--timeout must be a number of seconds (0: no limit)");
      o->cfg.timeout_s = t;
    } else if (strcmp(a, "--max-steps") == 0) {
      if (!parse_u64(val, &n)) return cli_usage_error(cmd, "--max-steps must be a non-negative integer (0: no limit)");
      o->cfg.max_steps = n;
    } else if (strcmp(a, "--max-recursion-depth") == 0) {
      if (!parse_u64(val, &n) || n == 0 || n > 10000)
        return cli_usage_error(cmd, "--max-recursion-depth must be an integer from 1 to 10000");
      o->cfg.max_recursion_depth = (uint32_t)n;
    } else if (strcmp(a, "--max-output-length") == 0) {
      if (!parse_u64(val, &n)) return cli_usage_error(cmd, "--max-output-length must be a non-negative integer");
      o->cfg.max_output_length = n;
    } else if (strcmp(a, "--max-collection-size") == 0) {
      if (!parse_u64(val, &n)) return cli_usage_error(cmd, "--max-collection-size must be a non-negative integer");
      o->cfg.max_collection_size = n;
    } else if (strcmp(a, "--max-integer-bits") == 0) {
      if (!parse_u64(val, &n) || n == 0 || n > 100000000)
        return cli_usage_error(cmd, "--max-integer-bits must be a positive integer");
      o->cfg.max_integer_bits = (uint32_t)n;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error(cmd, "unrecognized option '%s'", a);
    } else if (o->nfiles == 0 || strcmp(cmd, "test") == 0) {
      o->files[o->nfiles++] = a;
    } else {
      o->prog_args[o->nprog_args++] = a;
    }
  }
  o->cfg.capabilities_set = true;
  if (!o->caps_given) o->cfg.capabilities = GENO_CAP_PRINT | GENO_CAP_CLOCK | GENO_CAP_RANDOM;
  o->cfg.cli_args = o->prog_args;
  o->cfg.ncli_args = (size_t)o->nprog_args;
  if (o->nfiles == 0) return cli_usage_error(cmd, "missing FILE");
  return EXIT_OK;
}

static void free_opts(RunOpts *o) {
  free(o->files);
  free(o->prog_args);
}

/* Install the host callbacks for the capabilities granted with --cap
 * (none without --cap: the defaults print, clock and random need none, and
 * sleep_ms then stays E413 as in the reference). */
static bool setup_host(const char *cmd, RunOpts *o, const char *path, CliHost *host) {
  CliHostOptions ho = {
      .caps = o->caps_given ? o->cfg.capabilities : 0,
      .timeout_s = o->cfg.timeout_s,
      .max_collection = o->cfg.max_collection_size,
      .program_path = path,
      .args = o->prog_args,
      .nargs = (size_t)o->nprog_args,
  };
  char *err = NULL;
  if (!cli_host_init(host, &ho, &err)) {
    fprintf(stderr, "geno %s: error: %s\n", cmd, err ? err : "out of memory");
    free(err);
    return false;
  }
  o->cfg.callbacks = host->callbacks;
  o->cfg.ncallbacks = host->ncallbacks;
  return true;
}

static void print_trace(FILE *out, const geno_result *r) {
  const char *file;
  int line, col;
  if (!geno_result_trace(r, 0, &file, &line, &col)) return;
  fputs("call stack (most recent call last):\n", out);
  const char *name;
  for (size_t i = 0; (name = geno_result_trace(r, i, &file, &line, &col)); i++) {
    if (file && line > 0) fprintf(out, "  in %s, %s:%d:%d\n", name, file, line, col);
    else fprintf(out, "  in %s\n", name);
  }
}

int cmd_run(int argc, char **argv) {
  RunOpts o;
  int rc = parse_opts("run", argc, argv, &o, run_help);
  if (rc != EXIT_OK) {
    free_opts(&o);
    return rc < 0 ? EXIT_OK : rc;
  }
  const char *file = o.files[0];
  CliProgram prog;
  if (!cli_load_program(file, &prog, o.json ? CLI_JSON_RUN : CLI_JSON_NONE)) {
    free_opts(&o);
    return EXIT_FAIL;
  }
  /* A project manifest that is not valid TOML stops the run, as it stops
   * geno check: a typo must not silently drop its rules. */
  char *merr = NULL;
  if (!cli_manifest_check(prog.path, &merr)) {
    const char *m = merr ? merr : "cannot read geno.toml";
    if (o.json) cli_json_failure(true, "E204", m);
    else fprintf(stderr, "error[E204]: %s\n", m);
    free(merr);
    cli_free_program(&prog);
    free_opts(&o);
    return EXIT_FAIL;
  }
  o.cfg.modules = prog.modules;
  o.cfg.nmodules = prog.nmodules;
  CliHost host;
  if (!setup_host("run", &o, prog.path, &host)) {
    cli_free_program(&prog);
    free_opts(&o);
    return EXIT_FAIL;
  }
  cli_host_start_clock(&host);
  geno_result *r = o.unsafe ? geno_run(prog.source, prog.length, prog.path, &o.cfg)
                            : geno_run_isolated(prog.source, prog.length, prog.path, &o.cfg);
  cli_host_free(&host);
  if (!r) {
    fprintf(stderr, "Error: out of memory\n");
    cli_free_program(&prog);
    free_opts(&o);
    return EXIT_FAIL;
  }
  int status = geno_result_ok(r) ? EXIT_OK : EXIT_FAIL;
  if (o.json) {
    char *j = geno_result_to_json(r);
    if (j) {
      fputs(j, stdout);
      fputc('\n', stdout);
      free(j);
    } else {
      fprintf(stderr, "Error: out of memory\n");
      status = EXIT_FAIL;
    }
  } else {
    size_t n;
    const char *out = geno_result_output(r, &n);
    fwrite(out, 1, n, stdout);
    const char *text = geno_result_value_text(r);
    if (status == EXIT_OK && text) printf("=> %s\n", text);
    fflush(stdout);
    if (status != EXIT_OK) {
      cli_print_diagnostics(stderr, r, &prog);
      print_trace(stderr, r);
    }
  }
  geno_result_free(r);
  cli_free_program(&prog);
  free_opts(&o);
  return status;
}

int cmd_test(int argc, char **argv) {
  RunOpts o;
  int rc = parse_opts("test", argc, argv, &o, test_help);
  if (rc != EXIT_OK) {
    free_opts(&o);
    return rc < 0 ? EXIT_OK : rc;
  }
  o.cfg.run_tests = true;
  long passed = 0, failed = 0;
  int status = EXIT_OK;
  for (int f = 0; f < o.nfiles; f++) {
    CliProgram prog;
    if (!cli_load_program(o.files[f], &prog, CLI_JSON_NONE)) {
      status = EXIT_FAIL;
      continue;
    }
    o.cfg.modules = prog.modules;
    o.cfg.nmodules = prog.nmodules;
    CliHost host;
    if (!setup_host("test", &o, prog.path, &host)) {
      cli_free_program(&prog);
      status = EXIT_FAIL;
      continue;
    }
    cli_host_start_clock(&host);
    /* like geno run: sandboxed unless --unsafe (tests run the file's code) */
    geno_result *r = o.unsafe ? geno_run(prog.source, prog.length, prog.path, &o.cfg)
                              : geno_run_isolated(prog.source, prog.length, prog.path, &o.cfg);
    cli_host_free(&host);
    if (!r) {
      cli_free_program(&prog);
      status = EXIT_FAIL;
      continue;
    }
    int total = -1, ok = 0, bad = 0;
    const char *counts = geno_result_value_json(r);
    if (counts) sscanf(counts, "{\"total\": %d, \"passed\": %d, \"failed\": %d}", &total, &ok, &bad);
    if (total < 0) {
      /* the file did not compile: every diagnostic is an error */
      printf("  ERROR  %s\n", o.files[f]);
      cli_print_diagnostics(stdout, r, &prog);
      status = EXIT_FAIL;
    } else {
      printf("  %s  %s (%d/%d)\n", bad ? "FAIL" : "PASS", o.files[f], ok, total);
      if (bad && o.verbose) cli_print_diagnostics(stdout, r, &prog);
      passed += ok;
      failed += bad;
      if (bad) status = EXIT_FAIL;
    }
    geno_result_free(r);
    cli_free_program(&prog);
  }
  printf("\n%ld passed, %ld failed\n", passed, failed);
  free_opts(&o);
  return status;
}
