/* Rendering VM values as text and JSON (see render.h): the VM's side of
 * the one renderer (valuetext.c), which walks VM values through the
 * accessors here and charges their walk to the run's budgets. */
#include "render.h"

#include "../base/utf8.h"
#include "equal.h"
#include "gc.h"
#include "object.h"
#include "vmapi.h"

/* Work units per value rendered or encoded: a walk over a value built by
 * sharing follows every path, so it is charged per node visited (the step
 * limit and the deadline stop it), besides the size limits on the text. */
#define RENDER_NODE_WORK 2

static bool node_charge(VM *vm) {
  uint64_t total = vm->work_carry + RENDER_NODE_WORK;
  vm->steps += total / VM_WORK_PER_STEP;
  vm->work_carry = total % VM_WORK_PER_STEP;
  return vm->steps < vm->step_check || vm_step_slow(vm);
}

/* The text a walk builds is charged to the run's memory budget before it
 * is written: *reserved (bytes charged so far) is kept at least twice the
 * text's length after `more` bytes, growing through gc_reserve (E504 when
 * the budget cannot hold it). The caller gives *reserved back at the end. */
static bool text_room(VM *vm, size_t *reserved, size_t used, size_t more) {
  if (used + more <= *reserved) return true;
  size_t want = (used + more) * 2;
  if (want < 4096) want = 4096;
  if (!gc_reserve(vm, want - *reserved)) return false;
  *reserved = want;
  return true;
}

/* ---- VM values seen through ValueTextOps ---------------------------------- */

static RvKind vt_kind(const void *node) {
  const Value *v = node;
  switch ((ValueTag)v->tag) {
    case T_UNIT: return v->as.i ? RVK_TUPLE : RVK_UNIT; /* a written () is an empty tuple (v_unit_written) */
    case T_BOOL: return RVK_BOOL;
    case T_INT:
    case T_BIGINT: return RVK_INT;
    case T_FLOAT: return RVK_FLOAT;
    case T_STRING: return RVK_STRING;
    case T_LIST: return RVK_LIST;
    case T_TUPLE: return RVK_TUPLE;
    case T_CTOR: return RVK_CTOR;
    case T_MAP: return RVK_MAP;
    case T_SET: return RVK_SET;
    case T_ARRAY: return RVK_ARRAY;
    case T_VEC: return RVK_VEC;
    case T_MMAP: return RVK_MMAP;
    case T_FUNC: return RVK_FUNC;
    case T_BUILTIN: return RVK_BUILTIN;
    case T_ASYNC: return RVK_ASYNC;
    default: return RVK_OTHER;
  }
}

static bool vt_bool(const void *node) { return ((const Value *)node)->as.b; }
static double vt_number(const void *node) { return ((const Value *)node)->as.f; }

static const char *vt_string(const void *node, size_t *len) {
  const ObjString *s = AS_STR(*(const Value *)node);
  *len = s->blen;
  return s->data;
}

static const char *vt_name(const void *node) {
  Value v = *(const Value *)node;
  const char *name = NULL;
  if (v.tag == T_CTOR) name = AS_CTOR(v)->info->name;
  else if (v.tag == T_FUNC) name = AS_FUNC(v)->proto->name;
  else if (v.tag == T_BUILTIN) name = vm_builtin_name(AS_BUILTIN(v));
  else if (v.tag == T_ASYNC) {
    Value fn = AS_ASYNC(v)->fn;
    name = fn.tag == T_FUNC ? AS_FUNC(fn)->proto->name : NULL;
  } else return "<?>";
  return name ? name : "anonymous";
}

static const char *vt_field_name(const void *node, size_t i) {
  return AS_CTOR(*(const Value *)node)->info->field_names[i];
}

static bool vt_int_text(void *ctx, const void *node, Buf *out) {
  Value v = *(const Value *)node;
  if (v.tag == T_INT) {
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v.as.i);
    buf_append(out, tmp, (size_t)n);
    return true;
  }
  return fmt_int(ctx, v, out);
}

/* A Set's elements in the total order (the reference sorts by its
 * ordering key), so the text does not depend on insertion order. */
static bool sorted_keys(VM *vm, HTable *t, RvCursor *cur) {
  size_t n = t->live, k = 0, pos = 0;
  Value *items = malloc((n ? n : 1) * sizeof(Value));
  if (!items) return vm_raise_oom(vm);
  HEntry *e;
  while (tbl_next(t, &pos, &e)) items[k++] = e->key;
  cur->tmp = items;
  /* Sorting allocates nothing, so the unrooted copy is safe. */
  return vm_sort_values(vm, items, n);
}

static bool vt_next(void *ctx, const void *node, RvCursor *cur, const void **key, const void **val, bool *failed) {
  Value v = *(const Value *)node;
  const Value *items;
  size_t n;
  switch ((ValueTag)v.tag) {
    case T_LIST: items = list_items(AS_LIST(v)), n = AS_LIST(v)->len; break;
    case T_TUPLE: items = AS_TUPLE(v)->items, n = (size_t)AS_TUPLE(v)->n; break;
    case T_CTOR: items = AS_CTOR(v)->fields, n = (size_t)AS_CTOR(v)->info->nfields; break;
    case T_ARRAY:
    case T_VEC: items = AS_ARRAY(v)->items, n = AS_ARRAY(v)->len; break;
    case T_SET:
      if (cur->sorted) {
        if (!cur->tmp && !sorted_keys(ctx, &AS_MAP(v)->t, cur)) {
          *failed = true;
          return false;
        }
        items = cur->tmp, n = AS_MAP(v)->t.live;
        break;
      }
      /* fall through */
    case T_MAP:
    case T_MMAP: {
      HEntry *e;
      if (!tbl_next(&AS_MAP(v)->t, &cur->pos, &e)) return false;
      *key = &e->key;
      *val = v.tag == T_SET ? &e->key : &e->val;
      return true;
    }
    default: return false;
  }
  if (cur->pos >= n) return false;
  *val = &items[cur->pos++];
  return true;
}

static void vt_end(RvCursor *cur) { free(cur->tmp); }

static const void *vt_identity(const void *node) {
  Value v = *(const Value *)node;
  return v.tag == T_ARRAY || v.tag == T_VEC || v.tag == T_SET || v.tag == T_MMAP ? (const void *)v.as.o : NULL;
}

static bool vt_visit(void *ctx) { return node_charge(ctx); }

static bool vt_room(void *ctx, size_t *reserved, size_t used, size_t more) {
  return text_room(ctx, reserved, used, more);
}

static void vt_release(void *ctx, size_t reserved) { gc_charge(ctx, -(ptrdiff_t)reserved); }

static bool vt_too_deep(void *ctx, int depth, const char *what) {
  return vm_raise_fatal(ctx, E_RECURSION, NULL, "Value nested too deeply to %s (more than %d levels)", what,
                        depth > VM_MAX_VALUE_DEPTH ? VM_MAX_VALUE_DEPTH : depth - 1);
}

static bool vt_stack_low(void *ctx) { return vm_c_stack_low(ctx); }

static const ValueTextOps vm_value_ops = {
    vt_kind,     vt_bool,     vt_number,   vt_string,   vt_name,   vt_field_name,
    vt_int_text, vt_next,     vt_end,      vt_identity, vt_visit,  vt_room,
    vt_release,  vt_too_deep, vt_stack_low, VM_MAX_VALUE_DEPTH,
};

/* The limit is in code points, as the reference counts string length;
 * exceeding it is E505 for output and E504 for strings, both fatal. On
 * failure the partial text is removed from out. */
bool vm_render(VM *vm, Value v, RenderMode mode, Buf *out, size_t max_cp, RenderLimit limit,
               const char *what) {
  size_t start = out->len;
  RvTextEnd end;
  rv_text(&vm_value_ops, vm, &v, mode, out, max_cp, &end);
  if (end.failed) return false;
  if (out->failed) return vm_raise_oom(vm);
  size_t cp = utf8_length(out->data ? out->data + start : "", out->len - start);
  if (end.over || cp > max_cp) {
    out->len = start;
    if (out->data) out->data[start] = '\0';
    if (limit == LIMIT_OUTPUT)
      return vm_raise_fatal(vm, E_OUTPUT, NULL, "Output limit exceeded (%llu characters)",
                            (unsigned long long)vm->max_output);
    return vm_raise_fatal(vm, E_RESOURCE, NULL, "%s%sString size exceeds limit (%zu > %zu)", what ? what : "",
                          what ? ": " : "", end.over_at ? end.over_at : cp, max_cp);
  }
  return true;
}

bool vm_to_json(VM *vm, Value v, Buf *out) {
  bool ok = rv_json(&vm_value_ops, vm, &v, out);
  if (!ok && out->failed && !vm->err.active) return vm_raise_oom(vm);
  if (!ok) return false;
  if (out->failed) return vm_raise_oom(vm);
  return true;
}
