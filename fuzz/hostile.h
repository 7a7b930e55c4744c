/* Programs that call one builtin on hostile arguments (hostile.c): values
 * built by sharing (a tree of 81 nodes and 2^80 paths), values nested past
 * the comparison depth bound, a 1M-character String, lists of 65,536
 * references to one such value, extreme Ints, lambdas returning them. The
 * argument types come from the builtin's signature (gen.h); type variables
 * are instantiated with those hostile types. Shared by the generated
 * adversarial test (tests/unit/test_adversarial.c, every builtin of the
 * table, fixed choices) and the fuzz target fuzz_hostile (choices from the
 * input bytes). */
#ifndef GENO_FUZZ_HOSTILE_H
#define GENO_FUZZ_HOSTILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"

/* A choice in [0, n) (n >= 1). */
typedef uint32_t (*HostileChoose)(void *ctx, uint32_t n);

/* The program (NUL-terminated) into buf[0..cap): main builds the hostile
 * values, calls builtin `s` once and prints "end". False when the
 * signature has a type the generator cannot build (the builtin is then
 * skipped) or the text does not fit. */
bool hostile_program(const Sig *s, HostileChoose choose, void *ctx, char *buf, size_t cap);

#endif
