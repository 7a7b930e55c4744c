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


def parse_test(path):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", "replace")
    t = {"path": path, "out": [], "errors": [], "runtime": None, "exit": None,
         "stderr": [], "config": {}, "caps": [], "targets": [], "messages": [],
         "flags": set()}
    for lineno, line in enumerate(text.split("\n"), 1):
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


def run_cmd(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "TIMEOUT"


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
    cmd = [geno, "run"] + limit_flags(t) + [t["path"]]
    if "unsafe" in t["flags"]:
        cmd.insert(2, "--unsafe")
    rc, out, err = run_cmd(cmd, timeout)
    if rc is None:
        return ["timed out"]
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines != t["out"]:
        fails.append("output: want %r got %r" % (t["out"], lines))
    codes = re.findall(r"error\[(E\d{3})\]", err)
    if t["runtime"]:
        code, text = t["runtime"]
        if code not in codes:
            fails.append("expected %s in stderr, got %r" % (code, err[-400:]))
        elif text and text not in err:
            fails.append("stderr lacks %r: %r" % (text, err[-400:]))
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
