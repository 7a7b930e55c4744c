/* The one value renderer: the canonical text (print, to_string, `=>`),
 * Python's repr (RENDER_REPR) and the RunResult JSON encoding, written once
 * over an accessor interface, so VM values (render.c) and the host's
 * geno_values (runtime/hostvalue.c) cannot print differently.
 *
 * A representation describes its nodes through ValueTextOps: each node's
 * kind, its scalars, and its children in order. Everything about the text
 * is decided here: punctuation, the Unit rule (RVK_UNIT is `()` / null; a
 * written `()` is an empty RVK_TUPLE, `()` / {"_tuple": []}), Float and Int
 * text, string quoting (the one escaper, str_quote in base/buf.h, and
 * Python's repr), map-key str(), Set ordering in JSON (by element text),
 * the "..." / "[Circular]" of a mutable container met again on its own
 * path, the depth bound, and the text limit counted in code points per
 * token. The representation's hooks charge work and memory (the VM's step
 * budget and memory budget; a host value has none) and raise its errors.
 *
 * Thread safety: none of its own; a walk touches only its arguments. */
#ifndef GENO_VM_VALUETEXT_H
#define GENO_VM_VALUETEXT_H

#include "../base/buf.h"

typedef enum RenderMode {
  RENDER_RAW,    /* canonical; a top-level String is written as is (print) */
  RENDER_QUOTED, /* canonical; every String quoted (`=> "x"`) */
  RENDER_REPR,   /* Python repr: 'single' quotes, True/False (thrown values) */
} RenderMode;

typedef enum RvKind {
  RVK_UNIT,    /* the Unit no `()` wrote: "()", JSON null */
  RVK_BOOL,
  RVK_INT,     /* text from ops->int_text */
  RVK_FLOAT,
  RVK_STRING,
  RVK_LIST,
  RVK_TUPLE,   /* no children: a written `()` */
  RVK_CTOR,    /* name, then its fields (field_name) */
  RVK_MAP,     /* children are key/value pairs, in insertion order */
  RVK_SET,     /* children in the order the text shows them (ops sorts) */
  RVK_ARRAY,
  RVK_VEC,
  RVK_MMAP,    /* key/value pairs */
  RVK_FUNC,    /* "<function name>", {"_function": name} */
  RVK_BUILTIN, /* "<builtin name>", {"_function": name} */
  RVK_ASYNC,   /* "<async name>", JSON: that text as a string */
  RVK_OTHER,   /* name is its whole text; JSON: that text as a string */
} RvKind;

/* Iteration state over one node's children (ops->next). */
typedef struct RvCursor {
  size_t pos;  /* the representation's position */
  void *tmp;   /* its scratch (a sorted copy), released by ops->end */
  bool sorted; /* the walk wants a Set in its text order */
} RvCursor;

typedef struct ValueTextOps {
  RvKind (*kind)(const void *node);
  bool (*boolean)(const void *node);
  double (*number)(const void *node);
  /* A String's bytes (UTF-8) and length */
  const char *(*string)(const void *node, size_t *len);
  /* A constructor's, function's or opaque value's name (never NULL) */
  const char *(*name)(const void *node);
  const char *(*field_name)(const void *node, size_t i);
  /* Append an Int's decimal text to out; false after raising an error. */
  bool (*int_text)(void *ctx, const void *node, Buf *out);
  /* The next child (and for maps its key) from cur, false at the end or
   * on failure (then *failed is set and an error was raised). */
  bool (*next)(void *ctx, const void *node, RvCursor *cur, const void **key, const void **val, bool *failed);
  void (*end)(RvCursor *cur);
  /* A mutable container's identity (the cycle check), else NULL */
  const void *(*identity)(const void *node);
  /* Charge one node visited; false when a limit ended the walk (raised). */
  bool (*visit)(void *ctx);
  /* Reserve room for text: *reserved bytes are held, `used` written and
   * `more` about to be; false when the budget cannot (raised). NULL: free. */
  bool (*room)(void *ctx, size_t *reserved, size_t used, size_t more);
  /* Give back what room reserved. */
  void (*release)(void *ctx, size_t reserved);
  /* Deeper than the bound or short of C stack: raise and return false.
   * `depth` is the depth reached, `what` "render" or "encode". */
  bool (*too_deep)(void *ctx, int depth, const char *what);
  bool (*stack_low)(void *ctx);
  int max_depth; /* nesting allowed */
} ValueTextOps;

/* How a text walk ended (rv_text). */
typedef struct RvTextEnd {
  bool over;     /* the text passed max_cp (or the byte cap) */
  size_t over_at; /* code points after the token that passed it (0: none) */
  bool failed;   /* an error was raised (a limit, memory, depth) */
} RvTextEnd;

/* Append the text of `node` in `mode` to out, stopping once it passes
 * max_cp code points (the token that passes is written; `end` says where).
 * The caller removes partial text and reports the limit. */
void rv_text(const ValueTextOps *ops, void *ctx, const void *node, RenderMode mode, Buf *out, size_t max_cp,
             RvTextEnd *end);
/* Append the RunResult JSON of `node`; false after an error was raised
 * (or out of memory in out). */
bool rv_json(const ValueTextOps *ops, void *ctx, const void *node, Buf *out);

/* Python's repr() of a str, written to sink: the quoting of RENDER_REPR. */
void fmt_quote_python(const char *data, size_t blen, StrSink sink, void *ud);
/* Python's repr() of a Float ("1.0", "1e+16", "inf"). cap >= 32. */
void fmt_float(double d, char *out, size_t cap);

#endif
