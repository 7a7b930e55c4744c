/* `geno run FILE` and `geno test [PATH...]`. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "../host/host.h"

static const char run_help[] =
    "usage: geno run FILE|DIR [options] [-- program args]\n"
    "\n"
    "Check FILE, verify its examples, then run main. Program output goes to\n"
    "stdout, then `=> value` when main returns something other than ().\n"
    "Modules FILE imports are read from <Name>.geno beside it (each source\n"
    "at most 1 MiB). A directory DIR is a project: its geno.toml's\n"
    "`entrypoint` module runs (without one, the module that comes last\n"
    "once each module follows those it imports), and imports are found\n"
    "among the files geno.toml lists.\n"
    "\n"
    "options:\n"
    "  --cap NAME               grant a capability (repeatable; NAME may be a\n"
    "                           comma-separated list): print clock random fs\n"
    "                           http regex env process stdin serve.\n"
    "                           Default without --cap: print, clock, random;\n"
    "                           --cap none grants nothing.\n"
    "                           fs, http, process, stdin, clock's sleep_ms\n"
    "                           and serve are carried out by this command,\n"
    "                           only when granted with --cap (docs/SECURITY.md,\n"
    "                           \"The CLI as a host\"). fs reaches only files\n"
    "                           under the current directory, FILE's directory\n"
    "                           and the project root (nearest geno.toml);\n"
    "                           http_listen serves on 127.0.0.1 only, each\n"
    "                           request under the limits below\n"
    "  --json                   print the RunResult as JSON\n"
    "  --bundle                 FILE is a bundle (the JSON of geno bundle, or a\n"
    "                           pipe holding it): its entrypoint runs, its\n"
    "                           modules come from it (shown as NAME.geno), and\n"
    "                           no geno.toml applies\n"
    "  --value-style python     show main's value as a compiled Python program\n"
    "                           prints it (a String raw, True/False, nothing\n"
    "                           for ()) instead of `=> value`\n"
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
    "  --max-memory-bytes N     memory of the program's values; isolated runs\n"
    "                           also cap the child's address space (default\n"
    "                           268435456; 0: no limit)\n"
    "  --max-cpu-time S         CPU seconds of the sandboxed child (default:\n"
    "                           one second past --timeout)\n"
    "  --max-file-size-bytes N  bytes one fs_write_text may write (default 0:\n"
    "                           no limit; needs --cap fs)\n"
    "  --max-processes N        processes exec/spawn may start in the run\n"
    "                           (default: no limit; needs --cap process)\n"
    "  -h, --help               show this help\n"
    "\n"
    "exit status: 0 success, 1 program or check error, 2 usage error\n";

static const char test_help[] =
    "usage: geno test [options] [PATH...]\n"
    "\n"
    "Run every example clause and test block of each PATH (a .geno file, or a\n"
    "directory searched recursively for *.geno files, in name order; default\n"
    "the current directory). One line per file:\n"
    "  PASS|FAIL  FILE (passed/total)[ (N untested)][ time]\n"
    "  ERROR  FILE[ time], then its diagnostics (it did not compile)\n"
    "then `P passed, F failed[, U untested], in S.SSs` (examples and tests\n"
    "over all files).\n"
    "\n"
    "options:\n"
    "  --cap NAME               grant a capability, as for geno run (tests\n"
    "                           that print, read files...)\n"
    "  --unsafe                 run in this process; without it each file runs\n"
    "                           in a sandboxed child process, as for geno run\n"
    "  --timeout S, --max-steps N, ... limits per file, as for geno run\n"
    "  --json                   print the report as JSON: {\"files\": [{\"path\",\n"
    "                           \"total\", \"passed\", \"failed\", \"untested\":\n"
    "                           [{\"function\", \"reason\"}], \"violations\":\n"
    "                           [{\"kind\", \"function\", \"message\"}], \"elapsed_ms\"}\n"
    "                           or {\"path\", \"error\", \"elapsed_ms\"}], \"total\",\n"
    "                           \"passed\", \"failed\", \"errors\", \"untested\",\n"
    "                           \"success\"}\n"
    "  --fail-on-untested       an @untested function fails the run\n"
    "  -v, --verbose            show each failure's excerpt and list the\n"
    "                           untested functions (without it, each\n"
    "                           failure is one line: where, and what was\n"
    "                           expected and what came)\n"
    "  -h, --help               show this help\n"
    "\n"
    "exit status: 0 all passed, 1 a failure, an error or no file found,\n"
    "2 usage error\n";

/* --value-style python: main's value as a compiled Python program shows it
 * (the reference's `if result is not None: print(result)`): a String raw,
 * a Bool as True/False, nothing for the Unit no `()` wrote; every other
 * value in its canonical text (docs/compatibility.md). */
static void print_python_value(const geno_value *v, const char *text) {
  size_t n;
  const char *s;
  switch (geno_value_type(v)) {
    case GENO_UNIT: return;
    case GENO_BOOL: puts(geno_value_bool(v) ? "True" : "False"); return;
    case GENO_STRING:
      s = geno_value_string(v, &n);
      fwrite(s, 1, n, stdout);
      fputc('\n', stdout);
      return;
    default: printf("%s\n", text); return;
  }
}

typedef struct RunOpts {
  geno_config cfg;
  bool json, caps_given, verbose;
  bool fail_on_untested; /* geno test --fail-on-untested */
  bool unsafe; /* --unsafe: geno_run in this process, not geno_run_isolated */
  bool bundle; /* geno run --bundle: FILE is a bundle (geno bundle's JSON) */
  bool python_value; /* --value-style python: main's value as print(value) in Python */
  const char **files;
  int nfiles;
  const char **prog_args;
  int nprog_args;
  const char *targets[8]; /* --target (repeatable) */
  size_t ntargets;
  uint64_t max_file_bytes; /* --max-file-size-bytes (0: no limit) */
  bool limit_processes;    /* --max-processes given */
  uint64_t max_processes;
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
                                          "--max-output-length", "--max-collection-size", "--max-integer-bits",
                                          "--filter", "--target", "--max-memory-bytes", "--max-cpu-time",
                                          "--max-file-size-bytes", "--max-processes"};

static const char *const target_names[] = {"python-cli", "node-cli", "browser", "python-hosted"};

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
    bool takes = strcmp(a, "--cap") == 0 || strcmp(a, "--value-style") == 0;
    for (size_t k = 0; k < sizeof limit_flags / sizeof *limit_flags; k++) takes |= strcmp(a, limit_flags[k]) == 0;
    if (takes && !val) {
      if (i + 1 >= argc) return cli_usage_error(cmd, "option %s needs a value", a);
      val = argv[++i];
    }
    uint64_t n = 0;
    bool testing = strcmp(cmd, "test") == 0;
    if (testing && strcmp(a, "--no-check-examples") == 0)
      return cli_usage_error(cmd, "%s is an option of geno run, not of geno test", a);
    if (!testing && strcmp(a, "--fail-on-untested") == 0)
      return cli_usage_error(cmd, "%s is an option of geno test, not of geno run", a);
    if (strcmp(a, "--cap") == 0) {
      int rc = add_caps(cmd, o, val);
      if (rc != EXIT_OK) return rc;
    } else if (strcmp(a, "--json") == 0) {
      o->json = true;
    } else if (strcmp(a, "--unsafe") == 0) {
      o->unsafe = true;
    } else if (strcmp(a, "--bundle") == 0 && !testing) {
      o->bundle = true;
    } else if (strcmp(a, "--value-style") == 0 && !testing) {
      if (!val || (strcmp(val, "python") != 0 && strcmp(val, "geno") != 0))
        return cli_usage_error(cmd, "--value-style needs 'python' or 'geno'");
      o->python_value = strcmp(val, "python") == 0;
    } else if (strcmp(a, "--fail-on-untested") == 0) {
      o->fail_on_untested = true;
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
    } else if (strcmp(a, "--max-memory-bytes") == 0) {
      if (!parse_u64(val, &n)) return cli_usage_error(cmd, "--max-memory-bytes must be a non-negative integer (0: no limit)");
      o->cfg.memory_bytes = n;
    } else if (strcmp(a, "--max-cpu-time") == 0) {
      char *end;
      double t = strtod(val, &end);
      if (*end || !(t > 0) || t > 1e9) return cli_usage_error(cmd, "--max-cpu-time must be a positive number of seconds");
      o->cfg.cpu_seconds = t;
    } else if (strcmp(a, "--max-file-size-bytes") == 0) {
      if (!parse_u64(val, &n)) return cli_usage_error(cmd, "--max-file-size-bytes must be a non-negative integer (0: no limit)");
      o->max_file_bytes = n;
    } else if (strcmp(a, "--max-processes") == 0) {
      if (!parse_u64(val, &n)) return cli_usage_error(cmd, "--max-processes must be a non-negative integer");
      o->limit_processes = true;
      o->max_processes = n;
    } else if (strcmp(a, "--filter") == 0) {
      if (!testing) return cli_usage_error(cmd, "--filter is an option of geno test, not of geno run");
      o->cfg.test_filter = val;
    } else if (strcmp(a, "--target") == 0) {
      bool known = false;
      for (size_t k = 0; k < sizeof target_names / sizeof *target_names; k++) known |= strcmp(val, target_names[k]) == 0;
      if (!known)
        return cli_usage_error(cmd, "invalid --target '%s' (choose from python-cli, node-cli, browser, python-hosted)",
                               val);
      if (o->ntargets == sizeof o->targets / sizeof *o->targets) return cli_usage_error(cmd, "too many --target options");
      o->targets[o->ntargets++] = val;
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
  if (o->nfiles == 0 && strcmp(cmd, "test") == 0) o->files[o->nfiles++] = "."; /* argv has room */
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
static bool setup_host(const char *cmd, RunOpts *o, const char *path, Host *host) {
  HostOptions ho = {
      .caps = o->caps_given ? o->cfg.capabilities : 0,
      .timeout_s = o->cfg.timeout_s,
      .max_collection = o->cfg.max_collection_size,
      .max_file_bytes = o->max_file_bytes,
      .limit_processes = o->limit_processes,
      .max_processes = o->max_processes,
      .program_path = path,
      .args = o->prog_args,
      .nargs = (size_t)o->nprog_args,
  };
  host_policy_from_env(&ho);
  char *err = NULL;
  if (!host_init(host, &ho, &err)) {
    cli_printf_clean(stderr, "geno %s: error: %s\n", cmd, err ? err : "out of memory");
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
    fputs("  in ", out);
    cli_put_clean(out, name);
    if (file && line > 0) {
      fputs(", ", out);
      cli_put_clean(out, file);
      fprintf(out, ":%d:%d", line, col);
    }
    fputc('\n', out);
  }
}

/* Target rules (--target, else the project's declared targets): the
 * program is checked for them first. Returns NULL when they pass (or there
 * are none), else the failed check's result (caller frees); *err is set
 * (malloc'd) when the manifest cannot be read. */
static geno_result *check_targets(const RunOpts *o, CliProgram *prog, char **err) {
  char **declared = NULL, *manifest = NULL;
  size_t ndeclared = 0;
  *err = NULL;
  if (o->ntargets == 0 && !o->bundle && !cli_manifest_targets(prog->path, &declared, &ndeclared, &manifest, err))
    return NULL;
  geno_result *r = NULL;
  if (o->ntargets || ndeclared) {
    geno_config cfg;
    geno_config_init(&cfg);
    cfg.targets = o->ntargets ? o->targets : (const char *const *)declared;
    cfg.ntargets = o->ntargets ? o->ntargets : ndeclared;
    cfg.module_loader = cli_module_loader;
    cfg.module_loader_userdata = prog;
    r = geno_check(prog->source, prog->length, prog->path, &cfg);
    if (!r) {
      *err = strdup("out of memory");
    } else if (geno_result_ok(r)) {
      geno_result_free(r);
      r = NULL;
    }
  }
  for (size_t i = 0; i < ndeclared; i++) free(declared[i]);
  free(declared);
  free(manifest);
  return r;
}

int cmd_run(int argc, char **argv) {
  RunOpts o;
  int rc = parse_opts("run", argc, argv, &o, run_help);
  if (rc != EXIT_OK) {
    free_opts(&o);
    return rc < 0 ? EXIT_OK : rc;
  }
  const char *file = o.files[0];
  /* A directory is a project: run its entry module. */
  CliProject proj;
  bool is_project = !o.bundle && cli_is_dir(file);
  if (is_project) {
    char *perr = NULL;
    if (!cli_project_open(file, &proj, &perr)) {
      const char *m = perr ? perr : "out of memory";
      if (o.json) cli_json_failure(true, "E204", m);
      else cli_printf_clean(stderr, "Error: %s\n", m);
      free(perr);
      free_opts(&o);
      return EXIT_FAIL;
    }
    file = proj.files[proj.entry].path;
  }
  CliProgram prog;
  CliJsonShape shape = o.json ? CLI_JSON_RUN : CLI_JSON_NONE;
  if (!(o.bundle ? cli_load_bundle(file, &prog, shape) : cli_load_program(file, &prog, shape))) {
    if (is_project) cli_project_free(&proj);
    free_opts(&o);
    return EXIT_FAIL;
  }
  prog.project = is_project ? &proj : NULL;
  /* A project manifest that is not valid TOML stops the run, as it stops
   * geno check: a typo must not silently drop its rules. (A bundle has
   * none: its modules are all it is.) */
  char *merr = NULL;
  if (!o.bundle && !cli_manifest_check(prog.path, &merr)) {
    const char *m = merr ? merr : "cannot read geno.toml";
    if (o.json) cli_json_failure(true, "E204", m);
    else cli_printf_clean(stderr, "error[E204]: %s\n", m);
    free(merr);
    cli_free_program(&prog);
    if (is_project) cli_project_free(&proj);
    free_opts(&o);
    return EXIT_FAIL;
  }
  /* imported modules are read as the front end meets their imports */
  o.cfg.module_loader = cli_module_loader;
  o.cfg.module_loader_userdata = &prog;
  char *terr = NULL;
  geno_result *tfail = check_targets(&o, &prog, &terr);
  if (tfail || terr) {
    if (terr) {
      if (o.json) cli_json_failure(true, "E204", terr);
      else cli_printf_clean(stderr, "error[E204]: %s\n", terr);
    } else if (o.json) {
      char *j = geno_result_to_json(tfail);
      if (j) printf("%s\n", j);
      free(j);
    } else {
      cli_print_diagnostics(stderr, tfail, &prog);
    }
    free(terr);
    geno_result_free(tfail);
    cli_free_program(&prog);
    if (is_project) cli_project_free(&proj);
    free_opts(&o);
    return EXIT_FAIL;
  }
  Host host;
  if (!setup_host("run", &o, prog.path, &host)) {
    cli_free_program(&prog);
    if (is_project) cli_project_free(&proj);
    free_opts(&o);
    return EXIT_FAIL;
  }
  host_start_clock(&host);
  geno_result *r = o.unsafe ? geno_run(prog.source, prog.length, prog.path, &o.cfg)
                            : geno_run_isolated(prog.source, prog.length, prog.path, &o.cfg);
  host_free(&host);
  if (!r) {
    fprintf(stderr, "Error: out of memory\n");
    cli_free_program(&prog);
    if (is_project) cli_project_free(&proj);
    free_opts(&o);
    return EXIT_FAIL;
  }
  int status = geno_result_ok(r) ? EXIT_OK : EXIT_FAIL;
  if (o.json) {
    char *j = geno_result_to_json(r);
    if (j) {
      fputs(j, stdout);
      fputc('\n', stdout);
      geno_free(j);
    } else {
      fprintf(stderr, "Error: out of memory\n");
      status = EXIT_FAIL;
    }
  } else {
    size_t n;
    const char *out = geno_result_output(r, &n);
    fwrite(out, 1, n, stdout);
    const char *text = geno_result_value_text(r);
    if (status == EXIT_OK && text && o.python_value)
      print_python_value(geno_result_value(r), text);
    else if (status == EXIT_OK && text)
      printf("=> %s\n", text);
    fflush(stdout);
    if (status != EXIT_OK) {
      cli_print_diagnostics(stderr, r, &prog);
      print_trace(stderr, r);
    }
  }
  geno_result_free(r);
  cli_free_program(&prog);
  if (is_project) cli_project_free(&proj);
  free_opts(&o);
  return status;
}

/* ---- geno test ------------------------------------------------------------ */

/* Monotonic milliseconds, for the per-file times of the report. */
static double cli_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* A growable list of malloc'd paths. */
typedef struct PathList {
  char **items;
  int *project; /* per item: index into `projects`, or -1 */
  size_t n, cap;
  CliProject *projects; /* the projects tested (geno.toml beside a PATH) */
  size_t nprojects;
} PathList;

static bool paths_add_in(PathList *l, const char *path, int project) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    char **grown = realloc(l->items, cap * sizeof *grown);
    if (!grown) return false;
    l->items = grown;
    int *pg = realloc(l->project, cap * sizeof *pg);
    if (!pg) return false;
    l->project = pg;
    l->cap = cap;
  }
  char *copy = strdup(path);
  if (!copy) return false;
  l->project[l->n] = project;
  l->items[l->n++] = copy;
  return true;
}

static bool paths_add(PathList *l, const char *path) { return paths_add_in(l, path, -1); }

static void paths_free(PathList *l) {
  for (size_t i = 0; i < l->n; i++) free(l->items[i]);
  free(l->items);
  free(l->project);
  for (size_t i = 0; i < l->nprojects; i++) cli_project_free(&l->projects[i]);
  free(l->projects);
}

/* The directory that makes PATH part of a project: PATH itself when it is
 * a directory holding geno.toml, or the directory of a file that has
 * geno.toml beside it (malloc'd), else NULL. */
static char *project_dir_of(const char *path, bool is_dir) {
  char *dir;
  if (is_dir) {
    dir = strdup(path);
  } else {
    const char *slash = strrchr(path, '/');
    dir = !slash ? strdup(".") : slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
  }
  if (!dir) return NULL;
  size_t n = strlen(dir) + 12;
  char *m = malloc(n);
  bool has = false;
  if (m) {
    snprintf(m, n, "%s/geno.toml", dir);
    struct stat st;
    has = stat(m, &st) == 0 && S_ISREG(st.st_mode);
  }
  free(m);
  if (!has) {
    free(dir);
    return NULL;
  }
  return dir;
}

/* A project's modules, in their order (each after those it imports), by
 * their resolved paths. False with *missing set when the project cannot
 * be resolved. */
static bool collect_project(const char *dir, PathList *out, bool json, char **missing) {
  CliProject p;
  char *err = NULL;
  if (!cli_project_open(dir, &p, &err)) {
    size_t m = strlen(err ? err : "out of memory") + 32;
    *missing = malloc(m);
    if (*missing) snprintf(*missing, m, "Project Error: %s", err ? err : "out of memory");
    if (!json) cli_printf_clean(stderr, "Project Error: %s\n", err ? err : "out of memory");
    free(err);
    return false;
  }
  CliProject *grown = realloc(out->projects, (out->nprojects + 1) * sizeof *grown);
  if (!grown) {
    cli_project_free(&p);
    return false;
  }
  out->projects = grown;
  int idx = (int)out->nprojects;
  out->projects[out->nprojects++] = p;
  for (size_t i = 0; i < p.nfiles; i++) {
    char *abs = realpath(p.files[i].path, NULL);
    bool ok = paths_add_in(out, abs ? abs : p.files[i].path, idx);
    free(abs);
    if (!ok) return false;
  }
  return true;
}

/* Every *.geno file under dir, recursively, in name order. */
static bool find_sources(const char *dir, PathList *out) {
  char **found;
  size_t n;
  if (!cli_find_sources(dir, &found, &n)) return false;
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    if (ok) ok = paths_add(out, found[i]);
    free(found[i]);
  }
  free(found);
  return ok;
}

/* The files one PATH argument names; false when there are none, with
 * *missing set to the reason (a path that does not exist, a directory
 * without programs) and, unless json, the reason printed. */
static bool collect_tests(const char *arg, PathList *out, bool json, char **missing) {
  struct stat st;
  if (stat(arg, &st) != 0) {
    size_t m = strlen(arg) + 32;
    *missing = malloc(m);
    if (*missing) snprintf(*missing, m, "Error: '%s' not found", arg);
    if (!json) cli_printf_clean(stderr, "Error: '%s' not found\n", arg);
    return false;
  }
  /* a directory with geno.toml, or a file beside one: the whole project */
  char *pdir = project_dir_of(arg, S_ISDIR(st.st_mode));
  if (pdir) {
    bool ok = collect_project(pdir, out, json, missing);
    free(pdir);
    return ok;
  }
  if (!S_ISDIR(st.st_mode)) return paths_add(out, arg);
  size_t before = out->n;
  if (!find_sources(arg, out)) {
    fprintf(stderr, "Error: out of memory\n");
    return false;
  }
  if (out->n == before) {
    size_t m = strlen(arg) + 40;
    *missing = malloc(m);
    if (*missing) snprintf(*missing, m, "No .geno files found in '%s'", arg);
    if (!json) cli_printf_clean(stderr, "No .geno files found in '%s'\n", arg);
    return false;
  }
  return true;
}

/* What one file's run reported (the result value of a test-mode run). */
typedef struct FileReport {
  int total, passed, failed, untested;
  const char *fields; /* the report object's fields: `"total": ..., "violations": [...]` */
  size_t fields_len;
} FileReport;

/* Read the counts of a test-mode result value (run.c writes it:
 * {"total": N, "passed": N, "failed": N, "untested": [...], "violations":
 * [...]}). False when the value is not such a report (the file did not
 * compile). An untested entry is counted by its `{"function": ` opening: a
 * JSON string cannot contain `{"` unescaped, so names cannot fake one. */
static bool read_report(const char *json, FileReport *fr) {
  memset(fr, 0, sizeof *fr);
  if (!json || sscanf(json, "{\"total\": %d, \"passed\": %d, \"failed\": %d", &fr->total, &fr->passed,
                      &fr->failed) != 3)
    return false;
  const char *u = strstr(json, "\"untested\": [");
  const char *v = u ? strstr(u, "], \"violations\": [") : NULL;
  if (!u || !v) return false;
  for (const char *p = u; (p = strstr(p, "{\"function\": ")) && p < v; p++) fr->untested++;
  size_t n = strlen(json);
  if (n < 2 || json[n - 1] != '}') return false;
  fr->fields = json + 1;
  fr->fields_len = n - 2;
  return true;
}

/* The diagnostics of a file that did not compile, one per line, as
 * "file:line:col: message" (the error text of the JSON report). */
static char *error_text(const geno_result *r) {
  size_t cap = 256, len = 0;
  char *s = malloc(cap);
  if (!s) return NULL;
  s[0] = '\0';
  for (size_t i = 0; i < geno_result_diagnostic_count(r); i++) {
    const geno_diagnostic *d = geno_result_diagnostic(r, i);
    char loc[64] = "";
    if (d->filename && d->line > 0) snprintf(loc, sizeof loc, ":%d:%d: ", d->line, d->column);
    size_t need = len + (d->filename && d->line > 0 ? strlen(d->filename) : 0) + strlen(loc) + strlen(d->code) +
                  strlen(d->message) + 8;
    if (need > cap) {
      while (cap < need) cap *= 2;
      char *grown = realloc(s, cap);
      if (!grown) {
        free(s);
        return NULL;
      }
      s = grown;
    }
    len += (size_t)snprintf(s + len, cap - len, "%s%s%s%s[%s]: %s", len ? "\n" : "",
                            d->filename && d->line > 0 ? d->filename : "", loc, "error", d->code, d->message);
  }
  return s;
}

static void print_elapsed(double ms) {
  if (ms >= 1000) printf(" %.2fs", ms / 1000);
  else if (ms >= 1) printf(" %.0fms", ms);
}

/* Print the `o name: @untested('reason')` lines of a report (verbose). */
static void print_untested(const geno_result *r) {
  const char *json = geno_result_value_json(r);
  const char *u = json ? strstr(json, "\"untested\": [") : NULL;
  const char *end = u ? strstr(u, "], \"violations\": [") : NULL;
  /* The entries are {"function": "F", "reason": "R"}; F and R are shown as
   * written in the JSON (escapes included), which keeps any control
   * character of a reason visible. */
  for (const char *p = u; p && (p = strstr(p, "{\"function\": \"")) && p < end;) {
    p += strlen("{\"function\": \"");
    const char *q = p;
    while (*q && !(*q == '"' && q[-1] != '\\')) q++;
    const char *rs = strstr(q, "\"reason\": \"");
    if (!rs) break;
    rs += strlen("\"reason\": \"");
    const char *re = rs;
    while (*re && !(*re == '"' && re[-1] != '\\')) re++;
    printf("        o %.*s: @untested('%.*s')\n", (int)(q - p), p, (int)(re - rs), rs);
    p = re;
  }
}

int cmd_test(int argc, char **argv) {
  RunOpts o;
  int rc = parse_opts("test", argc, argv, &o, test_help);
  if (rc != EXIT_OK) {
    free_opts(&o);
    return rc < 0 ? EXIT_OK : rc;
  }
  o.cfg.run_tests = true;
  /* each file counts its own examples and tests: an imported module's are
   * counted under that module's file, once */
  o.cfg.test_entry_only = true;
  double t_start = cli_now_ms();
  PathList files = {0};
  int status = EXIT_OK;
  char *missing = NULL;
  const char *bad_arg = NULL;
  for (int i = 0; i < o.nfiles && !missing; i++) {
    if (!collect_tests(o.files[i], &files, o.json, &missing)) status = EXIT_FAIL;
    if (missing) bad_arg = o.files[i];
  }
  if (missing && o.json) {
    /* the report's shape, with the missing path as its one error */
    printf("{\n  \"files\": [\n    {\"path\": ");
    cli_json_string(bad_arg);
    printf(", \"error\": ");
    cli_json_string(missing);
    printf(", \"elapsed_ms\": 0.0}\n  ],\n  \"total\": 0,\n  \"passed\": 0,\n  \"failed\": 0,\n"
           "  \"errors\": 1,\n  \"untested\": 0,\n  \"success\": false\n}\n");
  }
  if (status != EXIT_OK) {
    free(missing);
    paths_free(&files);
    free_opts(&o);
    return EXIT_FAIL;
  }
  long passed = 0, failed = 0, untested = 0, errors = 0;
  bool *project_checked = calloc(files.nprojects + 1, sizeof *project_checked);
  bool *project_failed = calloc(files.nprojects + 1, sizeof *project_failed);
  if (!project_checked || !project_failed) {
    free(project_checked);
    free(project_failed);
    paths_free(&files);
    free_opts(&o);
    fprintf(stderr, "Error: out of memory\n");
    return EXIT_FAIL;
  }
  if (o.json) printf("{\n  \"files\": [");
  for (size_t f = 0; f < files.n; f++) {
    const char *path = files.items[f];
    double t0 = cli_now_ms();
    if (o.json) printf("%s\n    ", f ? "," : "");
    CliProgram prog;
    if (!cli_load_program(path, &prog, CLI_JSON_NONE)) {
      errors++;
      if (o.json) {
        printf("{\"path\": ");
        cli_json_string(path);
        printf(", \"error\": ");
        cli_json_string("cannot read the file");
        printf(", \"elapsed_ms\": %.2f}", cli_now_ms() - t0);
      } else {
        cli_printf_clean(stdout, "  ERROR  %s\n", path);
      }
      continue;
    }
    prog.project = files.project[f] >= 0 ? &files.projects[files.project[f]] : NULL;
    /* imported modules are read as the front end meets their imports */
    o.cfg.module_loader = cli_module_loader;
    o.cfg.module_loader_userdata = &prog;
    Host host;
    char *terr = NULL;
    /* target rules (--target, or the project's targets) are checked first:
     * a file that breaks them is an error, as one that does not compile.
     * A project is checked once, from its entry module (the rules that
     * apply to an entry are not all meant for the modules it imports). */
    geno_result *r = NULL;
    int pi = files.project[f];
    if (pi < 0) {
      r = check_targets(&o, &prog, &terr);
    } else if (!project_checked[pi]) {
      project_checked[pi] = true;
      const CliProject *pj = &files.projects[pi];
      CliProgram eprog;
      if (cli_load_program(pj->files[pj->entry].path, &eprog, CLI_JSON_NONE)) {
        eprog.project = pj;
        geno_result *er = check_targets(&o, &eprog, &terr);
        if (er) {
          if (!o.json) {
            cli_printf_clean(stdout, "  ERROR  %s (target rules of the project's entry %s)\n", pj->root, eprog.path);
            fflush(stdout);
            cli_print_diagnostics(stdout, er, &eprog);
          }
          project_failed[pi] = true;
          errors++;
          geno_result_free(er);
        }
        cli_free_program(&eprog);
      }
    }
    if (pi >= 0 && project_failed[pi]) {
      if (o.json) {
        printf("{\"path\": ");
        cli_json_string(path);
        printf(", \"error\": ");
        cli_json_string("the project's entry module breaks its target rules");
        printf(", \"elapsed_ms\": 0.0}");
      }
      cli_free_program(&prog);
      free(terr);
      continue;
    }
    bool target_error = terr != NULL;
    if (terr) {
      cli_printf_clean(stderr, "error[E204]: %s\n", terr);
      free(terr);
    }
    if (!r && !target_error && setup_host("test", &o, prog.path, &host)) {
      host_start_clock(&host);
      /* like geno run: sandboxed unless --unsafe (tests run the file's code) */
      r = o.unsafe ? geno_run(prog.source, prog.length, prog.path, &o.cfg)
                   : geno_run_isolated(prog.source, prog.length, prog.path, &o.cfg);
      host_free(&host);
    }
    double ms = cli_now_ms() - t0;
    FileReport fr;
    if (r && read_report(geno_result_value_json(r), &fr)) {
      if (o.json) {
        printf("{\"path\": ");
        cli_json_string(path);
        printf(", %.*s, \"elapsed_ms\": %.2f}", (int)fr.fields_len, fr.fields, ms);
      } else {
        cli_printf_clean(stdout, "  %s  %s (%d/%d)", fr.failed ? "FAIL" : "PASS", path, fr.passed, fr.total);
        if (fr.untested) printf(" (%d untested)", fr.untested);
        print_elapsed(ms);
        putchar('\n');
        /* each failure: where, what was expected and what came (one
         * line each; -v adds the excerpts and the untested functions) */
        fflush(stdout);
        if (fr.failed) cli_print_diagnostics(stdout, r, o.verbose ? &prog : NULL);
        if (o.verbose) print_untested(r);
      }
      passed += fr.passed;
      failed += fr.failed;
      untested += fr.untested;
    } else {
      /* the file did not compile (or no memory to run it) */
      errors++;
      if (o.json) {
        char *text = r ? error_text(r) : NULL;
        printf("{\"path\": ");
        cli_json_string(path);
        printf(", \"error\": ");
        /* never an empty reason: a run that ended without a report or a
         * diagnostic is said to have done so */
        cli_json_string(!r ? "out of memory" : text && *text ? text : "the file ran without producing a test report");
        printf(", \"elapsed_ms\": %.2f}", ms);
        free(text);
      } else {
        cli_printf_clean(stdout, "  ERROR  %s", path);
        print_elapsed(ms);
        putchar('\n');
        fflush(stdout);
        if (r) cli_print_diagnostics(stdout, r, &prog);
        else printf("Error: out of memory\n");
      }
    }
    geno_result_free(r);
    cli_free_program(&prog);
  }
  bool success = failed == 0 && errors == 0 && !(o.fail_on_untested && untested > 0);
  if (o.json) {
    printf("%s  ],\n  \"total\": %ld,\n  \"passed\": %ld,\n  \"failed\": %ld,\n  \"errors\": %ld,\n"
           "  \"untested\": %ld,\n  \"success\": %s\n}\n",
           files.n ? "\n" : "", passed + failed, passed, failed, errors, untested, success ? "true" : "false");
  } else {
    printf("\n%ld passed, %ld failed", passed, failed);
    if (untested) printf(", %ld untested", untested);
    if (errors) printf(", %ld file%s not run (errors above)", errors, errors == 1 ? "" : "s");
    printf(", in %.2fs\n", (cli_now_ms() - t_start) / 1000);
  }
  free(project_checked);
  free(project_failed);
  paths_free(&files);
  free_opts(&o);
  return success ? EXIT_OK : EXIT_FAIL;
}
