/* Text forms of values: the canonical rendering (print, to_string,
 * f-strings, `=>`), the Python-style repr the reference uses for thrown
 * values caught as String, the RunResult JSON encoding, and number text
 * (render.c, numfmt.c). */
#ifndef GENO_VM_RENDER_H
#define GENO_VM_RENDER_H

#include "../base/buf.h"
#include "vm.h"

typedef enum RenderMode {
  RENDER_RAW,    /* canonical; a top-level String is written as is (print) */
  RENDER_QUOTED, /* canonical; every String quoted (`=> "x"`) */
  RENDER_REPR,   /* Python repr: 'single' quotes, True/False (thrown values) */
} RenderMode;

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

/* Python's repr() of a str, written to sink: the quoting of RENDER_REPR
 * (thrown values, map keys in RunResult JSON), shared with the host
 * values' renderer (runtime/hostvalue.c) so both quote alike. */
void fmt_quote_python(const char *data, size_t blen, StrSink sink, void *ud);
/* Python's repr() of a Float ("1.0", "1e+16", "inf"). cap >= 32. */
void fmt_float(double d, char *out, size_t cap);
/* Decimal text of an Int. Like the reference (CPython's int-to-str limit),
 * an Int of more than FMT_MAX_INT_DIGITS digits cannot be rendered. */
#define FMT_MAX_INT_DIGITS 4300
bool fmt_int(VM *vm, Value v, Buf *out);

#endif
