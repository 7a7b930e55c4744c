/* Output builtin (capability print): print, the only way a program writes
 * text.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include "families.h"

/* print(value: T) -> Unit: the canonical rendering (a top-level String
 * raw) and a newline, counted against max_output_length (E505). */
static bool lib_print(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_unit();
  return vm_print(vm, args[0]);
}

const BuiltinDef lib_io_builtins[] = {
    {"print", "(value: T) -> Unit", GENO_CAP_PRINT, "io", 0, lib_print, "$b_print"},
};
const size_t lib_io_builtin_count = ARRAY_LEN(lib_io_builtins);
