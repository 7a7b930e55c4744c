#!/usr/bin/env python3
"""The source map and the TypeScript declarations of `geno compile --target js`.

Compiles a program of two modules with --esm --source-map, decodes the map's
VLQ mappings and checks that the generated line of each function and
statement maps to the module, line and column where it is written, that
the prelude's lines map to nothing, that the map names the script and
embeds the sources, and that the .d.ts declares every exported function
with the runtime's types. The same mappings are checked for `geno build
--source-map`: dist/app.js with app.js.map beside it, and one HTML file
whose inline script carries the map as a data: URL (lines counted from
the <script> element). Then runs the module under node (when present)
and imports it from another module to call an exported function.

Usage: js_source_map.py --geno PATH [--node node]
"""
import argparse
import base64
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


CHECKS = [
    (r"function f_area\(", 0, "func area("),
    (r"function \S*twice\(", 1, "func twice("),
    (r"const v_m = ", 1, "let m = n * 2"),
    (r"return \$None", 0, "return None"),
    (r"\$b_print\(.*f_area", 0, "print(area(Circle(2.0)))"),
    (r"\$b_print\(.*f_pair", 0, "print(pair(x, \"y\"))"),
]


def check_lines(js, smap, what):
    """Each line of CHECKS in the generated lines js maps to its module,
    line and column; the prelude maps to nothing."""
    m = decode(smap["mappings"])
    sources = [MAIN.split("\n"), GEOMETRY.split("\n")]
    names = [os.path.basename(s) for s in smap["sources"]]
    if names != ["main.geno", "Geometry.geno"] or smap["sourcesContent"] != [MAIN, GEOMETRY]:
        fail("%s: sources: %r" % (what, names))

    def where(pattern):
        for i, line in enumerate(js):
            if re.search(pattern, line):
                return i
        fail("%s: no generated line matches %r" % (what, pattern))

    for pattern, src, text in CHECKS:
        gen = where(pattern)
        if gen not in m:
            fail("%s: generated line %d (%r) has no mapping" % (what, gen + 1, js[gen]))
        s, line, col = m[gen]
        want_line = next(i for i, l in enumerate(sources[src]) if text in l)
        want_col = sources[src][want_line].index(text)
        if (s, line, col) != (src, want_line, want_col):
            fail("%s: %r maps to %r, want %r" % (what, js[gen].strip(), (s, line, col), (src, want_line, want_col)))
    if where(r"function \$fail\(") in m:
        fail("%s: a prelude line is mapped" % what)
    print("%s: source map, %d mapped lines checked" % (what, len(CHECKS)))


def check_build(geno, tmp):
    """`geno build --source-map`: app.js.map beside app.js, or the map
    inline in the one page."""
    dist = os.path.join(tmp, "dist")
    p = subprocess.run([geno, "build", "--source-map", "-o", dist, os.path.join(tmp, "main.geno")],
                       capture_output=True, text=True)
    if p.returncode != 0 or "app.js.map" not in p.stdout:
        fail("build --source-map: %r %r" % (p.stdout, p.stderr))
    js = open(os.path.join(dist, "app.js"), encoding="utf-8").read().split("\n")
    if js[-2] != "//# sourceMappingURL=app.js.map":
        fail("build: no sourceMappingURL comment at the end of app.js: %r" % js[-2:])
    smap = json.load(open(os.path.join(dist, "app.js.map"), encoding="utf-8"))
    if smap["version"] != 3 or smap["file"] != "app.js":
        fail("build: map header: %r" % {k: smap[k] for k in ("version", "file")})
    check_lines(js, smap, "build (dist)")
    page_path = os.path.join(tmp, "page.html")
    p = subprocess.run([geno, "build", "--source-map", "-o", page_path, os.path.join(tmp, "main.geno")],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("build --single-file --source-map: %r" % p.stderr)
    page = open(page_path, encoding="utf-8").read()
    script = page[page.index("<script>") + len("<script>"):page.index("</script>")]
    lines = script.split("\n")
    prefix = "//# sourceMappingURL=data:application/json;charset=utf-8;base64,"
    if not lines[-2].startswith(prefix):
        fail("build page: no inline source map at the end of the script: %r" % lines[-2][:80])
    smap = json.loads(base64.b64decode(lines[-2][len(prefix):]))
    check_lines(lines, smap, "build (one page)")


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
        check_lines(js, smap, "compile --esm")

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
        check_build(args.geno, tmp)

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
