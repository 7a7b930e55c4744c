/* Front end driver (see frontend.h). */
#include "frontend.h"

#include <math.h>
#include <stdio.h>

#include "../base/utf8.h"
#include "../syntax/parser.h"
#include "result.h"

/* Front-end memory cap: far above what a maximal (8 MiB) program needs for
 * its AST, low enough that a hostile input cannot exhaust the host. */
#define FRONTEND_ARENA_LIMIT ((size_t)1 << 30)

static const geno_module *find_module(const geno_config *cfg, const char *name) {
  if (!cfg) return NULL;
  for (size_t i = 0; i < cfg->nmodules; i++)
    if (cfg->modules[i].name && strcmp(cfg->modules[i].name, name) == 0) return &cfg->modules[i];
  return NULL;
}

static bool module_name_valid(const char *s) {
  if (!s || !(*s >= 'A' && *s <= 'Z')) return false;
  for (; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

/* A file name as diagnostics show it, in the arena. Diagnostics carry it
 * into JSON and across the sandbox boundary, which both need UTF-8: a
 * name that is not (a Latin-1 file name) is shown with U+FFFD for its
 * invalid bytes. */
static const char *shown_name(Arena *a, const char *name) {
  size_t bad, n = strlen(name);
  if (utf8_valid(name, n, &bad)) return arena_strndup(a, name, n);
  char *clean = utf8_sanitize(name, n, &n);
  if (!clean) return "<input>";
  const char *s = arena_strndup(a, clean, n);
  free(clean);
  return s;
}

void rt_frontend_run(FrontEnd *fe, const char *source, size_t len, const char *filename,
                     const geno_config *cfg, bool report_missing) {
  ast_program_init(&fe->prog, FRONTEND_ARENA_LIMIT);
  diag_init(&fe->diags);
  fe->lex_ms = fe->parse_ms = 0;
  geno_config defaults;
  if (!cfg) {
    geno_config_init(&defaults);
    cfg = &defaults;
  }
  const char *file = filename ? shown_name(&fe->prog.arena, filename) : "<input>";
  uint64_t max_one = cfg->max_source_bytes, max_total = cfg->max_total_source_bytes;
  uint64_t total = len;
  if ((max_one && len > max_one) || (max_total && total > max_total)) {
    diag_add(&fe->diags, E_PROJECT, NULL, "Source of '%s' is %zu bytes; the limit is %llu bytes", file, len,
             (unsigned long long)(max_one && len > max_one ? max_one : max_total));
    fe->ok = false;
    return;
  }
  for (size_t i = 0; i < cfg->nmodules; i++) {
    if (!module_name_valid(cfg->modules[i].name)) {
      diag_add(&fe->diags, E_PROJECT, NULL,
               "Invalid module name '%s': module names are PascalCase identifiers",
               cfg->modules[i].name ? cfg->modules[i].name : "(null)");
    }
  }
  double t0 = rt_now_ms();
  double deadline = cfg->timeout_s > 0 && isfinite(cfg->timeout_s) ? t0 + cfg->timeout_s * 1000.0 : 0;
  bool stopped = false;
  parse_module(&fe->prog, "Main", file, source, len, &fe->diags);
  /* Names the host's loader did not supply, with its explanation: asked
   * once, reported at every import of them. */
  struct Missing {
    const char *name;
    char *why;
  } *missing = NULL;
  int nmissing = 0;
  /* Breadth-first over imports; each module is parsed once. */
  for (int mi = 0; !stopped && mi < fe->prog.nmodules; mi++) {
    Module *m = fe->prog.modules[mi];
    for (int di = 0; !stopped && di < m->ndecls; di++) {
      Decl *d = m->decls[di];
      if (d->kind != D_IMPORT) continue;
      if (deadline > 0 && rt_now_ms() > deadline) {
        diag_add(&fe->diags, E_TIMEOUT, NULL, "Execution timed out after %g seconds (loading modules)",
                 cfg->timeout_s);
        stopped = true;
        break;
      }
      const char *name = d->u.import.module;
      bool seen = false;
      for (int k = 1; k < fe->prog.nmodules; k++)
        if (fe->prog.modules[k]->name == name) seen = true;
      if (seen) continue;
      if (fe->prog.nmodules >= RT_MAX_MODULES) {
        Span sp = d->span;
        diag_add(&fe->diags, E_PROJECT, &sp, "Too many modules: a program may have at most %d (importing '%s')",
                 RT_MAX_MODULES, name);
        stopped = true;
        break;
      }
      const geno_module *src = find_module(cfg, name);
      const char *text = src ? src->source : NULL;
      size_t text_len = src ? src->length : 0;
      char *loaded = NULL, *why = NULL, *shown = NULL;
      int miss = -1;
      for (int k = 0; k < nmissing; k++)
        if (missing[k].name == name) miss = k;
      if (!text && cfg->module_loader && miss < 0) {
        size_t n = 0;
        if (cfg->module_loader(cfg->module_loader_userdata, name, &loaded, &n, &shown, &why) && loaded) {
          text = loaded;
          text_len = n;
          free(why);
        } else {
          free(loaded);
          free(shown);
          loaded = shown = NULL;
          struct Missing *grown = realloc(missing, (size_t)(nmissing + 1) * sizeof *grown);
          if (grown) {
            missing = grown;
            missing[nmissing].name = name;
            missing[nmissing].why = why;
            miss = nmissing++;
          } else {
            free(why);
          }
        }
      }
      if (!text && rt_is_std_module(name)) {
        /* A host module of the same name wins, as a file beside the
         * program does in the reference. */
        size_t std_len;
        const char *std_src = rt_std_module_source(name, &std_len);
        char fname[128];
        snprintf(fname, sizeof fname, "<std>/%s.geno", name);
        parse_module(&fe->prog, name, fname, std_src, std_len, &fe->diags);
        continue;
      }
      if (!text) {
        if (!report_missing) continue;
        Span sp = d->span;
        const char *detail = miss >= 0 ? missing[miss].why : NULL;
        diag_add(&fe->diags, E_PROJECT, &sp, "Module '%s' not found%s%s", name, detail ? ". " : "",
                 detail ? detail : "");
        continue;
      }
      total += text_len;
      if ((max_one && text_len > max_one) || (max_total && total > max_total)) {
        Span sp = d->span;
        diag_add(&fe->diags, E_PROJECT, &sp, "Module '%s' is too large (limit %llu bytes per module, %llu in total)",
                 name, (unsigned long long)max_one, (unsigned long long)max_total);
        free(loaded);
        free(shown);
        continue;
      }
      /* a module given as text (geno_config.modules) is named as the
       * reference names one: "<module:Name>"; one the loader read,
       * by the name it gave or "Name.geno" */
      char fname[512];
      snprintf(fname, sizeof fname, src && !loaded ? "<module:%s>" : "%s.geno", name);
      /* the span file name must outlive this loop: the arena keeps it */
      const char *file_shown = shown ? shown_name(&fe->prog.arena, shown) : fname;
      parse_module(&fe->prog, name, file_shown, text, text_len, &fe->diags); /* copies the text */
      free(loaded);
      free(shown);
    }
  }
  for (int k = 0; k < nmissing; k++) free(missing[k].why);
  free(missing);
  double t1 = rt_now_ms();
  /* Lexing happens on demand inside parsing; split the time evenly rather
   * than pretend to measure it separately. */
  fe->lex_ms = (t1 - t0) * 0.3;
  fe->parse_ms = (t1 - t0) * 0.7;
  fe->ok = diag_error_count(&fe->diags) == 0;
}

void rt_frontend_free(FrontEnd *fe) {
  ast_program_free(&fe->prog);
  diag_free(&fe->diags);
}
