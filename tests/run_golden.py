#!/usr/bin/env python3
"""Golden test runner for tests/lang (and tests/security).

Each test is a .geno program whose expectations live in its comments
(Wren-style), so a test is one file:

  // config: KEY[=VALUE] ...     run settings, any line (usually the first):
                                 mode=run|check|syntax|test (default: check if
                                 the file expects compile errors, else run)
                                 cap=NAME (repeatable, or cap=a,b)
                                 max_steps=N max_recursion_depth=N
                                 max_output_length=N max_collection_size=N
                                 max_integer_bits=N timeout=S
                                 no-check-examples  unsafe (run in-process)
                                 target=NAME (check mode; repeatable, or
                                 target=a,b): `geno check --target NAME`
  // expect: TEXT                the next line of program output (run mode);
                                 `// expect: => 42` is main's displayed value
  // expect error E201           a diagnostic with this code on THIS line
                                 (check/syntax mode); any number per file,
                                 several per line (`// expect error E300
                                 // expect error E305`)
  // expect error E201 at L      ... on line L (for errors a comment can't sit on,
                                 e.g. an unterminated comment or end of file);
                                 `at 0`: a diagnostic without a location
  // expect message: TEXT        some diagnostic's message contains TEXT
                                 (check/syntax mode)
  // expect runtime error E400   the run fails with this code; output printed
                                 before the error is still compared
  // expect runtime error E400: TEXT   ... and the message contains TEXT
  // expect exit: N              the command's exit status (default: 0 when no
                                 error is expected, else 1)
  // expect stderr: TEXT         a line of stderr contains TEXT (human modes)

A sibling NAME.out file, when present, replaces the `// expect:` lines as the
expected stdout (for generated corpora).

Host tests (tests/lang/host: the CLI's fs/http/process/stdin callbacks)
also use:

  // config: both                run twice, `geno run --unsafe` and the default
                                 isolated `geno run`; both must pass
  // config: tmpdir              copy the program into a fresh temporary
                                 directory and run it there (the current
                                 directory and the program's directory, the
                                 fs roots, are then that directory only)
  // config: http                start a local test server
                                 (tests/host_http_server.py) for {url}
  // file: PATH = TEXT           create PATH (relative to the temp dir) holding
                                 TEXT; Python escapes (\n, \xff) give bytes
  // sized: PATH N               create PATH holding N bytes of "a"
  // many: DIR N                 create N empty files DIR/0 ... DIR/N-1
  // dir: PATH                   create a directory
  // symlink: PATH -> TARGET     create a symbolic link
  // args: A B ...               program arguments (after --)
  // env: NAME=VALUE             an environment variable for the run
  // stdin: TEXT                 the program's standard input (escapes as above)
  // expect file: PATH = TEXT    after the run PATH holds TEXT
  // expect no file: PATH        after the run PATH does not exist

In every line above, in `// expect:` lines and in the copied program's
text, {tmp} stands for the real path of the temporary directory and {url}
for http://127.0.0.1:PORT of the test server.

Usage: run_golden.py --geno PATH [--jobs N] [--filter SUBSTR] DIR_OR_FILE...
Prints one line per failure and ends with "N passed, N failed".
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys

EXPECT_RE = re.compile(r"//\s*expect:\s?(.*)$")
ERROR_RE = re.compile(r"//\s*expect error (E\d{3})(?:\s+at\s+(\d+))?")
RUNTIME_RE = re.compile(r"//\s*expect runtime error (E\d{3})(?::\s*(.*))?$")
EXIT_RE = re.compile(r"//\s*expect exit:\s*(\d+)")
STDERR_RE = re.compile(r"//\s*expect stderr:\s*(.*)$")
CONFIG_RE = re.compile(r"//\s*config:\s*(.*)$")
MESSAGE_RE = re.compile(r"//\s*expect message:\s*(.*)$")
HOST_RE = re.compile(r"//\s*(file|sized|many|dir|symlink|args|env|stdin|expect file|expect no file):\s?(.*)$")


def parse_test(path):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", "replace")
    t = {"path": path, "out": [], "errors": [], "runtime": None, "exit": None,
         "stderr": [], "config": {}, "caps": [], "targets": [], "messages": [],
         "flags": set(), "host": []}
    for lineno, line in enumerate(text.split("\n"), 1):
        m = HOST_RE.search(line)
        if m:
            t["host"].append((m.group(1), m.group(2)))
            continue
        m = CONFIG_RE.search(line)
        if m:
            for item in m.group(1).split():
                if "=" in item:
                    k, v = item.split("=", 1)
                    if k == "cap":
                        t["caps"] += [c for c in v.split(",") if c]
                    elif k == "target":
                        t["targets"] += [c for c in v.split(",") if c]
                    else:
                        t["config"][k] = v
                else:
                    t["flags"].add(item)
            continue
        m = MESSAGE_RE.search(line)
        if m:
            t["messages"].append(m.group(1).strip())
            continue
        found = list(ERROR_RE.finditer(line))
        if found:
            for m in found:
                t["errors"].append((m.group(1), int(m.group(2) or lineno)))
            continue
        m = RUNTIME_RE.search(line)
        if m:
            t["runtime"] = (m.group(1), (m.group(2) or "").strip())
            continue
        m = EXIT_RE.search(line)
        if m:
            t["exit"] = int(m.group(1))
            continue
        m = STDERR_RE.search(line)
        if m:
            t["stderr"].append(m.group(1).strip())
            continue
        m = EXPECT_RE.search(line)
        if m:
            t["out"].append(m.group(1))
    out_file = os.path.splitext(path)[0] + ".out"
    if os.path.exists(out_file):
        with open(out_file, encoding="utf-8") as f:
            t["out"] = f.read().split("\n")
            if t["out"] and t["out"][-1] == "":
                t["out"].pop()
    mode = t["config"].get("mode")
    if not mode:
        mode = "check" if t["errors"] else "run"
    t["mode"] = mode
    return t


def run_cmd(cmd, timeout, cwd=None, env=None, stdin=None):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, cwd=cwd, env=env,
                           input=stdin if stdin is not None else b"")
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "TIMEOUT"


HTTP_PORT = None
HTTP_LOCK = __import__("threading").Lock()


def http_url():
    """Start the local test server once per runner; its base URL."""
    global HTTP_PORT
    with HTTP_LOCK:
        if HTTP_PORT is None:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import host_http_server
            HTTP_PORT = host_http_server.start()
    return "http://127.0.0.1:%d" % HTTP_PORT


def unescape(text):
    """Python escapes in a directive's text, as bytes."""
    return text.encode("utf-8").decode("unicode_escape").encode("latin-1")


class HostSetup:
    """The temporary directory, files, arguments and environment of a host
    test (see the module docstring)."""

    def __init__(self, t):
        import tempfile
        self.t = t
        self.tmp = None
        self.subst = {}
        if "http" in t["flags"]:
            self.subst["{url}"] = http_url()
        if "tmpdir" in t["flags"]:
            self.tmp = os.path.realpath(tempfile.mkdtemp(prefix="geno-host-"))
            self.subst["{tmp}"] = self.tmp
            with open(t["path"], encoding="utf-8") as f:
                source = self.sub(f.read())
            with open(os.path.join(self.tmp, os.path.basename(t["path"])), "w", encoding="utf-8") as f:
                f.write(source)
        self.args, self.env, self.stdin = [], dict(os.environ), None
        self.checks = []
        for kind, text in t["host"]:
            text = self.sub(text)
            if kind == "file":
                name, _, body = text.partition(" = ")
                self.write(name.strip(), unescape(body))
            elif kind == "sized":
                name, n = text.rsplit(None, 1)
                self.write(name, b"a" * int(n))
            elif kind == "many":
                name, n = text.rsplit(None, 1)
                for i in range(int(n)):
                    self.write(os.path.join(name, str(i)), b"")
            elif kind == "dir":
                os.makedirs(self.where(text.strip()), exist_ok=True)
            elif kind == "symlink":
                name, _, target = text.partition(" -> ")
                os.symlink(target.strip(), self.where(name.strip()))
            elif kind == "args":
                self.args += text.split()
            elif kind == "env":
                k, _, v = text.partition("=")
                self.env[k.strip()] = v
            elif kind == "stdin":
                self.stdin = unescape(text)
            else:
                self.checks.append((kind, text))

    def sub(self, text):
        for k, v in self.subst.items():
            text = text.replace(k, v)
        return text

    def where(self, name):
        if self.tmp is None:
            raise ValueError("file directives need // config: tmpdir")
        return os.path.join(self.tmp, name)

    def write(self, name, data):
        path = self.where(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    def program(self):
        if self.tmp:
            return os.path.join(self.tmp, os.path.basename(self.t["path"]))
        return self.t["path"]

    def check_files(self):
        fails = []
        for kind, text in self.checks:
            if kind == "expect file":
                name, _, body = text.partition(" = ")
                try:
                    with open(self.where(name.strip()), "rb") as f:
                        got = f.read()
                except OSError as e:
                    got = str(e).encode()
                if got != unescape(body):
                    fails.append("file %s: want %r got %r" % (name.strip(), unescape(body), got))
            elif os.path.lexists(self.where(text.strip())):
                fails.append("file %s exists" % text.strip())
        return fails

    def close(self):
        if self.tmp:
            import shutil
            shutil.rmtree(self.tmp, ignore_errors=True)


def limit_flags(t):
    flags = []
    for key in ("max_steps", "max_recursion_depth", "max_output_length",
                "max_collection_size", "max_integer_bits", "timeout"):
        if key in t["config"]:
            flags += ["--" + key.replace("_", "-"), t["config"][key]]
    for c in t["caps"]:
        flags += ["--cap", c]
    if "no-check-examples" in t["flags"]:
        flags.append("--no-check-examples")
    return flags


def check_test(geno, t, timeout):
    """Return a list of failure strings (empty = pass)."""
    fails = []
    mode = t["mode"]
    if mode in ("check", "syntax"):
        cmd = [geno, "check", "--json"]
        for target in t["targets"]:
            cmd += ["--target", target]
        cmd.append(t["path"])
        if mode == "syntax":
            cmd.insert(3, "--syntax-only")
        rc, out, err = run_cmd(cmd, timeout)
        if rc is None:
            return ["timed out"]
        try:
            j = json.loads(out)
        except ValueError:
            return ["no JSON from check (exit %s): %s" % (rc, (out + err)[-300:])]
        def line_of(d):
            return (d.get("location") or {}).get("line", 0)
        got = sorted((d["code"], line_of(d)) for d in j["diagnostics"])
        want = sorted(t["errors"])
        if got != want:
            fails.append("diagnostics: want %s got %s" % (want, [
                (d["code"], line_of(d), d["message"]) for d in j["diagnostics"]]))
        for text in t["messages"]:
            if not any(text in d["message"] for d in j["diagnostics"]):
                fails.append("no diagnostic message contains %r: %r" % (
                    text, [d["message"] for d in j["diagnostics"]]))
        want_exit = t["exit"] if t["exit"] is not None else (1 if want else 0)
        if rc != want_exit:
            fails.append("exit: want %d got %s" % (want_exit, rc))
        return fails
    if mode == "test":
        cmd = [geno, "test"] + limit_flags(t) + [t["path"]]
        rc, out, err = run_cmd(cmd, timeout)
        if rc is None:
            return ["timed out"]
        got = out.rstrip("\n").split("\n") if out else []
        if got != t["out"]:
            fails.append("stdout: want %r got %r" % (t["out"], got))
        want_exit = t["exit"] if t["exit"] is not None else 0
        if rc != want_exit:
            fails.append("exit: want %d got %s (stderr %r)" % (want_exit, rc, err[-300:]))
        for s in t["stderr"]:
            if s not in err:
                fails.append("stderr lacks %r: %r" % (s, err[-300:]))
        return fails
    # run mode: the human CLI, as a user sees it: stdout is the program's
    # output then `=> value`; stderr carries `error[E400]: ...` lines.
    if "both" in t["flags"]:
        modes = [["--unsafe"], []]
    else:
        modes = [["--unsafe"] if "unsafe" in t["flags"] else []]
    for mode in modes:
        setup = HostSetup(t)
        try:
            cmd = [geno, "run"] + mode + limit_flags(t) + [setup.program()]
            if setup.args:
                cmd += ["--"] + setup.args
            rc, out, err = run_cmd(cmd, timeout, cwd=setup.tmp, env=setup.env, stdin=setup.stdin)
            more = check_run(t, rc, out, err, setup) + setup.check_files()
        finally:
            setup.close()
        if len(modes) > 1:
            more = ["[%s] %s" % ("unsafe" if mode else "isolated", f) for f in more]
        fails += more
    return fails


def check_run(t, rc, out, err, setup):
    fails = []
    if rc is None:
        return ["timed out"]
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    want = [setup.sub(x) for x in t["out"]]
    if lines != want:
        fails.append("output: want %r got %r" % (want, lines))
    codes = re.findall(r"error\[(E\d{3})\]", err)
    if t["runtime"]:
        code, text = t["runtime"]
        if code not in codes:
            fails.append("expected %s in stderr, got %r" % (code, err[-400:]))
        elif text and setup.sub(text) not in err:
            fails.append("stderr lacks %r: %r" % (setup.sub(text), err[-400:]))
    elif codes:
        fails.append("unexpected errors: %r" % err[-400:])
    for s in t["stderr"]:
        if s not in err:
            fails.append("stderr lacks %r: %r" % (s, err[-300:]))
    want_exit = t["exit"] if t["exit"] is not None else (1 if t["runtime"] else 0)
    if rc != want_exit:
        fails.append("exit: want %d got %s (stderr %r)" % (want_exit, rc, err[-300:]))
    return fails


def collect(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in names if n.endswith(".geno")]
        else:
            files.append(p)
    # Helper modules imported by tests live beside them with a leading
    # capital letter and no expectations; they are not tests themselves.
    return sorted(f for f in files if not os.path.basename(f)[0].isupper())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--geno", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    args.geno = os.path.abspath(args.geno)  # host tests run in other directories
    tests = [parse_test(f) for f in collect(args.paths) if args.filter in f]
    failed = 0
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for t, fails in zip(tests, ex.map(lambda t: check_test(args.geno, t, args.timeout), tests)):
            if fails:
                failed += 1
                print("FAIL %s" % t["path"])
                for f in fails:
                    print("  " + f)
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed or not tests else 0


if __name__ == "__main__":
    sys.exit(main())
