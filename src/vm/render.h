/* Text forms of VM values: the canonical rendering (print, to_string,
 * f-strings, `=>`), the Python-style repr the reference uses for thrown
 * values caught as String, the RunResult JSON encoding (all through the
 * one renderer, valuetext.h, with the run's limits), and number text
 * (render.c, numfmt.c). */
#ifndef GENO_VM_RENDER_H
#define GENO_VM_RENDER_H

#include "../base/buf.h"
#include "valuetext.h"
#include "vm.h"

typedef enum RenderLimit {
  LIMIT_STRING, /* E504 "<what>: String size exceeds limit (N > L)" */
  LIMIT_OUTPUT, /* E505 "Output limit exceeded (L characters)" */
} RenderLimit;

/* Append the text of v to out. The text may hold at most max_cp code
 * points, else the error of `limit` is raised (`what` prefixes the
 * LIMIT_STRING message, e.g. "to_string"). False after raising an error. */
bool vm_render(VM *vm, Value v, RenderMode mode, Buf *out, size_t max_cp, RenderLimit limit,
               const char *what);
/* The reference's JSON value encoding (values.value_to_json). */
bool vm_to_json(VM *vm, Value v, Buf *out);

/* Decimal text of an Int. Like the reference (CPython's int-to-str limit),
 * an Int of more than FMT_MAX_INT_DIGITS digits cannot be rendered. */
#define FMT_MAX_INT_DIGITS 4300
bool fmt_int(VM *vm, Value v, Buf *out);

#endif
