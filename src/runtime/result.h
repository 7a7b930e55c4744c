/* The result object behind geno_result (include/geno.h). */
#ifndef GENO_RUNTIME_RESULT_H
#define GENO_RUNTIME_RESULT_H

#include <geno.h>

#include "../base/buf.h"
#include "../base/diag.h"

struct geno_result {
  bool ok;
  geno_diagnostic *diags; /* malloc'd array; strings malloc'd */
  size_t ndiags;
  size_t cap;
  char *output;           /* malloc'd, NUL-terminated */
  size_t output_len;
  char *value_json;       /* malloc'd; "null" when none */
  char *value_text;       /* malloc'd canonical rendering, or NULL */
  geno_value *value;      /* owned, or NULL */
  geno_timing timing;
  uint64_t steps;
  struct {
    char *file;
    size_t definitions;
  } *modules;             /* geno_check: the parsed program's modules */
  size_t nmodules;
  bool has_modules;
  struct {
    char *name;
    char *file;
    int line, col;
  } *trace;               /* call stack of the runtime error (malloc'd) */
  size_t ntrace;
  geno_isolation_end isolation; /* how an isolated child ended */
};

/* Append one call-stack line (copied). */
void rt_result_add_trace(geno_result *r, const char *name, const char *file, int line, int col);

/* [m] A new empty result (ok = true, value "null"). */
geno_result *rt_result_new(void);
/* Append every entry of d (copied); ok becomes false if any is an error. */
void rt_result_add_diags(geno_result *r, const DiagList *d);
/* Append one diagnostic; span may be NULL. */
void rt_result_add(geno_result *r, int code, const Span *span, const char *message);
/* Record one module of the checked program (file copied). */
void rt_result_add_module(geno_result *r, const char *file, size_t definitions);
void rt_result_set_output(geno_result *r, const char *s, size_t n);
/* Takes ownership of json (malloc'd). */
void rt_result_set_value_json(geno_result *r, char *json);

/* Monotonic clock in milliseconds. */
double rt_now_ms(void);

#endif
