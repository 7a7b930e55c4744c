/* vmapi.h -- the interface between builtin implementations (src/lib/ files)
 * and the VM. A builtin includes this header and nothing else from
 * src/vm; it never sees frames, bytecode or the collector's internals.
 *
 * A builtin has the BuiltinFn signature (src/check/builtin_table.h):
 *
 *   static bool lib_append(VM *vm, Value *args, int nargs, Value *out);
 *
 *  - args[0..nargs) are the evaluated arguments, already type-checked by
 *    the checker (a builtin may still check tags defensively). nargs is the
 *    number actually passed (optional parameters may be absent; an absent
 *    middle parameter arrives as a T_MISSING value).
 *  - *out is a GC-rooted slot, initialised to (). Store the result there;
 *    storing a new object into *out right after creating it keeps it alive
 *    while you build it.
 *  - Return true on success. On failure return false after raising an
 *    error with vm_error (catchable by `catch e: String`) or one of the
 *    limit functions; every vmapi function that can fail has already
 *    raised its error when it returns false, so just propagate it.
 *
 * Garbage collection: any function here that creates a value may run the
 * collector. Values in args, in *out, and inside rooted containers are
 * safe. A Value held only in a C local across such a call must be pinned:
 *
 *   Value acc = v_unit();
 *   vm_push_root(vm, &acc);
 *   ... calls that allocate ...
 *   vm_pop_roots(vm, 1);      (pushes and pops must balance: the VM
 *                              asserts it after every builtin call)
 *
 * Limits: a builtin that loops over data calls vm_charge(vm, n) now and
 * then with the amount of work done (elements, bytes): it is charged to
 * the step budget at a reduced rate and polls the deadline, so a single
 * call cannot run unbounded. Sizes of new collections are checked by the
 * constructors here (E504); check a precomputed size first with
 * vm_check_size to fail before doing the work. */
#ifndef GENO_VM_VMAPI_H
#define GENO_VM_VMAPI_H

#include <stdarg.h>

#include "../base/buf.h"
#include "../check/builtin_table.h"
#include "value.h"

typedef struct VM VM;

/* Error codes (src/base/diag.h): E_RUNTIME (E499) for ordinary builtin
 * failures, E_DIV_ZERO (E400), E_INDEX (E401), E_KEY (E402). */
#include "../base/diag.h"

/* Functions marked GENO_MUST_CHECK can fail with an error raised: their
 * result must be looked at (and a false propagated). */

/* The table row of the builtin being called: its own name (for messages)
 * and flags, so that twin rows can share one implementation (the Array
 * and Vec accessors). Valid from the builtin's entry until it calls back
 * into Geno code or another builtin; read it first. */
const BuiltinDef *vm_builtin_self(const VM *vm);

/* ---- errors ----------------------------------------------------------------- */

/* Raise a catchable runtime error; always returns false. */
bool vm_error(VM *vm, int code, const char *fmt, ...) GENO_PRINTF(3, 4);
/* Raise an uncatchable limit error (E504 size / bits, E505 output) with a
 * builtin-specific message; always returns false. Limits end the run:
 * `try`/`catch` cannot swallow them. */
bool vm_limit_error(VM *vm, int code, const char *fmt, ...) GENO_PRINTF(3, 4);
/* E504 "<kind> size exceeds limit (n > limit)" when n is over the
 * collection limit (kind: "List", "String", "Map", ...). */
bool vm_check_size(VM *vm, const char *kind, size_t n) GENO_MUST_CHECK;
/* The collection-size limit (max_collection_size). */
size_t vm_max_size(const VM *vm);

/* ---- limits and time ----------------------------------------------------------- */

/* Charge `work` units (elements, bytes) done inside a builtin; may raise
 * E503 (steps) or E501 (deadline). VM_WORK_PER_STEP units cost one step. */
#define VM_WORK_PER_STEP 256
bool vm_charge(VM *vm, size_t work) GENO_MUST_CHECK;

/* A builtin that recurses over input or a value calls this at each level,
 * beside its own depth bound: false after raising an uncatchable E502 when
 * the thread's C stack is nearly used up (the margin the VM keeps below
 * its own recursion, learnt from the thread's stack bounds). `what` names
 * the walk in the message ("toml_parse", "json_to_string"). */
bool vm_c_stack_check(VM *vm, const char *what);

/* ---- GC rooting ------------------------------------------------------------------ */

/* Memory a builtin allocates outside the VM heap (a C buffer whose size
 * the program controls) is charged to the run's memory budget before it
 * is allocated: vm_reserve is false with E504 raised when the budget
 * cannot hold it; vm_release gives it back once the buffer is freed. */
bool vm_reserve(VM *vm, size_t bytes) GENO_MUST_CHECK;
void vm_release(VM *vm, size_t bytes);

void vm_push_root(VM *vm, Value *slot);
void vm_pop_roots(VM *vm, int n);

/* ---- Ints ------------------------------------------------------------------------- */

/* Any Int as int64_t; false if it does not fit (no error raised). */
bool vm_int_get(Value v, int64_t *out);
/* An Int from a GMP integer (checks max_integer_bits: E504). */
bool vm_int_from_mpz(VM *vm, const mpz_t z, Value *out) GENO_MUST_CHECK;
/* Load any Int into an initialised mpz_t. */
void vm_int_to_mpz(Value v, mpz_t z);
/* Int or Float as a double (Python float(): correctly rounded; an Int too
 * large raises "int too large to convert to float"). */
bool vm_num_to_double(VM *vm, Value v, double *out) GENO_MUST_CHECK;
/* Decimal text of an Int appended to b (fails past 4,300 digits, as the
 * reference does). */
bool vm_int_text(VM *vm, Value v, Buf *b) GENO_MUST_CHECK;

/* ---- Strings ------------------------------------------------------------------------ */

/* A new String from valid UTF-8 (copied). E504 past the size limit. */
bool vm_string(VM *vm, const char *s, size_t n, Value *out) GENO_MUST_CHECK;
/* Bytes of a String (NOT NUL-terminated) and their count. */
const char *vm_str_bytes(Value s, size_t *nbytes);
/* Length in code points (cached). */
size_t vm_str_len(Value s);
/* Byte offset of code point index i (0 <= i <= length). O(1) for ASCII;
 * for other strings it walks from the start: prefer vm_str_seek in loops. */
size_t vm_str_offset(Value s, size_t i);
/* Byte offset of code point index i (0 <= i <= length), walking from the
 * nearest of start, end and the previous lookup (sequential access is
 * O(1)); long walks are charged as work, so it may fail (E503/E501). */
bool vm_str_seek(VM *vm, Value s, size_t i, size_t *off) GENO_MUST_CHECK;
/* The one-code-point String at index i (0 <= i < length). */
bool vm_str_char(VM *vm, Value s, size_t i, Value *out) GENO_MUST_CHECK;

/* ---- Lists and tuples ------------------------------------------------------------------- */

/* A new List of n elements, all () (fill them through vm_list_items). */
bool vm_list(VM *vm, size_t n, Value *out) GENO_MUST_CHECK;
/* Elements of a List and their count (pointer valid until the list is
 * freed; the list itself must be rooted). */
Value *vm_list_items(Value list, size_t *n);
/* *out = elements [start, start + n) of a List (start + n <= its length).
 * The result may share the list's storage (value.h: a view), so never
 * write to its elements; use vm_list for a list to fill. *list must be a
 * rooted slot (an argument, say). */
bool vm_list_slice(VM *vm, Value *list, size_t start, size_t n, Value *out);
/* *list = *list ++ [x]: amortised O(1) when *list is a builder you own.
 * *list must be a rooted slot (e.g. out). */
bool vm_list_push(VM *vm, Value *list, Value x) GENO_MUST_CHECK;
/* A new tuple of n elements, all () (fill through vm_tuple_items). */
bool vm_tuple(VM *vm, size_t n, Value *out) GENO_MUST_CHECK;
Value *vm_tuple_items(Value t, size_t *n);

/* ---- constructor values -------------------------------------------------------------------- */

/* Constructor `name` (built-in or user ADT) with its fields; NULL fields
 * means all (). Raises if the name or the field count is wrong. */
bool vm_ctor(VM *vm, const char *name, const Value *fields, int nfields, Value *out) GENO_MUST_CHECK;
bool vm_some(VM *vm, Value v, Value *out) GENO_MUST_CHECK;
Value vm_none(VM *vm);
bool vm_ok(VM *vm, Value v, Value *out) GENO_MUST_CHECK;
bool vm_err(VM *vm, Value v, Value *out) GENO_MUST_CHECK;
/* Name of a constructor value ("Some"), or NULL if v is not one. */
const char *vm_ctor_name(Value v);
int vm_ctor_nfields(Value v);
Value vm_ctor_field(Value v, int i);
/* Declared name of field i of a constructor value ("value" for Some). */
const char *vm_ctor_field_name(Value v, int i);
/* Is v the constructor `name`? */
bool vm_is_ctor(Value v, const char *name);

/* ---- Map, MutableMap, Set ------------------------------------------------------------------- */

/* A new empty table: kind T_MAP, T_MMAP or T_SET; cap is a size hint. */
bool vm_table(VM *vm, ValueTag kind, size_t cap, Value *out) GENO_MUST_CHECK;
/* Insert or update (an existing key keeps its position; E504 when a new
 * key would pass the size limit). For a Set pass v_unit() as val. */
bool vm_table_set(VM *vm, Value table, Value key, Value val) GENO_MUST_CHECK;
/* Lookup: 1 found (*val set when val is not NULL), 0 absent, -1 with an
 * error raised (comparing keys is charged and bounded like `==`: a limit,
 * or keys nested too deeply to compare, E502). */
int vm_table_get(VM *vm, Value table, Value key, Value *val) GENO_MUST_CHECK;
/* Remove key (nothing when absent); false with an error raised. */
bool vm_table_delete(VM *vm, Value table, Value key) GENO_MUST_CHECK;
size_t vm_table_len(Value table);
/* Iterate in insertion order: size_t pos = 0; while (vm_table_next(t, &pos, &k, &v)) ... */
bool vm_table_next(Value table, size_t *pos, Value *key, Value *val);
/* Copy (kind may differ: a Map from a MutableMap's entries, ...). */
bool vm_table_copy(VM *vm, Value table, ValueTag kind, Value *out) GENO_MUST_CHECK;

/* ---- Array, Vec --------------------------------------------------------------------------- */

/* kind T_ARRAY or T_VEC, n elements all (). */
bool vm_array(VM *vm, ValueTag kind, size_t n, Value *out) GENO_MUST_CHECK;
Value *vm_array_items(Value a, size_t *n);
bool vm_array_push(VM *vm, Value a, Value x) GENO_MUST_CHECK;
/* Remove the last element into *out; false if empty (no error). */
bool vm_array_pop(Value a, Value *out);

/* ---- calling back into Geno ------------------------------------------------------------------- */

/* Call a function value (closure or builtin) with args; the args are
 * copied before anything can collect. Errors propagate (return false).
 * Call depth counts toward max_recursion_depth like any Geno call. */
bool vm_call(VM *vm, Value fn, const Value *args, int nargs, Value *out) GENO_MUST_CHECK;

/* ---- equality, ordering, text ---------------------------------------------------------------- */

/* Structural equality as `==` (1 == 1.0): 1 or 0, -1 after an error. */
int vm_values_equal(VM *vm, Value a, Value b) GENO_MUST_CHECK;
/* The same equality charged as light work (a fraction of a step per node
 * compared), as hash-table keys are: for builtins that compare many
 * elements per call (contains). 1, 0, or -1 with an error raised. */
int vm_values_same(VM *vm, Value a, Value b);
/* The total "sort key" order (sort_by, Sets): *cmp < 0, 0, > 0. */
bool vm_values_order(VM *vm, Value a, Value b, int *cmp) GENO_MUST_CHECK;
/* Stable sort of values by that order. */
bool vm_values_sort(VM *vm, Value *items, size_t n) GENO_MUST_CHECK;
/* Canonical text appended to b (what to_string gives when quote_strings
 * is false: a top-level String raw, nested ones quoted). Raises E504 when
 * the text would pass max_cp code points (what: message prefix). */
bool vm_render_text(VM *vm, Value v, bool quote_strings, Buf *b, size_t max_cp, const char *what) GENO_MUST_CHECK;
/* Python's repr() text of a Float ("1e+16"); out has room for 32 bytes. */
void vm_float_text(double d, char *out, size_t cap);

/* ---- host ------------------------------------------------------------------------------------- */

/* Append program output (counts code points against max_output_length:
 * E505). During example verification output is discarded. */
bool vm_output(VM *vm, const char *s, size_t n) GENO_MUST_CHECK;
/* print(v): the canonical text (top-level String raw) and a newline,
 * within the output limit (E505). */
bool vm_print(VM *vm, Value v) GENO_MUST_CHECK;
/* The program arguments the host gave (what cli_args() returns): *n
 * texts owned by the VM, valid while it lives. */
const char *const *vm_program_args(const VM *vm, size_t *n);
/* The host's callbacks (VmHost.callbacks): *n entries owned by the VM. */
const struct geno_callback *vm_host_callbacks(const VM *vm, size_t *n);

#endif
