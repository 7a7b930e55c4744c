/* The builtin-facing API (vmapi.h), implemented over the VM internals. */
#include "vmapi.h"

#include <stdio.h>

#include "equal.h"
#include "object.h"
#include "render.h"

bool vm_error(VM *vm, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vm_vraise(vm, code, NULL, fmt, ap);
  va_end(ap);
  return false;
}

bool vm_limit_error(VM *vm, int code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vm_raise_fatal(vm, code, NULL, "%s", msg);
}

bool vm_check_size(VM *vm, const char *kind, size_t n) { return vm_check_collection(vm, kind, n); }
size_t vm_max_size(const VM *vm) { return (size_t)vm->max_collection; }

bool vm_charge(VM *vm, size_t work) {
  /* Carry the remainder so many small charges add up to steps. */
  uint64_t total = vm->work_carry + work;
  vm->steps += total / VM_WORK_PER_STEP;
  vm->work_carry = total % VM_WORK_PER_STEP;
  if (vm->steps >= vm->step_check) return vm_step_slow(vm);
  return true;
}

bool vm_c_stack_check(VM *vm, const char *what) {
  if (!vm_c_stack_low(vm)) return true;
  return vm_raise_fatal(vm, E_RECURSION, NULL,
                        "Maximum recursion depth exceeded (%s: nested too deeply for the thread's stack)", what);
}

void vm_push_root(VM *vm, Value *slot) { gc_push_root(vm, slot); }
bool vm_reserve(VM *vm, size_t bytes) { return gc_reserve(vm, bytes); }
void vm_release(VM *vm, size_t bytes) { gc_charge(vm, -(ptrdiff_t)bytes); }
void vm_pop_roots(VM *vm, int n) { gc_pop_roots(vm, n); }

/* ---- Ints ---- */

bool vm_int_get(Value v, int64_t *out) {
  if (v.tag == T_INT) {
    *out = v.as.i;
    return true;
  }
  return false;
}

bool vm_int_from_mpz(VM *vm, const mpz_t z, Value *out) { return obj_int_from_mpz(vm, z, out); }
void vm_int_to_mpz(Value v, mpz_t z) { obj_int_to_mpz(v, z); }

bool vm_num_to_double(VM *vm, Value v, double *out) {
  if (v.tag == T_FLOAT) {
    *out = v.as.f;
    return true;
  }
  if (v.tag == T_INT) {
    *out = (double)v.as.i;
    return true;
  }
  if (v.tag == T_BIGINT) {
    Value r;
    if (!vm_arith(vm, BC_MUL, v, v_float(1.0), &r)) return false;
    *out = r.as.f;
    return true;
  }
  return vm_error(vm, E_RT_TYPE, "expected a number, got %s", vm_tag_name(v.tag));
}

bool vm_int_text(VM *vm, Value v, Buf *b) { return fmt_int(vm, v, b); }

/* ---- Strings ---- */

bool vm_string(VM *vm, const char *s, size_t n, Value *out) { return obj_string(vm, s, n, out); }

const char *vm_str_bytes(Value s, size_t *nbytes) {
  *nbytes = AS_STR(s)->blen;
  return AS_STR(s)->data;
}

size_t vm_str_len(Value s) { return AS_STR(s)->cplen; }
size_t vm_str_offset(Value s, size_t i) { return obj_string_offset(AS_STR(s), i); }
bool vm_str_seek(VM *vm, Value s, size_t i, size_t *off) { return obj_string_seek(vm, AS_STR(s), i, off); }
bool vm_str_char(VM *vm, Value s, size_t i, Value *out) { return obj_string_char(vm, s, i, out); }

/* ---- Lists, tuples ---- */

bool vm_list(VM *vm, size_t n, Value *out) { return obj_list(vm, n, out); }

Value *vm_list_items(Value list, size_t *n) {
  *n = AS_LIST(list)->len;
  return list_items(AS_LIST(list));
}

bool vm_list_push(VM *vm, Value *list, Value x) { return obj_list_append(vm, list, x); }
bool vm_list_slice(VM *vm, Value *list, size_t start, size_t n, Value *out) {
  return obj_list_slice(vm, list, start, n, out);
}
bool vm_tuple(VM *vm, size_t n, Value *out) { return obj_tuple(vm, n, out); }

Value *vm_tuple_items(Value t, size_t *n) {
  *n = AS_TUPLE(t)->n;
  return AS_TUPLE(t)->items;
}

/* ---- constructors ---- */

static const CtorInfo *ctor_named(VM *vm, const char *name) {
  Image *img = vm->img;
  for (int i = 0; img && i < img->nctors; i++)
    if (strcmp(img->ctors[i]->name, name) == 0) return img->ctors[i];
  return NULL;
}

bool vm_ctor(VM *vm, const char *name, const Value *fields, int nfields, Value *out) {
  const CtorInfo *ci = ctor_named(vm, name);
  if (!ci) return vm_error(vm, E_RUNTIME, "Unknown constructor: %s", name);
  if (ci->nfields != nfields)
    return vm_error(vm, E_RUNTIME, "Constructor %s expects %d arguments, got %d", name, ci->nfields, nfields);
  Value t;
  if (!obj_ctor(vm, ci, &t)) return false;
  if (fields && nfields) memcpy(AS_CTOR(t)->fields, fields, (size_t)nfields * sizeof(Value));
  *out = t;
  return true;
}

static bool wrap1(VM *vm, int id, Value v, Value *out) {
  Value keep = v, t;
  gc_push_root(vm, &keep);
  bool ok = obj_ctor(vm, vm->img->ctors[id], &t);
  gc_pop_roots(vm, 1);
  if (!ok) return false;
  AS_CTOR(t)->fields[0] = keep;
  *out = t;
  return true;
}

/* Under a CALLBO whose result slot is out, the first Some is left
 * unmaterialised: the slot gets the payload and opt_out is cleared, which
 * tells CALLBO the slot holds Some's payload (a second vm_some into the
 * same slot then really allocates, so Some(Some(x)) stays right). */
bool vm_some(VM *vm, Value v, Value *out) {
  if (out == vm->opt_out) {
    vm->opt_out = NULL;
    *out = v;
    return true;
  }
  return wrap1(vm, CTOR_SOME, v, out);
}
Value vm_none(VM *vm) { return vm->img->ctors[CTOR_NONE]->nullary; }
bool vm_ok(VM *vm, Value v, Value *out) { return wrap1(vm, CTOR_OK, v, out); }
bool vm_err(VM *vm, Value v, Value *out) { return wrap1(vm, CTOR_ERR, v, out); }

const char *vm_ctor_name(Value v) { return v.tag == T_CTOR ? AS_CTOR(v)->info->name : NULL; }
int vm_ctor_nfields(Value v) { return v.tag == T_CTOR ? AS_CTOR(v)->info->nfields : 0; }
Value vm_ctor_field(Value v, int i) { return AS_CTOR(v)->fields[i]; }
const char *vm_ctor_field_name(Value v, int i) { return AS_CTOR(v)->info->field_names[i]; }
bool vm_is_ctor(Value v, const char *name) { return v.tag == T_CTOR && strcmp(AS_CTOR(v)->info->name, name) == 0; }

/* ---- tables ---- */

bool vm_table(VM *vm, ValueTag kind, size_t cap, Value *out) { return obj_map(vm, kind, cap, out); }
bool vm_table_set(VM *vm, Value table, Value key, Value val) { return tbl_set(vm, table, key, val); }

int vm_table_get(VM *vm, Value table, Value key, Value *val) {
  HEntry *e = tbl_find(vm, &AS_MAP(table)->t, key);
  if (!e) return vm->err.active ? -1 : 0;
  if (val) *val = e->val;
  return 1;
}

bool vm_table_delete(VM *vm, Value table, Value key) { return tbl_delete(vm, &AS_MAP(table)->t, key); }
size_t vm_table_len(Value table) { return AS_MAP(table)->t.live; }

bool vm_table_next(Value table, size_t *pos, Value *key, Value *val) {
  HEntry *e;
  if (!tbl_next(&AS_MAP(table)->t, pos, &e)) return false;
  if (key) *key = e->key;
  if (val) *val = e->val;
  return true;
}

bool vm_table_copy(VM *vm, Value table, ValueTag kind, Value *out) { return obj_map_copy(vm, table, kind, out); }

/* ---- arrays ---- */

bool vm_array(VM *vm, ValueTag kind, size_t n, Value *out) { return obj_array(vm, kind, n, out); }

Value *vm_array_items(Value a, size_t *n) {
  *n = AS_ARRAY(a)->len;
  return AS_ARRAY(a)->items;
}

bool vm_array_push(VM *vm, Value a, Value x) { return obj_array_push(vm, a, x); }

bool vm_array_pop(Value a, Value *out) {
  ObjArray *arr = AS_ARRAY(a);
  if (arr->len == 0) return false;
  *out = arr->items[--arr->len];
  return true;
}

/* ---- calls ---- */

bool vm_call(VM *vm, Value fn, const Value *args, int nargs, Value *out) {
  return vm_call_value(vm, fn, args, nargs, out);
}

/* ---- equality, order, text ---- */

int vm_values_equal(VM *vm, Value a, Value b) { return vm_equal(vm, a, b, false); }
int vm_values_same(VM *vm, Value a, Value b) { return vm_key_equal(vm, a, b); }
bool vm_values_order(VM *vm, Value a, Value b, int *cmp) { return vm_order(vm, a, b, cmp); }
bool vm_values_sort(VM *vm, Value *items, size_t n) { return vm_sort_values(vm, items, n); }

bool vm_render_text(VM *vm, Value v, bool quote_strings, Buf *b, size_t max_cp, const char *what) {
  return vm_render(vm, v, quote_strings ? RENDER_QUOTED : RENDER_RAW, b, max_cp, LIMIT_STRING, what);
}

void vm_float_text(double d, char *out, size_t cap) { fmt_float(d, out, cap); }

/* ---- host ---- */

static size_t count_cp(const char *s, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

bool vm_output(VM *vm, const char *s, size_t n) {
  size_t cp = count_cp(s, n);
  if (vm->out_chars + cp > vm->max_output)
    return vm_raise_fatal(vm, E_OUTPUT, NULL, "Output limit exceeded (%llu characters)",
                          (unsigned long long)vm->max_output);
  vm->out_chars += cp;
  if (vm->discard_output) return true;
  /* A sandbox child streams its output to its parent (VmOutput). */
  if (vm->output.write) {
    if (n == 0 || vm->output.write(vm->output.ud, s, n)) return true;
    return vm_raise_fatal(vm, E_OUTPUT, NULL, "Output limit exceeded: the sandbox returns at most %llu bytes of output",
                          (unsigned long long)vm->output.capacity);
  }
  buf_append(&vm->out, s, n);
  if (vm->out.failed) return vm_raise_oom(vm);
  return true;
}

const char *const *vm_program_args(const VM *vm, size_t *n) {
  *n = vm->nargs;
  return (const char *const *)vm->args;
}

const struct geno_callback *vm_host_callbacks(const VM *vm, size_t *n) {
  *n = vm->ncallbacks;
  return vm->callbacks;
}

bool vm_print(VM *vm, Value v) {
  if (v.tag == T_STRING) {
    /* The line is written whole or not at all. */
    ObjString *s = AS_STR(v);
    if (vm->out_chars + s->cplen + 1 > vm->max_output)
      return vm_raise_fatal(vm, E_OUTPUT, NULL, "Output limit exceeded (%llu characters)",
                            (unsigned long long)vm->max_output);
    return vm_output(vm, s->data, s->blen) && vm_output(vm, "\n", 1);
  }
  uint64_t left = vm->max_output > vm->out_chars ? vm->max_output - vm->out_chars : 0;
  Buf b = BUF_INIT;
  bool ok = vm_render(vm, v, RENDER_RAW, &b, (size_t)left, LIMIT_OUTPUT, NULL);
  if (ok) {
    buf_putc(&b, '\n');
    ok = vm_output(vm, b.data, b.len);
  }
  buf_free(&b);
  return ok;
}
