/* geno_run: parse, check, compile, verify examples, run main, and fill a
 * geno_result (value, output, diagnostics, timing, steps). Test mode
 * (cfg->run_tests) runs every example and test block instead of main. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>

#include <geno.h>

#include "../check/check.h"
#include "../lib/builtins.h"
#include "../vm/compile.h"
#include "../vm/equal.h"
#include "../vm/gc.h"
#include "../vm/render.h"
#include "config.h"
#include "frontend.h"
#include "run.h"
#include "hostcall.h"
#include "hostconv.h"
#include "hostvalue.h"
#include "result.h"

static void monitor(const geno_config *cfg, const geno_result *r, const char *op) {
  if (cfg && cfg->monitor) cfg->monitor(r, op, cfg->monitor_userdata);
}

/* The VM's pending error becomes the result's diagnostic (and trace). */
static void report_error(geno_result *r, VM *vm) {
  VMError *e = &vm->err;
  if (!e->active) return;
  rt_result_add(r, e->code, e->span.line > 0 ? &e->span : NULL, e->msg ? e->msg : "runtime error");
  for (int i = 0; i < e->ntrace; i++) {
    char gap[64];
    const char *name = e->trace[i].name;
    if (strcmp(name, "...") == 0 && e->omitted) {
      snprintf(gap, sizeof gap, "... %d more calls", e->omitted);
      name = gap;
    }
    rt_result_add_trace(r, name, e->trace[i].span.file, e->trace[i].span.line, e->trace[i].span.col);
  }
  vm_error_clear(vm);
}

/* Arguments for an example's input, as the reference's harness builds
 * them: () for a function with no required parameters means no
 * arguments; a single parameter takes the input as is; otherwise a tuple
 * spreads over the parameters. */
static int example_args(const Proto *fn, Value input, Value *args, int max) {
  if (fn->nrequired == 0 && input.tag == T_UNIT) return 0;
  if (fn->nparams == 1 || input.tag != T_TUPLE) {
    args[0] = input;
    return 1;
  }
  ObjTuple *t = AS_TUPLE(input);
  int n = (int)t->n < max ? (int)t->n : max;
  for (int i = 0; i < n; i++) args[i] = t->items[i];
  return n;
}

/* 1: passed; 0: wrong result (*msg set, malloc'd); -1: error in vm. */
static int run_example(VM *vm, const ExampleCase *ex, char **msg) {
  Value pair = v_unit(), actual = v_unit();
  gc_push_root(vm, &pair);
  gc_push_root(vm, &actual);
  int rc = -1;
  if (!vm_call_proto(vm, ex->thunk, NULL, 0, &pair)) goto done;
  /* a function may take any number of parameters (the compiler allows
   * up to 65535): the argument array is sized to it */
  Value small[16];
  int cap = ex->fn->nparams > 16 ? ex->fn->nparams : 16;
  Value *args = cap > 16 ? malloc((size_t)cap * sizeof *args) : small;
  if (!args) {
    vm_raise_oom(vm);
    goto done;
  }
  int n = example_args(ex->fn, AS_TUPLE(pair)->items[0], args, cap);
  bool called = vm_call_proto(vm, ex->fn, args, n, &actual);
  if (args != small) free(args);
  if (!called) goto done;
  if (actual.tag == T_ASYNC && !vm_await(vm, actual, &actual)) goto done;
  int eq = vm_equal(vm, actual, AS_TUPLE(pair)->items[1], true);
  if (eq < 0) goto done;
  if (eq) {
    rc = 1;
    goto done;
  }
  Buf want = BUF_INIT, got = BUF_INIT;
  bool ok = vm_render(vm, AS_TUPLE(pair)->items[1], RENDER_QUOTED, &want, 100000, LIMIT_STRING, NULL) &&
            vm_render(vm, actual, RENDER_QUOTED, &got, 100000, LIMIT_STRING, NULL);
  if (ok) {
    Buf m = BUF_INIT;
    buf_printf(&m, "Example verification failed for %s: expected %s, got %s", ex->qualified,
               want.data ? want.data : "", got.data ? got.data : "");
    *msg = buf_take(&m);
    rc = 0;
  }
  buf_free(&want);
  buf_free(&got);
done:
  gc_pop_roots(vm, 2);
  return rc;
}

/* geno run: the first failing example stops the run (E409 at the clause). */
static bool verify_examples(VM *vm) {
  Image *img = vm->img;
  vm->discard_output = true;
  bool ok = true;
  for (int i = 0; ok && i < img->nexamples; i++) {
    char *msg = NULL;
    int rc = run_example(vm, &img->examples[i], &msg);
    if (rc == 0) {
      vm_raise_fatal(vm, E_EXAMPLE, &img->examples[i].span, "%s", msg);
      vm->err.ntrace = 0;
    }
    free(msg);
    ok = rc == 1;
  }
  vm->discard_output = false;
  buf_clear(&vm->out);
  vm->out_chars = 0;
  return ok;
}

/* One failure in a test report: {"kind": K, "function": F, "message": M}. */
static void add_violation(Buf *v, const char *kind, const char *function, size_t flen, const char *message) {
  buf_puts(v, v->len ? ", {\"kind\": " : "{\"kind\": ");
  buf_json_string(v, kind, strlen(kind));
  buf_puts(v, ", \"function\": ");
  buf_json_string(v, function, flen);
  buf_puts(v, ", \"message\": ");
  buf_json_string(v, message, strlen(message));
  buf_puts(v, "}");
}

/* "file:line:col: Runtime Error: message" for the VM's pending error, as
 * the reference words a failing test in its report. */
static void runtime_detail(VM *vm, Buf *out) {
  const VMError *e = &vm->err;
  if (e->span.line > 0 && e->span.file)
    buf_printf(out, "%s:%d:%d: ", e->span.file, e->span.line, e->span.col);
  buf_printf(out, "Runtime Error: %s", e->msg ? e->msg : "runtime error");
}

/* A failing example's kind: a broken contract is reported as such. */
static const char *example_error_kind(const VM *vm) {
  const char *m = vm->err.msg ? vm->err.msg : "";
  if (strncmp(m, "Precondition failed", 19) == 0) return "requires";
  if (strncmp(m, "Postcondition failed", 20) == 0) return "ensures";
  return "example";
}

/* Test mode: every example and test block; each failure becomes a
 * diagnostic, and the result value is the report
 *   {"total": N, "passed": N, "failed": N,
 *    "untested": [{"function": F, "reason": R}...],
 *    "violations": [{"kind": K, "function": F, "message": M}...]}
 * (the fields of one file in the reference's `geno test --json`; untested
 * lists the entry file's @untested functions). */
/* Whether a case at `span` named `name` is selected by the test options:
 * written in the entry source (test_entry_only) and matching the filter.
 * A qualified name "Type.Trait.method" also matches as "Type.method" and
 * as "method". */
static bool test_selected(const geno_config *cfg, const Module *entry, const Span *span, const char *name,
                          size_t name_len) {
  if (cfg->test_entry_only && entry &&
      !(span->file == entry->file || (span->file && entry->file && strcmp(span->file, entry->file) == 0)))
    return false;
  if (!cfg->test_filter) return true;
  char full[512];
  if (name_len >= sizeof full) name_len = sizeof full - 1;
  memcpy(full, name, name_len);
  full[name_len] = '\0';
  if (fnmatch(cfg->test_filter, full, 0) == 0) return true;
  const char *last = strrchr(full, '.');
  if (!last) return false;
  if (fnmatch(cfg->test_filter, last + 1, 0) == 0) return true;
  const char *first = strchr(full, '.');
  if (first == last) return false;
  char short_name[512];
  snprintf(short_name, sizeof short_name, "%.*s%s", (int)(first - full), full, last);
  return fnmatch(cfg->test_filter, short_name, 0) == 0;
}

static void run_tests(VM *vm, geno_result *r, const geno_config *cfg) {
  Image *img = vm->img;
  const Module *entry_mod = vm->prog && vm->prog->nmodules > 0 ? vm->prog->modules[0] : NULL;
  int total = 0, passed = 0;
  Buf viol = BUF_INIT;
  vm->discard_output = true;
  for (int pass = 0; pass < 2; pass++) {
    ExampleCase *list = pass ? img->impl_examples : img->examples;
    int n = pass ? img->nimpl_examples : img->nexamples;
    for (int i = 0; i < n; i++) {
      char *msg = NULL;
      if (!test_selected(cfg, entry_mod, &list[i].span, list[i].qualified, strlen(list[i].qualified))) continue;
      total++;
      int rc = run_example(vm, &list[i], &msg);
      if (rc == 1) {
        passed++;
      } else if (rc == 0) {
        rt_result_add(r, E_EXAMPLE, &list[i].span, msg);
        /* the report keeps the comparison only: "expected X, got Y" */
        const char *cmp = msg ? strstr(msg, ": expected ") : NULL;
        add_violation(&viol, "example", list[i].qualified, strlen(list[i].qualified),
                      cmp ? cmp + 2 : (msg ? msg : ""));
      } else {
        Buf m = BUF_INIT, d = BUF_INIT;
        buf_printf(&m, "%s: %s", list[i].qualified, vm->err.msg ? vm->err.msg : "runtime error");
        rt_result_add(r, vm->err.code, &list[i].span, m.data ? m.data : "");
        buf_puts(&d, "Runtime error: ");
        runtime_detail(vm, &d);
        add_violation(&viol, example_error_kind(vm), list[i].qualified, strlen(list[i].qualified),
                      d.data ? d.data : "");
        buf_free(&m);
        buf_free(&d);
        vm_error_clear(vm);
      }
      free(msg);
    }
  }
  for (int i = 0; i < img->ntests; i++) {
    if (!test_selected(cfg, entry_mod, &img->tests[i].span, img->tests[i].name, img->tests[i].name_len)) continue;
    total++;
    Value out;
    if (vm_call_proto(vm, img->tests[i].body, NULL, 0, &out)) {
      passed++;
    } else {
      Buf m = BUF_INIT, d = BUF_INIT;
      buf_printf(&m, "test \"%.*s\": %s", (int)img->tests[i].name_len, img->tests[i].name,
                 vm->err.msg ? vm->err.msg : "runtime error");
      rt_result_add(r, vm->err.code, vm->err.span.line > 0 ? &vm->err.span : &img->tests[i].span,
                    m.data ? m.data : "");
      runtime_detail(vm, &d);
      add_violation(&viol, "test", img->tests[i].name, img->tests[i].name_len, d.data ? d.data : "");
      buf_free(&m);
      buf_free(&d);
      vm_error_clear(vm);
    }
  }
  vm->discard_output = false;
  Buf j = BUF_INIT;
  buf_printf(&j, "{\"total\": %d, \"passed\": %d, \"failed\": %d, \"untested\": [", total, passed,
             total - passed);
  const Module *entry = vm->prog && vm->prog->nmodules > 0 ? vm->prog->modules[0] : NULL;
  int nuntested = 0;
  for (int i = 0; entry && i < entry->ndecls; i++) {
    const Decl *d = entry->decls[i];
    if (d->kind != D_FUNC || !d->u.func.untested) continue;
    buf_puts(&j, nuntested++ ? ", {\"function\": " : "{\"function\": ");
    buf_json_string(&j, d->u.func.name, strlen(d->u.func.name));
    buf_puts(&j, ", \"reason\": ");
    buf_json_string(&j, d->u.func.untested, strlen(d->u.func.untested));
    buf_puts(&j, "}");
  }
  buf_puts(&j, "], \"violations\": [");
  if (viol.len) buf_append(&j, viol.data, viol.len);
  buf_puts(&j, "]}");
  buf_free(&viol);
  char *json = buf_take(&j);
  buf_free(&j);
  if (json) rt_result_set_value_json(r, json);
}

/* main's value into the result: JSON, display text and host value. A
 * value that cannot be written (an Int over Python's 4300-digit text
 * limit, nesting too deep) fails the run with that error, as printing it
 * would, rather than coming back as a silent null. */
/* Encoding the value is part of the run: every walk below is charged per
 * node (the step limit and the deadline apply), and the JSON, the text and
 * the host copy are charged to the memory budget before they are made and
 * stay charged while the next is built (held is given back at the end). */
/* Deepest nesting of arrays and objects in JSON text (outside strings). */
static size_t json_nesting(const char *s, size_t n) {
  size_t depth = 0, max = 0;
  bool in_str = false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') i++;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max) max = depth;
    } else if (c == ']' || c == '}') {
      depth--;
    }
  }
  return max;
}

static void set_value(geno_result *r, VM *vm, Value v) {
  size_t held = 0;
  Buf j = BUF_INIT;
  if (!vm_to_json(vm, v, &j) || !gc_reserve(vm, j.len)) {
    buf_free(&j);
    return; /* the error stays raised; report_error puts it in the result */
  }
  /* Hosts parse RunResult with ordinary JSON parsers, many of them
   * recursive (Python's json gives up near 1,000 levels): a value deeper
   * than GENO_RESULT_MAX_DEPTH is refused here rather than breaking them. */
  size_t nest = json_nesting(j.data ? j.data : "", j.len);
  if (nest > GENO_RESULT_MAX_DEPTH) {
    gc_charge(vm, -(ptrdiff_t)j.len);
    buf_free(&j);
    vm_raise_fatal(vm, E_RECURSION, NULL,
                   "main's value is nested too deeply to return (its JSON nests %zu levels; at most %d)", nest,
                   GENO_RESULT_MAX_DEPTH);
    return;
  }
  held += j.len;
  rt_result_set_value_json(r, buf_take(&j));
  buf_free(&j);
  if (v.tag != T_UNIT) {
    Buf t = BUF_INIT;
    /* Not a String of the program: max_collection_size does not apply
     * (the reference writes `=> [100000, 200000]` under a limit of 5),
     * the memory budget does (shared sublists can make a small value's
     * text huge). */
    size_t cap = vm->heap_limit ? vm->heap_limit : SIZE_MAX / 8;
    if (!vm_render(vm, v, RENDER_QUOTED, &t, cap, LIMIT_STRING, NULL) || !gc_reserve(vm, t.len)) {
      buf_free(&t);
      gc_charge(vm, -(ptrdiff_t)held);
      return;
    }
    held += t.len;
    r->value_text = buf_take(&t);
    buf_free(&t);
  }
  /* NULL also when main's value nests deeper than GENO_VALUE_MAX_DEPTH
   * (its JSON and text above are still given) */
  bool big = false;
  rt_host_room_start(vm);
  r->value = rt_value_to_host(vm, v, NULL, &big);
  rt_hv_lend(r->value); /* the result owns it (geno_value_free ignores it) */
  if (big && !vm->err.active)
    vm_raise_fatal(vm, E_RESOURCE, NULL, "Memory limit exceeded: main's value needs more than the %zu bytes left",
                   vm->heap_limit > vm->bytes ? vm->heap_limit - vm->bytes : (size_t)0);
  gc_charge(vm, -(ptrdiff_t)held);
}

/* What vm_new takes, from the run's configuration. */
static void vm_limits_from(VmLimits *l, const geno_config *cfg) {
  *l = (VmLimits){
      .timeout_s = cfg->timeout_s,
      .max_steps = cfg->max_steps,
      .max_depth = cfg->max_recursion_depth,
      .max_output = cfg->max_output_length,
      .max_collection = cfg->max_collection_size,
      .max_int_bits = cfg->max_integer_bits,
      .heap_bytes = cfg->memory_bytes,
      .caps = cfg->capabilities_set ? cfg->capabilities : 0,
  };
}

static void vm_host_from(VmHost *h, const geno_config *cfg, const VmOutput *output) {
  *h = (VmHost){
      .builtins = lib_builtin_table(),
      .call = rt_host_call,
      .callbacks = cfg->callbacks,
      .ncallbacks = cfg->ncallbacks,
      .args = cfg->cli_args,
      .nargs = cfg->ncli_args,
  };
  if (output) h->output = *output;
  /* A callback named after a gated builtin that the library implements
   * itself (print, clock_now, regex_match...) replaces it, as in the
   * reference: hosts can capture output or fake the clock. The capability
   * is still checked first. */
  for (size_t i = 0; i < cfg->ncallbacks && h->noverrides < VM_MAX_OVERRIDES; i++) {
    const BuiltinDef *d = cfg->callbacks[i].name ? lib_builtin_find(cfg->callbacks[i].name) : NULL;
    if (d && d->cap && !(d->flags & BF_CALLBACK) && cfg->callbacks[i].fn) {
      bool seen = false;
      for (int k = 0; k < h->noverrides; k++) seen |= h->overrides[k] == d;
      if (!seen) h->overrides[h->noverrides++] = d;
    }
  }
}

geno_result *geno_run(const char *source, size_t len, const char *filename, const geno_config *cfg) {
  return rt_run(source, len, filename, cfg, NULL, false);
}

void rt_prepare_fork(void) { (void)lib_builtin_table(); }

geno_result *rt_run(const char *source, size_t len, const char *filename, const geno_config *cfg,
                    const VmOutput *output, bool exiting) {
  double t0 = rt_now_ms();
  geno_result *r = rt_result_new();
  if (!r) return NULL;
  geno_config adopted; /* the caller's config in this library's layout */
  const char *unreadable = NULL;
  cfg = rt_config_adopt(cfg, &adopted, &unreadable);
  if (!cfg) {
    rt_result_add(r, E_RUNTIME, NULL, unreadable);
    r->timing.total_ms = rt_now_ms() - t0;
    return r;
  }
  char *bad = rt_config_problem(cfg, source, len);
  if (bad) {
    rt_result_add(r, E_RUNTIME, NULL, bad);
    free(bad);
    r->timing.total_ms = rt_now_ms() - t0;
    monitor(cfg, r, "run");
    return r;
  }
  FrontEnd fe;
  rt_frontend_run(&fe, source ? source : "", source ? len : 0, filename, cfg, true);
  r->timing.lex_ms = fe.lex_ms;
  r->timing.parse_ms = fe.parse_ms;
  if (!fe.ok) {
    rt_result_add_diags(r, &fe.diags);
    rt_frontend_free(&fe);
    r->timing.total_ms = rt_now_ms() - t0;
    monitor(cfg, r, "run");
    return r;
  }
  double t1 = rt_now_ms();
  /* The deadline covers loading, parsing and checking too. */
  ChkOptions copts;
  chk_options_init(&copts);
  if (cfg->timeout_s > 0 && isfinite(cfg->timeout_s)) {
    copts.deadline_ms = t0 + cfg->timeout_s * 1000.0;
    copts.timeout_s = cfg->timeout_s;
  }
  bool checked = chk_program(&fe.prog, lib_builtin_table(), &fe.diags, &copts);
  double t2 = rt_now_ms();
  r->timing.typecheck_ms = t2 - t1;
  if (!checked || diag_error_count(&fe.diags) > 0) {
    rt_result_add_diags(r, &fe.diags);
    rt_frontend_free(&fe);
    r->timing.total_ms = rt_now_ms() - t0;
    monitor(cfg, r, "run");
    return r;
  }

  VmLimits limits;
  VmHost host;
  vm_limits_from(&limits, cfg);
  vm_host_from(&host, cfg, output);
  VM *vm = vm_new(&limits, &host);
  if (!vm) {
    /* geno.h promises one monitor call per run, this ending included */
    rt_result_add(r, E_RESOURCE, NULL, "out of memory");
    rt_frontend_free(&fe);
    r->timing.total_ms = rt_now_ms() - t0;
    monitor(cfg, r, cfg->run_tests ? "test" : "run");
    return r;
  }
  vm->prog = &fe.prog;
  DiagList cdiags;
  diag_init(&cdiags);
  Image *img = cg_compile(vm, &fe.prog, &cdiags);
  if (!img) {
    rt_result_add_diags(r, &cdiags);
    if (cdiags.count == 0) rt_result_add(r, E_RESOURCE, NULL, "out of memory while compiling");
  } else {
#ifndef NDEBUG
    /* Debug builds only: a release library reads no environment. */
    if (getenv("GENO_DISASM"))
      for (int i = 0; i < img->nall; i++) vm_disasm(img->all[i], stderr);
#endif
    vm_start_clock(vm);
    if (cfg->run_tests) {
      run_tests(vm, r, cfg);
    } else if (!cfg->check_examples || verify_examples(vm)) {
      if (img->main && !img->app_mode && img->main->nrequired > 0) {
        /* The checker lets `func main(args: List[String])` through, as the
         * reference does; nothing can supply the arguments. */
        vm_raise_fatal(vm, E_RUNTIME, &img->main->span,
                       "main takes %d parameter%s but is called with none: declare `func main() -> ...` "
                       "and read program arguments with cli_args()",
                       img->main->nrequired, img->main->nrequired == 1 ? "" : "s");
        vm->err.ntrace = 0;
      } else if (img->main && !img->app_mode) {
        Value result = v_unit();
        gc_push_root(vm, &result);
        bool ok = vm_call_proto(vm, img->main, NULL, 0, &result);
        if (ok && result.tag == T_ASYNC) ok = vm_await(vm, result, &result);
        if (ok) set_value(r, vm, result);
        gc_pop_roots(vm, 1);
      }
    }
    report_error(r, vm);
    rt_result_set_output(r, vm->out.data ? vm->out.data : "", vm->out.len);
    /* Steps are charged a few at a time (per basic block), so the run that
     * exhausts its budget has counted a little past it; it did no work
     * beyond the limit, and steps_used never exceeds max_steps. */
    r->steps = vm->max_steps && vm->steps > vm->max_steps ? vm->max_steps : vm->steps;
  }
  rt_host_links_end(vm);
  if (!exiting) {
    diag_free(&cdiags);
    vm_free(vm);
    rt_frontend_free(&fe);
  }
  double t3 = rt_now_ms();
  r->timing.run_ms = t3 - t2;
  r->timing.total_ms = t3 - t0;
  monitor(cfg, r, cfg->run_tests ? "test" : "run");
  return r;
}
