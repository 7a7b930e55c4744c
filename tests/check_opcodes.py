#!/usr/bin/env python3
"""The opcode table (src/vm/opcodes.h) against the dispatch loop
(src/vm/vm_exec.c): the handler of every instruction whose row says it
charges steps (checks = 1) calls CHARGE(), and no other handler does.
The compiler puts step weight only on those instructions (vm_op_checks),
so a handler that did not charge would lose steps, and one that charged
without its row saying so would never see weight.

Exit status 0 when they agree; 1 with one line per disagreement.
`--self-test` first checks that a planted disagreement is found."""
import argparse
import re
import sys

ROW = re.compile(r'^OPCODE\((\w+),\s*"([^"]*)",\s*([01])\)', re.M)
LABEL = re.compile(r'^(L_\w+):', re.M)


def table(text):
    return {name: checks == "1" for name, _, checks in ROW.findall(text)}


def charging(text):
    """Names of the handlers whose code calls CHARGE() (labels that fall
    into the same code share it)."""
    parts = LABEL.split(text)
    out, pending = {}, []
    for i in range(1, len(parts), 2):
        pending.append(parts[i][2:])
        body = parts[i + 1]
        if not body.strip():
            continue
        for name in pending:
            out[name] = "CHARGE()" in body
        pending = []
    return out


def compare(rows, handlers):
    bad = []
    for name, checks in sorted(rows.items()):
        if name not in handlers:
            bad.append(f"{name}: no handler L_{name} in vm_exec.c")
        elif checks and not handlers[name]:
            bad.append(f"{name}: its row charges steps but L_{name} never calls CHARGE()")
        elif not checks and handlers[name]:
            bad.append(f"{name}: L_{name} calls CHARGE() but its row says it does not charge")
    return bad


def self_test():
    rows = table('OPCODE(A, "A", 1)\nOPCODE(B, "A", 0)\n')
    ok = not compare(rows, charging("L_A:\n  CHARGE();\nL_B:\n  x();\n"))
    bad = compare(rows, charging("L_A:\nL_B:\n  x();\n"))
    return ok and len(bad) == 1 and "never calls CHARGE" in bad[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="the src/ folder")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test and not self_test():
        print("self-test: a planted disagreement was not found")
        return 1
    with open(f"{a.src}/vm/opcodes.h") as f:
        rows = table(f.read())
    with open(f"{a.src}/vm/vm_exec.c") as f:
        handlers = charging(f.read())
    bad = compare(rows, handlers)
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"opcodes: {len(rows)} rows, {sum(rows.values())} charging, all handlers agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
