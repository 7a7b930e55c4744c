#!/usr/bin/env python3
"""Deep recursion in compiled JavaScript: `geno compile --target js
--max-recursion-depth N` output reaches the depth the VM reaches under the
same limit, though Node's default stack holds only some thousands of calls
(the script runs itself again in a child node with a --stack-size that fits
N; src/js/prelude/core.js, $restack). Checks the value, the E502 past the
limit, arguments and capabilities passed through, the exit status, the
ESM form, and that a node started with its own --stack-size is left alone.

Usage: js_recursion_depth.py --geno PATH [--node node]
Exit status: 0 pass, 1 fail, 77 skipped (node not installed).
"""
import os
import subprocess
import sys
import tempfile

import js_common

PROGRAM = """func depth(n: Int) -> Int
    example 0 -> 0
    if n == 0 then
        return 0
    end if
    return 1 + depth(n - 1)
end func

func main() -> Int with io, env
    print(cli_args())
    match parse_int(cli_args()[0]) with
    | Some(n) -> return depth(n)
    | None -> return 0
    end match
end func
"""


def main():
    tools = js_common.geno_and_node()
    if tools is None:
        return 77
    geno, node = tools
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "deep.geno")
        with open(src, "w") as f:
            f.write(PROGRAM)
        outs = {}
        for name in ("deep.js", "deep.mjs"):
            out = os.path.join(tmp, name)
            esm = ["--esm"] if name.endswith(".mjs") else []
            p = subprocess.run([geno, "compile", "--target", "js", "--max-recursion-depth", "10000", "-o", out] + esm + [src],
                               capture_output=True, text=True)
            if p.returncode != 0:
                print("FAIL: compile %s: %s" % (name, p.stderr))
                return 1
            outs[name] = out
        # (node flags, depth argument, expected stdout, expected error text or None)
        cases = [
            ([], "9000", '["9000"]\n=> 9000\n', None),
            ([], "9998", '["9998"]\n=> 9998\n', None),
            ([], "9999", '["9999"]\n', "error[E502]: Maximum recursion depth exceeded (10000)"),
            (["--stack-size=984"], "9000", '["9000"]\n', "error[E502]: Maximum recursion depth exceeded"),
        ]
        for _, n, want_out, want_err in cases[:3]:  # the VM agrees
            vm = subprocess.run([geno, "run", "--max-recursion-depth", "10000", "--cap", "print,env", src, "--", n],
                                capture_output=True, text=True, timeout=120)
            if vm.stdout != want_out or (want_err and want_err not in vm.stderr):
                failures.append("geno run depth %s: %r %r" % (n, vm.stdout, vm.stderr[-300:]))
        for name, out in outs.items():
            for flags, n, want_out, want_err in cases:
                p = subprocess.run([node] + flags + [out, "--cap", "print,env", "--", n], capture_output=True,
                                   text=True, timeout=120)
                want_rc = 1 if want_err else 0
                if p.stdout != want_out or p.returncode != want_rc or (want_err and want_err not in p.stderr):
                    failures.append("%s %s depth %s: rc %d, stdout %r, stderr %r" % (
                        name, " ".join(flags), n, p.returncode, p.stdout, p.stderr[-300:]))
        # a capability not granted is refused in the child as in a plain run
        p = subprocess.run([node, outs["deep.js"], "--cap", "print", "--", "5"], capture_output=True, text=True,
                           timeout=120)
        if p.returncode != 1 or "error[E412]" not in p.stderr:
            failures.append("no env capability: rc %d, %r" % (p.returncode, p.stderr[-300:]))
    for f in failures:
        print("FAIL: " + f)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
