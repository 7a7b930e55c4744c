/* Entry points of the public API: geno_parse, geno_check, geno_source_imports.
 * geno_run / geno_run_isolated live in run.c and sandbox/. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <geno.h>

#include "../check/check.h"
#include "../lib/builtins.h"
#include "../base/utf8.h"
#include "../syntax/lexer.h"
#include "../syntax/format.h"
#include "../syntax/outline.h"
#include "../syntax/parser.h"
#include "config.h"
#include "frontend.h"
#include "result.h"

static void monitor(const geno_config *cfg, const geno_result *r, const char *op) {
  if (cfg && cfg->monitor) cfg->monitor(r, op, cfg->monitor_userdata);
}

/* The caller's config in this library's layout, or NULL after adding an
 * E204 to r when it cannot be read (geno.h, "Binary compatibility"). */
static const geno_config *adopt_config(const geno_config *cfg, geno_config *out, geno_result *r) {
  const char *unreadable = NULL;
  const geno_config *c = rt_config_adopt(cfg, out, &unreadable);
  if (!c) rt_result_add(r, E_PROJECT, NULL, unreadable);
  return c;
}

/* The arguments' problems as geno_run finds them (rt_config_problem), as
 * an E204 in r; true when there is none. */
static bool arguments_valid(const geno_config *cfg, const char *source, size_t len, geno_result *r) {
  char *bad = rt_config_problem(cfg, source, len);
  if (!bad) return true;
  rt_result_add(r, E_PROJECT, NULL, bad);
  free(bad);
  return false;
}

geno_result *geno_parse(const char *source, size_t len, const char *filename, const geno_config *cfg) {
  double t0 = rt_now_ms();
  geno_result *r = rt_result_new();
  if (!r) return NULL;
  geno_config adopted; /* the caller's config in this library's layout */
  if (!(cfg = adopt_config(cfg, &adopted, r))) return r;
  if (!arguments_valid(cfg, source, len, r)) {
    monitor(cfg, r, "parse");
    return r;
  }
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

/* Parse one source as a lone module for the tools (format, outline):
 * *out is NULL and a not-ok result says why when the arguments are bad;
 * the diagnostics of a source that does not parse go to r. Returns the
 * module (NULL when it did not parse); free prog with ast_program_free. */
static Module *tool_parse(const char *fn, const char *source, size_t len, const char *filename, void *out,
                          geno_result *r, Program *prog) {
  ast_program_init(prog, 0);
  if (!out || (!source && len)) {
    Buf b = BUF_INIT;
    buf_printf(&b, !out ? "%s: the output pointer must not be NULL" : "%s: source is NULL but len is not 0", fn);
    rt_result_add(r, E_RUNTIME, NULL, b.data ? b.data : fn);
    buf_free(&b);
    return NULL;
  }
  DiagList diags;
  diag_init(&diags);
  Module *m = parse_module(prog, "Main", filename ? filename : "<source>", source ? source : "", len, &diags);
  rt_result_add_diags(r, &diags);
  if (!m && diags.count == 0) rt_result_add(r, E_RESOURCE, NULL, "out of memory while parsing");
  diag_free(&diags);
  return r->ok ? m : NULL;
}

geno_result *geno_outline(const char *source, size_t len, const char *filename, char **json) {
  if (json) *json = NULL;
  geno_result *r = rt_result_new();
  if (!r) return NULL;
  Program prog;
  Module *m = tool_parse("geno_outline", source, len, filename, json, r, &prog);
  if (m) {
    Buf j = BUF_INIT;
    outline_json(m, m->src, m->len, &j);
    if (j.data) *json = buf_take(&j);
    else rt_result_add(r, E_RESOURCE, NULL, "out of memory");
    buf_free(&j);
  }
  ast_program_free(&prog);
  return r;
}

geno_result *geno_format(const char *source, size_t len, const char *filename, char **formatted,
                         size_t *formatted_len) {
  if (formatted) *formatted = NULL;
  if (formatted_len) *formatted_len = 0;
  double t0 = rt_now_ms();
  geno_result *r = rt_result_new();
  if (!r) return NULL;
  Program prog;
  /* only a program that parses is formatted */
  if (tool_parse("geno_format", source, len, filename, formatted, r, &prog)) {
    Buf out = BUF_INIT;
    if (fmt_source(source ? source : "", len, &out)) {
      if (formatted_len) *formatted_len = out.len;
      *formatted = buf_take(&out);
    } else {
      rt_result_add(r, E_RESOURCE, NULL, "out of memory while formatting");
    }
    buf_free(&out);
  }
  ast_program_free(&prog);
  r->timing.total_ms = rt_now_ms() - t0;
  return r;
}

/* Imports are found from tokens alone: `import` is a keyword that only
 * starts an import declaration, and the module name is the type-name token
 * after it. No parse, no AST, not even tokens: lex_imports walks the bytes
 * once (a host, or the CLI, asks this for every file before loading
 * modules, so it should cost a small fraction of the real front end). A
 * source that fails to parse for another reason still lists its imports;
 * the library reports the parse error when the program is checked. */
typedef struct ImportList {
  char **names;
  int count;
  bool oom;
} ImportList;

static void add_import(void *ud, const char *name, size_t n) {
  ImportList *l = ud;
  if (l->oom) return;
  char **grown = realloc(l->names, (size_t)(l->count + 1) * sizeof *grown);
  char *copy = grown ? malloc(n + 1) : NULL;
  if (grown) l->names = grown;
  if (!copy) {
    l->oom = true;
    return;
  }
  memcpy(copy, name, n);
  copy[n] = '\0';
  l->names[l->count++] = copy;
}

int geno_source_imports(const char *source, size_t len, char ***names_out) {
  if (!names_out) return -1;
  *names_out = NULL;
  if (!source && len) return -1;
  if (!source) source = "";
  ImportList l = {NULL, 0, false};
  if (!lex_imports(source, len, add_import, &l) || l.oom) {
    geno_strings_free(l.names, (size_t)l.count);
    return -1;
  }
  *names_out = l.names;
  return l.count;
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
  if (fe.ok && !r->has_modules) {
    /* the program's modules, as `geno check` reports them (std modules
     * are part of the language, not of the program) */
    for (int m = 0; m < fe.prog.nmodules; m++) {
      const Module *mod = fe.prog.modules[m];
      if (mod->file && strncmp(mod->file, "<std>/", 6) == 0) continue;
      rt_result_add_module(r, mod->file, (size_t)mod->ndecls);
    }
    r->has_modules = true;
  }
  if (fe.ok) {
    /* Type checking runs only on a program that parsed, as in the
     * reference (its checker never sees a partial AST). */
    double t1 = rt_now_ms();
    ChkOptions opts;
    chk_options_init(&opts);
    opts.target = target;
    if (cfg && cfg->timeout_s > 0 && isfinite(cfg->timeout_s)) {
      opts.deadline_ms = t1 - fe.lex_ms - fe.parse_ms + cfg->timeout_s * 1000.0;
      opts.timeout_s = cfg->timeout_s;
    }
    chk_program(&fe.prog, lib_builtin_table(), &fe.diags, &opts);
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
  geno_config adopted; /* the caller's config in this library's layout */
  if (!(cfg = adopt_config(cfg, &adopted, r))) return r;
  if (!arguments_valid(cfg, source, len, r)) {
    /* reported; unknown targets included */
  } else if (cfg->ntargets == 0) {
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
