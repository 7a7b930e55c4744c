/* `geno compile FILE --target js [--esm] [--source-map] [-o OUT]` and
 * `geno build FILE [--single-file] [--width W] [--height H] [--title T]
 * [-o OUT]`: the JavaScript back end (include/geno.h, geno_compile_js and
 * geno_compile_html). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char compile_help[] =
    "usage: geno compile FILE|DIR --target js [--esm] [--source-map] [-o OUT]\n"
    "\n"
    "Check FILE (or project DIR's entry module, its imports found among the\n"
    "project's files) for the node-cli target and compile it to one JavaScript file\n"
    "(ES2020, strict mode), written to OUT or to stdout. Run it with\n"
    "  node OUT [--cap NAME]... [-- program args]\n"
    "Capabilities are denied unless granted with --cap (print, clock, random,\n"
    "fs, env, ...). The limits (steps, recursion depth, output, collection\n"
    "size, Int bits) are those of `geno run`, compiled in.\n"
    "\n"
    "options:\n"
    "  --target js          the target (js is the only one)\n"
    "  --esm                an ES module exporting the entry module's functions;\n"
    "                       with -o, also its TypeScript declarations (.d.ts)\n"
    "  --source-map         also write OUT.map, mapping lines to the source (needs -o)\n"
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
    "usage: geno build FILE|DIR [--single-file] [--width W] [--height H] [--title T] [-o OUT]\n"
    "\n"
    "Check FILE (or project DIR's entry module) for the browser target and\n"
    "build a web page: OUT/index.html and OUT/app.js (default OUT: dist), or\n"
    "with --single-file, or an OUT ending in .html, one HTML file (default\n"
    "OUT: FILE's name with .html). An app (init, update and render\n"
    "without main) draws on the page's canvas every animation frame. The page\n"
    "works from file:// and from any static server; it grants the\n"
    "capabilities listed in globalThis.__GENO_CAPS, none by default.\n"
    "\n"
    "options:\n"
    "  --single-file        one HTML file with the script inline\n"
    "  --width W            canvas width in pixels (default 800)\n"
    "  --height H           canvas height in pixels (default 600)\n"
    "  --title T            page title (default \"Geno App\"), escaped\n"
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
      if (!target) return cli_usage_error("compile", "--target needs a value (js)");
    } else if (strcmp(a, "--esm") == 0) {
      esm = true;
    } else if (strcmp(a, "--source-map") == 0) {
      smap = true;
    } else if (strcmp(a, "--no-check-examples") == 0) {
      c.no_examples = true;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (i + 1 >= argc) return cli_usage_error("compile", "%s needs a file name", a);
      c.out = argv[++i];
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
  if (!target) return cli_usage_error("compile", "missing --target (js)");
  if (strcmp(target, "js") != 0)
    return cli_usage_error("compile", "invalid --target '%s' (geno-c compiles to js only)", target);
  if (smap && !c.out) return cli_usage_error("compile", "--source-map needs -o/--output");
  CliProgram prog;
  CliProject proj;
  if (!cli_open_program(c.file, &prog, &proj)) return EXIT_FAIL;
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

int cmd_build(int argc, char **argv) {
  CommonOpts c = {NULL, NULL, -1, -1, -1, -1, -1, 30, false};
  bool single = false;
  long width = 800, height = 600;
  const char *title = "Geno App";
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(build_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--single-file") == 0) {
      single = true;
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
    } else if (strcmp(a, "--no-check-examples") == 0) {
      c.no_examples = true;
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
  char *text = NULL;
  size_t text_len = 0;
  geno_result *r =
      geno_compile_html(prog.source, prog.length, prog.path, &cfg, title, (int)width, (int)height, !single, &text, &text_len);
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
        snprintf(path, n, "%s/index.html", dir);
        ok = ok && write_file(path, page, strlen(page));
      }
      free(page);
      size_t dl = strlen(dir);
      const char *sep = dl && dir[dl - 1] == '/' ? "" : "/";
      if (ok) cli_printf_clean(stdout, "Built to %s%s\n  %s%sindex.html\n  %s%sapp.js\n", dir, sep, dir, sep, dir, sep);
      status = ok ? EXIT_OK : EXIT_FAIL;
    }
  }
  free(path);
  free(text);
  geno_result_free(r);
  cli_close_program(&prog, &proj);
  return status;
}
