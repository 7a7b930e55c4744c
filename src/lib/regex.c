/* Regex builtins (capability regex): regex_match, regex_find_all,
 * regex_replace over the restricted, backtracking-safe pattern subset.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include "families.h"
#include "regex_engine.h"

/* Raise the engine's message as a catchable runtime error (E499), as the
 * reference reports them; size errors go through vm_check_size (E504),
 * and running out of memory is E504 too (a limit: uncatchable). */
static bool regex_fail(VM *vm, const Buf *err) {
  bool oom = err->failed || (err->data && strstr(err->data, ": out of memory"));
  return vm_error(vm, oom ? E_RESOURCE : E_RUNTIME, "%s", err->data ? err->data : "regex: out of memory");
}

/* Validate and compile args[0] and check the subject args[text_arg]. */
static LibRegex *regex_prepare(VM *vm, const char *fn, Value pattern, Value text) {
  size_t pn, tn;
  const char *p = vm_str_bytes(pattern, &pn), *t = vm_str_bytes(text, &tn);
  Buf err = BUF_INIT;
  LibRegex *re = lib_regex_compile(fn, p, pn, &err);
  if (re && !lib_regex_check_arg(fn, "text", t, tn, &err)) {
    lib_regex_free(re);
    re = NULL;
  }
  if (!re) regex_fail(vm, &err);
  buf_free(&err);
  return re;
}

/* regex_match(pattern, text) -> Option[String]: the leftmost match, as
 * Python's re.search. */
static bool lib_regex_match(VM *vm, Value *args, int nargs, Value *out) {
  LibRegex *re = regex_prepare(vm, "regex_match", args[0], args[1]);
  if (!re) return false;
  size_t tn, s, e;
  const char *t = vm_str_bytes(args[1], &tn);
  Buf err = BUF_INIT;
  LibRegexIter it = {0, false, false};
  bool ok = vm_charge(vm, tn);
  int rc = ok ? lib_regex_next(re, "regex_match", t, tn, &it, &s, &e, &err) : 0;
  lib_regex_free(re);
  if (rc < 0) ok = regex_fail(vm, &err);
  buf_free(&err);
  if (!ok) return false;
  if (rc == 0) {
    *out = vm_none(vm);
    return true;
  }
  return vm_string(vm, t + s, e - s, out) && vm_some(vm, *out, out);
}

/* regex_find_all(pattern, text) -> List[String]: every match's text, with
 * finditer's rule for empty matches. */
static bool lib_regex_find_all(VM *vm, Value *args, int nargs, Value *out) {
  LibRegex *re = regex_prepare(vm, "regex_find_all", args[0], args[1]);
  if (!re) return false;
  size_t tn, s, e, count = 0;
  const char *t = vm_str_bytes(args[1], &tn);
  Buf err = BUF_INIT;
  LibRegexIter it = {0, false, false};
  Value item = v_unit();
  vm_push_root(vm, &item);
  bool ok = vm_charge(vm, tn) && vm_list(vm, 0, out);
  int rc = 0;
  while (ok && (rc = lib_regex_next(re, "regex_find_all", t, tn, &it, &s, &e, &err)) == 1) {
    /* text is a rooted argument: its bytes stay put while matches are built */
    ok = vm_check_size(vm, "regex_find_all: String", e - s) && vm_check_size(vm, "List", ++count) &&
         vm_string(vm, t + s, e - s, &item) && vm_list_push(vm, out, item);
  }
  if (ok && rc < 0) ok = regex_fail(vm, &err);
  vm_pop_roots(vm, 1);
  lib_regex_free(re);
  buf_free(&err);
  return ok;
}

/* regex_replace(pattern, replacement, text) -> String: every match
 * replaced; \N in the replacement inserts group N, all else is literal. */
static bool lib_regex_replace_fn(VM *vm, Value *args, int nargs, Value *out) {
  size_t pn, rn, tn;
  const char *p = vm_str_bytes(args[0], &pn), *r = vm_str_bytes(args[1], &rn), *t = vm_str_bytes(args[2], &tn);
  Buf err = BUF_INIT, res = BUF_INIT;
  size_t size = 0;
  bool ok = false;
  /* The reference's order: pattern, then replacement, then text. */
  LibRegex *re = lib_regex_compile("regex_replace", p, pn, &err);
  if (re && lib_regex_check_arg("regex_replace", "replacement", r, rn, &err) &&
      lib_regex_check_arg("regex_replace", "text", t, tn, &err) && vm_charge(vm, tn)) {
    LibRegexStatus st = lib_regex_replace(re, r, rn, t, tn, vm_max_size(vm), &res, &size, &err);
    if (st == LIB_RE_OK) ok = vm_string(vm, res.data ? res.data : "", res.len, out);
    else if (st == LIB_RE_TOO_BIG) ok = vm_check_size(vm, "regex_replace: String", size); /* false: raises E504 */
    else regex_fail(vm, &err);
  } else if (err.len) {
    regex_fail(vm, &err);
  }
  lib_regex_free(re);
  buf_free(&err);
  buf_free(&res);
  return ok;
}

const BuiltinDef lib_regex_builtins[] = {
    {"regex_find_all", "(pattern: String, text: String) -> List[String]", GENO_CAP_REGEX, "regex", 0,
     lib_regex_find_all, "$b_regex_find_all"},
    {"regex_match", "(pattern: String, text: String) -> Option[String]", GENO_CAP_REGEX, "regex", 0, lib_regex_match, "$b_regex_match"},
    {"regex_replace", "(pattern: String, replacement: String, text: String) -> String", GENO_CAP_REGEX, "regex", 0,
     lib_regex_replace_fn, "$b_regex_replace"},
};
const size_t lib_regex_builtin_count = ARRAY_LEN(lib_regex_builtins);
