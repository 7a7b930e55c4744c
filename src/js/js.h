/* The JavaScript back end: a checked program (typed AST) to one ES2020
 * strict-mode script, plus the HTML page of `geno build`.
 *
 * Values in the generated code (docs/ARCHITECTURE.md, "The JavaScript back
 * end"): Int is a BigInt (exact, like the VM, bounded by max_integer_bits),
 * Float a number, String a JavaScript string indexed by code point, Bool a
 * boolean, Unit undefined, List an Array that is never changed in place,
 * tuples, constructor values and containers objects of the runtime's
 * classes (src/js/prelude/core.js). The runtime is JavaScript written in
 * this repository, embedded at build time, and only the parts a program
 * reaches are emitted (js_prelude_emit).
 *
 * Thread safety: every function here works only on its arguments; the
 * embedded prelude is read-only. */
#ifndef GENO_JS_JS_H
#define GENO_JS_JS_H

#include "../base/buf.h"
#include "../base/diag.h"
#include "../syntax/ast.h"

typedef enum JsFlavor {
  JS_NODE,    /* a script for `node out.js [--cap NAME]... [-- args]` */
  JS_ESM,     /* the same as an ES module: exports the entry module's functions */
  JS_BROWSER, /* a script for a page: app mode (init/update/render) on a canvas */
} JsFlavor;

typedef struct JsOptions {
  JsFlavor flavor;
  uint64_t max_steps;        /* 0: unlimited */
  int max_recursion_depth;   /* nested calls */
  uint64_t max_output_length; /* characters */
  uint64_t max_collection_size;
  int max_integer_bits;
  double timeout_s;          /* wall-clock limit in seconds (0: none), checked every 65536 steps */
  bool check_examples;       /* verify examples before main, as `geno run` does */
  const char *source_name;   /* the source map's "file": the script's name (NULL: "") */
  Buf *source_map;           /* when non-NULL, receives the script's Source Map V3: each
                                generated line where a statement or function starts maps
                                to its module, line and column (sources: the modules' files,
                                with their text) */
} JsOptions;

void js_options_init(JsOptions *o);

/* Compile a program that checked clean (chk_program returned true) to
 * JavaScript, appended to out. Constructs the back end cannot express are
 * reported in diags (E300) and make it return false. */
bool js_compile(Program *prog, const JsOptions *o, Buf *out, DiagList *diags);

/* The TypeScript declarations of the ES module js_compile makes with
 * JS_ESM for prog (checked clean): the entry module's functions and
 * types, for the runtime's values (see dts.c), appended to out. */
void js_dts(const Program *prog, Buf *out);

/* The prelude: append the units named in need[0..n) and every unit they
 * reach to out, in file order. Unknown names are ignored (the caller's
 * table test checks that every builtin's js name exists). */
void js_prelude_emit(const char *const *need, size_t n, Buf *out);
/* Does the prelude define `name` (a `//@` unit name)? */
bool js_prelude_has(const char *name);
/* Size in bytes of the whole embedded prelude. */
size_t js_prelude_size(void);

/* A page for `geno build`: title (escaped here), canvas size, and either
 * the script inline (script != NULL) or a reference to `app.js`. */
void js_html_page(Buf *out, const char *title, int width, int height, const char *script, size_t script_len);

#endif
