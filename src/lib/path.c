/* Path builtins: pure POSIX path-string operations (no filesystem access),
 * also behind the std module Path.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"
#include "text.h"

/* path_join(base, child): posixpath.join of two parts. An absolute child
 * replaces base; a '/' is added unless base is empty or ends in one. */
static bool lib_path_join(VM *vm, Value *args, int nargs, Value *out) {
  size_t bn, cn;
  const char *b = lib_str(args[0], &bn);
  const char *c = lib_str(args[1], &cn);
  if ((cn > 0 && c[0] == '/') || bn == 0) {
    *out = args[1];
    return true;
  }
  if (!lib_check_count(vm, "String", vm_str_len(args[0]) + vm_str_len(args[1]) + 1)) return false;
  Buf buf = BUF_INIT;
  buf_append(&buf, b, bn);
  if (b[bn - 1] != '/') buf_putc(&buf, '/');
  buf_append(&buf, c, cn);
  return lib_string_from_buf(vm, &buf, out);
}

/* Bytes before the last '/' + 1 (0 when there is none). */
static size_t after_last_slash(const char *s, size_t n) {
  const char *q = memrchr(s, '/', n);
  return q ? (size_t)(q - s) + 1 : 0;
}

/* path_parent(path): posixpath.dirname. Everything up to the last '/',
 * with trailing slashes dropped unless it is all slashes ("/", "//"). */
static bool lib_path_parent(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  const char *s = lib_str(args[0], &n);
  size_t head = after_last_slash(s, n), keep = head;
  while (keep > 0 && s[keep - 1] == '/') keep--;
  if (keep == 0) keep = head; /* all slashes (or empty): kept as is */
  return vm_string(vm, s, keep, out);
}

/* path_filename(path): posixpath.basename, the text after the last '/'. */
static bool lib_path_filename(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  const char *s = lib_str(args[0], &n);
  size_t at = after_last_slash(s, n);
  return vm_string(vm, s + at, n - at, out);
}

/* path_extension(path): posixpath.splitext's extension. The last '.'
 * of the file name counts only when a character other than '.' comes
 * before it in the name (".bashrc" and "..x" have none). */
static bool lib_path_extension(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  const char *s = lib_str(args[0], &n);
  size_t name = after_last_slash(s, n);
  const char *dot = memrchr(s + name, '.', n - name);
  if (dot) {
    size_t d = (size_t)(dot - s);
    for (size_t i = name; i < d; i++)
      if (s[i] != '.') return vm_string(vm, dot, n - d, out);
  }
  return vm_string(vm, "", 0, out);
}

/* path_is_absolute(path): starts with '/', or a drive form "X:/" where X
 * is a letter (Python str.isalpha, so "é:/" counts too). */
static bool lib_path_is_absolute(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, i = 0;
  const char *s = lib_str(args[0], &n);
  bool abs = n > 0 && s[0] == '/';
  if (!abs && n > 0) {
    int32_t c = lib_utf8_next(s, n, &i);
    abs = lib_is_alpha(c) && n - i >= 2 && s[i] == ':' && s[i + 1] == '/';
  }
  *out = v_bool(abs);
  return true;
}

const BuiltinDef lib_path_builtins[] = {
    {"path_extension", "(path: String) -> String", 0, NULL, 0,  lib_path_extension, "$b_path_extension"},
    {"path_filename", "(path: String) -> String", 0, NULL, 0,  lib_path_filename, "$b_path_filename"},
    {"path_is_absolute", "(path: String) -> Bool", 0, NULL, 0,  lib_path_is_absolute, "$b_path_is_absolute"},
    {"path_join", "(base: String, child: String) -> String", 0, NULL, 0,  lib_path_join, "$b_path_join"},
    {"path_parent", "(path: String) -> String", 0, NULL, 0,  lib_path_parent, "$b_path_parent"},
};
const size_t lib_path_builtin_count = ARRAY_LEN(lib_path_builtins);
