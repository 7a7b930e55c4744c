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
#include "builtin_table.h"

/* Execution targets (spec 4.2, the reference's targets.toml). A target
 * restricts the builtins to those it provides and adds its backend's
 * rules: names the emitted Python or JavaScript cannot represent safely. */
typedef enum ChkTarget {
  CHK_TARGET_NONE,
  CHK_TARGET_PYTHON_CLI,
  CHK_TARGET_NODE_CLI,
  CHK_TARGET_BROWSER,
  CHK_TARGET_PYTHON_HOSTED,
  CHK_TARGET__COUNT
} ChkTarget;

/* The target named `name` ("python-cli", ...), or CHK_TARGET_NONE. */
ChkTarget chk_target_from_name(const char *name);
/* The name of a target (NULL for CHK_TARGET_NONE). */
const char *chk_target_name(ChkTarget t);
/* "browser, node-cli, python-cli, python-hosted", for messages. */
#define CHK_TARGET_NAMES "browser, node-cli, python-cli, python-hosted"

/* What a check cost, for tests and benchmarks (chk_program fills it when
 * ChkOptions.stats is set). */
typedef struct ChkStats {
  size_t kept_bytes;         /* the program arena's growth in bytes used: what outlives the check (types) */
  size_t scratch_peak_bytes; /* bytes used in the scratch arena by the largest module check */
  unsigned long imports;     /* modules imported into checkers, counting repeats */
} ChkStats;

typedef struct ChkOptions {
  /* Check the bodies of imported modules too (as the reference does), not
   * only the signatures the entry module uses. Default true. */
  bool check_imported_bodies;
  /* Target-aware checking; CHK_TARGET_NONE (the default) applies no
   * target rules. */
  ChkTarget target;
  /* CLOCK_MONOTONIC time in ms after which checking stops with E501
   * between modules (0, the default: none). */
  double deadline_ms;
  double timeout_s; /* for the message */
  /* The program is compiled by geno-c's own back end (src/js), not the
   * reference's: the rules of the reference's emitted code (its reserved
   * runtime names, JavaScript's safe Int range, record field names,
   * literal `requires false`) are not applied; the target's builtins and
   * the browser lifecycle still are. Default false. */
  bool own_backend;
  /* When set, receives the check's costs (zeroed first). Default NULL. */
  ChkStats *stats;
} ChkOptions;

/* Defaults for ChkOptions. */
void chk_options_init(ChkOptions *o);

/* Check the program against the builtins of `builtins` (static, from the
 * layer that owns them: src/runtime passes lib_builtin_table()); true
 * when no error was found. `opts` may be NULL. */
bool chk_program(Program *prog, const BuiltinTable *builtins, DiagList *diags, const ChkOptions *opts);

/* Name prefix of the file names the front end gives built-in std modules
 * ("<std>/Math.geno"); the checker recognises them by it. */
#define CHK_STD_FILE_PREFIX "<std>/"

#endif
