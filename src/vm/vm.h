/* The VM's internal state and the functions shared by src/vm files.
 * Builtins do not include this header; they use vmapi.h.
 *
 * Call model: a frame's registers are a window of the value stack. A call
 * instruction puts the callee (or a placeholder) in R[a] and the arguments
 * in R[a+1..]; the callee's registers start at R[a+1], and RET stores the
 * result into the slot just below the callee's base (the caller's R[a]).
 * C code calls Geno code through vm_call, which runs a nested dispatch
 * loop; errors travel back as `false` returns with vm->err set (no
 * longjmp), and try/catch is a per-function handler table searched while
 * unwinding. */
#ifndef GENO_VM_VM_H
#define GENO_VM_VM_H

#include <geno.h>

#include "../base/buf.h"
#include "../check/builtin_table.h"
#include "chunk.h"
#include "value.h"

/* ---- what a VM is made from --------------------------------------------------
 * src/runtime builds these from a geno_config and passes them to vm_new,
 * which copies what it keeps: a VM holds no pointer to its maker's
 * structures or stack. */

/* The limits of one run (include/geno.h gives their meaning). */
typedef struct VmLimits {
  double timeout_s;          /* 0 = no deadline */
  uint64_t max_steps;        /* 0 = unlimited */
  uint32_t max_depth;        /* nested Geno calls; 0 = VM_HARD_MAX_DEPTH */
  uint64_t max_output;       /* code points of output; 0 = none allowed */
  uint64_t max_collection;   /* elements / code points; 0 = only empty ones */
  uint32_t max_int_bits;     /* >= 1 (the runtime refuses 0) */
  uint64_t heap_bytes;       /* the GC-counted heap; 0 = no limit */
  unsigned caps;             /* granted GENO_CAP_* bits */
} VmLimits;

/* Where output goes as it is produced, instead of the VM's own buffer (a
 * sandbox child writes it into memory its parent reads, so that it
 * survives a kill). */
typedef struct VmOutput {
  /* Takes a piece of output: valid UTF-8, never split inside a character,
   * already within max_output. False when it has no room left (nothing
   * taken): the run ends with E505. */
  bool (*write)(void *ud, const char *text, size_t len);
  void *ud;
  size_t capacity; /* bytes it can take in all (for the E505 message) */
} VmOutput;

struct VM;
/* Carries out a BF_CALLBACK builtin, or one the host overrides, for the
 * program: like a BuiltinFn, with the row being called. */
typedef bool (*VmHostCall)(struct VM *vm, const BuiltinDef *def, Value *args, int nargs, Value *out);

/* How the VM reaches its host. */
#define VM_MAX_OVERRIDES 8
typedef struct VmHost {
  const BuiltinTable *builtins; /* static storage (src/lib's table) */
  VmHostCall call;              /* NULL: callbacks fail with E413 */
  /* The host's callbacks, read back by `call` through vm_host_callbacks.
   * The array is copied; names and userdata stay the host's, valid for
   * the run (geno.h: the config is borrowed during the call). */
  const geno_callback *callbacks;
  size_t ncallbacks;
  /* Gated builtins the library implements that the host replaced with its
   * own callback (print captured by the host...): copied, at most
   * VM_MAX_OVERRIDES. */
  const BuiltinDef *overrides[VM_MAX_OVERRIDES];
  int noverrides;
  VmOutput output;              /* write NULL: kept in the VM's buffer */
  const char *const *args;      /* what cli_args() returns; copied */
  size_t nargs;
} VmHost;

/* Value stack slots. The stack is one malloc'd block (untouched pages cost
 * nothing); 1M slots (16 MiB) hold 500 frames of 2,000 registers. Running
 * out is reported as E502 like deep recursion. */
#define VM_STACK_SLOTS ((size_t)1 << 20)
/* Hard cap on nested Geno calls when max_recursion_depth is 0 (geno.h). */
#define VM_HARD_MAX_DEPTH 10000
/* Nested dispatch loops (a builtin such as `map` calling back into Geno,
 * which calls `map` again...). Each costs a few hundred bytes of C stack;
 * 2,000 keeps a default 8 MiB thread stack far from overflow. */
#define VM_MAX_NATIVE_DEPTH 2000
/* Pinned C temporaries (vm_push_root). A builtin pins a handful at most,
 * but may hold them while it calls back into Geno, so the stack has room
 * for ROOTS_PER_LEVEL at every native nesting level; call_impl refuses to
 * nest further when less than that is left. */
#define VM_ROOTS_PER_LEVEL 16
#define VM_MAX_ROOTS (VM_ROOTS_PER_LEVEL * (VM_MAX_NATIVE_DEPTH + 4))
/* Steps between two deadline polls: reading the clock every 4,096 steps
 * keeps the overshoot past a deadline under a millisecond. */
#define VM_POLL_INTERVAL 4096
/* Bytes allocated between two deadline polls made by the allocator. One
 * step may do O(size) work that allocates (copying a long string or
 * list); polling by volume too bounds the overshoot by ~8 MB of copying
 * (a few milliseconds) however much each step does. */
#define VM_ALLOC_POLL_BYTES ((size_t)8 << 20)

/* Small-object pools (gc.c): blocks of up to POOL_CLASSES * POOL_GRAIN
 * bytes, in POOL_GRAIN steps; 256 bytes covers every fixed-size object and
 * short strings, lists and tuples. */
#define POOL_GRAIN 16
#define POOL_CLASSES 17
#define POOL_CHUNK_BYTES ((size_t)64 << 10)

typedef struct PoolBlock {
  struct PoolBlock *next;
} PoolBlock;

typedef struct PoolChunk {
  struct PoolChunk *next;
  max_align_t pad[1];
} PoolChunk;

typedef struct Frame {
  const Proto *p;
  ObjFunc *fn;     /* the closure (upvalues), or NULL for top-level functions */
  const Insn *ip;  /* next instruction (saved while this frame calls out) */
  Value *base;     /* R[0] */
  Value *top;      /* max(base + p->nregs, the caller's top): every slot
                      below it is live or at least initialised, and is a
                      GC root while this frame runs */
  bool entry;      /* entered from C (vm_call): returning leaves the loop */
} Frame;

/* One line of an error's call stack: a function and where it was entered. */
typedef struct TraceLine {
  const char *name;
  Span span;
} TraceLine;

typedef struct VMError {
  bool active;
  int code;           /* E400 ... */
  char *msg;          /* malloc'd */
  Span span;          /* line 0 = no location */
  bool catchable;     /* false for limits and contract violations */
  bool thrown;        /* a `throw` of a constructor value */
  Value value;        /* the thrown value (rooted) */
  TraceLine *trace;   /* malloc'd, outermost first; a "..." line stands
                         for `omitted` frames of a very deep stack */
  int ntrace;
  int omitted;
} VMError;

typedef struct VM {
  /* heap */
  Obj *objects;          /* every collectable object */
  Obj *perm;             /* image constants: never swept */
  size_t bytes;          /* bytes of live + not yet collected objects */
  size_t next_gc;        /* collect when bytes exceeds this */
  size_t heap_limit;     /* E504 when live bytes exceed it (0 = none) */
  size_t collections;    /* full collections so far (tests read it) */
  Obj **gray;            /* mark stack */
  size_t ngray, graycap;
  bool gray_overflow;    /* the mark stack could not grow: rescan (gc.c) */
  Value **roots;         /* pinned C temporaries (VM_MAX_ROOTS slots) */
  int nroots;
  bool gc_running;
  PoolBlock *pool_free[POOL_CLASSES]; /* free blocks by size class */
  PoolChunk *pool_chunks;             /* every chunk, for teardown */
  char *pool_cursor;                  /* unused tail of the newest chunk */
  size_t pool_left;

  /* stacks */
  Value *stack;
  Value *stack_end;
  Value *sp;             /* first free slot: every slot below is a GC root */
  Frame *frames;
  int nframes;
  int max_frames;
  int depth;             /* active Geno calls (E502 past max_depth) */
  int max_depth;
  int native_depth;      /* nested dispatch loops */
  const char *c_stack_limit; /* lowest safe C stack address (vm_c_stack_low) */
  bool host_too_deep;    /* the last conversion to a host value hit GENO_VALUE_MAX_DEPTH */
  bool host_too_big;     /* ... or would have passed the memory budget (host_room) */
  size_t host_room;      /* bytes the conversion in progress may still allocate */
  /* The result slot of the CALLBO in progress, or NULL. vm_some(v, out)
   * with out == opt_out stores v itself there instead of allocating a
   * Some, and clears opt_out to say so: the match that follows only needs
   * the payload (see CALLBO in vm_exec.c). It is a register, so the
   * payload stays rooted. */
  Value *opt_out;

  /* program */
  Image *img;
  struct Program *prog;  /* front end (names, for interning) */
  const BuiltinTable *builtin_table; /* VmHost.builtins; the next three are its fields */
  const BuiltinDef *builtins; /* sorted by name */
  size_t nbuiltins;
  const uint32_t *builtin_int_params; /* its int_params */
  const BuiltinDef *self; /* the row of the builtin being called (vm_builtin_self) */
  Obj **builtin_values;  /* cached builtin function values, by index */

  /* limits */
  uint64_t steps;
  uint64_t max_steps;    /* 0 = unlimited */
  uint64_t step_check;   /* next step count at which vm_step_slow runs */
  uint64_t work_carry;   /* builtin work units not yet turned into steps */
  uint64_t next_poll;    /* next deadline poll */
  size_t alloc_since_poll; /* bytes allocated since the allocator last polled */
  double deadline_ms;    /* monotonic ms; 0 = none */
  double timeout_s;
  uint64_t max_collection;
  uint32_t max_int_bits;
  int64_t small_int_max; /* largest small Int within max_int_bits */
  uint64_t max_output;
  uint64_t out_chars;    /* code points written so far */

  /* Where the last code-point lookup in a non-ASCII string ended, so a
   * loop reading s[i], s[i+1], ... scans forward from there instead of
   * from the start each time (linear, not quadratic). Cleared when that
   * string is freed (its address may be reused). */
  const struct ObjString *scur_str;
  size_t scur_cp, scur_off;

  /* host (VmHost, copied by vm_new) */
  unsigned caps;          /* granted capabilities */
  bool discard_output;    /* example verification: print writes nothing */
  Buf out;                /* program output (when no VmOutput takes it) */
  VmOutput output;
  VmHostCall host_call;
  geno_callback *callbacks; /* malloc'd copy of the array */
  size_t ncallbacks;
  const BuiltinDef *overrides[VM_MAX_OVERRIDES];
  int noverrides;
  char **args;            /* cli_args: one malloc'd block */
  size_t nargs;

  /* Function values lent to the host (a route handler given to
   * http_route): the host calls them back later, so they stay GC roots
   * until the run ends (src/runtime/hostcall.c). */
  Value *lent_fns;
  uint32_t nlent_fns, lent_cap;
  void *host_link;        /* the runtime's RtCallLink for this VM, or NULL */
  int host_depth;         /* host callbacks in progress */

  /* errors */
  VMError err;
  const char *phase_name; /* for messages: NULL, "example", "test" */
} VM;

/* ---- lifecycle (vm_state.c) ---------------------------------------------- */

/* [m] A VM with these limits and host. Both are copied (with the
 * callback array and the program arguments); host->builtins must be
 * static. NULL when out of memory. */
VM *vm_new(const VmLimits *limits, const VmHost *host) GENO_MUST_CHECK;
void vm_free(VM *vm);

/* ---- errors (vm_error.c) ------------------------------------------------ */

/* Raise a runtime error (catchable unless it is a limit). Always returns
 * false so callers can `return vm_raise(...)`. The span defaults to the
 * current instruction's position when `span` is NULL. */
bool vm_raise(VM *vm, int code, const Span *span, const char *fmt, ...) GENO_PRINTF(4, 5);
bool vm_vraise(VM *vm, int code, const Span *span, const char *fmt, va_list ap);
/* A limit or contract violation: never caught by try/catch. */
bool vm_raise_fatal(VM *vm, int code, const Span *span, const char *fmt, ...) GENO_PRINTF(4, 5);
/* `throw v` of a constructor value. */
bool vm_raise_throw(VM *vm, Value v, const Span *span);
void vm_error_clear(VM *vm);
/* Out of memory / heap limit (E504, fatal). */
bool vm_raise_oom(VM *vm);
/* The same for a request of `need` more bytes: the message names the
 * operation (the builtin the innermost frame is calling, else "the
 * program"), the bytes asked for, the bytes in use and the budget
 * (memory_bytes), or says that the system refused them. */
bool vm_raise_oom_need(VM *vm, size_t need);
/* Span of the instruction frame f is executing. */
Span vm_frame_span(const VM *vm, const Frame *f);

/* ---- limits (vm_state.c) ------------------------------------------------ */

/* Start the wall-clock deadline (timeout_s from now). */
void vm_start_clock(VM *vm);
/* End the run with E501 as the deadline does (same message, position of
 * the running instruction), whatever the clock says: for a host that
 * stopped waiting because its copy of the deadline passed. Returns false. */
bool vm_raise_timeout(VM *vm);
bool vm_deadline_passed(VM *vm);

/* Called when steps reach step_check: polls the deadline, enforces
 * max_steps. False with an error raised. */
bool vm_step_slow(VM *vm);
/* Called by the allocator every VM_ALLOC_POLL_BYTES: E501 when the
 * deadline has passed (not while an error is already being raised). */
bool vm_alloc_poll(VM *vm);
/* The budget of one call made by the host into the program (a request
 * to an HTTP route): steps from 0, a fresh deadline, output counted from
 * 0 and discarded, as the reference's http_listen charges each handler.
 * vm_budget_fresh saves the run's budget into *saved and starts the
 * fresh one; vm_budget_restore puts the run's back. */
typedef struct VmBudget {
  uint64_t steps, work_carry, next_poll, out_chars;
  double deadline_ms;
  bool discard_output;
} VmBudget;
void vm_budget_fresh(VM *vm, VmBudget *saved);
void vm_budget_restore(VM *vm, const VmBudget *saved);
/* Integer-size and collection-size checks (E504). */
bool vm_check_bits_big(VM *vm, const mpz_t z);
bool vm_check_collection(VM *vm, const char *kind, size_t n);

/* ---- execution (vm_exec.c, vm_call.c) ----------------------------------- */

/* Run frames until the entry frame at index `entry` returns. */
bool vm_execute(VM *vm, int entry);
/* Push a frame for p with arguments at base[0..nargs) (result goes to
 * base[-1]). Returns 1 when a frame was pushed, 2 when the result was
 * produced at once (an async call), 0 on error. */
int vm_enter(VM *vm, const Proto *p, ObjFunc *fn, Value *base, int nargs, bool entry, bool force_sync);
/* After an error: pop frames down to `entry` looking for a try/catch that
 * takes it. True when one did (its frame is now on top, ip at the handler). */
bool vm_unwind(VM *vm, int entry);
/* Error code the reference derives from a message (E400/E401/E402/E499). */
int vm_code_for_message(const char *msg);
/* Call a function value with arguments (copied first); result in *out
 * (which must be a rooted slot or a C local the caller roots after). */
bool vm_call_value(VM *vm, Value fn, const Value *args, int nargs, Value *out) GENO_MUST_CHECK;
/* Call a top-level function prototype directly. */
bool vm_call_proto(VM *vm, const Proto *p, const Value *args, int nargs, Value *out) GENO_MUST_CHECK;
/* Invoke builtin number `index` on args (rooted); gate by capability. */
bool vm_call_builtin(VM *vm, int index, Value *args, int nargs, Value *out) GENO_MUST_CHECK;
/* Raise "'float' object cannot be interpreted as an integer" when an
 * argument the builtin declares `Int` is a Float (`Int ** negative Int` is
 * typed Int but is a Float at run time, as in the reference); the library
 * code behind an Int parameter can then rely on an Int. */
bool vm_builtin_int_args(VM *vm, int index, const Value *args, int nargs);
/* Run an async value synchronously (await). Non-async values are returned. */
bool vm_await(VM *vm, Value v, Value *out) GENO_MUST_CHECK;
/* The function value of top-level proto p (allocated once). */
bool vm_fn_value(VM *vm, Proto *p, Value *out);
bool vm_builtin_value(VM *vm, int index, Value *out);
const char *vm_builtin_name(const ObjBuiltin *b);

/* ---- values used by the loop (vm_ops.c) ----------------------------------- */

bool vm_arith(VM *vm, int op, Value a, Value b, Value *out);
bool vm_unary(VM *vm, int op, Value a, Value *out);
/* a < b (lt) or a <= b (!lt) for numbers and strings. */
bool vm_less(VM *vm, Value a, Value b, bool or_equal, bool *out);
bool vm_index(VM *vm, Value target, Value index, Value *out);
bool vm_set_index(VM *vm, Value *target, Value index, Value v);
bool vm_get_field(VM *vm, Value target, const char *name, Value *out);
bool vm_to_string_value(VM *vm, Value v, Value *out);
bool vm_concat(VM *vm, Value a, Value b, Value *out);
bool vm_concat_n(VM *vm, const Value *parts, int n, Value *out);
/* Python truthiness (conditions on non-Bool values in unchecked code). */
bool vm_truthy(Value v);

/* The C stack of the thread running the VM is nearly used up: the
 * recursive algorithms (comparison, rendering, JSON, host conversion) and
 * nested builtin callbacks stop with E502 here, whatever the thread's stack
 * size, rather than overflow it. The limit is set by vm_new from the
 * calling thread's stack bounds, with a margin for the deepest call made
 * without a check (a builtin, GMP, the C library). */
/* Learn the calling thread's stack bounds now (vm_new does it on first
 * use): glibc reads /proc for the main thread, which a sandbox child may
 * not once its filter is on. A forked child inherits what its parent's
 * thread learnt, for the same addresses. */
void vm_prepare_thread(void);

static inline bool vm_c_stack_low(const VM *vm) {
  return vm->c_stack_limit && (const char *)__builtin_frame_address(0) < vm->c_stack_limit;
}

#endif
