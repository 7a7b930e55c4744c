/* Constrained decoding: an exact, incremental recognizer of Geno prefixes.
 *
 * A session reads source bytes one at a time. A byte-level lexer (two
 * levels: the module's text and, inside an f-string's `{...}`, the
 * interpolation's text) hands every finished token to a pushdown
 * recognizer whose frames and states mirror the recursive-descent parser
 * (parser.c, parse_stmt.c, parse_expr.c) call for call: the same choices,
 * the same lookahead (a token the parser peeks past is held in a state),
 * the same layout rules (bare `return`, `else if`), the same nesting
 * counter and limit (PARSE_MAX_DEPTH), the same checks made inside the
 * parser (closing function names, `@untested`, parameter order, one rest
 * element per list pattern, comparison chains, assignment targets).
 * Because the parser is deterministic and every state it can be in has a
 * continuation that parses, a prefix is viable ("some continuation makes a
 * program that parses") exactly when the recognizer has not failed and the
 * unfinished last lexeme can still become a token the recognizer accepts.
 *
 * Frames are persistent: a frame is never changed once a snapshot may see
 * it (copy on write above `mark`), so saving a state is copying a small
 * struct, which the token-mask search does at every trie node.
 *
 * Public API: include/geno.h (geno_constrain_*). Not thread-safe per
 * session; sessions and vocabularies are independent. */
#ifndef GENO_SYNTAX_CONSTRAIN_H
#define GENO_SYNTAX_CONSTRAIN_H

#include "../base/common.h"
#include "token.h"

/* The public API is in include/geno.h (geno_constrain_*); constrain_ref.c
 * builds the reference-compatible report on top of it. */

#include "geno.h"

/* When the session failed because the lexeme it was reading could not
 * become any token accepted there: the byte offset where that lexeme
 * began (for a better message, from the whole word); else -1. */
int64_t constrain_fail_lexeme(const geno_constrain *s);
/* Let lexemes through unchecked until they end, so that the recognizer
 * explains a rejected word as a whole (for messages only: the session is
 * then no longer exact about prefixes ending inside a word). */
void constrain_explain_mode(geno_constrain *s);

#endif
