/* Builtin signatures: the text form of the builtin table (builtin_table.h), such as
 *   "(list: List[T], transform: (T) -> U) -> List[U]"
 *   "(start: Int, end: Int, step?: Int) -> List[Int]"
 * split into named parameters and parsed with the language's own type
 * parser (parse_type_text), so the table is written in Geno syntax. */
#ifndef GENO_CHECK_SIG_H
#define GENO_CHECK_SIG_H

#include "../syntax/ast.h"

/* No builtin has more than 5 parameters (draw_rect); 8 leaves room. */
#define CHK_SIG_MAX_PARAMS 8

typedef struct ChkSig {
  int nparams;
  const char *names[CHK_SIG_MAX_PARAMS];   /* interned in the program */
  bool optional[CHK_SIG_MAX_PARAMS];       /* written `name?: T` */
  TypeExpr *types[CHK_SIG_MAX_PARAMS];
  TypeExpr *ret;
} ChkSig;

/* Parse `sig` into *out, allocating in prog's arena. false if the text is
 * malformed (a table bug; the unit test guards against it). */
bool chk_sig_parse(Program *prog, const char *sig, ChkSig *out);

#endif
