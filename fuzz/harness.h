/* Shared run harness of the fuzz targets that execute programs
 * (fuzz_run, fuzz_gen): one geno_run under tight limits, every capability
 * that needs no host granted, fake host callbacks for the rest, and the
 * properties every result must have (a failed one is __builtin_trap, which
 * libFuzzer records as a crash with its input). See fuzz/README.md. */
#ifndef GENO_FUZZ_HARNESS_H
#define GENO_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FZ_CHECK(cond)                                                         \
  do {                                                                         \
    if (!(cond)) fz_fail(#cond, __FILE__, __LINE__);                           \
  } while (0)

/* Prints what failed, then traps. */
_Noreturn void fz_fail(const char *what, const char *file, int line);

/* Limits of one run (QuickJS-style fuzzing limits: small enough that
 * hundreds of runs fit in a second, large enough that every limit is
 * reachable by a short program). */
#define FZ_MAX_STEPS 20000u
#define FZ_TIMEOUT_S 1.0
#define FZ_MAX_DEPTH 100u
#define FZ_MAX_COLLECTION 10000u
#define FZ_MAX_OUTPUT 10000u
/* The VM heap cap (geno_config.memory_bytes applies in-process too). */
#define FZ_HEAP_BYTES ((uint64_t)64 << 20)

/* How one input is run. */
typedef struct FzOptions {
  bool run_tests;      /* test mode instead of main */
  bool check_examples; /* verify examples first (geno run's default) */
  bool expect_clean;   /* the source was generated well-typed: a front-end
                          or checker diagnostic is a finding */
  uint64_t max_steps;  /* 0: FZ_MAX_STEPS (fuzz_hostile builds large
                          values first and needs more) */
  uint64_t max_collection; /* 0: FZ_MAX_COLLECTION */
} FzOptions;

/* Once per process: empties the environment (env_get sees no variables),
 * installs the allocation counter. */
void fz_init(void);

/* Run `src` with the fuzzing configuration and check every property. */
void fz_run_checked(const char *src, size_t len, const FzOptions *opt);

#endif
