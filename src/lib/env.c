/* Environment builtins (capability env): env_get, env_get_or, cli_args.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <stdlib.h>
#include <unistd.h>

#include <geno.h>

#include "../base/utf8.h"
#include "../vm/vmapi.h"
#include "families.h"

/* A String from host bytes that need not be UTF-8 (environment values,
 * command-line arguments): each invalid byte becomes U+FFFD. */
static bool host_string(VM *vm, const char *s, size_t n, Value *out) {
  size_t bad;
  if (utf8_valid(s, n, &bad)) return vm_string(vm, s, n, out);
  Buf b = BUF_INIT;
  for (size_t i = 0; i < n;) {
    int32_t cp;
    int k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
    if (k <= 0) {
      buf_puts(&b, "\xef\xbf\xbd");
      i++;
    } else {
      buf_append(&b, s + i, (size_t)k);
      i += (size_t)k;
    }
  }
  bool ok = b.failed ? vm_error(vm, E_RESOURCE, "out of memory") : vm_string(vm, b.data ? b.data : "", b.len, out);
  buf_free(&b);
  return ok;
}

/* The value of the environment variable named by a String, or NULL. A
 * name containing '=' or NUL cannot name a variable (Python's os.environ
 * has no such key). The name is not NUL-terminated, so environ is
 * searched directly. */
static const char *env_lookup(Value name) {
  size_t n;
  const char *s = vm_str_bytes(name, &n);
  if (n == 0 || memchr(s, '=', n) || memchr(s, '\0', n)) return NULL;
  for (char **e = environ; e && *e; e++)
    if (strncmp(*e, s, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  return NULL;
}

/* env_get(name) -> Option[String]. */
static bool lib_env_get(VM *vm, Value *args, int nargs, Value *out) {
  const char *v = env_lookup(args[0]);
  if (!v) {
    *out = vm_none(vm);
    return true;
  }
  return host_string(vm, v, strlen(v), out) && vm_some(vm, *out, out);
}

/* env_get_or(name, default) -> String. */
static bool lib_env_get_or(VM *vm, Value *args, int nargs, Value *out) {
  const char *v = env_lookup(args[0]);
  if (!v) {
    *out = args[1];
    return true;
  }
  return host_string(vm, v, strlen(v), out);
}

/* cli_args() -> List[String]: the program arguments the host gave
 * (geno_config.cli_args; the CLI passes what follows `--`). */
static bool lib_cli_args(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  const char *const *argv = vm_program_args(vm, &n);
  Value item = v_unit();
  vm_push_root(vm, &item);
  bool ok = vm_check_size(vm, "List", n) && vm_list(vm, 0, out);
  for (size_t i = 0; ok && i < n; i++) {
    const char *a = argv[i];
    ok = host_string(vm, a, strlen(a), &item) && vm_list_push(vm, out, item);
  }
  vm_pop_roots(vm, 1);
  return ok;
}

const BuiltinDef lib_env_builtins[] = {
    {"cli_args", "() -> List[String]", GENO_CAP_ENV, "env", 0, lib_cli_args, "$b_cli_args"},
    {"env_get", "(name: String) -> Option[String]", GENO_CAP_ENV, "env", 0, lib_env_get, "$b_env_get"},
    {"env_get_or", "(name: String, default: String) -> String", GENO_CAP_ENV, "env", 0, lib_env_get_or, "$b_env_get_or"},
};
const size_t lib_env_builtin_count = ARRAY_LEN(lib_env_builtins);
