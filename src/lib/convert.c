/* Conversion builtins: to_string, parse_int, parse_float, float/int
 * conversion and character codes.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include "families.h"

/* to_string(value: T) -> String: the canonical rendering; a String comes
 * back unchanged, nested Strings are quoted. The result is a String, so
 * the collection limit applies to its length ("to_string: String size
 * exceeds limit"). */
static bool lib_to_string(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  if (args[0].tag == T_STRING) {
    *out = args[0];
    return true;
  }
  Buf b = BUF_INIT;
  bool ok = vm_render_text(vm, args[0], false, &b, vm_max_size(vm), "to_string") &&
            vm_string(vm, b.data ? b.data : "", b.len, out);
  buf_free(&b);
  return ok;
}

const BuiltinDef lib_convert_builtins[] = {
    {"char_code", "(text: String) -> Int", 0, NULL, 0, NULL},
    {"float_to_int", "(value: Float) -> Int", 0, NULL, 0, NULL},
    {"from_char_code", "(code: Int) -> String", 0, NULL, 0, NULL},
    {"int_to_float", "(value: Int) -> Float", 0, NULL, 0, NULL},
    {"parse_float", "(text: String) -> Option[Float]", 0, NULL, 0, NULL},
    {"parse_int", "(text: String) -> Option[Int]", 0, NULL, 0, NULL},
    {"to_string", "(value: T) -> String", 0, NULL, 0, lib_to_string},
};
const size_t lib_convert_builtin_count = ARRAY_LEN(lib_convert_builtins);
