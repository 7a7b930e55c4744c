/* `geno repl`: definitions, statements and expressions, one input at a
 * time, with line editing and history (libedit).
 *
 * Each input is checked and run as a whole program built from the
 * session: every definition accepted so far, then a `main` that replays
 * the statements accepted so far (a `let` stays visible to later inputs)
 * and then runs the new input. An expression's type is learned from the
 * checker (a first check against `-> Unit` names it in its "Return type
 * mismatch" message) and main then returns it, so its value is shown as
 * `=> value`. The output of the replayed statements is not shown again:
 * only what this input printed. Every input runs under the limits of
 * `geno run` (steps, time, memory, output), in this process. */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>
#include <jansson.h>

#include "cli.h"

static const char repl_help[] =
    "usage: geno repl\n"
    "\n"
    "Read Geno definitions, statements and expressions and run each one.\n"
    "A definition (func, type, trait, impl, import, test) is kept for the\n"
    "rest of the session; a statement (let, var, print(...), for ...) runs\n"
    "and its bindings stay visible; an expression shows its value. An input\n"
    "that is not complete yet (an open block) continues on the next line;\n"
    "an empty line ends it, and so does the end of input (then, when the\n"
    "input is not a terminal, the exit status is 1: the entry was cut\n"
    "short). Functions other than main need an `example`\n"
    "clause or @untested(\"reason\"), as in a file. Each input runs as\n"
    "main: a `func main` typed in (or loaded) runs once and is not kept,\n"
    "and an input cannot call main.\n"
    "\n"
    "commands:\n"
    "  :type EXPR   show the type of EXPR\n"
    "  :load FILE   add the definitions of FILE (its main, if any, runs once)\n"
    "  :clear       forget every definition and binding\n"
    "  :help        show this help\n"
    "  :quit, :q    leave (also end of input, Ctrl-D)\n"
    "\n"
    "Each input runs with geno run's default limits (1,000,000 steps, 10 s,\n"
    "256 MiB) and the capabilities print, clock and random.\n";

typedef struct Session {
  char *defs;   /* accepted definitions */
  char *stmts;  /* accepted statements, replayed before each input */
  size_t stmts_output; /* bytes the replayed statements print */
  bool tty;
  const char *origin; /* what locations in the input are shown in:
                         "<input>", or the file a :load reads (borrowed) */
} Session;

static char *cat3(const char *a, const char *b, const char *c) {
  size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s%s", a, b, c);
  return s;
}

/* The first word of the input (its first identifier or keyword). */
static size_t first_word(const char *s, const char **start) {
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  *start = s;
  size_t n = 0;
  while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') || s[n] == '_' ||
         (n > 0 && s[n] >= '0' && s[n] <= '9'))
    n++;
  return n;
}

static bool is_definition(const char *input) {
  const char *w;
  size_t n = first_word(input, &w);
  if (n == 0) return *w == '@';
  static const char *const kws[] = {"func", "async", "type", "trait", "impl", "import", "export", "test"};
  for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
    if (strlen(kws[i]) == n && strncmp(w, kws[i], n) == 0) return true;
  return false;
}

/* A program: the definitions, then main returning `ret` with the replayed
 * statements and `body`. *body_line is the program line where body starts. */
static char *program(const Session *s, const char *ret, const char *body, int *body_line) {
  size_t n = strlen(s->defs) + strlen(s->stmts) + strlen(body) + strlen(ret) + 64;
  char *p = malloc(n);
  if (!p) return NULL;
  snprintf(p, n, "%s\nfunc main() -> %s\n%s", s->defs, ret, s->stmts);
  int line = 1;
  for (const char *c = p; *c; c++) line += *c == '\n';
  *body_line = line;
  size_t len = strlen(p);
  snprintf(p + len, n - len, "%s\nend func\n", body);
  return p;
}

static geno_result *check(const char *src) {
  geno_config cfg;
  geno_config_init(&cfg);
  return geno_check(src, strlen(src), "<repl>", &cfg);
}

/* The type in "Return type mismatch: expected Unit, got T" (malloc'd), with
 * unresolved type variables (an empty list's element) shown as Unit. */
static char *returned_type(const geno_result *r) {
  static const char marker[] = "Return type mismatch: expected Unit, got ";
  for (size_t i = 0; i < geno_result_diagnostic_count(r); i++) {
    const char *m = geno_result_diagnostic(r, i)->message;
    const char *t = strstr(m, marker);
    if (!t) continue;
    t += strlen(marker);
    size_t n = strlen(t);
    char *out = malloc(n * 2 + 8);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t k = 0; k < n;) {
      if (t[k] == '_' && t[k + 1] == '_') {
        while (k < n && (t[k] == '_' || (t[k] >= 'a' && t[k] <= 'z') || (t[k] >= 'A' && t[k] <= 'Z') ||
                         (t[k] >= '0' && t[k] <= '9')))
          k++;
        memcpy(out + o, "Unit", 4);
        o += 4;
      } else {
        out[o++] = t[k++];
      }
    }
    out[o] = '\0';
    return out;
  }
  return NULL;
}

/* The input's line count and the length of its last line. */
static int input_lines(const char *input, int *last_len) {
  int lines = 1;
  const char *last = input;
  for (const char *c = input; *c; c++)
    if (*c == '\n') {
      lines++;
      last = c + 1;
    }
  *last_len = (int)strlen(last);
  return lines;
}

/* Diagnostics, with locations inside the input shown as ORIGIN:L:C and a
 * snippet of that input line. The program around the input is the REPL's
 * own: an error the parser finds in it (the input ended inside an
 * expression or block, so the wrapper's `)` or `end func` came next) is
 * reported as the end of the input, in the input's words; other errors
 * outside the input are shown only when none is inside it. */
static void show_errors(const geno_result *r, const char *origin, const char *input, int body_line,
                        int col_offset) {
  int last_len, nlines = input_lines(input, &last_len);
  size_t inside = 0;
  for (size_t i = 0; i < geno_result_diagnostic_count(r); i++) {
    const geno_diagnostic *d = geno_result_diagnostic(r, i);
    int l = d->line - body_line + 1;
    if (d->line > 0 && l >= 1 && l <= nlines) inside++;
  }
  bool said_end = false;
  for (size_t i = 0; i < geno_result_diagnostic_count(r); i++) {
    const geno_diagnostic *d = geno_result_diagnostic(r, i);
    int l = d->line - body_line + 1;
    if (d->line > 0 && l >= 1 && l <= nlines) {
      int col = l == 1 && d->column > col_offset ? d->column - col_offset : d->column;
      cli_put_clean(stderr, origin);
      fprintf(stderr, ":%d:%d: error[%s]: ", l, col, d->code);
      cli_put_clean(stderr, d->message);
      fputc('\n', stderr);
      cli_print_snippet(stderr, input, strlen(input), l, col);
    } else if (d->line > 0 && l > nlines && d->code_number >= 100 && d->code_number < 300) {
      if (said_end || inside) continue;
      said_end = true;
      cli_put_clean(stderr, origin);
      fprintf(stderr, ":%d:%d: error[%s]: Unexpected end of input (an expression or block is not "
                      "finished)\n", nlines, last_len + 1, d->code);
    } else if (!inside) {
      fprintf(stderr, "error[%s]: ", d->code);
      cli_put_clean(stderr, d->message);
      fputc('\n', stderr);
    }
  }
}

static geno_result *run(const char *src) {
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.timeout_s = 10.0;
  cfg.capabilities_set = true;
  cfg.capabilities = GENO_CAP_PRINT | GENO_CAP_CLOCK | GENO_CAP_RANDOM;
  return geno_run(src, strlen(src), "<repl>", &cfg);
}

/* The line of the top-level `func main` in text (1-based), 0 when it has
 * none or does not parse (geno_outline). */
static int main_line(const char *text) {
  char *outline = NULL;
  geno_result *r = geno_outline(text, strlen(text), "<repl>", &outline);
  int line = 0;
  json_t *o = r && geno_result_ok(r) && outline ? json_loads(outline, 0, NULL) : NULL;
  json_t *defs = o ? json_object_get(o, "definitions") : NULL;
  for (size_t i = 0; defs && i < json_array_size(defs); i++) {
    json_t *d = json_array_get(defs, i);
    const char *kind = json_string_value(json_object_get(d, "kind"));
    const char *name = json_string_value(json_object_get(d, "name"));
    if (kind && name && strcmp(kind, "func") == 0 && strcmp(name, "main") == 0)
      line = (int)json_integer_value(json_object_get(d, "line"));
  }
  json_decref(o);
  geno_free(outline);
  geno_result_free(r);
  return line;
}

/* text without its `main` function (malloc'd), or NULL when it has none.
 * The text is put in the canonical layout first (geno_format), where a
 * top-level function ends at the first line that is exactly `end func`
 * (nested blocks are indented). */
static char *without_main(const char *text) {
  char *formatted = NULL;
  geno_result *r = geno_format(text, strlen(text), "<repl>", &formatted, NULL);
  geno_result_free(r);
  int from = formatted ? main_line(formatted) : 0;
  if (!from) {
    geno_free(formatted);
    return NULL;
  }
  size_t n = strlen(formatted);
  char *out = malloc(n + 1);
  if (!out) {
    geno_free(formatted);
    return NULL;
  }
  size_t o = 0;
  int line = 1;
  bool skipping = false, done = false;
  for (const char *p = formatted; *p;) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
    if (line == from && !done) skipping = true;
    if (!skipping) {
      memcpy(out + o, p, len);
      o += len;
    } else if (len >= 8 && strncmp(p, "end func", 8) == 0 && (len == 8 || p[8] == '\n' || p[8] == ' ')) {
      skipping = false;
      done = true;
    }
    p += len;
    line++;
  }
  out[o] = '\0';
  geno_free(formatted);
  return out;
}

/* Whether the input names `main` outside strings and comments: the
 * REPL's own input runs as main, so calling it would call the input
 * again, without end. */
static bool mentions_main(const char *t) {
  for (size_t i = 0; t[i];) {
    char c = t[i];
    if (c == '/' && t[i + 1] == '/') {
      while (t[i] && t[i] != '\n') i++;
    } else if (c == '"') {
      bool triple = strncmp(t + i, "\"\"\"", 3) == 0;
      i += triple ? 3 : 1;
      while (t[i] && (triple ? strncmp(t + i, "\"\"\"", 3) != 0 : t[i] != '"')) i += t[i] == '\\' && t[i + 1] ? 2 : 1;
      if (t[i]) i += triple ? 3 : 1;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
      size_t j = i;
      while ((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z') || t[j] == '_' || (t[j] >= '0' && t[j] <= '9'))
        j++;
      if (j - i == 4 && strncmp(t + i, "main", 4) == 0 && (i == 0 || t[i - 1] != '.')) return true;
      i = j;
    } else {
      i++;
    }
  }
  return false;
}

static geno_result *run(const char *src);
static void eval_definition(Session *s, const char *input);

/* A program with its own `main` (a :load of a program file, or `func
 * main` typed in): it runs once, with the session's definitions, its
 * output and value shown as `geno run` shows them; its other definitions
 * are kept, main is not (the REPL's inputs run as main). */
static void run_with_main(Session *s, const char *text) {
  char *rest = without_main(text);
  if (!rest) { /* it does not parse: its errors, as for any definition */
    eval_definition(s, text);
    return;
  }
  char *src = cat3(s->defs, "\n", text);
  geno_result *r = src ? run(src) : NULL;
  if (!r) {
    fprintf(stderr, "Error: out of memory\n");
  } else {
    size_t n;
    const char *out = geno_result_output(r, &n);
    fwrite(out, 1, n, stdout);
    const char *v = geno_result_value_text(r);
    if (geno_result_ok(r) && v) printf("=> %s\n", v);
    fflush(stdout);
    if (!geno_result_ok(r)) {
      int def_line = 2;
      for (const char *c = s->defs; *c; c++) def_line += *c == '\n';
      show_errors(r, s->origin, text, def_line, 0);
    } else {
      eval_definition(s, rest);
    }
  }
  geno_result_free(r);
  free(src);
  free(rest);
}

static void eval_definition(Session *s, const char *input) {
  /* The input must parse on its own: in the program below, a decorator
   * left without its definition would decorate main and pass unseen */
  char *alone = cat3(input, "\n", "");
  geno_result *p = alone ? geno_parse(alone, strlen(alone), "<repl>", NULL) : NULL;
  bool parses = p && geno_result_ok(p);
  if (p && !parses) show_errors(p, s->origin, input, 1, 0);
  geno_result_free(p);
  free(alone);
  if (!parses) return;
  char *defs = cat3(s->defs, input, "\n");
  if (!defs) return;
  Session trial = *s;
  trial.defs = defs;
  int body_line;
  char *src = program(&trial, "Unit", "    return ()", &body_line);
  geno_result *r = src ? check(src) : NULL;
  if (r && geno_result_ok(r)) {
    free(s->defs);
    s->defs = defs;
    defs = NULL;
  } else if (r) {
    /* locations in the definitions: the new input is their last part */
    int def_line = 1;
    for (const char *c = s->defs; *c; c++) def_line += *c == '\n';
    show_errors(r, s->origin, input, def_line, 0);
  }
  geno_result_free(r);
  free(src);
  free(defs);
}

static void eval_statement(Session *s, const char *input, bool type_only) {
  /* as an expression first: main returns it. The input sits on lines of
   * its own, so a trailing `// comment` cannot swallow the `)`. */
  char *body = cat3("    return (\n", input, "\n    )");
  int body_line;
  char *src = body ? program(s, "Unit", body, &body_line) : NULL;
  geno_result *r = src ? check(src) : NULL;
  char *type = r && !geno_result_ok(r) ? returned_type(r) : NULL;
  bool is_expr = r && (geno_result_ok(r) || type);
  if (type_only) {
    if (is_expr) cli_printf_clean(stdout, "%s : %s\n", input, type ? type : "Unit");
    else if (r) show_errors(r, s->origin, input, body_line + 1, 0);
    geno_result_free(r);
    free(src);
    free(body);
    free(type);
    return;
  }
  if (type) {
    free(src);
    src = program(s, type, body, &body_line);
  }
  if (!is_expr) {
    /* statements: run them, and keep them when they succeed */
    free(src);
    char *stmt_body = cat3("", input, "");
    src = stmt_body ? program(s, "Unit", stmt_body, &body_line) : NULL;
    free(stmt_body);
  }
  geno_result_free(r);
  r = src ? run(src) : NULL;
  if (!r) {
    fprintf(stderr, "Error: out of memory\n");
  } else {
    size_t n;
    const char *out = geno_result_output(r, &n);
    if (n > s->stmts_output) fwrite(out + s->stmts_output, 1, n - s->stmts_output, stdout);
    if (geno_result_ok(r)) {
      const char *text = geno_result_value_text(r);
      if (is_expr && text && type && strcmp(type, "Unit") != 0) printf("=> %s\n", text);
      if (!is_expr) {
        /* the statements stay for later inputs */
        char *stmts = cat3(s->stmts, input, "\n");
        if (stmts) {
          free(s->stmts);
          s->stmts = stmts;
          s->stmts_output = n;
        }
      }
    } else {
      fflush(stdout);
      /* an expression starts on the line after "    return (" */
      show_errors(r, s->origin, input, is_expr ? body_line + 1 : body_line, 0);
    }
  }
  fflush(stdout);
  geno_result_free(r);
  free(src);
  free(body);
  free(type);
}

/* Whether `text` needs more lines: it does not parse only because it ends
 * too early (an open block, an unclosed bracket or string), which shows as
 * an error at the end of the text or past it (main's own `end func` read
 * as the end of the input's unfinished block). */
/* A definition with a body (func, trait, impl, test, a decorated one):
 * it ends at a line of its own starting with `end` at column 0. */
static bool open_block_definition(const char *text) {
  const char *w;
  size_t n = first_word(text, &w);
  bool block = n == 0 ? *w == '@' : false;
  static const char *const kws[] = {"func", "async", "trait", "impl", "test", "export"};
  for (size_t i = 0; !block && i < sizeof kws / sizeof *kws; i++)
    block = strlen(kws[i]) == n && strncmp(w, kws[i], n) == 0;
  if (!block) return false;
  for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
    if (strncmp(line, "end", 3) == 0 && (line[3] == ' ' || line[3] == '\n' || line[3] == '\0')) return false;
  return true;
}

static bool incomplete(const Session *s, const char *text) {
  char *src;
  int body_line = 1;
  if (is_definition(text)) src = cat3(text, "\n", "");
  else src = program(s, "Unit", text, &body_line);
  if (!src) return false;
  int last = body_line;
  for (const char *c = text; *c; c++) last += *c == '\n';
  geno_result *r = geno_parse(src, strlen(src), "<repl>", NULL);
  bool more = false, lexical = false;
  for (size_t i = 0; r && i < geno_result_diagnostic_count(r); i++) {
    const geno_diagnostic *d = geno_result_diagnostic(r, i);
    if (strstr(d->message, "end of file") || strstr(d->message, "Unterminated") || d->line > last) more = true;
    lexical |= d->code_number >= 100 && d->code_number < 200;
  }
  /* a lexical error (a byte that is not UTF-8) stops the parse before it
   * can see the block open: read the definition to its `end` line, so the
   * error is reported once and its `end` is not an input of its own */
  if (!more && lexical && open_block_definition(text)) more = true;
  geno_result_free(r);
  free(src);
  return more;
}

static char *read_line(const Session *s, const char *prompt) {
  if (s->tty) return readline(prompt);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, stdin);
  if (n < 0) {
    free(line);
    return NULL;
  }
  if (n > 0 && line[n - 1] == '\n') line[n - 1] = '\0';
  return line;
}

/* libedit decodes what is typed with the C library's multibyte functions:
 * in the "C" locale a byte over 0x7f is no character, and it drops it
 * silently ("é" read as ""). Geno source is UTF-8, so the line editor
 * reads UTF-8: the user's locale if it is UTF-8, C.UTF-8 otherwise. Only
 * LC_CTYPE changes (numbers and messages keep the "C" locale). */
static void read_utf8_lines(void) {
  const char *set = setlocale(LC_CTYPE, "");
  if (!set || strcmp(nl_langinfo(CODESET), "UTF-8") != 0) setlocale(LC_CTYPE, "C.UTF-8");
}

static char *history_path(void) {
  const char *home = getenv("HOME");
  return home && *home ? cat3(home, "/", ".geno_history") : NULL;
}

int cmd_repl(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(repl_help, stdout);
      return EXIT_OK;
    }
    return cli_usage_error("repl", "unexpected argument '%s'", argv[i]);
  }
  Session s = {strdup(""), strdup(""), 0, isatty(STDIN_FILENO) == 1, "<input>"};
  if (!s.defs || !s.stmts) return EXIT_FAIL;
  char *hist = s.tty ? history_path() : NULL;
  if (s.tty) {
    read_utf8_lines();
    using_history();
    if (hist) read_history(hist);
    printf("geno-c %s (Geno %s) -- :help for help, :quit to leave\n", GENO_VERSION, GENO_LANGUAGE_VERSION);
  }
  char *pending = NULL;
  bool cut_short = false; /* the input ended inside an unfinished entry */
  for (;;) {
    char *line = read_line(&s, pending ? "... " : ">>> ");
    if (!line) {
      if (pending) {
        /* end of input ends the pending input too: it is read as it is,
         * so its errors say what is missing */
        cut_short = true;
        line = strdup("");
      } else {
        break;
      }
    }
    if (s.tty && *line) add_history(line);
    if (!pending) {
      const char *p = line;
      while (*p == ' ' || *p == '\t') p++;
      if (*p == '\0') {
        free(line);
        continue;
      }
      if (*p == ':') {
        const char *w;
        size_t n = first_word(p + 1, &w);
        const char *arg = w + n;
        while (*arg == ' ') arg++;
        if ((n == 4 && strncmp(w, "quit", 4) == 0) || (n == 1 && *w == 'q')) {
          free(line);
          break;
        } else if (n == 4 && strncmp(w, "help", 4) == 0) {
          fputs(repl_help, stdout);
        } else if (n == 4 && strncmp(w, "type", 4) == 0) {
          if (*arg) eval_statement(&s, arg, true);
          else fprintf(stderr, "usage: :type EXPR (show the type of EXPR)\n");
        } else if (n == 5 && strncmp(w, "clear", 5) == 0) {
          free(s.defs);
          free(s.stmts);
          s.defs = strdup("");
          s.stmts = strdup("");
          s.stmts_output = 0;
          if (!s.defs || !s.stmts) break;
          printf("Cleared.\n");
        } else if (n == 4 && strncmp(w, "load", 4) == 0) {
          size_t len;
          char *text = *arg ? cli_read_file(arg, &len) : NULL;
          if (!*arg) fprintf(stderr, "usage: :load FILE (add the definitions of FILE)\n");
          else if (!text) cli_printf_clean(stderr, "Error: cannot read %s: %s\n", arg, strerror(errno));
          s.origin = arg; /* its errors name the file */
          if (text && main_line(text)) run_with_main(&s, text);
          else if (text) eval_definition(&s, text);
          s.origin = "<input>";
          free(text);
        } else {
          cli_printf_clean(stderr, "Unknown command '%s' (:help lists the commands)\n", p);
        }
        fflush(stdout);
        free(line);
        continue;
      }
    }
    char *text = pending ? cat3(pending, "\n", line) : strdup(line);
    bool blank = *line == '\0';
    free(line);
    free(pending);
    pending = NULL;
    if (!text) break;
    if (blank) { /* the empty line that ended the input is not part of it */
      size_t n = strlen(text);
      while (n && (text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '\t')) text[--n] = '\0';
    }
    if (!blank && incomplete(&s, text)) {
      pending = text;
      continue;
    }
    if (is_definition(text) && main_line(text)) run_with_main(&s, text);
    else if (is_definition(text)) eval_definition(&s, text);
    else if (mentions_main(text))
      fprintf(stderr, "error: `main` cannot be used in the REPL: each input runs as main (a program's main "
                      "runs when it is loaded or typed in)\n");
    else eval_statement(&s, text, false);
    free(text);
  }
  free(pending);
  if (s.tty) {
    if (hist) write_history(hist);
    printf("\n");
  }
  free(hist);
  free(s.defs);
  free(s.stmts);
  /* a script piped in and cut off in the middle of an entry fails */
  return cut_short && !s.tty ? EXIT_FAIL : EXIT_OK;
}
