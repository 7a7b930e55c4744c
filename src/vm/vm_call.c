/* Calls: entering Geno functions, calling from C (vm_call_value), builtins
 * behind the capability gate, async/await, and unwinding to try/catch
 * handlers (see vm.h for the call model). */
#include <stdio.h>

#include "../base/caps.h"
#include "../check/builtin_table.h"
#include "object.h"
#include "render.h"
#include "vmapi.h"

/* Pushes a frame for p with its arguments already at base[0..nargs-1] and
 * base[-1] the slot that receives the result. Returns 1 when a frame was
 * pushed (the caller continues in it), 2 when the call completed without
 * one (an async call produced its handle in base[-1]), 0 on error. The
 * slow path of every call: defaults (MISSING markers), arity, async and
 * the depth limit. The 16 slots of headroom keep the fast-path checks in
 * vm_exec.c simple (a builtin called from the new frame can use them). */
int vm_enter(VM *vm, const Proto *p, ObjFunc *fn, Value *base, int nargs, bool entry, bool force_sync) {
  if (base + p->nregs + 16 > vm->stack_end || base + nargs + 16 > vm->stack_end) {
    vm_raise_fatal(vm, E_RECURSION, NULL,
                   "Maximum recursion depth exceeded (%d). Check for infinite recursion or increase the limit.",
                   vm->max_depth);
    return 0;
  }
  if (nargs > p->nparams) {
    vm_raise(vm, E_RT_ARITY, NULL, "Expected %d arguments, got %d", p->nparams, nargs);
    return 0;
  }
  if (nargs < p->nrequired) {
    vm_raise(vm, E_RT_ARITY, NULL, "Expected %d arguments, got %d", p->nparams, nargs);
    return 0;
  }
  for (int j = nargs; j < p->nparams; j++) base[j] = v_missing();
  for (int j = 0; j < p->nrequired; j++)
    if (base[j].tag == T_MISSING) {
      vm_raise(vm, E_RT_ARITY, NULL, "Missing argument for parameter '%s'", p->param_names[j]);
      return 0;
    }
  if (p->is_async && !force_sync) {
    /* Calling an async function defers it: the result is an Async value
     * that `await` runs. */
    Value fv;
    if (fn) fv = v_obj((Obj *)fn);
    else if (!vm_fn_value(vm, (Proto *)p, &fv)) return 0;
    Value a;
    if (!obj_async(vm, fv, base, p->nparams, &a)) return 0;
    base[-1] = a;
    return 2;
  }
  if (vm->depth >= vm->max_depth || vm->nframes >= vm->max_frames) {
    vm_raise_fatal(vm, E_RECURSION, NULL,
                   "Maximum recursion depth exceeded (%d). Check for infinite recursion or increase the limit.",
                   vm->max_depth);
    return 0;
  }
  for (int j = p->nparams; j < p->nregs; j++) base[j] = v_unit();
  Frame *f = &vm->frames[vm->nframes++];
  f->p = p;
  f->fn = fn;
  f->ip = p->code;
  f->base = base;
  /* A callee's registers start inside its caller's window (at the call's
   * argument slots), so the caller's dead registers above them must stay
   * covered: top is the highest extent of any active frame. */
  f->top = base + p->nregs > vm->sp ? base + p->nregs : vm->sp;
  f->entry = entry;
  vm->sp = f->top;
  vm->depth++;
  return 1;
}

/* Calls a function from C (builtins' callbacks, examples, tests, main):
 * places the function and arguments at the top of the stack and runs a
 * nested dispatch loop that returns when the entry frame returns. Nesting
 * is bounded separately (VM_MAX_NATIVE_DEPTH) because each level also uses
 * C stack and root-stack space. */
static bool call_impl(VM *vm, const Proto *p, Value fnv, const Value *args, int nargs, Value *out,
                      bool force_sync) {
  if (vm->native_depth >= VM_MAX_NATIVE_DEPTH || vm->nroots + VM_ROOTS_PER_LEVEL > VM_MAX_ROOTS)
    return vm_raise_fatal(vm, E_RECURSION, NULL,
                          "Maximum recursion depth exceeded (%d nested builtin callbacks)", VM_MAX_NATIVE_DEPTH);
  if (vm_c_stack_low(vm))
    return vm_raise_fatal(vm, E_RECURSION, NULL,
                          "Maximum recursion depth exceeded (%d nested builtin callbacks fill the thread's stack)",
                          vm->native_depth);
  Value *slot = vm->sp;
  if (slot + nargs + 16 > vm->stack_end)
    return vm_raise_fatal(vm, E_RECURSION, NULL,
                          "Maximum recursion depth exceeded (%d). Check for infinite recursion or increase the limit.",
                          vm->max_depth);
  Value *saved_sp = vm->sp;
  slot[0] = fnv;
  for (int i = 0; i < nargs; i++) slot[1 + i] = args[i];
  vm->sp = slot + 1 + nargs;
  bool ok;
  if (p) {
    int r = vm_enter(vm, p, fnv.tag == T_FUNC ? AS_FUNC(fnv) : NULL, slot + 1, nargs, true, force_sync);
    if (r == 1) {
      vm->native_depth++;
      ok = vm_execute(vm, vm->nframes - 1);
      vm->native_depth--;
    } else {
      ok = r == 2;
    }
  } else if (fnv.tag == T_BUILTIN) {
    ok = vm_call_builtin(vm, (int)(AS_BUILTIN(fnv)->def - vm->builtins), slot + 1, nargs, slot);
  } else {
    ok = vm_raise(vm, E_RT_NOT_CALLABLE, NULL, "Cannot call non-function: %s", vm_tag_name(fnv.tag));
  }
  if (ok) *out = slot[0];
  vm->sp = saved_sp;
  return ok;
}

bool vm_call_value(VM *vm, Value fn, const Value *args, int nargs, Value *out) {
  const Proto *p = fn.tag == T_FUNC ? AS_FUNC(fn)->proto : NULL;
  return call_impl(vm, p, fn, args, nargs, out, false);
}

bool vm_call_proto(VM *vm, const Proto *p, const Value *args, int nargs, Value *out) {
  return call_impl(vm, p, v_unit(), args, nargs, out, false);
}

/* await runs the deferred call to completion right here (async is
 * sequential in Geno); awaiting a non-Async value yields it unchanged. */
bool vm_await(VM *vm, Value v, Value *out) {
  if (v.tag != T_ASYNC) {
    *out = v;
    return true;
  }
  Value keep = v;
  gc_push_root(vm, &keep);
  ObjAsync *a = AS_ASYNC(keep);
  bool ok = call_impl(vm, AS_FUNC(a->fn)->proto, a->fn, a->args, (int)a->nargs, out, true);
  gc_pop_roots(vm, 1);
  return ok;
}

/* A top-level function used as a value is one permanent closure without
 * upvalues, made on first use and shared afterwards. */
bool vm_fn_value(VM *vm, Proto *p, Value *out) {
  if (!p->fn_value) {
    Value v;
    if (!obj_func(vm, p, 0, true, &v)) return false;
    p->fn_value = v.as.o;
  }
  *out = v_obj(p->fn_value);
  return true;
}

bool vm_builtin_value(VM *vm, int index, Value *out) {
  if (!vm->builtin_values) {
    vm->builtin_values = calloc(vm->nbuiltins ? vm->nbuiltins : 1, sizeof(Obj *));
    if (!vm->builtin_values) return vm_raise_oom(vm);
  }
  if (!vm->builtin_values[index]) {
    ObjBuiltin *b = (ObjBuiltin *)gc_alloc_perm(vm, T_BUILTIN, sizeof(ObjBuiltin));
    if (!b) return false;
    b->def = &vm->builtins[index];
    vm->builtin_values[index] = (Obj *)b;
  }
  *out = v_obj(vm->builtin_values[index]);
  return true;
}

const char *vm_builtin_name(const ObjBuiltin *b) { return b->def->name; }

const BuiltinDef *vm_builtin_self(const VM *vm) { return vm->self; }

/* The capability gate sits here, at call time: a program may mention a
 * gated builtin freely and fails (E412) only if it actually calls it
 * without the capability. Host overrides and callbacks (BF_CALLBACK) go to
 * the host; a row without an implementation is a clean error, not a crash. */
bool vm_builtin_int_args(VM *vm, int index, const Value *args, int nargs) {
  uint32_t mask = vm->builtin_int_params[index];
  for (int i = 0; i < nargs && i < 32; i++)
    if ((mask >> i & 1) && args[i].tag == T_FLOAT)
      return vm_raise(vm, E_RUNTIME, NULL, "'float' object cannot be interpreted as an integer");
  return true;
}

bool vm_call_builtin(VM *vm, int index, Value *args, int nargs, Value *out) {
  const BuiltinDef *d = &vm->builtins[index];
  if (d->cap && !(vm->caps & d->cap))
    return vm_raise(vm, E_CAPABILITY, NULL, "Capability denied: '%s' requires the '%s' capability, which was not granted",
                    d->name, base_cap_name(d->cap) ? base_cap_name(d->cap) : "?");
  if (vm->builtin_int_params[index] && !vm_builtin_int_args(vm, index, args, nargs)) return false;
  for (int i = 0; i < vm->noverrides; i++)
    if (vm->overrides[i] == d) return vm->host_call(vm, d, args, nargs, out);
  if (d->flags & BF_CALLBACK) {
    if (!vm->host_call)
      return vm_raise(vm, E_CALLBACK_MISSING, NULL,
                      "Host callback not provided for '%s'. Provide a callback via the host configuration.", d->name);
    return vm->host_call(vm, d, args, nargs, out);
  }
  if (!d->fn) return vm_raise(vm, E_RUNTIME, NULL, "Builtin '%s' is not available in this build", d->name);
  int roots = vm->nroots;
  *out = v_unit();
  const BuiltinDef *outer = vm->self;
  vm->self = d;
  bool ok = d->fn(vm, args, nargs, out);
  vm->self = outer;
  GENO_ASSERT(vm->nroots == roots);
  if (!ok && !vm->err.active) vm_raise(vm, E_RUNTIME, NULL, "%s failed", d->name);
  return ok;
}

/* The code a rethrown error message stands for: `throw e` of the String a
 * catch block received keeps the original error's code where the message
 * identifies it. */
int vm_code_for_message(const char *msg) {
  if (strncmp(msg, "Division by zero", 16) == 0) return E_DIV_ZERO;
  if (strncmp(msg, "Index ", 6) == 0 && strstr(msg, " out of bounds ")) return E_INDEX;
  if (strncmp(msg, "Key not found:", 14) == 0) return E_KEY;
  return E_RUNTIME;
}

/* ---- unwinding ---------------------------------------------------------------- */

/* The value a handler binds, or false if it does not catch this error. */
static bool handler_catches(VM *vm, const Handler *h, Value *caught) {
  VMError *e = &vm->err;
  if (h->type_id == -1) {
    if (e->thrown) {
      Buf t = BUF_INIT;
      bool ok = vm_render(vm, e->value, RENDER_REPR, &t, SIZE_MAX / 8, LIMIT_STRING, NULL) &&
                obj_string(vm, t.data ? t.data : "", t.len, caught);
      buf_free(&t);
      return ok;
    }
    const char *m = e->msg ? e->msg : "";
    return obj_string(vm, m, strlen(m), caught);
  }
  if (!e->thrown || e->value.tag != T_CTOR) return false;
  if (AS_CTOR(e->value)->info->type_id != h->type_id) return false;
  *caught = e->value;
  return true;
}

/* Error propagation. Handlers of a proto are listed innermost first (a
 * nested try is compiled, and registered, before the try around it), so
 * the first handler whose range covers the failing instruction wins.
 * Fatal errors (limits, contracts) are not catchable and unwind straight
 * through. Unwinding stops at the entry frame of the current dispatch
 * loop; the C caller of that loop propagates further. */
bool vm_unwind(VM *vm, int entry) {
  while (vm->nframes - 1 >= entry && vm->nframes > 0) {
    Frame *f = &vm->frames[vm->nframes - 1];
    if (vm->err.catchable && f->p->nhandlers) {
      uint32_t pc = (uint32_t)(f->ip - f->p->code - 1);
      for (uint32_t k = 0; k < f->p->nhandlers; k++) {
        const Handler *h = &f->p->handlers[k];
        if (pc < h->start || pc >= h->end) continue;
        vm->sp = f->top;
        Value caught = v_unit();
        if (!handler_catches(vm, h, &caught)) {
          if (!vm->err.catchable) break; /* building the value failed (E504) */
          continue;
        }
        f->base[h->reg] = caught;
        f->ip = f->p->code + h->target;
        vm_error_clear(vm);
        return true;
      }
    }
    bool was_entry = f->entry;
    vm->nframes--;
    vm->depth--;
    if (was_entry) break;
  }
  if (vm->nframes > 0) vm->sp = vm->frames[vm->nframes - 1].top;
  return false;
}
