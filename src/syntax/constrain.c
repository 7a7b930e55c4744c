/* Exact incremental recognizer of Geno prefixes and token masks
 * (constrain.h explains the design; include/geno.h documents the API). */
#include "constrain.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "geno.h"
#include "parser.h"

/* ---- tokens handed to the recognizer ---------------------------------- */

enum {
  K_FSTR_BEGIN = TOK__COUNT, /* f" : the f-string token, as a primary */
  K_INTERP_BEGIN,            /* { inside an f-string */
  K_FSTR_END,                /* the closing quote of an f-string */
  K__COUNT
};

typedef struct Tok {
  uint8_t kind;
  bool nl;       /* a line break since the previous token */
  bool wild;     /* probe: identifier of unknown spelling */
  bool empty;    /* STRING: the empty string */
  int32_t col;   /* start column (code points, 1-based) */
  const char *text; /* IDENT: spelling */
  uint32_t len;
} Tok;

/* ---- recognizer frames --------------------------------------------------- */

typedef struct Frame {
  uint32_t parent;
  uint16_t st;
  uint8_t depth; /* the parser's nesting counter inside this frame */
  uint8_t fl;    /* per-state flags */
  uint32_t a, b; /* per-state data */
} Frame;

/* Lexer modes (one level). */
enum {
  LX_START, LX_IDENT, LX_F, LX_INT, LX_INT_DOT, LX_FRAC, LX_STR1, LX_STR2, LX_STR, LX_STR_ESC,
  LX_TSTR, LX_FQ1, LX_FQ2, LX_FSTR, LX_FSTR_ESC, LX_INTERP, LX_SLASH, LX_LINE_COMMENT,
  LX_BLOCK_COMMENT, LX_BC_STAR, LX_OP /* one-byte operator that may grow: a = its first byte */,
};

typedef struct Level {
  uint8_t mode;
  uint8_t op;      /* LX_OP: the first byte; LX_TSTR: quotes seen */
  bool tok_nl;     /* of the lexeme being read */
  int32_t tok_col;
  uint64_t tok_pos; /* byte offset where the lexeme began */
  uint32_t ndig;   /* digits of the current number part; LX_TSTR: content bytes */
} Level;

typedef struct Core {
  uint32_t top;  /* innermost frame */
  uint32_t bump; /* frames in use */
  uint32_t mark; /* frames below this are shared with a snapshot: copy on write */
  uint32_t names; /* bytes used in the name pool */
  uint8_t shape;  /* shape of the expression just finished (SH_*) */
  bool failed;
  bool in_interp; /* outer level in LX_INTERP: bytes go to `inner` */
  bool cr;        /* previous byte was a CR (a following LF is the same line end) */
  bool nl;        /* a line break since the last token */
  uint8_t u8need; /* UTF-8 continuation bytes still expected */
  uint8_t u8lo, u8hi; /* range of the next continuation byte */
  int32_t col;
  uint64_t pos;   /* bytes read */
  uint32_t id_off, id_len; /* LX_IDENT/LX_F: the spelling so far, in idbuf */
  uint32_t ctx;   /* names the recognizer state (new on every change): probe cache key */
  Level outer, inner;
} Core;

enum { SH_OTHER, SH_FIELD, SH_INDEX };

/* Which token kinds the recognizer accepts in one state (asked lazily). */
typedef struct ProbeCache {
  uint32_t ctx;
  int32_t lay;            /* layout key (RET/IF_ELSE states see line and column) */
  uint64_t known[2], acc[2];
  bool ident_need;        /* IDENT accepted only with this spelling: */
  bool need_in_names;     /* in the name pool at need_off, else at need_lit */
  uint32_t need_off, need_len;
  const char *need_lit;
} ProbeCache;

struct geno_constrain {
  Core c;
  Frame *pool;
  uint32_t pool_cap;
  char *names; /* function names (closing-name check) */
  uint32_t names_cap;
  char *idbuf; /* identifier spellings being read */
  uint32_t idcap;
  bool spec;   /* speculating (probe or mask): no messages, no compaction */
  bool oom;
  /* what a probe learnt about identifiers: required spelling */
  bool need_text;
  const char *need_ptr;
  uint32_t need_len;
  uint32_t ctx_counter;
  ProbeCache cache[64];
  bool explain;        /* lexemes are not checked until finished (messages) */
  int64_t fail_lexeme; /* a lexeme no accepted token can start with began here (else -1) */
  char err[256];
};

typedef struct geno_constrain Sess;

#define MAX_DEPTH PARSE_MAX_DEPTH

/* ---- frame pool ----------------------------------------------------------- */

static bool pool_reserve(Sess *S, uint32_t n) {
  if (S->c.bump + n <= S->pool_cap) return true;
  uint32_t cap = S->pool_cap ? S->pool_cap : 256;
  while (cap < S->c.bump + n) cap *= 2;
  Frame *p = realloc(S->pool, (size_t)cap * sizeof *p);
  if (!p) {
    S->oom = true;
    return false;
  }
  S->pool = p;
  S->pool_cap = cap;
  return true;
}

/* The top frame, writable (copied first when a snapshot may share it). */
static Frame *wr(Sess *S) {
  if (S->c.top >= S->c.mark) return &S->pool[S->c.top];
  if (!pool_reserve(S, 1)) return NULL;
  uint32_t i = S->c.bump++;
  S->pool[i] = S->pool[S->c.top];
  S->c.top = i;
  return &S->pool[i];
}

/* ---- failures -------------------------------------------------------------- */

static bool failf(Sess *S, const char *fmt, ...) GENO_PRINTF(2, 3);
static bool failf(Sess *S, const char *fmt, ...) {
  S->c.failed = true;
  if (!S->spec && !S->err[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S->err, sizeof S->err, fmt, ap);
    va_end(ap);
  }
  return false;
}

static const char *kname(int k) {
  if (k == K_FSTR_BEGIN) return "f-string";
  if (k == K_INTERP_BEGIN) return "'{'";
  if (k == K_FSTR_END) return "end of f-string";
  return tok_name((TokKind)k);
}

static bool unexpected(Sess *S, const Tok *t) {
  if (S->spec) return S->c.failed = true, false;
  if (t->kind == TOK_IDENT && t->text) return failf(S, "unexpected identifier '%.*s'", (int)t->len, t->text);
  return failf(S, "unexpected %s", kname(t->kind));
}

/* ---- recognizer states -------------------------------------------------- */

enum {
  /* program and definitions */
  PG, D_START, D_AT_NAME, D_AT_LP, D_AT_STR, D_AT_RP, D_AFTER_ANN1, D_AFTER_EXPORT, D_KIND, D_ASYNC,
  IMP_NAME, IMP_AS, IMP_ALIAS,
  FD_FUNC, FD_NAME, FD_LP, FD_RP, FD_ARROW, FD_WITH, FD_EFF, FD_EFF_AFTER, FD_SPEC, FD_EX_IN,
  FD_END, FD_END2, FD_CLOSE,
  TD_NAME, TD_LB, TD_P, TD_P_AFTER, TD_EQ, TD_AFTER_EQ, TD_HELD, V_NAME, V_AFTER_NAME, V_F0,
  V_FIELD, V_FCOLON, V_F_AFTER, V_AFTER,
  TR_NAME, TR_BODY, TR_END2, TM_NAME, TM_LP, TM_RP, TM_ARROW,
  IM_TRAIT, IM_FOR, IM_TYPE, IM_BODY, IM_END2,
  TS_NAME, TS_BODY, TS_END2,
  /* types, patterns, parameters */
  T_START, T_P0, T_P1, T_P_AFTER, T_FN_WITH, T_EFF, T_EFF_AFTER, T_NAME, T_ARGS,
  PT_START, PT_L0, PT_ELEM, PT_DOT1, PT_DOT2, PT_REST, PT_L_AFTER, PT_CTOR, PT_C0, PT_C1,
  PA_START, PA_PARAM, PA_COLON, PA_AFTER_TYPE, PA_AFTER_DEF,
  /* statements */
  SL, ST_START, ST_DONE, LET1, LET_TYPE, LET_ASSIGN, DS_NAME, DS_AFTER, DS_COLON, DS_ASSIGN, RET,
  ST_IDENT, CA_AFTER,
  IF_0, IF_THEN, IF_BODY, IF_ELSE, IF_ELSEBODY, IF_END2, LABEL,
  W_0, W_DO, W_END, W_END2, F_0, F_VAR, F_COLON, F_IN, F_DO, F_END, F_END2,
  TRY_0, TRY_CATCH, TRY_VAR, TRY_COLON, TRY_BODY, TRY_END, TRY_END2,
  MS_0, MS_WITH, MS_END, MS_END2,
  AR_START, AR_GUARD, AR_ARROW, AR_AFTER,
  /* expressions */
  E_START, E_AFTER, E_AFTER_STAGE, LG_START, LG_AFTER, NT_START, NT_WAIT, IX_START, IX_AFTER, IX_AFTER_CMP,
  UN_START, UN_WAIT, PF_START, PF_LOOP, PF_IDX_CLOSE, PF_FIELD, PF_WITH_HELD, PF_W_OPEN, PF_W_COLON,
  PF_W_AFTER, PF_W_FIELD, PF_DONE,
  AG_START, AG_ARG, AG_HELD, AG_AFTER,
  PR_START, PR_DONE, PR_CTOR, PR_FSTR, PR_FSTR_INTERP, PR_LIST0, PR_LIST1, PR_LIST_ITEMS, PR_COMP_VAR,
  PR_COMP_COLON, PR_COMP_IN, PR_COMP_IF, PR_COMP_CLOSE, PR_LAM_LP, PR_LAM_RP, PR_LAM_BODY, PR_LAM_END,
  PR_LAM_END2, PR_HOLE_NAME, PR_HOLE_COLON, PR_HOLE_WHERE, PR_MATCH_WITH, PR_MATCH_END, PR_MATCH_END2,
  PR_PAREN0, PR_PAREN1, PR_TUP0, PR_TUP1, PR_TUP2,
  SG_START, SG_DOTS, SG_FIELD, SG_ARG0, SG_ARG, SG_ARG_AFTER,
};

/* flags */
#define FL_UNTESTED 1
#define FL_EXPORTED 2
#define FL_EXPR_ARMS 1 /* AR_*: expression arms */
#define FL_OP 1        /* LG/IX/UN/E: an operator was read (the result is no field/index) */
#define FL_DEFAULT 1   /* PA_*: a parameter with a default was seen */
#define FL_NONEMPTY 1  /* SL: needs one statement (match arm body) */
#define FL_RESET 2     /* E_START pushed for an f-string interpolation */
#define FL_SUB 0x80    /* inside an f-string interpolation (inherited): the
                          parser drops errors it records without raising */

static bool push(Sess *S, uint16_t st, int contrib) {
  if (!pool_reserve(S, 1)) return false;
  Frame *p = &S->pool[S->c.top];
  int d = p->depth + contrib;
  if (d > MAX_DEPTH) return failf(S, "nesting too deep (more than %d levels)", MAX_DEPTH);
  uint32_t i = S->c.bump++;
  Frame *f = &S->pool[i];
  f->parent = S->c.top;
  f->st = st;
  f->depth = (uint8_t)d;
  f->fl = p->fl & FL_SUB;
  f->a = f->b = 0;
  S->c.top = i;
  return true;
}

/* the f-string interpolation parser starts its counter at zero */
static bool push_reset(Sess *S, uint16_t st) {
  if (!pool_reserve(S, 1)) return false;
  uint32_t i = S->c.bump++;
  Frame *f = &S->pool[i];
  f->parent = S->c.top;
  f->st = st;
  f->depth = 1;
  f->fl = FL_RESET | FL_SUB;
  f->a = f->b = 0;
  S->c.top = i;
  return true;
}

static void pop(Sess *S) { S->c.top = S->pool[S->c.top].parent; }

static bool set_st(Sess *S, uint16_t st) {
  Frame *f = wr(S);
  if (!f) return false;
  f->st = st;
  return true;
}

static bool is_block_end(int k) {
  return k == TOK_END || k == TOK_ELSE || k == TOK_BAR || k == TOK_CATCH || k == TOK_EOF;
}

static int infix_prec(int k) {
  switch (k) {
  case TOK_EQ: case TOK_NEQ: case TOK_LT: case TOK_GT: case TOK_LTE: case TOK_GTE: return 1;
  case TOK_CARET: return 2;
  case TOK_AMPERSAND: return 3;
  case TOK_LSHIFT: case TOK_RSHIFT: return 4;
  case TOK_PLUS: case TOK_MINUS: return 5;
  case TOK_STAR: case TOK_SLASH: case TOK_PERCENT: return 6;
  case TOK_DOUBLESTAR: return 7;
  default: return 0;
  }
}

/* An identifier that must be spelled `want`: in a probe (wild) the
 * requirement is recorded instead. */
static bool ident_is(Sess *S, const Tok *t, const char *want, uint32_t n) {
  if (t->wild) {
    S->need_text = true;
    S->need_ptr = want;
    S->need_len = n;
    return true;
  }
  return t->len == n && memcmp(t->text, want, n) == 0;
}

static const char *block_word(uint16_t st) {
  switch (st) {
  case FD_END2: return "func";
  case IF_END2: return "if";
  case W_END2: return "while";
  case F_END2: return "for";
  case TRY_END2: return "try";
  case MS_END2: case PR_MATCH_END2: return "match";
  case TR_END2: return "trait";
  case IM_END2: return "impl";
  case TS_END2: return "test";
  case PR_LAM_END2: return "fn";
  default: return NULL;
  }
}

static bool end_mismatch(Sess *S, uint16_t st, const Tok *t) {
  if (S->spec) return S->c.failed = true, false;
  const char *want = block_word(st);
  if (t->kind >= TOK_FIRST_KEYWORD && t->kind <= TOK_LAST_KEYWORD) {
    const char *got = tok_name((TokKind)t->kind); /* "'while'" */
    return failf(S, "mismatched end: expected 'end %s', got 'end %.*s'", want, (int)strlen(got) - 2, got + 1);
  }
  return failf(S, "expected '%s' after 'end', got %s", want, kname(t->kind));
}

#define CONSUME(next) return set_st(S, (next))
#define CONSUME_POP() return pop(S), true
/* (plain blocks, not do-while: `continue` must reach the loop; never
 * followed by `else`) */
#define GOTO(next) { if (!set_st(S, (next))) return false; continue; }
#define CALL(ret, child, contrib) { if (!set_st(S, (ret)) || !push(S, (child), (contrib))) return false; continue; }
/* consume the token, then the child reads what follows */
#define CONSUME_CALL(ret, child, contrib) return set_st(S, (ret)) && push(S, (child), (contrib))
#define POP() { pop(S); continue; }
#define FAIL() return unexpected(S, t)

static bool pstep(Sess *S, const Tok *t);

/* Dispatch a token that a state held back (lookahead), then the current. */
static bool held_then(Sess *S, int held_kind, const Tok *t) {
  Tok h = {(uint8_t)held_kind, false, false, false, t->col, NULL, 0};
  if (!pstep(S, &h)) return false;
  return pstep(S, t);
}

static bool pstep(Sess *S, const Tok *t) {
  const int k = t->kind;
  for (;;) {
    Frame *f = &S->pool[S->c.top];
    switch (f->st) {
    /* ---- program ---- */
    case PG:
      if (k == TOK_EOF) return true;
      if (k == TOK_END && !S->spec) return failf(S, "unexpected 'end' with no open block");
      CALL(PG, D_START, 0);
    case D_START:
      if (k == TOK_AT) { Frame *w = wr(S); if (!w) return false; w->fl |= FL_UNTESTED; w->a = D_AFTER_ANN1; CONSUME(D_AT_NAME); }
      if (k == TOK_EXPORT) { Frame *w = wr(S); if (!w) return false; w->fl |= FL_EXPORTED; CONSUME(D_AFTER_EXPORT); }
      GOTO(D_KIND);
    case D_AT_NAME:
      if (k == TOK_IDENT && ident_is(S, t, "untested", 8)) CONSUME(D_AT_LP);
      FAIL();
    case D_AT_LP:
      if (k == TOK_LPAREN) CONSUME(D_AT_STR);
      FAIL();
    case D_AT_STR:
      if (k == TOK_STRING && !t->empty) CONSUME(D_AT_RP);
      if (k == TOK_STRING) return failf(S, "@untested reason string must not be empty");
      FAIL();
    case D_AT_RP:
      if (k == TOK_RPAREN) CONSUME((uint16_t)f->a);
      FAIL();
    case D_AFTER_ANN1:
      if (k == TOK_EXPORT) return failf(S, "@untested must come after 'export', not before");
      GOTO(D_KIND);
    case D_AFTER_EXPORT:
      if (k == TOK_AT) { Frame *w = wr(S); if (!w) return false; w->fl |= FL_UNTESTED; w->a = D_KIND; CONSUME(D_AT_NAME); }
      GOTO(D_KIND);
    case D_KIND: {
      bool untested = f->fl & FL_UNTESTED, exported = f->fl & FL_EXPORTED;
      if (k == TOK_ASYNC) CONSUME(D_ASYNC);
      if (k == TOK_FUNC) { pop(S); if (!push(S, FD_FUNC, 0)) return false; continue; }
      if ((k == TOK_TYPE || k == TOK_IMPORT || k == TOK_TRAIT || k == TOK_IMPL || k == TOK_TEST) && untested)
        return failf(S, "@untested annotation is only valid on functions");
      if (k == TOK_TYPE) { pop(S); if (!push(S, TD_NAME, 0)) return false; return true; }
      if (k == TOK_IMPORT) {
        if (exported) return failf(S, "'export' cannot be used with 'import'");
        CONSUME(IMP_NAME);
      }
      if (k == TOK_TRAIT) {
        if (exported) return failf(S, "'export' on traits is not yet supported");
        pop(S);
        return push(S, TR_NAME, 0);
      }
      if (k == TOK_IMPL) {
        if (exported) return failf(S, "'export' cannot be used with 'impl'");
        pop(S);
        return push(S, IM_TRAIT, 0);
      }
      if (k == TOK_TEST) {
        if (exported) return failf(S, "'export' cannot be used with 'test'");
        pop(S);
        return push(S, TS_NAME, 0);
      }
      FAIL();
    }
    case D_ASYNC:
      if (k == TOK_FUNC) { pop(S); if (!push(S, FD_FUNC, 0)) return false; continue; }
      FAIL();
    case IMP_NAME:
      if (k == TOK_TYPE_IDENT) CONSUME(IMP_AS);
      FAIL();
    case IMP_AS:
      if (k == TOK_IDENT && ident_is(S, t, "as", 2)) CONSUME(IMP_ALIAS);
      POP();
    case IMP_ALIAS:
      if (k == TOK_TYPE_IDENT) CONSUME_POP();
      FAIL();
    /* ---- func ---- */
    case FD_FUNC:
      if (k == TOK_FUNC) CONSUME(FD_NAME);
      FAIL();
    case FD_NAME:
      if (k == TOK_IDENT) {
        Frame *w = wr(S);
        if (!w) return false;
        if (t->wild) {
          w->a = w->b = 0;
        } else {
          if (S->c.names + t->len > S->names_cap) {
            uint32_t cap = S->names_cap ? S->names_cap : 256;
            while (cap < S->c.names + t->len) cap *= 2;
            char *p = realloc(S->names, cap);
            if (!p) return S->oom = true, S->c.failed = true, false;
            S->names = p;
            S->names_cap = cap;
          }
          memcpy(S->names + S->c.names, t->text, t->len);
          w->a = S->c.names;
          w->b = t->len;
          S->c.names += t->len;
        }
        CONSUME(FD_LP);
      }
      FAIL();
    case FD_LP:
      if (k == TOK_LPAREN) CONSUME_CALL(FD_RP, PA_START, 0);
      FAIL();
    case FD_RP:
      if (k == TOK_RPAREN) CONSUME(FD_ARROW);
      FAIL();
    case FD_ARROW:
      if (k == TOK_ARROW) CONSUME_CALL(FD_WITH, T_START, 1);
      FAIL();
    case FD_WITH:
      if (k == TOK_WITH) CONSUME(FD_EFF);
      GOTO(FD_SPEC);
    case FD_EFF:
      if (k == TOK_IDENT || k == TOK_THROW) CONSUME(FD_EFF_AFTER);
      FAIL();
    case FD_EFF_AFTER:
      if (k == TOK_COMMA) CONSUME(FD_EFF);
      GOTO(FD_SPEC);
    case FD_SPEC:
      if (k == TOK_REQUIRES || k == TOK_ENSURES) CONSUME_CALL(FD_SPEC, E_START, 1);
      if (k == TOK_EXAMPLE) CONSUME_CALL(FD_EX_IN, E_START, 1);
      CALL(FD_END, SL, 0);
    case FD_EX_IN:
      if (k == TOK_COMMA) CONSUME_CALL(FD_EX_IN, E_START, 1);
      if (k == TOK_ARROW) CONSUME_CALL(FD_SPEC, E_START, 1);
      FAIL();
    case FD_END:
      if (k == TOK_END) CONSUME(FD_END2);
      FAIL();
    case FD_END2:
      if (k == TOK_FUNC) CONSUME(FD_CLOSE);
      return end_mismatch(S, f->st, t);
    case FD_CLOSE:
      if (k == TOK_IDENT) {
        if (ident_is(S, t, S->names ? S->names + f->a : "", f->b)) CONSUME_POP();
        if (S->spec) return S->c.failed = true, false;
        return failf(S, "Function closing name '%.*s' doesn't match '%.*s'", (int)t->len, t->text, (int)f->b,
                     S->names + f->a);
      }
      POP();
    /* ---- type declarations ---- */
    case TD_NAME:
      if (k == TOK_TYPE_IDENT) CONSUME(TD_LB);
      FAIL();
    case TD_LB:
      if (k == TOK_LBRACKET) CONSUME(TD_P);
      GOTO(TD_EQ);
    case TD_P:
      if (k == TOK_TYPE_IDENT) CONSUME(TD_P_AFTER);
      FAIL();
    case TD_P_AFTER:
      if (k == TOK_COMMA) CONSUME(TD_P);
      if (k == TOK_RBRACKET) CONSUME(TD_EQ);
      FAIL();
    case TD_EQ:
      if (k == TOK_ASSIGN) CONSUME(TD_AFTER_EQ);
      FAIL();
    case TD_AFTER_EQ:
      if (k == TOK_LPAREN) { pop(S); if (!push(S, T_START, 1)) return false; continue; }
      if (k == TOK_TYPE_IDENT) CONSUME(TD_HELD);
      GOTO(V_NAME);
    case TD_HELD:
      if (k == TOK_LPAREN || k == TOK_BAR) GOTO(V_AFTER_NAME); /* an ADT; the name was its first variant */
      pop(S);
      if (!push(S, T_START, 1)) return false;
      return held_then(S, TOK_TYPE_IDENT, t);
    case V_NAME:
      if (k == TOK_TYPE_IDENT) CONSUME(V_AFTER_NAME);
      FAIL();
    case V_AFTER_NAME:
      if (k == TOK_LPAREN) CONSUME(V_F0);
      GOTO(V_AFTER);
    case V_F0:
      if (k == TOK_RPAREN) CONSUME(V_AFTER);
      GOTO(V_FIELD);
    case V_FIELD:
      if (k == TOK_IDENT) CONSUME(V_FCOLON);
      FAIL();
    case V_FCOLON:
      if (k == TOK_COLON) CONSUME_CALL(V_F_AFTER, T_START, 1);
      FAIL();
    case V_F_AFTER:
      if (k == TOK_COMMA) CONSUME(V_FIELD);
      if (k == TOK_RPAREN) CONSUME(V_AFTER);
      FAIL();
    case V_AFTER:
      if (k == TOK_BAR) CONSUME(V_NAME);
      POP();
    /* ---- trait, impl, test ---- */
    case TR_NAME:
      if (k == TOK_TYPE_IDENT) CONSUME(TR_BODY);
      FAIL();
    case TR_BODY:
      if (k == TOK_END) CONSUME(TR_END2);
      if (k == TOK_FUNC) CONSUME(TM_NAME);
      FAIL();
    case TR_END2:
      if (k == TOK_TRAIT) CONSUME_POP();
      return end_mismatch(S, f->st, t);
    case TM_NAME:
      if (k == TOK_IDENT) CONSUME(TM_LP);
      FAIL();
    case TM_LP:
      if (k == TOK_LPAREN) CONSUME_CALL(TM_RP, PA_START, 0);
      FAIL();
    case TM_RP:
      if (k == TOK_RPAREN) CONSUME(TM_ARROW);
      FAIL();
    case TM_ARROW:
      if (k == TOK_ARROW) CONSUME_CALL(TR_BODY, T_START, 1);
      FAIL();
    case IM_TRAIT:
      if (k == TOK_TYPE_IDENT) CONSUME(IM_FOR);
      FAIL();
    case IM_FOR:
      if (k == TOK_FOR) CONSUME(IM_TYPE);
      FAIL();
    case IM_TYPE:
      if (k == TOK_TYPE_IDENT) CONSUME(IM_BODY);
      FAIL();
    case IM_BODY:
      if (k == TOK_END) CONSUME(IM_END2);
      if (k == TOK_EOF) FAIL();
      CALL(IM_BODY, FD_FUNC, 0);
    case IM_END2:
      if (k == TOK_IMPL) CONSUME_POP();
      return end_mismatch(S, f->st, t);
    case TS_NAME:
      if (k == TOK_STRING) CONSUME(TS_BODY);
      FAIL();
    case TS_BODY:
      if (k == TOK_END) CONSUME(TS_END2);
      if (k == TOK_EOF) FAIL();
      if (k == TOK_ASSERT) CONSUME_CALL(TS_BODY, E_START, 1);
      CALL(TS_BODY, ST_START, 0);
    case TS_END2:
      if (k == TOK_TEST) CONSUME_POP();
      return end_mismatch(S, f->st, t);
    /* ---- types ---- */
    case T_START:
      if (k == TOK_LPAREN) CONSUME(T_P0);
      if (k == TOK_TYPE_IDENT) CONSUME(T_NAME);
      FAIL();
    case T_P0:
      if (k == TOK_RPAREN) CONSUME(T_P_AFTER);
      CALL(T_P1, T_START, 1);
    case T_P1:
      if (k == TOK_COMMA) CONSUME_CALL(T_P1, T_START, 1);
      if (k == TOK_RPAREN) CONSUME(T_P_AFTER);
      FAIL();
    case T_P_AFTER:
      if (k == TOK_ARROW) CONSUME_CALL(T_FN_WITH, T_START, 1);
      POP();
    case T_FN_WITH:
      if (k == TOK_WITH) CONSUME(T_EFF);
      POP();
    case T_EFF:
      if (k == TOK_IDENT || k == TOK_THROW) CONSUME(T_EFF_AFTER);
      FAIL();
    case T_EFF_AFTER:
      if (k == TOK_COMMA) CONSUME(T_EFF);
      POP();
    case T_NAME:
      if (k == TOK_LBRACKET) CONSUME_CALL(T_ARGS, T_START, 1);
      POP();
    case T_ARGS:
      if (k == TOK_COMMA) CONSUME_CALL(T_ARGS, T_START, 1);
      if (k == TOK_RBRACKET) CONSUME_POP();
      FAIL();
    /* ---- patterns ---- */
    case PT_START:
      if (k == TOK_UNDERSCORE || k == TOK_IDENT || k == TOK_INT || k == TOK_FLOAT || k == TOK_STRING ||
          k == TOK_TRUE || k == TOK_FALSE)
        CONSUME_POP();
      if (k == TOK_LBRACKET) CONSUME(PT_L0);
      if (k == TOK_TYPE_IDENT) CONSUME(PT_CTOR);
      FAIL();
    case PT_L0:
      if (k == TOK_RBRACKET) CONSUME_POP();
      GOTO(PT_ELEM);
    case PT_ELEM:
      if (k == TOK_DOT) {
        if (f->a >= 1) return failf(S, "List pattern may contain at most one rest ('...') element");
        CONSUME(PT_DOT1);
      }
      CALL(PT_L_AFTER, PT_START, 1);
    case PT_DOT1:
      if (k == TOK_DOT) CONSUME(PT_DOT2);
      FAIL();
    case PT_DOT2:
      if (k == TOK_DOT) { Frame *w = wr(S); if (!w) return false; w->a++; CONSUME(PT_REST); }
      FAIL();
    case PT_REST:
      if (k == TOK_IDENT) CONSUME(PT_L_AFTER);
      GOTO(PT_L_AFTER);
    case PT_L_AFTER:
      if (k == TOK_COMMA) CONSUME(PT_ELEM);
      if (k == TOK_RBRACKET) CONSUME_POP();
      FAIL();
    case PT_CTOR:
      if (k == TOK_LPAREN) CONSUME(PT_C0);
      POP();
    case PT_C0:
      if (k == TOK_RPAREN) CONSUME_POP();
      CALL(PT_C1, PT_START, 1);
    case PT_C1:
      if (k == TOK_COMMA) CONSUME_CALL(PT_C1, PT_START, 1);
      if (k == TOK_RPAREN) CONSUME_POP();
      FAIL();
    /* ---- parameters (the parent reads the parentheses) ---- */
    case PA_START:
      if (k == TOK_RPAREN) POP();
      GOTO(PA_PARAM);
    case PA_PARAM:
      if (k == TOK_IDENT) CONSUME(PA_COLON);
      FAIL();
    case PA_COLON:
      if (k == TOK_COLON) CONSUME_CALL(PA_AFTER_TYPE, T_START, 1);
      FAIL();
    case PA_AFTER_TYPE:
      if (k == TOK_ASSIGN) {
        Frame *w = wr(S);
        if (!w) return false;
        w->fl |= FL_DEFAULT;
        CONSUME_CALL(PA_AFTER_DEF, E_START, 1);
      }
      if ((f->fl & FL_DEFAULT) && !(f->fl & FL_SUB)) return failf(S, "a required parameter cannot follow a parameter with a default value");
      GOTO(PA_AFTER_DEF);
    case PA_AFTER_DEF:
      if (k == TOK_COMMA) CONSUME(PA_PARAM);
      POP();
    /* ---- statements ---- */
    case SL:
      if (is_block_end(k)) {
        if ((f->fl & FL_NONEMPTY) && f->a == 0) return failf(S, "Match arm body must contain at least one statement");
        POP();
      }
      {
        Frame *w = wr(S);
        if (!w) return false;
        w->a = 1;
      }
      CALL(SL, ST_START, 0);
    case ST_START:
      switch (k) {
      case TOK_LET: case TOK_VAR: CONSUME(LET1);
      case TOK_IF: pop(S); if (!push(S, IF_0, 1)) return false; continue;
      case TOK_WHILE: pop(S); if (!push(S, W_0, 1)) return false; continue;
      case TOK_FOR: pop(S); if (!push(S, F_0, 1)) return false; continue;
      case TOK_MATCH: pop(S); if (!push(S, MS_0, 1)) return false; continue;
      case TOK_TRY: pop(S); if (!push(S, TRY_0, 1)) return false; continue;
      case TOK_RETURN: CONSUME(RET);
      case TOK_BREAK: case TOK_CONTINUE: CONSUME_POP();
      case TOK_IDENT: CONSUME(ST_IDENT);
      default: CALL(ST_DONE, E_START, 1);
      }
    case ST_DONE:
      POP();
    case LET1:
      if (k == TOK_LPAREN) CONSUME(DS_NAME);
      if (k == TOK_IDENT) CONSUME(LET_TYPE);
      FAIL();
    case LET_TYPE:
      if (k == TOK_COLON) CONSUME_CALL(LET_ASSIGN, T_START, 1);
      if (k == TOK_ASSIGN) CONSUME_CALL(ST_DONE, E_START, 1);
      FAIL();
    case LET_ASSIGN:
      if (k == TOK_ASSIGN) CONSUME_CALL(ST_DONE, E_START, 1);
      FAIL();
    case DS_NAME:
      if (k == TOK_IDENT) CONSUME(DS_AFTER);
      FAIL();
    case DS_AFTER:
      if (k == TOK_COMMA) CONSUME(DS_NAME);
      if (k == TOK_RPAREN) CONSUME(DS_COLON);
      FAIL();
    case DS_COLON:
      if (k == TOK_COLON) CONSUME_CALL(DS_ASSIGN, T_START, 1);
      FAIL();
    case DS_ASSIGN:
      if (k == TOK_ASSIGN) CONSUME_CALL(ST_DONE, E_START, 1);
      FAIL();
    case RET:
      if (is_block_end(k) || t->nl) POP();
      CALL(ST_DONE, E_START, 1);
    case ST_IDENT:
      if (k == TOK_ASSIGN) CONSUME_CALL(ST_DONE, E_START, 1);
      if (!set_st(S, (k == TOK_LBRACKET || k == TOK_DOT) ? CA_AFTER : ST_DONE) || !push(S, E_START, 1)) return false;
      return held_then(S, TOK_IDENT, t);
    case CA_AFTER:
      if (k == TOK_ASSIGN) {
        if (S->c.shape == SH_OTHER)
          return failf(S, "Invalid assignment target: only variables, fields (x.field), and indices (x[i]) can be assigned to");
        CONSUME_CALL(ST_DONE, E_START, 1);
      }
      POP();
    case IF_0:
      if (k == TOK_IF) CONSUME_CALL(IF_THEN, E_START, 1);
      FAIL();
    case IF_THEN:
      if (k == TOK_THEN) CONSUME_CALL(IF_BODY, SL, 0);
      FAIL();
    case IF_BODY:
      if (k == TOK_ELSE) {
        Frame *w = wr(S);
        if (!w) return false;
        w->a = (uint32_t)t->col;
        CONSUME(IF_ELSE);
      }
      if (k == TOK_END) CONSUME(IF_END2);
      FAIL();
    case IF_ELSE:
      if (k == TOK_IF && (!t->nl || t->col <= (int32_t)f->a)) CONSUME_CALL(IF_THEN, E_START, 1);
      CALL(IF_ELSEBODY, SL, 0);
    case IF_ELSEBODY:
      if (k == TOK_END) CONSUME(IF_END2);
      FAIL();
    case IF_END2:
      if (k == TOK_IF) CONSUME(LABEL);
      return end_mismatch(S, f->st, t);
    case LABEL:
      if (k == TOK_STRING) CONSUME_POP();
      POP();
    case W_0:
      if (k == TOK_WHILE) CONSUME_CALL(W_DO, E_START, 1);
      FAIL();
    case W_DO:
      if (k == TOK_DO) CONSUME_CALL(W_END, SL, 0);
      FAIL();
    case W_END:
      if (k == TOK_END) CONSUME(W_END2);
      FAIL();
    case W_END2:
      if (k == TOK_WHILE) CONSUME(LABEL);
      return end_mismatch(S, f->st, t);
    case F_0:
      if (k == TOK_FOR) CONSUME(F_VAR);
      FAIL();
    case F_VAR:
      if (k == TOK_IDENT) CONSUME(F_COLON);
      FAIL();
    case F_COLON:
      if (k == TOK_COLON) CONSUME_CALL(F_IN, T_START, 1);
      FAIL();
    case F_IN:
      if (k == TOK_IN) CONSUME_CALL(F_DO, E_START, 1);
      FAIL();
    case F_DO:
      if (k == TOK_DO) CONSUME_CALL(F_END, SL, 0);
      FAIL();
    case F_END:
      if (k == TOK_END) CONSUME(F_END2);
      FAIL();
    case F_END2:
      if (k == TOK_FOR) CONSUME(LABEL);
      return end_mismatch(S, f->st, t);
    case TRY_0:
      if (k == TOK_TRY) CONSUME_CALL(TRY_CATCH, SL, 0);
      FAIL();
    case TRY_CATCH:
      if (k == TOK_CATCH) CONSUME(TRY_VAR);
      FAIL();
    case TRY_VAR:
      if (k == TOK_IDENT) CONSUME(TRY_COLON);
      FAIL();
    case TRY_COLON:
      if (k == TOK_COLON) CONSUME_CALL(TRY_BODY, T_START, 1);
      FAIL();
    case TRY_BODY:
      CALL(TRY_END, SL, 0);
    case TRY_END:
      if (k == TOK_END) CONSUME(TRY_END2);
      FAIL();
    case TRY_END2:
      if (k == TOK_TRY) CONSUME_POP();
      return end_mismatch(S, f->st, t);
    case MS_0:
      if (k == TOK_MATCH) CONSUME_CALL(MS_WITH, E_START, 1);
      FAIL();
    case MS_WITH:
      if (k == TOK_WITH) CONSUME_CALL(MS_END, AR_START, 0);
      FAIL();
    case MS_END:
      if (k == TOK_END) CONSUME(MS_END2);
      FAIL();
    case MS_END2:
      if (k == TOK_MATCH) CONSUME(LABEL);
      return end_mismatch(S, f->st, t);
    case AR_START:
      if (k == TOK_BAR) CONSUME_CALL(AR_GUARD, PT_START, 1);
      if (!S->spec) return failf(S, "Match must have at least one arm (each arm starts with '|')");
      FAIL();
    case AR_GUARD:
      if (k == TOK_IDENT && ident_is(S, t, "when", 4)) CONSUME_CALL(AR_ARROW, E_START, 1);
      GOTO(AR_ARROW);
    case AR_ARROW:
      if (k == TOK_ARROW) {
        if (f->fl & FL_EXPR_ARMS) CONSUME_CALL(AR_AFTER, E_START, 1);
        if (!set_st(S, AR_AFTER) || !push(S, SL, 0)) return false;
        S->pool[S->c.top].fl |= FL_NONEMPTY;
        return true;
      }
      FAIL();
    case AR_AFTER:
      if (k == TOK_BAR) CONSUME_CALL(AR_GUARD, PT_START, 1);
      POP();
    /* ---- expressions ---- */
    case E_START:
      CALL(E_AFTER, LG_START, 0);
    case E_AFTER:
    case E_AFTER_STAGE:
      if (k == TOK_PIPE) {
        Frame *w = wr(S);
        if (!w) return false;
        w->fl |= FL_OP;
        CONSUME_CALL(E_AFTER_STAGE, SG_START, 0);
      }
      if (f->fl & FL_OP) S->c.shape = SH_OTHER;
      POP();
    case LG_START:
      CALL(LG_AFTER, NT_START, 0);
    case LG_AFTER: {
      int prec = k == TOK_OR ? 1 : k == TOK_AND ? 2 : 0;
      if (prec == 0 || prec < (int)f->a) {
        if (f->fl & FL_OP) S->c.shape = SH_OTHER;
        POP();
      }
      Frame *w = wr(S);
      if (!w) return false;
      w->fl |= FL_OP;
      if (!push(S, LG_START, 0)) return false;
      S->pool[S->c.top].a = (uint32_t)prec + 1;
      return true;
    }
    case NT_START:
      if (k == TOK_NOT) {
        Frame *w = wr(S);
        if (!w) return false;
        w->fl |= FL_OP;
        CONSUME_CALL(NT_WAIT, NT_START, 1);
      }
      if (!set_st(S, NT_WAIT) || !push(S, IX_START, 0)) return false;
      S->pool[S->c.top].a = 1;
      continue;
    case NT_WAIT:
      if (f->fl & FL_OP) S->c.shape = SH_OTHER; /* a `not` was read */
      POP();
    case IX_START:
      CALL(IX_AFTER, UN_START, 0);
    case IX_AFTER: {
      int prec = infix_prec(k);
      if (prec == 0 || prec < (int)f->a) {
        if (f->fl & FL_OP) S->c.shape = SH_OTHER;
        POP();
      }
      Frame *w = wr(S);
      if (!w) return false;
      w->fl |= FL_OP;
      if (prec == 1) w->st = IX_AFTER_CMP;
      if (!push(S, IX_START, 1)) return false;
      S->pool[S->c.top].a = (uint32_t)(k == TOK_DOUBLESTAR ? prec : prec + 1);
      return true;
    }
    case IX_AFTER_CMP:
      if (infix_prec(k) == 1) return failf(S, "Comparison chaining is not supported; write 'a < b and b < c' instead");
      S->c.shape = SH_OTHER;
      POP();
    case UN_START:
      if (k == TOK_MINUS || k == TOK_TILDE) {
        Frame *w = wr(S);
        if (!w) return false;
        w->fl |= FL_OP;
        CONSUME_CALL(UN_WAIT, UN_START, 1);
      }
      CALL(UN_WAIT, PF_START, 0);
    case UN_WAIT:
      if (f->fl & FL_OP) S->c.shape = SH_OTHER;
      POP();
    case PF_START:
      CALL(PF_LOOP, PR_START, 0);
    case PF_LOOP:
      switch (k) {
      case TOK_LPAREN: f = wr(S); if (!f) return false; f->a = SH_OTHER; CONSUME_CALL(PF_LOOP, AG_START, 0);
      case TOK_LBRACKET: f = wr(S); if (!f) return false; f->a = SH_INDEX; CONSUME_CALL(PF_IDX_CLOSE, E_START, 1);
      case TOK_DOT: f = wr(S); if (!f) return false; f->a = SH_FIELD; CONSUME(PF_FIELD);
      case TOK_QUESTION: f = wr(S); if (!f) return false; f->a = SH_OTHER; CONSUME(PF_LOOP);
      case TOK_WITH: CONSUME(PF_WITH_HELD);
      default: S->c.shape = (uint8_t)f->a; POP();
      }
    case PF_IDX_CLOSE:
      if (k == TOK_RBRACKET) CONSUME(PF_LOOP);
      FAIL();
    case PF_FIELD:
      if (k == TOK_IDENT) CONSUME(PF_LOOP);
      FAIL();
    case PF_WITH_HELD:
      if (k == TOK_LPAREN) { f = wr(S); if (!f) return false; f->a = SH_OTHER; CONSUME(PF_W_OPEN); }
      S->c.shape = (uint8_t)f->a;
      pop(S);
      return held_then(S, TOK_WITH, t);
    case PF_W_OPEN:
      if (k == TOK_RPAREN) CONSUME(PF_DONE);
      GOTO(PF_W_FIELD);
    case PF_W_FIELD:
      if (k == TOK_IDENT) CONSUME(PF_W_COLON);
      FAIL();
    case PF_W_COLON:
      if (k == TOK_COLON) CONSUME_CALL(PF_W_AFTER, E_START, 1);
      FAIL();
    case PF_W_AFTER:
      if (k == TOK_COMMA) CONSUME(PF_W_FIELD);
      if (k == TOK_RPAREN) CONSUME(PF_DONE);
      FAIL();
    case PF_DONE:
      S->c.shape = SH_OTHER;
      POP();
    case AG_START:
      if (k == TOK_RPAREN) CONSUME_POP();
      GOTO(AG_ARG);
    case AG_ARG:
      if (k == TOK_IDENT) CONSUME(AG_HELD);
      CALL(AG_AFTER, E_START, 1);
    case AG_HELD:
      if (k == TOK_COLON) CONSUME_CALL(AG_AFTER, E_START, 1);
      if (!set_st(S, AG_AFTER) || !push(S, E_START, 1)) return false;
      return held_then(S, TOK_IDENT, t);
    case AG_AFTER:
      if (k == TOK_COMMA) CONSUME(AG_ARG);
      if (k == TOK_RPAREN) CONSUME_POP();
      FAIL();
    case PR_START:
      switch (k) {
      case TOK_IDENT: case TOK_INT: case TOK_FLOAT: case TOK_STRING: case TOK_TRUE: case TOK_FALSE: CONSUME_POP();
      case TOK_TYPE_IDENT: CONSUME(PR_CTOR);
      case K_FSTR_BEGIN: CONSUME(PR_FSTR);
      case TOK_THROW: case TOK_AWAIT: CONSUME_CALL(PR_DONE, E_START, 1);
      case TOK_LBRACKET: CONSUME(PR_LIST0);
      case TOK_FN: CONSUME(PR_LAM_LP);
      case TOK_QUESTION: CONSUME(PR_HOLE_NAME);
      case TOK_MATCH: CONSUME_CALL(PR_MATCH_WITH, E_START, 1);
      case TOK_LPAREN: CONSUME(PR_PAREN0);
      default:
        if (S->spec) return S->c.failed = true, false;
        return failf(S, "Expected expression (e.g., a value, variable, or function call), got %s", kname(k));
      }
    case PR_DONE:
      POP();
    case PR_CTOR:
      if (k == TOK_LPAREN) CONSUME_CALL(PR_DONE, AG_START, 0);
      POP();
    case PR_FSTR:
      if (k == K_INTERP_BEGIN) return set_st(S, PR_FSTR_INTERP) && push_reset(S, E_START);
      if (k == K_FSTR_END) CONSUME_POP();
      FAIL();
    case PR_FSTR_INTERP:
      if (k == TOK_EOF) CONSUME(PR_FSTR);
      if (!S->spec) return failf(S, "Unexpected token in f-string expression: %s", kname(k));
      FAIL();
    case PR_LIST0:
      if (k == TOK_RBRACKET) CONSUME_POP();
      CALL(PR_LIST1, E_START, 1);
    case PR_LIST1:
      if (k == TOK_FOR) CONSUME(PR_COMP_VAR);
      if (k == TOK_COMMA) CONSUME_CALL(PR_LIST_ITEMS, E_START, 1);
      if (k == TOK_RBRACKET) CONSUME_POP();
      FAIL();
    case PR_LIST_ITEMS:
      if (k == TOK_COMMA) CONSUME_CALL(PR_LIST_ITEMS, E_START, 1);
      if (k == TOK_RBRACKET) CONSUME_POP();
      FAIL();
    case PR_COMP_VAR:
      if (k == TOK_IDENT) CONSUME(PR_COMP_COLON);
      FAIL();
    case PR_COMP_COLON:
      if (k == TOK_COLON) CONSUME_CALL(PR_COMP_IN, T_START, 1);
      FAIL();
    case PR_COMP_IN:
      if (k == TOK_IN) CONSUME_CALL(PR_COMP_IF, E_START, 1);
      FAIL();
    case PR_COMP_IF:
      if (k == TOK_IF) CONSUME_CALL(PR_COMP_CLOSE, E_START, 1);
      if (k == TOK_RBRACKET) CONSUME_POP();
      FAIL();
    case PR_COMP_CLOSE:
      if (k == TOK_RBRACKET) CONSUME_POP();
      FAIL();
    case PR_LAM_LP:
      if (k == TOK_LPAREN) CONSUME_CALL(PR_LAM_RP, PA_START, 0);
      FAIL();
    case PR_LAM_RP:
      if (k == TOK_RPAREN) CONSUME(PR_LAM_BODY);
      FAIL();
    case PR_LAM_BODY:
      if (k == TOK_DO) CONSUME_CALL(PR_LAM_END, SL, 0);
      if (k == TOK_ARROW) CONSUME_CALL(PR_DONE, E_START, 1);
      if (!S->spec) return failf(S, "Expected '->' or 'do' after lambda parameter list");
      FAIL();
    case PR_LAM_END:
      if (k == TOK_END) CONSUME(PR_LAM_END2);
      FAIL();
    case PR_LAM_END2:
      if (k == TOK_FN) CONSUME_POP();
      return end_mismatch(S, f->st, t);
    case PR_HOLE_NAME:
      if (k == TOK_IDENT) CONSUME(PR_HOLE_COLON);
      FAIL();
    case PR_HOLE_COLON:
      if (k == TOK_COLON) CONSUME_CALL(PR_HOLE_WHERE, T_START, 1);
      FAIL();
    case PR_HOLE_WHERE:
      if (k == TOK_WHERE) CONSUME_CALL(PR_DONE, E_START, 1);
      POP();
    case PR_MATCH_WITH:
      if (k == TOK_WITH) {
        if (!set_st(S, PR_MATCH_END) || !push(S, AR_START, 0)) return false;
        S->pool[S->c.top].fl |= FL_EXPR_ARMS;
        return true;
      }
      FAIL();
    case PR_MATCH_END:
      if (k == TOK_END) CONSUME(PR_MATCH_END2);
      FAIL();
    case PR_MATCH_END2:
      if (k == TOK_MATCH) CONSUME_POP();
      return end_mismatch(S, f->st, t);
    case PR_PAREN0:
      if (k == TOK_RPAREN) CONSUME_POP();
      CALL(PR_PAREN1, E_START, 1);
    case PR_PAREN1:
      if (k == TOK_COMMA) CONSUME(PR_TUP0);
      if (k == TOK_RPAREN) CONSUME_POP();
      FAIL();
    case PR_TUP0:
      if (k == TOK_RPAREN) CONSUME_POP();
      CALL(PR_TUP1, E_START, 1);
    case PR_TUP1:
      if (k == TOK_COMMA) CONSUME(PR_TUP2);
      if (k == TOK_RPAREN) CONSUME_POP();
      FAIL();
    case PR_TUP2:
      if (k == TOK_RPAREN) CONSUME_POP();
      CALL(PR_TUP1, E_START, 1);
    case SG_START:
      CALL(SG_DOTS, PR_START, 0);
    case SG_DOTS:
      if (k == TOK_DOT) CONSUME(SG_FIELD);
      if (k == TOK_LPAREN) CONSUME(SG_ARG0);
      POP();
    case SG_FIELD:
      if (k == TOK_IDENT) CONSUME(SG_DOTS);
      FAIL();
    case SG_ARG0:
      if (k == TOK_RPAREN) CONSUME_POP();
      GOTO(SG_ARG);
    case SG_ARG:
      if (k == TOK_UNDERSCORE) CONSUME(SG_ARG_AFTER);
      CALL(SG_ARG_AFTER, E_START, 1);
    case SG_ARG_AFTER:
      if (k == TOK_COMMA) CONSUME(SG_ARG);
      if (k == TOK_RPAREN) CONSUME_POP();
      FAIL();
    default:
      return failf(S, "internal error: recognizer state %u", f->st);
    }
  }
}

/* ---- probes: does the recognizer accept a token of this kind now? ------- */

static int32_t layout_key(const Sess *S, bool nl, int32_t col) {
  uint16_t st = S->pool[S->c.top].st;
  if (st == RET) return nl;
  if (st == IF_ELSE) return nl ? 2 + col : 0;
  return -1;
}

static ProbeCache *cache_for(Sess *S, bool nl, int32_t col) {
  int32_t lay = layout_key(S, nl, col);
  ProbeCache *pc = &S->cache[(S->c.ctx * 7u + (uint32_t)lay) & 63];
  if (pc->ctx != S->c.ctx || pc->lay != lay) {
    memset(pc, 0, sizeof *pc);
    pc->ctx = S->c.ctx;
    pc->lay = lay;
  }
  return pc;
}

/* Accepts kind k (IDENT: of some spelling; see *pc->ident_need). */
static bool probe(Sess *S, int k, bool nl, int32_t col, ProbeCache **out) {
  ProbeCache *pc = cache_for(S, nl, col);
  if (out) *out = pc;
  uint64_t bit = 1ull << (k & 63);
  if (pc->known[k >> 6] & bit) return (pc->acc[k >> 6] & bit) != 0;
  Core save = S->c;
  bool spec = S->spec;
  S->spec = true;
  S->c.mark = S->c.bump;
  S->need_text = false;
  Tok t = {(uint8_t)k, nl, k == TOK_IDENT, false, col, NULL, 0};
  bool ok = pstep(S, &t) && !S->c.failed;
  if (ok && k == TOK_IDENT && S->need_text) {
    pc->ident_need = true;
    pc->need_len = S->need_len;
    if (S->names && S->need_ptr >= S->names && S->need_ptr < S->names + S->names_cap) {
      pc->need_in_names = true;
      pc->need_off = (uint32_t)(S->need_ptr - S->names);
    } else {
      pc->need_lit = S->need_ptr;
    }
  }
  S->c = save;
  S->spec = spec;
  pc->known[k >> 6] |= bit;
  if (ok) pc->acc[k >> 6] |= bit;
  return ok;
}

/* Accepts the token sequence k1 k2 (used for "1." = INT DOT). */
static bool probe2(Sess *S, int k1, int k2, bool nl, int32_t col) {
  Core save = S->c;
  bool spec = S->spec;
  S->spec = true;
  S->c.mark = S->c.bump;
  Tok t1 = {(uint8_t)k1, nl, false, false, col, NULL, 0};
  Tok t2 = {(uint8_t)k2, false, false, false, col + 1, NULL, 0};
  bool ok = pstep(S, &t1) && !S->c.failed && pstep(S, &t2) && !S->c.failed;
  S->c = save;
  S->spec = spec;
  return ok;
}

static const char *const kw_text[] = {
    "and",  "assert", "async", "await", "break", "catch", "continue", "do",     "else",   "end",
    "ensures", "example", "export", "false", "fn", "for", "func", "if", "impl", "import", "in",
    "let",  "match", "not", "or", "ref", "requires", "return", "test", "then", "throw", "trait",
    "true", "try", "type", "var", "where", "while", "with",
};
_Static_assert(sizeof kw_text / sizeof *kw_text == TOK_LAST_KEYWORD - TOK_FIRST_KEYWORD + 1, "keyword table");

static int keyword_of(const char *s, uint32_t n) {
  if (n < 2 || n > 8) return -1;
  for (int i = 0; i <= TOK_LAST_KEYWORD - TOK_FIRST_KEYWORD; i++)
    if (kw_text[i][0] == s[0] && strlen(kw_text[i]) == n && memcmp(kw_text[i], s, n) == 0)
      return TOK_FIRST_KEYWORD + i;
  return -1;
}

static bool is_upper(unsigned c) { return c >= 'A' && c <= 'Z'; }
static bool is_digit(unsigned c) { return c >= '0' && c <= '9'; }
static bool is_idstart(unsigned c) { return (c >= 'a' && c <= 'z') || is_upper(c) || c == '_'; }
static bool is_idchar(unsigned c) { return is_idstart(c) || is_digit(c); }

/* An unfinished name can still become a token the recognizer accepts:
 * itself or any longer name, or a keyword it begins. */
static bool name_viable(Sess *S, const Level *L) {
  const char *s = S->idbuf + S->c.id_off;
  uint32_t n = S->c.id_len;
  if (is_upper((unsigned char)s[0])) return probe(S, TOK_TYPE_IDENT, L->tok_nl, L->tok_col, NULL);
  if (n == 1 && s[0] == '_' && probe(S, TOK_UNDERSCORE, L->tok_nl, L->tok_col, NULL)) return true;
  ProbeCache *pc;
  if (probe(S, TOK_IDENT, L->tok_nl, L->tok_col, &pc)) {
    if (!pc->ident_need) return true;
    const char *want = pc->need_in_names ? S->names + pc->need_off : pc->need_lit;
    if (n <= pc->need_len && memcmp(s, want, n) == 0) return true;
  }
  if (n > 8 || s[0] == '_') return false;
  for (int i = 0; i <= TOK_LAST_KEYWORD - TOK_FIRST_KEYWORD; i++) {
    const char *w = kw_text[i];
    if (w[0] == s[0] && strncmp(w, s, n) == 0 && strlen(w) >= n &&
        probe(S, TOK_FIRST_KEYWORD + i, L->tok_nl, L->tok_col, NULL))
      return true;
  }
  return false;
}

/* ---- the byte-level lexer ------------------------------------------------- */

static bool emit(Sess *S, Level *L, int kind, bool empty) {
  Tok t = {(uint8_t)kind, L->tok_nl, false, empty, L->tok_col, NULL, 0};
  if (kind == TOK_IDENT) {
    t.text = S->idbuf + S->c.id_off;
    t.len = S->c.id_len;
  }
  S->c.nl = false;
  if (!pstep(S, &t) || S->c.failed) {
    S->c.failed = true;
    return false;
  }
  S->c.ctx = ++S->ctx_counter;
  return true;
}

static void begin(Sess *S, Level *L, uint8_t mode) {
  L->mode = mode;
  L->tok_pos = S->c.pos;
  L->tok_nl = S->c.nl;
  L->tok_col = S->c.col;
  L->ndig = 0;
  L->op = 0;
}

static bool emit_name(Sess *S, Level *L) {
  const char *s = S->idbuf + S->c.id_off;
  uint32_t n = S->c.id_len;
  int k = keyword_of(s, n);
  if (k < 0) k = (n == 1 && s[0] == '_') ? TOK_UNDERSCORE : is_upper((unsigned char)s[0]) ? TOK_TYPE_IDENT : TOK_IDENT;
  return emit(S, L, k, false);
}

static bool add_id_byte(Sess *S, unsigned c) {
  uint32_t need = S->c.id_off + S->c.id_len + 1;
  if (need > S->idcap) {
    uint32_t cap = S->idcap ? S->idcap : 64;
    while (cap < need) cap *= 2;
    char *p = realloc(S->idbuf, cap);
    if (!p) {
      S->oom = true;
      S->c.failed = true;
      return false;
    }
    S->idbuf = p;
    S->idcap = cap;
  }
  S->idbuf[S->c.id_off + S->c.id_len++] = (char)c;
  return true;
}

/* The lexeme being read cannot become any token accepted here. */
static bool lexeme_fail(Sess *S, Level *L) {
  if (S->explain && !S->spec) return true;
  if (!S->spec) S->fail_lexeme = (int64_t)L->tok_pos;
  return failf(S, "no token that can come here starts like this");
}

static bool lexfail(Sess *S, const char *msg) { return failf(S, "Lexer error: %s", msg); }

static int single_op(unsigned c) {
  switch (c) {
  case '+': return TOK_PLUS;
  case '%': return TOK_PERCENT;
  case '&': return TOK_AMPERSAND;
  case '^': return TOK_CARET;
  case '~': return TOK_TILDE;
  case '(': return TOK_LPAREN;
  case ')': return TOK_RPAREN;
  case '[': return TOK_LBRACKET;
  case ']': return TOK_RBRACKET;
  case '{': return TOK_LBRACE;
  case '}': return TOK_RBRACE;
  case ',': return TOK_COMMA;
  case ':': return TOK_COLON;
  case ';': return TOK_SEMICOLON;
  case '.': return TOK_DOT;
  case '?': return TOK_QUESTION;
  case '@': return TOK_AT;
  default: return -1;
  }
}

/* The operator a pending first byte makes on its own, and with `d`. */
static int op_alone(unsigned op) {
  switch (op) {
  case '-': return TOK_MINUS;
  case '|': return TOK_BAR;
  case '=': return TOK_ASSIGN;
  case '*': return TOK_STAR;
  case '<': return TOK_LT;
  case '>': return TOK_GT;
  default: return -1; /* '!' */
  }
}
static int op_pair(unsigned op, unsigned d) {
  switch (op) {
  case '-': return d == '>' ? TOK_ARROW : -1;
  case '|': return d == '>' ? TOK_PIPE : -1;
  case '=': return d == '=' ? TOK_EQ : -1;
  case '*': return d == '*' ? TOK_DOUBLESTAR : -1;
  case '<': return d == '<' ? TOK_LSHIFT : d == '=' ? TOK_LTE : -1;
  case '>': return d == '>' ? TOK_RSHIFT : d == '=' ? TOK_GTE : -1;
  case '!': return d == '=' ? TOK_NEQ : -1;
  default: return -1;
  }
}

static bool op_viable(Sess *S, Level *L) {
  unsigned op = L->op;
  int a = op_alone(op);
  if (a >= 0 && probe(S, a, L->tok_nl, L->tok_col, NULL)) return true;
  static const char seconds[] = "<=>*";
  for (const char *d = seconds; *d; d++) {
    int p = op_pair(op, (unsigned char)*d);
    if (p >= 0 && probe(S, p, L->tok_nl, L->tok_col, NULL)) return true;
  }
  return false;
}

static bool valid_escape(unsigned c) { return c == 'n' || c == 't' || c == 'r' || c == '\\' || c == '"'; }

/* One byte (after UTF-8 and line-end handling) at one level. */
static bool lvl_char(Sess *S, Level *L, unsigned c, bool inner) {
  for (;;) {
    switch (L->mode) {
    case LX_START:
      if (c == ' ' || c == '\t') return true;
      if (c == '\n') {
        S->c.nl = true;
        return true;
      }
      if (is_idstart(c)) {
        begin(S, L, c == 'f' ? LX_F : LX_IDENT);
        S->c.id_off = S->spec ? S->c.id_off + S->c.id_len : 0;
        S->c.id_len = 0;
        if (!add_id_byte(S, c)) return false;
        if (c == 'f' && probe(S, K_FSTR_BEGIN, L->tok_nl, L->tok_col, NULL)) return true;
        return name_viable(S, L) || lexeme_fail(S, L);
      }
      if (is_digit(c)) {
        begin(S, L, LX_INT);
        L->ndig = 1;
        if (probe(S, TOK_INT, L->tok_nl, L->tok_col, NULL) || probe(S, TOK_FLOAT, L->tok_nl, L->tok_col, NULL))
          return true;
        return lexeme_fail(S, L);
      }
      if (c == '"') {
        begin(S, L, LX_STR1);
        return probe(S, TOK_STRING, L->tok_nl, L->tok_col, NULL) || lexeme_fail(S, L);
      }
      if (c == '/') {
        begin(S, L, LX_SLASH);
        return true;
      }
      if (c == '-' || c == '|' || c == '=' || c == '*' || c == '<' || c == '>' || c == '!') {
        begin(S, L, LX_OP);
        L->op = (uint8_t)c;
        return op_viable(S, L) || lexeme_fail(S, L);
      }
      {
        int k = single_op(c);
        if (k < 0) {
          if (c >= 0x20 && c < 0x7f) return failf(S, "Lexer error: Unexpected character: '%c'", (int)c);
          return lexfail(S, "Unexpected character");
        }
        begin(S, L, LX_START);
        return emit(S, L, k, false);
      }
    case LX_F:
    case LX_IDENT:
      if (is_idchar(c)) {
        L->mode = LX_IDENT;
        if (!add_id_byte(S, c)) return false;
        return name_viable(S, L) || lexeme_fail(S, L);
      }
      if (L->mode == LX_F && c == '"') {
        if (!emit(S, L, K_FSTR_BEGIN, false)) return false;
        L->mode = LX_FQ1;
        return true;
      }
      if (!emit_name(S, L)) return false;
      L->mode = LX_START;
      continue;
    case LX_INT:
      if (is_digit(c)) {
        if (++L->ndig > 1000) return lexfail(S, "Integer literal too long (max 1000 digits)");
        return true;
      }
      if (c == '.') {
        L->mode = LX_INT_DOT;
        if (probe(S, TOK_FLOAT, L->tok_nl, L->tok_col, NULL) || probe2(S, TOK_INT, TOK_DOT, L->tok_nl, L->tok_col))
          return true;
        return lexeme_fail(S, L);
      }
      if (is_idstart(c)) return lexfail(S, "Expected a separator between numeric literal and identifier");
      if (!emit(S, L, TOK_INT, false)) return false;
      L->mode = LX_START;
      continue;
    case LX_INT_DOT:
      if (is_digit(c)) {
        L->mode = LX_FRAC;
        L->ndig = 1;
        return probe(S, TOK_FLOAT, L->tok_nl, L->tok_col, NULL) || lexeme_fail(S, L);
      }
      if (!emit(S, L, TOK_INT, false)) return false;
      L->tok_nl = false;
      if (!emit(S, L, TOK_DOT, false)) return false;
      L->mode = LX_START;
      continue;
    case LX_FRAC:
      if (is_digit(c)) {
        if (++L->ndig > 1000) return lexfail(S, "Float literal too long (max 1000 digits per part)");
        return true;
      }
      if (is_idstart(c)) return lexfail(S, "Expected a separator between numeric literal and identifier");
      if (!emit(S, L, TOK_FLOAT, false)) return false;
      L->mode = LX_START;
      continue;
    case LX_STR1:
      if (c == '"') {
        L->mode = LX_STR2;
        return true;
      }
      L->mode = LX_STR;
      continue;
    case LX_STR2:
      if (c == '"') {
        L->mode = LX_TSTR;
        L->op = 0;
        L->ndig = 0;
        return true;
      }
      if (!emit(S, L, TOK_STRING, true)) return false;
      L->mode = LX_START;
      continue;
    case LX_STR:
      if (c == '"') {
        if (!emit(S, L, TOK_STRING, false)) return false;
        L->mode = LX_START;
        return true;
      }
      if (c == '\\') L->mode = LX_STR_ESC;
      else if (c == '\n') return lexfail(S, "Unterminated string literal");
      return true;
    case LX_STR_ESC:
      if (!valid_escape(c)) return lexfail(S, "Invalid escape sequence");
      L->mode = LX_STR;
      return true;
    case LX_TSTR:
      if (c == '"') {
        if (++L->op == 3) {
          if (!emit(S, L, TOK_STRING, L->ndig == 0)) return false;
          L->mode = LX_START;
        }
        return true;
      }
      L->ndig += L->op + 1u;
      L->op = 0;
      return true;
    case LX_FQ1:
      if (c == '"') {
        L->mode = LX_FQ2;
        return true;
      }
      L->mode = LX_FSTR;
      continue;
    case LX_FQ2:
      if (c == '"') return lexfail(S, "Triple-quoted f-strings are not supported");
      if (!emit(S, L, K_FSTR_END, false)) return false;
      L->mode = LX_START;
      continue;
    case LX_FSTR:
      if (c == '"') {
        if (!emit(S, L, K_FSTR_END, false)) return false;
        L->mode = LX_START;
        return true;
      }
      if (c == '{') {
        if (!emit(S, L, K_INTERP_BEGIN, false)) return false;
        L->mode = LX_INTERP;
        memset(&S->c.inner, 0, sizeof S->c.inner);
        return true;
      }
      if (c == '\\') L->mode = LX_FSTR_ESC;
      else if (c == '\n') return lexfail(S, "Unterminated f-string literal");
      return true;
    case LX_FSTR_ESC:
      if (!valid_escape(c)) return lexfail(S, "Invalid escape sequence");
      L->mode = LX_FSTR;
      return true;
    case LX_SLASH:
      if (c == '/') {
        L->mode = LX_LINE_COMMENT;
        return true;
      }
      if (c == '*') {
        L->mode = LX_BLOCK_COMMENT;
        return true;
      }
      if (!emit(S, L, TOK_SLASH, false)) return false;
      L->mode = LX_START;
      continue;
    case LX_LINE_COMMENT:
      if (c == '\n') {
        S->c.nl = true;
        L->mode = LX_START;
      }
      return true;
    case LX_BLOCK_COMMENT:
      if (c == '*') L->mode = LX_BC_STAR;
      else if (c == '\n') S->c.nl = true;
      return true;
    case LX_BC_STAR:
      if (c == '/') L->mode = LX_START;
      else if (c != '*') {
        if (c == '\n') S->c.nl = true;
        L->mode = LX_BLOCK_COMMENT;
      }
      return true;
    case LX_OP: {
      int p = op_pair(L->op, c);
      if (p >= 0) {
        if (!emit(S, L, p, false)) return false;
        L->mode = LX_START;
        return true;
      }
      int a = op_alone(L->op);
      if (a < 0) return lexfail(S, "Unexpected character: '!'");
      if (!emit(S, L, a, false)) return false;
      L->mode = LX_START;
      continue;
    }
    default: /* LX_INTERP is handled by lex_char */
      return failf(S, "internal error: lexer mode %d", L->mode);
    }
  }
}

/* The end of a level's text (end of input, or `}` for an interpolation):
 * finish the pending lexeme. */
static bool lvl_end(Sess *S, Level *L) {
  switch (L->mode) {
  case LX_START:
  case LX_LINE_COMMENT:
    return true;
  case LX_IDENT:
  case LX_F:
    return emit_name(S, L);
  case LX_INT:
    return emit(S, L, TOK_INT, false);
  case LX_INT_DOT:
    if (!emit(S, L, TOK_INT, false)) return false;
    L->tok_nl = false;
    return emit(S, L, TOK_DOT, false);
  case LX_FRAC:
    return emit(S, L, TOK_FLOAT, false);
  case LX_STR2:
    return emit(S, L, TOK_STRING, true);
  case LX_FQ2:
    return emit(S, L, K_FSTR_END, false);
  case LX_SLASH:
    return emit(S, L, TOK_SLASH, false);
  case LX_OP: {
    int a = op_alone(L->op);
    if (a < 0) return lexfail(S, "Unexpected character: '!'");
    return emit(S, L, a, false);
  }
  case LX_BLOCK_COMMENT:
  case LX_BC_STAR:
    return lexfail(S, "Unterminated block comment");
  default:
    return lexfail(S, "Unterminated string literal");
  }
}

static bool lex_char(Sess *S, unsigned c) {
  Level *O = &S->c.outer;
  if (O->mode != LX_INTERP) return lvl_char(S, O, c, false);
  if (c == '{') return lexfail(S, "Nested braces are not allowed in f-string expressions");
  if (c == '"') return lexfail(S, "String literals are not allowed inside f-string expressions");
  if (c == '}') {
    if (!lvl_end(S, &S->c.inner)) return false;
    Level end = {0};
    end.tok_col = S->c.col;
    if (!emit(S, &end, TOK_EOF, false)) return false;
    O->mode = LX_FSTR;
    return true;
  }
  return lvl_char(S, &S->c.inner, c, true);
}

static bool feed_byte(Sess *S, unsigned c) {
  Core *C = &S->c;
  if (C->failed) return false;
  if (c == 0) return lexfail(S, "Unexpected character: '\\x00'");
  if (C->u8need) {
    if (c < C->u8lo || c > C->u8hi) return lexfail(S, "Invalid UTF-8 (source must be UTF-8)");
    C->u8need--;
    C->u8lo = 0x80;
    C->u8hi = 0xBF;
  } else if (c >= 0x80) {
    C->u8lo = 0x80;
    C->u8hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) C->u8need = 1;
    else if (c == 0xE0) C->u8need = 2, C->u8lo = 0xA0;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) C->u8need = 2;
    else if (c == 0xED) C->u8need = 2, C->u8hi = 0x9F;
    else if (c == 0xF0) C->u8need = 3, C->u8lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) C->u8need = 3;
    else if (c == 0xF4) C->u8need = 3, C->u8hi = 0x8F;
    else return lexfail(S, "Invalid UTF-8 (source must be UTF-8)");
  }
  if (c == '\r') {
    C->cr = true;
    c = '\n';
  } else if (c == '\n' && C->cr) {
    C->cr = false;
    C->pos++;
    return true;
  } else {
    C->cr = false;
  }
  if (!lex_char(S, c)) {
    C->failed = true;
    return false;
  }
  C->pos++;
  if (c == '\n') C->col = 1;
  else if ((c & 0xC0) != 0x80) C->col++;
  return true;
}

/* Whether the text read so far is a whole program (speculative). */
static bool complete(Sess *S) {
  if (S->c.failed || S->c.u8need) return false;
  Core save = S->c;
  bool spec = S->spec;
  S->spec = true;
  S->c.mark = S->c.bump;
  bool ok = S->c.outer.mode != LX_INTERP && lvl_end(S, &S->c.outer);
  if (ok) {
    Level end = {0};
    end.tok_nl = S->c.nl;
    end.tok_col = S->c.col;
    ok = emit(S, &end, TOK_EOF, false) && S->pool[S->c.top].st == PG;
  }
  S->c = save;
  S->spec = spec;
  return ok;
}

/* ---- sessions -------------------------------------------------------------- */

geno_constrain *geno_constrain_new(void) {
  Sess *S = calloc(1, sizeof *S);
  if (!S) return NULL;
  S->c.bump = 0;
  if (!pool_reserve(S, 64)) {
    free(S);
    return NULL;
  }
  Frame *f = &S->pool[S->c.bump++];
  memset(f, 0, sizeof *f);
  f->st = PG;
  S->c.top = 0;
  S->c.col = 1;
  S->c.ctx = ++S->ctx_counter;
  S->fail_lexeme = -1;
  return S;
}

void geno_constrain_free(geno_constrain *S) {
  if (!S) return;
  free(S->pool);
  free(S->names);
  free(S->idbuf);
  free(S);
}

geno_constrain *geno_constrain_clone(const geno_constrain *S) {
  if (!S) return NULL;
  Sess *T = malloc(sizeof *T);
  if (!T) return NULL;
  *T = *S;
  T->pool = malloc((size_t)S->pool_cap * sizeof *S->pool);
  T->names = S->names_cap ? malloc(S->names_cap) : NULL;
  T->idbuf = S->idcap ? malloc(S->idcap) : NULL;
  if (!T->pool || (S->names_cap && !T->names) || (S->idcap && !T->idbuf)) {
    free(T->pool);
    free(T->names);
    free(T->idbuf);
    free(T);
    return NULL;
  }
  memcpy(T->pool, S->pool, (size_t)S->c.bump * sizeof *S->pool);
  if (S->names_cap) memcpy(T->names, S->names, S->names_cap);
  if (S->idcap) memcpy(T->idbuf, S->idbuf, S->idcap);
  return T;
}

/* Frames no longer reachable are dropped once they are most of the pool:
 * the live chain (at most a few hundred frames) moves to the bottom. */
static void compact(Sess *S) {
  uint32_t n = 0;
  for (uint32_t i = S->c.top;; i = S->pool[i].parent) {
    n++;
    if (i == 0) break;
  }
  if (S->c.bump < 4096 || S->c.bump < 8 * n) return;
  Frame *tmp = malloc((size_t)n * sizeof *tmp);
  if (!tmp) return;
  uint32_t j = n;
  for (uint32_t i = S->c.top;; i = S->pool[i].parent) {
    tmp[--j] = S->pool[i];
    if (i == 0) break;
  }
  for (uint32_t k = 0; k < n; k++) {
    S->pool[k] = tmp[k];
    S->pool[k].parent = k ? k - 1 : 0;
  }
  free(tmp);
  S->c.top = n - 1;
  S->c.bump = n;
  S->c.mark = 0;
  S->c.ctx = ++S->ctx_counter; /* frame numbers changed */
}

bool geno_constrain_feed(geno_constrain *S, const char *bytes, size_t n) {
  if (!S) return false;
  for (size_t i = 0; i < n && !S->c.failed; i++) feed_byte(S, (unsigned char)bytes[i]);
  if (!S->c.failed) compact(S);
  return !S->c.failed;
}

geno_constrain_status geno_constrain_state(geno_constrain *S) {
  if (!S || S->c.failed) return GENO_CONSTRAIN_INVALID;
  return complete(S) ? GENO_CONSTRAIN_COMPLETE : GENO_CONSTRAIN_VALID;
}

void constrain_explain_mode(geno_constrain *S) { S->explain = true; }

int64_t constrain_fail_lexeme(const geno_constrain *S) { return S && S->c.failed ? S->fail_lexeme : -1; }

const char *geno_constrain_error(const geno_constrain *S) {
  if (!S) return "no session";
  if (S->oom) return "out of memory";
  if (!S->c.failed) return NULL;
  return S->err[0] ? S->err : "no continuation makes a program that parses";
}

/* ---- vocabularies and token masks ----------------------------------------- */

#define NIL UINT32_MAX

typedef struct Trie {
  uint32_t *first, *sib, *tok_head; /* per node */
  uint8_t *byte;                    /* per node: the edge into it */
  uint32_t nnodes, cap;
  uint32_t *tok_next;               /* per token: tokens ending at the same node */
} Trie;

/* How a token reads from between tokens (the fast paths of the mask). */
enum {
  G_WS,        /* blanks and line ends only: always fine between tokens */
  G_LOWER_WS,  /* blanks, then a name starting in lower case or '_' */
  G_UPPER_WS,  /* blanks, then a name starting in upper case */
  G_DIGITS_WS, /* blanks, then digits */
  G_LOWER_0, G_UPPER_0, G_DIGITS_0, /* the same without blanks */
  G_OTHER_ID0, /* starts with a name or digit byte, but is more than a word */
  G_OTHER,     /* anything else */
  G__COUNT
};
/* Tokens that stay inside a literal or comment (no byte that could end
 * it or be an error there, valid UTF-8 from a boundary). */
enum { SAFE_STR, SAFE_TSTR, SAFE_FSTR, SAFE_LINE, SAFE_BLOCK, SAFE__COUNT };

struct geno_constrain_vocab {
  size_t n, words;  /* tokens; 64-bit words of a bitset */
  char *bytes;      /* all tokens, concatenated */
  size_t *off, *len;
  Trie trie;        /* all tokens */
  uint64_t *group[G__COUNT];    /* bitsets */
  uint64_t *safe[SAFE__COUNT];  /* bitsets */
  Trie t_other_id0, t_other, t_lower, t_idchars, t_lower_ws_upper_ws_digits_ws;
  Trie t_unsafe[SAFE__COUNT];
};

static bool trie_grow(Trie *T) {
  if (!T->tok_next) return false;
  uint32_t cap = T->cap ? T->cap * 2 : 1024;
  uint32_t *a = realloc(T->first, cap * sizeof *a);
  if (!a) return false;
  T->first = a;
  a = realloc(T->sib, cap * sizeof *a);
  if (!a) return false;
  T->sib = a;
  a = realloc(T->tok_head, cap * sizeof *a);
  if (!a) return false;
  T->tok_head = a;
  uint8_t *b = realloc(T->byte, cap);
  if (!b) return false;
  T->byte = b;
  T->cap = cap;
  return true;
}

static uint32_t trie_node(Trie *T, uint8_t byte) {
  if (T->nnodes == T->cap && !trie_grow(T)) return NIL;
  uint32_t i = T->nnodes++;
  T->first[i] = T->sib[i] = T->tok_head[i] = NIL;
  T->byte[i] = byte;
  return i;
}

static const geno_constrain_vocab *sort_vocab;
static int cmp_tok(const void *a, const void *b) {
  const geno_constrain_vocab *V = sort_vocab;
  size_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  size_t n = V->len[i] < V->len[j] ? V->len[i] : V->len[j];
  int c = memcmp(V->bytes + V->off[i], V->bytes + V->off[j], n);
  if (c) return c;
  return V->len[i] < V->len[j] ? -1 : V->len[i] > V->len[j];
}

/* Insert tokens in sorted order: a node's children are then made in byte
 * order and the path of the previous token is the only one that can be
 * shared, so the trie is built without searching sibling lists. */
static bool trie_build(geno_constrain_vocab *V, Trie *T, const uint32_t *order, size_t n) {
  T->tok_next = malloc((V->n ? V->n : 1) * sizeof *T->tok_next);
  if (!T->tok_next || trie_node(T, 0) == NIL) return false;
  uint32_t *path = malloc((size_t)(1 + 64) * sizeof *path);
  size_t path_cap = 64, plen = 0; /* path[0] = root, path[d] = node at depth d of the previous token */
  if (!path) return false;
  path[0] = 0;
  const char *prev = NULL;
  size_t prev_len = 0;
  for (size_t r = 0; r < n; r++) {
    uint32_t i = order[r];
    const char *s = V->bytes + V->off[i];
    size_t len = V->len[i];
    size_t common = 0;
    if (prev)
      while (common < len && common < prev_len && common < plen && s[common] == prev[common]) common++;
    if (len + 1 > path_cap) {
      size_t nc = (len + 1) * 2;
      uint32_t *p = realloc(path, nc * sizeof *p);
      if (!p) return free(path), false;
      path = p;
      path_cap = nc;
    }
    for (size_t d = common; d < len; d++) {
      uint32_t parent = path[d];
      uint32_t c = trie_node(T, (uint8_t)s[d]);
      if (c == NIL) return free(path), false;
      /* append as the last child (children arrive in byte order) */
      if (T->first[parent] == NIL) {
        T->first[parent] = c;
      } else {
        uint32_t x = T->first[parent];
        while (T->sib[x] != NIL) x = T->sib[x];
        T->sib[x] = c;
      }
      path[d + 1] = c;
    }
    plen = len;
    uint32_t end = path[len];
    T->tok_next[i] = T->tok_head[end];
    T->tok_head[end] = i;
    prev = s;
    prev_len = len;
  }
  free(path);
  return true;
}

static void trie_free(Trie *T) {
  free(T->tok_next);
  free(T->first);
  free(T->sib);
  free(T->tok_head);
  free(T->byte);
}

static bool blank_byte(unsigned c) { return c == ' ' || c == '\t'; }

/* The group of a token (see G_*). */
static int token_group(const unsigned char *t, size_t n) {
  size_t i = 0;
  while (i < n && blank_byte(t[i])) i++;
  bool ws = i > 0;
  if (i == n) {
    if (!n) return G_OTHER;
    return G_WS;
  }
  size_t j = i;
  while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r')) j++;
  if (j == n) return G_WS; /* blanks and line ends */
  if (is_idchar(t[i])) {
    bool digits = is_digit(t[i]);
    for (j = i; j < n; j++)
      if (!(digits ? is_digit(t[j]) : is_idchar(t[j]))) break;
    if (j == n) {
      int g = digits ? G_DIGITS_0 : is_upper(t[i]) ? G_UPPER_0 : G_LOWER_0;
      return ws ? g - 3 : g; /* G_x_WS = G_x_0 - 3 */
    }
    return ws ? G_OTHER : G_OTHER_ID0;
  }
  return G_OTHER;
}

/* Whether the token stays inside a literal or comment of kind `k`. */
static bool token_safe(const unsigned char *t, size_t n, int k) {
  int need = 0;
  unsigned lo = 0x80, hi = 0xBF;
  for (size_t i = 0; i < n; i++) {
    unsigned c = t[i];
    if (c == 0) return false;
    switch (k) {
    case SAFE_STR: if (c == '"' || c == '\\' || c == '\n' || c == '\r') return false; break;
    case SAFE_TSTR: if (c == '"') return false; break;
    case SAFE_FSTR: if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '{') return false; break;
    case SAFE_LINE: if (c == '\n' || c == '\r') return false; break;
    default: if (c == '*') return false; break;
    }
    if (need) {
      if (c < lo || c > hi) return false;
      need--;
      lo = 0x80;
      hi = 0xBF;
    } else if (c >= 0x80) {
      if (c >= 0xC2 && c <= 0xDF) need = 1;
      else if (c == 0xE0) need = 2, lo = 0xA0;
      else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) need = 2;
      else if (c == 0xED) need = 2, hi = 0x9F;
      else if (c == 0xF0) need = 3, lo = 0x90;
      else if (c >= 0xF1 && c <= 0xF3) need = 3;
      else if (c == 0xF4) need = 3, hi = 0x8F;
      else return false;
    }
  }
  return true;
}

static bool subset_trie(geno_constrain_vocab *V, Trie *T, const uint32_t *order, uint32_t *tmp,
                        bool (*keep)(const geno_constrain_vocab *, uint32_t, int), int arg) {
  size_t m = 0;
  for (size_t r = 0; r < V->n; r++)
    if (keep(V, order[r], arg)) tmp[m++] = order[r];
  return trie_build(V, T, tmp, m);
}

static bool bit(const uint64_t *b, size_t i) { return (b[i >> 6] >> (i & 63)) & 1; }
static bool keep_group(const geno_constrain_vocab *V, uint32_t i, int g) { return bit(V->group[g], i); }
static bool keep_lower(const geno_constrain_vocab *V, uint32_t i, int g) {
  (void)g;
  return bit(V->group[G_LOWER_WS], i) || bit(V->group[G_LOWER_0], i);
}
static bool keep_idchars(const geno_constrain_vocab *V, uint32_t i, int g) {
  (void)g;
  return bit(V->group[G_LOWER_0], i) || bit(V->group[G_UPPER_0], i) || bit(V->group[G_DIGITS_0], i);
}
static bool keep_words_ws(const geno_constrain_vocab *V, uint32_t i, int g) {
  (void)g;
  return bit(V->group[G_LOWER_WS], i) || bit(V->group[G_UPPER_WS], i) || bit(V->group[G_DIGITS_WS], i);
}
static bool keep_unsafe(const geno_constrain_vocab *V, uint32_t i, int k) { return !bit(V->safe[k], i); }

geno_constrain_vocab *geno_constrain_vocab_new(const char *const *tokens, const size_t *lens, size_t n) {
  geno_constrain_vocab *V = calloc(1, sizeof *V);
  if (!V) return NULL;
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += lens[i];
  V->n = n;
  V->words = (n + 63) / 64;
  V->bytes = malloc(total ? total : 1);
  V->off = malloc((n ? n : 1) * sizeof *V->off);
  V->len = malloc((n ? n : 1) * sizeof *V->len);
  uint32_t *order = malloc((n ? n : 1) * sizeof *order);
  uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
  if (!V->bytes || !V->off || !V->len || !order || !tmp || n >= NIL) goto fail;
  for (int g = 0; g < G__COUNT; g++)
    if (!(V->group[g] = calloc(V->words ? V->words : 1, sizeof(uint64_t)))) goto fail;
  for (int k = 0; k < SAFE__COUNT; k++)
    if (!(V->safe[k] = calloc(V->words ? V->words : 1, sizeof(uint64_t)))) goto fail;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if (lens[i]) memcpy(V->bytes + at, tokens[i], lens[i]);
    V->off[i] = at;
    V->len[i] = lens[i];
    const unsigned char *t = (const unsigned char *)V->bytes + at;
    at += lens[i];
    order[i] = (uint32_t)i;
    int g = token_group(t, lens[i]);
    V->group[g][i >> 6] |= 1ull << (i & 63);
    for (int k = 0; k < SAFE__COUNT; k++)
      if (token_safe(t, lens[i], k)) V->safe[k][i >> 6] |= 1ull << (i & 63);
  }
  sort_vocab = V;
  qsort(order, n, sizeof *order, cmp_tok);
  sort_vocab = NULL;
  if (!trie_build(V, &V->trie, order, n) || !subset_trie(V, &V->t_other_id0, order, tmp, keep_group, G_OTHER_ID0) ||
      !subset_trie(V, &V->t_other, order, tmp, keep_group, G_OTHER) ||
      !subset_trie(V, &V->t_lower, order, tmp, keep_lower, 0) ||
      !subset_trie(V, &V->t_idchars, order, tmp, keep_idchars, 0) ||
      !subset_trie(V, &V->t_lower_ws_upper_ws_digits_ws, order, tmp, keep_words_ws, 0))
    goto fail;
  for (int k = 0; k < SAFE__COUNT; k++)
    if (!subset_trie(V, &V->t_unsafe[k], order, tmp, keep_unsafe, k)) goto fail;
  free(order);
  free(tmp);
  return V;
fail:
  free(order);
  free(tmp);
  geno_constrain_vocab_free(V);
  return NULL;
}

void geno_constrain_vocab_free(geno_constrain_vocab *V) {
  if (!V) return;
  trie_free(&V->trie);
  trie_free(&V->t_other_id0);
  trie_free(&V->t_other);
  trie_free(&V->t_lower);
  trie_free(&V->t_idchars);
  trie_free(&V->t_lower_ws_upper_ws_digits_ws);
  for (int k = 0; k < SAFE__COUNT; k++) {
    trie_free(&V->t_unsafe[k]);
    free(V->safe[k]);
  }
  for (int g = 0; g < G__COUNT; g++) free(V->group[g]);
  free(V->bytes);
  free(V->off);
  free(V->len);
  free(V);
}

size_t geno_constrain_vocab_size(const geno_constrain_vocab *V) { return V ? V->n : 0; }

typedef struct DfsEntry {
  uint32_t next; /* next child of the node to try */
  Core saved;    /* the state at the node */
} DfsEntry;

static void set_tokens(const Trie *T, uint32_t head, uint64_t *bits) {
  for (uint32_t i = head; i != NIL; i = T->tok_next[i]) bits[i >> 6] |= 1ull << (i & 63);
}

/* Depth-first walk of a trie from the current state; every node's state
 * is a saved Core (frames are shared, copied on write), and a subtree is
 * left as soon as the bytes leading to it fail. */
static void mask_walk_at(Sess *S, const Trie *T, uint32_t start, uint64_t *bits);
static void mask_walk(Sess *S, const Trie *T, uint64_t *bits) {
  if (T->nnodes) mask_walk_at(S, T, 0, bits);
}

/* The child of the root for byte b, or NIL. */
static uint32_t root_child(const Trie *T, unsigned b) {
  for (uint32_t c = T->nnodes ? T->first[0] : NIL; c != NIL; c = T->sib[c])
    if (T->byte[c] == b) return c;
  return NIL;
}

/* Clear the bits of every token in the subtree of `node`. */
static void clear_subtree(const Trie *T, uint32_t node, uint64_t *bits) {
  for (uint32_t i = T->tok_head[node]; i != NIL; i = T->tok_next[i]) bits[i >> 6] &= ~(1ull << (i & 63));
  for (uint32_t c = T->first[node]; c != NIL; c = T->sib[c]) clear_subtree(T, c, bits);
}

/* The tokens starting with byte b, from the current state. */
static void mask_first_byte(Sess *S, const Trie *T, unsigned b, uint64_t *bits) {
  uint32_t c = root_child(T, b);
  if (c == NIL) return;
  Core save = S->c;
  S->c.mark = S->c.bump;
  if (feed_byte(S, b)) {
    set_tokens(T, T->tok_head[c], bits);
    mask_walk_at(S, T, c, bits);
  }
  S->c = save;
}

static void mask_walk_at(Sess *S, const Trie *T, uint32_t start, uint64_t *bits) {
  size_t cap = 64, sp = 0;
  DfsEntry *st = malloc(cap * sizeof *st);
  if (!st) {
    S->oom = true;
    return;
  }
  st[0].next = T->first[start];
  st[0].saved = S->c;
  for (;;) {
    DfsEntry *e = &st[sp];
    if (e->next == NIL) {
      if (sp == 0) break;
      sp--;
      continue;
    }
    uint32_t ch = e->next;
    e->next = T->sib[ch];
    S->c = e->saved;
    S->c.mark = S->c.bump;
    if (!feed_byte(S, T->byte[ch])) continue;
    set_tokens(T, T->tok_head[ch], bits);
    if (T->first[ch] != NIL) {
      if (sp + 1 == cap) {
        DfsEntry *p = realloc(st, cap * 2 * sizeof *st);
        if (!p) break;
        st = p;
        cap *= 2;
      }
      sp++;
      st[sp].next = T->first[ch];
      st[sp].saved = S->c;
    }
  }
  S->c = st[0].saved;
  free(st);
}

static void or_bits(uint64_t *dst, const uint64_t *src, size_t words) {
  for (size_t i = 0; i < words; i++) dst[i] |= src[i];
}

/* Between tokens (outer level): words by what the recognizer accepts,
 * everything else by walking the tries of the other groups. `words_0`:
 * tokens with no leading blank are read from here too (false when the
 * caller handles them as the continuation of a pending name). */
static void mask_between(Sess *S, const geno_constrain_vocab *V, uint64_t *bits, bool words_0) {
  bool nl = S->c.nl;
  int32_t col = S->c.col;
  or_bits(bits, V->group[G_WS], V->words);
  ProbeCache *pc;
  bool lower_free = probe(S, TOK_IDENT, nl, col, &pc) && !pc->ident_need;
  bool upper = probe(S, TOK_TYPE_IDENT, nl, col, NULL);
  bool digits = probe(S, TOK_INT, nl, col, NULL) || probe(S, TOK_FLOAT, nl, col, NULL);
  if (lower_free) {
    or_bits(bits, V->group[G_LOWER_WS], V->words);
    if (words_0) or_bits(bits, V->group[G_LOWER_0], V->words);
  }
  if (upper) {
    or_bits(bits, V->group[G_UPPER_WS], V->words);
    if (words_0) or_bits(bits, V->group[G_UPPER_0], V->words);
  }
  if (digits) {
    or_bits(bits, V->group[G_DIGITS_WS], V->words);
    if (words_0) or_bits(bits, V->group[G_DIGITS_0], V->words);
  }
  if (!lower_free) {
    /* names where only some spellings (keywords, `when`, a function's
     * name) are accepted: walk them */
    if (words_0) {
      mask_walk(S, &V->t_lower, bits);
    } else {
      uint64_t *b2 = calloc(V->words ? V->words : 1, sizeof *b2);
      if (!b2) {
        S->oom = true;
        return;
      }
      mask_walk(S, &V->t_lower, b2);
      for (size_t i = 0; i < V->words; i++) bits[i] |= b2[i] & V->group[G_LOWER_WS][i];
      free(b2);
    }
  }
  mask_walk(S, &V->t_other, bits);
  if (words_0) mask_walk(S, &V->t_other_id0, bits);
}

size_t geno_constrain_mask(geno_constrain *S, const geno_constrain_vocab *V, uint64_t *bits) {
  if (!V) return 0;
  memset(bits, 0, V->words * sizeof *bits);
  if (!S || S->c.failed) return 0;
  bool spec = S->spec;
  S->spec = true;
  Core save = S->c;
  S->c.mark = S->c.bump;
  set_tokens(&V->trie, V->trie.tok_head[0], bits); /* empty tokens */
  const Level *L = &S->c.outer;
  int safe = -1;
  switch (L->mode) {
  case LX_STR: case LX_STR1: safe = SAFE_STR; break; /* safe tokens have no quote */
  case LX_TSTR: safe = L->op == 0 ? SAFE_TSTR : -1; break;
  case LX_FSTR: case LX_FQ1: safe = SAFE_FSTR; break;
  case LX_LINE_COMMENT: safe = SAFE_LINE; break;
  case LX_BLOCK_COMMENT: safe = SAFE_BLOCK; break;
  default: break;
  }
  if (S->c.u8need || S->c.cr) {
    mask_walk(S, &V->trie, bits);
  } else if (safe >= 0) {
    or_bits(bits, V->safe[safe], V->words);
    mask_walk(S, &V->t_unsafe[safe], bits);
  } else if (L->mode == LX_START) {
    mask_between(S, V, bits, true);
  } else if (L->mode == LX_IDENT || L->mode == LX_F) {
    /* name bytes continue the pending name; anything else ends it first */
    const char *w = S->idbuf + S->c.id_off;
    ProbeCache *pc;
    bool free_ext = is_upper((unsigned char)w[0]) ||
                    (probe(S, TOK_IDENT, L->tok_nl, L->tok_col, &pc) && !pc->ident_need);
    if (free_ext) {
      or_bits(bits, V->group[G_LOWER_0], V->words);
      or_bits(bits, V->group[G_UPPER_0], V->words);
      or_bits(bits, V->group[G_DIGITS_0], V->words);
    } else {
      mask_walk(S, &V->t_idchars, bits);
    }
    mask_walk(S, &V->t_other_id0, bits);
    /* the rest: first the name ends (as a blank would end it) */
    Level *O = &S->c.outer;
    if (L->mode == LX_F) {
      /* `f` then `"` is an f-string: walk the tokens that could start so */
      mask_walk(S, &V->t_other, bits);
      uint64_t *b2 = calloc(V->words ? V->words : 1, sizeof *b2);
      if (b2 && emit_name(S, O)) {
        O->mode = LX_START;
        uint64_t *keep = b2;
        mask_between(S, V, keep, false);
        /* only tokens that cannot continue `f` differently: blanks first */
        for (size_t i = 0; i < V->words; i++)
          bits[i] |= keep[i] & (V->group[G_WS][i] | V->group[G_LOWER_WS][i] | V->group[G_UPPER_WS][i] |
                                V->group[G_DIGITS_WS][i]);
      }
      free(b2);
    } else if (emit_name(S, O)) {
      O->mode = LX_START;
      mask_between(S, V, bits, false);
    }
  } else if (L->mode == LX_OP || L->mode == LX_SLASH) {
    /* bytes that grow the operator (or make `/` a comment) go their own
     * way; any other byte ends it first */
    static const char grow[] = "<=>*/";
    const Trie *T = &V->trie;
    Level *O = &S->c.outer;
    int alone = L->mode == LX_SLASH ? TOK_SLASH : op_alone(L->op);
    if (alone >= 0 && emit(S, O, alone, false)) {
      O->mode = LX_START;
      mask_between(S, V, bits, true);
    }
    S->c = save;
    S->c.mark = S->c.bump;
    for (const char *g = grow; *g; g++) {
      uint32_t c = root_child(T, (unsigned char)*g);
      if (c == NIL) continue;
      clear_subtree(T, c, bits);
      mask_first_byte(S, T, (unsigned char)*g, bits);
    }
  } else {
    mask_walk(S, &V->trie, bits);
  }
  S->c = save;
  S->spec = spec;
  size_t count = 0;
  for (size_t i = 0; i < V->words; i++) count += (size_t)__builtin_popcountll(bits[i]);
  return count;
}
