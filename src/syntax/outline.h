/* The outline of a parsed module: its declarations, for `geno doc` and
 * hosts (geno_outline). */
#ifndef GENO_SYNTAX_OUTLINE_H
#define GENO_SYNTAX_OUTLINE_H

#include "../base/buf.h"
#include "ast.h"

/* Append {"definitions": [{"kind", "name", "line", "exported",
 * "signature", "doc", "examples": [...], "untested"?}...]} for module m,
 * whose source (line ends normalised to LF) is src[0..len). kind is func,
 * type, alias, trait, impl, import or test; signature is the declaration's
 * first source line; doc the `///` comment lines right above it; examples
 * the text of each example clause after `example`. */
void outline_json(const Module *m, const char *src, size_t len, Buf *j);

#endif
