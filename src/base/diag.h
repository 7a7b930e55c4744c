/* Diagnostics: coded errors with a source span.
 *
 * Every phase appends to one DiagList and never prints; printing belongs to
 * the CLI (and later the server). Codes are the reference implementation's
 * stable codes (E100..E505), stored as integers (E201 -> 201). */
#ifndef GENO_BASE_DIAG_H
#define GENO_BASE_DIAG_H

#include <stdarg.h>

#include "common.h"

/* A source span: 1-based line and column (columns count Unicode code
 * points, a tab is one column), end exclusive. line == 0 means "no
 * location". `file` is borrowed from the module that owns the source. */
typedef struct Span {
  const char *file;
  int32_t line, col;
  int32_t end_line, end_col;
} Span;

typedef enum DiagSeverity { DIAG_ERROR = 0, DIAG_WARNING = 1 } DiagSeverity;

/* Diagnostic codes used across phases (reference: geno/diagnostics.py). */
enum {
  E_LEX_UNEXPECTED_CHAR = 100,
  E_LEX_UNTERMINATED_STRING = 101,
  E_LEX_UNTERMINATED_COMMENT = 102,
  E_LEX_INVALID_ESCAPE = 103,
  E_PARSE_UNEXPECTED = 200,
  E_PARSE_EXPECTED = 201,
  E_PARSE_INVALID = 202,
  E_PARSE_RECOVERY = 203,
  E_PROJECT = 204,
  E_TYPE_MISMATCH = 300,
  E_UNDEFINED_VAR = 301,
  E_UNDEFINED_FUNC = 302,
  E_UNDEFINED_TYPE = 303,
  E_WRONG_ARITY = 304,
  E_NOT_CALLABLE = 305,
  E_IMMUTABLE_ASSIGN = 306,
  E_UNKNOWN_FIELD = 307,
  E_PATTERN_MISMATCH = 308,
  E_DUPLICATE = 309,
  E_EFFECT_VIOLATION = 310,
  E_EFFECT_UNKNOWN = 311,
  E_EFFECT_MISMATCH = 312,
  E_DIV_ZERO = 400,
  E_INDEX = 401,
  E_KEY = 402,
  E_RT_UNDEFINED_VAR = 403,
  E_RT_ARITY = 404,
  E_RT_NOT_CALLABLE = 405,
  E_NO_MATCH = 406,
  E_PRECONDITION = 407,
  E_POSTCONDITION = 408,
  E_EXAMPLE = 409,
  E_RT_TYPE = 410,
  E_HOLE = 411,
  E_CAPABILITY = 412,
  E_CALLBACK_MISSING = 413,
  E_RUNTIME = 499,
  E_SECURITY = 500,
  E_TIMEOUT = 501,
  E_RECURSION = 502,
  E_STEPS = 503,
  E_RESOURCE = 504,
  E_OUTPUT = 505,
};

typedef struct Diag {
  int code;              /* e.g. 201 for E201 */
  DiagSeverity severity;
  char *message;         /* malloc'd; never NULL ("out of memory" fallback) */
  Span span;             /* span.line == 0: no location */
} Diag;

typedef struct DiagList {
  Diag *items; /* malloc'd */
  int count;
  int cap;
  int limit;   /* stop recording after this many errors (0 = 1000) */
  int dropped; /* errors not recorded (limit reached or no memory): they
                  still count, so a list that lost an error never looks clean */
} DiagList;

void diag_init(DiagList *d);
void diag_free(DiagList *d);
/* Append an error. `span` may be NULL (no location). */
void diag_add(DiagList *d, int code, const Span *span, const char *fmt, ...)
    GENO_PRINTF(4, 5);
void diag_vadd(DiagList *d, int code, const Span *span, const char *fmt, va_list ap);
/* Number of entries with severity DIAG_ERROR. */
int diag_error_count(const DiagList *d);
/* Move all entries of src to the end of dst (src is left empty). */
void diag_move(DiagList *dst, DiagList *src);
/* Drop the entries after the first `count` and set the dropped count back
 * to `dropped` (values read earlier): undoes what was added since. */
void diag_truncate(DiagList *d, int count, int dropped);

#endif
