/* VM lifecycle (creation from limits and a host, teardown) and the limits
 * that are checked outside the dispatch loop: steps and deadline, integer
 * size, collection size. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gc.h"
#include "render.h"

/* Monotonic: the deadline must not move when the wall clock is adjusted. */
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* The dispatch loop compares the step counter against one number only:
 * the nearer of "one past max_steps" and "time to poll the clock". Both
 * limits therefore cost a single compare per charged instruction. */
static void update_step_check(VM *vm) {
  uint64_t check = UINT64_MAX;
  if (vm->max_steps) check = vm->max_steps + 1;
  if (vm->deadline_ms > 0 && vm->next_poll < check) check = vm->next_poll;
  vm->step_check = check;
}

/* The value stack is reserved at its full size once (16 MB of address
 * space; the OS backs only the pages used), so frames never move and
 * pointers into the stack stay valid across calls. The frame array is
 * sized by max_recursion_depth, capped at VM_HARD_MAX_DEPTH. */
/* Stack bytes kept free below the checked recursion: the deepest unchecked
 * work at the bottom (a builtin with GMP's stack temporaries of up to 64
 * KiB, formatting, a host callback's first frames). */
#define VM_C_STACK_MARGIN ((size_t)256 << 10)

/* The lowest address the VM's recursion may reach on this thread, or NULL
 * when the thread's stack cannot be learnt (then only the depth limits
 * apply). Stacks grow down on every platform geno-c builds for. */
static _Thread_local const char *thread_stack_limit;
static _Thread_local bool thread_stack_known;

static const char *c_stack_limit(void) {
  if (thread_stack_known) return thread_stack_limit;
  thread_stack_known = true;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return NULL;
  void *addr = NULL;
  size_t size = 0;
  int rc = pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0 || !addr || size == 0) return NULL;
  size_t margin = size / 2 < VM_C_STACK_MARGIN ? size / 2 : VM_C_STACK_MARGIN;
  thread_stack_limit = (const char *)addr + margin;
  return thread_stack_limit;
}

void vm_prepare_thread(void) { (void)c_stack_limit(); }

/* The program arguments in one block: the pointer array, then the texts. */
static char **copy_args(const char *const *args, size_t n) {
  size_t bytes = (n + 1) * sizeof(char *);
  for (size_t i = 0; i < n; i++) bytes += strlen(args[i] ? args[i] : "") + 1;
  char **out = malloc(bytes);
  if (!out) return NULL;
  char *text = (char *)(out + n + 1);
  for (size_t i = 0; i < n; i++) {
    const char *a = args[i] ? args[i] : "";
    size_t len = strlen(a) + 1;
    memcpy(text, a, len);
    out[i] = text;
    text += len;
  }
  out[n] = NULL;
  return out;
}

VM *vm_new(const VmLimits *lim, const VmHost *host) {
  VM *vm = calloc(1, sizeof *vm);
  if (!vm) return NULL;
  vm->c_stack_limit = c_stack_limit();
  vm->heap_limit = (size_t)lim->heap_bytes;
  vm->next_gc = vm->heap_limit && vm->heap_limit < GC_MIN_THRESHOLD ? vm->heap_limit : GC_MIN_THRESHOLD;
  vm->stack = malloc(VM_STACK_SLOTS * sizeof(Value));
  uint32_t depth = lim->max_depth ? lim->max_depth : VM_HARD_MAX_DEPTH;
  if (depth > VM_HARD_MAX_DEPTH) depth = VM_HARD_MAX_DEPTH;
  vm->max_depth = (int)depth;
  vm->max_frames = (int)depth + 2;
  vm->frames = malloc((size_t)vm->max_frames * sizeof(Frame));
  vm->roots = malloc(VM_MAX_ROOTS * sizeof(Value *));
  vm->nargs = host->nargs;
  vm->args = copy_args(host->args, host->nargs);
  vm->ncallbacks = host->ncallbacks;
  vm->callbacks = malloc((host->ncallbacks ? host->ncallbacks : 1) * sizeof *vm->callbacks);
  if (!vm->stack || !vm->frames || !vm->roots || !vm->args || !vm->callbacks) {
    free(vm->stack);
    free(vm->frames);
    free(vm->roots);
    free(vm->args);
    free(vm->callbacks);
    free(vm);
    return NULL;
  }
  if (host->ncallbacks) memcpy(vm->callbacks, host->callbacks, host->ncallbacks * sizeof *vm->callbacks);
  vm->stack_end = vm->stack + VM_STACK_SLOTS;
  vm->sp = vm->stack;
  vm->max_steps = lim->max_steps;
  vm->timeout_s = lim->timeout_s;
  vm->max_collection = lim->max_collection;
  vm->max_int_bits = lim->max_int_bits;
  vm->small_int_max = vm->max_int_bits >= 63 ? INT64_MAX : (INT64_C(1) << vm->max_int_bits) - 1;
  vm->max_output = lim->max_output;
  vm->caps = lim->caps;
  vm->builtin_table = host->builtins;
  vm->builtins = host->builtins ? host->builtins->rows : NULL;
  vm->nbuiltins = host->builtins ? host->builtins->count : 0;
  vm->builtin_int_params = host->builtins ? host->builtins->int_params : NULL;
  vm->host_call = host->call;
  vm->output = host->output;
  vm->noverrides = host->noverrides < VM_MAX_OVERRIDES ? host->noverrides : VM_MAX_OVERRIDES;
  for (int i = 0; i < vm->noverrides; i++) vm->overrides[i] = host->overrides[i];
  update_step_check(vm);
  return vm;
}

void vm_start_clock(VM *vm) {
  if (vm->timeout_s > 0 && isfinite(vm->timeout_s)) {
    vm->deadline_ms = now_ms() + vm->timeout_s * 1000.0;
    vm->next_poll = vm->steps + VM_POLL_INTERVAL;
  } else {
    vm->deadline_ms = 0;
  }
  update_step_check(vm);
}

void vm_budget_fresh(VM *vm, VmBudget *saved) {
  *saved = (VmBudget){vm->steps, vm->work_carry, vm->next_poll, vm->out_chars, vm->deadline_ms, vm->discard_output};
  vm->steps = 0;
  vm->work_carry = 0;
  vm->out_chars = 0;
  vm->discard_output = true;
  vm_start_clock(vm); /* a new deadline, or none; recomputes step_check */
}

void vm_budget_restore(VM *vm, const VmBudget *saved) {
  vm->steps = saved->steps;
  vm->work_carry = saved->work_carry;
  vm->next_poll = saved->next_poll;
  vm->out_chars = saved->out_chars;
  vm->deadline_ms = saved->deadline_ms;
  vm->discard_output = saved->discard_output;
  update_step_check(vm);
}

void vm_free(VM *vm) {
  if (!vm) return;
  vm_error_clear(vm);
  gc_free_all(vm);
  img_free(vm->img);
  free(vm->builtin_values);
  free(vm->stack);
  free(vm->frames);
  free(vm->roots);
  free(vm->args);
  free(vm->callbacks);
  free(vm->lent_fns);
  buf_free(&vm->out);
  free(vm);
}

/* ---- limits ------------------------------------------------------------------ */

bool vm_deadline_passed(VM *vm) { return vm->deadline_ms > 0 && now_ms() > vm->deadline_ms; }

/* E501 with the position of the running instruction, like the reference. */
static bool timed_out(VM *vm) {
  char t[32];
  fmt_float(vm->timeout_s, t, sizeof t);
  Span sp = vm->nframes ? vm_frame_span(vm, &vm->frames[vm->nframes - 1]) : (Span){0};
  if (sp.line > 0)
    return vm_raise_fatal(vm, E_TIMEOUT, NULL, "Execution timed out after %s seconds at %s:%d:%d", t,
                          sp.file ? sp.file : "<input>", sp.line, sp.col);
  return vm_raise_fatal(vm, E_TIMEOUT, NULL, "Execution timed out after %s seconds", t);
}

bool vm_raise_timeout(VM *vm) { return timed_out(vm); }

bool vm_alloc_poll(VM *vm) {
  vm->alloc_since_poll = 0;
  if (vm->deadline_ms > 0 && !vm->err.active && now_ms() > vm->deadline_ms) return timed_out(vm);
  return true;
}

bool vm_step_slow(VM *vm) {
  if (vm->deadline_ms > 0 && vm->steps >= vm->next_poll) {
    vm->next_poll = vm->steps + VM_POLL_INTERVAL;
    if (now_ms() > vm->deadline_ms) return timed_out(vm);
  }
  if (vm->max_steps && vm->steps > vm->max_steps) {
    Span sp = vm->nframes ? vm_frame_span(vm, &vm->frames[vm->nframes - 1]) : (Span){0};
    if (sp.line > 0)
      return vm_raise_fatal(vm, E_STEPS, NULL, "Step limit exceeded (%llu steps) at %s:%d:%d",
                            (unsigned long long)vm->max_steps, sp.file ? sp.file : "<input>", sp.line, sp.col);
    return vm_raise_fatal(vm, E_STEPS, NULL, "Step limit exceeded (%llu steps)", (unsigned long long)vm->max_steps);
  }
  update_step_check(vm);
  return true;
}

/* Python's int.bit_length of |z| against max_integer_bits. */
bool vm_check_bits_big(VM *vm, const mpz_t z) {
  size_t bits = mpz_sgn(z) == 0 ? 0 : mpz_sizeinbase(z, 2);
  if (bits > vm->max_int_bits)
    return vm_raise_fatal(vm, E_RESOURCE, NULL, "Integer exceeds maximum size (%zu bits)", bits);
  return true;
}

bool vm_check_collection(VM *vm, const char *kind, size_t n) {
  if (n > vm->max_collection)
    return vm_raise_fatal(vm, E_RESOURCE, NULL, "%s size exceeds limit (%zu > %llu)", kind, n,
                          (unsigned long long)vm->max_collection);
  return true;
}
