/* Builtin signature text -> named parameters and type annotations (sig.h). */
#include "sig.h"

#include "../syntax/parser.h"

/* End of the parameter list: the ')' that closes the leading '(' (types
 * inside may hold their own parentheses and brackets). */
static const char *closing_paren(const char *s) {
  int depth = 0;
  for (const char *p = s; *p; p++) {
    if (*p == '(' || *p == '[') depth++;
    else if (*p == ')' || *p == ']') {
      if (--depth == 0) return *p == ')' ? p : NULL;
    }
  }
  return NULL;
}

static const char *skip_spaces(const char *p, const char *end) {
  while (p < end && *p == ' ') p++;
  return p;
}

bool chk_sig_parse(Program *prog, const char *sig, ChkSig *out) {
  memset(out, 0, sizeof *out);
  if (!sig || sig[0] != '(') return false;
  const char *close = closing_paren(sig);
  if (!close) return false;
  const char *p = skip_spaces(sig + 1, close);
  while (p < close) {
    if (out->nparams == CHK_SIG_MAX_PARAMS) return false;
    /* name [?] ':' type, up to the next ',' at depth 0 */
    const char *name = p;
    while (p < close && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) p++;
    if (p == name) return false;
    size_t name_len = (size_t)(p - name);
    bool opt = false;
    if (p < close && *p == '?') {
      opt = true;
      p++;
    }
    if (p >= close || *p != ':') return false;
    p = skip_spaces(p + 1, close);
    const char *type_start = p;
    int depth = 0;
    while (p < close && !(depth == 0 && *p == ',')) {
      if (*p == '(' || *p == '[') depth++;
      else if (*p == ')' || *p == ']') depth--;
      p++;
    }
    TypeExpr *t = parse_type_text(prog, type_start, (size_t)(p - type_start), NULL);
    if (!t) return false;
    int i = out->nparams++;
    out->names[i] = intern(&prog->names, name, name_len);
    out->optional[i] = opt;
    out->types[i] = t;
    if (p < close) p = skip_spaces(p + 1, close); /* past ',' */
  }
  const char *r = skip_spaces(close + 1, close + strlen(close));
  if (strncmp(r, "->", 2) != 0) return false;
  r += 2;
  out->ret = parse_type_text(prog, r, strlen(r), NULL);
  return out->ret != NULL;
}
