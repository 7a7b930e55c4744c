/* The abstract syntax tree of a Geno 0.4 module.
 *
 * Invariants:
 * - Every node lives in the module's arena and is freed with it in one call
 *   (ast_program_free); nothing in the tree is malloc'd on its own.
 * - Every node carries its source span. Spans point at the first token of
 *   the construct, as the reference reports them (a binary operation is
 *   located at its left operand, a unary operation at its operand).
 * - Names (identifiers, type names, field names) are interned: equal names
 *   are equal pointers, so later phases compare them with ==.
 * - Lists are (pointer, count) pairs; count may be 0 with a NULL pointer.
 * - `type` on Expr starts NULL and is filled by the typechecker; `aux` is a
 *   scratch slot the checker and compiler may use (see their headers).
 * - Depth is bounded: no chain of nested Stmt/Expr nodes in a module is
 *   longer than PARSE_MAX_TREE_DEPTH (parser.h; declarations deeper than
 *   that are reported and dropped), patterns and type annotations nest at
 *   most PARSE_MAX_DEPTH. Later phases may walk the tree recursively.
 * - An else-if chain is an ST_IF whose else block holds exactly one ST_IF
 *   (`else_if` set), one per link, sharing the first link's `end if`.
 *
 * Grammar comments on the parse functions (parser*.c) quote the spec's
 * grammar (docs/spec/v0.4.md section 14) and say where the reference's
 * parser differs from it. */
#ifndef GENO_SYNTAX_AST_H
#define GENO_SYNTAX_AST_H

#include "../base/arena.h"
#include "../base/diag.h"
#include "../base/intern.h"

typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Pattern Pattern;
typedef struct TypeExpr TypeExpr;
typedef struct Decl Decl;
struct Type; /* typechecker's type (src/check/types.h) */

/* ---- type annotations ---------------------------------------------------- */

typedef enum TypeExprKind {
  TE_NAME, /* Name or Name[args]; a tuple type (A, B) is name "Tuple" */
  TE_FUNC, /* (params) -> ret [with effects] */
} TypeExprKind;

struct TypeExpr {
  TypeExprKind kind;
  Span span;
  const char *name;    /* TE_NAME: interned; "Tuple" for (A, B) */
  bool is_tuple;       /* TE_NAME written as a parenthesised tuple */
  TypeExpr **args;     /* TE_NAME: type arguments; TE_FUNC: parameter types */
  int nargs;
  TypeExpr *ret;       /* TE_FUNC */
  const char **effects; /* TE_FUNC: effect names as written */
  Span *effect_spans;
  int neffects;
};

/* ---- expressions ------------------------------------------------------- */

typedef enum ExprKind {
  EX_INT,         /* 42 (arbitrary precision, kept as digits) */
  EX_FLOAT,       /* 3.14 */
  EX_STRING,      /* "text", """text""" */
  EX_FSTRING,     /* f"a {e} b" */
  EX_BOOL,        /* true / false */
  EX_IDENT,       /* name */
  EX_TYPE_IDENT,  /* Name (nullary constructor or module name) */
  EX_LIST,        /* [a, b] */
  EX_TUPLE,       /* (a, b), (a,), () = Unit */
  EX_LIST_COMP,   /* [e for x: T in xs if c] */
  EX_THROW,       /* throw e */
  EX_AWAIT,       /* await e */
  EX_BINARY,      /* a op b, including `and`/`or` */
  EX_UNARY,       /* -a, ~a, not a */
  EX_CALL,        /* f(args) */
  EX_CTOR,        /* Name(args), and bare `None` */
  EX_INDEX,       /* a[i] */
  EX_FIELD,       /* a.f (also Module.name) */
  EX_PROPAGATE,   /* e? */
  EX_WITH,        /* e with (f: v, ...) */
  EX_PIPELINE,    /* e |> f(args) |> g */
  EX_PLACEHOLDER, /* _ in a pipeline stage argument */
  EX_LAMBDA,      /* fn(params) -> e, fn(params) do ... end fn */
  EX_MATCH,       /* match e with | p -> e ... end match */
  EX_HOLE,        /* ?name: Type [where e] */
} ExprKind;

typedef enum BinOp {
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_POW,
  OP_EQ, OP_NEQ, OP_LT, OP_GT, OP_LTE, OP_GTE,
  OP_BAND, OP_BXOR, OP_SHL, OP_SHR,
  OP_AND, OP_OR,
} BinOp;

typedef enum UnOp { OP_NEG, OP_BNOT, OP_NOT } UnOp;

/* Source text of an operator, e.g. "+" or "and". */
const char *ast_binop_text(BinOp op);
const char *ast_unop_text(UnOp op);

typedef struct Arg {
  const char *name; /* NULL for a positional argument */
  Span name_span;
  Expr *value;
} Arg;

typedef struct FStrPiece {
  const char *text; /* text piece (decoded), or NULL for an expression */
  size_t len;
  Expr *expr;
} FStrPiece;

typedef struct Param {
  const char *name;
  Span span;
  TypeExpr *type;
  Expr *def; /* default value, or NULL */
} Param;

typedef struct Block {
  Stmt **items;
  int n;
} Block;

typedef struct MatchArm {
  Span span;      /* the pattern's first token */
  Pattern *pat;
  Expr *guard;    /* `when` guard, or NULL */
  Block body;     /* statement arms */
  Expr *value;    /* expression arms (match expressions); body is empty */
} MatchArm;

typedef struct Stage {
  Span span;
  Expr *fn;        /* primary expression, possibly Module.name */
  Expr **args;     /* may contain EX_PLACEHOLDER */
  int nargs;
  bool has_parens; /* `|> f(...)` rather than `|> f` */
} Stage;

typedef struct FieldInit {
  const char *name;
  Span span;
  Expr *value;
} FieldInit;

struct Expr {
  ExprKind kind;
  int32_t aux;       /* scratch for later phases (beside kind: no padding) */
  Span span;
  struct Type *type; /* set by the typechecker */
  union {
    struct { const char *digits; size_t len; } int_lit;
    double float_val;
    struct { const char *s; size_t len; } str;
    bool bool_val;
    const char *name; /* EX_IDENT, EX_TYPE_IDENT */
    struct { FStrPiece *pieces; int n; } fstr;
    struct { Expr **items; int n; } list; /* EX_LIST, EX_TUPLE */
    struct {
      Expr *elem;
      const char *var;
      Span var_span;
      TypeExpr *var_type;
      Expr *iter;
      Expr *cond; /* or NULL */
    } comp;
    Expr *operand; /* EX_THROW, EX_AWAIT, EX_PROPAGATE */
    struct { BinOp op; Expr *l, *r; } bin;
    struct { UnOp op; Expr *e; } un;
    struct { Expr *callee; Arg *args; int nargs; } call;
    struct { const char *name; Arg *args; int nargs; bool has_parens; } ctor;
    struct { Expr *target, *index; } index;
    struct { Expr *target; const char *name; Span name_span; } field;
    struct { Expr *target; FieldInit *inits; int n; } with;
    struct { Expr *init; Stage *stages; int n; } pipe;
    struct {
      Param *params;
      int nparams;
      Expr *body;  /* expression lambda */
      Block block; /* block lambda */
      bool is_block;
    } lambda;
    struct { Expr *scrutinee; MatchArm *arms; int n; } match;
    struct { const char *name; TypeExpr *type; Expr *where; } hole;
  } u;
};

/* ---- patterns -------------------------------------------------------------- */

typedef enum PatternKind {
  PAT_WILDCARD, /* _ */
  PAT_VAR,      /* name */
  PAT_CTOR,     /* Name, Name(p, ...) */
  PAT_INT,      /* 42 */
  PAT_FLOAT,    /* 1.5 */
  PAT_STRING,   /* "s" */
  PAT_BOOL,     /* true / false */
  PAT_LIST,     /* [p, q], [h, ...t] */
  PAT_REST,     /* ...name / ... (only directly inside PAT_LIST) */
} PatternKind;

struct Pattern {
  PatternKind kind;
  Span span;
  const char *name;   /* PAT_VAR, PAT_CTOR, PAT_REST (NULL if anonymous) */
  Pattern **items;    /* PAT_CTOR sub-patterns, PAT_LIST elements */
  int n;
  bool has_parens;    /* PAT_CTOR written with (...) */
  const char *digits; /* PAT_INT */
  size_t len;         /* PAT_INT digits, PAT_STRING bytes */
  double fval;        /* PAT_FLOAT */
  const char *str;    /* PAT_STRING */
  bool bval;          /* PAT_BOOL */
};

/* ---- statements -------------------------------------------------------- */

typedef enum StmtKind {
  ST_LET,          /* let x[: T] = e  and  var x[: T] = e (is_var) */
  ST_DESTRUCT,     /* let (a, b): (A, B) = e / var (...) */
  ST_ASSIGN,       /* x = e */
  ST_INDEX_ASSIGN, /* t[i] = e */
  ST_FIELD_ASSIGN, /* t.f = e */
  ST_IF,
  ST_WHILE,
  ST_FOR,
  ST_MATCH,
  ST_RETURN,
  ST_BREAK,
  ST_CONTINUE,
  ST_TRY,
  ST_EXPR,
  ST_ASSERT, /* only directly in a test block */
} StmtKind;

struct Stmt {
  StmtKind kind;
  int32_t aux; /* scratch for later phases (beside kind: no padding) */
  Span span;
  union {
    struct { const char *name; Span name_span; TypeExpr *type; Expr *value; bool is_var; } let;
    struct { const char **names; Span *spans; int n; TypeExpr *type; Expr *value; bool is_var; } destr;
    struct { const char *name; Expr *value; } assign;
    struct { Expr *target, *index, *value; } index_assign;
    struct { Expr *target; const char *name; Span name_span; Expr *value; } field_assign;
    struct { Expr *cond; Block then_b; Block else_b; bool else_if; } if_;
    struct { Expr *cond; Block body; } while_;
    struct { const char *var; Span var_span; TypeExpr *var_type; Expr *iter; Block body; } for_;
    struct { Expr *scrutinee; MatchArm *arms; int n; } match;
    struct { Expr *value; bool bare; } ret; /* bare: value is a synthetic () */
    struct {
      Block body;
      Span catch_span;
      const char *var;
      Span var_span;
      TypeExpr *type;
      Block handler;
    } try_;
    Expr *expr; /* ST_EXPR, ST_ASSERT */
  } u;
};

/* ---- declarations ------------------------------------------------------ */

typedef struct SpecClause {
  Span span;
  Expr *cond;
} SpecClause;

typedef struct Example {
  Span span;
  Expr *input;  /* one input, or an EX_TUPLE built from `a, b` */
  bool several; /* written as `example a, b -> r` */
  Expr *output;
} Example;

typedef struct FuncDecl {
  const char *name;
  Span span;       /* the `func` keyword */
  Span name_span;
  Param *params;
  int nparams;
  TypeExpr *ret;
  const char **effects; /* `with` annotation, as written */
  Span *effect_spans;
  int neffects;
  bool has_effects;     /* a `with` clause was written */
  SpecClause *requires; int nrequires;
  SpecClause *ensures;  int nensures;
  Example *examples;    int nexamples;
  Block body;
  Span end_span;        /* the closing `end` */
  bool is_async;
  const char *untested; /* @untested reason, or NULL */
  bool exported;
} FuncDecl;

typedef struct FieldDecl {
  const char *name;
  Span span;
  TypeExpr *type;
} FieldDecl;

typedef struct Variant {
  const char *name;
  Span span;
  FieldDecl *fields;
  int nfields;
  bool has_parens;
} Variant;

typedef struct TraitMethod {
  const char *name;
  Span span;
  Param *params;
  int nparams;
  TypeExpr *ret;
} TraitMethod;

typedef enum DeclKind {
  D_FUNC,   /* [export] [@untested(..)] [async] func */
  D_ADT,    /* type Name[T] = A | B(x: T) */
  D_ALIAS,  /* type Name[T] = OtherType */
  D_TRAIT,  /* trait Name ... end trait */
  D_IMPL,   /* impl Trait for Type ... end impl */
  D_IMPORT, /* import Name [as Alias] */
  D_TEST,   /* test "name" ... end test */
} DeclKind;

struct Decl {
  DeclKind kind;
  Span span;
  bool exported;
  int nnodes; /* Expr and Stmt nodes the parser made for it (depth.c) */
  union {
    FuncDecl func;
    struct { const char *name; const char **params; int nparams; Variant *variants; int n; } adt;
    struct { const char *name; const char **params; int nparams; TypeExpr *target; } alias;
    struct { const char *name; TraitMethod *methods; int n; } trait;
    struct {
      const char *trait;
      Span trait_span;
      const char *type;
      Span type_span;
      FuncDecl **methods;
      int n;
    } impl;
    struct { const char *module; Span module_span; const char *alias; } import;
    struct { const char *name; size_t name_len; Block body; } test;
  } u;
};

/* One parsed source file. */
typedef struct Module {
  const char *name;     /* module name ("Main" for the entry file) */
  const char *file;     /* file name used in spans */
  const char *src;      /* source text (owned by the Program's arena) */
  size_t len;
  Decl **decls;
  int ndecls;
  bool parsed_ok;       /* no lexer or parser error */
} Module;

/* A set of modules sharing one arena and one name table. */
typedef struct Program {
  Arena arena;     /* every node, name and source copy */
  Interner names;
  Module **modules; /* modules[0] is the entry module */
  int nmodules;
  int cap;
} Program;

/* Create an empty program; arena_limit bytes bounds all front-end memory
 * (0 = unlimited). */
void ast_program_init(Program *p, size_t arena_limit);
void ast_program_free(Program *p);

#endif
