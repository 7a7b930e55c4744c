/* Configuration helpers shared by the runtime's entry points (config.c). */
#ifndef GENO_RUNTIME_CONFIG_H
#define GENO_RUNTIME_CONFIG_H

#include <geno.h>

/* The first name in c->targets that is not a known target, or NULL. */
const char *rt_config_bad_target(const geno_config *c);

/* The caller's config in this library's layout, for every entry point:
 * NULL gives the defaults; a config from an older header (smaller
 * struct_size) gets defaults for the fields it lacks; a larger one is
 * accepted when its unknown tail is zero. Returns `out` (filled), or NULL
 * with *why set to a static message when the config cannot be read
 * (see "Binary compatibility" in geno.h). */
const geno_config *rt_config_adopt(const geno_config *cfg, geno_config *out, const char **why);

/* What is wrong with the arguments every entry point taking a config
 * shares: a NULL source with a length, then whatever geno_config_validate
 * says of cfg (an adopted config). NULL when both are fine, else a
 * malloc'd message (free it). Each entry point calls it once, before any
 * work, and reports the message with its own code (geno.h: E499 for the
 * runs, E204 for parse, check and the JavaScript compilers). */
char *rt_config_problem(const geno_config *cfg, const char *source, size_t len);

#endif
