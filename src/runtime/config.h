/* Configuration helpers shared by the runtime's entry points (config.c). */
#ifndef GENO_RUNTIME_CONFIG_H
#define GENO_RUNTIME_CONFIG_H

#include <geno.h>

/* The first name in c->targets that is not a known target, or NULL. */
const char *rt_config_bad_target(const geno_config *c);

#endif
