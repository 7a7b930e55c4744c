/* `geno doc PATH [-o FILE] [--title T] [--json]`: HTML documentation of a
 * file or a project, from its declarations and their `///` comments
 * (geno_outline). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

static const char doc_help[] =
    "usage: geno doc PATH [-o FILE] [--title TITLE] [--json]\n"
    "\n"
    "Write HTML documentation of PATH (a .geno file, or a project\n"
    "directory: every module it holds): each function, type, trait and\n"
    "impl with its signature, its `///` doc comment and its examples.\n"
    "Nothing is run or checked; the files must parse.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  where to write (default: docs.html)\n"
    "  --title TITLE      the page title (default: Geno Documentation)\n"
    "  --json             print the outline as JSON on stdout instead:\n"
    "                     {\"modules\": [{\"path\", \"module\", \"definitions\"}]}\n"
    "  -h, --help         show this help\n"
    "\n"
    "exit status: 0 written, 1 a file not found, unreadable or not parsing,\n"
    "2 usage error\n";

/* Text into HTML: the markup characters as entities, and what a page
 * must not hold (control characters other than tab and line feed, bytes
 * that are not UTF-8) as '?', as in the CLI's excerpts. */
static void html_escape(FILE *f, const char *s) {
  size_t len = s ? strlen(s) : 0;
  for (size_t k = 0; k < len;) {
    uint32_t cp = (unsigned char)s[k];
    int n = cli_utf8_char((const unsigned char *)s + k, len - k, &cp);
    switch (n == 1 ? s[k] : 0) {
      case '&': fputs("&amp;", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '"': fputs("&quot;", f); break;
      case '\'': fputs("&#39;", f); break;
      default:
        if (n == 0 || (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp < 0xA0)) fputc('?', f);
        else fwrite(s + k, 1, (size_t)n, f);
    }
    k += n ? (size_t)n : 1;
  }
}

static const char *jstr(json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

static const char page_style[] =
    "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}"
    "h1{border-bottom:2px solid #ddd}h2{margin-top:2.5rem;border-bottom:1px solid #eee}"
    "nav ul{columns:3;list-style:none;padding:0}code,pre{font-family:ui-monospace,monospace}"
    ".decl{margin:1.2rem 0;padding:.6rem .9rem;border-left:3px solid #6a8fd8;background:#f7f8fb}"
    ".sig{font-weight:600}.doc{white-space:pre-wrap;margin:.4rem 0}.ex{color:#2a6a2a}"
    ".kind{color:#888;font-size:.85em;margin-right:.4em}.untested{color:#a06000}";

int cmd_doc(int argc, char **argv) {
  const char *path = NULL, *output = "docs.html", *title = "Geno Documentation";
  bool json = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(doc_help, stdout);
      return EXIT_OK;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strcmp(a, "--title") == 0) {
      if (i + 1 >= argc) return cli_usage_error("doc", "%s needs a value", a);
      if (strcmp(a, "--title") == 0) title = argv[++i];
      else if (cli_check_output_name("doc", a, output = argv[++i]) != EXIT_OK) return EXIT_USAGE;
    } else if (strcmp(a, "--json") == 0) {
      json = true;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("doc", "unrecognized option '%s' (expected -o, --title, --json or --help)", a);
    } else if (path) {
      return cli_usage_error("doc", "unexpected argument '%s': doc takes one PATH", a);
    } else {
      path = a;
    }
  }
  if (!path) return cli_usage_error("doc", "missing PATH");
  /* the modules: a project's, or the one file */
  CliProject proj;
  bool is_project = cli_is_dir(path);
  const char *single[1] = {path};
  size_t nmods = 1;
  if (is_project) {
    char *err = NULL;
    if (!cli_project_open(path, &proj, &err)) {
      cli_printf_clean(stderr, "Error: %s\n", err ? err : "out of memory");
      free(err);
      return EXIT_FAIL;
    }
    nmods = proj.nfiles;
  }
  json_t *mods = json_array();
  int rc = EXIT_OK;
  for (size_t i = 0; i < nmods && rc == EXIT_OK; i++) {
    const char *file = is_project ? proj.files[i].path : single[0];
    size_t len;
    char *src = cli_read_file(file, &len);
    if (!src) {
      if (errno == ENOENT) cli_printf_clean(stderr, "Error: File not found: %s\n", file);
      else cli_printf_clean(stderr, "Error: cannot read %s: %s\n", file, strerror(errno));
      rc = EXIT_FAIL;
      break;
    }
    char *outline = NULL;
    geno_result *r = geno_outline(src, len, file, &outline);
    if (!r || !geno_result_ok(r)) {
      cli_printf_clean(stderr, "Error parsing %s:\n", file);
      if (r) {
        CliProgram prog = {.path = (char *)file, .source = src, .length = len};
        cli_print_diagnostics(stderr, r, &prog);
      }
      rc = EXIT_FAIL;
    } else {
      json_t *o = json_loads(outline, 0, NULL);
      const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
      size_t bl = strlen(base);
      char *mod = strndup(base, bl > 5 && strcmp(base + bl - 5, ".geno") == 0 ? bl - 5 : bl);
      if (!o || !mod) {
        rc = EXIT_FAIL;
      } else {
        json_object_set_new(o, "path", json_string(file));
        json_object_set_new(o, "module", json_string(mod));
        json_array_append_new(mods, o);
      }
      free(mod);
    }
    geno_free(outline);
    geno_result_free(r);
    free(src);
  }
  if (is_project) cli_project_free(&proj);
  if (rc != EXIT_OK) {
    json_decref(mods);
    return rc;
  }
  if (json) {
    json_t *doc = json_pack("{s:o}", "modules", mods);
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (text) printf("%s\n", text);
    free(text);
    json_decref(doc);
    return EXIT_OK;
  }
  FILE *f = fopen(output, "w");
  if (!f) {
    cli_printf_clean(stderr, "Error: cannot write output file %s: %s\n", output, strerror(errno));
    json_decref(mods);
    return EXIT_FAIL;
  }
  size_t nfuncs = 0, ntypes = 0, ntraits = 0;
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        "<title>",
        f);
  html_escape(f, title);
  fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", page_style);
  html_escape(f, title);
  fputs("</h1>\n<nav><ul>\n", f);
  size_t i;
  json_t *m;
  json_array_foreach(mods, i, m) {
    fputs("<li><a href=\"#module-", f);
    html_escape(f, jstr(m, "module"));
    fputs("\">", f);
    html_escape(f, jstr(m, "module"));
    fputs("</a></li>\n", f);
  }
  fputs("</ul></nav>\n", f);
  json_array_foreach(mods, i, m) {
    fputs("<section>\n<h2 id=\"module-", f);
    html_escape(f, jstr(m, "module"));
    fputs("\">", f);
    html_escape(f, jstr(m, "module"));
    fputs("</h2>\n", f);
    size_t k;
    json_t *d;
    json_array_foreach(json_object_get(m, "definitions"), k, d) {
      const char *kind = jstr(d, "kind");
      /* main is the program, not part of its interface (as the reference) */
      if (strcmp(kind, "import") == 0 || strcmp(kind, "test") == 0 ||
          (strcmp(kind, "func") == 0 && strcmp(jstr(d, "name"), "main") == 0))
        continue;
      if (strcmp(kind, "func") == 0) nfuncs++;
      else if (strcmp(kind, "type") == 0 || strcmp(kind, "alias") == 0) ntypes++;
      else if (strcmp(kind, "trait") == 0) ntraits++;
      fputs("<div class=\"decl\" id=\"", f);
      html_escape(f, jstr(m, "module"));
      fputc('.', f);
      html_escape(f, jstr(d, "name"));
      fputs("\"><span class=\"kind\">", f);
      html_escape(f, kind);
      fputs("</span><code class=\"sig\">", f);
      html_escape(f, jstr(d, "signature"));
      fputs("</code>\n", f);
      if (*jstr(d, "doc")) {
        fputs("<p class=\"doc\">", f);
        html_escape(f, jstr(d, "doc"));
        fputs("</p>\n", f);
      }
      json_t *exs = json_object_get(d, "examples");
      if (json_array_size(exs)) {
        fputs("<pre class=\"ex\">", f);
        size_t e;
        json_t *ex;
        json_array_foreach(exs, e, ex) {
          fputs("example ", f);
          html_escape(f, json_string_value(ex));
          fputc('\n', f);
        }
        fputs("</pre>\n", f);
      }
      if (*jstr(d, "untested")) {
        fputs("<p class=\"untested\">untested: ", f);
        html_escape(f, jstr(d, "untested"));
        fputs("</p>\n", f);
      }
      fputs("</div>\n", f);
    }
    fputs("</section>\n", f);
  }
  fputs("</body>\n</html>\n", f);
  size_t count = json_array_size(mods);
  json_decref(mods);
  if (fclose(f) != 0) {
    cli_printf_clean(stderr, "Error: cannot write output file %s: %s\n", output, strerror(errno));
    return EXIT_FAIL;
  }
  cli_printf_clean(stdout, "Documentation generated: %s\n", output);
  printf("  %zu module(s), %zu function(s), %zu type(s), %zu trait(s)\n", count, nfuncs, ntypes, ntraits);
  return EXIT_OK;
}
