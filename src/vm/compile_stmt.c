/* Statement compilation: bindings, assignments (including copy-on-write
 * updates of nested fields and indexes), control flow, try/catch, match
 * and patterns (see compile.h). */
#include <stdio.h>

#include "../check/types.h"
#include "compile.h"
#include "object.h"

/* Instructions emitted next are attributed to this source position. */
static void at(FuncState *fs, Span sp) { fs->span = sp; }

/* Expressions that write their destination before they finish reading
 * their operands: they must not target the variable being assigned. */
static bool unsafe_direct(const Expr *e) {
  switch (e->kind) {
    case EX_BINARY: return e->u.bin.op == OP_AND || e->u.bin.op == OP_OR;
    case EX_MATCH:
    case EX_LIST_COMP: return true;
    case EX_LIST: return e->u.list.n > 64;
    default: return false;
  }
}

/* A register the caller may modify: r itself if it is a temporary, else a
 * fresh copy (promotion must not change another variable). */
static int own_reg(FuncState *fs, int r) {
  if (r >= cg_nactive(fs)) return r;
  int t = cg_reserve(fs, 1);
  cg_emit(fs, BC_MOVE, t, r, 0);
  return t;
}

/* A return with a value: promote when the function returns Float and the
 * checker marked the statement; with ensures clauses, park the value in
 * the `result` register and jump to the shared epilogue that checks them. */
void cg_return_reg(FuncState *fs, int r, bool promote) {
  if (promote) {
    r = own_reg(fs, r);
    cg_emit(fs, BC_PROMOTE, r, 0, 0);
  }
  if (fs->result_reg >= 0) {
    if (r != fs->result_reg) cg_emit(fs, BC_MOVE, fs->result_reg, r, 0);
    cg_jl_add(fs, &fs->to_epilogue, cg_emit_jump(fs, BC_JMP, 0, 0, 0));
    return;
  }
  cg_emit(fs, BC_RET, r, 0, 0);
}

/* Set by the checker on let/var/assign/return statements that convert Int to Float. */
static bool promotes(const Stmt *s) { return (s->aux & CHK_AUX_PROMOTE_FLOAT) != 0; }

/* ---- bindings and assignment ------------------------------------------------------------ */

/* A binding takes the next free register and keeps it for the rest of the
 * block, so reading a local is a register operand, never a lookup. A `var`
 * that closures mention is boxed right after its first value is stored. */
static void let_stmt(FuncState *fs, Stmt *s) {
  int want = fs->freereg;
  int got = cg_expr(fs, s->u.let.value, -1);
  at(fs, s->span);
  if (got != want) {
    fs->freereg = want;
    cg_reserve(fs, 1);
    cg_emit(fs, BC_MOVE, want, got, 0);
  }
  fs->freereg = want + 1;
  if (promotes(s)) cg_emit(fs, BC_PROMOTE, want, 0, 0);
  Local *l = cg_add_local(fs, s->u.let.name, want, s->u.let.is_var);
  if (l->is_cell) cg_emit(fs, BC_NEWCELL, want, 0, 0);
}

/* `let (a, b) = t`: the tuple stays in a hidden local and each name gets
 * its element; GETTUPLE checks the tuple's size (a runtime type error on
 * a mismatch). */
static void destructure(FuncState *fs, Stmt *s) {
  int t = fs->freereg;
  int got = cg_expr(fs, s->u.destr.value, -1);
  at(fs, s->span);
  fs->freereg = t;
  cg_reserve(fs, 1);
  if (got != t) cg_emit(fs, BC_MOVE, t, got, 0);
  cg_add_local(fs, NULL, t, false);
  int n = s->u.destr.n;
  if (n > CG_MAX_DESTRUCT) {
    cg_error(fs->cg, &s->span, E_RESOURCE,
             "Tuple destructuring binds %d names; at most %d are supported (match on the tuple instead)", n,
             CG_MAX_DESTRUCT);
    return;
  }
  for (int i = 0; i < n; i++) {
    int r = cg_reserve(fs, 1);
    cg_emit(fs, BC_GETTUPLE, r, t, i | (n << 8));
    Local *l = cg_add_local(fs, s->u.destr.names[i], r, s->u.destr.is_var);
    if (l->is_cell) cg_emit(fs, BC_NEWCELL, r, 0, 0);
  }
}

/* `x = e` on a plain local evaluates e straight into x's register, except
 * for the expressions of unsafe_direct (they would clobber x while still
 * reading it). Cells and captured variables go through SETCELL/SETUPVC. */
static void assign(FuncState *fs, Stmt *s) {
  VarRef v = cg_resolve(fs, s->u.assign.name);
  Expr *val = s->u.assign.value;
  if (v.kind == VAR_LOCAL && !v.is_cell) {
    if (unsafe_direct(val)) {
      int r = cg_expr(fs, val, -1);
      at(fs, s->span);
      if (r != v.index) cg_emit(fs, BC_MOVE, v.index, r, 0);
    } else {
      cg_expr(fs, val, v.index);
      at(fs, s->span);
    }
    if (promotes(s)) cg_emit(fs, BC_PROMOTE, v.index, 0, 0);
    return;
  }
  int r = cg_expr(fs, val, -1);
  at(fs, s->span);
  if (promotes(s)) {
    r = own_reg(fs, r);
    cg_emit(fs, BC_PROMOTE, r, 0, 0);
  }
  if (v.kind == VAR_LOCAL) cg_emit(fs, BC_SETCELL, v.index, r, 0);
  else if (v.kind == VAR_UPVAL && v.is_cell) cg_emit(fs, BC_SETUPVC, r, v.index, 0);
  else cg_emit_bx(fs, BC_UNDEF, r, cg_name(fs->cg, s->u.assign.name));
}

/* t[i] = v and a.b.c = v: read the containers along the path, update the
 * innermost, then rebuild outward. Arrays, Vecs and MutableMaps change in
 * place (they are shared references); Lists, Maps and constructor values
 * get updated copies, so only the assigned variable sees the change. */
static void store_path(FuncState *fs, Stmt *s, Expr *chain, bool leaf_field, const char *leaf_name,
                       Expr *leaf_index, Expr *value) {
  Expr *nodes[CG_MAX_PATH];
  int n = 0;
  Expr *e = chain;
  while (e->kind == EX_FIELD || e->kind == EX_INDEX) {
    if (n == CG_MAX_PATH) {
      cg_error(fs->cg, &s->span, E_RESOURCE,
               "Assignment target is nested too deeply: more than %d field or index steps; assign through a "
               "local variable instead",
               CG_MAX_PATH);
      return;
    }
    nodes[n++] = e;
    e = e->kind == EX_FIELD ? e->u.field.target : e->u.index.target;
  }
  /* nodes[n-1] is applied to the root first. */
  int c[CG_MAX_PATH + 1], idx[CG_MAX_PATH];
  VarRef root = {VAR_NONE, 0, false, false};
  if (e->kind == EX_IDENT) root = cg_resolve(fs, e->u.name);
  if (root.kind == VAR_LOCAL && !root.is_cell) {
    fs->pending++;
    c[0] = root.index;
  } else {
    c[0] = cg_expr(fs, e, -1);
    c[0] = own_reg(fs, c[0]);
  }
  for (int k = 0; k < n; k++) {
    Expr *node = nodes[n - 1 - k];
    fs->pending++;
    c[k + 1] = cg_reserve(fs, 1);
    if (node->kind == EX_FIELD) {
      at(fs, node->span);
      cg_emit(fs, BC_GETFIELD, c[k + 1], c[k], cg_name(fs->cg, node->u.field.name));
    } else {
      int r = cg_expr(fs, node->u.index.index, -1);
      idx[k] = own_reg(fs, r);
      at(fs, node->span);
      cg_emit(fs, BC_INDEX, c[k + 1], c[k], idx[k]);
    }
  }
  int li = -1;
  if (!leaf_field) li = cg_expr(fs, leaf_index, -1);
  int v = cg_expr(fs, value, -1);
  at(fs, s->span);
  if (leaf_field) {
    int t = cg_reserve(fs, 1);
    cg_emit(fs, BC_WITHCOPY, t, c[n], 0);
    cg_emit(fs, BC_SETFIELD, t, v, cg_name(fs->cg, leaf_name));
    c[n] = t;
  } else {
    cg_emit(fs, BC_SETINDEX, c[n], li, v);
  }
  for (int k = n - 1; k >= 0; k--) {
    Expr *node = nodes[n - 1 - k];
    if (node->kind == EX_FIELD) {
      int t = cg_reserve(fs, 1);
      cg_emit(fs, BC_WITHCOPY, t, c[k], 0);
      cg_emit(fs, BC_SETFIELD, t, c[k + 1], cg_name(fs->cg, node->u.field.name));
      c[k] = t;
    } else {
      cg_emit(fs, BC_SETINDEX, c[k], idx[k], c[k + 1]);
    }
  }
  if (root.kind == VAR_LOCAL && !root.is_cell) {
    if (c[0] != root.index) cg_emit(fs, BC_MOVE, root.index, c[0], 0);
  } else if (root.kind == VAR_LOCAL) {
    cg_emit(fs, BC_SETCELL, root.index, c[0], 0);
  } else if (root.kind == VAR_UPVAL && root.is_cell) {
    cg_emit(fs, BC_SETUPVC, c[0], root.index, 0);
  }
}

/* ---- patterns --------------------------------------------------------------------------- */

static int hidden_temp(FuncState *fs) {
  int t = cg_reserve(fs, 1);
  cg_add_local(fs, NULL, t, false);
  return t;
}

/* Each pattern node tried is one step (two for a literal, whose equality
 * test is one more), charged as the match proceeds like the reference's
 * recursive matcher: a constructor that does not match costs one step,
 * not the weight of its whole sub-pattern. */
/* r_owned: r is a temporary this pattern alone reads (a field or element
 * just extracted), so a variable pattern can take it over instead of
 * copying; the scrutinee itself may be a variable the arm reassigns. */
static void pattern(FuncState *fs, Pattern *p, int r, bool r_owned, JumpList *fail) {
  at(fs, p->span);
  fs->pending += p->kind == PAT_INT || p->kind == PAT_FLOAT || p->kind == PAT_STRING || p->kind == PAT_BOOL ? 2 : 1;
  switch (p->kind) {
    case PAT_WILDCARD:
    case PAT_REST: return;
    case PAT_VAR: {
      if (r_owned) {
        Local *l = &fs->locals[fs->nlocals - 1];
        if (l->reg == r && l->name == NULL) {
          l->name = p->name; /* the hidden temp becomes the variable */
          return;
        }
      }
      int t = cg_reserve(fs, 1);
      cg_emit(fs, BC_MOVE, t, r, 0);
      cg_add_local(fs, p->name, t, false);
      return;
    }
    case PAT_CTOR: {
      const CtorInfo *ci = cg_find_ctor(fs->cg, p->name);
      if (!ci || p->n != ci->nfields) {
        cg_jl_add(fs, fail, cg_emit_jump(fs, BC_JMP, 0, 0, 0));
        return;
      }
      cg_jl_add(fs, fail, cg_emit_jump(fs, BC_TESTCTOR, r, 0, ci->id));
      for (int i = 0; i < p->n; i++) {
        if (p->items[i]->kind == PAT_WILDCARD) {
          fs->pending++;
          continue;
        }
        int t = hidden_temp(fs);
        at(fs, p->items[i]->span);
        cg_emit(fs, BC_GETFLDI, t, r, i);
        pattern(fs, p->items[i], t, true, fail);
      }
      return;
    }
    case PAT_INT:
    case PAT_FLOAT:
    case PAT_STRING:
    case PAT_BOOL: {
      int t = hidden_temp(fs);
      Value k;
      if (p->kind == PAT_INT) {
        if (p->len <= 9) {
          long x = 0;
          for (size_t i = 0; i < p->len; i++) x = x * 10 + (p->digits[i] - '0');
          cg_emit_bx(fs, BC_LOADI, t, (int32_t)x);
        } else {
          if (!obj_int_from_text(fs->cg->vm, p->digits, p->len, true, &k))
            cg_oom(fs->cg);
          cg_emit_bx(fs, BC_LOADK, t, cg_const(fs, k));
        }
      } else if (p->kind == PAT_FLOAT) {
        cg_emit_bx(fs, BC_LOADK, t, cg_const(fs, v_float(p->fval)));
      } else if (p->kind == PAT_STRING) {
        if (!obj_string_perm(fs->cg->vm, p->str, p->len, &k)) cg_oom(fs->cg);
        cg_emit_bx(fs, BC_LOADK, t, cg_const(fs, k));
      } else {
        cg_emit(fs, BC_LOADB, t, p->bval, 0);
      }
      cg_jl_add(fs, fail, cg_emit_jump(fs, BC_JEQ, r, t, 0));
      return;
    }
    case PAT_LIST: {
      int rest = -1;
      for (int i = 0; i < p->n; i++)
        if (p->items[i]->kind == PAT_REST) {
          rest = i;
          break;
        }
      int before = rest < 0 ? p->n : rest;
      int after = rest < 0 ? 0 : p->n - rest - 1;
      cg_jl_add(fs, fail, cg_emit_jump(fs, BC_TESTLIST, r, before + after, rest >= 0));
      for (int i = 0; i < before; i++) {
        if (p->items[i]->kind == PAT_WILDCARD) {
          fs->pending++;
          continue;
        }
        int t = hidden_temp(fs);
        at(fs, p->items[i]->span);
        cg_emit(fs, BC_GETLI, t, r, i);
        pattern(fs, p->items[i], t, true, fail);
      }
      if (rest >= 0 && p->items[rest]->name) {
        int t = cg_reserve(fs, 1);
        at(fs, p->items[rest]->span);
        int x = cg_emit_jump(fs, BC_LSLICE, t, r, before);
        fs->p->code[x].sbx = after;
        cg_add_local(fs, p->items[rest]->name, t, false);
      }
      for (int j = 0; j < after; j++) {
        Pattern *q = p->items[rest + 1 + j];
        if (q->kind == PAT_WILDCARD) {
          fs->pending++;
          continue;
        }
        int t = hidden_temp(fs);
        at(fs, q->span);
        cg_emit(fs, BC_GETLE, t, r, after - j);
        pattern(fs, q, t, true, fail);
      }
      return;
    }
  }
}

/* ---- match on an Option-returning builtin call (CALLBO) -------------------------------- */

/* `match map_get(m, k) with | Some(n) -> ... | None -> ...` is the usual
 * way to read a map, and materialising the Some only for the pattern to
 * take it apart again was the largest cost of such loops (an allocation,
 * and GC work, per lookup). When the scrutinee is a builtin call declared
 * to return Option and every arm's pattern is Some(p), None or `_`, the
 * Option cannot escape: nothing binds it whole. Then the call is emitted
 * as CALLBO, which leaves the payload in the register (MISSING for None),
 * and the arms test it with TESTOPT. Each emitted test and move stands in
 * for exactly one of the ordinary path, at the same step weight, so
 * steps_used is unchanged. */

/* The builtin's declared result type is Option[...]: the text after the
 * parameter list's closing parenthesis (parameter types may contain
 * arrows of their own, so the list is skipped by depth). */
static bool builtin_returns_option(FuncState *fs, int b) {
  const char *s = cg_builtin(fs, b)->sig;
  if (!s || *s != '(') return false;
  int depth = 0;
  for (; *s; s++) {
    if (*s == '(' || *s == '[') depth++;
    else if ((*s == ')' || *s == ']') && --depth == 0) break;
  }
  return *s && strncmp(s, ") -> Option[", 12) == 0;
}

/* Every arm's top-level pattern is Some(_), None or `_` (the built-in
 * constructors, not user ones of the same name). */
static bool option_arms(FuncState *fs, const MatchArm *arms, int narms) {
  for (int i = 0; i < narms; i++) {
    const Pattern *p = arms[i].pat;
    if (p->kind == PAT_WILDCARD) continue;
    if (p->kind != PAT_CTOR) return false;
    const CtorInfo *ci = cg_find_ctor(fs->cg, p->name);
    if (!ci || !((ci->id == CTOR_SOME && p->n == 1) || (ci->id == CTOR_NONE && p->n == 0))) return false;
  }
  return true;
}

/* The scrutinee just compiled into sr (code from `start` on) ended in a
 * CALLB of an Option builtin writing sr: turn it into CALLBO. */
static bool fuse_option_call(FuncState *fs, const Expr *scrutinee, int sr, int start) {
  if (scrutinee->kind != EX_CALL || (int)fs->p->ncode <= start) return false;
  Insn *last = &fs->p->code[fs->p->ncode - 1];
  if (last->op != BC_CALLB || last->a != sr || !builtin_returns_option(fs, last->c)) return false;
  if (last->b == 2 && (cg_builtin_is(fs, last->c, "mutable_map_get") || cg_builtin_is(fs, last->c, "map_get"))) {
    /* MMGETO sr, map, key. When the arguments were locals, the call is
     * just their two moves into the frame (nothing else was emitted, so
     * no jump lands between them), and MMGETO reads the locals instead. */
    Proto *p = fs->p;
    Insn *c0 = &p->code[start], *c1 = &p->code[start + 1];
    if ((int)p->ncode - start == 3 && c0->op == BC_MOVE && c0->a == sr + 1 && c0->b < sr && c1->op == BC_MOVE &&
        c1->a == sr + 2 && c1->b < sr) {
      Insn in = *last;
      in.b = c0->b;
      in.c = c1->b;
      in.op = BC_MMGETO;
      p->code[start] = in;
      p->lines[start] = p->lines[p->ncode - 1];
      p->ncode = (uint32_t)start + 1;
    } else {
      last->op = BC_MMGETO;
      last->b = (uint16_t)(sr + 1);
      last->c = (uint16_t)(sr + 2);
    }
    return true;
  }
  last->op = BC_CALLBO;
  return true;
}

/* The top level of an arm's pattern on a CALLBO result: mirrors
 * pattern()'s PAT_CTOR case with TESTOPT for TESTCTOR and a MOVE of the
 * payload for GETFLDI, so weights and registers come out the same. */
static void option_pattern(FuncState *fs, Pattern *p, int sr, JumpList *fail) {
  if (p->kind == PAT_WILDCARD) {
    pattern(fs, p, sr, false, fail);
    return;
  }
  at(fs, p->span);
  fs->pending++;
  const CtorInfo *ci = cg_find_ctor(fs->cg, p->name);
  cg_jl_add(fs, fail, cg_emit_jump(fs, BC_TESTOPT, sr, 0, ci->id));
  if (p->n == 0) return;
  if (p->items[0]->kind == PAT_WILDCARD) {
    fs->pending++;
    return;
  }
  int t = hidden_temp(fs);
  at(fs, p->items[0]->span);
  cg_emit(fs, BC_MOVE, t, sr, 0);
  pattern(fs, p->items[0], t, true, fail);
}

/* Arms are tried in order; each arm's pattern and guard jump to the next
 * arm on failure (the `fail` list), and a successful arm jumps to `end`.
 * When no arm matches, NOMATCH raises. The scrutinee is pinned as a hidden
 * local so arm bodies cannot reuse its register while later arms still
 * need it. Arm bindings are scoped to their arm (cg_enter/cg_leave). */
void cg_match(FuncState *fs, Expr *scrutinee, MatchArm *arms, int narms, bool is_expr, int dst, Span span,
              bool promote) {
  int save = fs->freereg;
  cg_enter(fs);
  int start = cg_here(fs);
  int sr = cg_expr(fs, scrutinee, -1);
  bool unwrapped = option_arms(fs, arms, narms) && fuse_option_call(fs, scrutinee, sr, start);
  if (sr >= cg_nactive(fs)) cg_add_local(fs, NULL, sr, false);
  JumpList end = {0};
  for (int i = 0; i < narms; i++) {
    MatchArm *arm = &arms[i];
    cg_enter(fs);
    JumpList fail = {0};
    if (unwrapped) option_pattern(fs, arm->pat, sr, &fail);
    else pattern(fs, arm->pat, sr, false, &fail);
    if (arm->guard) cg_cond_jump(fs, arm->guard, false, &fail);
    if (is_expr) {
      fs->pending++; /* the reference runs an arm value as a return statement */
      cg_expr(fs, arm->value, dst);
      if (promote) cg_emit(fs, BC_PROMOTE, dst, 0, 0);
    } else {
      cg_enter(fs);
      cg_block(fs, &arm->body);
      cg_leave(fs);
    }
    cg_leave(fs);
    at(fs, arm->span);
    cg_jl_add(fs, &end, cg_emit_jump(fs, BC_JMP, 0, 0, 0));
    cg_jl_patch_here(fs, &fail);
    cg_jl_free(&fail);
  }
  at(fs, span);
  cg_emit(fs, BC_NOMATCH, sr, is_expr, unwrapped);
  cg_jl_patch_here(fs, &end);
  cg_jl_free(&end);
  cg_leave(fs);
  fs->freereg = save;
}

/* ---- control flow ------------------------------------------------------------------------ */

/* The condition jumps straight to the else part (or past the if) when
 * false; see cg_cond_jump. */
static void if_stmt(FuncState *fs, Stmt *s) {
  JumpList els = {0};
  cg_cond_jump(fs, s->u.if_.cond, false, &els);
  cg_enter(fs);
  cg_block(fs, &s->u.if_.then_b);
  cg_leave(fs);
  if (s->u.if_.else_b.n > 0) {
    at(fs, s->span);
    int j = cg_emit_jump(fs, BC_JMP, 0, 0, 0);
    cg_jl_patch_here(fs, &els);
    cg_enter(fs);
    cg_block(fs, &s->u.if_.else_b);
    cg_leave(fs);
    cg_patch_here(fs, j);
  } else {
    cg_jl_patch_here(fs, &els);
  }
  cg_jl_free(&els);
}

static void loop_push(FuncState *fs, LoopCtx *l, int cont_target) {
  memset(l, 0, sizeof *l);
  l->outer = fs->loop;
  l->cont_target = cont_target;
  l->depth = fs->depth;
  fs->loop = l;
}

static void loop_pop(FuncState *fs, LoopCtx *l) {
  cg_jl_patch_here(fs, &l->breaks);
  cg_jl_free(&l->breaks);
  cg_jl_free(&l->conts);
  fs->loop = l->outer;
}

/* The backward JMP carries the loop body's step weight, so every iteration
 * is charged (and polls the deadline) even when the body has no call. */
static void while_stmt(FuncState *fs, Stmt *s) {
  cg_flush(fs);
  int top = cg_here(fs);
  LoopCtx l;
  loop_push(fs, &l, top);
  cg_cond_jump(fs, s->u.while_.cond, false, &l.breaks);
  cg_enter(fs);
  cg_block(fs, &s->u.while_.body);
  cg_leave(fs);
  at(fs, s->span);
  cg_patch(fs, cg_emit_jump(fs, BC_JMP, 0, 0, 0), top);
  loop_pop(fs, &l);
}

/* Registers base..base+2 are the iterated list, the index and the loop
 * variable. The loop variable is a fresh binding each iteration: it is
 * never a cell, so a closure made in the body captures that iteration's
 * value (the reference's semantics). */
static void for_stmt(FuncState *fs, Stmt *s) {
  cg_enter(fs);
  int base = cg_reserve(fs, 3);
  cg_expr(fs, s->u.for_.iter, base);
  at(fs, s->span);
  cg_emit(fs, BC_FORPREP, base, 0, 0);
  cg_add_local(fs, NULL, base, false);
  cg_add_local(fs, NULL, base + 1, false);
  cg_flush(fs);
  int top = cg_here(fs);
  int exit = cg_emit_jump(fs, BC_FORITER, base, 0, 0);
  LoopCtx l;
  loop_push(fs, &l, top);
  cg_enter(fs);
  cg_add_local(fs, s->u.for_.var, base + 2, false);
  cg_block(fs, &s->u.for_.body);
  cg_leave(fs);
  at(fs, s->span);
  cg_patch(fs, cg_emit_jump(fs, BC_JMP, 0, 0, 0), top);
  cg_patch_here(fs, exit);
  loop_pop(fs, &l);
  cg_leave(fs);
}

/* try/catch compiles to straight code plus a handler-table entry: the
 * instruction range [start, end) of the body, the catch block's start, the
 * register receiving the caught value, and the type it accepts (-1: a
 * String, which catches runtime errors as their message; otherwise a
 * type id whose thrown constructor values it catches). The unwinder
 * (vm_error.c) consults the table; no instructions run on entry. */
static void try_stmt(FuncState *fs, Stmt *s) {
  cg_flush(fs);
  int start = cg_here(fs);
  cg_enter(fs);
  cg_block(fs, &s->u.try_.body);
  cg_leave(fs);
  at(fs, s->span);
  int j = cg_emit_jump(fs, BC_JMP, 0, 0, 0);
  int end = cg_here(fs);
  cg_flush(fs);
  int target = cg_here(fs);
  cg_enter(fs);
  int reg = cg_reserve(fs, 1);
  cg_add_local(fs, s->u.try_.var, reg, false);
  cg_block(fs, &s->u.try_.handler);
  cg_leave(fs);
  cg_patch_here(fs, j);
  int type_id = -1;
  const TypeExpr *t = s->u.try_.type;
  if (t && t->kind == TE_NAME && strcmp(t->name, "String") != 0) {
    type_id = cgm_get(&fs->cg->types, t->name);
    if (type_id < 0) type_id = -2; /* never matches */
  }
  Proto *p = fs->p;
  int cap = fs->caphandlers;
  if ((int)p->nhandlers >= cap) {
    cap = cap ? cap * 2 : 4;
    Handler *h = realloc(p->handlers, (size_t)cap * sizeof *h);
    if (!h) cg_oom(fs->cg);
    p->handlers = h;
    fs->caphandlers = cap;
  }
  Handler *h = &p->handlers[p->nhandlers++];
  h->start = (uint32_t)start;
  h->end = (uint32_t)end;
  h->target = (uint32_t)target;
  h->reg = (uint16_t)reg;
  h->type_id = type_id;
}

/* Each statement is one step. Temporaries die at the end of a statement:
 * freereg drops back to the first register not held by a local. */
void cg_stmt(FuncState *fs, Stmt *s) {
  fs->pending++;
  at(fs, s->span);
  switch (s->kind) {
    case ST_LET: let_stmt(fs, s); return; /* keeps its register */
    case ST_DESTRUCT: destructure(fs, s); return;
    case ST_ASSIGN: assign(fs, s); break;
    case ST_INDEX_ASSIGN:
      store_path(fs, s, s->u.index_assign.target, false, NULL, s->u.index_assign.index, s->u.index_assign.value);
      break;
    case ST_FIELD_ASSIGN:
      store_path(fs, s, s->u.field_assign.target, true, s->u.field_assign.name, NULL, s->u.field_assign.value);
      break;
    case ST_IF: if_stmt(fs, s); break;
    case ST_WHILE: while_stmt(fs, s); break;
    case ST_FOR: for_stmt(fs, s); break;
    case ST_MATCH:
      cg_match(fs, s->u.match.scrutinee, s->u.match.arms, s->u.match.n, false, -1, s->span, false);
      break;
    case ST_RETURN:
      if (s->u.ret.bare) {
        fs->pending++; /* the implicit (), written (v_unit_written) */
        if (fs->result_reg >= 0 && !fs->in_lambda) {
          cg_emit(fs, BC_LOADU, fs->result_reg, 1, 0);
          cg_jl_add(fs, &fs->to_epilogue, cg_emit_jump(fs, BC_JMP, 0, 0, 0));
        } else {
          cg_emit(fs, BC_RETU, 1, 0, 0);
        }
      } else {
        int r = cg_expr(fs, s->u.ret.value, -1);
        at(fs, s->span);
        cg_return_reg(fs, r, promotes(s));
      }
      break;
    /* break/continue outside a loop cannot pass the checker; compiling nothing
     * keeps the compiler total for unchecked input. */
    case ST_BREAK:
      if (fs->loop) cg_jl_add(fs, &fs->loop->breaks, cg_emit_jump(fs, BC_JMP, 0, 0, 0));
      break;
    case ST_CONTINUE:
      if (fs->loop) cg_patch(fs, cg_emit_jump(fs, BC_JMP, 0, 0, 0), fs->loop->cont_target);
      break;
    case ST_TRY: try_stmt(fs, s); break;
    case ST_EXPR:
      fs->discard = s->u.expr;
      cg_expr(fs, s->u.expr, -1);
      fs->discard = NULL;
      break;
    case ST_ASSERT: {
      int r = cg_expr(fs, s->u.expr, -1);
      at(fs, s->span);
      cg_emit(fs, BC_ASSERT, r, 0, 0);
      break;
    }
  }
  fs->freereg = cg_nactive(fs);
}

void cg_block(FuncState *fs, Block *b) {
  for (int i = 0; i < b->n; i++) cg_stmt(fs, b->items[i]);
}
