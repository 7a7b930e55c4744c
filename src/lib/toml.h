/* TOML outside a program: the same parser toml_parse uses, for the CLI's
 * project manifest (geno.toml). */
#ifndef GENO_LIB_TOML_H
#define GENO_LIB_TOML_H

#include <stddef.h>

/* [m] Parse n bytes of TOML text and discard the result. NULL when the
 * text is valid TOML; otherwise a malloc'd message in toml_parse's words
 * ("Expected '=' after a key in a key/value pair (at line 1, column 6)").
 * Thread-safe. */
char *lib_toml_check(const char *src, size_t n);

#endif
