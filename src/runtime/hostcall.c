/* Calls from the host back into the program: function values lent to host
 * callbacks (the handler of http_route) and geno_function_call.
 *
 * A function value that reaches a higher-order host callback as an
 * argument is lent: the VM keeps it as a GC root until the run ends
 * (vm->lent_fns, its handle is the index) and the host's geno_value
 * carries a link to the run (RtCallLink, hostvalue.h) and the handle. A
 * call through the link runs the function in the VM, nested inside the
 * host callback in progress, under a fresh budget (vm_budget_fresh): the
 * reference gives every request of its http_listen its own step count,
 * deadline and output count, and discards what the handler prints. When
 * the run ends, rt_host_links_end cuts the link, so a value the host kept
 * longer fails cleanly. The sandbox's parent makes links of its own that
 * carry the call to its child (src/sandbox/isolate.c). */
#include "hostcall.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "../base/buf.h"
#include "../vm/gc.h"
#include "../vm/vm.h"
#include "hostconv.h"
#include "hostvalue.h"

/* Most distinct functions one run may lend to its host: far above any
 * route table, and a bound on what a program that lends a fresh closure
 * in a loop can pin. */
#define RT_MAX_LENT_FNS ((uint32_t)1 << 20)

/* ---- links ------------------------------------------------------------------ */

RtCallLink *rt_link_new(void) {
  RtCallLink *l = calloc(1, sizeof *l);
  if (l) l->refs = 1;
  return l;
}

void rt_link_retain(RtCallLink *l) {
  if (l) __atomic_add_fetch(&l->refs, 1, __ATOMIC_RELAXED);
}

void rt_link_release(RtCallLink *l) {
  if (l && __atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL) == 0) free(l);
}

geno_value *rt_hv_function(const char *name, RtCallLink *link, uint32_t handle) {
  geno_value *v = rt_hv_alloc(GENO_FUNCTION, 0);
  if (!v) return NULL;
  v->name = strdup(name ? name : "anonymous");
  if (!v->name) {
    rt_hv_free(v);
    return NULL;
  }
  rt_link_retain(link);
  v->link = link;
  v->handle = handle;
  return v;
}

/* ---- the VM's side ------------------------------------------------------------ */

/* What the link of a VM knows: the VM, the thread that runs it, and for
 * each lent function the builtin signature and argument position it was
 * lent through (its parameter types are read from there). */
typedef struct LentInfo {
  const char *sig; /* static (the builtin table) */
  int arg;
} LentInfo;

typedef struct VmLink {
  VM *vm;
  pthread_t thread;
  LentInfo *info; /* parallel to vm->lent_fns */
} VmLink;

/* The i-th parameter type of the function type written as the type of
 * argument `arg` in builtin signature `sig`, copied into out (false when
 * the signature has no such thing). "(m: String, handler: (HttpRequest)
 * -> HttpResponse with http) -> Unit", arg 1, i 0 -> "HttpRequest". */
static bool param_type(const char *sig, int arg, size_t i, char *out, size_t outlen) {
  const char *s = sig + 1; /* after the signature's "(" */
  for (int k = 0; k < arg; k++) { /* skip to argument `arg` */
    int depth = 0;
    for (; *s && !(depth == 0 && *s == ','); s++) depth += (*s == '(' || *s == '[') - (*s == ')' || *s == ']');
    if (!*s) return false;
    s++;
  }
  s = strchr(s, ':');
  if (!s) return false;
  s++;
  while (*s == ' ') s++;
  if (*s != '(') return false;
  s++;
  for (size_t k = 0;; k++) {
    while (*s == ' ') s++;
    const char *start = s;
    int depth = 0;
    for (; *s && !(depth == 0 && (*s == ',' || *s == ')')); s++)
      depth += (*s == '(' || *s == '[') - (*s == ')' || *s == ']');
    if (!*s || s == start) return false;
    if (k == i) {
      size_t n = (size_t)(s - start);
      if (n + 8 > outlen) return false;
      snprintf(out, outlen, "() -> %.*s", (int)n, start);
      return true;
    }
    if (*s == ')') return false;
    s++;
  }
}

/* "E400: Division by zero (at Main.geno:3:12)" for the error in vm. */
static char *error_text(VM *vm) {
  Buf b = BUF_INIT;
  buf_printf(&b, "E%03d: %s", vm->err.code, vm->err.msg ? vm->err.msg : "error");
  if (vm->err.span.line > 0 && !strstr(vm->err.msg ? vm->err.msg : "", " at "))
    buf_printf(&b, " (at %s:%d:%d)", vm->err.span.file ? vm->err.span.file : "<input>", vm->err.span.line,
               vm->err.span.col);
  return b.failed ? (buf_free(&b), strdup("out of memory")) : buf_take(&b);
}

static geno_value *vm_link_call(RtCallLink *link, uint32_t handle, const geno_value *const *args, size_t nargs,
                                char **error) {
  VmLink *vl = link->ctx;
  VM *vm = vl ? vl->vm : NULL;
  if (!vm) {
    *error = strdup("the program's run has ended");
    return NULL;
  }
  if (!pthread_equal(vl->thread, pthread_self()) || vm->host_depth == 0) {
    *error = strdup("a program's function can be called only from one of its run's host callbacks, on its thread");
    return NULL;
  }
  if (handle >= vm->nlent_fns) {
    *error = strdup("no such function in this run");
    return NULL;
  }
  if (nargs > 16) {
    *error = strdup("too many arguments");
    return NULL;
  }
  const LentInfo *li = &vl->info[handle];
  for (size_t i = 0; i < nargs; i++) {
    char ty[256], why[200];
    if (!param_type(li->sig, li->arg, i, ty, sizeof ty)) {
      *error = strdup("the function takes fewer arguments");
      return NULL;
    }
    if (!rt_host_result_conforms(ty, args[i], why, sizeof why)) {
      Buf b = BUF_INIT;
      buf_printf(&b, "argument %zu has the wrong type: %s", i + 1, why);
      *error = b.failed ? (buf_free(&b), strdup("argument of the wrong type")) : buf_take(&b);
      return NULL;
    }
  }
  char ty[256];
  if (param_type(li->sig, li->arg, nargs, ty, sizeof ty)) {
    *error = strdup("the function takes more arguments");
    return NULL;
  }
  /* A VM error in flight belongs to the callback's caller: none can be,
   * since the callback runs between instructions. */
  VmBudget saved;
  vm_budget_fresh(vm, &saved);
  Value argv[16], result = v_unit();
  int pinned = 0;
  bool ok = true;
  for (size_t i = 0; i < nargs && ok; i++) {
    argv[i] = v_unit();
    gc_push_root(vm, &argv[i]);
    pinned++;
    ok = rt_value_from_host(vm, args[i], &argv[i]);
  }
  gc_push_root(vm, &result);
  pinned++;
  if (ok) ok = vm_call_value(vm, vm->lent_fns[handle], argv, (int)nargs, &result);
  if (ok && result.tag == T_ASYNC) ok = vm_await(vm, result, &result);
  geno_value *out = NULL;
  if (ok) {
    bool deep = false, big = false;
    rt_host_room_start(vm);
    out = rt_value_to_host(vm, result, &deep, &big);
    if (!out && !vm->err.active)
      *error = strdup(deep ? "the function's result is nested too deeply to pass to the host"
                           : "the function's result is too large to pass to the host");
  }
  if (!out && vm->err.active) *error = error_text(vm);
  else if (!out && !*error) *error = strdup("out of memory");
  vm_error_clear(vm);
  gc_pop_roots(vm, pinned);
  vm_budget_restore(vm, &saved);
  return out;
}

/* The VM's link, made on first use. */
static RtCallLink *vm_link(VM *vm) {
  if (vm->host_link) return vm->host_link;
  RtCallLink *l = rt_link_new();
  VmLink *vl = calloc(1, sizeof *vl);
  if (!l || !vl) {
    free(l);
    free(vl);
    return NULL;
  }
  vl->vm = vm;
  vl->thread = pthread_self();
  l->ctx = vl;
  l->call = vm_link_call;
  vm->host_link = l;
  return l;
}

bool rt_host_lend(VM *vm, Value fn, const char *sig, int arg, geno_value *hv) {
  RtCallLink *l = vm_link(vm);
  if (!l) return vm_raise_oom(vm);
  VmLink *vl = l->ctx;
  uint32_t h = 0;
  while (h < vm->nlent_fns && !(vm->lent_fns[h].tag == fn.tag && vm->lent_fns[h].as.o == fn.as.o &&
                                vl->info[h].sig == sig && vl->info[h].arg == arg))
    h++;
  if (h == vm->nlent_fns) {
    if (vm->nlent_fns == RT_MAX_LENT_FNS)
      return vm_raise_fatal(vm, E_RESOURCE, NULL, "Functions lent to the host size exceeds limit (%u)",
                            (unsigned)RT_MAX_LENT_FNS);
    if (vm->nlent_fns == vm->lent_cap) {
      uint32_t cap = vm->lent_cap ? vm->lent_cap * 2 : 8;
      Value *fns = realloc(vm->lent_fns, cap * sizeof *fns);
      if (fns) vm->lent_fns = fns;
      LentInfo *info = realloc(vl->info, cap * sizeof *info);
      if (info) vl->info = info;
      if (!fns || !info) return vm_raise_oom(vm);
      vm->lent_cap = cap;
    }
    vm->lent_fns[h] = fn;
    vl->info[h] = (LentInfo){sig, arg};
    vm->nlent_fns++;
  }
  rt_link_retain(l);
  hv->link = l;
  hv->handle = h;
  return true;
}

void rt_host_links_end(VM *vm) {
  RtCallLink *l = vm->host_link;
  if (!l) return;
  VmLink *vl = l->ctx;
  l->call = NULL;
  l->ctx = NULL;
  if (vl) free(vl->info);
  free(vl);
  vm->host_link = NULL;
  rt_link_release(l);
}

/* ---- the public entry points ----------------------------------------------------- */

geno_value *geno_function_call(const geno_value *fn, const geno_value *const *args, size_t nargs, char **error) {
  char *dummy = NULL;
  if (!error) error = &dummy;
  *error = NULL;
  geno_value *r = NULL;
  if (!fn || fn->kind != GENO_FUNCTION || !fn->link) {
    *error = strdup("not a function a host callback received");
  } else if (nargs && !args) {
    *error = strdup("args is NULL");
  } else if (!fn->link->call) {
    *error = strdup("the program's run has ended");
  } else {
    for (size_t i = 0; i < nargs; i++)
      if (!args[i]) {
        *error = strdup("an argument is NULL");
        break;
      }
    if (!*error) r = fn->link->call(fn->link, fn->handle, args, nargs, error);
  }
  if (!r && !*error) *error = strdup("the call failed");
  free(dummy);
  return r;
}

bool geno_function_callable(const geno_value *fn) {
  if (!fn || fn->kind != GENO_FUNCTION || !fn->link || !fn->link->call) return false;
  return fn->link->alive ? fn->link->alive(fn->link) : true;
}
