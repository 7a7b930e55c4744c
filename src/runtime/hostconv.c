/* VM value <-> geno_value conversion and host callbacks (hostconv.h). */
#include "hostconv.h"

#include <stdio.h>

#include "../base/buf.h"
#include "../base/utf8.h"
#include "../check/adts.h"
#include "../lib/builtins.h"
#include "../vm/equal.h"
#include "../vm/object.h"
#include "../vm/render.h"
#include "../vm/vm.h"
#include "../vm/vmapi.h"
#include "hostcall.h"
#include "hostvalue.h"

static char *dupn(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

static geno_value *to_host(VM *vm, Value v, int depth);

/* A conversion copies every path of the value: 60 references to one 9 MB
 * String become 540 MB of host strings, and a tree built by sharing has
 * 2^80 paths. So each node is charged as work (the step limit and the
 * deadline apply) and every byte it will allocate is taken from
 * vm->host_room, the memory budget left, BEFORE it is allocated. */
#define HOST_NODE_WORK 16

static bool host_take(VM *vm, size_t bytes) {
  if (bytes > vm->host_room) {
    vm->host_too_big = true;
    return false;
  }
  vm->host_room -= bytes;
  uint64_t total = vm->work_carry + HOST_NODE_WORK;
  vm->steps += total / VM_WORK_PER_STEP;
  vm->work_carry = total % VM_WORK_PER_STEP;
  if (vm->steps >= vm->step_check && !vm->err.active && !vm_step_slow(vm)) {
    vm->host_too_big = true; /* an error is raised; the conversion stops */
    return false;
  }
  return true;
}

/* Bytes a host node of `count` children takes, besides its text. */
#define HOST_NODE_BYTES(count) (sizeof(geno_value) + 32 + (size_t)(count) * sizeof(geno_value *))

static geno_value *seq(VM *vm, geno_value_kind kind, const char *container, const Value *items, size_t n,
                       int depth) {
  if (!host_take(vm, HOST_NODE_BYTES(n))) return NULL;
  geno_value *hv = rt_hv_alloc(kind, n);
  if (!hv) return NULL;
  hv->container = container;
  for (size_t i = 0; i < n; i++) {
    hv->items[i] = to_host(vm, items[i], depth + 1);
    if (!hv->items[i]) {
      geno_value_free(hv);
      return NULL;
    }
  }
  rt_hv_set_depth(hv);
  return hv;
}

static geno_value *table(VM *vm, Value v, int depth) {
  HTable *t = &AS_MAP(v)->t;
  if (!host_take(vm, HOST_NODE_BYTES(2 * t->live))) return NULL;
  geno_value *hv = rt_hv_alloc(GENO_MAP, t->live);
  if (!hv) return NULL;
  hv->container = v.tag == T_MMAP ? "MutableMap" : "Map";
  hv->keys = calloc(t->live ? t->live : 1, sizeof *hv->keys);
  if (!hv->keys) {
    geno_value_free(hv);
    return NULL;
  }
  size_t pos = 0, k = 0;
  HEntry *e;
  while (tbl_next(t, &pos, &e)) {
    hv->keys[k] = to_host(vm, e->key, depth + 1);
    hv->items[k] = to_host(vm, e->val, depth + 1);
    if (!hv->keys[k] || !hv->items[k]) {
      geno_value_free(hv);
      return NULL;
    }
    k++;
  }
  rt_hv_set_depth(hv);
  return hv;
}

/* NULL when out of memory or when v nests deeper than
 * GENO_VALUE_MAX_DEPTH (vm->host_too_deep is then set). */
static geno_value *to_host(VM *vm, Value v, int depth) {
  if (depth >= GENO_VALUE_MAX_DEPTH) {
    vm->host_too_deep = true;
    return NULL;
  }
  size_t text = 0;
  if (v.tag == T_STRING) text = AS_STR(v)->blen + 1;
  else if (v.tag == T_BIGINT) text = mpz_sizeinbase(AS_BIG(v)->z, 10) + 2;
  else if (v.tag == T_CTOR) text = 64 * (size_t)(AS_CTOR(v)->info->nfields + 1);
  if (text && !host_take(vm, text)) return NULL;
  if ((v.tag < T_FIRST_OBJ || v.tag == T_STRING || v.tag == T_BIGINT) && !host_take(vm, HOST_NODE_BYTES(0)))
    return NULL;
  switch ((ValueTag)v.tag) {
    case T_UNIT: return v.as.i ? geno_value_new_tuple(NULL, 0) : geno_value_new_unit(); /* v_unit_written */
    case T_BOOL: return geno_value_new_bool(v.as.b);
    case T_INT: return geno_value_new_int(v.as.i);
    case T_BIGINT: {
      char *s = mpz_get_str(NULL, 10, AS_BIG(v)->z);
      if (!s) return NULL;
      geno_value *hv = geno_value_new_int_text(s);
      void (*freefn)(void *, size_t);
      mp_get_memory_functions(NULL, NULL, &freefn);
      freefn(s, strlen(s) + 1);
      return hv;
    }
    case T_FLOAT: return geno_value_new_float(v.as.f);
    case T_STRING: {
      geno_value *hv = rt_hv_alloc(GENO_STRING, 0);
      if (!hv) return NULL;
      hv->text = dupn(AS_STR(v)->data, AS_STR(v)->blen);
      hv->len = AS_STR(v)->blen;
      if (!hv->text) {
        geno_value_free(hv);
        return NULL;
      }
      return hv;
    }
    case T_LIST: return seq(vm, GENO_LIST, "List", list_items(AS_LIST(v)), AS_LIST(v)->len, depth);
    case T_ARRAY: return seq(vm, GENO_LIST, "Array", AS_ARRAY(v)->items, AS_ARRAY(v)->len, depth);
    case T_VEC: return seq(vm, GENO_LIST, "Vec", AS_ARRAY(v)->items, AS_ARRAY(v)->len, depth);
    case T_TUPLE: return seq(vm, GENO_TUPLE, NULL, AS_TUPLE(v)->items, AS_TUPLE(v)->n, depth);
    case T_MAP:
    case T_MMAP: return table(vm, v, depth);
    case T_SET: {
      HTable *t = &AS_MAP(v)->t;
      Value *items = malloc((t->live ? t->live : 1) * sizeof(Value));
      if (!items) return NULL;
      size_t pos = 0, k = 0;
      HEntry *e;
      while (tbl_next(t, &pos, &e)) items[k++] = e->key;
      geno_value *hv = NULL;
      if (vm_sort_values(vm, items, k)) hv = seq(vm, GENO_SET, NULL, items, k, depth);
      else vm_error_clear(vm);
      free(items);
      return hv;
    }
    case T_CTOR: {
      ObjCtor *c = AS_CTOR(v);
      int n = c->info->nfields;
      geno_value *hv = seq(vm, GENO_CTOR, NULL, c->fields, (size_t)n, depth);
      if (!hv) return NULL;
      hv->name = dupn(c->info->name, strlen(c->info->name));
      hv->field_names = calloc((size_t)(n ? n : 1), sizeof(char *));
      bool ok = hv->name && hv->field_names;
      for (int i = 0; ok && i < n; i++) ok = (hv->field_names[i] = dupn(c->info->field_names[i], strlen(c->info->field_names[i]))) != NULL;
      if (!ok) {
        geno_value_free(hv);
        return NULL;
      }
      return hv;
    }
    case T_FUNC:
    case T_BUILTIN: {
      geno_value *hv = rt_hv_alloc(GENO_FUNCTION, 0);
      if (!hv) return NULL;
      const char *name = v.tag == T_FUNC ? AS_FUNC(v)->proto->name : vm_builtin_name(AS_BUILTIN(v));
      if (!name) name = "anonymous";
      hv->name = dupn(name, strlen(name));
      if (!hv->name) {
        geno_value_free(hv);
        return NULL;
      }
      return hv;
    }
    default: {
      geno_value *hv = rt_hv_alloc(GENO_OTHER, 0);
      if (!hv) return NULL;
      Buf b = BUF_INIT;
      if (vm_render(vm, v, RENDER_QUOTED, &b, 4096, LIMIT_STRING, NULL)) hv->name = buf_take(&b);
      else vm_error_clear(vm);
      buf_free(&b);
      return hv;
    }
  }
}

void rt_host_room_start(VM *vm) {
  vm->host_room = vm->heap_limit == 0 ? SIZE_MAX : vm->heap_limit > vm->bytes ? vm->heap_limit - vm->bytes : 0;
}

geno_value *rt_value_to_host(VM *vm, Value v, bool *too_deep, bool *too_big) {
  vm->host_too_deep = false;
  vm->host_too_big = false;
  geno_value *hv = to_host(vm, v, 0);
  if (too_deep) *too_deep = !hv && vm->host_too_deep;
  if (too_big) *too_big = !hv && vm->host_too_big;
  return hv;
}

/* ---- host -> VM ---------------------------------------------------------------- */

static bool from_host(VM *vm, const geno_value *hv, Value *out, int depth);

static bool fill_seq(VM *vm, const geno_value *hv, Value *items, Value holder, int depth) {
  Value h = holder;
  vm_push_root(vm, &h);
  bool ok = true;
  for (size_t i = 0; ok && i < hv->count; i++) {
    Value x;
    ok = from_host(vm, hv->items[i], &x, depth + 1);
    if (ok) items[i] = x;
  }
  vm_pop_roots(vm, 1);
  return ok;
}

static bool from_host(VM *vm, const geno_value *hv, Value *out, int depth) {
  if (!hv) return vm_error(vm, E_RUNTIME, "host callback returned a missing value");
  if (depth > VM_MAX_VALUE_DEPTH) return vm_error(vm, E_RUNTIME, "host value nested too deeply");
  switch (hv->kind) {
    case GENO_UNIT: *out = v_unit(); return true;
    case GENO_BOOL: *out = v_bool(hv->b); return true;
    case GENO_INT: {
      mpz_t z;
      if (!hv->text || mpz_init_set_str(z, hv->text, 10) != 0) {
        if (hv->text) mpz_clear(z);
        return vm_error(vm, E_RUNTIME, "host callback returned a malformed Int");
      }
      bool ok = obj_int_from_mpz(vm, z, out);
      mpz_clear(z);
      return ok;
    }
    case GENO_FLOAT: *out = v_float(hv->f); return true;
    case GENO_STRING:
      if (!utf8_valid(hv->text ? hv->text : "", hv->len, NULL))
        return vm_error(vm, E_RUNTIME, "host callback returned text that is not valid UTF-8");
      return obj_string(vm, hv->text ? hv->text : "", hv->len, out);
    case GENO_LIST: {
      const char *c = hv->container ? hv->container : "List";
      Value l;
      if (strcmp(c, "Array") == 0 || strcmp(c, "Vec") == 0) {
        if (!obj_array(vm, strcmp(c, "Array") == 0 ? T_ARRAY : T_VEC, hv->count, &l)) return false;
        if (!fill_seq(vm, hv, AS_ARRAY(l)->items, l, depth)) return false;
      } else {
        if (!obj_list(vm, hv->count, &l)) return false;
        if (!fill_seq(vm, hv, list_items(AS_LIST(l)), l, depth)) return false;
      }
      *out = l;
      return true;
    }
    case GENO_TUPLE: {
      if (hv->count == 0) {
        *out = v_unit_written();
        return true;
      }
      Value t;
      if (!obj_tuple(vm, hv->count, &t) || !fill_seq(vm, hv, AS_TUPLE(t)->items, t, depth)) return false;
      *out = t;
      return true;
    }
    case GENO_MAP:
    case GENO_SET: {
      ValueTag kind = hv->kind == GENO_SET ? T_SET
                      : (hv->container && strcmp(hv->container, "MutableMap") == 0) ? T_MMAP
                                                                                     : T_MAP;
      Value m;
      if (!obj_map(vm, kind, hv->count, &m)) return false;
      vm_push_root(vm, &m);
      bool ok = true;
      for (size_t i = 0; ok && i < hv->count; i++) {
        Value k = v_unit(), val = v_unit();
        vm_push_root(vm, &k);
        vm_push_root(vm, &val);
        if (kind == T_SET) ok = from_host(vm, hv->items[i], &k, depth + 1);
        else ok = hv->keys && from_host(vm, hv->keys[i], &k, depth + 1) && from_host(vm, hv->items[i], &val, depth + 1);
        if (ok) ok = tbl_set(vm, m, k, val);
        vm_pop_roots(vm, 2);
      }
      vm_pop_roots(vm, 1);
      if (ok) *out = m;
      return ok;
    }
    case GENO_CTOR: {
      const char *name = hv->name ? hv->name : "";
      Value c;
      if (!vm_ctor(vm, name, NULL, (int)hv->count, &c)) return false;
      /* fields must be the declared ones, in order */
      for (size_t i = 0; i < hv->count; i++) {
        const char *want = AS_CTOR(c)->info->field_names[i];
        if (!hv->field_names || !hv->field_names[i] || strcmp(hv->field_names[i], want) != 0)
          return vm_error(vm, E_RUNTIME, "host value %s: field %zu must be '%s'", name, i + 1, want);
      }
      if (hv->count && !fill_seq(vm, hv, AS_CTOR(c)->fields, c, depth)) return false;
      *out = c;
      return true;
    }
    default: return vm_error(vm, E_RUNTIME, "host callback returned a value Geno cannot represent");
  }
}

bool rt_value_from_host(VM *vm, const geno_value *hv, Value *out) { return from_host(vm, hv, out, 0); }

/* ---- a callback's result against the builtin's return type ------------------------ */

/* The checker has typed the program against each builtin's signature, so
 * a host value of another type would break the VM's assumptions (a List
 * read as a String). Each result is matched against the return type
 * written in the builtin's signature before it is converted. Type
 * parameters of the built-in ADTs (Option[T], Result[T, E]) are bound in
 * a TyEnv to the argument text of the enclosing type. */
typedef struct TyEnv {
  const char *names[2];
  const char *args[2]; /* positions in the signature text */
  int n;
  const struct TyEnv *outer; /* environment the argument text is read in */
} TyEnv;

static void ty_ws(const char **p) {
  while (**p == ' ') (*p)++;
}

/* Skip one type starting at *p: up to a ',' ']' or ')' at depth 0. */
static void ty_skip(const char **p) {
  int depth = 0;
  for (; **p; (*p)++) {
    char c = **p;
    if (c == '[' || c == '(') depth++;
    else if (c == ']' || c == ')') {
      if (depth == 0) return;
      depth--;
    } else if (c == ',' && depth == 0) return;
  }
}

static const char *hv_kind_name(const geno_value *hv) {
  switch (hv->kind) {
    case GENO_UNIT: return "Unit";
    case GENO_BOOL: return "Bool";
    case GENO_INT: return "Int";
    case GENO_FLOAT: return "Float";
    case GENO_STRING: return "String";
    case GENO_LIST: return hv->container ? hv->container : "List";
    case GENO_TUPLE: return "a tuple";
    case GENO_MAP: return hv->container ? hv->container : "Map";
    case GENO_SET: return "Set";
    case GENO_CTOR: return hv->name ? hv->name : "a constructor";
    case GENO_FUNCTION: return "a function";
    case GENO_OTHER: break;
  }
  return "an unknown value";
}

typedef struct TyCheck {
  char why[160]; /* the first mismatch found */
} TyCheck;

static bool ty_fail(TyCheck *tc, const geno_value *hv, const char *want, size_t wlen) {
  snprintf(tc->why, sizeof tc->why, "found %s where %.*s was expected", hv ? hv_kind_name(hv) : "no value",
           (int)(wlen > 80 ? 80 : wlen), want);
  return false;
}

static bool ty_match(TyCheck *tc, const geno_value *hv, const char **p, const TyEnv *env, int depth);

/* Every element of `items` against the type at *p (consumed once). */
static bool ty_match_all(TyCheck *tc, geno_value *const *items, size_t n, const char **p, const TyEnv *env,
                         int depth) {
  const char *start = *p;
  for (size_t i = 0; i < n; i++) {
    const char *q = start;
    if (!ty_match(tc, items[i], &q, env, depth + 1)) return false;
  }
  ty_skip(p);
  return true;
}

static bool ty_match(TyCheck *tc, const geno_value *hv, const char **p, const TyEnv *env, int depth) {
  ty_ws(p);
  const char *start = *p;
  if (!hv) return ty_fail(tc, hv, start, 4);
  if (depth > VM_MAX_VALUE_DEPTH) {
    snprintf(tc->why, sizeof tc->why, "the value is nested too deeply");
    return false;
  }
  if (**p == '(') { /* a tuple, or () */
    (*p)++;
    ty_ws(p);
    if (**p == ')') {
      (*p)++;
      if (hv->kind == GENO_UNIT || (hv->kind == GENO_TUPLE && hv->count == 0)) return true;
      return ty_fail(tc, hv, "Unit", 4);
    }
    const char *q = *p;
    size_t n = 0;
    for (;;) {
      ty_skip(&q);
      n++;
      if (*q != ',') break;
      q++;
    }
    size_t tlen = (size_t)(q + 1 - start);
    if (hv->kind != GENO_TUPLE || hv->count != n) return ty_fail(tc, hv, start, tlen);
    for (size_t i = 0; i < n; i++) {
      if (!ty_match(tc, hv->items[i], p, env, depth + 1)) return false;
      ty_ws(p);
      if (**p == ',') (*p)++;
    }
    if (**p == ')') (*p)++;
    return true;
  }
  const char *name = *p;
  while (**p && (**p == '_' || (**p >= 'a' && **p <= 'z') || (**p >= 'A' && **p <= 'Z') || (**p >= '0' && **p <= '9')))
    (*p)++;
  size_t nlen = (size_t)(*p - name);
  /* the type's arguments: positions of each, and the end of the whole type */
  const char *args[CHK_ADT_MAX_FIELDS];
  int nargs = 0;
  const char *after = *p;
  if (*after == '[') {
    const char *q = after + 1;
    for (;;) {
      ty_ws(&q);
      if (nargs < CHK_ADT_MAX_FIELDS) args[nargs++] = q;
      ty_skip(&q);
      if (*q != ',') break;
      q++;
    }
    after = *q == ']' ? q + 1 : q;
  }
  size_t tlen = (size_t)(after - start);
#define IS(lit) (nlen == sizeof(lit) - 1 && memcmp(name, lit, nlen) == 0)
  /* a type parameter bound by an enclosing built-in ADT */
  if (env && nargs == 0)
    for (int i = 0; i < env->n; i++)
      if (strlen(env->names[i]) == nlen && memcmp(env->names[i], name, nlen) == 0) {
        const char *q = env->args[i];
        *p = after;
        return ty_match(tc, hv, &q, env->outer, depth);
      }
  bool ok;
  *p = after;
  if (nlen == 1 && name[0] >= 'A' && name[0] <= 'Z') return true; /* an unbound type variable */
  if (IS("Int")) ok = hv->kind == GENO_INT;
  else if (IS("Float")) ok = hv->kind == GENO_FLOAT;
  else if (IS("Num")) ok = hv->kind == GENO_INT || hv->kind == GENO_FLOAT;
  else if (IS("Bool")) ok = hv->kind == GENO_BOOL;
  else if (IS("String")) ok = hv->kind == GENO_STRING;
  else if (IS("Unit")) ok = hv->kind == GENO_UNIT || (hv->kind == GENO_TUPLE && hv->count == 0);
  else if ((IS("List") || IS("Array") || IS("Vec")) && nargs == 1) {
    const char *c = hv->container ? hv->container : "List";
    if (hv->kind != GENO_LIST || strlen(c) != nlen || memcmp(c, name, nlen) != 0) return ty_fail(tc, hv, start, tlen);
    const char *q = args[0];
    return ty_match_all(tc, hv->items, hv->count, &q, env, depth);
  } else if (IS("Set") && nargs == 1) {
    if (hv->kind != GENO_SET) return ty_fail(tc, hv, start, tlen);
    const char *q = args[0];
    return ty_match_all(tc, hv->items, hv->count, &q, env, depth);
  } else if ((IS("Map") || IS("MutableMap")) && nargs == 2) {
    const char *c = hv->container ? hv->container : "Map";
    if (hv->kind != GENO_MAP || strlen(c) != nlen || memcmp(c, name, nlen) != 0 || (hv->count && !hv->keys))
      return ty_fail(tc, hv, start, tlen);
    const char *q = args[0];
    if (!ty_match_all(tc, hv->keys, hv->count, &q, env, depth)) return false;
    q = args[1];
    return ty_match_all(tc, hv->items, hv->count, &q, env, depth);
  } else {
    char adt_name[64];
    if (nlen >= sizeof adt_name) return ty_fail(tc, hv, start, tlen);
    memcpy(adt_name, name, nlen);
    adt_name[nlen] = '\0';
    const ChkAdt *adt = chk_adt_find(adt_name);
    if (!adt || nargs != adt->nparams) {
      snprintf(tc->why, sizeof tc->why, "the type %.*s cannot be checked", (int)(tlen > 80 ? 80 : tlen), start);
      return false;
    }
    if (hv->kind != GENO_CTOR || !hv->name) return ty_fail(tc, hv, start, tlen);
    const ChkAdtVariant *v = NULL;
    for (int k = 0; k < adt->nvariants; k++)
      if (strcmp(adt->variants[k].name, hv->name) == 0) v = &adt->variants[k];
    if (!v || (int)hv->count != v->nfields) return ty_fail(tc, hv, start, tlen);
    TyEnv inner = {{adt->params[0], adt->params[1]}, {args[0], nargs > 1 ? args[1] : NULL}, adt->nparams, env};
    for (int f = 0; f < v->nfields; f++) {
      const char *q = v->fields[f].type;
      if (!ty_match(tc, hv->items[f], &q, &inner, depth + 1)) return false;
    }
    return true;
  }
#undef IS
  return ok ? true : ty_fail(tc, hv, start, tlen);
}

/* The return type in a builtin signature: the text after its last "->". */
static const char *sig_return_type(const char *sig) {
  const char *r = NULL;
  int depth = 0;
  for (const char *s = sig; *s; s++) {
    if (*s == '(' || *s == '[') depth++;
    else if (*s == ')' || *s == ']') depth--;
    else if (depth == 0 && s[0] == '-' && s[1] == '>') r = s + 2;
  }
  return r;
}

bool rt_host_result_conforms(const char *sig, const geno_value *hv, char *why, size_t whylen) {
  const char *ret = sig ? sig_return_type(sig) : NULL;
  if (!ret) return true;
  TyCheck tc = {{0}};
  const char *p = ret;
  if (ty_match(&tc, hv, &p, NULL, 0)) return true;
  snprintf(why, whylen, "%s", tc.why);
  return false;
}

/* ---- callbacks ------------------------------------------------------------------------ */

static bool host_result(VM *vm, const BuiltinDef *def, geno_value *r, char *error, Value *out);

/* Set by rt_host_error_is_memory during a callback, read after it. */
static _Thread_local bool host_error_memory;

void rt_host_error_is_memory(void) { host_error_memory = true; }

bool rt_host_call(VM *vm, const BuiltinDef *def, Value *args, int nargs, Value *out) {
  size_t ncb;
  const geno_callback *cbs = vm_host_callbacks(vm, &ncb), *cb = NULL;
  for (size_t i = 0; i < ncb; i++)
    if (cbs[i].name && strcmp(cbs[i].name, def->name) == 0 && cbs[i].fn) cb = &cbs[i];
  if (!cb)
    return vm_error(vm, E_CALLBACK_MISSING,
                    "Host callback not provided for '%s'. Provide a callback via the host configuration.",
                    def->name);
  geno_value *hargs[16];
  int n = nargs < 16 ? nargs : 16;
  rt_host_room_start(vm); /* one budget for all the arguments */
  for (int i = 0; i < n; i++) {
    bool deep = false, big = false;
    hargs[i] = rt_value_to_host(vm, args[i], &deep, &big);
    if (!hargs[i]) {
      for (int k = 0; k < i; k++) geno_value_free(hargs[k]);
      if (vm->err.active) return false;
      if (big)
        return vm_raise_fatal(vm, E_RESOURCE, NULL,
                              "Memory limit exceeded: the arguments of host callback '%s' need more than the %zu "
                              "bytes left",
                              def->name, vm->heap_limit > vm->bytes ? vm->heap_limit - vm->bytes : (size_t)0);
      if (deep)
        return vm_raise_fatal(vm, E_RECURSION, NULL,
                              "Value nested too deeply to pass to the host callback '%s' (more than %d levels)",
                              def->name, GENO_VALUE_MAX_DEPTH);
      return vm_raise_oom(vm);
    }
  }
  /* A function given to a higher-order callback (http_route's handler)
   * can be called back by the host later in the run (hostcall.c). */
  for (int i = 0; i < n && (def->flags & BF_HIGHER_ORDER); i++)
    if ((args[i].tag == T_FUNC || args[i].tag == T_BUILTIN) && !rt_host_lend(vm, args[i], def->sig, i, hargs[i])) {
      for (int k = 0; k < n; k++) geno_value_free(hargs[k]);
      return false;
    }
  char *error = NULL;
  /* The arguments are lent: a callback that frees one, or returns one (or
   * part of one) as its result, cannot free it twice (rt_hv_lend). */
  for (int i = 0; i < n; i++) rt_hv_lend(hargs[i]);
  host_error_memory = false;
  vm->host_depth++;
  geno_value *r = cb->fn(def->name, (const geno_value *const *)hargs, (size_t)n, cb->userdata, &error);
  vm->host_depth--;
  bool ok = host_result(vm, def, r, error, out);
  for (int i = 0; i < n; i++) rt_hv_free(hargs[i]);
  return ok;
}

/* A callback's result (or its error) as the builtin's result; frees r
 * unless it is lent (then it is only read). */
static bool host_result(VM *vm, const BuiltinDef *def, geno_value *r, char *error, Value *out) {
  /* A callback may block (sleep_ms, a process, a transfer): the deadline
   * is checked as soon as it returns, as the reference checks it after
   * every builtin, so a run whose time ran out there ends with E501. */
  if (!vm_alloc_poll(vm)) {
    geno_value_free(r);
    free(error);
    return false;
  }
  if (!r) {
    /* The host's text becomes a catchable String: it must be valid UTF-8
     * like every String (an OS message may hold a file name's bytes). */
    char none[160];
    snprintf(none, sizeof none, "host callback '%s' returned no value and no error", def->name);
    char *clean = utf8_sanitize(error ? error : none, strlen(error ? error : none), NULL);
    free(error);
    if (!clean) return vm_raise_oom(vm);
    /* A host that stopped at max_collection_size reports it in the
     * runtime's words; it is a limit like the VM's own (geno.h). */
    if (strstr(clean, " size exceeds limit (") || host_error_memory) vm_limit_error(vm, E_RESOURCE, "%s", clean);
    else if (strstr(clean, GENO_DEADLINE_PASSED)) vm_raise_timeout(vm);
    else vm_error(vm, vm_code_for_message(clean), "%s", clean);
    free(clean);
    return false;
  }
  free(error);
  char why[200];
  if (!rt_host_result_conforms(def->sig, r, why, sizeof why)) {
    geno_value_free(r);
    return vm_error(vm, E_RUNTIME, "host callback '%s' returned a value of the wrong type: %s", def->name, why);
  }
  bool ok = rt_value_from_host(vm, r, out);
  geno_value_free(r);
  return ok;
}
