/* Raising runtime errors: message, code, location and the Geno call stack
 * at the point of the error (see vm.h: VMError). */
#include <stdarg.h>
#include <stdio.h>

#include "render.h"

Span vm_frame_span(const VM *vm, const Frame *f) {
  Span sp = {0};
  if (!f || !f->p || !f->ip || f->p->ncode == 0) return sp;
  ptrdiff_t pc = f->ip - f->p->code - 1;
  if (pc < 0) pc = 0;
  if ((size_t)pc >= f->p->ncode) pc = (ptrdiff_t)f->p->ncode - 1;
  sp.file = f->p->file;
  sp.line = f->p->lines[pc].line;
  sp.col = f->p->lines[pc].col;
  return sp;
}

void vm_error_clear(VM *vm) {
  free(vm->err.msg);
  free(vm->err.trace);
  memset(&vm->err, 0, sizeof vm->err);
  vm->err.value = v_unit();
}

/* Frames kept at each end of a long call stack; the middle is replaced by
 * one "... N more" line, so a deep recursion does not produce a report of
 * thousands of lines. */
#define TRACE_KEEP 20

static void trace_line(VM *vm, int k) {
  Frame *f = &vm->frames[k];
  TraceLine *t = &vm->err.trace[vm->err.ntrace++];
  t->name = f->p->name ? f->p->name : "<anonymous>";
  /* The outermost frame shows its definition; the others where they were
   * called from (for a callback, the builtin call that ran it). */
  if (k == 0) t->span = f->p->span;
  else t->span = vm_frame_span(vm, &vm->frames[k - 1]);
}

/* The call stack, outermost first. */
static void capture_trace(VM *vm) {
  int n = vm->nframes;
  int cap = n > 2 * TRACE_KEEP ? 2 * TRACE_KEEP + 1 : n;
  vm->err.trace = cap ? calloc((size_t)cap, sizeof(TraceLine)) : NULL;
  vm->err.ntrace = 0;
  if (!vm->err.trace) return;
  if (n <= 2 * TRACE_KEEP) {
    for (int k = 0; k < n; k++) trace_line(vm, k);
    return;
  }
  for (int k = 0; k < TRACE_KEEP; k++) trace_line(vm, k);
  TraceLine *gap = &vm->err.trace[vm->err.ntrace++];
  gap->name = "...";
  memset(&gap->span, 0, sizeof gap->span);
  vm->err.omitted = n - 2 * TRACE_KEEP;
  for (int k = n - TRACE_KEEP; k < n; k++) trace_line(vm, k);
}

static bool raise_common(VM *vm, int code, const Span *span, bool catchable, const char *fmt, va_list ap) {
  vm_error_clear(vm);
  vm->err.active = true;
  vm->err.code = code;
  vm->err.catchable = catchable;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  if (n < 0) n = 0;
  vm->err.msg = malloc((size_t)n + 1);
  if (vm->err.msg) vsnprintf(vm->err.msg, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  if (span) vm->err.span = *span;
  else if (vm->nframes) vm->err.span = vm_frame_span(vm, &vm->frames[vm->nframes - 1]);
  capture_trace(vm);
  return false;
}

bool vm_vraise(VM *vm, int code, const Span *span, const char *fmt, va_list ap) {
  bool limit = code >= 500 || code == E_PRECONDITION || code == E_POSTCONDITION;
  return raise_common(vm, code, span, !limit, fmt, ap);
}

bool vm_raise(VM *vm, int code, const Span *span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vm_vraise(vm, code, span, fmt, ap);
  va_end(ap);
  return false;
}

bool vm_raise_fatal(VM *vm, int code, const Span *span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  raise_common(vm, code, span, false, fmt, ap);
  va_end(ap);
  return false;
}

/* The builtin the innermost frame is calling (its current instruction is
 * a CALLB or CALLBO; a builtin's callback into Geno code has a frame of
 * its own), or NULL when Geno code itself is allocating. */
static const char *allocating_builtin(const VM *vm) {
  if (vm->nframes <= 0) return NULL;
  const Frame *f = &vm->frames[vm->nframes - 1];
  if (!f->p || !f->ip || f->p->ncode == 0) return NULL;
  ptrdiff_t pc = f->ip - f->p->code - 1;
  if (pc < 0 || (size_t)pc >= f->p->ncode) return NULL;
  const Insn *in = &f->p->code[pc];
  if ((in->op != BC_CALLB && in->op != BC_CALLBO) || in->c >= vm->nbuiltins) return NULL;
  return vm->builtins[in->c].name;
}

bool vm_raise_oom(VM *vm) {
  if (vm->err.active && vm->err.code == E_RESOURCE) return false;
  const char *op = allocating_builtin(vm);
  if (vm->heap_limit)
    return vm_raise_fatal(vm, E_RESOURCE, NULL, "Memory limit exceeded%s%s: %zu bytes in use; the budget (memory_bytes) is %zu bytes",
                          op ? " in " : "", op ? op : "", vm->bytes, vm->heap_limit);
  return vm_raise_fatal(vm, E_RESOURCE, NULL, "Out of memory%s%s: %zu bytes in use", op ? " in " : "", op ? op : "",
                        vm->bytes);
}

bool vm_raise_oom_need(VM *vm, size_t need) {
  if (vm->err.active && vm->err.code == E_RESOURCE) return false;
  const char *op = allocating_builtin(vm);
  if (!op) op = "the program";
  /* past the budget, or within 1/16 of it after a full collection (gc.c) */
  if (vm->heap_limit && need <= SIZE_MAX - vm->bytes && vm->bytes + need > vm->heap_limit - vm->heap_limit / 16)
    return vm_raise_fatal(vm, E_RESOURCE, NULL,
                          "Memory limit exceeded: %s asked for %zu more bytes with %zu in use; the budget (memory_bytes) "
                          "is %zu bytes",
                          op, need, vm->bytes, vm->heap_limit);
  return vm_raise_fatal(vm, E_RESOURCE, NULL,
                        "Out of memory: %s asked for %zu more bytes with %zu in use, and the system refused them", op,
                        need, vm->bytes);
}

bool vm_raise_throw(VM *vm, Value v, const Span *span) {
  /* The message is the reference's: "Uncaught throw: " + the value's
   * Python-style repr (what `catch e: String` would bind). */
  Buf text = BUF_INIT;
  bool ok = vm_render(vm, v, RENDER_REPR, &text, SIZE_MAX / 8, LIMIT_STRING, NULL);
  if (!ok) return false;
  vm_raise(vm, E_RUNTIME, span, "Uncaught throw: %s", text.data ? text.data : "");
  buf_free(&text);
  vm->err.thrown = true;
  vm->err.value = v;
  return false;
}
