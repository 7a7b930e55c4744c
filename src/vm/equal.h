/* Structural equality, hashing and the total ordering of values (equal.c).
 *
 * Equality follows the reference: numbers compare by value across Int and
 * Float (1 == 1.0), containers and constructors structurally, Maps and
 * MutableMaps ignoring insertion order, functions by identity. The hash is
 * consistent with it (an integral Float hashes like the Int).
 *
 * The ordering is the reference's "sort key" order used by sort_by and for
 * Set display: Unit < Bool < numbers < String < Tuple < constructor (by
 * name, then fields) < List < Array < MutableMap < Map < Set < Vec. */
#ifndef GENO_VM_EQUAL_H
#define GENO_VM_EQUAL_H

#include "vm.h"

/* Values nested deeper than this (a 10,000-deep linked list built by a
 * loop, say) are refused by the recursive algorithms (equality, ordering,
 * rendering, conversion) with E502, instead of overflowing the C stack. */
#define VM_MAX_VALUE_DEPTH 10000

/* a == b as the `==` operator: charges one step per compared node (like
 * the reference) and may therefore fail with E503/E501, or E502 past
 * VM_MAX_VALUE_DEPTH. Returns 1 or 0, or -1 with an error raised. approx:
 * floats within rel 1e-9 / abs 1e-12 (example verification). Shared
 * structure is compared once (equal.c), so the cost is bounded by the
 * values' sizes, not their numbers of paths. */
int vm_equal(VM *vm, Value a, Value b, bool approx);
/* Equality for hash-table keys and `contains`: the same walk, charged as
 * work (a fraction of a step per node) and failing like vm_equal: 1, 0,
 * or -1 with an error raised (never "not equal" for values it could not
 * compare). */
int vm_key_equal(VM *vm, Value a, Value b);
uint32_t vm_hash(Value v);
/* Exact numeric comparison of Int/Float values: -1, 0, 1, or 2 if
 * unordered (NaN). */
int vm_num_cmp(Value a, Value b);
/* Total order (see above): *cmp < 0, 0, > 0. False with an error raised
 * (only for values nested too deeply). */
bool vm_order(VM *vm, Value a, Value b, int *cmp);
/* Stable sort of n values by vm_order (merge sort; charges steps). */
bool vm_sort_values(VM *vm, Value *items, size_t n);

#endif
