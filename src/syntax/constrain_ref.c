/* The reference's report on a prefix (geno_constrain_prefix): `valid` and
 * `error` come from the exact session (constrain.c); `allowed_next` and the
 * blocks to close follow the reference's coarse model, a small token state
 * machine that tracks open blocks and a few header positions, run over the
 * prefix's tokens as the library lexer reads them (up to a lexical error
 * or the end of the prefix). See docs/constrain.md for what it guesses. */
#include <stdio.h>
#include <stdlib.h>

#include "../base/buf.h"
#include "constrain.h"
#include "geno.h"
#include "lexer.h"

#define MAX_BLOCKS 4096

typedef struct Coarse {
  const char *blocks[MAX_BLOCKS]; /* open blocks, outermost first */
  int nblocks;
  bool func_name, type_annot, ret_type, in_params, module_name, impl_header;
  int parens;
  bool violated;
} Coarse;

static const char *block_of(TokKind k) {
  switch (k) {
  case TOK_FUNC: return "func";
  case TOK_IF: return "if";
  case TOK_WHILE: return "while";
  case TOK_FOR: return "for";
  case TOK_MATCH: return "match";
  case TOK_TRAIT: return "trait";
  case TOK_IMPL: return "impl";
  case TOK_TEST: return "test";
  case TOK_TRY: return "try";
  default: return NULL;
  }
}

static void open_block(Coarse *C, const char *b) {
  if (C->nblocks < MAX_BLOCKS) C->blocks[C->nblocks++] = b;
}

static const char *top_block(const Coarse *C) { return C->nblocks ? C->blocks[C->nblocks - 1] : NULL; }

/* One token; prev is the previous token's kind (TOK__COUNT at the start). */
static void coarse_step(Coarse *C, TokKind prev, TokKind k) {
  if (prev == TOK_END) {
    const char *b = block_of(k);
    if (b) {
      if (top_block(C) && strcmp(top_block(C), b) == 0) {
        C->nblocks--;
        return;
      }
      C->violated = true;
      return;
    }
  }
  if (k == TOK_END) {
    if (!C->nblocks) C->violated = true;
    return;
  }
  if (k == TOK_LPAREN) {
    C->parens++;
    if (C->func_name) {
      C->func_name = false;
      C->in_params = true;
    }
  } else if (k == TOK_RPAREN) {
    if (C->parens > 0) C->parens--;
    if (C->in_params && C->parens == 0) {
      C->in_params = false;
      C->ret_type = true;
    }
  }
  if (k == TOK_ARROW && C->ret_type) {
    C->type_annot = true;
    return;
  }
  if (k == TOK_TYPE_IDENT && C->type_annot) {
    C->type_annot = C->ret_type = false;
    return;
  }
  if (C->module_name && k == TOK_TYPE_IDENT) {
    C->module_name = false;
    return;
  }
  if (k < TOK_FIRST_KEYWORD || k > TOK_LAST_KEYWORD) return;
  if (k == TOK_IMPORT) {
    C->module_name = true;
    return;
  }
  if (k == TOK_FUNC) {
    const char *t = top_block(C);
    if (!(t && strcmp(t, "trait") == 0)) open_block(C, "func");
    C->func_name = true;
    return;
  }
  if (C->impl_header && k == TOK_FOR) return;
  if (k == TOK_IMPL) C->impl_header = true;
  const char *b = block_of(k);
  if (b) open_block(C, b);
}

static const char *const all_keywords[] = {
    "and", "assert", "async", "await", "break", "catch", "continue", "do", "else", "end", "ensures",
    "example", "export", "false", "fn", "for", "func", "if", "impl", "import", "in", "let", "match",
    "not", "or", "ref", "requires", "return", "test", "then", "throw", "trait", "true", "try", "type",
    "var", "where", "while", "with",
};
/* in Python's sort order (code points) */
static const char *const all_punct[] = {
    "!=", "%", "(", ")", "*", "+", ",", "-", "->", "/", ":", "<", "<=", "=", "==", ">", ">=", "[", "]", "_", "|", "|>",
};

static char **dup_list(const char *const *items, size_t n, bool *oom) {
  if (!n) return NULL;
  char **out = calloc(n, sizeof *out);
  if (!out) {
    *oom = true;
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    out[i] = strdup(items[i]);
    if (!out[i]) *oom = true;
  }
  return out;
}

static void free_list(char **items, size_t n) {
  if (!items) return;
  for (size_t i = 0; i < n; i++) free(items[i]);
  free(items);
}

void geno_constraint_result_free(geno_constraint_result *r) {
  if (!r) return;
  free(r->error);
  free_list(r->unclosed_blocks, r->n_unclosed_blocks);
  free_list(r->keywords, r->n_keywords);
  free_list(r->allow_punct, r->n_allow_punct);
  free_list(r->expected_end_stack, r->n_expected_end_stack);
  memset(r, 0, sizeof *r);
}

static bool word_byte(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool geno_constrain_prefix(const char *source, size_t len, geno_constraint_result *out) {
  memset(out, 0, sizeof *out);
  if (len > GENO_CONSTRAIN_MAX_BYTES) {
    /* not read: the recognizer's and the coarse model's time is linear in it */
    char msg[96];
    snprintf(msg, sizeof msg, "Prefix is %zu bytes; the limit is %zu bytes", len, GENO_CONSTRAIN_MAX_BYTES);
    out->error = strdup(msg);
    return out->error != NULL;
  }
  bool oom = false;
  /* the exact answer */
  geno_constrain *s = geno_constrain_new();
  if (!s) return false;
  geno_constrain_feed(s, source, len);
  out->valid = geno_constrain_state(s) != GENO_CONSTRAIN_INVALID;
  if (!out->valid) {
    /* A word the session rejected at its first bytes is explained by the
     * message the whole word gets ("mismatched end: ..."). */
    int64_t at = constrain_fail_lexeme(s);
    geno_constrain *w = at >= 0 ? geno_constrain_new() : NULL;
    const char *msg = geno_constrain_error(s);
    if (w) {
      constrain_explain_mode(w);
      size_t end = (size_t)at;
      if (word_byte(source[end]))
        while (end < len && word_byte(source[end])) end++;
      else
        end = end + 2 <= len ? end + 2 : len;
      if (!geno_constrain_feed(w, source, end) || !geno_constrain_feed(w, " ", 1)) msg = geno_constrain_error(w);
    }
    out->error = strdup(msg);
    geno_constrain_free(w);
    if (!out->error) oom = true;
  }
  geno_constrain_free(s);

  /* the reference's coarse model over the lexer's tokens (line ends
   * normalised as parse_module does; the lexer wants a NUL after the text) */
  char *text = malloc(len + 1);
  Coarse *C = calloc(1, sizeof *C);
  if (!text || !C) {
    free(text);
    free(C);
    geno_constraint_result_free(out);
    return false;
  }
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (source[i] != '\r') {
      text[n++] = source[i];
    } else {
      text[n++] = '\n';
      if (i + 1 < len && source[i + 1] == '\n') i++;
    }
  }
  text[n] = '\0';
  Lexer lx;
  lex_init(&lx, text, n, "<prefix>", 1, 1, NULL, NULL);
  TokKind prev = TOK__COUNT;
  if (lex_start(&lx, NULL)) {
    for (;;) {
      Token t;
      lex_next(&lx, &t);
      if (t.kind == TOK_EOF) break;
      coarse_step(C, prev, t.kind);
      if (C->violated) break;
      prev = t.kind;
    }
  }
  bool lex_failed = lx.failed;
  free(text);

  const char *stack[MAX_BLOCKS];
  int depth = C->nblocks;
  for (int i = 0; i < depth; i++) stack[i] = C->blocks[depth - 1 - i];
  out->expected_end_stack = dup_list(stack, (size_t)depth, &oom);
  out->n_expected_end_stack = (size_t)depth;
  out->unclosed_blocks = dup_list(stack, (size_t)depth, &oom);
  out->n_unclosed_blocks = (size_t)depth;
  /* a lexical error in the reference empties everything, blocks included;
   * here the tokens before it still count (the prefix may be valid) */
  (void)lex_failed;
  if (!C->violated) {
    if (C->module_name) {
      out->allow_type_identifier = true;
    } else if (C->func_name) {
      out->allow_identifier = true;
    } else if (C->in_params) {
      static const char *const kw[] = {"fn"};
      static const char *const pu[] = {":", ",", ")"};
      out->keywords = dup_list(kw, 1, &oom);
      out->n_keywords = 1;
      out->allow_identifier = true;
      out->allow_punct = dup_list(pu, 3, &oom);
      out->n_allow_punct = 3;
    } else if (C->ret_type) {
      static const char *const pu[] = {"->"};
      out->allow_punct = dup_list(pu, 1, &oom);
      out->n_allow_punct = 1;
    } else {
      size_t nk = sizeof all_keywords / sizeof *all_keywords, np = sizeof all_punct / sizeof *all_punct;
      out->keywords = dup_list(all_keywords, nk, &oom);
      out->n_keywords = nk;
      out->allow_identifier = out->allow_int = out->allow_float = out->allow_string = out->allow_bool = true;
      out->allow_punct = dup_list(all_punct, np, &oom);
      out->n_allow_punct = np;
    }
  }
  free(C);
  if (oom) {
    geno_constraint_result_free(out);
    return false;
  }
  return true;
}

static void json_list(Buf *b, char **items, size_t n, int indent, int level) {
  if (!n) {
    buf_puts(b, "[]");
    return;
  }
  buf_putc(b, '[');
  for (size_t i = 0; i < n; i++) {
    if (i) buf_putc(b, ',');
    if (indent) buf_printf(b, "\n%*s", indent * (level + 1), "");
    buf_json_string(b, items[i], strlen(items[i]));
  }
  if (indent) buf_printf(b, "\n%*s", indent * level, "");
  buf_putc(b, ']');
}

static void json_key(Buf *b, const char *key, int indent, int level, bool first) {
  if (!first) buf_putc(b, ',');
  if (indent) buf_printf(b, "\n%*s", indent * level, "");
  buf_printf(b, indent ? "\"%s\": " : "\"%s\":", key);
}

char *geno_constraint_result_json(const geno_constraint_result *r, int indent) {
  Buf b = BUF_INIT;
  if (indent < 0) indent = 0;
  buf_putc(&b, '{');
  json_key(&b, "valid", indent, 1, true);
  buf_puts(&b, r->valid ? "true" : "false");
  json_key(&b, "error", indent, 1, false);
  if (r->error) buf_json_string(&b, r->error, strlen(r->error));
  else buf_puts(&b, "null");
  json_key(&b, "unclosed_blocks", indent, 1, false);
  json_list(&b, r->unclosed_blocks, r->n_unclosed_blocks, indent, 1);
  json_key(&b, "allowed_next", indent, 1, false);
  buf_putc(&b, '{');
  json_key(&b, "keywords", indent, 2, true);
  json_list(&b, r->keywords, r->n_keywords, indent, 2);
  const struct {
    const char *name;
    bool v;
  } flags[] = {
      {"allow_identifier", r->allow_identifier}, {"allow_type_identifier", r->allow_type_identifier},
      {"allow_int", r->allow_int},               {"allow_float", r->allow_float},
      {"allow_string", r->allow_string},         {"allow_bool", r->allow_bool},
  };
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
    json_key(&b, flags[i].name, indent, 2, false);
    buf_puts(&b, flags[i].v ? "true" : "false");
  }
  json_key(&b, "allow_punct", indent, 2, false);
  json_list(&b, r->allow_punct, r->n_allow_punct, indent, 2);
  json_key(&b, "expected_end_stack", indent, 2, false);
  json_list(&b, r->expected_end_stack, r->n_expected_end_stack, indent, 2);
  if (indent) buf_printf(&b, "\n%*s", indent, "");
  buf_putc(&b, '}');
  if (indent) buf_putc(&b, '\n');
  buf_putc(&b, '}');
  if (b.failed) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}

/* A Python list repr of plain ASCII words: ['a', 'b'] */
static void py_list(Buf *b, char **items, size_t n) {
  buf_putc(b, '[');
  for (size_t i = 0; i < n; i++) buf_printf(b, "%s'%s'", i ? ", " : "", items[i]);
  buf_putc(b, ']');
}

char *geno_constraint_result_text(const geno_constraint_result *r) {
  Buf b = BUF_INIT;
  bool any = false;
  buf_puts(&b, "AllowedNext(");
#define PART() (any ? buf_puts(&b, ", ") : (void)0, any = true)
  if (r->n_keywords) {
    PART();
    buf_puts(&b, "keywords=");
    py_list(&b, r->keywords, r->n_keywords);
  }
  if (r->allow_identifier) PART(), buf_puts(&b, "IDENT");
  if (r->allow_type_identifier) PART(), buf_puts(&b, "TYPE_IDENT");
  if (r->allow_int) PART(), buf_puts(&b, "INT");
  if (r->allow_float) PART(), buf_puts(&b, "FLOAT");
  if (r->allow_string) PART(), buf_puts(&b, "STRING");
  if (r->allow_bool) PART(), buf_puts(&b, "BOOL");
  if (r->n_allow_punct) {
    PART();
    buf_puts(&b, "punct=");
    py_list(&b, r->allow_punct, r->n_allow_punct);
  }
  if (r->n_expected_end_stack) {
    PART();
    buf_puts(&b, "need_to_close=");
    py_list(&b, r->expected_end_stack, r->n_expected_end_stack);
  }
#undef PART
  buf_putc(&b, ')');
  if (b.failed) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}
