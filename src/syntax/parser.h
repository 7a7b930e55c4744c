/* Parser: tokens -> AST (spec sections 4 to 8 and the grammar in 14), with
 * the reference parser's error codes and recovery (see parser.c). */
#ifndef GENO_SYNTAX_PARSER_H
#define GENO_SYNTAX_PARSER_H

#include "ast.h"

/* Nesting bound on statements, expressions, types and patterns together,
 * as in the reference (its limit protects Python's stack; ours keeps the C
 * stack of the recursive-descent parser small and fixed: each level costs
 * a few hundred bytes at most). */
#define PARSE_MAX_DEPTH 50

/* Parse one module. The source is copied into p's arena. Lexer and parser
 * errors (E100-E103, E200-E203) are appended to diags; several parse errors
 * are reported in one pass, at most one lexer error. Always returns a module
 * (its declarations are whatever parsed before and between errors); the
 * module is appended to p->modules. Never reads files. */
Module *parse_module(Program *p, const char *name, const char *file, const char *src,
                     size_t len, DiagList *diags);

/* Parse one type annotation from text (e.g. a builtin signature's parameter
 * type "List[(K, V)]"). The text is not copied: it must live as long as the
 * program. NULL on any lexer or parser error (errors go to diags, which
 * may be NULL). Used for the builtin table's signatures. */
TypeExpr *parse_type_text(Program *p, const char *text, size_t len, DiagList *diags);

#endif
