/* Entry points of the public API: geno_parse, geno_check, geno_source_imports.
 * geno_run / geno_run_isolated live in run.c and sandbox/. */
#include <stdio.h>
#include <stdlib.h>

#include <geno.h>

#include "../check/check.h"
#include "../base/utf8.h"
#include "../syntax/lexer.h"
#include "../syntax/parser.h"
#include "config.h"
#include "frontend.h"
#include "result.h"

static void monitor(const geno_config *cfg, const geno_result *r, const char *op) {
  if (cfg && cfg->monitor) cfg->monitor(r, op, cfg->monitor_userdata);
}

geno_result *geno_parse(const char *source, size_t len, const char *filename, const geno_config *cfg) {
  double t0 = rt_now_ms();
  geno_result *r = rt_result_new();
  if (!r) return NULL;
  FrontEnd fe;
  rt_frontend_run(&fe, source ? source : "", source ? len : 0, filename, cfg, false);
  rt_result_add_diags(r, &fe.diags);
  r->timing.lex_ms = fe.lex_ms;
  r->timing.parse_ms = fe.parse_ms;
  rt_frontend_free(&fe);
  r->timing.total_ms = rt_now_ms() - t0;
  monitor(cfg, r, "parse");
  return r;
}

/* Imports are found from tokens alone: `import` is a keyword that only
 * starts an import declaration, and the module name is the type-name token
 * after it. One lexer pass, no parse, no AST: a host (or the CLI) asks this
 * before loading modules, so it should cost a fraction of the real front
 * end. A source that fails to parse for another reason still lists its
 * imports; the library reports the parse error when the program is
 * checked. */
/* geno_source_imports on text whose line ends are LF only. */
static int scan_imports(const char *source, size_t len, char ***names_out);

int geno_source_imports(const char *source, size_t len, char ***names_out) {
  *names_out = NULL;
  if (!source) source = "", len = 0;
  if (!memchr(source, '\r', len)) return scan_imports(source, len, names_out);
  /* A lone CR ends a line (a `//` comment included), as CR LF does: the
   * parser normalises both to LF first (copy_source in parser.c), so the
   * scan must see the same text. */
  char *copy = malloc(len ? len : 1);
  if (!copy) return -1;
  size_t k = 0;
  for (size_t i = 0; i < len; i++) {
    if (source[i] != '\r') {
      copy[k++] = source[i];
    } else {
      copy[k++] = '\n';
      if (i + 1 < len && source[i + 1] == '\n') i++;
    }
  }
  int n = scan_imports(copy, k, names_out);
  free(copy);
  return n;
}

static int scan_imports(const char *source, size_t len, char ***names_out) {
  size_t bad;
  if (!utf8_valid(source, len, &bad)) return -1;
  Lexer lx;
  lex_init(&lx, source, len, "<imports>", 1, 1, NULL, NULL);
  char **names = NULL;
  int count = 0;
  bool after_import = false, oom = false;
  for (;;) {
    Token t;
    lex_next(&lx, &t);
    if (t.kind == TOK_EOF) break;
    if (after_import && t.kind == TOK_TYPE_IDENT && !oom) {
      /* Scan mode keeps no text: the name is the token's last t.len bytes. */
      const char *text = source + lx.pos - t.len;
      char **grown = realloc(names, (size_t)(count + 1) * sizeof *grown);
      char *copy = grown ? malloc(t.len + 1) : NULL;
      if (grown) names = grown;
      if (copy) {
        memcpy(copy, text, t.len);
        copy[t.len] = '\0';
        names[count++] = copy;
      } else {
        oom = true;
      }
    }
    after_import = t.kind == TOK_IMPORT;
  }
  if (lx.failed || oom) {
    geno_strings_free(names, (size_t)count);
    return -1;
  }
  *names_out = names;
  return count;
}

void geno_strings_free(char **strings, size_t count) {
  if (!strings) return;
  for (size_t i = 0; i < count; i++) free(strings[i]);
  free(strings);
}

/* One check of the program for one target (CHK_TARGET_NONE: no target).
 * With `prefix`, every diagnostic's message starts with "[target] ". */
static void check_once(geno_result *r, const char *source, size_t len, const char *filename,
                       const geno_config *cfg, ChkTarget target, bool prefix) {
  FrontEnd fe;
  rt_frontend_run(&fe, source ? source : "", source ? len : 0, filename, cfg, true);
  r->timing.lex_ms += fe.lex_ms;
  r->timing.parse_ms += fe.parse_ms;
  if (fe.ok) {
    /* Type checking runs only on a program that parsed, as in the
     * reference (its checker never sees a partial AST). */
    double t1 = rt_now_ms();
    ChkOptions opts;
    chk_options_init(&opts);
    opts.target = target;
    chk_program(&fe.prog, &fe.diags, &opts);
    r->timing.typecheck_ms += rt_now_ms() - t1;
  }
  if (prefix) {
    for (int i = 0; i < fe.diags.count; i++) {
      Diag *d = &fe.diags.items[i];
      Buf b = BUF_INIT;
      buf_printf(&b, "[%s] %s", chk_target_name(target), d->message);
      if (b.data) {
        free(d->message);
        d->message = buf_take(&b);
      }
      buf_free(&b);
    }
  }
  rt_result_add_diags(r, &fe.diags);
  rt_frontend_free(&fe);
}

geno_result *geno_check(const char *source, size_t len, const char *filename, const geno_config *cfg) {
  double t0 = rt_now_ms();
  geno_result *r = rt_result_new();
  if (!r) return NULL;
  const char *bad = cfg ? rt_config_bad_target(cfg) : NULL;
  if (bad || (cfg && cfg->ntargets && !cfg->targets)) {
    Buf b = BUF_INIT;
    if (bad) buf_printf(&b, "Unknown target '%s'. Valid targets: %s", bad, CHK_TARGET_NAMES);
    else buf_puts(&b, "ntargets is set but targets is NULL");
    rt_result_add(r, E_PROJECT, NULL, b.data ? b.data : "invalid targets");
    buf_free(&b);
  } else if (!cfg || cfg->ntargets == 0) {
    check_once(r, source, len, filename, cfg, CHK_TARGET_NONE, false);
  } else {
    /* Each distinct target once, in the order given. */
    ChkTarget list[CHK_TARGET__COUNT];
    int n = 0;
    for (size_t i = 0; i < cfg->ntargets; i++) {
      ChkTarget t = chk_target_from_name(cfg->targets[i]);
      bool seen = false;
      for (int k = 0; k < n; k++) seen |= list[k] == t;
      if (!seen && n < CHK_TARGET__COUNT) list[n++] = t;
    }
    for (int k = 0; k < n; k++) check_once(r, source, len, filename, cfg, list[k], n > 1);
  }
  r->timing.total_ms = rt_now_ms() - t0;
  monitor(cfg, r, "check");
  return r;
}
