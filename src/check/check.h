/* The typechecker's interface to the rest of geno-c.
 *
 * chk_program checks every module of a parsed Program (modules[0] is the
 * entry module; the others are the modules it imports, user modules and
 * the built-in std modules alike) and appends the reference
 * implementation's diagnostics (E300-E312, see docs) to `diags`. It never
 * prints, never reads files and never crashes on a parser-produced AST.
 *
 * On success every checked expression carries its static type in
 * Expr->type; src/check/types.h documents that contract for the compiler. */
#ifndef GENO_CHECK_CHECK_H
#define GENO_CHECK_CHECK_H

#include "../base/diag.h"
#include "../syntax/ast.h"

typedef struct ChkOptions {
  /* Check the bodies of imported modules too (as the reference does), not
   * only the signatures the entry module uses. Default true. */
  bool check_imported_bodies;
} ChkOptions;

/* Defaults for ChkOptions. */
void chk_options_init(ChkOptions *o);

/* Check the program; true when no error was found. `opts` may be NULL. */
bool chk_program(Program *prog, DiagList *diags, const ChkOptions *opts);

/* Name prefix of the file names the front end gives built-in std modules
 * ("<std>/Math.geno"); the checker recognises them by it. */
#define CHK_STD_FILE_PREFIX "<std>/"

#endif
