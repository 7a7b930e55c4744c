/* CSV builtins: csv_parse and csv_parse_with_headers (excel dialect).
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"
#include "text.h"

/* Python's csv module refuses a field longer than this many characters
 * (csv.field_size_limit()'s default); the reference keeps it. */
#define CSV_FIELD_LIMIT 131072

/* States of the reader: Python's csv.reader (excel dialect: ',' between
 * fields, '"' quotes, "" for a literal quote, no escape character, not
 * strict). */
typedef enum { START_RECORD, START_FIELD, IN_FIELD, IN_QUOTED, QUOTE_IN_QUOTED, EAT_CRNL } CsvState;

/* End of a line: Python feeds the reader one line at a time (split after
 * \r\n, \r or \n, terminators kept) and then this marker. */
#define CSV_EOL (-1)

typedef struct CsvReader {
  VM *vm;
  const char *fn;   /* builtin name for size messages */
  const char *s;    /* the text */
  size_t n;
  size_t pos;       /* next byte */
  CsvState state;
  Buf field;        /* the field being read */
  size_t field_cps; /* its length in code points */
  Value *row;       /* rooted slot: the record being read (a List) */
} CsvReader;

static bool save_field(CsvReader *r) {
  Value f;
  /* (the reference checks each field after its record; a String over
   * the limit cannot be made, so the check comes first here) */
  if (!lib_check_result(r->vm, r->fn, r->field_cps)) return false;
  bool ok = !r->field.failed && vm_string(r->vm, r->field.data ? r->field.data : "", r->field.len, &f);
  if (r->field.failed) ok = vm_error(r->vm, E_RESOURCE, "out of memory in %s", r->fn);
  buf_clear(&r->field);
  r->field_cps = 0;
  return ok && vm_list_push(r->vm, r->row, f);
}

static bool add_char(CsvReader *r, const char *at, size_t len) {
  if (r->field_cps >= CSV_FIELD_LIMIT)
    return vm_error(r->vm, E_RUNTIME, "field larger than field limit (%d)", CSV_FIELD_LIMIT);
  buf_append(&r->field, at, len);
  r->field_cps++;
  return true;
}

/* One character (or CSV_EOL) through the state machine; c is the code
 * point, at/len its bytes. *done is set when a record is complete. */
static bool csv_char(CsvReader *r, int32_t c, const char *at, size_t len, bool *done) {
  bool nl = c == '\n' || c == '\r';
  switch (r->state) {
    case START_RECORD:
      if (c == CSV_EOL) {
        *done = true; /* a blank line: an empty record */
        return true;
      }
      if (nl) {
        r->state = EAT_CRNL;
        return true;
      }
      r->state = START_FIELD;
      /* fall through */
    case START_FIELD:
      if (nl || c == CSV_EOL) {
        if (!save_field(r)) return false;
        r->state = c == CSV_EOL ? START_RECORD : EAT_CRNL;
        *done = c == CSV_EOL;
      } else if (c == '"') {
        r->state = IN_QUOTED;
      } else if (c == ',') {
        return save_field(r);
      } else {
        r->state = IN_FIELD;
        return add_char(r, at, len);
      }
      return true;
    case IN_FIELD:
      if (nl || c == CSV_EOL) {
        if (!save_field(r)) return false;
        r->state = c == CSV_EOL ? START_RECORD : EAT_CRNL;
        *done = c == CSV_EOL;
      } else if (c == ',') {
        r->state = START_FIELD;
        return save_field(r);
      } else {
        return add_char(r, at, len);
      }
      return true;
    case IN_QUOTED:
      if (c == CSV_EOL) return true; /* the line break itself was kept */
      if (c == '"') {
        r->state = QUOTE_IN_QUOTED;
        return true;
      }
      return add_char(r, at, len);
    case QUOTE_IN_QUOTED:
      if (c == '"') {
        r->state = IN_QUOTED;
        return add_char(r, at, len);
      }
      if (c == ',') {
        r->state = START_FIELD;
        return save_field(r);
      }
      if (nl || c == CSV_EOL) {
        if (!save_field(r)) return false;
        r->state = c == CSV_EOL ? START_RECORD : EAT_CRNL;
        *done = c == CSV_EOL;
        return true;
      }
      /* not strict: text after a closing quote continues the field */
      r->state = IN_FIELD;
      return add_char(r, at, len);
    case EAT_CRNL:
      /* only more line-break characters can follow on this line */
      if (c == CSV_EOL) {
        r->state = START_RECORD;
        *done = true;
      }
      return true;
  }
  return true;
}

/* Read the next record into *r->row (a fresh List); false at the end of
 * the text (*ok tells whether an error was raised). */
static bool csv_next(CsvReader *r, bool *ok) {
  *ok = vm_list(r->vm, 0, r->row);
  if (!*ok) return false;
  buf_clear(&r->field);
  r->field_cps = 0;
  r->state = START_RECORD;
  bool started = false;
  size_t start = r->pos;
  while (r->pos < r->n) {
    started = true;
    const char *s = r->s;
    size_t i = r->pos, at = i;
    int32_t c = lib_utf8_next(s, r->n, &i);
    bool done = false;
    r->pos = i;
    if (!(*ok = csv_char(r, c, s + at, i - at, &done))) return false;
    /* a line ends after \n, after \r not followed by \n, or at the end */
    bool eol = c == '\n' || (c == '\r' && (i >= r->n || s[i] != '\n')) || i >= r->n;
    if (eol && !(*ok = csv_char(r, CSV_EOL, NULL, 0, &done))) return false;
    if (done) return (*ok = vm_charge(r->vm, r->pos - start));
  }
  if (!(*ok = vm_charge(r->vm, r->pos - start))) return false;
  /* End of input inside a record: an open quote keeps its partial field. */
  if (started && (r->field_cps > 0 || r->state == IN_QUOTED)) {
    *ok = save_field(r);
    return *ok;
  }
  return false;
}

/* Size checks the reference makes on each record: its length, then each
 * field's. */
static bool check_row(CsvReader *r, Value row) {
  size_t n, len;
  vm_list_items(row, &n);
  if (!lib_check_count(r->vm, "List", n)) return false;
  for (size_t i = 0; i < n; i++)
    if (!lib_check_result(r->vm, r->fn, vm_str_len(vm_list_items(row, &len)[i]))) return false;
  return true;
}

/* csv_parse(text) -> List[List[String]] */
static bool lib_csv_parse(VM *vm, Value *args, int nargs, Value *out) {
  Value row = v_unit();
  vm_push_root(vm, &row);
  CsvReader r = {vm, "csv_parse", NULL, 0, 0, START_RECORD, BUF_INIT, 0, &row};
  r.s = lib_str(args[0], &r.n);
  bool ok = vm_list(vm, 0, out);
  size_t rows = 0;
  while (ok && csv_next(&r, &ok)) {
    ok = lib_check_count(vm, "List", ++rows) && check_row(&r, row) && vm_list_push(vm, out, row);
  }
  buf_free(&r.field);
  vm_pop_roots(vm, 1);
  return ok;
}

/* csv_parse_with_headers(text) -> List[Map[String, String]]: the first
 * record names the columns; a short record gets "" for the missing
 * cells, extra cells are dropped, a repeated header keeps its first
 * position and the last value. */
static bool lib_csv_parse_with_headers(VM *vm, Value *args, int nargs, Value *out) {
  Value row = v_unit(), headers = v_unit(), map = v_unit(), empty = v_unit();
  vm_push_root(vm, &row);
  vm_push_root(vm, &headers);
  vm_push_root(vm, &map);
  vm_push_root(vm, &empty);
  const char *fn = "csv_parse_with_headers";
  CsvReader r = {vm, fn, NULL, 0, 0, START_RECORD, BUF_INIT, 0, &row};
  r.s = lib_str(args[0], &r.n);
  bool ok = vm_list(vm, 0, out) && vm_string(vm, "", 0, &empty);
  if (ok && csv_next(&r, &ok)) {
    headers = row;
    size_t rows = 0;
    while (ok && csv_next(&r, &ok)) {
      ok = lib_check_count(vm, "List", ++rows);
      size_t nh, nr, len;
      vm_list_items(headers, &nh);
      vm_list_items(row, &nr);
      ok = ok && vm_table(vm, T_MAP, nh, &map);
      for (size_t i = 0; ok && i < nh; i++) {
        Value key = vm_list_items(headers, &len)[i];
        Value val = i < nr ? vm_list_items(row, &len)[i] : empty;
        ok = lib_check_result(vm, fn, vm_str_len(key)) && lib_check_result(vm, fn, vm_str_len(val));
        int found = ok ? vm_table_get(vm, map, key, NULL) : -1;
        if (found == 0) ok = lib_check_count(vm, "Map", vm_table_len(map) + 1);
        ok = ok && found >= 0;
        ok = ok && vm_table_set(vm, map, key, val);
      }
      ok = ok && vm_list_push(vm, out, map);
    }
  }
  buf_free(&r.field);
  vm_pop_roots(vm, 4);
  return ok;
}

const BuiltinDef lib_csv_builtins[] = {
    {"csv_parse", "(text: String) -> List[List[String]]", 0, NULL, 0, lib_csv_parse, "$b_csv_parse"},
    {"csv_parse_with_headers", "(text: String) -> List[Map[String, String]]", 0, NULL, 0, lib_csv_parse_with_headers, "$b_csv_parse_with_headers"},
};
const size_t lib_csv_builtin_count = ARRAY_LEN(lib_csv_builtins);
