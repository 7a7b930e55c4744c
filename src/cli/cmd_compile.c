/* `geno compile FILE --target js [--esm] [--source-map] [-o OUT]` and
 * `geno build FILE [--single-file] [--width W] [--height H] [--title T]
 * [--source-map] [-o OUT]`: the JavaScript back end (include/geno.h,
 * geno_compile_js_ex and geno_compile_html_ex). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char compile_help[] =
    "usage: geno compile FILE|DIR [--target python|js] [--esm] [--source-map] [-o OUT]\n"
    "\n"
    "Check FILE (or project DIR's entry module, its imports found among the\n"
    "project's files) and compile it, to OUT or to stdout:\n"
    "  --target js: for the node-cli target, one JavaScript file (ES2020,\n"
    "    strict mode), run with  node OUT [--cap NAME]... [-- program args]\n"
    "  --target python: for the python-cli target, a Python launcher that\n"
    "    carries the program's modules and runs them on geno-c, run with\n"
    "    python3 OUT [--cap NAME[,NAME...]]... [-- program args]\n"
    "    It needs geno-c installed: the `geno` Python package, or the geno\n"
    "    executable named by GENO_BINARY or on PATH; it prints and exits as\n"
    "    `geno run` does.\n"
    "Without --target: js when OUT ends in .js or .mjs, else python (the\n"
    "reference's default). Capabilities are denied unless granted with --cap\n"
    "(print, clock, random, fs, env, ...). The limits (steps, recursion depth,\n"
    "output, collection size, Int bits) are those of `geno run`, or those\n"
    "given here, compiled in.\n"
    "\n"
    "options:\n"
    "  --target T           python or js\n"
    "  --esm                (js) an ES module exporting the entry module's functions;\n"
    "                       with -o, also its TypeScript declarations (.d.ts)\n"
    "  --source-map         (js) also write OUT.map, mapping lines to the source (needs -o)\n"
    "  -o, --output OUT     the output file (default: stdout)\n"
    "  --max-steps N        step limit (default 1000000; 0: none)\n"
    "  --timeout S          wall-clock limit in seconds (default 30; 0: none)\n"
    "  --max-recursion-depth N, --max-output-length N, --max-collection-size N,\n"
    "  --max-integer-bits N  the other limits, as for `geno run`\n"
    "  --no-check-examples  do not verify examples before main\n"
    "  -h, --help           show this help\n"
    "\n"
    "exit status: 0 compiled, 1 check or write error, 2 usage error\n";

static const char build_help[] =
    "usage: geno build FILE|DIR [--single-file] [--width W] [--height H] [--title T] [--source-map]\n"
    "                  [--cap NAME]... [-o OUT]\n"
    "\n"
    "Check FILE (or project DIR's entry module) for the browser target and\n"
    "build a web page: OUT/index.html and OUT/app.js (default OUT: dist), or\n"
    "with --single-file, or an OUT ending in .html, one HTML file (default\n"
    "OUT: FILE's name with .html). An app (init, update and render\n"
    "without main) draws on the page's canvas every animation frame. The page\n"
    "works from file:// and from any static server. It grants the\n"
    "capabilities named with --cap, none by default; a page that sets\n"
    "globalThis.__GENO_CAPS (an array of names) before the script loads\n"
    "grants exactly those instead.\n"
    "\n"
    "options:\n"
    "  --single-file        one HTML file with the script inline\n"
    "  --width W            canvas width in pixels (default 800)\n"
    "  --height H           canvas height in pixels (default 600)\n"
    "  --title T            page title (default \"Geno App\"), escaped\n"
    "  --source-map         also a source map: OUT/app.js.map, or inline in\n"
    "                       the one HTML file\n"
    "  --cap NAME           grant a capability in the page (repeatable, or a\n"
    "                       comma list: print, clock, random, regex ...;\n"
    "                       fs, env, http and process fail in a browser anyway)\n"
    "  -o, --output OUT     output directory, or file with --single-file\n"
    "  -h, --help           show this help\n"
    "\n"
    "exit status: 0 built, 1 check or write error, 2 usage error\n";

static bool write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    cli_printf_clean(stderr, "Error: cannot write %s: %s\n", path, strerror(errno));
    return false;
  }
  bool ok = fwrite(data, 1, len, f) == len;
  ok &= fclose(f) == 0;
  if (!ok) cli_printf_clean(stderr, "Error: cannot write %s\n", path);
  return ok;
}

/* The .d.ts beside an ES module OUT: OUT with its .mjs extension made
 * .d.mts, or its .js made .d.ts, else OUT + ".d.ts" (malloc'd). */
static char *dts_path(const char *out) {
  size_t n = strlen(out);
  char *p = malloc(n + 8);
  if (!p) return NULL;
  if (n > 4 && strcmp(out + n - 4, ".mjs") == 0) snprintf(p, n + 8, "%.*s.d.mts", (int)(n - 4), out);
  else if (n > 3 && strcmp(out + n - 3, ".js") == 0) snprintf(p, n + 8, "%.*s.d.ts", (int)(n - 3), out);
  else snprintf(p, n + 8, "%s.d.ts", out);
  return p;
}

/* ---- --target python ------------------------------------------------------- */

/* The modules a check read, in the order it read them (each after the
 * entry's import that named it). */
typedef struct Recorded {
  CliProgram *prog;
  char **names, **sources;
  size_t *lengths;
  size_t n;
  bool failed;
} Recorded;

static bool recording_loader(void *userdata, const char *name, char **source, size_t *length, char **filename,
                             char **error) {
  Recorded *r = userdata;
  if (!cli_module_loader(r->prog, name, source, length, filename, error)) return false;
  for (size_t i = 0; i < r->n; i++)
    if (strcmp(r->names[i], name) == 0) return true;
  char **nn = realloc(r->names, (r->n + 1) * sizeof *nn);
  if (nn) r->names = nn;
  char **ss = nn ? realloc(r->sources, (r->n + 1) * sizeof *ss) : NULL;
  if (ss) r->sources = ss;
  size_t *ll = ss ? realloc(r->lengths, (r->n + 1) * sizeof *ll) : NULL;
  if (ll) r->lengths = ll;
  char *nm = ll ? strdup(name) : NULL, *src = nm ? malloc(*length + 1) : NULL;
  if (!src) {
    free(nm);
    r->failed = true;
    return true;
  }
  memcpy(src, *source, *length);
  src[*length] = '\0';
  r->names[r->n] = nm;
  r->sources[r->n] = src;
  r->lengths[r->n] = *length;
  r->n++;
  return true;
}

static void recorded_free(Recorded *r) {
  for (size_t i = 0; i < r->n; i++) {
    free(r->names[i]);
    free(r->sources[i]);
  }
  free(r->names);
  free(r->sources);
  free(r->lengths);
}

/* s (n bytes, UTF-8) as Python string literals, one per line of s,
 * each indented by `indent` spaces. */
static void py_string_lines(FILE *f, const char *s, size_t n, int indent) {
  if (n == 0) {
    fprintf(f, "%*s\"\"\n", indent, "");
    return;
  }
  size_t i = 0;
  while (i < n) {
    fprintf(f, "%*s\"", indent, "");
    for (; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      if (c == '\\' || c == '"') fprintf(f, "\\%c", c);
      else if (c == '\n') {
        fputs("\\n", f);
        i++;
        break;
      } else if (c == '\t') fputs("\\t", f);
      else if (c == '\r') fputs("\\r", f);
      else if (c < 0x20 || c == 0x7f) fprintf(f, "\\x%02x", c);
      else fputc(c, f);
    }
    fputs("\"\n", f);
  }
}

static const char launcher_head[] =
    "#!/usr/bin/env python3\n"
    "\"\"\"A Geno program compiled by geno-c (geno compile --target python).\n"
    "\n"
    "Run it as the reference's compiled programs run:\n"
    "    python3 %s [--cap NAME[,NAME...]]... [-- PROGRAM ARGS...]\n"
    "Capabilities are denied unless granted with --cap. The program's modules\n"
    "are below; it runs on geno-c, which must be installed: the `geno` Python\n"
    "package (its geno executable), else the executable named by GENO_BINARY\n"
    "or found as `geno` on PATH. It prints and exits as `geno run` does,\n"
    "except main's value: shown as Python's print() would (no `=> `).\n"
    "\"\"\"\n"
    "import json\n"
    "import os\n"
    "import shutil\n"
    "import subprocess\n"
    "import sys\n"
    "import tempfile\n"
    "\n"
    "GENO_C_VERSION = \"%s\"\n";

static const char launcher_body[] =
    "\n"
    "\n"
    "def _is_geno_c(path):\n"
    "    try:\n"
    "        done = subprocess.run([path, \"--version\"], capture_output=True, text=True, timeout=60)\n"
    "    except (OSError, subprocess.SubprocessError):\n"
    "        return False\n"
    "    return done.stdout.startswith(\"geno-c \")\n"
    "\n"
    "\n"
    "def _find_geno():\n"
    "    \"\"\"GENO_BINARY, else the geno package's executable, else geno on PATH (geno-c's only).\"\"\"\n"
    "    named = os.environ.get(\"GENO_BINARY\")\n"
    "    if named:\n"
    "        return named\n"
    "    candidates = []\n"
    "    try:\n"
    "        import importlib.util\n"
    "        spec = importlib.util.find_spec(\"geno\")\n"
    "    except (ImportError, ValueError):\n"
    "        spec = None\n"
    "    if spec is not None and spec.origin:\n"
    "        candidates.append(os.path.join(os.path.dirname(spec.origin), \"bin\", \"geno\"))\n"
    "    on_path = shutil.which(\"geno\")\n"
    "    if on_path:\n"
    "        candidates.append(on_path)\n"
    "    for path in candidates:\n"
    "        if os.path.isfile(path) and os.access(path, os.X_OK) and _is_geno_c(path):\n"
    "            return path\n"
    "    return None\n"
    "\n"
    "\n"
    "def _usage_error(message):\n"
    "    name = os.path.basename(sys.argv[0])\n"
    "    sys.stderr.write(f\"usage: {name} [--cap NAME[,NAME...]]... [-- PROGRAM ARGS...]\\n\"\n"
    "                     f\"{name}: error: {message}\\n\")\n"
    "    sys.exit(2)\n"
    "\n"
    "\n"
    "def _command_line(argv):\n"
    "    caps, i = [], 0\n"
    "    while i < len(argv):\n"
    "        arg = argv[i]\n"
    "        if arg == \"--\":\n"
    "            return caps, argv[i + 1:]\n"
    "        if arg in (\"-h\", \"--help\"):\n"
    "            print(__doc__.strip())\n"
    "            sys.exit(0)\n"
    "        if arg == \"--cap\" or arg.startswith(\"--cap=\"):\n"
    "            if arg == \"--cap\":\n"
    "                if i + 1 >= len(argv):\n"
    "                    _usage_error(\"--cap needs a value\")\n"
    "                i += 1\n"
    "                value = argv[i]\n"
    "            else:\n"
    "                value = arg[len(\"--cap=\"):]\n"
    "            caps += [c.strip() for c in value.split(\",\") if c.strip()]\n"
    "            i += 1\n"
    "            continue\n"
    "        _usage_error(f\"unexpected argument {arg!r} (the program's arguments go after --)\")\n"
    "    return caps, []\n"
    "\n"
    "\n"
    "def main():\n"
    "    caps, args = _command_line(sys.argv[1:])\n"
    "    geno = _find_geno()\n"
    "    if geno is None:\n"
    "        sys.stderr.write(\"Error: this program runs on geno-c, which is not installed: install geno-c's \"\n"
    "                         \"Python package (pip install ./python in geno-c), or put its geno executable \"\n"
    "                         \"on PATH or name it in GENO_BINARY\\n\")\n"
    "        sys.exit(1)\n"
    "    bundle = json.dumps({\"version\": \"1\", \"entrypoint\": ENTRYPOINT, \"modules\": MODULES})\n"
    "    # the bundle goes to geno as an unlinked file it inherits: nothing to clean up\n"
    "    carrier = tempfile.TemporaryFile()\n"
    "    carrier.write(bundle.encode(\"utf-8\"))\n"
    "    carrier.flush()\n"
    "    fd = carrier.fileno()\n"
    "    os.set_inheritable(fd, True)\n"
    "    argv = [geno, \"run\", \"--bundle\", \"--value-style\", \"python\", *RUN_OPTIONS, \"--cap\", \",\".join(caps) or \"none\",\n"
    "            f\"/dev/fd/{fd}\", \"--\", *args]\n"
    "    sys.stdout.flush()\n"
    "    sys.stderr.flush()\n"
    "    try:\n"
    "        os.execv(geno, argv)\n"
    "    except OSError as e:\n"
    "        sys.stderr.write(f\"Error: cannot run {geno}: {e.strerror}\\n\")\n"
    "        sys.exit(1)\n"
    "\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "    main()\n";

/* Write the launcher of entry (a module name) and the recorded modules. */
static bool write_launcher(FILE *f, const char *shown_name, const char *entry, const char *entry_src,
                           size_t entry_len, const Recorded *rec, char *const *run_options, size_t nrun) {
  fprintf(f, launcher_head, shown_name, GENO_VERSION);
  fputs("ENTRYPOINT = ", f);
  py_string_lines(f, entry, strlen(entry), 0);
  fputs("RUN_OPTIONS = [", f);
  for (size_t i = 0; i < nrun; i++) {
    fputs(i ? ", " : "", f);
    fprintf(f, "\"%s\"", run_options[i]); /* our own numbers and flags */
  }
  fputs("]\nMODULES = {\n", f);
  for (size_t i = 0; i <= rec->n; i++) {
    const char *name = i < rec->n ? rec->names[i] : entry;
    const char *src = i < rec->n ? rec->sources[i] : entry_src;
    size_t len = i < rec->n ? rec->lengths[i] : entry_len;
    fprintf(f, "    \"%s\": (\n", name); /* module names are identifiers */
    py_string_lines(f, src, len, 8);
    fputs("    ),\n", f);
  }
  fputs("}\n", f);
  fputs(launcher_body, f);
  return !ferror(f);
}

typedef struct CommonOpts {
  const char *file, *out;
  long max_steps, max_depth, max_output, max_coll, max_bits;
  double timeout;
  bool no_examples;
} CommonOpts;

static bool parse_int_arg(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long n = v ? strtol(v, &end, 10) : 0;
  if (!v || errno || *end || end == v || n < lo || n > hi) {
    cli_usage_error(cmd, "%s needs an integer from %ld to %ld", opt, lo, hi);
    return false;
  }
  *out = n;
  return true;
}

/* `geno compile --target python`: check the program for the python-cli
 * target (or its manifest's targets) and write its launcher. */
static int compile_python(const CommonOpts *c, CliProgram *prog, CliProject *proj) {
  Recorded rec = {.prog = prog};
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.module_loader = recording_loader;
  cfg.module_loader_userdata = &rec;
  char **declared = NULL, *manifest = NULL, *merr = NULL;
  size_t ndeclared = 0;
  if (!cli_manifest_targets(prog->path, &declared, &ndeclared, &manifest, &merr)) {
    cli_printf_clean(stderr, "error[E204]: %s\n", merr ? merr : "cannot read geno.toml");
    free(merr);
    return EXIT_FAIL;
  }
  static const char *const python_cli[] = {"python-cli"};
  cfg.targets = ndeclared ? (const char *const *)declared : python_cli;
  cfg.ntargets = ndeclared ? ndeclared : 1;
  geno_result *r = geno_check(prog->source, prog->length, prog->path, &cfg);
  for (size_t i = 0; i < ndeclared; i++) free(declared[i]);
  free(declared);
  free(manifest);
  int status = EXIT_OK;
  if (!r || rec.failed) {
    fprintf(stderr, "Error: out of memory\n");
    status = EXIT_FAIL;
  } else if (!geno_result_ok(r)) {
    cli_print_diagnostics(stderr, r, prog);
    status = EXIT_FAIL;
  }
  geno_result_free(r);
  /* the entry module's name: the project's, or the file's stem */
  char *entry = NULL;
  if (status == EXIT_OK) {
    const char *base = proj->nfiles ? proj->files[proj->entry].module : strrchr(prog->path, '/');
    base = proj->nfiles ? base : base ? base + 1 : prog->path;
    size_t n = strlen(base);
    if (!proj->nfiles && n > 5 && strcmp(base + n - 5, ".geno") == 0) n -= 5;
    entry = strndup(base, n);
    for (char *e = entry; e && *e; e++)
      if (*e == '.' || *e == '/' || *e == '"' || *e == '\\' || (unsigned char)*e < 0x20) *e = '_';
    if (!entry) status = EXIT_FAIL;
  }
  /* the limits given here, for `geno run` */
  char nums[6][32];
  char *opts[16];
  size_t nopt = 0;
  const struct {
    const char *flag;
    long v;
  } lim[] = {{"--max-steps", c->max_steps}, {"--max-recursion-depth", c->max_depth},
             {"--max-output-length", c->max_output}, {"--max-collection-size", c->max_coll},
             {"--max-integer-bits", c->max_bits}};
  for (size_t i = 0; i < sizeof lim / sizeof *lim; i++)
    if (lim[i].v >= 0) {
      snprintf(nums[i], sizeof nums[i], "%ld", lim[i].v);
      opts[nopt++] = (char *)lim[i].flag;
      opts[nopt++] = nums[i];
    }
  if (c->timeout != 30) {
    snprintf(nums[5], sizeof nums[5], "%.17g", c->timeout);
    opts[nopt++] = "--timeout";
    opts[nopt++] = nums[5];
  }
  if (c->no_examples) opts[nopt++] = "--no-check-examples";
  if (status == EXIT_OK) {
    /* the name the launcher's usage shows: OUT's own, when it is plain */
    const char *shown = c->out ? strrchr(c->out, '/') : NULL;
    shown = shown ? shown + 1 : c->out ? c->out : "program.py";
    for (const char *k = shown; *k; k++)
      if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || strchr("._-", *k)))
        shown = "program.py";
    FILE *f = c->out ? fopen(c->out, "w") : stdout;
    if (!f) {
      cli_printf_clean(stderr, "Error: cannot write %s: %s\n", c->out, strerror(errno));
      status = EXIT_FAIL;
    } else {
      bool ok = write_launcher(f, shown, entry, prog->source, prog->length, &rec, opts, nopt);
      if (c->out) {
        ok &= fclose(f) == 0;
        if (ok) { /* it starts with #!/usr/bin/env python3: executable, as the umask allows */
          mode_t mask = umask(0);
          umask(mask);
          (void)chmod(c->out, 0777 & ~mask);
        }
      }
      if (!ok) {
        cli_printf_clean(stderr, "Error: cannot write %s\n", c->out ? c->out : "standard output");
        status = EXIT_FAIL;
      } else if (c->out) {
        cli_printf_clean(stdout, "Compiled to %s\n", c->out);
      }
    }
  }
  free(entry);
  recorded_free(&rec);
  return status;
}

int cmd_compile(int argc, char **argv) {
  CommonOpts c = {NULL, NULL, -1, -1, -1, -1, -1, 30, false};
  const char *target = NULL;
  bool esm = false, smap = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(compile_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--target") == 0 || strncmp(a, "--target=", 9) == 0) {
      target = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      if (!target) return cli_usage_error("compile", "--target needs a value (python or js)");
    } else if (strcmp(a, "--esm") == 0) {
      esm = true;
    } else if (strcmp(a, "--source-map") == 0) {
      smap = true;
    } else if (strcmp(a, "--no-check-examples") == 0) {
      c.no_examples = true;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (i + 1 >= argc) return cli_usage_error("compile", "%s needs a file name", a);
      c.out = argv[++i];
      if (cli_check_output_name("compile", a, c.out) != EXIT_OK) return EXIT_USAGE;
    } else if (strcmp(a, "--max-steps") == 0) {
      if (!parse_int_arg("compile", a, i + 1 < argc ? argv[++i] : NULL, 0, 1L << 52, &c.max_steps)) return EXIT_USAGE;
    } else if (strcmp(a, "--timeout") == 0) {
      const char *v = i + 1 < argc ? argv[++i] : NULL;
      char *end;
      c.timeout = v ? strtod(v, &end) : -1;
      if (!v || *end || end == v || !(c.timeout >= 0 && c.timeout <= 1e9))
        return cli_usage_error("compile", "--timeout needs a number of seconds (0: none)");
    } else if (strcmp(a, "--max-recursion-depth") == 0) {
      if (!parse_int_arg("compile", a, i + 1 < argc ? argv[++i] : NULL, 1, 10000, &c.max_depth)) return EXIT_USAGE;
    } else if (strcmp(a, "--max-output-length") == 0) {
      if (!parse_int_arg("compile", a, i + 1 < argc ? argv[++i] : NULL, 0, 1L << 52, &c.max_output)) return EXIT_USAGE;
    } else if (strcmp(a, "--max-collection-size") == 0) {
      if (!parse_int_arg("compile", a, i + 1 < argc ? argv[++i] : NULL, 0, 1L << 52, &c.max_coll)) return EXIT_USAGE;
    } else if (strcmp(a, "--max-integer-bits") == 0) {
      if (!parse_int_arg("compile", a, i + 1 < argc ? argv[++i] : NULL, 1, 1L << 30, &c.max_bits)) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("compile", "unrecognized option '%s'", a);
    } else if (c.file) {
      return cli_usage_error("compile", "unexpected argument '%s': compile takes one FILE", a);
    } else {
      c.file = a;
    }
  }
  if (!c.file) return cli_usage_error("compile", "missing FILE");
  if (!target) { /* the reference's default is Python; an OUT named *.js or *.mjs is JavaScript */
    size_t ol = c.out ? strlen(c.out) : 0;
    bool js_out = (ol > 3 && strcmp(c.out + ol - 3, ".js") == 0) || (ol > 4 && strcmp(c.out + ol - 4, ".mjs") == 0);
    target = js_out || esm || smap ? "js" : "python";
  }
  if (strcmp(target, "js") != 0 && strcmp(target, "python") != 0)
    return cli_usage_error("compile", "invalid --target '%s' (choose from python, js)", target);
  if (strcmp(target, "python") == 0 && (esm || smap))
    return cli_usage_error("compile", "%s is an option of --target js", esm ? "--esm" : "--source-map");
  if (smap && !c.out) return cli_usage_error("compile", "--source-map needs -o/--output");
  CliProgram prog;
  CliProject proj;
  if (!cli_open_program(c.file, &prog, &proj)) return EXIT_FAIL;
  if (strcmp(target, "python") == 0) {
    int st = compile_python(&c, &prog, &proj);
    cli_close_program(&prog, &proj);
    return st;
  }
  /* --target js is node-cli output: a project whose geno.toml declares
   * browser but not node-cli is a page, built by `geno build` (as the
   * reference refuses it); other lists compile for node-cli. */
  char **declared = NULL, *manifest = NULL, *merr = NULL;
  size_t ndeclared = 0;
  if (!cli_manifest_targets(prog.path, &declared, &ndeclared, &manifest, &merr)) {
    cli_printf_clean(stderr, "error[E204]: %s\n", merr ? merr : "cannot read geno.toml");
    free(merr);
    cli_close_program(&prog, &proj);
    return EXIT_FAIL;
  }
  bool browser = false, node = false;
  for (size_t i = 0; i < ndeclared; i++) {
    browser |= strcmp(declared[i], "browser") == 0;
    node |= strcmp(declared[i], "node-cli") == 0;
    free(declared[i]);
  }
  free(declared);
  if (browser && !node) {
    cli_printf_clean(stderr,
                     "error[E204]: %s declares the browser target but not node-cli: build the page with "
                     "'geno build', or add \"node-cli\" to its targets for --target js\n",
                     manifest ? manifest : "geno.toml");
    free(manifest);
    cli_close_program(&prog, &proj);
    return EXIT_FAIL;
  }
  free(manifest);
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.module_loader = cli_module_loader;
  cfg.module_loader_userdata = &prog;
  if (c.max_steps >= 0) cfg.max_steps = (uint64_t)c.max_steps;
  cfg.timeout_s = c.timeout;
  if (c.max_depth >= 0) cfg.max_recursion_depth = (uint32_t)c.max_depth;
  if (c.max_output >= 0) cfg.max_output_length = (uint64_t)c.max_output;
  if (c.max_coll >= 0) cfg.max_collection_size = (uint64_t)c.max_coll;
  if (c.max_bits >= 0) cfg.max_integer_bits = (uint32_t)c.max_bits;
  if (c.no_examples) cfg.check_examples = false;
  const char *base = c.out ? strrchr(c.out, '/') : NULL;
  base = base ? base + 1 : c.out;
  unsigned flags = (esm ? GENO_JS_ESM : 0) | (smap ? GENO_JS_SOURCE_MAP : 0) | (esm && c.out ? GENO_JS_DTS : 0);
  geno_js_output o;
  geno_result *r = geno_compile_js_ex(prog.source, prog.length, prog.path, &cfg, flags, base, &o);
  char *js = r ? o.js : NULL;
  size_t js_len = r ? o.js_len : 0;
  int status = EXIT_OK;
  if (!r) {
    fprintf(stderr, "Error: out of memory\n");
    status = EXIT_FAIL;
  } else if (!js) {
    cli_print_diagnostics(stderr, r, &prog);
    status = EXIT_FAIL;
  } else if (!c.out) {
    fwrite(js, 1, js_len, stdout);
  } else {
    bool ok = true;
    if (smap) {
      size_t n = strlen(c.out);
      char *map_path = malloc(n + 5);
      size_t extra = strlen(base) + 64;
      char *grown = map_path ? realloc(js, js_len + extra) : NULL;
      if (grown) {
        js = grown;
        js_len += (size_t)snprintf(js + js_len, extra, "//# sourceMappingURL=%s.map\n", base);
        snprintf(map_path, n + 5, "%s.map", c.out);
        ok = write_file(map_path, o.source_map, o.source_map_len);
      } else {
        ok = false;
        fprintf(stderr, "Error: out of memory\n");
      }
      free(map_path);
    }
    if (ok && o.dts) {
      char *path = dts_path(c.out);
      ok = path && write_file(path, o.dts, o.dts_len);
      free(path);
    }
    ok = ok && write_file(c.out, js, js_len);
    if (ok) cli_printf_clean(stdout, "Compiled to %s\n", c.out);
    status = ok ? EXIT_OK : EXIT_FAIL;
  }
  free(js);
  if (r) {
    geno_free(o.source_map);
    geno_free(o.dts);
  }
  geno_result_free(r);
  cli_close_program(&prog, &proj);
  return status;
}

/* `geno build --cap LIST`: adds each name to *caps. `none` grants nothing;
 * an unknown name is a usage error with the known names (as geno run). */
static bool build_caps_add(const char *list, unsigned *caps) {
  if (strspn(list, ",") == strlen(list)) {
    cli_usage_error("build", "Capability names must not be empty.");
    return false;
  }
  char *copy = strdup(list);
  if (!copy) return false;
  bool ok = true;
  for (char *tok = strtok(copy, ","); tok && ok; tok = strtok(NULL, ",")) {
    if (strcmp(tok, "none") == 0) continue;
    unsigned bit = geno_capability_from_name(tok);
    if (!bit) {
      const char *sug = geno_capability_suggest(tok);
      cli_usage_error("build",
                      "Unknown capability '%s'. Valid capabilities: clock, env, fs, http, print, process, "
                      "random, regex, serve, stdin.%s%s%s",
                      tok, sug ? " Did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
      ok = false;
    }
    *caps |= bit;
  }
  free(copy);
  return ok;
}

/* The page's grant: the script's first line, `"use strict";`, gains a
 * statement that sets globalThis.__GENO_CAPS to the granted names unless the
 * page set it first (so an embedding page keeps the last word). Kept on the
 * same line, so a source map's line numbers stay right. The names come from
 * geno_capability_name: plain lowercase words, nothing to escape. *text is
 * the script (app.js) or the whole page, whose first `"use strict";` is the
 * script's (the title before it is HTML-escaped: it holds no `"`). */
static bool build_grant(char **text, size_t *len, unsigned caps) {
  static const char strict[] = "\"use strict\";";
  char *at = strstr(*text, strict);
  if (!at) return true; /* no script directive: the compiler always writes one */
  char grant[512];
  size_t g = (size_t)snprintf(grant, sizeof grant, " if (!Array.isArray(globalThis.__GENO_CAPS)) globalThis.__GENO_CAPS = [");
  bool first = true;
  for (unsigned bit = 1; bit && g < sizeof grant - 64; bit <<= 1) {
    const char *name = (caps & bit) ? geno_capability_name(bit) : NULL;
    if (!name) continue;
    g += (size_t)snprintf(grant + g, sizeof grant - g, "%s\"%s\"", first ? "" : ", ", name);
    first = false;
  }
  g += (size_t)snprintf(grant + g, sizeof grant - g, "];");
  size_t off = (size_t)(at - *text) + sizeof strict - 1;
  char *grown = realloc(*text, *len + g + 1);
  if (!grown) return false;
  memmove(grown + off + g, grown + off, *len - off + 1);
  memcpy(grown + off, grant, g);
  *text = grown;
  *len += g;
  return true;
}

int cmd_build(int argc, char **argv) {
  CommonOpts c = {NULL, NULL, -1, -1, -1, -1, -1, 30, false};
  bool single = false, smap = false;
  unsigned caps = 0;
  long width = 800, height = 600;
  const char *title = "Geno App";
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(build_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--single-file") == 0) {
      single = true;
    } else if (strcmp(a, "--source-map") == 0) {
      smap = true;
    } else if (strcmp(a, "--width") == 0) {
      if (!parse_int_arg("build", a, i + 1 < argc ? argv[++i] : NULL, 1, 16384, &width)) return EXIT_USAGE;
    } else if (strcmp(a, "--height") == 0) {
      if (!parse_int_arg("build", a, i + 1 < argc ? argv[++i] : NULL, 1, 16384, &height)) return EXIT_USAGE;
    } else if (strcmp(a, "--title") == 0) {
      if (i + 1 >= argc) return cli_usage_error("build", "--title needs a value");
      title = argv[++i];
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (i + 1 >= argc) return cli_usage_error("build", "%s needs a path", a);
      c.out = argv[++i];
      if (cli_check_output_name("build", a, c.out) != EXIT_OK) return EXIT_USAGE;
    } else if (strcmp(a, "--no-check-examples") == 0) {
      c.no_examples = true;
    } else if (strcmp(a, "--cap") == 0 || strncmp(a, "--cap=", 6) == 0) {
      const char *v = a[5] == '=' ? a + 6 : i + 1 < argc ? argv[++i] : NULL;
      if (!v) return cli_usage_error("build", "--cap needs a capability name");
      if (!build_caps_add(v, &caps)) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("build", "unrecognized option '%s'", a);
    } else if (c.file) {
      return cli_usage_error("build", "unexpected argument '%s': build takes one FILE", a);
    } else {
      c.file = a;
    }
  }
  if (!c.file) return cli_usage_error("build", "missing FILE");
  /* an output named *.html is the one page, as in the reference */
  size_t olen = c.out ? strlen(c.out) : 0;
  if (olen > 5 && strcmp(c.out + olen - 5, ".html") == 0) single = true;
  CliProgram prog;
  CliProject proj;
  if (!cli_open_program(c.file, &prog, &proj)) return EXIT_FAIL;
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.module_loader = cli_module_loader;
  cfg.module_loader_userdata = &prog;
  /* An app runs for as long as its page is open: no wall-clock limit; the
   * step budget applies to each frame ($app resets the count). */
  cfg.timeout_s = 0;
  if (c.no_examples) cfg.check_examples = false;
  geno_js_output o;
  geno_result *r = geno_compile_html_ex(prog.source, prog.length, prog.path, &cfg, title, (int)width, (int)height,
                                        !single, smap ? GENO_JS_SOURCE_MAP : 0, "app.js", &o);
  char *text = r ? o.js : NULL;
  size_t text_len = r ? o.js_len : 0;
  if (text && caps && !build_grant(&text, &text_len, caps)) {
    free(text); /* the !r branch below says out of memory */
    text = NULL;
    geno_free(o.source_map);
    geno_result_free(r);
    r = NULL;
  }
  int status = EXIT_OK;
  char *path = NULL;
  if (!r) {
    fprintf(stderr, "Error: out of memory\n");
    status = EXIT_FAIL;
  } else if (!text) {
    cli_print_diagnostics(stderr, r, &prog);
    status = EXIT_FAIL;
  } else if (single) {
    const char *out = c.out;
    if (!out) {
      size_t n = strlen(c.file);
      path = malloc(n + 6);
      if (path) {
        memcpy(path, c.file, n + 1);
        char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
        if (dot && (!slash || dot > slash)) *dot = '\0';
        strcat(path, ".html");
      }
      out = path;
    }
    status = out && write_file(out, text, text_len) ? EXIT_OK : EXIT_FAIL;
    if (status == EXIT_OK) cli_printf_clean(stdout, "Built to %s\n", out); /* the reference's words */
  } else {
    const char *dir = c.out ? c.out : "dist";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
      cli_printf_clean(stderr, "Error: cannot create %s: %s\n", dir, strerror(errno));
      status = EXIT_FAIL;
    } else {
      size_t n = strlen(dir) + 16;
      path = malloc(n);
      char *page = geno_html_page(title, (int)width, (int)height);
      bool ok = path && page;
      if (ok) {
        snprintf(path, n, "%s/app.js", dir);
        ok = write_file(path, text, text_len);
        /* the map beside app.js, named at its end as `compile` does */
        static const char url[] = "//# sourceMappingURL=app.js.map\n";
        if (ok && smap) {
          FILE *f = fopen(path, "ab");
          ok = f && fwrite(url, 1, sizeof url - 1, f) == sizeof url - 1;
          if (f && fclose(f) != 0) ok = false;
          if (!ok) cli_printf_clean(stderr, "Error: cannot write %s: %s\n", path, strerror(errno));
          snprintf(path, n, "%s/app.js.map", dir);
          ok = ok && write_file(path, o.source_map, o.source_map_len);
        }
        snprintf(path, n, "%s/index.html", dir);
        ok = ok && write_file(path, page, strlen(page));
      }
      free(page);
      size_t dl = strlen(dir);
      const char *sep = dl && dir[dl - 1] == '/' ? "" : "/";
      if (ok) cli_printf_clean(stdout, "Built to %s%s\n  %s%sindex.html\n  %s%sapp.js\n", dir, sep, dir, sep, dir, sep);
      if (ok && smap) cli_printf_clean(stdout, "  %s%sapp.js.map\n", dir, sep);
      status = ok ? EXIT_OK : EXIT_FAIL;
    }
  }
  free(path);
  free(text);
  if (r) geno_free(o.source_map);
  geno_result_free(r);
  cli_close_program(&prog, &proj);
  return status;
}
