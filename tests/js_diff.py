#!/usr/bin/env python3
"""Differential test of the JavaScript back end against the VM.

Every run-mode golden program (tests/lang/run and the other run tests under
the given directories) is run twice: `geno run --unsafe` (the VM) and
`geno compile --target js` followed by `node OUT`, with the same
capabilities, limits, arguments and environment (programs flagged `http`
run against the local test server, tests/host_http_server.py, on
127.0.0.1). Their stdout (program output and the `=> value`
line) and the error code of a failed run must be equal (a program both
refuse at check time with the same code counts as the same). Programs listed in
tests/js_known_differences.txt (one `path: reason` per line, the reasons
are explained in docs/compatibility.md) are reported but do not fail.

Usage: js_diff.py --geno PATH [--node node] [--jobs N] [--list-all]
                  [--known FILE] DIR_OR_FILE...
Exit status: 0 when every program outside the known list agrees, 1
otherwise, 77 (skipped) when node is not installed.
"""
import argparse
import concurrent.futures as cf
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

CONFIG_RE = re.compile(r"//\s*config:\s*(.*)$", re.M)
CODE_RE = re.compile(r"error\[(E\d{3})\]")
LIMITS = ("timeout", "max_steps", "max_recursion_depth", "max_output_length", "max_collection_size", "max_integer_bits")


def config(text):
    caps, conf, flags = [], {}, set()
    for m in CONFIG_RE.finditer(text):
        for item in m.group(1).split():
            if "=" in item:
                k, v = item.split("=", 1)
                if k == "cap":
                    caps += [c for c in v.split(",") if c]
                else:
                    conf[k] = v
            else:
                flags.add(item)
    return caps, conf, flags


def is_run_program(text, conf, flags):
    mode = conf.get("mode")
    if mode and mode != "run":
        return False
    if "// expect error" in text or "target" in conf:
        return False
    if "http" in flags:  # run against the local test server (args and env below)
        return "func main" in text and "// stdin:" not in text and "tmpdir" not in flags
    if "tmpdir" in flags or "// args:" in text or "// stdin:" in text or "// env:" in text:
        return False
    return "func main" in text


HTTP_URL = None
HTTP_LOCK = threading.Lock()


def http_url():
    """The local test server (tests/host_http_server.py, 127.0.0.1 on a
    port the OS picks), started once per run; its base URL."""
    global HTTP_URL
    with HTTP_LOCK:
        if HTTP_URL is None:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import host_http_server
            HTTP_URL = "http://127.0.0.1:%d" % host_http_server.start()
    return HTTP_URL


def host_setup(text, flags):
    """The program's arguments (after --) and environment: `// args:` and
    `// env:` lines, {url} being the local test server."""
    args, env = [], dict(os.environ)
    if "http" not in flags:
        return args, env
    for m in re.finditer(r"//\s*(args|env):\s?(.*)$", text, re.M):
        value = m.group(2).replace("{url}", http_url())
        if m.group(1) == "args":
            args += value.split()
        else:
            k, _, v = value.partition("=")
            env[k.strip()] = v
    return args, env


def outcome(proc):
    m = CODE_RE.search(proc.stderr)
    return proc.stdout, (m.group(1) if m else ("exit %d" % proc.returncode if proc.returncode else None))


def check(path, geno, node, tmp):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    caps, conf, flags = config(text)
    if not is_run_program(text, conf, flags):
        return None
    if not caps:
        caps = ["print", "clock", "random"]
    if caps == ["none"]:
        caps = []
    limit_flags = []
    for k in LIMITS:
        if k in conf:
            limit_flags += ["--" + k.replace("_", "-"), conf[k]]
    run_flags = ["--unsafe"] + limit_flags
    if "no-check-examples" in flags:
        run_flags.append("--no-check-examples")
    cap_flags = []
    for c in caps:
        cap_flags += ["--cap", c]
    args, env = host_setup(text, flags)
    tail = ["--"] + args if args else []
    try:
        vm = subprocess.run([geno, "run"] + run_flags + (cap_flags or ["--cap", "none"]) + [path] + tail,
                            capture_output=True, text=True, timeout=60, errors="replace", env=env)
    except subprocess.TimeoutExpired:
        return None
    out_js = os.path.join(tmp, re.sub(r"[^A-Za-z0-9_]", "_", path) + ".js")
    comp = subprocess.run([geno, "compile", "--target", "js", "-o", out_js] + limit_flags +
                          (["--no-check-examples"] if "no-check-examples" in flags else []) + [path],
                          capture_output=True, text=True, timeout=60, errors="replace")
    if comp.returncode != 0:
        # a program the checker refuses: the same when `geno run` refuses it
        # with the same code and printed nothing
        m = CODE_RE.search(comp.stderr)
        if m and vm.stdout == "" and outcome(vm)[1] == m.group(1):
            return (path, None)
        return (path, "does not compile: " + (comp.stderr.strip().splitlines() or ["?"])[-1])
    try:
        js = subprocess.run([node, "--stack-size=4000", out_js] + cap_flags + tail, capture_output=True, text=True,
                            timeout=60, errors="replace", env=env)
    except subprocess.TimeoutExpired:
        return (path, "node timed out")
    a, b = outcome(vm), outcome(js)
    if a == b:
        return (path, None)
    if a[0] != b[0]:
        al, bl = a[0].splitlines(), b[0].splitlines()
        for i in range(max(len(al), len(bl))):
            x = al[i] if i < len(al) else "<end>"
            y = bl[i] if i < len(bl) else "<end>"
            if x != y:
                return (path, "stdout line %d: vm %r, js %r (errors %s / %s)" % (i + 1, x[:120], y[:120], a[1], b[1]))
    return (path, "error: vm %s, js %s %s" % (a[1], b[1], js.stderr.strip()[:200]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geno", required=True)
    ap.add_argument("--node", default="node")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--known", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "js_known_differences.txt"))
    ap.add_argument("--list-all", action="store_true", help="print every differing program")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    node = shutil.which(args.node)
    if not node:
        print("SKIP: node is not installed (the JavaScript differential test needs it)")
        return 77
    known = {}
    if os.path.exists(args.known):
        with open(args.known, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#") and ":" in line:
                    k, v = line.split(":", 1)
                    known[k.strip()] = v.strip()
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".geno")]
        else:
            files.append(p)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as tmp, cf.ThreadPoolExecutor(args.jobs) as pool:
        results = [r for r in pool.map(lambda p: check(p, args.geno, node, tmp), sorted(files)) if r]
    same = sum(1 for _, why in results if why is None)
    bad, known_bad = [], []
    for path, why in results:
        if why is None:
            continue
        rel = os.path.relpath(os.path.abspath(path), root)
        (known_bad if rel in known or os.path.basename(path) in known else bad).append((rel, why))
    for rel, why in bad:
        print("DIFF %s: %s" % (rel, why))
    for path, why in results:
        rel = os.path.relpath(os.path.abspath(path), root)
        if why is None and rel in known:
            print("STALE %s: listed as a known difference but the results agree (remove it from the list)" % rel)
    if args.list_all:
        for rel, why in known_bad:
            print("known %s: %s" % (rel, why))
    print("%d programs: %d same, %d known differences, %d unexpected differences" %
          (len(results), same, len(known_bad), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
