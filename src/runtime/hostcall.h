/* Calls from the host back into the program (hostcall.c): lending
 * function values to host callbacks, and the end of the run that cuts
 * the links. geno_function_call itself is public (include/geno.h). */
#ifndef GENO_RUNTIME_HOSTCALL_H
#define GENO_RUNTIME_HOSTCALL_H

#include <geno.h>

#include "../vm/vm.h"

/* Lend function value fn (the argument number `arg` of builtin signature
 * `sig`, which declares its type) to the host: keep it rooted until the
 * run ends and give hv (its host copy) the run's link and its handle.
 * False with an error raised in vm (out of memory, too many functions). */
bool rt_host_lend(VM *vm, Value fn, const char *sig, int arg, geno_value *hv);
/* The run is over: every function lent by vm stops being callable. Call
 * before vm_free. */
void rt_host_links_end(VM *vm);

#endif
