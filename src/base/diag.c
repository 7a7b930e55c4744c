/* Diagnostics list (see diag.h). */
#include "diag.h"

#include "buf.h"

#define DIAG_DEFAULT_LIMIT 1000 /* a runaway error cascade stays printable */

void diag_init(DiagList *d) {
  d->items = NULL;
  d->count = d->cap = 0;
  d->limit = 0;
  d->dropped = 0;
}

void diag_free(DiagList *d) {
  for (int i = 0; i < d->count; i++) free(d->items[i].message);
  free(d->items);
  diag_init(d);
}

static bool diag_push(DiagList *d, Diag *x) {
  int limit = d->limit ? d->limit : DIAG_DEFAULT_LIMIT;
  if (d->count >= limit) return false;
  if (d->count == d->cap) {
    int cap = d->cap ? d->cap * 2 : 8;
    Diag *p = realloc(d->items, (size_t)cap * sizeof(Diag));
    if (!p) return false;
    d->items = p;
    d->cap = cap;
  }
  d->items[d->count++] = *x;
  return true;
}

void diag_vadd(DiagList *d, int code, const Span *span, const char *fmt, va_list ap) {
  Buf b = BUF_INIT;
  buf_vprintf(&b, fmt, ap);
  Diag x;
  x.code = code;
  x.severity = DIAG_ERROR;
  x.message = b.failed ? NULL : buf_take(&b);
  if (b.failed) buf_free(&b);
  if (!x.message) {
    x.message = malloc(14);
    if (x.message) memcpy(x.message, "out of memory", 14);
  }
  if (span) x.span = *span;
  else memset(&x.span, 0, sizeof x.span);
  if (!x.message || !diag_push(d, &x)) {
    free(x.message);
    d->dropped++;
  }
}

void diag_add(DiagList *d, int code, const Span *span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_vadd(d, code, span, fmt, ap);
  va_end(ap);
}

int diag_error_count(const DiagList *d) {
  int n = d->dropped;
  for (int i = 0; i < d->count; i++)
    if (d->items[i].severity == DIAG_ERROR) n++;
  return n;
}

void diag_move(DiagList *dst, DiagList *src) {
  for (int i = 0; i < src->count; i++)
    if (!diag_push(dst, &src->items[i])) {
      free(src->items[i].message);
      dst->dropped++;
    }
  dst->dropped += src->dropped;
  free(src->items);
  diag_init(src);
}

void diag_truncate(DiagList *d, int count, int dropped) {
  for (int i = count; i < d->count; i++) free(d->items[i].message);
  if (count < d->count) d->count = count;
  d->dropped = dropped;
}
