/* The formatter behind `geno fmt` (format.c). */
#ifndef GENO_SYNTAX_FORMAT_H
#define GENO_SYNTAX_FORMAT_H

#include "../base/buf.h"

/* Append the canonical layout of src[0..len) to out. The text must lex
 * and parse (the caller checks: a program that does not parse is not
 * formatted). Line ends become LF; lines that begin inside a multi-line
 * string are kept byte for byte. False on out of memory (out then holds
 * part of the text). Thread-safe. */
bool fmt_source(const char *src, size_t len, Buf *out);

#endif
