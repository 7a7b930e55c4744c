/* Random builtins (capability random): random_int, random_float and their
 * math_random_* aliases from the std module Math.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <errno.h>
#include <gmp.h>
#include <sys/random.h>

#include <geno.h>

#include "../vm/vmapi.h"
#include "families.h"

/* Randomness comes straight from the kernel (getrandom) at every call: no
 * generator state to seed, to share between threads, or to duplicate into
 * forked sandbox children (two children with one copied state would draw
 * the same "random" numbers). It is not reproducible, as in the reference
 * (an unseeded Mersenne Twister). */
static bool random_bytes(VM *vm, void *buf, size_t n) {
  unsigned char *p = buf;
  while (n) {
    ssize_t k = getrandom(p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return vm_error(vm, E_RUNTIME, "random: the system has no randomness to give");
    p += k;
    n -= (size_t)k;
  }
  return true;
}

/* random_int(min, max) -> Int, inclusive at both ends, any size: a
 * uniform draw by rejection (fresh bits until below the range size). */
static bool lib_random_int(VM *vm, Value *args, int nargs, Value *out) {
  mpz_t lo, hi, range, r;
  mpz_inits(lo, hi, range, r, NULL);
  vm_int_to_mpz(args[0], lo);
  vm_int_to_mpz(args[1], hi);
  mpz_sub(range, hi, lo);
  mpz_add_ui(range, range, 1); /* max - min + 1 */
  bool ok;
  if (mpz_sgn(range) <= 0) {
    /* Python's randint(a, b) is randrange(a, b + 1): its message names
     * start, stop and their width. */
    mpz_add_ui(hi, hi, 1);
    char *a = mpz_get_str(NULL, 10, lo), *b = mpz_get_str(NULL, 10, hi), *w = mpz_get_str(NULL, 10, range);
    ok = vm_error(vm, E_RUNTIME, "empty range for randrange() (%s, %s, %s)", a, b, w);
    void (*freefn)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &freefn);
    freefn(a, strlen(a) + 1);
    freefn(b, strlen(b) + 1);
    freefn(w, strlen(w) + 1);
  } else {
    size_t bits = mpz_sizeinbase(range, 2), nbytes = (bits + 7) / 8;
    unsigned char stack[64], *buf = nbytes <= sizeof stack ? stack : malloc(nbytes);
    ok = buf != NULL || vm_error(vm, E_RESOURCE, "out of memory");
    /* Each try succeeds with probability > 1/2, so this ends quickly. */
    while (ok) {
      ok = random_bytes(vm, buf, nbytes);
      if (!ok) break;
      if (bits % 8) buf[0] &= (unsigned char)((1u << (bits % 8)) - 1); /* keep exactly `bits` bits */
      mpz_import(r, nbytes, 1, 1, 0, 0, buf);
      if (mpz_cmp(r, range) < 0) break;
    }
    if (buf != stack) free(buf);
    if (ok) {
      mpz_add(r, r, lo);
      ok = vm_int_from_mpz(vm, r, out);
    }
  }
  mpz_clears(lo, hi, range, r, NULL);
  return ok;
}

/* random_float() -> Float in [0, 1): 53 random bits, as Python's
 * random.random. */
static bool lib_random_float(VM *vm, Value *args, int nargs, Value *out) {
  uint64_t x;
  if (!random_bytes(vm, &x, sizeof x)) return false;
  *out = v_float((double)(x >> 11) * (1.0 / 9007199254740992.0));
  return true;
}

const BuiltinDef lib_random_builtins[] = {
    {"math_random_float", "() -> Float", GENO_CAP_RANDOM, "random", 0, lib_random_float, "$b_math_random_float"},
    {"math_random_int", "(lo: Int, hi: Int) -> Int", GENO_CAP_RANDOM, "random", 0, lib_random_int, "$b_math_random_int"},
    {"random_float", "() -> Float", GENO_CAP_RANDOM, "random", 0, lib_random_float, "$b_random_float"},
    {"random_int", "(min: Int, max: Int) -> Int", GENO_CAP_RANDOM, "random", 0, lib_random_int, "$b_random_int"},
};
const size_t lib_random_builtin_count = ARRAY_LEN(lib_random_builtins);
