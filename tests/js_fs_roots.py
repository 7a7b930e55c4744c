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
import os
import subprocess
import sys
import tempfile

import js_common

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
    tools = js_common.geno_and_node()
    if tools is None:
        return 77
    geno, node = tools
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
        # fs_list_dir, fs_metadata, fs_symlink_metadata and fs_canonicalize
        # under the same roots, with the CLI's results and error texts
        m = os.path.join(tmp, "m")
        os.mkdir(m)
        os.mkdir(os.path.join(m, "sub"))
        for name, text in (("a.txt", "hi\n"), ("b.txt", ""), ("\u00e9.txt", "x"), ("Z.txt", "zz")):
            with open(os.path.join(m, name), "w", encoding="utf-8") as f:
                f.write(text)
        os.symlink("a.txt", os.path.join(m, "link"))
        os.symlink("/etc", os.path.join(m, "etclink"))
        os.symlink("missing", os.path.join(m, "dangle"))
        os.symlink(outside, os.path.join(m, "secret"))
        meta_cases = [("list", p) for p in ("m", "m/", "m/a.txt", "missing", "m/link", "m/etclink", "..", "/etc",
                                            "m/sub/..", "")]
        meta_cases += [("meta", p) for p in ("m/a.txt", "m/sub", "m/link", "m/dangle", "m/etclink", "m/secret",
                                             "missing", "../outside.txt", "/dev/null")]
        meta_cases += [("lmeta", p) for p in ("m/link", "m/dangle", "m/etclink", "m/secret", "m/sub/..", "m/.",
                                              "m/missing", "up")]
        meta_cases += [("canon", p) for p in ("m/link", "m/./sub/../a.txt", "m/dangle", "m/etclink", "missing",
                                              "/etc", "", "up/work/m")]
        calls = {"list": "to_string(fs_list_dir(\"%s\"))", "meta": "show(fs_metadata(\"%s\"))",
                 "lmeta": "show(fs_symlink_metadata(\"%s\"))", "canon": "to_string(fs_canonicalize(\"%s\"))"}
        show = ('func show(r: Result[FileMetadata, String]) -> String\n    example Err("x") -> "Err x"\n'
                '    match r with\n    | Ok(md) -> return f"{md.kind} {md.size} {md.modified_ms > 1000000000000}"\n'
                '    | Err(e) -> return "Err " + e\n    end match\nend func\n\n')
        body = "\n".join("    print(%s)" % (calls[k] % p) for k, p in meta_cases)
        body += "\n    print(show(fs_metadata(\"m\" + from_char_code(0))))\n    print(fs_list_dir(\"a\" + from_char_code(0)))"
        with open(src, "w") as f:
            f.write(show + "func main() -> Unit with io, fs\n%s\nend func\n" % body)
        p = subprocess.run([geno, "compile", "--target", "js", "-o", js, src], capture_output=True, text=True)
        if p.returncode != 0:
            failures.append("compile of the fs_list_dir/fs_metadata program: " + p.stderr)
        else:
            vm = subprocess.run([geno, "run", "--unsafe", "--cap", "fs,print", src], cwd=tmp, capture_output=True,
                                text=True, timeout=60)
            nd = subprocess.run([node, js, "--cap", "fs,print"], cwd=tmp, capture_output=True, text=True,
                                timeout=60)
            vl, nl = vm.stdout.splitlines(), nd.stdout.splitlines()
            if len(vl) != len(meta_cases) + 1 or vm.returncode != 1 or nd.returncode != 1:
                failures.append("fs metadata program: vm rc %d, %d lines (%s); node rc %d, %d lines (%s)" % (
                    vm.returncode, len(vl), vm.stderr.strip()[-200:], nd.returncode, len(nl), nd.stderr.strip()[-200:]))
            if "embedded null byte" not in nd.stderr:
                failures.append("fs_list_dir of a path with NUL under node: %r" % nd.stderr)
            for i in range(max(len(vl), len(nl))):
                v = vl[i] if i < len(vl) else "<none>"
                n = nl[i] if i < len(nl) else "<none>"
                case = meta_cases[i] if i < len(meta_cases) else ("nul", "")
                if v != n:
                    failures.append("%s %r: vm %r, node %r" % (case[0], case[1], v, n))
                if case[1] in ("..", "/etc", "m/etclink", "m/secret", "../outside.txt", "/dev/null", "up") \
                        and case[0] != "lmeta" and ESCAPE not in n:
                    failures.append("%s %r is not refused under node: %r" % (case[0], case[1], n))
            if nl[:1] != ['Ok(value: ["Z.txt", "a.txt", "b.txt", "dangle", "etclink", "link", "secret", "sub", '
                          '"\u00e9.txt"])']:
                failures.append("fs_list_dir(\"m\") under node: %r" % nl[:1])
        # a directory with more entries than max_collection_size ends the run (E504)
        with open(src, "w") as f:
            f.write('func main() -> Unit with io, fs\n    print(fs_list_dir("m"))\nend func\n')
        subprocess.run([geno, "compile", "--target", "js", "--max-collection-size", "5", "-o", js, src],
                       capture_output=True, check=True)
        nd = subprocess.run([node, js, "--cap", "fs,print"], cwd=tmp, capture_output=True, text=True, timeout=60)
        if nd.returncode != 1 or "error[E504]: List size exceeds limit (9 > 5)" not in nd.stderr:
            failures.append("fs_list_dir over max_collection_size under node: %r %r" % (nd.returncode, nd.stderr))
        # GENO_FS_READ_ONLY refuses writes on node as in the CLI
        with open(src, "w") as f:
            f.write('func main() -> Unit with fs\n    fs_write_text("ro.txt", "x")\nend func\n')
        subprocess.run([geno, "compile", "--target", "js", "-o", js, src], capture_output=True, check=True)
        env = dict(os.environ, GENO_FS_READ_ONLY="1")
        nd = subprocess.run([node, js, "--cap", "fs"], cwd=tmp, capture_output=True, text=True, env=env)
        if (nd.returncode != 1 or "fs_write_text: filesystem writes are not allowed" not in nd.stderr
                or os.path.exists(os.path.join(tmp, "ro.txt"))):
            failures.append("GENO_FS_READ_ONLY under node: %r %r" % (nd.returncode, nd.stderr))
    if os.environ.get("JS_FS_ROOTS_VERBOSE"):
        print("\n".join(nl))
    for f in failures:
        print("FAIL: " + f)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
