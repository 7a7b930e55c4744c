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
  uint64_t deep[2];       /* refused for nesting too deep (see Sess.deep) */
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
  bool deep;           /* a push was refused for the depth limit (probes included) while
                        * reading the current byte: a lexeme refused then says so */
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
  if (d > MAX_DEPTH) {
    S->deep = true;
    return failf(S, "nesting too deep (more than %d levels)", MAX_DEPTH);
  }
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
  if (pc->known[k >> 6] & bit) {
    if (pc->deep[k >> 6] & bit) S->deep = true;
    return (pc->acc[k >> 6] & bit) != 0;
  }
  Core save = S->c;
  bool spec = S->spec, deep = S->deep;
  S->spec = true;
  S->c.mark = S->c.bump;
  S->need_text = false;
  S->deep = false;
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
  else if (S->deep) pc->deep[k >> 6] |= bit;
  S->deep = deep || (!ok && S->deep);
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

/* In alphabetical order (keyword_of and name_viable rely on it). */
static const char *const kw_text[] = {
    "and",  "assert", "async", "await", "break", "catch", "continue", "do",     "else",   "end",
    "ensures", "example", "export", "false", "fn", "for", "func", "if", "impl", "import", "in",
    "let",  "match", "not", "or", "ref", "requires", "return", "test", "then", "throw", "trait",
    "true", "try", "type", "var", "where", "while", "with",
};
_Static_assert(sizeof kw_text / sizeof *kw_text == TOK_LAST_KEYWORD - TOK_FIRST_KEYWORD + 1, "keyword table");

static int keyword_of(const char *s, uint32_t n) {
  if (n < 2 || n > 8) return -1;
  for (int i = 0; i <= TOK_LAST_KEYWORD - TOK_FIRST_KEYWORD && kw_text[i][0] <= s[0]; i++)
    if (kw_text[i][0] == s[0] && strncmp(kw_text[i], s, n) == 0 && kw_text[i][n] == '\0') return TOK_FIRST_KEYWORD + i;
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
  for (int i = 0; i <= TOK_LAST_KEYWORD - TOK_FIRST_KEYWORD && kw_text[i][0] <= s[0]; i++) {
    const char *w = kw_text[i]; /* alphabetical: only the ones with s's first letter */
    if (w[0] != s[0]) continue;
    uint32_t j = 1;
    while (j < n && w[j] == s[j]) j++;
    if (j == n && probe(S, TOK_FIRST_KEYWORD + i, L->tok_nl, L->tok_col, NULL)) return true;
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
  /* a token it could start was refused only for the depth limit (`- - ... -`) */
  if (S->deep) return failf(S, "nesting too deep (more than %d levels)", MAX_DEPTH);
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
  if (!S->c.failed && n > GENO_CONSTRAIN_MAX_BYTES - S->c.pos) {
    failf(S, "the text would be %llu bytes; the limit of constrained decoding is %zu bytes",
          (unsigned long long)(S->c.pos + n), GENO_CONSTRAIN_MAX_BYTES);
    return false;
  }
  for (size_t i = 0; i < n && !S->c.failed; i++) {
    S->deep = false;
    feed_byte(S, (unsigned char)bytes[i]);
  }
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

/* A token is split into a head and a tail: the tail is its last word (a
 * maximal run of name bytes at its end, of one class below), the head the
 * bytes before it. A trie is built over heads, and each head's tails hang
 * below one marker edge per class, so that a mask decides all the tails of
 * a class at once where their spelling cannot matter (a fresh name where
 * any name is accepted, a type name, digits, letters inside a string or a
 * comment) and walks them byte by byte only where it can (keywords). */
enum { TAIL_LOWER, TAIL_UPPER, TAIL_DIGITS, TAIL__COUNT };
#define LAB_MARK 256 /* edge label of a marker: LAB_MARK + class */
#define TAIL_MAX_DIGITS 100 /* longer digit runs stay in the head (1000-digit limit) */
#define BIG_RANGE 2048 /* subtrees with this many tokens keep a bitset */

typedef struct Trie {
  uint32_t *first, *sib; /* per node: first child, next sibling (labels ascending) */
  uint16_t *lab;         /* per node: the edge into it (a byte, or LAB_MARK + class) */
  uint32_t *lo, *hi;     /* per node: its subtree's tokens are tok[lo..hi) */
  uint32_t *nend;        /* per node: tokens ending here: tok[lo..lo+nend) */
  uint32_t *big;         /* per node: index into bigset, or NIL */
  uint32_t nnodes, cap;
  uint32_t *tok;         /* token ids in trie order */
  uint64_t **bigset;     /* bitsets of the subtrees with BIG_RANGE tokens or more */
  uint8_t *allsafe;      /* per node: bit k when every byte on and below its edge is
                          * ASCII text of literal or comment kind k (SAFE_*) */
  uint32_t nbig;
} Trie;

/* Tokens that stay inside a literal or comment (no byte that could end
 * it or be an error there, valid UTF-8 from a boundary). */
enum { SAFE_STR, SAFE_TSTR, SAFE_FSTR, SAFE_LINE, SAFE_BLOCK, SAFE__COUNT };

struct geno_constrain_vocab {
  size_t n, words; /* tokens; 64-bit words of a bitset */
  char *bytes;     /* all tokens, concatenated */
  size_t *off, *len;
  size_t maxlen;    /* the longest token's bytes */
  uint32_t *split;  /* per token: where its tail begins (len: no tail) */
  uint8_t *tclass;  /* per token: TAIL_* of its tail */
  Trie trie;        /* all tokens but the code-dead and blank ones */
  Trie t_dead;      /* the code-dead tokens (see code_dead) */
  Trie t_blank;     /* the non-empty tokens of blanks and line ends only */
  uint64_t *blank;  /* bitset of the same */
  uint64_t *safe[SAFE__COUNT];  /* bitsets */
  /* The tokens outside each safe set: those that leave the literal or
   * comment at their first byte (t_unsafe_0, walked whole), and those
   * that read some text first (t_unsafe_1, keyed by the rest, from where
   * it leaves: their text changes nothing the rest could see) */
  Trie t_unsafe_0[SAFE__COUNT], t_unsafe_1[SAFE__COUNT];
  uint32_t *skip;   /* while building t_unsafe_1: bytes of text per token */
};

static bool trie_grow(Trie *T) {
  uint32_t cap = T->cap ? T->cap * 2 : 1024;
  uint32_t **arrays[] = {&T->first, &T->sib, &T->lo, &T->hi, &T->nend, &T->big};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
    uint32_t *a = realloc(*arrays[i], cap * sizeof *a);
    if (!a) return false;
    *arrays[i] = a;
  }
  uint16_t *l = realloc(T->lab, cap * sizeof *l);
  if (!l) return false;
  T->lab = l;
  T->cap = cap;
  return true;
}

static uint32_t trie_node(Trie *T, uint16_t lab, uint32_t lo) {
  if (T->nnodes == T->cap && !trie_grow(T)) return NIL;
  uint32_t i = T->nnodes++;
  T->first[i] = T->sib[i] = T->big[i] = NIL;
  T->lab[i] = lab;
  T->lo[i] = T->hi[i] = lo;
  T->nend[i] = 0;
  return i;
}

/* The label of a token's d-th edge (head bytes, marker, tail bytes). */
static uint16_t tok_label(const geno_constrain_vocab *V, uint32_t i, size_t d) {
  if (V->skip) d += V->skip[i];
  const unsigned char *s = (const unsigned char *)V->bytes + V->off[i];
  size_t k = V->split[i];
  if (d < k) return s[d];
  if (d == k) return (uint16_t)(LAB_MARK + V->tclass[i]);
  return s[d - 1];
}
static size_t tok_labels(const geno_constrain_vocab *V, uint32_t i) {
  return V->len[i] + (V->split[i] < V->len[i]) - (V->skip ? V->skip[i] : 0);
}

static int cmp_tok(const void *a, const void *b, void *vocab) {
  const geno_constrain_vocab *V = vocab;
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  size_t ni = tok_labels(V, i), nj = tok_labels(V, j);
  for (size_t d = 0; d < ni && d < nj; d++) {
    uint16_t x = tok_label(V, i, d), y = tok_label(V, j, d);
    if (x != y) return x < y ? -1 : 1;
  }
  if (ni != nj) return ni < nj ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* The kinds (bit SAFE_k) of literal or comment in which byte c is plain
 * text: read there, it leaves the lexer where it was and the text valid. */
static uint8_t safe_bytes(unsigned c) {
  if (c == 0 || c >= 0x80) return 0;
  uint8_t k = 1u << SAFE_TSTR | 1u << SAFE_LINE | 1u << SAFE_BLOCK | 1u << SAFE_STR | 1u << SAFE_FSTR;
  if (c == '"') k &= (uint8_t)~(1u << SAFE_STR | 1u << SAFE_TSTR | 1u << SAFE_FSTR);
  if (c == '\\' || c == '\n' || c == '\r') k &= (uint8_t)~(1u << SAFE_STR | 1u << SAFE_FSTR);
  if (c == '\n' || c == '\r') k &= (uint8_t)~(1u << SAFE_LINE);
  if (c == '{') k &= (uint8_t)~(1u << SAFE_FSTR);
  if (c == '*') k &= (uint8_t)~(1u << SAFE_BLOCK);
  return k;
}

/* Insert tokens in label order: a node's children are then made in label
 * order, the path of the previous token is the only one that can be
 * shared, and every subtree's tokens are consecutive in T->tok. */
static bool trie_build(const geno_constrain_vocab *V, Trie *T, const uint32_t *order, size_t n) {
  T->tok = malloc((n ? n : 1) * sizeof *T->tok);
  if (!T->tok || trie_node(T, 0, 0) == NIL) return false;
  size_t path_cap = 64, plen = 0; /* path[d]: node at depth d of the previous token */
  uint32_t *path = malloc(path_cap * sizeof *path);
  if (!path) return false;
  path[0] = 0;
  uint32_t prev = NIL;
  for (size_t r = 0; r < n; r++) {
    uint32_t i = order[r];
    T->tok[r] = i;
    size_t len = tok_labels(V, i), common = 0;
    if (prev != NIL)
      while (common < len && common < plen && tok_label(V, i, common) == tok_label(V, prev, common)) common++;
    if (len + 1 > path_cap) {
      size_t nc = (len + 1) * 2;
      uint32_t *p = realloc(path, nc * sizeof *p);
      if (!p) return free(path), false;
      path = p;
      path_cap = nc;
    }
    for (size_t d = common; d < len; d++) {
      uint32_t parent = path[d];
      uint32_t c = trie_node(T, tok_label(V, i, d), (uint32_t)r);
      if (c == NIL) return free(path), false;
      /* append as the last child (children arrive in label order) */
      if (T->first[parent] == NIL) {
        T->first[parent] = c;
      } else {
        uint32_t x = T->first[parent];
        while (T->sib[x] != NIL) x = T->sib[x];
        T->sib[x] = c;
      }
      path[d + 1] = c;
    }
    for (size_t d = 0; d <= len; d++) T->hi[path[d]] = (uint32_t)r + 1;
    T->nend[path[len]]++;
    plen = len;
    prev = i;
  }
  free(path);
  /* children come after their parent: fill allsafe from the leaves up */
  if (!(T->allsafe = malloc(T->nnodes))) return false;
  for (uint32_t x = T->nnodes; x-- > 0;) {
    uint8_t all = T->lab[x] >= LAB_MARK ? 0xFF : safe_bytes(T->lab[x]); /* tails: name bytes */
    for (uint32_t c = T->first[x]; c != NIL; c = T->sib[c]) all &= T->allsafe[c];
    T->allsafe[x] = all;
  }
  /* bitsets for the big subtrees (the ones a mask may take whole) */
  for (uint32_t x = 1; x < T->nnodes; x++) {
    if (T->hi[x] - T->lo[x] < BIG_RANGE) continue;
    uint64_t **p = realloc(T->bigset, (T->nbig + 1) * sizeof *p);
    if (!p) return false;
    T->bigset = p;
    uint64_t *b = calloc(V->words ? V->words : 1, sizeof *b);
    if (!b) return false;
    for (uint32_t r = T->lo[x]; r < T->hi[x]; r++) b[T->tok[r] >> 6] |= 1ull << (T->tok[r] & 63);
    T->bigset[T->nbig] = b;
    T->big[x] = T->nbig++;
  }
  return true;
}

static void trie_free(Trie *T) {
  free(T->tok);
  free(T->first);
  free(T->sib);
  free(T->lab);
  free(T->lo);
  free(T->hi);
  free(T->nend);
  free(T->big);
  free(T->allsafe);
  for (uint32_t i = 0; i < T->nbig; i++) free(T->bigset[i]);
  free(T->bigset);
}

/* Where the tail of a token begins and its class (split == n: no tail). */
static size_t token_split(const unsigned char *t, size_t n, uint8_t *cls) {
  size_t j = n;
  while (j > 0 && is_idchar(t[j - 1])) j--;
  if (j == n) return n;
  if (is_digit(t[j])) {
    for (size_t k = j; k < n; k++)
      if (!is_digit(t[k])) return n;
    if (n - j > TAIL_MAX_DIGITS) return n;
    *cls = TAIL_DIGITS;
  } else {
    *cls = is_upper(t[j]) ? TAIL_UPPER : TAIL_LOWER;
  }
  return j;
}

/* How many bytes of the token stay inside a literal or comment of kind
 * `k`, read from a character boundary (n: all of them). With `plain`,
 * the text part ends at a line end too, and a character counts only
 * once it is whole. */
static size_t token_text(const unsigned char *t, size_t n, int k, bool plain) {
  int need = 0;
  unsigned lo = 0x80, hi = 0xBF;
  size_t whole = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned c = t[i];
    if (c == 0) return plain ? whole : i;
    if (plain && (c == '\n' || c == '\r')) return whole;
    switch (k) {
    case SAFE_STR: if (c == '"' || c == '\\' || c == '\n' || c == '\r') return plain ? whole : i; break;
    case SAFE_TSTR: if (c == '"') return plain ? whole : i; break;
    case SAFE_FSTR: if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '{') return plain ? whole : i; break;
    case SAFE_LINE: if (c == '\n' || c == '\r') return plain ? whole : i; break;
    default: if (c == '*') return plain ? whole : i; break;
    }
    if (need) {
      if (c < lo || c > hi) return plain ? whole : i;
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
      else return plain ? whole : i;
    }
    if (!need) whole = i + 1;
  }
  return n;
}

/* Contains "else" (whose column the recognizer keeps). */
static bool has_else(const unsigned char *t, size_t n) {
  for (size_t i = 0; i + 4 <= n; i++)
    if (memcmp(t + i, "else", 4) == 0) return true;
  return false;
}

/* Whether the token stays inside a literal or comment of kind `k`. */
static bool token_safe(const unsigned char *t, size_t n, int k) {
  return token_text(t, n, k, false) == n;
}
static bool bit(const uint64_t *b, size_t i) { return (b[i >> 6] >> (i & 63)) & 1; }

/* Blanks and line ends only (not empty). */
static bool blank_token(const unsigned char *t, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r') return false;
  return n > 0;
}

/* A token that fails whenever it is read from code (lexer modes between
 * tokens, in a name, a number or an operator, or after a `/`): a non-ASCII
 * byte comes before any byte that could leave code (a quote, a slash, the
 * `}` of an interpolation, or a first `*`, which after a `/` opens a
 * comment), and code has no place for it. Most of a large vocabulary's
 * words of other languages are such tokens. */
static bool code_dead(const unsigned char *t, size_t n) {
  if (n > 0 && t[0] == '*') return false; /* `/` + `*é`: a comment */
  for (size_t i = 0; i < n; i++) {
    if (t[i] == '"' || t[i] == '/' || t[i] == '}') return false;
    if (t[i] >= 0x80) return true;
  }
  return false;
}

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
  V->split = malloc((n ? n : 1) * sizeof *V->split);
  V->tclass = malloc(n ? n : 1);
  uint32_t *order = malloc((n ? n : 1) * sizeof *order);
  uint32_t *sub = malloc((n ? n : 1) * sizeof *sub), *sub1 = malloc((n ? n : 1) * sizeof *sub1), *skip = NULL;
  if (!V->bytes || !V->off || !V->len || !V->split || !V->tclass || !order || !sub || !sub1 || n >= NIL) goto fail;
  for (int k = 0; k < SAFE__COUNT; k++)
    if (!(V->safe[k] = calloc(V->words ? V->words : 1, sizeof(uint64_t)))) goto fail;
  if (!(V->blank = calloc(V->words ? V->words : 1, sizeof(uint64_t)))) goto fail;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if (lens[i] >= NIL) goto fail;
    if (lens[i]) memcpy(V->bytes + at, tokens[i], lens[i]);
    V->off[i] = at;
    V->len[i] = lens[i];
    if (lens[i] > V->maxlen) V->maxlen = lens[i];
    const unsigned char *t = (const unsigned char *)V->bytes + at;
    at += lens[i];
    order[i] = (uint32_t)i;
    V->tclass[i] = 0;
    V->split[i] = (uint32_t)token_split(t, lens[i], &V->tclass[i]);
    for (int k = 0; k < SAFE__COUNT; k++)
      if (token_safe(t, lens[i], k)) V->safe[k][i >> 6] |= 1ull << (i & 63);
  }
  qsort_r(order, n, sizeof *order, cmp_tok, V);
  /* code-dead and blank tokens have their own tries (sub keeps the order) */
  for (int part = 0; part < 3; part++) {
    size_t m = 0;
    for (size_t r = 0; r < n; r++) {
      uint32_t i = order[r];
      const unsigned char *t = (const unsigned char *)V->bytes + V->off[i];
      int which = code_dead(t, V->len[i]) ? 1 : blank_token(t, V->len[i]) ? 2 : 0;
      if (which == part) sub[m++] = i;
      if (which == 2) V->blank[i >> 6] |= 1ull << (i & 63);
    }
    if (!trie_build(V, part == 0 ? &V->trie : part == 1 ? &V->t_dead : &V->t_blank, sub, m)) goto fail;
  }
  skip = calloc(n ? n : 1, sizeof *skip);
  if (!skip) goto fail;
  for (int k = 0; k < SAFE__COUNT; k++) {
    size_t m0 = 0, m1 = 0;
    for (size_t r = 0; r < n; r++) {
      uint32_t i = order[r];
      if (bit(V->safe[k], i)) continue;
      const unsigned char *t = (const unsigned char *)V->bytes + V->off[i];
      size_t a = token_text(t, V->len[i], k, true);
      /* the text part is read as one 'a' would be: the same but for the
       * column, which only an `else` keeps (to place a later `if`) */
      if (a > 0 && !has_else(t + a, V->len[i] - a)) {
        skip[i] = (uint32_t)a;
        sub1[m1++] = i;
      } else {
        sub[m0++] = i;
      }
    }
    if (!trie_build(V, &V->t_unsafe_0[k], sub, m0)) goto fail;
    V->skip = skip;
    qsort_r(sub1, m1, sizeof *sub1, cmp_tok, V);
    bool ok = trie_build(V, &V->t_unsafe_1[k], sub1, m1);
    V->skip = NULL;
    if (!ok) goto fail;
  }
  free(order);
  free(sub);
  free(sub1);
  free(skip);
  return V;
fail:
  free(order);
  free(sub);
  free(sub1);
  free(skip);
  geno_constrain_vocab_free(V);
  return NULL;
}

void geno_constrain_vocab_free(geno_constrain_vocab *V) {
  if (!V) return;
  trie_free(&V->trie);
  trie_free(&V->t_dead);
  trie_free(&V->t_blank);
  free(V->blank);
  for (int k = 0; k < SAFE__COUNT; k++) {
    trie_free(&V->t_unsafe_0[k]);
    trie_free(&V->t_unsafe_1[k]);
    free(V->safe[k]);
  }
  free(V->bytes);
  free(V->off);
  free(V->len);
  free(V->split);
  free(V->tclass);
  free(V);
}

size_t geno_constrain_vocab_size(const geno_constrain_vocab *V) { return V ? V->n : 0; }

/* Every token of node x's subtree (whole), or only those ending at x. */
static void set_subtree(const Trie *T, uint32_t x, uint64_t *bits, size_t words) {
  if (T->big[x] != NIL) {
    const uint64_t *b = T->bigset[T->big[x]];
    for (size_t i = 0; i < words; i++) bits[i] |= b[i];
    return;
  }
  for (uint32_t r = T->lo[x]; r < T->hi[x]; r++) bits[T->tok[r] >> 6] |= 1ull << (T->tok[r] & 63);
}
static void set_ending(const Trie *T, uint32_t x, uint64_t *bits) {
  for (uint32_t r = T->lo[x], e = T->lo[x] + T->nend[x]; r < e; r++) bits[T->tok[r] >> 6] |= 1ull << (T->tok[r] & 63);
}

enum { TAILS_NONE, TAILS_ALL, TAILS_WALK };

/* What the tails of class `cls` (words of that class, of at most
 * TAIL_MAX_DIGITS digits for digits) do when read from the current state:
 * all keep the text valid, none does, or it depends on the spelling (then
 * they are walked byte by byte). Leaves the state as it was. */
static int tails_rule(Sess *S, int cls) {
  Core *C = &S->c;
  if (C->u8need) return TAILS_NONE; /* an ASCII byte where a continuation byte must come */
  Level *L = C->outer.mode == LX_INTERP ? &C->inner : &C->outer;
  switch (L->mode) {
  case LX_STR: case LX_STR1: case LX_TSTR: case LX_FSTR: case LX_FQ1:
  case LX_LINE_COMMENT: case LX_BLOCK_COMMENT: case LX_BC_STAR:
    return TAILS_ALL; /* name bytes are text there */
  case LX_INT: case LX_FRAC:
    if (cls != TAIL_DIGITS) return TAILS_NONE; /* no separator between number and name */
    return L->ndig + TAIL_MAX_DIGITS <= 1000 ? TAILS_ALL : TAILS_WALK;
  case LX_IDENT: case LX_F: {
    /* the tail continues the pending name */
    if (is_upper((unsigned char)S->idbuf[C->id_off])) return TAILS_ALL; /* a type name: viable, stays so */
    ProbeCache *pc;
    return probe(S, TOK_IDENT, L->tok_nl, L->tok_col, &pc) && !pc->ident_need ? TAILS_ALL : TAILS_WALK;
  }
  case LX_START: case LX_OP: case LX_SLASH: case LX_INT_DOT: {
    /* the tail's first byte ends what is pending (alike for every byte of
     * the class) and begins a name or a number: read one of the class */
    static const char rep[TAIL__COUNT] = {'q', 'Q', '7'};
    Core save = *C;
    C->mark = C->bump;
    bool ok = feed_byte(S, (unsigned char)rep[cls]);
    int r;
    if (cls != TAIL_LOWER) {
      r = ok ? TAILS_ALL : TAILS_NONE; /* type names and numbers: any spelling alike */
    } else {
      ProbeCache *pc;
      Level *M = C->outer.mode == LX_INTERP ? &C->inner : &C->outer;
      r = ok && M->mode == LX_IDENT && probe(S, TOK_IDENT, M->tok_nl, M->tok_col, &pc) && !pc->ident_need
              ? TAILS_ALL
              : TAILS_WALK; /* keywords, or one required name */
    }
    *C = save;
    return r;
  }
  default:
    return TAILS_WALK;
  }
}

typedef struct DfsEntry {
  uint32_t next; /* next child of the node to try */
  int safe;      /* the SAFE_* kind of text the state is in, or -1 */
  Core saved;    /* the state at the node */
} DfsEntry;

/* The kind of literal or comment text the outer level is reading (where
 * safe_bytes applies), or -1. */
static int text_kind(const Core *C) {
  if (C->u8need || C->cr) return -1;
  switch (C->outer.mode) {
  case LX_STR: case LX_STR1: return SAFE_STR;
  case LX_TSTR: return SAFE_TSTR;
  case LX_FSTR: case LX_FQ1: return SAFE_FSTR;
  case LX_LINE_COMMENT: return SAFE_LINE;
  case LX_BLOCK_COMMENT: return SAFE_BLOCK;
  default: return -1;
  }
}

/* Depth-first walk of a trie from the current state (the root's own
 * tokens are the caller's); every node's state is a saved Core (frames
 * are shared, copied on write), a subtree is left as soon as the bytes
 * leading to it fail, and the tails below a marker are taken or dropped
 * whole when tails_rule can tell. */
static void mask_walk(Sess *S, const Trie *T, uint64_t *bits, size_t words) {
  if (!T->nnodes || T->first[0] == NIL) return;
  size_t cap = 64, sp = 0;
  DfsEntry *st = malloc(cap * sizeof *st);
  if (!st) {
    S->oom = true;
    return;
  }
  st[0].next = T->first[0];
  st[0].saved = S->c;
  st[0].safe = text_kind(&S->c);
  for (;;) {
    DfsEntry *e = &st[sp];
    if (e->next == NIL) {
      if (sp == 0) break;
      sp--;
      continue;
    }
    uint32_t ch = e->next;
    e->next = T->sib[ch];
    if (e->safe >= 0 && (T->allsafe[ch] >> e->safe & 1)) {
      set_subtree(T, ch, bits, words); /* text to the end of every token below */
      continue;
    }
    S->c = e->saved;
    S->c.mark = S->c.bump;
    if (T->lab[ch] >= LAB_MARK) {
      int r = tails_rule(S, T->lab[ch] - LAB_MARK);
      if (r == TAILS_ALL) set_subtree(T, ch, bits, words);
      if (r != TAILS_WALK) continue;
    } else {
      if (!feed_byte(S, T->lab[ch])) continue;
      set_ending(T, ch, bits);
    }
    if (T->first[ch] != NIL) {
      if (sp + 1 == cap) {
        DfsEntry *p = realloc(st, cap * 2 * sizeof *st);
        if (!p) {
          S->oom = true;
          break;
        }
        st = p;
        cap *= 2;
      }
      sp++;
      st[sp].next = T->first[ch];
      st[sp].saved = S->c;
      st[sp].safe = text_kind(&S->c);
    }
  }
  S->c = st[0].saved;
  free(st);
}

static void or_bits(uint64_t *dst, const uint64_t *src, size_t words) {
  for (size_t i = 0; i < words; i++) dst[i] |= src[i];
}

size_t geno_constrain_mask(geno_constrain *S, const geno_constrain_vocab *V, uint64_t *bits) {
  if (!V) return 0;
  memset(bits, 0, V->words * sizeof *bits);
  if (!S || S->c.failed) return 0;
  bool spec = S->spec;
  S->spec = true;
  Core save = S->c;
  S->c.mark = S->c.bump;
  set_ending(&V->trie, 0, bits); /* empty tokens */
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
  if (safe >= 0 && !S->c.u8need && !S->c.cr) {
    or_bits(bits, V->safe[safe], V->words);
    mask_walk(S, &V->t_unsafe_0[safe], bits, V->words);
    S->c.mark = S->c.bump;
    if (feed_byte(S, 'a')) mask_walk(S, &V->t_unsafe_1[safe], bits, V->words);
    S->c = save;
  } else {
    mask_walk(S, &V->trie, bits, V->words);
    const Level *A = L->mode == LX_INTERP ? &S->c.inner : L;
    bool code = !S->c.u8need && (A->mode == LX_START || A->mode == LX_IDENT || A->mode == LX_F || A->mode == LX_INT ||
                                 A->mode == LX_INT_DOT || A->mode == LX_FRAC || A->mode == LX_OP || A->mode == LX_SLASH);
    if (code) {
      /* from code, every blank token ends what is pending as one blank
       * does, then changes nothing that a token of its own could see;
       * code-dead tokens all fail */
      if (feed_byte(S, ' ')) or_bits(bits, V->blank, V->words);
    } else {
      mask_walk(S, &V->t_dead, bits, V->words);
      mask_walk(S, &V->t_blank, bits, V->words);
    }
  }
  S->c = save;
  S->spec = spec;
  /* the tokens that would take the text past the limit (feed refuses them) */
  size_t room = GENO_CONSTRAIN_MAX_BYTES - (size_t)S->c.pos;
  if (V->maxlen > room)
    for (size_t i = 0; i < V->n; i++)
      if (V->len[i] > room) bits[i / 64] &= ~((uint64_t)1 << (i % 64));
  size_t count = 0;
  for (size_t i = 0; i < V->words; i++) count += (size_t)__builtin_popcountll(bits[i]);
  return count;
}
