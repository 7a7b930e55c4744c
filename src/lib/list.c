/* List builtins: the core list operations (head, map, fold, sort, range ...)
 * and the list_* functions behind the std module List.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include <stdlib.h>
#include <string.h>

#include "../vm/vmapi.h"
#include "collections.h"
#include "families.h"
#include "timsort.h"

/* length(list) -> Int: elements of a List or Array, code points of a
 * String (the checker admits exactly those three). */
static bool lib_length(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  switch (args[0].tag) {
    case T_LIST: vm_list_items(args[0], &n); break;
    case T_ARRAY: vm_array_items(args[0], &n); break;
    case T_STRING: n = vm_str_len(args[0]); break;
    default: return vm_error(vm, E_RUNTIME, "length expects list, string, or array, got %s", vm_tag_name(args[0].tag));
  }
  *out = v_int((int64_t)n);
  return true;
}

/* range(start, end[, step]) -> List[Int]: end-exclusive; a step of 0 is
 * an error; empty when the step points away from end. The size is checked
 * before anything is allocated. Bounds past 64 bits are counted exactly
 * (range(2**70, 2**70 + 2) is two Ints), so only the size limit (E504)
 * refuses a range. */
static bool range_big(VM *vm, Value *args, int nargs, Value *out) {
  mpz_t start, end, step, span;
  mpz_inits(start, end, step, span, NULL);
  vm_int_to_mpz(args[0], start);
  vm_int_to_mpz(args[1], end);
  if (nargs > 2 && args[2].tag != T_MISSING) vm_int_to_mpz(args[2], step);
  else mpz_set_ui(step, 1);
  bool ok = true;
  if (mpz_sgn(step) == 0) {
    ok = vm_error(vm, E_RUNTIME, "range step cannot be zero");
  } else {
    /* count = ceil((end - start) / step) when that is positive */
    mpz_sub(span, end, start);
    mpz_cdiv_q(span, span, step);
    if (mpz_sgn(span) < 0) mpz_set_ui(span, 0);
    size_t count = mpz_fits_ulong_p(span) ? (size_t)mpz_get_ui(span) : SIZE_MAX;
    ok = vm_check_size(vm, "List", count) && vm_charge(vm, count) && vm_list(vm, count, out);
    for (size_t i = 0; ok && i < count; i++) {
      Value x;
      ok = vm_int_from_mpz(vm, start, &x);
      size_t n;
      if (ok) vm_list_items(*out, &n)[i] = x;
      mpz_add(start, start, step);
    }
  }
  mpz_clears(start, end, step, span, NULL);
  return ok;
}

static bool lib_range(VM *vm, Value *args, int nargs, Value *out) {
  int64_t start, end, step = 1;
  if (!vm_int_get(args[0], &start) || !vm_int_get(args[1], &end) ||
      (nargs > 2 && args[2].tag != T_MISSING && !vm_int_get(args[2], &step)))
    return range_big(vm, args, nargs, out);
  if (step == 0) return vm_error(vm, E_RUNTIME, "range step cannot be zero");
  uint64_t count = 0;
  if (step > 0 && start < end) count = ((uint64_t)end - (uint64_t)start - 1) / (uint64_t)step + 1;
  if (step < 0 && start > end) count = ((uint64_t)start - (uint64_t)end - 1) / (0 - (uint64_t)step) + 1;
  if (!vm_check_size(vm, "List", (size_t)count) || !vm_charge(vm, (size_t)count)) return false;
  if (!vm_list(vm, (size_t)count, out)) return false;
  size_t n;
  Value *items = vm_list_items(*out, &n);
  /* in unsigned arithmetic: the step after the last element may pass
   * INT64_MAX (signed overflow, undefined), and every element is in range */
  uint64_t x = (uint64_t)start;
  for (size_t i = 0; i < n; i++, x += (uint64_t)step) items[i] = v_int((int64_t)x);
  return true;
}

/* append(list, element) -> List[T]: a new list; appending to the newest
 * list built on a buffer reuses it (amortised O(1), see value.h). */
static bool lib_append(VM *vm, Value *args, int nargs, Value *out) {
  *out = args[0];
  return vm_list_push(vm, out, args[1]);
}

/* map(list, transform) -> List[U]: transform once per element, left to
 * right. */
static bool lib_map(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  if (!vm_list(vm, n, out)) return false;
  for (size_t i = 0; i < n; i++) {
    Value x = vm_list_items(args[0], &len)[i];
    Value r;
    if (!vm_call(vm, args[1], &x, 1, &r)) return false;
    vm_list_items(*out, &len)[i] = r;
    if ((i & 1023) == 1023 && !vm_charge(vm, 1024)) return false;
  }
  return true;
}

/* filter(list, predicate) -> List[T]: the elements for which predicate
 * holds, in order. */
static bool lib_filter(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  if (!vm_list(vm, 0, out)) return false;
  for (size_t i = 0; i < n; i++) {
    Value x = vm_list_items(args[0], &len)[i];
    Value keep;
    if (!vm_call(vm, args[1], &x, 1, &keep)) return false;
    if (keep.tag == T_BOOL && keep.as.b && !vm_list_push(vm, out, x)) return false;
    if ((i & 1023) == 1023 && !vm_charge(vm, 1024)) return false;
  }
  return true;
}

/* fold(list, initial, reducer) -> U: reducer(acc, x) left to right. Like
 * the reference, a String or List accumulator is held to the size limit
 * after every step. */
static bool lib_fold(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  *out = args[1];
  for (size_t i = 0; i < n; i++) {
    Value call_args[2] = {*out, vm_list_items(args[0], &len)[i]};
    if (!vm_call(vm, args[2], call_args, 2, out)) return false;
    if (out->tag == T_STRING && !vm_check_size(vm, "String", vm_str_len(*out))) return false;
    if (out->tag == T_LIST) {
      vm_list_items(*out, &len);
      if (!vm_check_size(vm, "List", len)) return false;
    }
    if ((i & 1023) == 1023 && !vm_charge(vm, 1024)) return false;
  }
  return true;
}

/* ---- helpers ---------------------------------------------------------------- */

/* A predicate's answer: the checker makes it a Bool. */
static bool truthy(Value v) { return v.tag == T_BOOL && v.as.b; }

/* Did a comparator answer "less than" (a negative Int)? */
static bool is_negative(Value v) {
  switch (v.tag) {
    case T_INT: return v.as.i < 0;
    case T_BIGINT: return lib_int_sat(v) < 0;
    case T_FLOAT: return v.as.f < 0;
    default: return false;
  }
}

/* Concatenations whose right side has at most this many elements append
 * them one by one, which extends the left list's buffer in place when it
 * can (see value.h): `xs = concat(xs, [x])` in a loop stays linear. */
#define CONCAT_PUSH_MAX 16

/* is_permutation refuses longer lists (the reference's limit: it sorts
 * both lists by the ordering key). */
#define PERMUTATION_MAX 100000

/* ---- access ------------------------------------------------------------------- */

/* head(list) -> T: the first element. */
static bool lib_head(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  Value *items = vm_list_items(args[0], &n);
  if (n == 0) return vm_error(vm, E_RUNTIME, "head of empty list");
  *out = items[0];
  return true;
}

/* tail(list) -> List[T]: all but the first element. */
static bool lib_tail(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  vm_list_items(args[0], &n);
  if (n == 0) return vm_error(vm, E_RUNTIME, "tail of empty list");
  return lib_list_part(vm, &args[0], 1, n - 1, out);
}

/* contains(list, element) -> Bool: by `==` (so 1 and 1.0 match). Like
 * the reference's `in`, the comparisons cost no steps, only light work
 * per element and per node compared (vm_values_same). */
static bool lib_contains(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, i;
  Value *items = vm_list_items(args[0], &n);
  int r = 0;
  for (i = 0; i < n; i++) {
    if ((r = vm_values_same(vm, items[i], args[1])) != 0) break;
    if ((i & 255) == 255 && !lib_charge_light(vm, 256)) return false;
  }
  if (r < 0) return false;
  *out = v_bool(r > 0);
  return lib_charge_light(vm, i & 255);
}

/* ---- building new lists ---------------------------------------------------- */

/* concat(list1, list2) -> List[T]: the combined size is checked first. */
static bool lib_concat(VM *vm, Value *args, int nargs, Value *out) {
  size_t n1, n2, len;
  vm_list_items(args[0], &n1);
  vm_list_items(args[1], &n2);
  if (!vm_check_size(vm, "List", n1 + n2)) return false;
  if (n2 == 0 || n1 == 0) {
    *out = n2 == 0 ? args[0] : args[1]; /* lists are immutable: share */
    return true;
  }
  if (n2 <= CONCAT_PUSH_MAX) {
    *out = args[0];
    for (size_t i = 0; i < n2; i++)
      if (!vm_list_push(vm, out, vm_list_items(args[1], &len)[i])) return false;
    return true;
  }
  if (!vm_list(vm, n1 + n2, out)) return false;
  Value *dst = vm_list_items(*out, &len);
  memcpy(dst, vm_list_items(args[0], &len), n1 * sizeof(Value));
  memcpy(dst + n1, vm_list_items(args[1], &len), n2 * sizeof(Value));
  return lib_charge_light(vm, n1 + n2);
}

/* set_at(list, index, value) -> List[T]: a copy with one element
 * replaced; no negative indexing. */
static bool lib_set_at(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  int64_t i;
  vm_list_items(args[0], &n);
  if (!vm_int_get(args[1], &i) || i < 0 || (uint64_t)i >= n)
    return vm_error(vm, E_RUNTIME, "set_at index out of range");
  if (!lib_list_from(vm, args[0], 0, n, out)) return false;
  vm_list_items(*out, &n)[i] = args[2];
  return true;
}

/* slice(list, start, stop) -> List[T]: start is clamped to >= 0 and stop
 * to <= length, then Python slicing applies, so a negative stop still
 * counts from the end (slice(xs, 0, -1) drops the last element). Never
 * fails. */
static bool lib_slice(VM *vm, Value *args, int nargs, Value *out) {
  size_t len;
  vm_list_items(args[0], &len);
  int64_t n = (int64_t)len, s = lib_int_sat(args[1]), e = lib_int_sat(args[2]);
  if (s < 0) s = 0;
  if (s > n) s = n;
  if (e > n) e = n;
  if (e < 0) {
    e += n;
    if (e < 0) e = 0;
  }
  if (s >= e) return vm_list(vm, 0, out);
  if (s == 0 && e == n) {
    *out = args[0];
    return true;
  }
  return lib_list_part(vm, &args[0], (size_t)s, (size_t)(e - s), out);
}

/* reverse(list) -> List[T] */
static bool lib_reverse(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  if (!vm_list(vm, n, out)) return false;
  Value *dst = vm_list_items(*out, &len), *src = vm_list_items(args[0], &len);
  for (size_t i = 0; i < n; i++) dst[i] = src[n - 1 - i];
  return lib_charge_light(vm, n);
}

/* A list of n pairs: (first[i], second[i]), or (i, first[i]) when second
 * is Unit (enumerate). */
static bool make_pairs(VM *vm, Value first, Value second, size_t n, Value *out) {
  if (!vm_list(vm, n, out)) return false;
  for (size_t i = 0; i < n; i++) {
    Value t;
    if (!vm_tuple(vm, 2, &t)) return false;
    size_t len;
    Value *pair = vm_tuple_items(t, &len);
    if (second.tag == T_UNIT) {
      pair[0] = v_int((int64_t)i);
      pair[1] = vm_list_items(first, &len)[i];
    } else {
      pair[0] = vm_list_items(first, &len)[i];
      pair[1] = vm_list_items(second, &len)[i];
    }
    vm_list_items(*out, &len)[i] = t;
    if (!LIB_CHARGE(vm, i)) return false;
  }
  return true;
}

/* zip(list1, list2) -> List[(A, B)]: as long as the shorter list. */
static bool lib_zip(VM *vm, Value *args, int nargs, Value *out) {
  size_t n1, n2;
  vm_list_items(args[0], &n1);
  vm_list_items(args[1], &n2);
  return make_pairs(vm, args[0], args[1], n1 < n2 ? n1 : n2, out);
}

/* enumerate(list) -> List[(Int, T)]: indices from 0. */
static bool lib_enumerate(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  vm_list_items(args[0], &n);
  return make_pairs(vm, args[0], v_unit(), n, out);
}

/* The concatenation of the n Lists in parts (a rooted List of Lists) into
 * *out. The running total is checked after each part, as the reference
 * does, so the first part that passes the limit is the one reported. */
static bool join_parts(VM *vm, Value parts, size_t n, Value *out) {
  size_t total = 0, len, k;
  for (size_t i = 0; i < n; i++) {
    vm_list_items(vm_list_items(parts, &len)[i], &k);
    if (!vm_check_size(vm, "List", total + k)) return false;
    total += k;
  }
  if (!vm_list(vm, total, out)) return false;
  Value *dst = vm_list_items(*out, &len);
  for (size_t i = 0; i < n; i++) {
    Value *src = vm_list_items(vm_list_items(parts, &len)[i], &k);
    if (k) memcpy(dst, src, k * sizeof(Value));
    dst += k;
  }
  return lib_charge_light(vm, total + n);
}

/* list_flatten(lists) -> List[T] */
static bool lib_list_flatten(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  vm_list_items(args[0], &n);
  return join_parts(vm, args[0], n, out);
}

/* flat_map(list, fn) -> List[U]: fn once per element, left to right;
 * the results are concatenated. The size of the result so far is checked
 * after each call, before the next one runs. */
static bool lib_flat_map(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len, k, total = 0;
  vm_list_items(args[0], &n);
  Value parts = v_unit();
  vm_push_root(vm, &parts);
  bool ok = vm_list(vm, n, &parts);
  for (size_t i = 0; ok && i < n; i++) {
    Value x = vm_list_items(args[0], &len)[i], r;
    ok = vm_call(vm, args[1], &x, 1, &r);
    if (!ok) break;
    if (r.tag != T_LIST) {
      ok = vm_error(vm, E_RUNTIME, "flat_map: function must return a list");
      break;
    }
    vm_list_items(r, &k);
    ok = vm_check_size(vm, "List", total + k) && LIB_CHARGE(vm, i);
    total += k;
    vm_list_items(parts, &len)[i] = r;
  }
  ok = ok && join_parts(vm, parts, n, out);
  vm_pop_roots(vm, 1);
  return ok;
}

/* list_intersperse(list, separator) -> List[T]: separator between
 * neighbours; the size 2n-1 is checked first. */
static bool lib_list_intersperse(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  if (n == 0) return vm_list(vm, 0, out);
  if (!vm_check_size(vm, "List", 2 * n - 1) || !vm_list(vm, 2 * n - 1, out)) return false;
  Value *dst = vm_list_items(*out, &len), *src = vm_list_items(args[0], &len);
  for (size_t i = 0; i < n; i++) {
    if (i) dst[2 * i - 1] = args[1];
    dst[2 * i] = src[i];
  }
  return lib_charge_light(vm, 2 * n);
}

/* list_chunk(list, size) -> List[List[T]]: consecutive pieces of `size`
 * elements, the last one possibly shorter. */
static bool lib_list_chunk(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  int64_t size = lib_int_sat(args[1]);
  if (size <= 0) return vm_error(vm, E_RUNTIME, "list_chunk: chunk size must be positive");
  size_t step = (uint64_t)size > n ? (n ? n : 1) : (size_t)size;
  size_t count = n == 0 ? 0 : (n - 1) / step + 1;
  if (!vm_list(vm, count, out)) return false;
  for (size_t c = 0; c < count; c++) {
    size_t start = c * step, k = n - start < step ? n - start : step;
    Value piece;
    if (!lib_list_part(vm, &args[0], start, k, &piece)) return false;
    vm_list_items(*out, &len)[c] = piece;
  }
  return true;
}

/* list_take(list, count) -> List[T]: the first max(0, count) elements. */
static bool lib_list_take(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  vm_list_items(args[0], &n);
  int64_t k = lib_int_sat(args[1]);
  if (k <= 0) return vm_list(vm, 0, out);
  if ((uint64_t)k >= n) {
    *out = args[0];
    return true;
  }
  return lib_list_part(vm, &args[0], 0, (size_t)k, out);
}

/* list_drop(list, count) -> List[T]: without the first max(0, count). */
static bool lib_list_drop(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  vm_list_items(args[0], &n);
  int64_t k = lib_int_sat(args[1]);
  if (k <= 0) {
    *out = args[0];
    return true;
  }
  if ((uint64_t)k >= n) return vm_list(vm, 0, out);
  return lib_list_part(vm, &args[0], (size_t)k, n - (size_t)k, out);
}

/* ---- predicates and searches ------------------------------------------------ */

/* Call predicate on the elements from the left until it answers `stop`:
 * *at = the index where it did, or n. */
static bool scan_until(VM *vm, Value list, Value pred, bool stop, size_t *at) {
  size_t n, len;
  vm_list_items(list, &n);
  for (size_t i = 0; i < n; i++) {
    Value x = vm_list_items(list, &len)[i], r;
    if (!vm_call(vm, pred, &x, 1, &r)) return false;
    if (truthy(r) == stop) {
      *at = i;
      return true;
    }
    if (!LIB_CHARGE(vm, i)) return false;
  }
  *at = n;
  return true;
}

/* all(list, predicate) -> Bool: stops at the first false; [] gives true. */
static bool lib_all(VM *vm, Value *args, int nargs, Value *out) {
  size_t at, n;
  if (!scan_until(vm, args[0], args[1], false, &at)) return false;
  vm_list_items(args[0], &n);
  *out = v_bool(at == n);
  return true;
}

/* list_any(list, predicate) -> Bool: stops at the first true. */
static bool lib_list_any(VM *vm, Value *args, int nargs, Value *out) {
  size_t at, n;
  if (!scan_until(vm, args[0], args[1], true, &at)) return false;
  vm_list_items(args[0], &n);
  *out = v_bool(at < n);
  return true;
}

/* take_while(list, predicate) -> List[T]: the prefix before the first
 * element the predicate rejects (which is the last one it sees). */
static bool lib_take_while(VM *vm, Value *args, int nargs, Value *out) {
  size_t at, n;
  if (!scan_until(vm, args[0], args[1], false, &at)) return false;
  vm_list_items(args[0], &n);
  if (at == n) {
    *out = args[0];
    return true;
  }
  return lib_list_part(vm, &args[0], 0, at, out);
}

/* list_find(list, predicate) -> Option[T]: Some(first match) or None. */
static bool lib_list_find(VM *vm, Value *args, int nargs, Value *out) {
  size_t at, n;
  if (!scan_until(vm, args[0], args[1], true, &at)) return false;
  Value *items = vm_list_items(args[0], &n);
  if (at == n) {
    *out = vm_none(vm);
    return true;
  }
  return vm_some(vm, items[at], out);
}

/* list_find_index(list, predicate) -> Option[Int] */
static bool lib_list_find_index(VM *vm, Value *args, int nargs, Value *out) {
  size_t at, n;
  if (!scan_until(vm, args[0], args[1], true, &at)) return false;
  vm_list_items(args[0], &n);
  if (at == n) {
    *out = vm_none(vm);
    return true;
  }
  return vm_some(vm, v_int((int64_t)at), out);
}

/* is_sorted(list) -> Bool: every neighbour pair in order (a <= b). */
static bool lib_is_sorted(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  Value *items = vm_list_items(args[0], &n);
  size_t i;
  for (i = 0; i + 1 < n; i++) {
    int c;
    if (!vm_values_order(vm, items[i], items[i + 1], &c)) return false;
    if (c > 0) break;
  }
  *out = v_bool(i + 1 >= n); /* no pair out of order */
  return lib_charge_light(vm, i);
}

/* is_permutation(list1, list2) -> Bool: the same elements with the same
 * multiplicities, compared by the ordering key (1 and 1.0 are the same):
 * both lists are sorted and compared element by element. */
static bool lib_is_permutation(VM *vm, Value *args, int nargs, Value *out) {
  size_t n1, n2, len;
  vm_list_items(args[0], &n1);
  vm_list_items(args[1], &n2);
  if (n1 > PERMUTATION_MAX || n2 > PERMUTATION_MAX)
    return vm_error(vm, E_RUNTIME, "is_permutation: list too large (max 100,000 elements)");
  if (n1 != n2) {
    *out = v_bool(false);
    return true;
  }
  Value a = v_unit(), b = v_unit();
  vm_push_root(vm, &a);
  vm_push_root(vm, &b);
  bool ok = lib_list_from(vm, args[0], 0, n1, &a) && lib_list_from(vm, args[1], 0, n2, &b) &&
            vm_values_sort(vm, vm_list_items(a, &len), n1) && vm_values_sort(vm, vm_list_items(b, &len), n2);
  bool same = true;
  for (size_t i = 0; ok && same && i < n1; i++) {
    int c;
    ok = vm_values_order(vm, vm_list_items(a, &len)[i], vm_list_items(b, &len)[i], &c) && LIB_CHARGE(vm, i);
    same = c == 0;
  }
  vm_pop_roots(vm, 2);
  if (ok) *out = v_bool(same);
  return ok;
}

/* ---- sorting ------------------------------------------------------------------ */

typedef struct SortCtx {
  Value fn;    /* the comparator (sort); rooted as an argument */
  Value items; /* the rooted List whose elements are compared */
  size_t ncmp; /* comparisons so far (sort_by charges for them) */
} SortCtx;

/* sort: x < y when comparator(x, y) < 0 (Python's cmp_to_key). */
static bool comparator_less(VM *vm, void *ctx, size_t x, size_t y, bool *lt) {
  SortCtx *c = ctx;
  size_t n;
  Value *items = vm_list_items(c->items, &n);
  Value pair[2] = {items[x], items[y]}, r;
  if (!vm_call(vm, c->fn, pair, 2, &r)) return false;
  *lt = is_negative(r);
  return true;
}

/* sort_by: x < y by the ordering key of their computed keys. */
static bool key_less(VM *vm, void *ctx, size_t x, size_t y, bool *lt) {
  SortCtx *c = ctx;
  size_t n;
  Value *keys = vm_list_items(c->items, &n);
  int r;
  if (!vm_values_order(vm, keys[x], keys[y], &r)) return false;
  *lt = r < 0;
  return LIB_CHARGE(vm, c->ncmp++);
}

/* Sort the indices of list's n elements with `less`, then *out = the
 * elements of `list` in that order. */
static bool sort_indices(VM *vm, Value list, size_t n, LibLessFn less, SortCtx *ctx, Value *out) {
  size_t *idx = malloc((n ? n : 1) * sizeof(size_t));
  if (!idx) return vm_error(vm, E_RESOURCE, "sort: out of memory for %zu elements", n);
  for (size_t i = 0; i < n; i++) idx[i] = i;
  bool ok = lib_timsort(vm, idx, n, less, ctx) && vm_list(vm, n, out);
  if (ok) {
    size_t len;
    Value *dst = vm_list_items(*out, &len), *src = vm_list_items(list, &len);
    for (size_t i = 0; i < n; i++) dst[i] = src[idx[i]];
    ok = lib_charge_light(vm, n);
  }
  free(idx);
  return ok;
}

/* sort(list, comparator) -> List[T]: stable; comparator(a, b) < 0 means
 * a goes first. The comparator is called exactly as CPython's TimSort
 * would call it, so even an inconsistent one gives the reference's
 * result (`fn(a, b) -> -1` reverses the list). */
static bool lib_sort(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  vm_list_items(args[0], &n);
  SortCtx ctx = {args[1], args[0], 0};
  return sort_indices(vm, args[0], n, comparator_less, &ctx, out);
}

/* sort_by(list, key_fn) -> List[T]: key_fn once per element, in order,
 * before sorting; then a stable sort by the keys' ordering key. */
static bool lib_sort_by(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  Value keys = v_unit();
  vm_push_root(vm, &keys);
  bool ok = vm_list(vm, n, &keys);
  for (size_t i = 0; ok && i < n; i++) {
    Value x = vm_list_items(args[0], &len)[i], k;
    ok = vm_call(vm, args[1], &x, 1, &k);
    if (ok) vm_list_items(keys, &len)[i] = k;
  }
  SortCtx ctx = {v_unit(), keys, 0};
  ok = ok && sort_indices(vm, args[0], n, key_less, &ctx, out);
  vm_pop_roots(vm, 1);
  return ok;
}

/* ---- folds and grouping ---------------------------------------------------- */

/* list_fold_right(list, init, f) -> U: f(x, acc) from the right. */
static bool lib_list_fold_right(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  *out = args[1];
  for (size_t i = n; i-- > 0;) {
    Value call_args[2] = {vm_list_items(args[0], &len)[i], *out};
    if (!vm_call(vm, args[2], call_args, 2, out)) return false;
    if (!LIB_CHARGE(vm, n - 1 - i)) return false;
  }
  return true;
}

/* list_group_by(list, key_fn) -> List[(K, List[T])]: groups in the order
 * their keys first appear, found by a linear scan with `==` (as the
 * reference does); each group keeps its elements' order. */
static bool lib_list_group_by(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len, ng;
  vm_list_items(args[0], &n);
  Value keys = v_unit(), groups = v_unit(), k = v_unit(), g = v_unit();
  vm_push_root(vm, &keys);
  vm_push_root(vm, &groups);
  vm_push_root(vm, &k);
  vm_push_root(vm, &g);
  bool ok = vm_array(vm, T_VEC, 0, &keys) && vm_array(vm, T_VEC, 0, &groups);
  for (size_t i = 0; ok && i < n; i++) {
    Value x = vm_list_items(args[0], &len)[i];
    ok = vm_call(vm, args[1], &x, 1, &k);
    if (!ok) break;
    Value *ks = vm_array_items(keys, &ng);
    size_t at = ng;
    for (size_t j = 0; j < ng; j++) {
      int r = vm_values_equal(vm, ks[j], k);
      if (r < 0) {
        ok = false;
        break;
      }
      if (r) {
        at = j;
        break;
      }
    }
    if (!ok) break;
    if (at < ng) {
      g = vm_array_items(groups, &len)[at];
      ok = vm_list_push(vm, &g, x);
      if (ok) vm_array_items(groups, &len)[at] = g;
    } else {
      ok = vm_array_push(vm, keys, k) && vm_list(vm, 1, &g);
      if (ok) {
        vm_list_items(g, &len)[0] = x;
        ok = vm_array_push(vm, groups, g);
      }
    }
    ok = ok && LIB_CHARGE(vm, i);
  }
  vm_array_items(keys, &ng);
  ok = ok && vm_list(vm, ng, out);
  for (size_t j = 0; ok && j < ng; j++) {
    Value t;
    ok = vm_tuple(vm, 2, &t);
    if (!ok) break;
    Value *pair = vm_tuple_items(t, &len);
    pair[0] = vm_array_items(keys, &len)[j];
    pair[1] = vm_array_items(groups, &len)[j];
    vm_list_items(*out, &len)[j] = t;
  }
  vm_pop_roots(vm, 4);
  return ok;
}

const BuiltinDef lib_list_builtins[] = {
    {"all", "(list: List[T], predicate: (T) -> Bool) -> Bool", 0, NULL, BF_HIGHER_ORDER, lib_all, "$b_all"},
    {"append", "(list: List[T], element: T) -> List[T]", 0, NULL, 0, lib_append, "$b_append"},
    {"concat", "(list1: List[T], list2: List[T]) -> List[T]", 0, NULL, 0, lib_concat, "$b_concat"},
    {"contains", "(list: List[T], element: T) -> Bool", 0, NULL, 0, lib_contains, "$b_contains"},
    {"enumerate", "(list: List[T]) -> List[(Int, T)]", 0, NULL, 0, lib_enumerate, "$b_enumerate"},
    {"filter", "(list: List[T], predicate: (T) -> Bool) -> List[T]", 0, NULL, BF_HIGHER_ORDER, lib_filter, "$b_filter"},
    {"flat_map", "(list: List[T], fn: (T) -> List[U]) -> List[U]", 0, NULL, BF_HIGHER_ORDER, lib_flat_map, "$b_flat_map"},
    {"fold", "(list: List[T], initial: U, reducer: (U, T) -> U) -> U", 0, NULL, BF_HIGHER_ORDER, lib_fold, "$b_fold"},
    {"head", "(list: List[T]) -> T", 0, NULL, 0, lib_head, "$b_head"},
    {"is_permutation", "(list1: List[T], list2: List[T]) -> Bool", 0, NULL, 0, lib_is_permutation, "$b_is_permutation"},
    {"is_sorted", "(list: List[Int]) -> Bool", 0, NULL, 0, lib_is_sorted, "$b_is_sorted"},
    {"length", "(list: List[T]) -> Int", 0, NULL, BF_SPECIAL_TYPING, lib_length, "$b_length"},
    {"list_all", "(list: List[T], predicate: (T) -> Bool) -> Bool", 0, NULL, BF_HIGHER_ORDER, lib_all, "$b_list_all"},
    {"list_any", "(list: List[T], predicate: (T) -> Bool) -> Bool", 0, NULL, BF_HIGHER_ORDER, lib_list_any, "$b_list_any"},
    {"list_chunk", "(list: List[T], size: Int) -> List[List[T]]", 0, NULL, 0, lib_list_chunk, "$b_list_chunk"},
    {"list_drop", "(list: List[T], count: Int) -> List[T]", 0, NULL, 0, lib_list_drop, "$b_list_drop"},
    {"list_enumerate", "(list: List[T]) -> List[(Int, T)]", 0, NULL, 0, lib_enumerate, "$b_list_enumerate"},
    {"list_filter", "(list: List[T], predicate: (T) -> Bool) -> List[T]", 0, NULL, BF_HIGHER_ORDER, lib_filter, "$b_list_filter"},
    {"list_find", "(list: List[T], predicate: (T) -> Bool) -> Option[T]", 0, NULL, BF_HIGHER_ORDER, lib_list_find, "$b_list_find"},
    {"list_find_index", "(list: List[T], predicate: (T) -> Bool) -> Option[Int]", 0, NULL, BF_HIGHER_ORDER, lib_list_find_index, "$b_list_find_index"},
    {"list_flatten", "(lists: List[List[T]]) -> List[T]", 0, NULL, 0, lib_list_flatten, "$b_list_flatten"},
    {"list_fold_right", "(list: List[T], init: U, f: (T, U) -> U) -> U", 0, NULL, BF_HIGHER_ORDER, lib_list_fold_right, "$b_list_fold_right"},
    {"list_group_by", "(list: List[T], key_fn: (T) -> K) -> List[(K, List[T])]", 0, NULL, BF_HIGHER_ORDER, lib_list_group_by, "$b_list_group_by"},
    {"list_intersperse", "(list: List[T], separator: T) -> List[T]", 0, NULL, 0, lib_list_intersperse, "$b_list_intersperse"},
    {"list_length", "(list: List[T]) -> Int", 0, NULL, 0, lib_length, "$b_list_length"},
    {"list_map", "(list: List[T], transform: (T) -> U) -> List[U]", 0, NULL, BF_HIGHER_ORDER, lib_map, "$b_list_map"},
    {"list_take", "(list: List[T], count: Int) -> List[T]", 0, NULL, 0, lib_list_take, "$b_list_take"},
    {"list_zip", "(list1: List[T], list2: List[U]) -> List[(T, U)]", 0, NULL, 0, lib_zip, "$b_list_zip"},
    {"map", "(list: List[T], transform: (T) -> U) -> List[U]", 0, NULL, BF_HIGHER_ORDER, lib_map, "$b_map"},
    {"range", "(start: Int, end: Int, step?: Int) -> List[Int]", 0, NULL, BF_SPECIAL_TYPING, lib_range, "$b_range"},
    {"reverse", "(list: List[T]) -> List[T]", 0, NULL, 0, lib_reverse, "$b_reverse"},
    {"set_at", "(list: List[T], index: Int, value: T) -> List[T]", 0, NULL, 0, lib_set_at, "$b_set_at"},
    {"slice", "(list: List[T], start: Int, stop: Int) -> List[T]", 0, NULL, 0, lib_slice, "$b_slice"},
    {"sort", "(list: List[T], comparator: (T, T) -> Int) -> List[T]", 0, NULL, BF_HIGHER_ORDER, lib_sort, "$b_sort"},
    {"sort_by", "(list: List[T], key_fn: (T) -> U) -> List[T]", 0, NULL, BF_HIGHER_ORDER, lib_sort_by, "$b_sort_by"},
    {"tail", "(list: List[T]) -> List[T]", 0, NULL, 0, lib_tail, "$b_tail"},
    {"take_while", "(list: List[T], predicate: (T) -> Bool) -> List[T]", 0, NULL, BF_HIGHER_ORDER, lib_take_while, "$b_take_while"},
    {"zip", "(list1: List[A], list2: List[B]) -> List[(A, B)]", 0, NULL, 0, lib_zip, "$b_zip"},
};
const size_t lib_list_builtin_count = ARRAY_LEN(lib_list_builtins);
