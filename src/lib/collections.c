/* Helpers shared by the collection builtin families (collections.h). */
#include "collections.h"

#include <string.h>

int64_t lib_int_sat(Value v) {
  int64_t i;
  if (vm_int_get(v, &i)) return i;
  mpz_t z;
  mpz_init(z);
  vm_int_to_mpz(v, z);
  int sign = mpz_sgn(z);
  mpz_clear(z);
  return sign < 0 ? INT64_MIN : INT64_MAX;
}

/* Raise the bounds error of lib_array_slot; always returns false. */
static bool index_error(VM *vm, const char *fn, Value index, size_t len) {
  Buf b = BUF_INIT;
  if (!vm_int_text(vm, index, &b)) {
    buf_free(&b);
    return false;
  }
  vm_error(vm, E_RUNTIME, "%s index %s out of bounds (length %zu)", fn, b.data ? b.data : "?", len);
  buf_free(&b);
  return false;
}

Value *lib_array_slot(VM *vm, const char *fn, Value arr, Value index) {
  size_t n;
  Value *items = vm_array_items(arr, &n);
  int64_t i;
  if (!vm_int_get(index, &i) || i < 0 || (uint64_t)i >= n) {
    index_error(vm, fn, index, n);
    return NULL;
  }
  return &items[i];
}

/* Elements of a List, Array or Vec. */
static Value *seq_items(Value v, size_t *n) {
  return v.tag == T_LIST ? vm_list_items(v, n) : vm_array_items(v, n);
}

bool lib_list_part(VM *vm, Value *list, size_t start, size_t n, Value *out) {
  if (!vm_list_slice(vm, list, start, n, out)) return false;
  size_t len, whole;
  bool shared = vm_list_items(*out, &len) == vm_list_items(*list, &whole) + start;
  return shared || lib_charge_light(vm, n);
}

bool lib_list_from(VM *vm, Value owner, size_t start, size_t n, Value *out) {
  if (!vm_list(vm, n, out)) return false;
  if (n == 0) return true;
  size_t len, olen;
  Value *dst = vm_list_items(*out, &len);
  Value *src = seq_items(owner, &olen); /* fetched after the allocation */
  GENO_ASSERT(start + n <= olen);
  memcpy(dst, src + start, n * sizeof(Value));
  return lib_charge_light(vm, n);
}

bool lib_count_new_keys(VM *vm, Value a, Value b, size_t *total) {
  size_t pos = 0;
  Value k;
  while (vm_table_next(b, &pos, &k, NULL)) {
    int found = vm_table_get(vm, a, k, NULL);
    if (found < 0) return false;
    *total += found == 0;
  }
  return true;
}
