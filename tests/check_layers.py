#!/usr/bin/env python3
"""The layer rule of docs/ARCHITECTURE.md, checked on the sources and on
the objects built from them.

Layers, lowest first (a folder may use its own layer and those below it,
never one above; folders on the same rank do not use each other):

    base <- syntax <- check <- vm <- lib <- runtime <- sandbox, host
         <- server <- cli      (`geno serve` starts the server)

Two checks:
- includes: every `#include "..."` of src/**/*.{c,h} that names a file of
  another folder under src/ (relative to the including file, or to src/);
- symbols (with --build): for every object file a target built from
  src/<folder>/, the symbols it uses (nm: U) must not be defined by an
  object of a folder above it.

Exit status 0 when there is no back edge, 1 with one line per back edge.
`--self-test` first builds a small tree with one back edge of each kind
and fails unless both are found."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

RANK = {
    "base": 0,
    "syntax": 1,
    "check": 2,
    "vm": 3,
    "lib": 4,
    "js": 5,
    "runtime": 6,
    "sandbox": 7,
    "host": 7,
    "spawner": 8,
    "server": 8,
    "cli": 9,
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path, src):
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(src))
    if rel.startswith(".."):
        return None
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else None


def check_folders(src):
    bad = []
    for name in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, name)) and name not in RANK:
            bad.append(f"src/{name}: no layer; add it to RANK in tests/check_layers.py "
                       "and to docs/ARCHITECTURE.md")
    return bad


def check_includes(src):
    bad = []
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".inc")):
                continue
            path = os.path.join(root, f)
            here = folder_of(path, src)
            if here not in RANK:
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for m in INCLUDE.finditer(text):
                name = m.group(1)
                target = os.path.join(root, name)
                if not os.path.exists(target):
                    target = os.path.join(src, name)
                    if not os.path.exists(target):
                        continue  # a system or generated header
                there = folder_of(target, src)
                if there is None or there == here or there not in RANK:
                    continue
                if RANK[there] >= RANK[here]:
                    line = text.count("\n", 0, m.start()) + 1
                    rel = os.path.relpath(path, os.path.dirname(src))
                    bad.append(f"{rel}:{line}: {here} includes {name} of {there}, "
                               f"which is {'above' if RANK[there] > RANK[here] else 'beside'} it")
    return bad


def objects(build, src=None):
    """(folder, path) of every object built from src/<folder>/ (with src:
    only from a source file that still exists, not a stale object)."""
    found = []
    for root, _, files in os.walk(build):
        for f in files:
            if not f.endswith(".o"):
                continue
            path = os.path.join(root, f)
            parts = path.split(os.sep)
            if "src" in parts:
                i = len(parts) - 1 - parts[::-1].index("src")
                if i + 2 < len(parts) and parts[i + 1] in RANK and parts[i - 1].endswith(".dir"):
                    source = os.path.join(*parts[i + 1:])[: -len(".o")]
                    if src is None or os.path.exists(os.path.join(src, source)):
                        found.append((parts[i + 1], path))
    return found


def nm_all(paths):
    """{path: (defined, used)} for every object, from one nm run."""
    out = subprocess.run(["nm", "-P", "-A"] + paths, capture_output=True, text=True, check=True).stdout
    tables = {p: (set(), set()) for p in paths}
    for line in out.splitlines():
        head, _, rest = line.partition(": ")
        fields = rest.split()
        if head not in tables or len(fields) < 2:
            continue
        sym, kind = fields[0], fields[1]
        if kind == "U":
            tables[head][1].add(sym)
        elif kind.isupper():
            tables[head][0].add(sym)
    return tables


def check_symbols(build, src=None):
    objs = objects(build, src)
    if not objs:
        return [f"{build}: no objects built from src/ (build first)"], 0
    syms = nm_all([path for _, path in objs])
    owner = {}
    for folder, path in objs:
        for s in syms[path][0]:
            owner.setdefault(s, folder)
    bad = []
    for folder, path in sorted(objs):
        for s in sorted(syms[path][1]):
            there = owner.get(s)
            if there and there != folder and RANK[there] >= RANK[folder]:
                bad.append(f"{os.path.basename(path)} ({folder}) uses {s}, defined in {there}")
    return bad, len(objs)


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        for d in ("base", "vm"):
            os.makedirs(os.path.join(src, d))
        with open(os.path.join(src, "vm", "up.h"), "w") as f:
            f.write("int vm_up(void);\n")
        with open(os.path.join(src, "vm", "up.c"), "w") as f:
            f.write('#include "up.h"\nint vm_up(void) { return 1; }\n')
        with open(os.path.join(src, "base", "low.c"), "w") as f:
            f.write('#include "../vm/up.h"\nint base_low(void);\nint base_low(void) { return vm_up(); }\n')
        build = os.path.join(tmp, "build", "CMakeFiles", "t.dir", "src")
        for d, name in (("base", "low"), ("vm", "up")):
            os.makedirs(os.path.join(build, d), exist_ok=True)
            subprocess.run(["cc", "-c", os.path.join(src, d, name + ".c"), "-o",
                            os.path.join(build, d, name + ".c.o")], check=True)
        inc = check_includes(src)
        sym, _ = check_symbols(os.path.join(tmp, "build"), src)
        ok = any("base includes ../vm/up.h" in b for b in inc) and any("uses vm_up" in b for b in sym)
        if not ok:
            print("self-test: a planted back edge was not found", inc, sym)
        return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="the src/ folder")
    ap.add_argument("--build", help="a build folder whose objects are checked with nm")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test and not self_test():
        return 1
    bad = check_folders(a.src) + check_includes(a.src)
    nobj = 0
    if a.build:
        sym, nobj = check_symbols(a.build, a.src)
        bad += sym
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} back edge(s)")
        return 1
    print(f"layers: no back edge (includes of src/; {nobj} objects' symbols)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
