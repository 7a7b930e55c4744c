/* caps.h -- the names of the capabilities (GENO_CAP_* in include/geno.h),
 * one table for every layer: the runtime parses and suggests them
 * (geno_capability_from_name ...), the VM names the one a denied builtin
 * needs in E412's message. */
#ifndef GENO_BASE_CAPS_H
#define GENO_BASE_CAPS_H

#include <geno.h>

/* Index i names the capability 1u << i. */
static const char *const base_cap_names[GENO_CAP_COUNT] = {
    "print", "clock", "random", "fs", "http", "regex", "env", "process", "stdin", "serve",
};

/* The name of a single GENO_CAP_* bit, or NULL for anything else. */
static inline const char *base_cap_name(unsigned cap) {
  for (unsigned i = 0; i < GENO_CAP_COUNT; i++)
    if (cap == (1u << i)) return base_cap_names[i];
  return NULL;
}

#endif
