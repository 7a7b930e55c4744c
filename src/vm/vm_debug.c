/* Opcode names and a disassembler (in a debug build, GENO_DISASM=1 in the
 * environment of a `geno run` prints every compiled function). */
#include <stdio.h>

#include "chunk.h"

static const char *const op_names[BC__COUNT] = {
#define OPCODE(name, fmt, checks) #name,
#include "opcodes.h"
#undef OPCODE
};

const char *const vm_op_formats[BC__COUNT] = {
#define OPCODE(name, fmt, checks) fmt,
#include "opcodes.h"
#undef OPCODE
};

const bool vm_op_checks[BC__COUNT] = {
#define OPCODE(name, fmt, checks) checks,
#include "opcodes.h"
#undef OPCODE
};

const char *vm_op_name(int op) { return op >= 0 && op < BC__COUNT ? op_names[op] : "?"; }

void vm_disasm(const Proto *p, FILE *out) {
  fprintf(out, "function %s (%u params, %u registers, %u upvalues)\n", p->name ? p->name : "anonymous",
          p->nparams, p->nregs, p->nupvals);
  for (uint32_t pc = 0; pc < p->ncode; pc++) {
    Insn in = p->code[pc];
    const char *fmt = vm_op_formats[in.op];
    fprintf(out, "  %4u  [%d:%d] %-10s", pc, p->lines[pc].line, p->lines[pc].col, op_names[in.op]);
    if (in.w) fprintf(out, " w=%u", in.w);
    if (strstr(fmt, "Bx")) fprintf(out, " a=%u bx=%d", in.a, in.sbx);
    else if (strchr(fmt, 'A')) fprintf(out, " a=%u b=%u c=%u", in.a, in.b, in.c);
    else if (strstr(fmt, "sBx")) fprintf(out, " sbx=%d", in.sbx);
    fputc('\n', out);
  }
  for (uint32_t k = 0; k < p->nprotos; k++) vm_disasm(p->protos[k], out);
}
