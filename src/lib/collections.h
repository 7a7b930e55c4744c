/* collections.h -- helpers shared by the collection builtin families
 * (list, array, vec, set, map, mutable_map, option): Int arguments that
 * may be big, bounds errors, list copies and work charging. */
#ifndef GENO_LIB_COLLECTIONS_H
#define GENO_LIB_COLLECTIONS_H

#include "../vm/vmapi.h"

/* An Int argument as int64_t, saturated: a big Int becomes INT64_MIN or
 * INT64_MAX by its sign. Clamping and bounds checks then behave as they
 * would on the exact value. */
int64_t lib_int_sat(Value v);

/* Slot `index` of an Array or Vec, or NULL after raising E499
 * "<fn> index I out of bounds (length N)", the message of the Array and Vec
 * accessors (fn: array_get, vec_set ...), with I written in full even when
 * it is big. */
Value *lib_array_slot(VM *vm, const char *fn, Value arr, Value index);

/* The Array/Vec twins (array.c): one function behind the array_ and vec_
 * rows of each pair, told apart by its own row (vm_builtin_self): the
 * name in its messages, BF_VEC for the kind it builds. lib_seq_copy is
 * array_from_list, array_copy and vec_from_list. */
bool lib_seq_copy(VM *vm, Value *args, int nargs, Value *out);
bool lib_seq_get(VM *vm, Value *args, int nargs, Value *out);
bool lib_seq_set(VM *vm, Value *args, int nargs, Value *out);
bool lib_seq_length(VM *vm, Value *args, int nargs, Value *out);
bool lib_seq_to_list(VM *vm, Value *args, int nargs, Value *out);

/* *out = a new List holding elements [start, start+n) of owner, a List,
 * Array or Vec that the caller keeps rooted (an argument, say). */
bool lib_list_from(VM *vm, Value owner, size_t start, size_t n, Value *out);

/* *out = elements [start, start+n) of the List *list (a rooted slot, an
 * argument say): a view sharing its storage when vm_list_slice makes one,
 * else a copy, charged as light work. For builtins whose result is a
 * contiguous part of their argument (tail, slice, take, drop ...). */
bool lib_list_part(VM *vm, Value *list, size_t start, size_t n, Value *out);

/* *total += the number of keys of table `b` absent from table `a` (a size
 * check before a union or merge is built). False with an error raised
 * when comparing keys failed (vm_table_get). */
bool lib_count_new_keys(VM *vm, Value a, Value b, size_t *total);

/* Charge the step budget every this many elements of a builtin's loop
 * (vm_charge with the same amount): often enough that a hostile input hits
 * the deadline promptly, rarely enough to cost nothing measurable. */
#define LIB_CHARGE_EVERY 1024

/* In a loop over i: charge a batch of work when i completes one. */
#define LIB_CHARGE(vm, i) \
  (((i) & (LIB_CHARGE_EVERY - 1)) != LIB_CHARGE_EVERY - 1 || vm_charge((vm), LIB_CHARGE_EVERY))

/* Light per-element work: copying n elements with memcpy (concat,
 * slices, to_list ...) or comparing plain values (contains) costs far
 * less than n steps of interpreted work, about 1/16 of what a loop that
 * calls back or builds values per element costs. Charge it at that
 * discount: the work stays bounded by the deadline, and a program that
 * doubles a list or scans one in a loop does not run out of steps long
 * before the reference (which charges nothing for it) would. */
#define LIB_LIGHT_DISCOUNT 16
static inline bool lib_charge_light(VM *vm, size_t n) { return vm_charge(vm, n / LIB_LIGHT_DISCOUNT); }

#endif
