/* Conversion between VM values and the public geno_value (results and
 * host-callback arguments), and the bridge that runs BF_CALLBACK builtins
 * through the host's geno_callback functions. */
#ifndef GENO_RUNTIME_HOSTCONV_H
#define GENO_RUNTIME_HOSTCONV_H

#include <geno.h>

#include "../vm/vm.h"

/* [m] A self-contained copy of v; NULL when out of memory, when v nests
 * deeper than GENO_VALUE_MAX_DEPTH (then *too_deep, if given, is true), or
 * when the copy would pass the run's memory budget left (memory_bytes less
 * the live heap: every path of a shared value is copied) or its step limit
 * or deadline (each node is charged as work); then *too_big, if given, is
 * true, and for the step limit and deadline their error is raised. */
geno_value *rt_value_to_host(VM *vm, Value v, bool *too_deep, bool *too_big);
/* Sets the budget rt_value_to_host draws from to the run's memory budget
 * left; several conversions that live at once share one start. */
void rt_host_room_start(VM *vm);
/* A VM value from a host value: built-in constructors are checked against
 * their declared fields. False with an error raised in vm. */
bool rt_value_from_host(VM *vm, const geno_value *hv, Value *out);
/* Whether host value hv has the return type written in builtin signature
 * `sig` ("(path: String) -> Result[String, String]"). When it does not,
 * false, with the first mismatch described in why[0..whylen). */
bool rt_host_result_conforms(const char *sig, const geno_value *hv, char *why, size_t whylen);
/* VM.host_call: run builtin `def` through the host callback of that name
 * (E413 when the host did not provide one). A result whose type is not
 * the builtin's return type is a runtime error (E499). */
bool rt_host_call(VM *vm, const struct BuiltinDef *def, Value *args, int nargs, Value *out);

#endif
