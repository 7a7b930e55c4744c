/* _geno.c -- the CPython extension behind the `geno` package: runs, checks
 * and metrics over libgeno, through include/geno.h; and ServerCore, the
 * hosted service's request pipeline (src/server/server.h, pipeline.c) for
 * geno.server.create_handler.
 *
 * The pure-Python layer (geno/api.py) validates RunConfig and shapes the
 * results the reference's users expect; this file converts values between
 * Geno and Python, carries host callbacks across, and owns the C objects.
 *
 * Threads: the GIL is released while a program is checked and runs, so
 * runs on several threads proceed in parallel. A host callback takes the
 * GIL back for the time of the Python call (PyGILState_Ensure works
 * because the running thread keeps its thread state). An isolated run's
 * callbacks run here in the parent, on the calling thread, the same way;
 * the sandboxed child never runs Python. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include <geno.h>

#include "server/server.h" /* the hosted service's pipeline (ServerCore) */

/* Python classes of geno/values.py, registered once by the package
 * (register_types): what Geno's constructor values, Arrays, Vecs, Sets,
 * MutableMaps, functions and opaque values become in Python. */
static PyObject *T_ctor, *T_array, *T_vec, *T_set, *T_mmap, *T_func, *T_opaque;

/* ------------------------------------------------------------------------ */
/* Geno -> Python                                                            */
/* ------------------------------------------------------------------------ */

static PyObject *to_py(const geno_value *v);

/* A Python key for a dict or set: lists (unhashable) become tuples, one
 * level deep, which is all Geno's hashable keys need (a List key). */
static PyObject *hashable(PyObject *k) {
  if (PyList_Check(k)) {
    PyObject *t = PyList_AsTuple(k);
    Py_DECREF(k);
    return t;
  }
  return k;
}

static PyObject *items_list(const geno_value *v, bool keys_hashable) {
  size_t n = geno_value_count(v);
  PyObject *list = PyList_New((Py_ssize_t)n);
  if (!list) return NULL;
  for (size_t i = 0; i < n; i++) {
    PyObject *item = to_py(geno_value_item(v, i));
    if (item && keys_hashable) item = hashable(item);
    if (!item) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, item);
  }
  return list;
}

static PyObject *wrap(PyObject *type, PyObject *data) {
  if (!data) return NULL;
  PyObject *r = type ? PyObject_CallOneArg(type, data) : Py_NewRef(data);
  Py_DECREF(data);
  return r;
}

static PyObject *map_dict(const geno_value *v) {
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  for (size_t i = 0, n = geno_value_count(v); i < n; i++) {
    PyObject *k = to_py(geno_value_key(v, i));
    if (k) k = hashable(k);
    PyObject *val = k ? to_py(geno_value_item(v, i)) : NULL;
    int bad = !val || PyDict_SetItem(d, k, val) < 0;
    Py_XDECREF(k);
    Py_XDECREF(val);
    if (bad) {
      Py_DECREF(d);
      return NULL;
    }
  }
  return d;
}

static PyObject *ctor_value(const geno_value *v) {
  PyObject *fields = PyDict_New();
  if (!fields) return NULL;
  for (size_t i = 0, n = geno_value_count(v); i < n; i++) {
    PyObject *val = to_py(geno_value_item(v, i));
    const char *fname = geno_value_field_name(v, i);
    if (!val || PyDict_SetItemString(fields, fname ? fname : "", val) < 0) {
      Py_XDECREF(val);
      Py_DECREF(fields);
      return NULL;
    }
    Py_DECREF(val);
  }
  PyObject *r = T_ctor ? PyObject_CallFunction(T_ctor, "sO", geno_value_name(v), fields) : Py_NewRef(fields);
  Py_DECREF(fields);
  return r;
}

/* A Geno value as the reference's raw Python value (its `value_raw`). */
static PyObject *to_py(const geno_value *v) {
  if (Py_EnterRecursiveCall(" converting a Geno value")) return NULL;
  PyObject *r = NULL;
  switch (geno_value_type(v)) {
  case GENO_UNIT: r = Py_NewRef(Py_None); break;
  case GENO_BOOL: r = PyBool_FromLong(geno_value_bool(v)); break;
  case GENO_INT: {
    int64_t i;
    r = geno_value_int(v, &i) ? PyLong_FromLongLong(i) : PyLong_FromString(geno_value_int_text(v), NULL, 10);
    break;
  }
  case GENO_FLOAT: r = PyFloat_FromDouble(geno_value_float(v)); break;
  case GENO_STRING: {
    size_t n;
    const char *s = geno_value_string(v, &n);
    r = PyUnicode_DecodeUTF8(s ? s : "", (Py_ssize_t)n, "replace");
    break;
  }
  case GENO_LIST: {
    const char *c = geno_value_container(v);
    PyObject *list = items_list(v, false);
    if (c && strcmp(c, "Array") == 0) r = wrap(T_array, list);
    else if (c && strcmp(c, "Vec") == 0) r = wrap(T_vec, list);
    else r = list;
    break;
  }
  case GENO_TUPLE: {
    PyObject *list = items_list(v, false);
    r = list ? PyList_AsTuple(list) : NULL;
    Py_XDECREF(list);
    break;
  }
  case GENO_MAP: {
    const char *c = geno_value_container(v);
    PyObject *d = map_dict(v);
    r = c && strcmp(c, "MutableMap") == 0 ? wrap(T_mmap, d) : d;
    break;
  }
  case GENO_SET: r = wrap(T_set, items_list(v, true)); break;
  case GENO_CTOR: r = ctor_value(v); break;
  case GENO_FUNCTION: {
    const char *name = geno_value_name(v);
    r = wrap(T_func, PyUnicode_FromString(name ? name : "anonymous"));
    break;
  }
  default: {
    char *text = geno_value_to_string(v);
    r = wrap(T_opaque, PyUnicode_DecodeUTF8(text ? text : "", text ? (Py_ssize_t)strlen(text) : 0, "replace"));
    geno_free(text);
    break;
  }
  }
  Py_LeaveRecursiveCall();
  return r;
}

/* ------------------------------------------------------------------------ */
/* Python -> Geno (host-callback results)                                    */
/* ------------------------------------------------------------------------ */

static geno_value *from_py(PyObject *o, int depth);

static geno_value *from_seq(PyObject *o, int depth, bool tuple) {
  PyObject *fast = PySequence_Fast(o, "not a sequence");
  if (!fast) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  geno_value **items = PyMem_Calloc((size_t)n + 1, sizeof *items);
  if (!items) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return NULL;
  }
  Py_ssize_t i = 0;
  for (; i < n; i++)
    if (!(items[i] = from_py(PySequence_Fast_GET_ITEM(fast, i), depth + 1))) break;
  Py_DECREF(fast);
  if (i < n) {
    for (Py_ssize_t k = 0; k < i; k++) geno_value_free(items[k]);
    PyMem_Free(items);
    return NULL;
  }
  geno_value *v = tuple ? geno_value_new_tuple(items, (size_t)n) : geno_value_new_list(items, (size_t)n);
  PyMem_Free(items);
  if (!v) PyErr_SetString(PyExc_ValueError, "value could not be built (out of memory or nested too deeply)");
  return v;
}

static geno_value *from_ctor(PyObject *o, int depth) {
  PyObject *name = PyObject_GetAttrString(o, "constructor");
  PyObject *fields = name ? PyObject_GetAttrString(o, "fields") : NULL;
  PyObject *pairs = fields ? PyMapping_Items(fields) : NULL;
  Py_XDECREF(fields);
  if (!pairs || !PyUnicode_Check(name)) {
    if (pairs) PyErr_SetString(PyExc_TypeError, "ConstructorValue.constructor must be a str");
    Py_XDECREF(name);
    Py_XDECREF(pairs);
    return NULL;
  }
  Py_ssize_t n = PyList_GET_SIZE(pairs);
  geno_value **vals = PyMem_Calloc((size_t)n + 1, sizeof *vals);
  const char **names = PyMem_Calloc((size_t)n + 1, sizeof *names);
  geno_value *v = NULL;
  Py_ssize_t i = 0;
  if (!vals || !names) {
    PyErr_NoMemory();
    goto done;
  }
  for (; i < n; i++) {
    PyObject *pair = PyList_GET_ITEM(pairs, i);
    PyObject *key = PyTuple_GET_ITEM(pair, 0);
    if (!PyUnicode_Check(key)) {
      PyErr_SetString(PyExc_TypeError, "ConstructorValue field names must be str");
      break;
    }
    if (!(names[i] = PyUnicode_AsUTF8(key))) break;
    if (!(vals[i] = from_py(PyTuple_GET_ITEM(pair, 1), depth + 1))) break;
  }
  if (i < n) {
    for (Py_ssize_t k = 0; k < i; k++) geno_value_free(vals[k]);
    goto done;
  }
  const char *cname = PyUnicode_AsUTF8(name);
  if (cname) {
    v = geno_value_new_ctor(cname, names, vals, (size_t)n);
    if (!v) PyErr_SetString(PyExc_ValueError, "constructor value could not be built");
  }
done:
  PyMem_Free(vals);
  PyMem_Free(names);
  Py_DECREF(pairs);
  Py_DECREF(name);
  return v;
}

/* A Python value as a Geno value, or NULL with a Python exception set. */
static geno_value *from_py(PyObject *o, int depth) {
  if (depth > GENO_VALUE_MAX_DEPTH) {
    PyErr_Format(PyExc_ValueError, "value nests deeper than %d levels", GENO_VALUE_MAX_DEPTH);
    return NULL;
  }
  geno_value *v = NULL;
  if (o == Py_None) {
    v = geno_value_new_unit();
  } else if (PyBool_Check(o)) {
    v = geno_value_new_bool(o == Py_True);
  } else if (PyLong_Check(o)) {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) {
      if (i == -1 && PyErr_Occurred()) return NULL;
      v = geno_value_new_int(i);
    } else {
      PyObject *text = PyObject_Str(o);
      const char *digits = text ? PyUnicode_AsUTF8(text) : NULL;
      v = digits ? geno_value_new_int_text(digits) : NULL;
      Py_XDECREF(text);
      if (!digits) return NULL;
    }
  } else if (PyFloat_Check(o)) {
    v = geno_value_new_float(PyFloat_AS_DOUBLE(o));
  } else if (PyUnicode_Check(o)) {
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(o, &n);
    if (!s) return NULL;
    v = geno_value_new_string(s, (size_t)n);
  } else if (PyList_Check(o) || PyTuple_Check(o)) {
    return from_seq(o, depth, PyTuple_Check(o));
  } else if (T_ctor && PyObject_TypeCheck(o, (PyTypeObject *)T_ctor)) {
    return from_ctor(o, depth);
  } else {
    PyErr_Format(PyExc_TypeError, "a Python %.100s has no Geno value here", Py_TYPE(o)->tp_name);
    return NULL;
  }
  if (!v) PyErr_NoMemory();
  return v;
}

/* ------------------------------------------------------------------------ */
/* Host callbacks                                                            */
/* ------------------------------------------------------------------------ */

/* One run's callbacks. A BaseException that is not an Exception
 * (KeyboardInterrupt, SystemExit) raised in a callback is kept and raised
 * again once the run returns, instead of becoming a program error. */
typedef struct RunCtx {
  PyObject *pending; /* the first such exception, or NULL */
} RunCtx;

typedef struct CbEntry {
  PyObject *fn;
  RunCtx *ctx;
} CbEntry;

/* The current exception (normalised, traceback attached), cleared; NULL if
 * none. (PyErr_GetRaisedException is 3.12; Debian 12 has 3.11.) */
static PyObject *fetch_exception(void) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (value && tb) PyException_SetTraceback(value, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  return value;
}

/* The current exception's message as a geno_alloc'd string for *error;
 * clears it. */
static char *take_error(RunCtx *ctx, const char *name, const char *what) {
  PyObject *exc = fetch_exception();
  if (exc && !PyErr_GivenExceptionMatches(exc, PyExc_Exception) && ctx && !ctx->pending) {
    ctx->pending = exc; /* re-raised after the run */
    exc = Py_NewRef(exc);
  }
  PyObject *msg = exc ? PyObject_Str(exc) : NULL;
  Py_ssize_t n = 0;
  const char *s = msg ? PyUnicode_AsUTF8AndSize(msg, &n) : NULL;
  PyErr_Clear();
  char *out;
  if (s && n > 0) {
    out = geno_alloc((size_t)n + 1);
    if (out) memcpy(out, s, (size_t)n + 1);
  } else {
    /* an exception without a message: name its type */
    const char *type = exc ? Py_TYPE(exc)->tp_name : "error";
    size_t len = strlen(name) + strlen(what) + strlen(type) + 32;
    out = geno_alloc(len);
    if (out) snprintf(out, len, "host callback '%s' %s %s", name, what, type);
  }
  Py_XDECREF(msg);
  Py_XDECREF(exc);
  return out;
}

static geno_value *trampoline(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                              char **error) {
  CbEntry *cb = ud;
  PyGILState_STATE g = PyGILState_Ensure();
  geno_value *out = NULL;
  PyObject *pyargs = PyTuple_New((Py_ssize_t)nargs);
  for (size_t i = 0; pyargs && i < nargs; i++) {
    PyObject *a = to_py(args[i]);
    if (!a) {
      Py_CLEAR(pyargs);
      break;
    }
    PyTuple_SET_ITEM(pyargs, (Py_ssize_t)i, a);
  }
  PyObject *r = pyargs ? PyObject_Call(cb->fn, pyargs, NULL) : NULL;
  Py_XDECREF(pyargs);
  if (!r) {
    *error = take_error(cb->ctx, name, "raised");
  } else {
    out = from_py(r, 1);
    Py_DECREF(r);
    if (!out) {
      PyObject *exc = fetch_exception();
      PyObject *m = exc ? PyObject_Str(exc) : NULL;
      const char *s = m ? PyUnicode_AsUTF8(m) : NULL;
      PyErr_Clear();
      const char *fmt = "host callback '%s' returned a value Geno cannot take: %s";
      size_t len = strlen(fmt) + strlen(name) + (s ? strlen(s) : 0) + 1;
      *error = geno_alloc(len);
      if (*error) snprintf(*error, len, fmt, name, s ? s : "conversion failed");
      Py_XDECREF(m);
      Py_XDECREF(exc);
    }
  }
  PyGILState_Release(g);
  return out;
}

/* ------------------------------------------------------------------------ */
/* Result objects                                                            */
/* ------------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  geno_result *r;
} ResultObject;

static void result_dealloc(ResultObject *self) {
  geno_result_free(self->r);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *result_ok(ResultObject *self, void *c) { return PyBool_FromLong(geno_result_ok(self->r)); }

static PyObject *result_output(ResultObject *self, void *c) {
  size_t n = 0;
  const char *s = geno_result_output(self->r, &n);
  return PyUnicode_DecodeUTF8(s ? s : "", (Py_ssize_t)n, "replace");
}

static PyObject *result_value_json(ResultObject *self, void *c) {
  const char *s = geno_result_value_json(self->r);
  return PyUnicode_DecodeUTF8(s ? s : "null", s ? (Py_ssize_t)strlen(s) : 4, "replace");
}

static PyObject *result_steps(ResultObject *self, void *c) {
  return PyLong_FromUnsignedLongLong(geno_result_steps(self->r));
}

static PyObject *result_outcome(ResultObject *self, void *c) {
  return PyUnicode_FromString(geno_outcome_name(geno_result_outcome(self->r)));
}

static PyObject *result_timing(ResultObject *self, void *c) {
  geno_timing t = geno_result_timing(self->r);
  return Py_BuildValue("(ddddd)", t.total_ms, t.lex_ms, t.parse_ms, t.typecheck_ms, t.run_ms);
}

static PyObject *opt_str(const char *s) {
  return s ? PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace") : Py_NewRef(Py_None);
}

/* [(code, message, severity, filename|None, line, column, end_line, end_column)] */
static PyObject *result_diagnostics(ResultObject *self, void *c) {
  size_t n = geno_result_diagnostic_count(self->r);
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (size_t i = 0; list && i < n; i++) {
    const geno_diagnostic *d = geno_result_diagnostic(self->r, i);
    PyObject *t = Py_BuildValue("(sNsNiiii)", d->code, opt_str(d->message), d->severity, opt_str(d->filename),
                                d->line, d->column, d->end_line, d->end_column);
    if (!t) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, t);
  }
  return list;
}

/* [(function, file|None, line, column)], outermost first */
static PyObject *result_trace(ResultObject *self, void *c) {
  PyObject *list = PyList_New(0);
  const char *fn, *file;
  int line, col;
  for (size_t i = 0; list && (fn = geno_result_trace(self->r, i, &file, &line, &col)); i++) {
    PyObject *t = Py_BuildValue("(NNii)", opt_str(fn), opt_str(file), line, col);
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

static PyObject *result_value_raw(ResultObject *self, PyObject *unused) {
  const geno_value *v = geno_result_value(self->r);
  return v ? to_py(v) : Py_NewRef(Py_None);
}

static PyObject *result_has_value(ResultObject *self, void *c) {
  return PyBool_FromLong(geno_result_value(self->r) != NULL);
}

static PyObject *result_to_json(ResultObject *self, PyObject *unused) {
  char *j = geno_result_to_json(self->r);
  if (!j) return PyErr_NoMemory();
  PyObject *s = PyUnicode_DecodeUTF8(j, (Py_ssize_t)strlen(j), "replace");
  geno_free(j);
  return s;
}

static PyGetSetDef result_getset[] = {
    {"ok", (getter)result_ok, NULL, "True when no error diagnostic was reported.", NULL},
    {"output", (getter)result_output, NULL, "Program output, kept up to an error or limit.", NULL},
    {"value_json", (getter)result_value_json, NULL, "main's value as the reference's JSON text.", NULL},
    {"has_value", (getter)result_has_value, NULL, "Whether main's value can be inspected.", NULL},
    {"steps_used", (getter)result_steps, NULL, "VM steps the run used.", NULL},
    {"outcome", (getter)result_outcome, NULL, "The monitoring outcome name (\"success\", \"timeout\" ...).", NULL},
    {"timing", (getter)result_timing, NULL, "(total_ms, lex_ms, parse_ms, typecheck_ms, run_ms)", NULL},
    {"diagnostics", (getter)result_diagnostics, NULL,
     "[(code, message, severity, filename, line, column, end_line, end_column)]", NULL},
    {"trace", (getter)result_trace, NULL, "The call stack of a runtime error: [(function, file, line, column)].",
     NULL},
    {NULL},
};

static PyMethodDef result_methods[] = {
    {"value_raw", (PyCFunction)result_value_raw, METH_NOARGS, "main's value as a Python value (None if none)."},
    {"to_json", (PyCFunction)result_to_json, METH_NOARGS, "The whole result as RunResult JSON text."},
    {NULL},
};

static PyTypeObject ResultType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "geno._geno.Result",
    .tp_basicsize = sizeof(ResultObject),
    .tp_dealloc = (destructor)result_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A finished check or run (owns a geno_result).",
    .tp_getset = result_getset,
    .tp_methods = result_methods,
};

static PyObject *wrap_result(geno_result *r) {
  if (!r) return PyErr_NoMemory();
  ResultObject *o = PyObject_New(ResultObject, &ResultType);
  if (!o) {
    geno_result_free(r);
    return NULL;
  }
  o->r = r;
  return (PyObject *)o;
}

/* ------------------------------------------------------------------------ */
/* run / check                                                               */
/* ------------------------------------------------------------------------ */

/* What a call borrows from Python for the time geno_* runs without the
 * GIL: UTF-8 views into str objects this struct holds references to (a
 * callback could otherwise mutate the caller's dicts mid-run). */
typedef struct Borrowed {
  PyObject *keep;         /* list of the objects the views point into */
  geno_module *modules;
  size_t nmodules;
  const char **targets;
  size_t ntargets;
  geno_callback *callbacks;
  CbEntry *entries;
  size_t ncallbacks;
} Borrowed;

static void borrowed_free(Borrowed *b) {
  PyMem_Free(b->modules);
  PyMem_Free(b->targets);
  PyMem_Free(b->callbacks);
  PyMem_Free(b->entries);
  Py_XDECREF(b->keep);
}

static const char *keep_utf8(Borrowed *b, PyObject *s, Py_ssize_t *n, const char *what) {
  if (!PyUnicode_Check(s)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(s)->tp_name);
    return NULL;
  }
  const char *u = PyUnicode_AsUTF8AndSize(s, n);
  if (u && PyList_Append(b->keep, s) < 0) return NULL;
  return u;
}

/* modules: sequence of (name, source); targets: sequence of str;
 * callbacks: sequence of (name, callable). */
static bool borrow(Borrowed *b, PyObject *modules, PyObject *targets, PyObject *callbacks, RunCtx *ctx) {
  memset(b, 0, sizeof *b);
  if (!(b->keep = PyList_New(0))) return false;
  PyObject *fm = PySequence_Fast(modules, "modules must be a sequence of (name, source)");
  PyObject *ft = fm ? PySequence_Fast(targets, "targets must be a sequence of str") : NULL;
  PyObject *fc = ft ? PySequence_Fast(callbacks, "callbacks must be a sequence of (name, callable)") : NULL;
  bool ok = false;
  if (!fc) goto out;
  b->nmodules = (size_t)PySequence_Fast_GET_SIZE(fm);
  b->ntargets = (size_t)PySequence_Fast_GET_SIZE(ft);
  b->ncallbacks = (size_t)PySequence_Fast_GET_SIZE(fc);
  b->modules = PyMem_Calloc(b->nmodules + 1, sizeof *b->modules);
  b->targets = PyMem_Calloc(b->ntargets + 1, sizeof *b->targets);
  b->callbacks = PyMem_Calloc(b->ncallbacks + 1, sizeof *b->callbacks);
  b->entries = PyMem_Calloc(b->ncallbacks + 1, sizeof *b->entries);
  if (!b->modules || !b->targets || !b->callbacks || !b->entries) {
    PyErr_NoMemory();
    goto out;
  }
  for (size_t i = 0; i < b->nmodules; i++) {
    PyObject *pair = PySequence_Fast_GET_ITEM(fm, (Py_ssize_t)i);
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
      PyErr_SetString(PyExc_TypeError, "modules must be a sequence of (name, source)");
      goto out;
    }
    Py_ssize_t n;
    if (!(b->modules[i].name = keep_utf8(b, PyTuple_GET_ITEM(pair, 0), &n, "a module name"))) goto out;
    if (!(b->modules[i].source = keep_utf8(b, PyTuple_GET_ITEM(pair, 1), &n, "a module source"))) goto out;
    b->modules[i].length = (size_t)n;
  }
  for (size_t i = 0; i < b->ntargets; i++) {
    Py_ssize_t n;
    if (!(b->targets[i] = keep_utf8(b, PySequence_Fast_GET_ITEM(ft, (Py_ssize_t)i), &n, "a target"))) goto out;
  }
  for (size_t i = 0; i < b->ncallbacks; i++) {
    PyObject *pair = PySequence_Fast_GET_ITEM(fc, (Py_ssize_t)i);
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyCallable_Check(PyTuple_GET_ITEM(pair, 1))) {
      PyErr_SetString(PyExc_TypeError, "callbacks must be a sequence of (name, callable)");
      goto out;
    }
    Py_ssize_t n;
    if (!(b->callbacks[i].name = keep_utf8(b, PyTuple_GET_ITEM(pair, 0), &n, "a callback name"))) goto out;
    if (PyList_Append(b->keep, PyTuple_GET_ITEM(pair, 1)) < 0) goto out;
    b->entries[i].fn = PyTuple_GET_ITEM(pair, 1);
    b->entries[i].ctx = ctx;
    b->callbacks[i].fn = trampoline;
    b->callbacks[i].userdata = &b->entries[i];
  }
  ok = true;
out:
  Py_XDECREF(fm);
  Py_XDECREF(ft);
  Py_XDECREF(fc);
  if (!ok) borrowed_free(b);
  return ok;
}

static void apply_borrowed(geno_config *cfg, const Borrowed *b) {
  cfg->modules = b->modules;
  cfg->nmodules = b->nmodules;
  cfg->targets = b->targets;
  cfg->ntargets = b->ntargets;
  cfg->callbacks = b->callbacks;
  cfg->ncallbacks = b->ncallbacks;
}

PyDoc_STRVAR(run_doc,
             "run(source, filename, timeout_s, max_steps, max_recursion_depth, max_output_length,\n"
             "    max_collection_size, max_integer_bits, capabilities, callbacks, modules, check_examples,\n"
             "    isolated, memory_bytes, cpu_seconds) -> Result\n\n"
             "geno_run (or geno_run_isolated) with the GIL released. Limits use the C\n"
             "API's units and 0 meanings; capabilities is a bit mask; callbacks and\n"
             "modules are sequences of (name, callable) and (name, source).");

static PyObject *py_run(PyObject *mod, PyObject *args) {
  PyObject *source, *filename, *callbacks, *modules;
  double timeout_s, cpu_seconds;
  unsigned long long max_steps, max_output, max_coll, memory_bytes;
  unsigned int max_depth, max_bits, caps;
  int check_examples, isolated;
  if (!PyArg_ParseTuple(args, "UUdKIKKIIOOppKd:run", &source, &filename, &timeout_s, &max_steps, &max_depth,
                        &max_output, &max_coll, &max_bits, &caps, &callbacks, &modules, &check_examples, &isolated,
                        &memory_bytes, &cpu_seconds))
    return NULL;
  Py_ssize_t slen, flen;
  const char *src = PyUnicode_AsUTF8AndSize(source, &slen);
  const char *fname = src ? PyUnicode_AsUTF8AndSize(filename, &flen) : NULL;
  if (!fname) return NULL;
  if (strlen(fname) != (size_t)flen) {
    PyErr_SetString(PyExc_ValueError, "filename must not contain NUL characters");
    return NULL;
  }
  RunCtx ctx = {NULL};
  Borrowed b;
  PyObject *no_targets = PyTuple_New(0);
  bool borrowed = no_targets && borrow(&b, modules, no_targets, callbacks, &ctx);
  Py_XDECREF(no_targets);
  if (!borrowed) return NULL;
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.timeout_s = timeout_s;
  cfg.max_steps = max_steps;
  cfg.max_recursion_depth = max_depth;
  cfg.max_output_length = max_output;
  cfg.max_collection_size = max_coll;
  cfg.max_integer_bits = max_bits;
  cfg.capabilities_set = true;
  cfg.capabilities = caps;
  cfg.check_examples = check_examples;
  cfg.memory_bytes = memory_bytes;
  cfg.cpu_seconds = cpu_seconds;
  apply_borrowed(&cfg, &b);
  geno_result *r;
  Py_BEGIN_ALLOW_THREADS
  r = isolated ? geno_run_isolated(src, (size_t)slen, fname, &cfg) : geno_run(src, (size_t)slen, fname, &cfg);
  Py_END_ALLOW_THREADS
  borrowed_free(&b);
  if (ctx.pending) {
    geno_result_free(r);
    PyErr_SetObject((PyObject *)Py_TYPE(ctx.pending), ctx.pending);
    Py_DECREF(ctx.pending);
    return NULL;
  }
  return wrap_result(r);
}

/* source and filename as UTF-8 (filename without NUL), or NULL with an
 * exception set. */
static const char *source_and_name(PyObject *source, PyObject *filename, Py_ssize_t *slen, const char **fname) {
  Py_ssize_t flen;
  const char *src = PyUnicode_AsUTF8AndSize(source, slen);
  *fname = src ? PyUnicode_AsUTF8AndSize(filename, &flen) : NULL;
  if (!*fname) return NULL;
  if (strlen(*fname) != (size_t)flen) {
    PyErr_SetString(PyExc_ValueError, "filename must not contain NUL characters");
    return NULL;
  }
  return src;
}

/* A text the library returned as a str (None for NULL); frees it. */
static PyObject *take_text(char *text, size_t len) {
  if (!text) Py_RETURN_NONE;
  PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
  geno_free(text);
  return s;
}

PyDoc_STRVAR(compile_js_doc,
             "compile_js(source, filename, esm, source_map, js_name, dts) -> (Result, js, map, dts)\n\n"
             "geno_compile_js_ex with the GIL released; js, map and dts are str or None.");

static PyObject *py_compile_js(PyObject *mod, PyObject *args) {
  PyObject *source, *filename;
  int esm, smap, dts;
  const char *js_name;
  if (!PyArg_ParseTuple(args, "UUppzp:compile_js", &source, &filename, &esm, &smap, &js_name, &dts)) return NULL;
  Py_ssize_t slen;
  const char *fname;
  const char *src = source_and_name(source, filename, &slen, &fname);
  if (!src) return NULL;
  unsigned flags = (esm ? GENO_JS_ESM : 0) | (smap ? GENO_JS_SOURCE_MAP : 0) | (dts ? GENO_JS_DTS : 0);
  geno_js_output o;
  geno_result *r;
  Py_BEGIN_ALLOW_THREADS
  r = geno_compile_js_ex(src, (size_t)slen, fname, NULL, flags, js_name, &o);
  Py_END_ALLOW_THREADS
  if (!r) return PyErr_NoMemory();
  PyObject *res = wrap_result(r);
  PyObject *js = take_text(o.js, o.js_len), *map = take_text(o.source_map, o.source_map_len),
           *d = take_text(o.dts, o.dts_len);
  PyObject *out = res && js && map && d ? PyTuple_Pack(4, res, js, map, d) : NULL;
  Py_XDECREF(res);
  Py_XDECREF(js);
  Py_XDECREF(map);
  Py_XDECREF(d);
  return out;
}

PyDoc_STRVAR(compile_html_doc,
             "compile_html(source, filename, title, width, height, source_map=False) -> (Result, html)\n\n"
             "geno_compile_html_ex (a whole page, with the source map inline when asked) with the GIL\n"
             "released; html is a str or None.");

static PyObject *py_compile_html(PyObject *mod, PyObject *args) {
  PyObject *source, *filename, *title;
  int width, height, smap = 0;
  if (!PyArg_ParseTuple(args, "UUUii|p:compile_html", &source, &filename, &title, &width, &height, &smap)) return NULL;
  Py_ssize_t slen, tlen;
  const char *fname;
  const char *src = source_and_name(source, filename, &slen, &fname);
  const char *t = src ? PyUnicode_AsUTF8AndSize(title, &tlen) : NULL;
  if (!t) return NULL;
  if (strlen(t) != (size_t)tlen) {
    PyErr_SetString(PyExc_ValueError, "title must not contain NUL characters");
    return NULL;
  }
  geno_js_output o;
  geno_result *r;
  Py_BEGIN_ALLOW_THREADS
  r = geno_compile_html_ex(src, (size_t)slen, fname, NULL, t, width, height, false, smap ? GENO_JS_SOURCE_MAP : 0,
                           "app.js", &o);
  Py_END_ALLOW_THREADS
  if (!r) return PyErr_NoMemory();
  geno_free(o.source_map);
  PyObject *res = wrap_result(r), *page = take_text(o.js, o.js_len);
  PyObject *out = res && page ? PyTuple_Pack(2, res, page) : NULL;
  Py_XDECREF(res);
  Py_XDECREF(page);
  return out;
}

PyDoc_STRVAR(check_doc, "check(source, filename, modules, targets) -> Result\n\n"
                        "geno_check with the GIL released.");

static PyObject *py_check(PyObject *mod, PyObject *args) {
  PyObject *source, *filename, *modules, *targets;
  if (!PyArg_ParseTuple(args, "UUOO:check", &source, &filename, &modules, &targets)) return NULL;
  Py_ssize_t slen, flen;
  const char *src = PyUnicode_AsUTF8AndSize(source, &slen);
  const char *fname = src ? PyUnicode_AsUTF8AndSize(filename, &flen) : NULL;
  if (!fname) return NULL;
  if (strlen(fname) != (size_t)flen) {
    PyErr_SetString(PyExc_ValueError, "filename must not contain NUL characters");
    return NULL;
  }
  Borrowed b;
  PyObject *no_callbacks = PyTuple_New(0);
  bool borrowed = no_callbacks && borrow(&b, modules, targets, no_callbacks, NULL);
  Py_XDECREF(no_callbacks);
  if (!borrowed) return NULL;
  geno_config cfg;
  geno_config_init(&cfg);
  apply_borrowed(&cfg, &b);
  geno_result *r;
  Py_BEGIN_ALLOW_THREADS
  r = geno_check(src, (size_t)slen, fname, &cfg);
  Py_END_ALLOW_THREADS
  borrowed_free(&b);
  return wrap_result(r);
}

static PyObject *py_source_imports(PyObject *mod, PyObject *arg) {
  Py_ssize_t n;
  const char *src = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &n) : NULL;
  if (!src) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "source must be a str");
    return NULL;
  }
  char **names = NULL;
  int count = geno_source_imports(src, (size_t)n, &names);
  if (count < 0) Py_RETURN_NONE;
  PyObject *list = PyList_New(count);
  for (int i = 0; list && i < count; i++) {
    PyObject *s = PyUnicode_FromString(names[i]);
    if (!s) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, s);
  }
  geno_strings_free(names, (size_t)count);
  return list;
}

static PyObject *py_callback_name_valid(PyObject *mod, PyObject *arg) {
  const char *s = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
  if (!s) {
    PyErr_Clear();
    Py_RETURN_FALSE;
  }
  return PyBool_FromLong(geno_callback_name_valid(s));
}

/* A string the library returned, as a Python str; releases it. */
static PyObject *take_string(char *s) {
  if (!s) return PyErr_NoMemory();
  PyObject *r = PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
  geno_free(s);
  return r;
}

/* (JSON text, allowed_next text) of geno_constrain_prefix, GIL released. */
static PyObject *py_constrain_prefix(PyObject *mod, PyObject *arg) {
  Py_ssize_t n;
  const char *src = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &n) : NULL;
  if (!src) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "prefix must be a str");
    return NULL;
  }
  geno_constraint_result r;
  bool ok;
  char *json = NULL, *text = NULL;
  Py_BEGIN_ALLOW_THREADS
  ok = geno_constrain_prefix(src, (size_t)n, &r);
  if (ok) {
    json = geno_constraint_result_json(&r, 0);
    text = geno_constraint_result_text(&r);
    geno_constraint_result_free(&r);
  }
  Py_END_ALLOW_THREADS
  PyObject *out = NULL;
  if (json && text) out = Py_BuildValue("(NN)", take_string(json), take_string(text));
  else {
    geno_free(json);
    geno_free(text);
    PyErr_NoMemory();
  }
  return out;
}

/* ------------------------------------------------------------------------ */
/* Constrained decoding: sessions and vocabularies (geno_constrain_*)        */
/* ------------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  geno_constrain_vocab *v;
} VocabObject;

static int vocab_init(VocabObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"tokens", NULL};
  PyObject *seq;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O:ConstrainVocab", kwlist, &seq)) return -1;
  PyObject *fast = PySequence_Fast(seq, "tokens must be a sequence of bytes");
  if (!fast) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  const char **toks = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *toks);
  size_t *lens = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *lens);
  int rc = -1;
  if (!toks || !lens) {
    PyErr_NoMemory();
    goto out;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *t = PySequence_Fast_GET_ITEM(fast, i);
    char *b;
    Py_ssize_t len;
    if (!PyBytes_Check(t) || PyBytes_AsStringAndSize(t, &b, &len) < 0) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "token %zd must be bytes, not %.100s", i, Py_TYPE(t)->tp_name);
      goto out;
    }
    toks[i] = b;
    lens[i] = (size_t)len;
  }
  geno_constrain_vocab *v;
  Py_BEGIN_ALLOW_THREADS
  v = geno_constrain_vocab_new(toks, lens, (size_t)n);
  Py_END_ALLOW_THREADS
  if (!v) {
    PyErr_NoMemory();
    goto out;
  }
  geno_constrain_vocab_free(self->v);
  self->v = v;
  rc = 0;
out:
  PyMem_Free(toks);
  PyMem_Free(lens);
  Py_DECREF(fast);
  return rc;
}

static void vocab_dealloc(VocabObject *self) {
  geno_constrain_vocab_free(self->v);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t vocab_len(VocabObject *self) { return (Py_ssize_t)geno_constrain_vocab_size(self->v); }

static PySequenceMethods vocab_as_sequence = {.sq_length = (lenfunc)vocab_len};

static PyTypeObject VocabType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "geno._geno.ConstrainVocab",
    .tp_basicsize = sizeof(VocabObject),
    .tp_dealloc = (destructor)vocab_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "ConstrainVocab(tokens: sequence of bytes): a model's vocabulary for token masks "
              "(geno_constrain_vocab; immutable, shareable between threads).",
    .tp_as_sequence = &vocab_as_sequence,
    .tp_init = (initproc)vocab_init,
    .tp_new = PyType_GenericNew,
};

typedef struct {
  PyObject_HEAD
  geno_constrain *s;
  int busy; /* a call that released the GIL is using s */
} SessionObject;

static PyTypeObject SessionType;

static int session_init(SessionObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, ":ConstrainSession", kwlist)) return -1;
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError, "ConstrainSession is in use by another thread");
    return -1;
  }
  geno_constrain_free(self->s);
  if (!(self->s = geno_constrain_new())) {
    PyErr_NoMemory();
    return -1;
  }
  return 0;
}

static void session_dealloc(SessionObject *self) {
  geno_constrain_free(self->s);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The session, marked in use; NULL with an exception when it cannot be. */
static geno_constrain *session_take(SessionObject *self) {
  if (!self->s) {
    PyErr_SetString(PyExc_RuntimeError, "ConstrainSession was not initialised");
    return NULL;
  }
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError, "ConstrainSession is in use by another thread");
    return NULL;
  }
  self->busy = 1;
  return self->s;
}

static PyObject *session_feed(SessionObject *self, PyObject *arg) {
  Py_buffer buf;
  if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE) < 0) return NULL;
  geno_constrain *s = session_take(self);
  if (!s) {
    PyBuffer_Release(&buf);
    return NULL;
  }
  bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = geno_constrain_feed(s, buf.buf, (size_t)buf.len);
  Py_END_ALLOW_THREADS
  self->busy = 0;
  PyBuffer_Release(&buf);
  return PyBool_FromLong(ok);
}

static PyObject *session_state(SessionObject *self, PyObject *unused) {
  (void)unused;
  geno_constrain *s = session_take(self);
  if (!s) return NULL;
  geno_constrain_status st = geno_constrain_state(s);
  self->busy = 0;
  return PyLong_FromLong((long)st);
}

static PyObject *session_error(SessionObject *self, PyObject *unused) {
  (void)unused;
  geno_constrain *s = session_take(self);
  if (!s) return NULL;
  const char *e = geno_constrain_error(s);
  self->busy = 0;
  if (!e) Py_RETURN_NONE;
  return PyUnicode_DecodeUTF8(e, (Py_ssize_t)strlen(e), "replace");
}

static PyObject *session_clone(SessionObject *self, PyObject *unused) {
  (void)unused;
  geno_constrain *s = session_take(self);
  if (!s) return NULL;
  geno_constrain *c = geno_constrain_clone(s);
  self->busy = 0;
  if (!c) return PyErr_NoMemory();
  SessionObject *o = PyObject_New(SessionObject, &SessionType);
  if (!o) {
    geno_constrain_free(c);
    return NULL;
  }
  o->s = c;
  o->busy = 0;
  return (PyObject *)o;
}

/* mask(vocab) -> bytes: bit i (byte i // 8, bit i % 8) set when token i
 * keeps the text valid. */
static PyObject *session_mask(SessionObject *self, PyObject *arg) {
  if (!PyObject_TypeCheck(arg, &VocabType) || !((VocabObject *)arg)->v) {
    PyErr_SetString(PyExc_TypeError, "mask() needs an initialised ConstrainVocab");
    return NULL;
  }
  const geno_constrain_vocab *v = ((VocabObject *)arg)->v;
  size_t n = geno_constrain_vocab_size(v), words = (n + 63) / 64;
  uint64_t *bits = PyMem_Malloc((words ? words : 1) * sizeof *bits);
  if (!bits) return PyErr_NoMemory();
  geno_constrain *s = session_take(self);
  if (!s) {
    PyMem_Free(bits);
    return NULL;
  }
  Py_INCREF(arg); /* the vocabulary outlives the call */
  Py_BEGIN_ALLOW_THREADS
  geno_constrain_mask(s, v, bits);
  Py_END_ALLOW_THREADS
  self->busy = 0;
  Py_DECREF(arg);
  PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((n + 7) / 8));
  if (out) {
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
    for (size_t i = 0; i < (n + 7) / 8; i++) p[i] = (unsigned char)(bits[i / 8] >> (8 * (i % 8)));
  }
  PyMem_Free(bits);
  return out;
}

static PyMethodDef session_methods[] = {
    {"feed", (PyCFunction)session_feed, METH_O, "feed(data: bytes) -> bool: append; whether the text is still valid."},
    {"state", (PyCFunction)session_state, METH_NOARGS, "state() -> int: 0 invalid, 1 valid, 2 complete."},
    {"error", (PyCFunction)session_error, METH_NOARGS, "error() -> str | None: why the text became invalid."},
    {"clone", (PyCFunction)session_clone, METH_NOARGS, "clone() -> ConstrainSession: an independent copy."},
    {"mask", (PyCFunction)session_mask, METH_O,
     "mask(vocab) -> bytes: the tokens that keep the text valid, bit i of byte i//8 for token 8*(i//8)+i%8."},
    {NULL},
};

static PyTypeObject SessionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "geno._geno.ConstrainSession",
    .tp_basicsize = sizeof(SessionObject),
    .tp_dealloc = (destructor)session_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "ConstrainSession(): an incremental constrained-decoding session (geno_constrain; one thread at "
              "a time).",
    .tp_methods = session_methods,
    .tp_init = (initproc)session_init,
    .tp_new = PyType_GenericNew,
};

/* Converts a Python value to Geno and back: what a host callback's result
 * becomes inside a program, for tests and for checking a value early. */
static PyObject *py_roundtrip(PyObject *mod, PyObject *arg) {
  geno_value *v = from_py(arg, 1);
  if (!v) return NULL;
  PyObject *r = to_py(v);
  geno_value_free(v);
  return r;
}

static PyObject *py_register_types(PyObject *mod, PyObject *args) {
  PyObject *t[7];
  if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!:register_types", &PyType_Type, &t[0], &PyType_Type, &t[1],
                        &PyType_Type, &t[2], &PyType_Type, &t[3], &PyType_Type, &t[4], &PyType_Type, &t[5],
                        &PyType_Type, &t[6]))
    return NULL;
  PyObject **slots[7] = {&T_ctor, &T_array, &T_vec, &T_set, &T_mmap, &T_func, &T_opaque};
  for (int i = 0; i < 7; i++) Py_XSETREF(*slots[i], Py_NewRef(t[i]));
  Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------ */
/* Metrics                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  geno_metrics *m;
} MetricsObject;

static int metrics_init(MetricsObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"service", "revision", NULL};
  const char *service = NULL, *revision = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|zz:Metrics", kwlist, &service, &revision)) return -1;
  geno_metrics_free(self->m);
  if (!(self->m = geno_metrics_new(service, revision))) {
    PyErr_NoMemory();
    return -1;
  }
  return 0;
}

static void metrics_dealloc(MetricsObject *self) {
  geno_metrics_free(self->m);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static bool metrics_ready(MetricsObject *self) {
  if (self->m) return true;
  PyErr_SetString(PyExc_RuntimeError, "Metrics object was not initialised");
  return false;
}


static PyObject *metrics_record(MetricsObject *self, PyObject *args) {
  PyObject *res;
  const char *op = "run";
  if (!PyArg_ParseTuple(args, "O!|s:record", &ResultType, &res, &op) || !metrics_ready(self)) return NULL;
  geno_metrics_record(self->m, ((ResultObject *)res)->r, op);
  Py_RETURN_NONE;
}

/* The str items of a Python sequence as C strings (views valid while
 * *fast lives): NULL with an exception set on a non-str item. Free the
 * array with PyMem_Free and release *fast. */
static const char **str_array(PyObject *seq, Py_ssize_t *n, PyObject **fast, const char *what) {
  *fast = PySequence_Fast(seq, what);
  if (!*fast) return NULL;
  *n = PySequence_Fast_GET_SIZE(*fast);
  const char **list = PyMem_Calloc((size_t)*n + 1, sizeof *list);
  if (!list) {
    PyErr_NoMemory();
    Py_CLEAR(*fast);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < *n; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(*fast, i);
    if (!PyUnicode_Check(item)) PyErr_SetString(PyExc_TypeError, what);
    if (!PyUnicode_Check(item) || !(list[i] = PyUnicode_AsUTF8(item))) {
      PyMem_Free(list);
      Py_CLEAR(*fast);
      return NULL;
    }
  }
  return list;
}

/* An outcome name ("timeout") as its geno_outcome, or -1. */
static int outcome_from_name(const char *name) {
  for (int i = 0; i < GENO_OUTCOME_COUNT; i++)
    if (strcmp(geno_outcome_name((geno_outcome)i), name) == 0) return i;
  return -1;
}

static PyObject *py_outcome_for(PyObject *mod, PyObject *args) {
  int ok;
  PyObject *codes, *fast;
  Py_ssize_t n;
  if (!PyArg_ParseTuple(args, "pO:outcome_for", &ok, &codes)) return NULL;
  const char **list = str_array(codes, &n, &fast, "diagnostic codes must be a sequence of str");
  if (!list) return NULL;
  geno_outcome o = geno_outcome_from_codes(ok, list, (size_t)n);
  PyMem_Free(list);
  Py_DECREF(fast);
  return PyUnicode_FromString(geno_outcome_name(o));
}

static PyObject *metrics_record_run(MetricsObject *self, PyObject *args) {
  const char *outcome;
  double wall;
  unsigned long long steps;
  PyObject *codes, *fast;
  Py_ssize_t n;
  if (!PyArg_ParseTuple(args, "sdKO:record_run", &outcome, &wall, &steps, &codes) || !metrics_ready(self))
    return NULL;
  int o = outcome_from_name(outcome);
  if (o < 0) return PyErr_Format(PyExc_ValueError, "unknown run outcome '%s'", outcome);
  const char **list = str_array(codes, &n, &fast, "diagnostic codes must be a sequence of str");
  if (!list) return NULL;
  geno_metrics_record_run(self->m, (geno_outcome)o, wall, steps, list, (size_t)n);
  PyMem_Free(list);
  Py_DECREF(fast);
  Py_RETURN_NONE;
}

static PyObject *metrics_record_http(MetricsObject *self, PyObject *args) {
  const char *endpoint, *outcome;
  int status;
  if (!PyArg_ParseTuple(args, "sis:record_http", &endpoint, &status, &outcome) || !metrics_ready(self))
    return NULL;
  geno_metrics_record_http(self->m, endpoint, status, outcome);
  Py_RETURN_NONE;
}

static PyObject *metrics_record_constrain(MetricsObject *self, PyObject *args) {
  PyObject *valid;
  double wall;
  if (!PyArg_ParseTuple(args, "Od:record_constrain", &valid, &wall) || !metrics_ready(self)) return NULL;
  geno_metrics_record_constrain(self->m, valid == Py_None ? -1 : PyObject_IsTrue(valid) ? 1 : 0, wall);
  Py_RETURN_NONE;
}

static PyObject *metrics_record_benchmark(MetricsObject *self, PyObject *args) {
  unsigned long long total, passed, issues;
  if (!PyArg_ParseTuple(args, "KKK:record_benchmark", &total, &passed, &issues) || !metrics_ready(self))
    return NULL;
  geno_metrics_record_benchmark(self->m, total, passed, issues);
  Py_RETURN_NONE;
}

static PyObject *metrics_set_startup_errors(MetricsObject *self, PyObject *arg) {
  PyObject *fast;
  Py_ssize_t n;
  if (!metrics_ready(self)) return NULL;
  const char **list = str_array(arg, &n, &fast, "startup errors must be a sequence of str");
  if (!list) return NULL;
  bool ok = geno_metrics_set_startup_errors(self->m, list, (size_t)n);
  PyMem_Free(list);
  Py_DECREF(fast);
  if (!ok) return PyErr_NoMemory();
  Py_RETURN_NONE;
}

static PyObject *metrics_snapshot_json(MetricsObject *self, PyObject *unused) {
  return metrics_ready(self) ? take_string(geno_metrics_snapshot_json(self->m)) : NULL;
}

static PyObject *metrics_prometheus(MetricsObject *self, PyObject *unused) {
  return metrics_ready(self) ? take_string(geno_metrics_prometheus(self->m)) : NULL;
}

static PyObject *metrics_health_json(MetricsObject *self, PyObject *args) {
  PyObject *extra = Py_None;
  if (!PyArg_ParseTuple(args, "|O:health_json", &extra) || !metrics_ready(self)) return NULL;
  PyObject *seq = extra == Py_None ? PyTuple_New(0) : Py_NewRef(extra);
  PyObject *fast = seq ? PySequence_Fast(seq, "extra checks must be a sequence of (name, status, detail)") : NULL;
  Py_XDECREF(seq);
  if (!fast) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  geno_health_check *checks = PyMem_Calloc((size_t)n + 1, sizeof *checks);
  Py_ssize_t i = 0;
  for (; checks && i < n; i++) {
    PyObject *t = PySequence_Fast_GET_ITEM(fast, i);
    if (!PyTuple_Check(t) || !PyArg_ParseTuple(t, "sss", &checks[i].name, &checks[i].status, &checks[i].detail))
      break;
  }
  PyObject *r = NULL;
  if (!checks) PyErr_NoMemory();
  else if (i < n) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "extra checks must be (name, status, detail) tuples");
  } else r = take_string(geno_metrics_health_json(self->m, checks, (size_t)n));
  PyMem_Free(checks);
  Py_DECREF(fast);
  return r;
}

static PyMethodDef metrics_methods[] = {
    {"record", (PyCFunction)metrics_record, METH_VARARGS, "record(result, operation='run')"},
    {"record_run", (PyCFunction)metrics_record_run, METH_VARARGS,
     "record_run(outcome, wall_ms, steps, codes): a run known only by its summary"},
    {"record_http", (PyCFunction)metrics_record_http, METH_VARARGS, "record_http(endpoint, status, outcome)"},
    {"record_constrain", (PyCFunction)metrics_record_constrain, METH_VARARGS,
     "record_constrain(valid: bool|None, wall_ms)"},
    {"record_benchmark", (PyCFunction)metrics_record_benchmark, METH_VARARGS,
     "record_benchmark(total, canonical_passed, problems_with_issues)"},
    {"set_startup_errors", (PyCFunction)metrics_set_startup_errors, METH_O, "set_startup_errors([str])"},
    {"snapshot_json", (PyCFunction)metrics_snapshot_json, METH_NOARGS, "The snapshot as JSON text."},
    {"health_json", (PyCFunction)metrics_health_json, METH_VARARGS,
     "health_json(extra=[(name, status, detail)]): the health report as JSON text."},
    {"prometheus", (PyCFunction)metrics_prometheus, METH_NOARGS, "Prometheus text exposition."},
    {NULL},
};

static PyTypeObject MetricsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "geno._geno.Metrics",
    .tp_basicsize = sizeof(MetricsObject),
    .tp_dealloc = (destructor)metrics_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Metrics(service=None, revision=None): a thread-safe geno_metrics collector.",
    .tp_methods = metrics_methods,
    .tp_init = (initproc)metrics_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------------ */
/* The hosted service's pipeline, for geno.server.create_handler            */
/* ------------------------------------------------------------------------ */

/* ServerCore: src/server's request pipeline (pipeline.c, the rules of
 * `geno serve`) behind a Python HTTP server. The Python handler passes
 * each request's method, target, headers, peer and listening address and
 * a function that reads the body; the core answers with status, headers
 * and body, and records into the collector's Metrics it holds. */
typedef struct {
  PyObject_HEAD
  SrvService *svc;
  PyObject *metrics; /* the MetricsObject the service records into */
} ServerCoreObject;

static bool set_strings(SrvStrings *dst, PyObject *seq, const char *what) {
  PyObject *fast = PySequence_Fast(seq, what);
  if (!fast) return false;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  char **items = calloc((size_t)n + 1, sizeof *items);
  bool ok = items != NULL;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    const char *t = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i));
    ok = t && (items[i] = strdup(t));
  }
  Py_DECREF(fast);
  if (!ok) {
    for (Py_ssize_t i = 0; items && i < n; i++) free(items[i]);
    free(items);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return false;
  }
  for (size_t i = 0; i < dst->count; i++) free(dst->items[i]);
  free(dst->items);
  dst->items = items;
  dst->count = (size_t)n;
  return true;
}

static int core_init(ServerCoreObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"metrics", "argv", "api_key", "env_names", "env_prefixes", "require_auth_metrics",
                           "require_auth_playground", "rate_limit", "rate_window", "rate_buckets",
                           "trusted_proxy", NULL};
  PyObject *metrics, *argv, *names = Py_None, *prefixes = Py_None, *proxy = Py_None;
  const char *key = NULL;
  int auth_metrics = -2, auth_playground = -1;
  long long rate = -1, buckets = -1;
  double window = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O|zOOiiLdLO:ServerCore", kwlist, &MetricsType, &metrics, &argv,
                                   &key, &names, &prefixes, &auth_metrics, &auth_playground, &rate, &window,
                                   &buckets, &proxy))
    return -1;
  if (self->svc) {
    PyErr_SetString(PyExc_RuntimeError, "ServerCore is already initialised");
    return -1;
  }
  PyObject *fast = PySequence_Fast(argv, "argv must be a sequence of str");
  if (!fast) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  char **av = calloc((size_t)n + 2, sizeof *av);
  if (!av) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return -1;
  }
  av[0] = "serve";
  for (Py_ssize_t i = 0; i < n; i++)
    if (!(av[i + 1] = (char *)PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i)))) {
      free(av);
      Py_DECREF(fast);
      return -1;
    }
  SrvConfig cfg;
  memset(&cfg, 0, sizeof cfg);
  bool quiet = !getenv("GENO_LOG_LEVEL");
  int rc = srv_config_load(&cfg, (int)n + 1, av);
  free(av);
  Py_DECREF(fast);
  if (rc) {
    srv_config_free(&cfg);
    PyErr_SetString(PyExc_ValueError, "invalid server settings (the GENO_* environment): see the message on stderr");
    return -1;
  }
  /* the reference's module logger: warnings and errors reach stderr */
  if (quiet) srv_log_level = SRV_LOG_WARNING;
  free(cfg.api_key);
  cfg.api_key = key ? strdup(key) : NULL;
  bool ok = !key || cfg.api_key;
  if (ok && names != Py_None) ok = set_strings(&cfg.env_names, names, "env_names must be a sequence of str");
  if (ok && prefixes != Py_None) ok = set_strings(&cfg.env_prefixes, prefixes, "env_prefixes must be a sequence of str");
  if (ok && proxy != Py_None) {
    const char *t = PyUnicode_AsUTF8(proxy);
    free(cfg.trusted_proxy);
    cfg.trusted_proxy = t ? strdup(t) : NULL;
    ok = cfg.trusted_proxy != NULL;
  }
  if (!ok) {
    srv_config_free(&cfg);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return -1;
  }
  if (auth_metrics >= -1) cfg.require_auth_metrics = auth_metrics;
  if (auth_playground >= 0) cfg.require_auth_playground = auth_playground != 0;
  if (rate >= 0) cfg.rate_limit = (uint64_t)rate;
  if (window > 0) cfg.rate_window = window;
  if (buckets > 0) cfg.rate_buckets = (uint64_t)buckets;
  /* children fork from a small spawner process, started now (warm: the
   * library's tables built by the self-test program), not from this
   * Python process: a fork of the interpreter costs tens of milliseconds */
  char *warm = srv_warm_up();
  free(warm);
  /* Python's threads are left where they are; the package ships no
   * geno-spawner, so the spawners are forks of this process */
  SrvLayout layout;
  if (srv_spawner_layout(&cfg, false, &layout) != 0) {
    srv_config_free(&cfg);
    PyErr_NoMemory();
    return -1;
  }
  cfg.spawner_set = srv_spawners_start(layout.count, layout.cpus, layout.ncpus, false, NULL);
  srv_layout_free(&layout);
  self->svc = srv_service_new(&cfg, ((MetricsObject *)metrics)->m);
  if (!self->svc) {
    srv_spawners_free(cfg.spawner_set);
    srv_config_free(&cfg);
    PyErr_NoMemory();
    return -1;
  }
  Py_INCREF(metrics);
  self->metrics = metrics;
  return 0;
}

static void core_dealloc(ServerCoreObject *self) {
  if (self->svc) srv_spawners_free(srv_service_config(self->svc)->spawner_set);
  srv_service_free(self->svc);
  Py_XDECREF(self->metrics);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *latin1(const char *s) { return PyUnicode_DecodeLatin1(s, (Py_ssize_t)strlen(s), "replace"); }

static PyObject *core_handle(ServerCoreObject *self, PyObject *args) {
  const char *method, *target, *peer, *bind_host;
  PyObject *headers, *read;
  int port;
  if (!PyArg_ParseTuple(args, "ssOssiO:handle", &method, &target, &headers, &peer, &bind_host, &port, &read))
    return NULL;
  if (!self->svc) {
    PyErr_SetString(PyExc_RuntimeError, "ServerCore was not initialised");
    return NULL;
  }
  PyObject *fast = PySequence_Fast(headers, "headers must be a sequence of (bytes, bytes)");
  if (!fast) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  SrvHttpHeader *hs = calloc((size_t)n + 1, sizeof *hs);
  if (!hs) {
    Py_DECREF(fast);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *pair = PySequence_Fast_GET_ITEM(fast, i);
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyBytes_Check(PyTuple_GET_ITEM(pair, 0)) ||
        !PyBytes_Check(PyTuple_GET_ITEM(pair, 1))) {
      free(hs);
      Py_DECREF(fast);
      PyErr_SetString(PyExc_TypeError, "headers must be a sequence of (bytes, bytes)");
      return NULL;
    }
    hs[i].name = PyBytes_AS_STRING(PyTuple_GET_ITEM(pair, 0));
    hs[i].value = PyBytes_AS_STRING(PyTuple_GET_ITEM(pair, 1));
  }
  SrvExchange x;
  memset(&x, 0, sizeof x);
  x.method = method;
  x.target = target;
  x.headers = hs;
  x.nheaders = (size_t)n;
  x.peer = peer;
  x.bind_host = bind_host;
  x.port = port;
  srv_service_begin(self->svc, &x);
  PyObject *result = NULL;
  if (!x.done && x.awaiting_body) {
    PyObject *body = x.need_body ? PyObject_CallFunction(read, "n", (Py_ssize_t)x.need_body) : PyBytes_FromString("");
    if (body && !PyBytes_Check(body)) {
      Py_DECREF(body);
      body = NULL;
      PyErr_SetString(PyExc_TypeError, "read must return bytes");
    }
    if (!body) goto done; /* the client went away: recorded by srv_exchange_end */
    const char *b = PyBytes_AS_STRING(body);
    size_t blen = (size_t)PyBytes_GET_SIZE(body);
    Py_BEGIN_ALLOW_THREADS
    srv_service_finish(self->svc, &x, b, blen);
    Py_END_ALLOW_THREADS
    Py_DECREF(body);
  }
  if (!x.done) {
    PyErr_SetString(PyExc_RuntimeError, "the request got no answer");
    goto done;
  }
  PyObject *hl = PyList_New((Py_ssize_t)x.nout);
  for (size_t i = 0; hl && i < x.nout; i++) {
    PyObject *pair = Py_BuildValue("(NN)", latin1(x.out[i].name), latin1(x.out[i].value));
    if (!pair) Py_CLEAR(hl);
    else PyList_SET_ITEM(hl, (Py_ssize_t)i, pair);
  }
  if (hl) result = Py_BuildValue("(iNy#)", x.status, hl, x.body ? x.body : "", (Py_ssize_t)x.body_len);
done:
  srv_exchange_end(self->svc, &x);
  free(hs);
  Py_DECREF(fast);
  return result;
}

static PyObject *core_request_timeout(ServerCoreObject *self, void *c) {
  return PyLong_FromUnsignedLong(self->svc ? srv_service_config(self->svc)->request_timeout : 30);
}

static PyObject *core_max_header(ServerCoreObject *self, void *c) {
  return PyLong_FromUnsignedLongLong(self->svc ? srv_service_config(self->svc)->max_header : 65536);
}

static PyGetSetDef core_getset[] = {
    {"request_timeout", (getter)core_request_timeout, NULL,
     "Seconds a request may take to arrive (GENO_REQUEST_TIMEOUT_SECONDS).", NULL},
    {"max_header_bytes", (getter)core_max_header, NULL,
     "Bytes of request line and headers (GENO_MAX_REQUEST_HEADER_BYTES).", NULL},
    {NULL},
};

static PyMethodDef core_methods[] = {
    {"handle", (PyCFunction)core_handle, METH_VARARGS,
     "handle(method, target, headers, peer, bind_host, port, read) -> (status, [(name, value)], body): one "
     "request through geno serve's pipeline; read(n) returns the body's bytes when it is needed."},
    {NULL},
};

static PyTypeObject ServerCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "geno._geno.ServerCore",
    .tp_basicsize = sizeof(ServerCoreObject),
    .tp_dealloc = (destructor)core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "ServerCore(metrics, argv, api_key=None, ...): geno serve's request pipeline for a Python HTTP server.",
    .tp_methods = core_methods,
    .tp_getset = core_getset,
    .tp_init = (initproc)core_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------------ */
/* Module                                                                    */
/* ------------------------------------------------------------------------ */

static PyMethodDef module_methods[] = {
    {"run", py_run, METH_VARARGS, run_doc},
    {"check", py_check, METH_VARARGS, check_doc},
    {"compile_js", py_compile_js, METH_VARARGS, compile_js_doc},
    {"compile_html", py_compile_html, METH_VARARGS, compile_html_doc},
    {"source_imports", py_source_imports, METH_O,
     "source_imports(source) -> [name] | None: the modules a source imports (None on a lexical error)."},
    {"callback_name_valid", py_callback_name_valid, METH_O,
     "callback_name_valid(name) -> bool: whether a host callback can implement builtin `name`."},
    {"constrain_prefix", py_constrain_prefix, METH_O,
     "constrain_prefix(prefix) -> (json, text): geno_constrain_prefix's result as JSON and as allowed_next text."},
    {"outcome_for", py_outcome_for, METH_VARARGS,
     "outcome_for(ok, codes) -> str: the monitoring outcome of a run known by its codes."},
    {"roundtrip", py_roundtrip, METH_O, "roundtrip(value): a Python value through Geno and back."},
    {"register_types", py_register_types, METH_VARARGS,
     "register_types(ctor, array, vec, set, mutable_map, function, opaque): the value classes."},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "geno._geno", "libgeno, the C implementation of Geno, for the geno package.", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__geno(void) {
  if (PyType_Ready(&ResultType) < 0 || PyType_Ready(&MetricsType) < 0 || PyType_Ready(&VocabType) < 0 ||
      PyType_Ready(&SessionType) < 0 || PyType_Ready(&ServerCoreType) < 0)
    return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  PyObject *caps = PyDict_New();
  for (unsigned i = 0; caps && i < GENO_CAP_COUNT; i++) {
    PyObject *bit = PyLong_FromUnsignedLong(1u << i);
    if (!bit || PyDict_SetItemString(caps, geno_capability_name(1u << i), bit) < 0) Py_CLEAR(caps);
    Py_XDECREF(bit);
  }
  if (!caps || PyModule_AddObjectRef(m, "CAPABILITIES", caps) < 0 ||
      PyModule_AddObjectRef(m, "Result", (PyObject *)&ResultType) < 0 ||
      PyModule_AddObjectRef(m, "Metrics", (PyObject *)&MetricsType) < 0 ||
      PyModule_AddObjectRef(m, "ConstrainVocab", (PyObject *)&VocabType) < 0 ||
      PyModule_AddObjectRef(m, "ConstrainSession", (PyObject *)&SessionType) < 0 ||
      PyModule_AddObjectRef(m, "ServerCore", (PyObject *)&ServerCoreType) < 0 ||
      PyModule_AddStringConstant(m, "LIBRARY_VERSION", GENO_VERSION) < 0 ||
      PyModule_AddStringConstant(m, "LANGUAGE_VERSION", GENO_LANGUAGE_VERSION) < 0 ||
      PyModule_AddIntConstant(m, "VALUE_MAX_DEPTH", GENO_VALUE_MAX_DEPTH) < 0) {
    Py_XDECREF(caps);
    Py_DECREF(m);
    return NULL;
  }
  Py_DECREF(caps);
  return m;
}
