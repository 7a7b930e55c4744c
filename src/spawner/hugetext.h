/* geno-spawner's code and constants moved into transparent huge pages
 * (see hugetext.c). */
#ifndef GENO_SPAWNER_HUGETEXT_H
#define GENO_SPAWNER_HUGETEXT_H

#include <stddef.h>

/* Move each read-only segment of this executable (its code, its
 * constants) that the linker aligned to 2 MiB into anonymous memory
 * backed by 2 MiB transparent huge pages, at the same addresses with the
 * same protections. Must run while the process has one thread, before it
 * forks anything. Returns the number of segments moved (0 when none could
 * be: transparent huge pages unavailable or disabled for the process, a
 * segment not aligned, no huge page to be had, any call failing); a
 * segment not moved is left exactly as it was, so the process runs the
 * same either way. Reports nothing. */
size_t spawner_huge_text(void);

#endif
