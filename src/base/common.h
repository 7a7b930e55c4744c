/* Common definitions shared by every part of geno-c: includes, attribute
 * macros and the internal-visibility marker.
 *
 * Naming tiers (see docs/ARCHITECTURE.md): `geno_` is reserved for the public
 * API in include/geno.h; internal names that cross files use a per-part prefix
 * (lex_, parse_, chk_, cg_, vm_, gc_, lib_, rt_, sbx_) and are hidden from the
 * shared library by -fvisibility=hidden; everything else is static. */
#ifndef GENO_BASE_COMMON_H
#define GENO_BASE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define GENO_NORETURN __attribute__((noreturn))
#define GENO_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define GENO_MUST_CHECK __attribute__((warn_unused_result))
#define GENO_LIKELY(x) __builtin_expect(!!(x), 1)
#define GENO_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define GENO_UNUSED __attribute__((unused))
#define GENO_ALWAYS_INLINE __attribute__((always_inline))
#define GENO_NOINLINE __attribute__((noinline))
#else
#define GENO_NORETURN
#define GENO_PRINTF(fmt, args)
#define GENO_MUST_CHECK
#define GENO_LIKELY(x) (x)
#define GENO_UNLIKELY(x) (x)
#define GENO_UNUSED
#define GENO_ALWAYS_INLINE
#define GENO_NOINLINE
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Abort with a message: only for broken internal invariants, never for
 * anything a Geno program or a host can cause. */
GENO_NORETURN void base_panic(const char *file, int line, const char *msg);
#define GENO_ASSERT(cond)                                                      \
  do {                                                                         \
    if (GENO_UNLIKELY(!(cond))) base_panic(__FILE__, __LINE__, #cond);         \
  } while (0)

#endif
