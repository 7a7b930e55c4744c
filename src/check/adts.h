/* The algebraic data types the language defines itself (Option, Result,
 * JsonValue, HttpResponse, HttpRequest, ProcessResult, FileKind,
 * FileMetadata): described once here and read by the typechecker (their
 * types), the compiler (constructor ids, in this order) and the host
 * boundary (checking a host callback's result against a builtin's return
 * type).
 *
 * Field types are written in builtin-signature syntax ("Int",
 * "List[(String, String)]"); type parameters are single capital letters. */
#ifndef GENO_CHECK_ADTS_H
#define GENO_CHECK_ADTS_H

#include <stddef.h>

#define CHK_ADT_MAX_FIELDS 5
#define CHK_ADT_MAX_VARIANTS 7

typedef struct ChkAdtField {
  const char *name, *type;
} ChkAdtField;

typedef struct ChkAdtVariant {
  const char *name;
  int nfields;
  ChkAdtField fields[CHK_ADT_MAX_FIELDS];
} ChkAdtVariant;

typedef struct ChkAdt {
  const char *name;
  const char *params[2]; /* type parameters ("T", "E") */
  int nparams;
  int nvariants;
  ChkAdtVariant variants[CHK_ADT_MAX_VARIANTS];
} ChkAdt;

/* All built-in ADTs. Order fixes constructor ids: Some, None, Ok, Err come
 * first (CTOR_SOME .. CTOR_ERR in src/vm/chunk.h). Static storage;
 * thread-safe. */
const ChkAdt *chk_adts(size_t *count);

/* The ADT named `name`, or NULL. */
const ChkAdt *chk_adt_find(const char *name);

#endif
