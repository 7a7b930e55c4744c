/* geno_result: construction, accessors and the RunResult JSON form. */
#include "result.h"

#include <stdio.h>
#include <time.h>

double rt_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static char *dup_str(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

geno_result *rt_result_new(void) {
  geno_result *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->ok = true;
  r->value_json = dup_str("null");
  r->output = dup_str("");
  return r;
}

void rt_result_add(geno_result *r, int code, const Span *span, const char *message) {
  if (r->ndiags == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 4;
    geno_diagnostic *p = realloc(r->diags, cap * sizeof *p);
    if (!p) return;
    r->diags = p;
    r->cap = cap;
  }
  geno_diagnostic *d = &r->diags[r->ndiags];
  memset(d, 0, sizeof *d);
  char code_text[16];
  snprintf(code_text, sizeof code_text, "E%03d", code);
  d->code = dup_str(code_text);
  d->code_number = code;
  d->message = dup_str(message ? message : "");
  d->severity = "error";
  if (span && span->line > 0) {
    d->filename = dup_str(span->file ? span->file : "<unknown>");
    d->line = span->line;
    d->column = span->col;
    d->end_line = span->end_line;
    d->end_column = span->end_col;
  }
  if (!d->code || !d->message) {
    free((char *)d->code);
    free((char *)d->message);
    free((char *)d->filename);
    return;
  }
  r->ndiags++;
  r->ok = false;
}

void rt_result_add_diags(geno_result *r, const DiagList *dl) {
  for (int i = 0; i < dl->count; i++)
    rt_result_add(r, dl->items[i].code, &dl->items[i].span, dl->items[i].message);
  if (dl->dropped) {
    /* Errors past the list's limit (or lost to memory) still fail the
     * result; the code of the first recorded one stands for them. */
    char msg[96];
    snprintf(msg, sizeof msg, "%d further error%s not shown", dl->dropped, dl->dropped == 1 ? "" : "s");
    rt_result_add(r, dl->count ? dl->items[0].code : E_RESOURCE, NULL, msg);
    r->ok = false;
  }
}

void rt_result_set_output(geno_result *r, const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return;
  if (n) memcpy(p, s, n);
  p[n] = '\0';
  free(r->output);
  r->output = p;
  r->output_len = n;
}

void rt_result_set_value_json(geno_result *r, char *json) {
  if (!json) return;
  free(r->value_json);
  r->value_json = json;
}

bool geno_result_ok(const geno_result *r) { return r && r->ok; }
size_t geno_result_diagnostic_count(const geno_result *r) { return r ? r->ndiags : 0; }

const geno_diagnostic *geno_result_diagnostic(const geno_result *r, size_t i) {
  return r && i < r->ndiags ? &r->diags[i] : NULL;
}

const char *geno_result_output(const geno_result *r, size_t *len) {
  if (!r) {
    if (len) *len = 0;
    return "";
  }
  if (len) *len = r->output_len;
  return r->output ? r->output : "";
}

const char *geno_result_value_json(const geno_result *r) {
  return r && r->value_json ? r->value_json : "null";
}

const geno_value *geno_result_value(const geno_result *r) { return r ? r->value : NULL; }
const char *geno_result_value_text(const geno_result *r) { return r ? r->value_text : NULL; }

geno_timing geno_result_timing(const geno_result *r) {
  geno_timing t = {0, 0, 0, 0, 0};
  return r ? r->timing : t;
}

uint64_t geno_result_steps(const geno_result *r) { return r ? r->steps : 0; }

const char *geno_result_module(const geno_result *r, size_t i, size_t *definitions) {
  if (!r || i >= r->nmodules) return NULL;
  if (definitions) *definitions = r->modules[i].definitions;
  return r->modules[i].file;
}

void rt_result_add_module(geno_result *r, const char *file, size_t definitions) {
  char *copy = strdup(file ? file : "");
  void *grown = copy ? realloc(r->modules, (r->nmodules + 1) * sizeof *r->modules) : NULL;
  if (!grown) {
    free(copy);
    return;
  }
  r->modules = grown;
  r->modules[r->nmodules].file = copy;
  r->modules[r->nmodules].definitions = definitions;
  r->nmodules++;
}

/* Milliseconds rounded to 2 decimals, printed the way Python prints a
 * float (`1.5`, `0.0`). */
static void put_ms(Buf *b, double ms) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%.2f", ms < 0 ? 0.0 : ms);
  size_t n = strlen(tmp);
  while (n > 0 && tmp[n - 1] == '0' && n >= 2 && tmp[n - 2] != '.') n--;
  buf_append(b, tmp, n);
}

char *geno_result_to_json(const geno_result *r) {
  if (!r) return NULL;
  Buf b = BUF_INIT;
  buf_printf(&b, "{\n  \"ok\": %s,\n  \"value\": %s,\n  \"output\": ", r->ok ? "true" : "false",
             r->value_json ? r->value_json : "null");
  buf_json_string(&b, r->output ? r->output : "", r->output_len);
  buf_puts(&b, ",\n  \"diagnostics\": [");
  for (size_t i = 0; i < r->ndiags; i++) {
    const geno_diagnostic *d = &r->diags[i];
    buf_puts(&b, i ? ",\n    {\n" : "\n    {\n");
    buf_puts(&b, "      \"code\": ");
    buf_json_string(&b, d->code, strlen(d->code));
    buf_puts(&b, ",\n      \"message\": ");
    buf_json_string(&b, d->message, strlen(d->message));
    buf_printf(&b, ",\n      \"severity\": \"%s\"", d->severity);
    if (d->filename) {
      buf_printf(&b, ",\n      \"location\": {\n        \"line\": %d,\n        \"column\": %d,\n"
                     "        \"filename\": ",
                 d->line, d->column);
      buf_json_string(&b, d->filename, strlen(d->filename));
      buf_puts(&b, "\n      }");
    }
    buf_puts(&b, "\n    }");
  }
  buf_puts(&b, r->ndiags ? "\n  ],\n" : "],\n");
  buf_puts(&b, "  \"timing\": {\n    \"total_ms\": ");
  put_ms(&b, r->timing.total_ms);
  buf_puts(&b, ",\n    \"lex_ms\": ");
  put_ms(&b, r->timing.lex_ms);
  buf_puts(&b, ",\n    \"parse_ms\": ");
  put_ms(&b, r->timing.parse_ms);
  buf_puts(&b, ",\n    \"typecheck_ms\": ");
  put_ms(&b, r->timing.typecheck_ms);
  buf_puts(&b, ",\n    \"run_ms\": ");
  put_ms(&b, r->timing.run_ms);
  buf_printf(&b, "\n  },\n  \"steps_used\": %llu\n}", (unsigned long long)r->steps);
  if (b.failed) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}

void rt_result_add_trace(geno_result *r, const char *name, const char *file, int line, int col) {
  void *p = realloc(r->trace, (r->ntrace + 1) * sizeof *r->trace);
  if (!p) return;
  r->trace = p;
  r->trace[r->ntrace].name = dup_str(name ? name : "<anonymous>");
  r->trace[r->ntrace].file = dup_str(file);
  r->trace[r->ntrace].line = line;
  r->trace[r->ntrace].col = col;
  r->ntrace++;
}

const char *geno_result_trace(const geno_result *r, size_t i, const char **file, int *line, int *col) {
  if (!r || i >= r->ntrace) return NULL;
  if (file) *file = r->trace[i].file;
  if (line) *line = r->trace[i].line;
  if (col) *col = r->trace[i].col;
  return r->trace[i].name;
}

void geno_result_free(geno_result *r) {
  if (!r) return;
  for (size_t i = 0; i < r->ntrace; i++) {
    free(r->trace[i].name);
    free(r->trace[i].file);
  }
  free(r->trace);
  for (size_t i = 0; i < r->nmodules; i++) free(r->modules[i].file);
  free(r->modules);
  for (size_t i = 0; i < r->ndiags; i++) {
    free((char *)r->diags[i].code);
    free((char *)r->diags[i].message);
    free((char *)r->diags[i].filename);
  }
  free(r->diags);
  free(r->output);
  free(r->value_json);
  free(r->value_text);
  geno_value_free(r->value);
  free(r);
}
