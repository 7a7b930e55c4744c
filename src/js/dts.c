/* The TypeScript declarations (.d.ts) of an ES module made by js_compile
 * with JS_ESM: the functions it exports (every function of the entry
 * module) and the types they name, written for the values of the
 * generated code (see js.h): Int is a bigint, a tuple an object whose `a`
 * holds the items, a constructor value an object with its variant name in
 * `$n` and its fields, an async function's call a deferred value whose
 * `$run()` gives a Promise. Containers the runtime keeps opaque (Map, Set,
 * the mutable ones) are declared opaque. */
#include <string.h>

#include "js.h"

static const char prologue[] =
    "// TypeScript declarations of a module compiled by geno-c (geno compile --target js --esm).\n"
    "export interface GenoTuple<T extends unknown[]> { readonly a: T }\n"
    "export type GenoOption<T> = { readonly $n: \"Some\"; readonly value: T } | { readonly $n: \"None\" };\n"
    "export type GenoResult<T, E> = { readonly $n: \"Ok\"; readonly value: T } | { readonly $n: \"Err\"; readonly error: E };\n"
    "export interface GenoOpaque<Name extends string, T extends unknown[] = []> { readonly $geno: Name; readonly $of?: T }\n"
    "export interface GenoAsync<T> { $run(): Promise<T> }\n";

/* Is `name` a type parameter of the declaration being written? */
static bool is_param(const char *name, const char *const *params, int nparams) {
  for (int i = 0; i < nparams; i++)
    if (strcmp(params[i], name) == 0) return true;
  return false;
}

static void ts_type(Buf *b, const TypeExpr *t, const char *const *params, int nparams);

static void ts_args(Buf *b, const TypeExpr *t, int from, const char *const *params, int nparams) {
  for (int i = from; i < t->nargs; i++) {
    if (i > from) buf_puts(b, ", ");
    ts_type(b, t->args[i], params, nparams);
  }
}

static void ts_type(Buf *b, const TypeExpr *t, const char *const *params, int nparams) {
  if (!t) {
    buf_puts(b, "void");
    return;
  }
  if (t->kind == TE_FUNC) {
    buf_putc(b, '(');
    for (int i = 0; i < t->nargs; i++) {
      buf_printf(b, "%sa%d: ", i ? ", " : "", i);
      ts_type(b, t->args[i], params, nparams);
    }
    buf_puts(b, ") => ");
    ts_type(b, t->ret, params, nparams);
    return;
  }
  const char *n = t->name;
  if (t->is_tuple || strcmp(n, "Tuple") == 0) {
    buf_puts(b, "GenoTuple<[");
    ts_args(b, t, 0, params, nparams);
    buf_puts(b, "]>");
  } else if (strcmp(n, "Int") == 0) {
    buf_puts(b, "bigint");
  } else if (strcmp(n, "Float") == 0) {
    buf_puts(b, "number");
  } else if (strcmp(n, "String") == 0) {
    buf_puts(b, "string");
  } else if (strcmp(n, "Bool") == 0) {
    buf_puts(b, "boolean");
  } else if (strcmp(n, "Unit") == 0) {
    buf_puts(b, "void");
  } else if (strcmp(n, "List") == 0 && t->nargs == 1) {
    buf_puts(b, "ReadonlyArray<");
    ts_type(b, t->args[0], params, nparams);
    buf_putc(b, '>');
  } else if (strcmp(n, "Option") == 0 && t->nargs == 1) {
    buf_puts(b, "GenoOption<");
    ts_type(b, t->args[0], params, nparams);
    buf_putc(b, '>');
  } else if (strcmp(n, "Result") == 0 && t->nargs == 2) {
    buf_puts(b, "GenoResult<");
    ts_args(b, t, 0, params, nparams);
    buf_putc(b, '>');
  } else if (strcmp(n, "Map") == 0 || strcmp(n, "Set") == 0 || strcmp(n, "MutableMap") == 0 ||
             strcmp(n, "Array") == 0 || strcmp(n, "Vec") == 0) {
    buf_printf(b, "GenoOpaque<\"%s\", [", n);
    ts_args(b, t, 0, params, nparams);
    buf_puts(b, "]>");
  } else if (is_param(n, params, nparams)) {
    buf_puts(b, n);
  } else {
    /* a type of the program (declared below when it is the entry
     * module's) or a built-in one: its name, with its arguments */
    buf_puts(b, n);
    if (t->nargs) {
      buf_putc(b, '<');
      ts_args(b, t, 0, params, nparams);
      buf_putc(b, '>');
    }
  }
}

static void type_params(Buf *b, const char *const *params, int nparams) {
  if (!nparams) return;
  buf_putc(b, '<');
  for (int i = 0; i < nparams; i++) buf_printf(b, "%s%s", i ? ", " : "", params[i]);
  buf_putc(b, '>');
}

void js_dts(const Program *prog, Buf *out) {
  const Module *m = prog->modules[0];
  buf_puts(out, prologue);
  for (int i = 0; i < m->ndecls; i++) {
    const Decl *d = m->decls[i];
    if (d->kind == D_ADT) {
      const char *const *ps = d->u.adt.params;
      int np = d->u.adt.nparams;
      buf_printf(out, "export type %s", d->u.adt.name);
      type_params(out, ps, np);
      buf_puts(out, " =");
      for (int k = 0; k < d->u.adt.n; k++) {
        const Variant *v = &d->u.adt.variants[k];
        buf_printf(out, "\n  | { readonly $n: \"%s\"", v->name);
        for (int f = 0; f < v->nfields; f++) {
          /* a field named __proto__ is the property "__proto__$" (emit.c) */
          if (strcmp(v->fields[f].name, "__proto__") == 0) buf_puts(out, "; readonly \"__proto__$\": ");
          else buf_printf(out, "; readonly %s: ", v->fields[f].name);
          ts_type(out, v->fields[f].type, ps, np);
        }
        buf_puts(out, " }");
      }
      buf_puts(out, ";\n");
    } else if (d->kind == D_ALIAS) {
      buf_printf(out, "export type %s", d->u.alias.name);
      type_params(out, d->u.alias.params, d->u.alias.nparams);
      buf_puts(out, " = ");
      ts_type(out, d->u.alias.target, d->u.alias.params, d->u.alias.nparams);
      buf_puts(out, ";\n");
    }
  }
  for (int i = 0; i < m->ndecls; i++) {
    const Decl *d = m->decls[i];
    if (d->kind != D_FUNC) continue;
    const FuncDecl *f = &d->u.func;
    buf_printf(out, "export declare function %s(", f->name);
    for (int p = 0; p < f->nparams; p++) {
      /* (a default is applied to a left-out Geno argument, not to a
       * JavaScript undefined: every parameter is required here) */
      buf_printf(out, "%s%s: ", p ? ", " : "", f->params[p].name);
      ts_type(out, f->params[p].type, NULL, 0);
    }
    buf_puts(out, "): ");
    if (f->is_async) buf_puts(out, "GenoAsync<");
    ts_type(out, f->ret, NULL, 0);
    if (f->is_async) buf_putc(out, '>');
    buf_puts(out, ";\n");
  }
}
