/* Front end driver: parse the entry module and, transitively, the modules
 * it imports (from the host's name -> source pairs), with per-module and
 * total size limits. Shared by geno_parse, geno_check and geno_run. */
#ifndef GENO_RUNTIME_FRONTEND_H
#define GENO_RUNTIME_FRONTEND_H

#include <geno.h>

#include "../syntax/ast.h"

/* Built-in standard modules (`import Math` etc.) that need no source from
 * the host: their Geno source is built in (std_modules.c). */
bool rt_is_std_module(const char *name);
/* The built-in source of std module `name` (static), or NULL. */
const char *rt_std_module_source(const char *name, size_t *len);

/* Modules in one program, the entry and std modules included. Checking
 * resolves each module's imports transitively, so its time grows with
 * the square of an import chain's length (its memory is linear: each
 * module is checked in a scratch arena); this bounds the time and stops a
 * module loader that serves an endless chain early. The time, not the
 * memory, keeps it at 256: a graph where each module imports every
 * earlier one costs the cube of its size (docs/SECURITY.md). */
#define RT_MAX_MODULES 256

typedef struct FrontEnd {
  Program prog;      /* modules[0] = entry */
  DiagList diags;
  double lex_ms, parse_ms;
  bool ok;           /* no lexer/parser/module errors */
} FrontEnd;

/* Parse everything; a missing module is an E204 error only when
 * report_missing (syntax-only checks skip it). Always initialises fe (free with rt_frontend_free).
 * More than RT_MAX_MODULES modules is an E204 error; loading and parsing
 * past cfg->timeout_s (from the call) is E501. */
void rt_frontend_run(FrontEnd *fe, const char *source, size_t len, const char *filename,
                     const geno_config *cfg, bool report_missing);
void rt_frontend_free(FrontEnd *fe);

#endif
