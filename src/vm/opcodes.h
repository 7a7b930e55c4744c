/* The Geno VM instruction set, described once (X-macro).
 *
 * Each instruction is 8 bytes (struct Insn in chunk.h):
 *   op:8  w:8  a:16  then either b:16 c:16, or a signed 32-bit sbx / bx.
 * Registers R[x] are the current frame's slots; K[x] the function's
 * constants; N[x] a field name from the image's name table.
 *
 * `w` is the step weight: the number of AST statements and expressions the
 * compiler folded into this point. Only instructions marked CHECKS add w to
 * the step counter and test the step/deadline limits; the compiler moves
 * the weight of straight-line code onto the next such instruction (every
 * loop back-edge and call is one), so the count matches the reference's
 * statement+expression count while costing nothing on other instructions.
 *
 * Every instruction that can jump carries weight (checks = 1): weight
 * waiting on straight-line code must never be skipped by a branch.
 *
 * A "+X" in the format means the instruction is followed by one EXTRA word
 * (its sbx is a jump offset, relative to the instruction after the EXTRA).
 *
 * Columns: name, format, checks limits (1/0), semantics. Include this file
 * with OPCODE(name, fmt, checks) defined; the comment column is the
 * documentation. The columns drive the code: the compiler gives weight
 * only to instructions whose `checks` is 1 and writes an EXTRA word after
 * every "+X" format (vm_op_checks, vm_op_formats in chunk.h), and the
 * `opcodes` test (tests/check_opcodes.py) holds the dispatch loop's
 * CHARGE() calls to the same column. */

/* ---- loads and moves ---- */
OPCODE(MOVE, "AB", 0)        /* R[a] = R[b] */
OPCODE(LOADK, "ABx", 0)      /* R[a] = K[bx] */
OPCODE(LOADI, "AsBx", 0)     /* R[a] = Int(sbx) */
OPCODE(LOADU, "AB", 0)       /* R[a] = (); b = 1: a written `()` (v_unit_written) */
OPCODE(LOADB, "AB", 0)       /* R[a] = Bool(b) */
OPCODE(LOADMISS, "A", 0)     /* R[a] = MISSING (an argument left to its default) */
OPCODE(LOADCTOR, "ABx", 0)   /* R[a] = the field-less constructor bx */
OPCODE(GETFN, "ABx", 0)      /* R[a] = value of top-level function bx */
OPCODE(GETBUILTIN, "ABx", 0) /* R[a] = value of builtin bx (table index) */
OPCODE(CLOSURE, "ABx", 0)    /* R[a] = new closure of nested proto bx, capturing its upvalues */
OPCODE(GETUPV, "AB", 0)      /* R[a] = Up[b] */
OPCODE(GETUPVC, "AB", 0)     /* R[a] = Up[b].cell */
OPCODE(SETUPVC, "AB", 0)     /* Up[b].cell = R[a] */
OPCODE(NEWCELL, "A", 0)      /* R[a] = new cell holding R[a] (a captured `var`) */
OPCODE(GETCELL, "AB", 0)     /* R[a] = R[b].cell */
OPCODE(SETCELL, "AB", 0)     /* R[a].cell = R[b] */
OPCODE(PROMOTE, "A", 0)      /* if R[a] is an Int: R[a] = Float(R[a]) */

/* ---- arithmetic, comparison, logic (Int fast paths inline) ---- */
OPCODE(ADD, "ABC", 0)   /* R[a] = R[b] + R[c] (numbers; String concatenation) */
OPCODE(ADDI, "ABsC", 0) /* R[a] = R[b] + sc */
OPCODE(ADDK, "ABC", 0)  /* R[a] = R[b] + K[c] */
OPCODE(SUB, "ABC", 0)   /* R[a] = R[b] - R[c] */
OPCODE(SUBK, "ABC", 0)  /* R[a] = R[b] - K[c] */
OPCODE(MUL, "ABC", 0)   /* R[a] = R[b] * R[c] */
OPCODE(MULK, "ABC", 0)  /* R[a] = R[b] * K[c] */
OPCODE(DIV, "ABC", 0)   /* R[a] = R[b] / R[c] (Int: truncating; E400 on zero) */
OPCODE(DIVK, "ABC", 0)  /* R[a] = R[b] / K[c] */
OPCODE(MOD, "ABC", 0)   /* R[a] = R[b] % R[c] (sign of the dividend; E400 on zero) */
OPCODE(MODK, "ABC", 0)  /* R[a] = R[b] % K[c] */
OPCODE(POW, "ABC", 0)   /* R[a] = R[b] ** R[c] */
OPCODE(BAND, "ABC", 0)  /* R[a] = R[b] & R[c] */
OPCODE(BXOR, "ABC", 0)  /* R[a] = R[b] ^ R[c] */
OPCODE(SHL, "ABC", 0)   /* R[a] = R[b] << R[c] */
OPCODE(SHR, "ABC", 0)   /* R[a] = R[b] >> R[c] (arithmetic) */
OPCODE(NEG, "AB", 0)    /* R[a] = -R[b] */
OPCODE(BNOT, "AB", 0)   /* R[a] = ~R[b] */
OPCODE(NOT, "AB", 0)    /* R[a] = not R[b] */
OPCODE(EQ, "ABC", 0)    /* R[a] = R[b] == R[c] (structural; 1 == 1.0) */
OPCODE(NE, "ABC", 0)    /* R[a] = R[b] != R[c] */
OPCODE(LT, "ABC", 0)    /* R[a] = R[b] < R[c] (numbers, or Strings by code point) */
OPCODE(LE, "ABC", 0)    /* R[a] = R[b] <= R[c] */
OPCODE(TOSTR, "AB", 0)  /* R[a] = to_string(R[b]) (top-level String unchanged) */
OPCODE(CONCATN, "ABC", 0) /* R[a] = R[b] ++ ... ++ R[b+c-1] (Strings; f-strings) */

/* ---- control flow (all check limits) ---- */
OPCODE(STEP, "", 1)         /* charge w steps */
OPCODE(JMP, "sBx", 1)       /* ip += sbx */
OPCODE(JMPIF, "AsBx", 1)    /* if R[a] then ip += sbx */
OPCODE(JMPIFNOT, "AsBx", 1) /* if not R[a] then ip += sbx */
OPCODE(JLT, "ABC+X", 1)     /* if (R[a] < R[b]) == c then jump */
OPCODE(JLE, "ABC+X", 1)     /* if (R[a] <= R[b]) == c then jump */
OPCODE(JEQ, "ABC+X", 1)     /* if (R[a] == R[b]) == c then jump (structural) */
OPCODE(JLTI, "AsBC+X", 1)   /* if (R[a] < sb) == c then jump */
OPCODE(JLEI, "AsBC+X", 1)   /* if (R[a] <= sb) == c then jump */
OPCODE(JGTI, "AsBC+X", 1)   /* if (R[a] > sb) == c then jump */
OPCODE(JGEI, "AsBC+X", 1)   /* if (R[a] >= sb) == c then jump */
OPCODE(JEQI, "AsBC+X", 1)   /* if (R[a] == sb) == c then jump */
OPCODE(JLTK, "ABC+X", 1)    /* if (R[a] < K[b]) == c then jump */
OPCODE(JLEK, "ABC+X", 1)    /* if (R[a] <= K[b]) == c then jump */
OPCODE(JGTK, "ABC+X", 1)    /* if (R[a] > K[b]) == c then jump */
OPCODE(JGEK, "ABC+X", 1)    /* if (R[a] >= K[b]) == c then jump */
OPCODE(JEQK, "ABC+X", 1)    /* if (R[a] == K[b]) == c then jump */
OPCODE(FORPREP, "A", 0)     /* R[a] must be a List or Array (snapshotted as a List); R[a+1] = 0 */
OPCODE(FORITER, "A+X", 1)   /* R[a] list, R[a+1] index: if index < length: R[a+2] = item, index++; else jump */
OPCODE(EXTRA, "sBx", 0)     /* operand word of the preceding instruction; never executed */

/* ---- calls ---- */
OPCODE(CALL, "AB", 1)       /* R[a] = R[a](R[a+1] .. R[a+b]) */
OPCODE(CALLG, "ABC", 1)     /* R[a] = function c (R[a+1] .. R[a+b]) */
OPCODE(CALLB, "ABC", 1)     /* R[a] = builtin c (R[a+1] .. R[a+b]); capability gate */
OPCODE(CALLBO, "ABC", 1)    /* CALLB of an Option-returning builtin under a match: R[a] = the payload of Some,
                               MISSING for None (the Some is never allocated; see cg_match) */
OPCODE(MMGETO, "ABC", 1)    /* CALLBO of mutable_map_get/map_get, done inline: R[a] = the value of key R[c] in
                               table R[b], MISSING if absent (fuse_option_call) */
OPCODE(MMSET, "ABC", 1)     /* statement mutable_map_set(R[a], R[b], R[c]), done inline; no result */
OPCODE(TCALL, "ABC", 1)     /* R[a] = trait method c dispatched on R[a+1]'s type */
OPCODE(RET, "A", 1)         /* return R[a] */
OPCODE(RETU, "A", 1)        /* return (); a = 1: a bare `return` (v_unit_written) */
OPCODE(TESTARG, "AsBx", 1)  /* if R[a] is not MISSING then ip += sbx (skip the default) */
OPCODE(AWAIT, "AB", 1)      /* R[a] = run the async value R[b] (else R[b] itself) */

/* ---- data ---- */
OPCODE(NEWLIST, "ABC", 0)   /* R[a] = [R[b] .. R[b+c-1]] */
OPCODE(NEWTUPLE, "ABC", 0)  /* R[a] = (R[b] .. R[b+c-1]) */
OPCODE(NEWCTOR, "ABC", 0)   /* R[a] = constructor c (R[b] .. R[b+nfields-1]) */
OPCODE(APPEND, "AB", 0)     /* R[a] = R[a] ++ [R[b]] (comprehension builder) */
OPCODE(GETFIELD, "ABC", 0)  /* R[a] = R[b].N[c] */
OPCODE(WITHCOPY, "AB", 0)   /* R[a] = fresh copy of constructor R[b] */
OPCODE(SETFIELD, "ABC", 0)  /* R[a].N[c] = R[b] (R[a] is a fresh copy) */
OPCODE(INDEX, "ABC", 0)     /* R[a] = R[b][R[c]] (List, Array, String, Map) */
OPCODE(SETINDEX, "ABC", 0)  /* R[a][R[b]] = R[c]: in place for Array/Vec/MutableMap, else R[a] = updated copy */
OPCODE(GETTUPLE, "ABC", 0)  /* R[a] = R[b].items[c] (tuple destructuring; checks shape) */

/* ---- patterns ---- */
OPCODE(TESTCTOR, "AC+X", 1) /* if R[a] is not constructor c then jump */
OPCODE(TESTOPT, "AC+X", 1)  /* R[a] from CALLBO: if it is not Some (c=0) / not None (c=1) then jump */
OPCODE(GETFLDI, "ABC", 0)   /* R[a] = R[b].fields[c] */
OPCODE(TESTLIST, "ABC+X", 1) /* if R[a] is not a List of length b (c=0) or >= b (c=1) then jump */
OPCODE(GETLI, "ABC", 0)     /* R[a] = R[b].items[c] */
OPCODE(GETLE, "ABC", 0)     /* R[a] = R[b].items[length - c] */
OPCODE(LSLICE, "ABC+X", 0)  /* R[a] = R[b][c : length - x] (x = the EXTRA's bx) */
OPCODE(NOMATCH, "ABC", 0)   /* error: no arm matched R[a] (b=0 statement, 1 expression; c=1: R[a] is from CALLBO) */

/* ---- errors, contracts, misc ---- */
OPCODE(THROW, "A", 0)       /* throw R[a] (String: runtime error; constructor: typed throw) */
OPCODE(PROP, "AB+X", 1)     /* e?: Some(v)/Ok(v): R[a] = v, jump; None/Err: R[a] = it, fall into return */
OPCODE(HOLE, "ABx", 0)      /* error: unfilled typed hole N[bx] */
OPCODE(UNDEF, "ABx", 0)     /* error: undefined name N[bx] (only in unchecked programs) */
OPCODE(ASSERT, "A", 0)      /* error "Assertion failed" unless R[a] */
OPCODE(CHECKREQ, "A", 0)    /* contract: E407 unless R[a] */
OPCODE(CHECKENS, "AB", 0)   /* contract: E408 unless R[a] (R[b] = result) */
OPCODE(CHKBITS, "A", 0)     /* E504 unless the Int literal in R[a] fits max_integer_bits (only emitted for
                               literals the compiler found too large for the run's limit) */
