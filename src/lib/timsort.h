/* timsort.h -- the stable sort behind sort, sort_by and friends, making the
 * same comparisons as CPython 3.11's list.sort.
 *
 * Why not any stable sort: with a consistent order every stable sort gives
 * the same result, but a user comparator may be inconsistent
 * (`fn(a, b) -> -1`), and it may count or print its calls. The reference
 * sorts with CPython's TimSort, so the result and the sequence of
 * comparator calls are only reproduced by the same algorithm: run
 * detection, binary insertion up to minrun, the powersort merge policy,
 * and galloping merges with the adaptive min_gallop threshold.
 *
 * The sort permutes an array of element indices; the caller's `less`
 * compares the elements behind two indices, so the values themselves stay
 * in GC-rooted storage while user code runs. */
#ifndef GENO_LIB_TIMSORT_H
#define GENO_LIB_TIMSORT_H

#include <stddef.h>

#include "../vm/vmapi.h"

/* *lt = whether element x sorts strictly before element y (Python's
 * `x < y`). Returns false after raising an error, which stops the sort. */
typedef bool (*LibLessFn)(VM *vm, void *ctx, size_t x, size_t y, bool *lt);

/* Sort idx[0..n) by `less` (stable). On an error the order of idx is
 * unspecified but it still holds each index once. */
bool lib_timsort(VM *vm, size_t *idx, size_t n, LibLessFn less, void *ctx);

#endif
