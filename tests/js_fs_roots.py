#!/usr/bin/env python3
"""The filesystem roots of compiled JavaScript on Node: `node out.js --cap fs`
may read and write only inside the roots `geno run` allows (the current
directory, the script's directory, directories named by path-like program
arguments), whatever the path: absolute, climbing with `..`, or through a
symbolic link. The same program runs under `geno run` and under node in a
scratch directory; each attempt must give the same line, every escape must
be refused with the CLI's message, and no file may appear outside.

Usage: js_fs_roots.py --geno PATH [--node node]
Exit status: 0 pass, 1 fail, 77 skipped (node not installed).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

PROGRAM = """func attempt_read(path: String) -> String with fs
    example "inside.txt" -> "fine"
    try
        return fs_read_text(path)
    catch e: String
        return e
    end try
end func

func attempt_write(path: String) -> String with fs
    example "written.txt" -> "ok"
    try
        fs_write_text(path, "x")
        return "ok"
    catch e: String
        return e
    end try
end func

func attempt_exists(path: String) -> String with fs
    example "inside.txt" -> "true"
    try
        return to_string(fs_exists(path))
    catch e: String
        return e
    end try
end func

func main() -> Unit with io, fs
%s
end func
"""

ESCAPE = "path escapes configured filesystem roots"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geno", required=True)
    ap.add_argument("--node", default="node")
    args = ap.parse_args()
    node = shutil.which(args.node)
    if not node:
        print("SKIP: node is not installed")
        return 77
    geno = os.path.abspath(args.geno)
    failures = []
    with tempfile.TemporaryDirectory() as parent:
        tmp = os.path.join(parent, "work")
        os.mkdir(tmp)
        outside = os.path.join(parent, "outside.txt")
        with open(outside, "w") as f:
            f.write("secret")
        target = os.path.join(parent, "dangling-target.txt")
        with open(os.path.join(tmp, "inside.txt"), "w") as f:
            f.write("fine")
        os.mkdir(os.path.join(tmp, "d"))
        os.symlink("/etc", os.path.join(tmp, "etc"))
        os.symlink("..", os.path.join(tmp, "up"))
        os.symlink("../inside.txt", os.path.join(tmp, "d", "back"))
        os.symlink(outside, os.path.join(tmp, "secret"))
        os.symlink(target, os.path.join(tmp, "newfile"))
        # (attempt, path, escapes)
        cases = [
            ("read", "/etc/passwd", True), ("read", "../outside.txt", True), ("read", "d/../../outside.txt", True),
            ("read", "etc/passwd", True), ("read", "secret", True), ("read", "up/outside.txt", True),
            ("read", "up/work/inside.txt", False), ("read", "d/back", False), ("read", tmp + "/inside.txt", False),
            ("read", tmp + "/../outside.txt", True), ("read", "/proc/self/environ", True),
            ("write", "../escaped.txt", True), ("write", parent + "/escaped2.txt", True),
            ("write", "newfile", True), ("write", "etc/evil", True), ("write", "d/new.txt", False),
            ("exists", "/etc", True), ("exists", "up", True), ("exists", "secret", True),
            ("exists", "inside.txt", False), ("exists", "missing.txt", False),
        ]
        body = "\n".join('    print(attempt_%s("%s"))' % (kind, path) for kind, path, _ in cases)
        src = os.path.join(tmp, "prog.geno")
        with open(src, "w") as f:
            f.write(PROGRAM % body)
        js = os.path.join(tmp, "prog.js")
        p = subprocess.run([geno, "compile", "--target", "js", "-o", js, src], capture_output=True, text=True)
        if p.returncode != 0:
            print("FAIL: compile: " + p.stderr)
            return 1
        vm = subprocess.run([geno, "run", "--unsafe", "--cap", "fs,print", src], cwd=tmp, capture_output=True,
                            text=True, timeout=60)
        for name in ("d/new.txt",):
            os.remove(os.path.join(tmp, name))
        nd = subprocess.run([node, js, "--cap", "fs,print"], cwd=tmp, capture_output=True, text=True, timeout=60)
        vl, nl = vm.stdout.splitlines(), nd.stdout.splitlines()
        if len(vl) != len(cases) or len(nl) != len(cases):
            failures.append("line counts: vm %d, node %d (%s / %s)" % (len(vl), len(nl), vm.stderr, nd.stderr))
        for i, (kind, path, escapes) in enumerate(cases):
            v = vl[i] if i < len(vl) else "<none>"
            n = nl[i] if i < len(nl) else "<none>"
            if v != n:
                failures.append("%s %r: vm %r, node %r" % (kind, path, v, n))
            if escapes and n != "fs_%s: %s" % ({"read": "read_text", "write": "write_text"}.get(kind, kind), ESCAPE):
                failures.append("%s %r is not refused under node: %r" % (kind, path, n))
            if not escapes and ESCAPE in n:
                failures.append("%s %r is refused under node: %r" % (kind, path, n))
        for name in ("escaped.txt", "escaped2.txt", "dangling-target.txt"):
            if os.path.exists(os.path.join(parent, name)):
                failures.append("a file was written outside the roots: " + name)
        # a path-like program argument makes its directory a root, as for geno run
        with open(src, "w") as f:
            f.write(PROGRAM % '    print(attempt_read("%s"))\n    print(attempt_read("../outside.txt"))' % outside)
        subprocess.run([geno, "compile", "--target", "js", "-o", js, src], capture_output=True, check=True)
        for argv in ([], ["--", outside]):
            vm = subprocess.run([geno, "run", "--unsafe", "--cap", "fs,print", src] + argv, cwd=tmp,
                                capture_output=True, text=True, timeout=60)
            nd = subprocess.run([node, js, "--cap", "fs,print"] + argv, cwd=tmp, capture_output=True, text=True,
                                timeout=60)
            # (a relative path is resolved against each root and must stay inside that one)
            want = ("secret\n" if argv else "fs_read_text: %s\n" % ESCAPE) + "fs_read_text: %s\n" % ESCAPE
            if vm.stdout != want or nd.stdout != want:
                failures.append("arguments %r: vm %r, node %r" % (argv, vm.stdout, nd.stdout))
        # GENO_FS_READ_ONLY refuses writes on node as in the CLI
        with open(src, "w") as f:
            f.write('func main() -> Unit with fs\n    fs_write_text("ro.txt", "x")\nend func\n')
        subprocess.run([geno, "compile", "--target", "js", "-o", js, src], capture_output=True, check=True)
        env = dict(os.environ, GENO_FS_READ_ONLY="1")
        nd = subprocess.run([node, js, "--cap", "fs"], cwd=tmp, capture_output=True, text=True, env=env)
        if (nd.returncode != 1 or "fs_write_text: filesystem writes are not allowed" not in nd.stderr
                or os.path.exists(os.path.join(tmp, "ro.txt"))):
            failures.append("GENO_FS_READ_ONLY under node: %r %r" % (nd.returncode, nd.stderr))
    for f in failures:
        print("FAIL: " + f)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
