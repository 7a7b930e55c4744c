/* Entry points of the public API: geno_parse, geno_check, geno_source_imports.
 * geno_run / geno_run_isolated live in run.c and sandbox/. */
#include <stdio.h>

#include <geno.h>

#include "../check/check.h"
#include "../syntax/parser.h"
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

int geno_source_imports(const char *source, size_t len, char ***names_out) {
  *names_out = NULL;
  Program prog;
  DiagList diags;
  ast_program_init(&prog, (size_t)1 << 30);
  diag_init(&diags);
  Module *m = parse_module(&prog, "Main", "<imports>", source ? source : "", source ? len : 0, &diags);
  int count = -1;
  if (m && diag_error_count(&diags) == 0) {
    count = 0;
    char **names = NULL;
    for (int i = 0; i < m->ndecls; i++) {
      if (m->decls[i]->kind != D_IMPORT) continue;
      const char *n = m->decls[i]->u.import.module;
      char **p = realloc(names, (size_t)(count + 1) * sizeof *p);
      if (!p) break;
      names = p;
      size_t l = strlen(n);
      names[count] = malloc(l + 1);
      if (!names[count]) break;
      memcpy(names[count], n, l + 1);
      count++;
    }
    *names_out = names;
  }
  diag_free(&diags);
  ast_program_free(&prog);
  return count;
}

void geno_strings_free(char **strings, size_t count) {
  if (!strings) return;
  for (size_t i = 0; i < count; i++) free(strings[i]);
  free(strings);
}

geno_result *geno_check(const char *source, size_t len, const char *filename, const geno_config *cfg) {
  double t0 = rt_now_ms();
  geno_result *r = rt_result_new();
  if (!r) return NULL;
  FrontEnd fe;
  rt_frontend_run(&fe, source ? source : "", source ? len : 0, filename, cfg, true);
  r->timing.lex_ms = fe.lex_ms;
  r->timing.parse_ms = fe.parse_ms;
  if (fe.ok) {
    /* Type checking runs only on a program that parsed, as in the
     * reference (its checker never sees a partial AST). */
    double t1 = rt_now_ms();
    chk_program(&fe.prog, &fe.diags, NULL);
    r->timing.typecheck_ms = rt_now_ms() - t1;
  }
  rt_result_add_diags(r, &fe.diags);
  rt_frontend_free(&fe);
  r->timing.total_ms = rt_now_ms() - t0;
  monitor(cfg, r, "check");
  return r;
}
