#!/usr/bin/env python3
"""The source map and the TypeScript declarations of `geno compile --target js`.

Compiles a program of two modules with --esm --source-map, decodes the map's
VLQ mappings and checks that the generated line of each function and
statement maps to the module, line and column where it is written, that
the prelude's lines map to nothing, that the map names the script and
embeds the sources, and that the .d.ts declares every exported function
with the runtime's types. Then runs the module under node (when present)
and imports it from another module to call an exported function.

Usage: js_source_map.py --geno PATH [--node node]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

MAIN = """import Geometry

type Shape = Circle(r: Float) | Square(side: Float)
type Odd = Odd(__proto__: Int)

func area(s: Shape) -> Float
    example Circle(1.0) -> 3.14159
    return match s with
        | Circle(r) -> 3.14159 * r * r
        | Square(side) -> side * side
    end match
end func

func pair(a: Int, b: String) -> (Int, String)
    example 1, "x" -> (1, "x")
    return (a, b)
end func

func first(xs: List[Int]) -> Option[Int]
    example [1] -> Some(1)
    if length(xs) == 0 then
        return None
    end if
    return Some(xs[0])
end func

func main() -> Unit
    let x = Geometry.twice(21)
    print(area(Circle(2.0)))
    print(pair(x, "y"))
end func
"""

GEOMETRY = """func twice(n: Int) -> Int
    example 2 -> 4
    let m = n * 2
    return m
end func
"""


def decode(mappings):
    """Source Map V3 mappings -> {generated line: (source, line, col)} (0-based)."""
    out, src, line, col = {}, 0, 0, 0
    for gen, group in enumerate(mappings.split(";")):
        for seg in filter(None, group.split(",")):
            vals, shift, acc = [], 0, 0
            for ch in seg:
                d = B64.index(ch)
                acc += (d & 31) << shift
                if d & 32:
                    shift += 5
                    continue
                vals.append(-(acc >> 1) if acc & 1 else acc >> 1)
                acc, shift = 0, 0
            if len(vals) >= 4:
                src, line, col = src + vals[1], line + vals[2], col + vals[3]
                assert vals[0] == 0, "every mapping starts at column 0"
                out.setdefault(gen, (src, line, col))
    return out


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geno", required=True)
    ap.add_argument("--node", default="node")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "main.geno"), "w") as f:
            f.write(MAIN)
        with open(os.path.join(tmp, "Geometry.geno"), "w") as f:
            f.write(GEOMETRY)
        out = os.path.join(tmp, "out.mjs")
        p = subprocess.run([args.geno, "compile", "--target", "js", "--esm", "--source-map", "-o", out,
                            os.path.join(tmp, "main.geno")], capture_output=True, text=True)
        if p.returncode != 0:
            fail("compile: " + p.stderr)
        js = open(out, encoding="utf-8").read().split("\n")
        smap = json.load(open(out + ".map", encoding="utf-8"))
        if smap["version"] != 3 or smap["file"] != "out.mjs":
            fail("map header: %r" % {k: smap[k] for k in ("version", "file")})
        if not js[-2].startswith("//# sourceMappingURL=out.mjs.map"):
            fail("no sourceMappingURL comment at the end: %r" % js[-2:])
        names = [os.path.basename(s) for s in smap["sources"]]
        if names != ["main.geno", "Geometry.geno"] or smap["sourcesContent"] != [MAIN, GEOMETRY]:
            fail("sources: %r" % names)
        m = decode(smap["mappings"])
        sources = [MAIN.split("\n"), GEOMETRY.split("\n")]

        def where(pattern):
            for i, line in enumerate(js):
                if re.search(pattern, line):
                    return i
            fail("no generated line matches %r" % pattern)

        checks = [
            (r"function f_area\(", 0, "func area("),
            (r"function \S*twice\(", 1, "func twice("),
            (r"const v_m = ", 1, "let m = n * 2"),
            (r"return \$None", 0, "return None"),
            (r"\$b_print\(.*f_area", 0, "print(area(Circle(2.0)))"),
            (r"\$b_print\(.*f_pair", 0, "print(pair(x, \"y\"))"),
        ]
        for pattern, src, text in checks:
            gen = where(pattern)
            if gen not in m:
                fail("generated line %d (%r) has no mapping" % (gen + 1, js[gen]))
            s, line, col = m[gen]
            want_line = next(i for i, l in enumerate(sources[src]) if text in l)
            want_col = sources[src][want_line].index(text)
            if (s, line, col) != (src, want_line, want_col):
                fail("%r maps to %r, want %r" % (js[gen].strip(), (s, line, col), (src, want_line, want_col)))
        prelude_end = where(r"function \$fail\(")
        if prelude_end in m:
            fail("a prelude line is mapped")
        print("source map: %d mapped lines checked" % len(checks))

        dts = open(os.path.join(tmp, "out.d.mts"), encoding="utf-8").read()
        for decl in ["export declare function area(s: Shape): number;",
                     "export declare function pair(a: bigint, b: string): GenoTuple<[bigint, string]>;",
                     "export declare function first(xs: ReadonlyArray<bigint>): GenoOption<bigint>;",
                     "export declare function main(): void;",
                     '| { readonly $n: "Circle"; readonly r: number }',
                     # the property a field named __proto__ has in JavaScript
                     '| { readonly $n: "Odd"; readonly "__proto__$": bigint }']:
            if decl not in dts:
                fail(".d.ts lacks %r:\n%s" % (decl, dts))
        print(".d.ts: declarations checked")

        node = shutil.which(args.node)
        if not node:
            print("node not installed: the module was not run")
            return 0
        r = subprocess.run([node, out, "--cap", "print"], capture_output=True, text=True)
        if r.stdout != "12.56636\n(42, \"y\")\n":
            fail("node run: %r %r" % (r.stdout, r.stderr))
        user = os.path.join(tmp, "user.mjs")
        with open(user, "w") as f:
            f.write('import { pair, first } from "./out.mjs";\n'
                    'const t = pair(7n, "z");\n'
                    'console.log(t.a[0] === 7n, t.a[1], first([]).$n, first([5n]).value === 5n);\n')
        r = subprocess.run([node, user], capture_output=True, text=True)
        if r.stdout != "true z None true\n":
            fail("importing the module: %r %r" % (r.stdout, r.stderr))
        print("node: the module runs and its exports match the declarations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
