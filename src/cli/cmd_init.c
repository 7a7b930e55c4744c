/* `geno init NAME [--template T]` (a new project from a template) and
 * `geno bundle [--config geno.toml] [-o OUT]` (a project's modules as one
 * JSON artifact). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char init_help[] =
    "usage: geno init NAME [--template minimal|cli|web|api|lib]\n"
    "\n"
    "Create the project directory NAME (or fill the current directory with\n"
    "NAME \".\") from a template: a geno.toml, the modules and a README.\n"
    "Existing files are never overwritten. NAME is one directory name of\n"
    "ASCII letters, digits, '_', '-' and '.', starting with a letter, a\n"
    "digit or '_', at most 64 characters (it is also written into\n"
    "geno.toml and the templates).\n"
    "\n"
    "templates:\n"
    "  minimal  one module with a checked function and main (default)\n"
    "  cli      a command-line program that reads its arguments\n"
    "  web      a browser app: init/update/render on a canvas\n"
    "  api      request routing split into a Routes module\n"
    "  lib      a library module with examples, no entry point\n"
    "\n"
    "exit status: 0 created, 1 invalid name or a file exists, 2 usage error\n";

/* One file of a template; "{name}" in the text becomes the project name. */
typedef struct TemplateFile {
  const char *path;
  const char *text;
} TemplateFile;

typedef struct Template {
  const char *name;
  const TemplateFile files[5];
} Template;

#define MANIFEST(targets, files) \
  "name = \"{name}\"\nversion = \"0.1.0\"\nentrypoint = \"Main\"\ntargets = [" targets "]\nfiles = [" files "]\n"

static const Template templates[] = {
    {"minimal",
     {{"geno.toml", MANIFEST("\"python-cli\"", "\"Main.geno\"")},
      {"Main.geno",
       "// {name}: start here. `geno run .` runs main; `geno test .` checks the examples.\n"
       "\n"
       "func square(n: Int) -> Int\n"
       "    example 3 -> 9\n"
       "    example 0 -> 0\n"
       "    return n * n\n"
       "end func\n"
       "\n"
       "func main() -> Unit\n"
       "    print(f\"3 squared is {square(3)}\")\n"
       "end func\n"},
      {NULL, NULL}}},
    {"cli",
     {{"geno.toml", MANIFEST("\"python-cli\"", "\"Main.geno\"")},
      {"Main.geno",
       "// {name}: a command-line program. Try: geno run --cap print,env . -- alice bob\n"
       "\n"
       "func salute(who: String) -> String\n"
       "    example \"ada\" -> \"hello, ada\"\n"
       "    return \"hello, \" + who\n"
       "end func\n"
       "\n"
       "func usage(args: List[String]) -> Option[String]\n"
       "    example [] -> Some(\"usage: {name} NAME...\")\n"
       "    example [\"x\"] -> None\n"
       "    if length(args) == 0 then\n"
       "        return Some(\"usage: {name} NAME...\")\n"
       "    end if\n"
       "    return None\n"
       "end func\n"
       "\n"
       "func main() -> Unit\n"
       "    let args = cli_args()\n"
       "    match usage(args) with\n"
       "        | Some(text) -> print(text)\n"
       "        | None -> for who: String in args do\n"
       "            print(salute(who))\n"
       "        end for\n"
       "    end match\n"
       "end func\n"},
      {"README.md",
       "# {name}\n\nA command-line program in Geno.\n\n"
       "    geno run --cap print,env . -- alice bob   # run it\n"
       "    geno test .                               # check every example\n"},
      {NULL, NULL}}},
    {"web",
     {{"geno.toml", MANIFEST("\"browser\"", "\"Main.geno\"")},
      {"Main.geno",
       "// {name}: a browser app. The page calls init once, then update and\n"
       "// render every frame. Build it with: geno build . --single-file\n"
       "\n"
       "type State = State(x: Float, speed: Float)\n"
       "\n"
       "func step(s: State, dt: Float) -> State\n"
       "    example (State(0.0, 10.0), 0.5) -> State(5.0, 10.0)\n"
       "    return State(s.x + s.speed * dt, s.speed)\n"
       "end func\n"
       "\n"
       "@untested(\"called by the page\")\n"
       "func init() -> State\n"
       "    return State(40.0, 0.0)\n"
       "end func\n"
       "\n"
       "@untested(\"called by the page\")\n"
       "func update(state: State, dt: Float) -> State\n"
       "    if is_key_pressed(\"ArrowRight\") then\n"
       "        return step(State(state.x, 120.0), dt)\n"
       "    end if\n"
       "    if is_key_pressed(\"ArrowLeft\") then\n"
       "        return step(State(state.x, -120.0), dt)\n"
       "    end if\n"
       "    return state\n"
       "end func\n"
       "\n"
       "@untested(\"called by the page\")\n"
       "func render(state: State) -> Unit\n"
       "    clear_screen(\"#202030\")\n"
       "    draw_rect(x: round(state.x), y: 200, width: 40, height: 40, color: \"#f0c040\")\n"
       "    draw_text(text: \"arrow keys move the square\", x: 20, y: 30, size: 18, color: \"#ffffff\")\n"
       "end func\n"},
      {"README.md",
       "# {name}\n\nA browser app in Geno (init/update/render on a canvas).\n\n"
       "    geno build . --single-file -o {name}.html   # one HTML file to open\n"
       "    geno test .                                 # check every example\n"},
      {NULL, NULL}}},
    {"api",
     {{"geno.toml", MANIFEST("\"python-cli\"", "\"Routes.geno\", \"Main.geno\"")},
      {"Routes.geno",
       "// Request routing: a status code and a body for each method and path.\n"
       "\n"
       "export type Reply = Reply(status: Int, body: String)\n"
       "\n"
       "export func route(method: String, path: String) -> Reply\n"
       "    example (\"GET\", \"/health\") -> Reply(200, \"ok\")\n"
       "    example (\"GET\", \"/nowhere\") -> Reply(404, \"not found\")\n"
       "    example (\"POST\", \"/health\") -> Reply(405, \"method not allowed\")\n"
       "    if path != \"/health\" and path != \"/version\" then\n"
       "        return Reply(404, \"not found\")\n"
       "    end if\n"
       "    if method != \"GET\" then\n"
       "        return Reply(405, \"method not allowed\")\n"
       "    end if\n"
       "    if path == \"/health\" then\n"
       "        return Reply(200, \"ok\")\n"
       "    end if\n"
       "    return Reply(200, \"{name} 0.1.0\")\n"
       "end func\n"},
      {"Main.geno",
       "// {name}: an API's routes, tried on a few requests.\n"
       "import Routes\n"
       "\n"
       "func main() -> Unit\n"
       "    for path: String in [\"/health\", \"/version\", \"/missing\"] do\n"
       "        let reply = Routes.route(\"GET\", path)\n"
       "        print(f\"GET {path} -> {reply.status} {reply.body}\")\n"
       "    end for\n"
       "end func\n"},
      {"README.md",
       "# {name}\n\nAn API's routing logic in Geno, tested by its examples.\n\n"
       "    geno run .    # try the routes\n"
       "    geno test .   # check every example\n"},
      {NULL, NULL}}},
    {"lib",
     {{"geno.toml",
       "name = \"{name}\"\nversion = \"0.1.0\"\ntargets = [\"python-cli\", \"node-cli\"]\nfiles = [\"Lib.geno\"]\n"
       "\n[exports]\nmodules = [\"Lib\"]\n"},
      {"Lib.geno",
       "// {name}: functions for other projects to import (import Lib).\n"
       "\n"
       "export func mean(xs: List[Float]) -> Option[Float]\n"
       "    example [] -> None\n"
       "    example [1.0, 2.0, 6.0] -> Some(3.0)\n"
       "    if length(xs) == 0 then\n"
       "        return None\n"
       "    end if\n"
       "    let total: Float = fold(list: xs, initial: 0.0, reducer: fn(acc: Float, x: Float) -> acc + x)\n"
       "    return Some(total / int_to_float(length(xs)))\n"
       "end func\n"
       "\n"
       "export func clamp(x: Int, low: Int, high: Int) -> Int\n"
       "    example (5, 0, 3) -> 3\n"
       "    example (-2, 0, 3) -> 0\n"
       "    if x < low then\n"
       "        return low\n"
       "    end if\n"
       "    if x > high then\n"
       "        return high\n"
       "    end if\n"
       "    return x\n"
       "end func\n"},
      {"README.md", "# {name}\n\nA Geno library.\n\n    geno test .   # check every example\n"},
      {NULL, NULL}}},
};

/* text with every "{name}" replaced (malloc'd) */
static char *fill(const char *text, const char *name) {
  size_t n = strlen(text), k = strlen(name), count = 0;
  for (const char *p = text; (p = strstr(p, "{name}")); p += 6) count++;
  char *out = malloc(n + count * k + 1);
  if (!out) return NULL;
  char *o = out;
  for (const char *p = text;;) {
    const char *hit = strstr(p, "{name}");
    size_t len = hit ? (size_t)(hit - p) : strlen(p);
    memcpy(o, p, len);
    o += len;
    if (!hit) break;
    memcpy(o, name, k);
    o += k;
    p = hit + 6;
  }
  *o = '\0';
  return out;
}

/* A project name becomes a directory, a TOML string and text inside the
 * templates' source files, README and comments, so it is restricted to
 * characters that are safe in all of them: ASCII letters, digits, '_',
 * '-' and '.', starting with a letter, digit or '_' (so no "..", no
 * hidden directory, no option-like name), at most 64 bytes. */
#define INIT_MAX_NAME 64
static bool safe_name(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > INIT_MAX_NAME) return false;
  if (!isalnum((unsigned char)name[0]) && name[0] != '_') return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c >= 0x80 || !(isalnum(c) || c == '_' || c == '-' || c == '.')) return false;
  }
  return true;
}

static bool valid_name(const char *name) { return strcmp(name, ".") == 0 || safe_name(name); }

static const char name_rule[] =
    "use ASCII letters, digits, '_', '-' and '.', starting with a letter, a digit or '_' (at most 64)";

/* mkdir -p for the directories of `path` (its last part excluded) */
static bool make_parents(char *path) {
  for (char *s = path + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    bool ok = mkdir(path, 0777) == 0 || errno == EEXIST;
    *s = '/';
    if (!ok) return false;
  }
  return true;
}

int cmd_init(int argc, char **argv) {
  const char *name = NULL, *tname = "minimal";
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(init_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--template") == 0 || strcmp(a, "-t") == 0 || strncmp(a, "--template=", 11) == 0) {
      tname = a[10] == '=' ? a + 11 : (i + 1 < argc ? argv[++i] : NULL);
      if (!tname) return cli_usage_error("init", "--template needs a value (minimal, cli, web, api or lib)");
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("init", "unrecognized option '%s' (expected --template or --help)", a);
    } else if (name) {
      return cli_usage_error("init", "unexpected argument '%s': init takes one NAME", a);
    } else {
      name = a;
    }
  }
  if (!name) return cli_usage_error("init", "missing NAME");
  const Template *t = NULL;
  for (size_t i = 0; i < sizeof templates / sizeof *templates; i++)
    if (strcmp(templates[i].name, tname) == 0) t = &templates[i];
  if (!t) return cli_usage_error("init", "invalid --template '%s' (choose from minimal, cli, web, api, lib)", tname);
  if (!valid_name(name)) {
    fputs("Error: '", stderr);
    cli_put_clean(stderr, name);
    fprintf(stderr, "' is not a valid project name: %s\n", name_rule);
    return EXIT_FAIL;
  }
  struct stat st;
  if (stat(name, &st) == 0 && !S_ISDIR(st.st_mode)) {
    cli_printf_clean(stderr, "Error: %s exists and is not a directory\n", name);
    return EXIT_FAIL;
  }
  /* nothing is written when any file would be overwritten */
  char path[4096];
  bool conflict = false;
  for (const TemplateFile *f = t->files; f->path; f++) {
    snprintf(path, sizeof path, "%s/%s", name, f->path);
    if (lstat(path, &st) == 0) {
      if (!conflict) cli_printf_clean(stderr, "Error: Refusing to overwrite existing files: %s", path);
      else cli_printf_clean(stderr, ", %s", path);
      conflict = true;
    }
  }
  if (conflict) {
    fputc('\n', stderr);
    return EXIT_FAIL;
  }
  if (mkdir(name, 0777) != 0 && errno != EEXIST) {
    cli_printf_clean(stderr, "Error: cannot create %s: %s\n", name, strerror(errno));
    return EXIT_FAIL;
  }
  /* the project's name: the directory's own name ("." is the current one) */
  char *real = realpath(name, NULL);
  const char *base = real && strrchr(real, '/') ? strrchr(real, '/') + 1 : name;
  if (!*base) base = "project";
  if (!safe_name(base)) { /* "." in a directory whose own name is unsafe */
    fputs("Error: the directory name '", stderr);
    cli_put_clean(stderr, base);
    fprintf(stderr, "' is not a valid project name: %s\n", name_rule);
    free(real);
    return EXIT_FAIL;
  }
  cli_printf_clean(stdout, "Created project '%s':\n", name);
  int rc = EXIT_OK;
  for (const TemplateFile *f = t->files; f->path; f++) {
    snprintf(path, sizeof path, "%s/%s", name, f->path);
    char *text = fill(f->text, base);
    FILE *out = text && make_parents(path) ? fopen(path, "wx") : NULL;
    bool ok = out && fputs(text, out) >= 0;
    if (out && fclose(out) != 0) ok = false;
    free(text);
    if (!ok) {
      cli_printf_clean(stderr, "Error: cannot write %s: %s\n", path, strerror(errno));
      rc = EXIT_FAIL;
      break;
    }
    cli_printf_clean(stdout, "  %s\n", path);
  }
  free(real);
  return rc;
}

/* ---- geno bundle ---------------------------------------------------------- */

static const char bundle_help[] =
    "usage: geno bundle [--config geno.toml] [-o OUT]\n"
    "\n"
    "Write a project's modules as one JSON artifact:\n"
    "  {\"version\": \"1\", \"entrypoint\": E, \"modules\": {NAME: SOURCE, ...}}\n"
    "E is geno.toml's `entrypoint` (default \"Main\"); the modules are the\n"
    "files it lists under `files` (without that key, every *.geno beside it),\n"
    "each named by its file name without .geno. Printed on stdout, or\n"
    "written to OUT.\n"
    "\n"
    "options:\n"
    "  --config PATH  the manifest (default: geno.toml)\n"
    "  -o, --output OUT  write the artifact to OUT\n"
    "  -h, --help     show this help\n"
    "\n"
    "exit status: 0 written, 1 manifest or file error, 2 usage error\n";

static void put_indent_json_string(FILE *out, const char *s, size_t n) {
  /* the JSON string, non-ASCII as \uXXXX as the reference writes it */
  fputc('"', out);
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      fprintf(out, "\\%c", c);
      i++;
    } else if (c == '\n') {
      fputs("\\n", out), i++;
    } else if (c == '\r') {
      fputs("\\r", out), i++;
    } else if (c == '\t') {
      fputs("\\t", out), i++;
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(out, "\\u%04x", c);
      i++;
    } else if (c < 0x80) {
      fputc(c, out);
      i++;
    } else {
      uint32_t cp;
      int k = cli_utf8_char((const unsigned char *)s + i, n - i, &cp);
      if (k == 0) {
        cp = 0xfffd;
        k = 1;
      }
      if (cp >= 0x10000) {
        cp -= 0x10000;
        fprintf(out, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
      } else {
        fprintf(out, "\\u%04x", cp);
      }
      i += (size_t)k;
    }
  }
  fputc('"', out);
}

int cmd_bundle(int argc, char **argv) {
  const char *config = "geno.toml", *output = NULL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(bundle_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "--config") == 0 || strcmp(a, "-c") == 0) {
      if (i + 1 >= argc) return cli_usage_error("bundle", "--config needs a path");
      config = argv[++i];
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (i + 1 >= argc) return cli_usage_error("bundle", "%s needs a path", a);
      output = argv[++i];
      if (cli_check_output_name("bundle", a, output) != EXIT_OK) return EXIT_USAGE;
    } else {
      return cli_usage_error("bundle", "unexpected argument '%s' (expected --config, -o or --help)", a);
    }
  }
  struct stat st;
  if (stat(config, &st) != 0 || !S_ISREG(st.st_mode)) {
    cli_printf_clean(stderr, "Error: Config file not found: %s\n", config);
    return EXIT_FAIL;
  }
  const char *slash = strrchr(config, '/');
  char *dir = !slash ? strdup(".") : slash == config ? strdup("/") : strndup(config, (size_t)(slash - config));
  CliProject proj;
  char *err = NULL;
  bool ok = dir && cli_project_open(dir, &proj, &err);
  free(dir);
  if (!ok) {
    cli_printf_clean(stderr, "Error: %s\n", err ? err : "out of memory");
    free(err);
    return EXIT_FAIL;
  }
  if (output && strcmp(output, "-") == 0) output = NULL; /* "-o -": standard output, as usual */
  FILE *out = output ? fopen(output, "w") : stdout;
  if (!out) {
    cli_printf_clean(stderr, "Error: cannot write output file %s: %s\n", output, strerror(errno));
    cli_project_free(&proj);
    return EXIT_FAIL;
  }
  const char *entry = proj.manifest.entrypoint ? proj.manifest.entrypoint : "Main";
  fputs("{\n  \"version\": \"1\",\n  \"entrypoint\": ", out);
  put_indent_json_string(out, entry, strlen(entry));
  fputs(",\n  \"modules\": {", out);
  int rc = EXIT_OK;
  /* in import order: each module after those it imports */
  for (size_t i = 0; i < proj.nfiles; i++) {
    size_t len;
    char *src = cli_read_file(proj.files[i].path, &len);
    if (!src) {
      cli_printf_clean(stderr, "Error: cannot read %s: %s\n", proj.files[i].path, strerror(errno));
      rc = EXIT_FAIL;
      break;
    }
    fputs(i ? ",\n    " : "\n    ", out);
    put_indent_json_string(out, proj.files[i].module, strlen(proj.files[i].module));
    fputs(": ", out);
    put_indent_json_string(out, src, len);
    free(src);
  }
  fputs(proj.nfiles ? "\n  }\n}" : "}\n}", out);
  if (output) {
    if (fclose(out) != 0) {
      cli_printf_clean(stderr, "Error: cannot write output file %s: %s\n", output, strerror(errno));
      rc = EXIT_FAIL;
    } else if (rc == EXIT_OK) {
      cli_printf_clean(stdout, "Bundled to %s\n", output);
    }
  } else {
    fputc('\n', out);
  }
  cli_project_free(&proj);
  return rc;
}
