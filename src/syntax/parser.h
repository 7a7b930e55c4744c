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

/* Bound on the depth of the statement and expression tree of a
 * declaration (each Stmt or Expr node one level; checked after parsing by
 * depth.c). The parser's recursion is bounded by PARSE_MAX_DEPTH, but
 * operator chains (`a + b + ...`), postfix chains (`x.f.g`, `f()()`) and
 * else-if chains are read in loops and still nest in the tree; this bound
 * lets later phases walk any tree recursively: with PARSE_MAX_DEPTH
 * recursion ordinary code stays below ~250 levels, and the reference
 * itself fails (Python RecursionError) on chains of about 300. */
#define PARSE_MAX_TREE_DEPTH 1000

/* Parse one module. The source is copied into p's arena with its line
 * ends normalised (CR LF and lone CR become LF). Lexer and parser errors
 * (E100-E103, E200-E203) are appended to diags; several parse errors are
 * reported in one pass, at most one lexer error. Returns the module (its
 * declarations are whatever parsed before and between errors), appended to
 * p->modules; NULL only when the arena ran out of memory before the module
 * existed (an E200 diagnostic says so). Never reads files. */
Module *parse_module(Program *p, const char *name, const char *file, const char *src,
                     size_t len, DiagList *diags);

/* Parse one type annotation from text (e.g. a builtin signature's parameter
 * type "List[(K, V)]"); text[len] need not be a NUL, and nothing refers to
 * the text after the call. NULL on any lexer or parser error (errors go to
 * diags, which may be NULL). Used for the builtin table's signatures. */
TypeExpr *parse_type_text(Program *p, const char *text, size_t len, DiagList *diags);

#endif
