#!/usr/bin/env python3
"""Command-line behaviour of `geno`: help, versions, usage errors and
their exit codes, the human and JSON forms, and output that cannot be
written. Each case runs the real binary on small programs written to a
temporary directory and checks the exit status and what appears on
stdout and stderr.

usage: run_cli.py --geno PATH
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PROGRAMS = {
    "hi.geno": 'func main() -> Unit\n    print("hi")\nend func\n',
    "value.geno": "func main() -> Int\n    return 42\nend func\n",
    "units.geno": (
        "func f() -> Unit\n    example () -> ()\n    print(1)\nend func\n"
        "func main() -> (Unit, Unit, List[Unit])\n    return (f(), (), [print(2), ()])\nend func\n"
    ),
    "unit_end.geno": 'func main() -> Unit\n    print("hi")\nend func\n',
    "unit_bare.geno": 'func main() -> Unit\n    print("hi")\n    return\nend func\n',
    "typo.geno": 'func main() -> Unit\n    print(undefined_name)\nend func\n',
    "syntax.geno": "func main() -> Unit\n    let x: Int = (1 +\nend func\n",
    "crash.geno": 'func main() -> Unit\n    print("before")\n    let xs: List[Int] = []\n    print(xs[3])\nend func\n',
    "tested.geno": (
        "func double(x: Int) -> Int\n    example 2 -> 4\n    return x * 2\nend func\n\n"
        'test "double works"\n    assert double(3) == 6\nend test\n'
    ),
    "readall.geno": (
        'func main() -> Unit\n    print("reading")\n'
        "    match stdin_read_all() with\n"
        '        | Ok(s) -> print(length(s))\n'
        '        | Err(e) -> print("err " + e)\n'
        "    end match\nend func\n"
    ),
    "lone_cr.geno": "func main() -> Unit\r    print(1)\r    print(undefined_x)\rend func\r",
    "badexample.geno": "func inc(x: Int) -> Int\n    example 1 -> 3\n    return x + 1\nend func\n",
    "suite/a.geno": (
        "func inc(x: Int) -> Int\n    example 1 -> 3\n    example 2 -> 3\n    return x + 1\nend func\n\n"
        '@untested("talks to the network")\nfunc fetch(u: String) -> String\n    return u\nend func\n\n'
        'test "fails"\n    assert 1 + 1 == 3\nend test\n'
    ),
    "suite/sub/b.geno": "func pos(x: Int) -> Int\n    requires x > 0\n    example 0 -> 0\n    return x\nend func\n",
    "suite/sub/c.geno": 'func main() -> Int\n    return "not an int"\nend func\n',
    "suite/notes.txt": "not a program\n",
    "emptydir/readme.txt": "no programs here\n",
    # a file name that is not UTF-8 (byte 0xff, written via surrogateescape)
    "latin/bad\udcff.geno": 'func main() -> Int\n    return "one"\nend func\n',
    "latin/rt\udcff.geno": "func main() -> Int\n    return 1 / 0\nend func\n",
    "hints/assign.geno": "func main() -> Int\n    let total = 1\n    total = 2\n    return total\nend func\n",
    "hints/named.geno": "func main() -> Int\n    return fold([1, 2], 0, fn(a: Int, b: Int) -> a + b)\nend func\n",
    # a right-to-left override inside a string ("Trojan Source")
    "bidi.geno": 'func main() -> Int\n    let x: Int = "\u202eabc"\n    return x\nend func\n',
    # main's value n JsonArray levels deep: 3 JSON levels each, 2 for the
    # JsonNull inside (GENO_RESULT_MAX_DEPTH is 500)
    **{"deep%d.geno" % n: "func main() -> JsonValue\n    var j: JsonValue = JsonNull\n    var i: Int = 0\n"
       "    while i < %d do\n        j = JsonArray([j])\n        i = i + 1\n    end while\n    return j\n"
       "end func\n" % n for n in (166, 167, 10000)},
    # a thrown message that would retitle the terminal (ESC ] ... BEL),
    # forge a diagnostic line and reverse the rest of the line (RLO)
    "forge.geno": 'func main() -> Unit\n    let esc = from_char_code(27)\n'
                  '    throw "x" + esc + "]0;pwned" + from_char_code(7) + "\\nforged.geno:1:1: error[E999]: fake"'
                  ' + from_char_code(8238) + "z"\nend func\n',
    "fifo/app.geno": "import Pipe\nfunc main() -> Int\n    return 1\nend func\n",
    "fifoproj/app.geno": "func main() -> Int\n    return 2\nend func\n",
    "mods/app.geno": "import Helper\nfunc main() -> Int\n    return Helper.twice(4)\nend func\n",
    "mods/Helper.geno": "import Inner\nexport func twice(x: Int) -> Int\n    example 1 -> 2\n    return Inner.add(x, x)\nend func\n",
    "mods/Inner.geno": "export func add(a: Int, b: Int) -> Int\n    example (1, 2) -> 3\n    return a + b\nend func\n",
    "mods/missing.geno": "import Nowhere\nfunc main() -> Int\n    return 1\nend func\n",
    "mods/badmod.geno": "import Broken\nfunc main() -> Int\n    return Broken.f()\nend func\n",
    "mods/Broken.geno": 'export func f() -> Int\n    return "text"\nend func\n',
    "badproj/geno.toml": "this is [not toml\n",
    "badproj/src/app.geno": 'func main() -> Unit\n    print("hi")\nend func\n',
    "goodproj/geno.toml": '[project]\nname = "demo"\n',
    "goodproj/src/app.geno": 'func main() -> Unit\n    print("hi")\nend func\n',
    # a project: geno.toml names its files and entry; Extra is imported by nobody
    "proj/geno.toml": 'name = "proj"\nentrypoint = "Main"\ntargets = ["python-cli"]\n'
                      'files = [\n    "Util.geno",\n    "Main.geno",\n    "Extra.geno",\n]\n',
    "proj/Util.geno": ("export func dbl(x: Int) -> Int\n    example 1 -> 2\n    example 2 -> 4\n    return x * 2\nend func\n"),
    "proj/Main.geno": ("import Util\nfunc main() -> Int\n    print(\"args: \" + to_string(length(cli_args())))\n"
                       "    return Util.dbl(21)\nend func\n\nfunc inc(x: Int) -> Int\n    example 1 -> 2\n    return x + 1\nend func\n"),
    "proj/Extra.geno": ("func triple(x: Int) -> Int\n    example 1 -> 3\n    return x * 3\nend func\n\n"
                        'test "triple"\n    assert triple(2) == 6\nend test\n'),
    "proj/notes.geno.txt": "not a module\n",
    # projects for the browser only, and for both: --target js is node-cli output
    "webproj/geno.toml": 'name = "webproj"\nentrypoint = "Main"\ntargets = ["browser"]\n',
    "webproj/Main.geno": 'func main() -> Int\n    return 7\nend func\n',
    "bothproj/geno.toml": 'name = "bothproj"\nentrypoint = "Main"\ntargets = ["browser", "node-cli"]\n',
    "bothproj/Main.geno": 'func main() -> Int\n    return 7\nend func\n',
    # without an entrypoint the module that comes last in import order runs
    "proj2/geno.toml": 'name = "proj2"\n',
    "proj2/Zeta.geno": "export func z() -> Int\n    example () -> 26\n    return 26\nend func\n",
    "proj2/Alpha.geno": "import Zeta\nfunc main() -> Int\n    return Zeta.z()\nend func\n",
    # the same file listed three ways is one module
    "dupproj/geno.toml": 'entrypoint = "Main"\nfiles = ["Main.geno", "./Main.geno", "Main", "./Util.geno", "Util.geno"]\n',
    "dupproj/Main.geno": "import Util\nfunc main() -> Int\n    return Util.one()\nend func\n",
    "dupproj/Util.geno": "export func one() -> Int\n    example () -> 1\n    return 1\nend func\n",
    # two different files, one module name
    "collide/geno.toml": 'files = ["Main.geno", "sub/Main.geno"]\n',
    "collide/Main.geno": "func main() -> Int\n    return 1\nend func\n",
    "collide/sub/Main.geno": "func main() -> Int\n    return 2\nend func\n",
    "badentry/geno.toml": 'entrypoint = "Nope"\n',
    "badentry/Main.geno": "func main() -> Int\n    return 1\nend func\n",
    "escape/geno.toml": 'files = ["../hi.geno"]\n',
    # a link inside the project to a file outside it (made in main())
    "linkout/geno.toml": 'files = ["Outside.geno", "Main.geno"]\nentrypoint = "Main"\n',
    "linkout/Main.geno": "import Outside\nfunc main() -> Int\n    return 1\nend func\n",
    "outside/Outside.geno": "func helper() -> Int\n    return 2\nend func\n",
    # no manifest: an import that is a link out of the program's folder
    # (made in main(), one to outside/Outside.geno, one to a sibling)
    "linkimport/Main.geno": "import Outside\nfunc main() -> Int\n    return 1\nend func\n",
    "linksib/Real.geno": "func two() -> Int\n    example () -> 2\n    return 2\nend func\n",
    "linksib/Main.geno": "import Alias\nfunc main() -> Int\n    return Alias.two()\nend func\n",
    "notgeno/geno.toml": 'files = ["README.md"]\n',
    "notgeno/README.md": "# not a module\n",
    "missingfile/geno.toml": 'files = ["Gone.geno"]\n',
    # a directory without geno.toml: each file counts only its own examples
    "noproj/Inner.geno": "export func add(a: Int, b: Int) -> Int\n    example (1, 2) -> 3\n    return a + b\nend func\n",
    "noproj/app.geno": ("import Inner\nfunc main() -> Int\n    return Inner.add(1, 2)\nend func\n\n"
                        "func f(x: Int) -> Int\n    example 1 -> 1\n    return x\nend func\n"),
    # a project compiled to a Python launcher: imports, cli_args, fs, a runtime error in a module
    "pyproj/geno.toml": 'name = "pyproj"\nentrypoint = "Main"\ntargets = ["python-cli"]\n'
                        'files = ["Text.geno", "Main.geno"]\n',
    "pyproj/Text.geno": ("export func shout(s: String) -> Int\n    example \"ab\" -> 2\n    if s == \"boom\" then\n"
                         "        return 100 / (length(s) - length(s))\n    end if\n    return length(s)\nend func\n"),
    "pyproj/Main.geno": ("import Text\nfunc main() -> Int\n    let args: List[String] = cli_args()\n"
                         "    print(\"args: \" + to_string(length(args)))\n"
                         "    if length(args) > 0 then\n"
                         "        print(\"bytes: \" + to_string(length(fs_read_text(args[0]))))\n    end if\n"
                         "    if length(args) > 1 then\n        print(Text.shout(args[1]))\n    end if\n"
                         "    return 42\nend func\n"),
    "pyproj/notes.md": "# Notes\n\nSome text\n",
    "pyval/Str.geno": 'func main() -> String\n    return "say \\"hi\\""\nend func\n',
    "pyval/Yes.geno": "func main() -> Bool\n    return 1 < 2\nend func\n",
    "pyval/Unit.geno": 'func main() -> Unit\n    print("side")\nend func\n',
    "pyproj/Loop.geno": "func main() -> Unit\n    var i: Int = 0\n    while true do\n        i = i + 1\n    end while\nend func\n",
    "raw/nobundle.json": '{"version": "1", "entrypoint": "Main", "modules": {"Other": "x"}}\n',
    "fmtok/ugly.geno": "func main() -> Int\n  let x = 1   \n      return x\nend func\n\n\n",
    "fmtok/sub/fine.geno": "func main() -> Int\n    return 2\nend func\n",
    "fmtbad/broken.geno": "func main() -> Int\n  return (1 +\nend func\n",
    # fmt DIR: a link out of the folder (made in main()) is skipped, one
    # to a file beside it is followed
    "fmtlink/Fine.geno": "func main() -> Int\n    return 2\nend func\n",
    "fmtout/Ugly.geno": "func main() -> Int\n  return 3\nend func\n",
    "repl/session.txt": (
        "1 + 2\nlet x = 5\nx * 2\n\"hi\"\n"
        "func f(a: Int) -> Int\n    example 1 -> 2\n    return a + 1\nend func\n"
        "f(x)\n:type f(1)\n:type [1, 2]\nprint(\"printed\")\nundefined_y\n1 / 0\n"
        "for i: Int in range(0, 2) do\n    print(i * 100)\nend for\n"
        "var total = 0\ntotal = total + 10\ntotal\n"
        "while true do\nend while\n\n"
        "func nocheck(a: Int) -> Int\n    return a\nend func\n"
        ":clear\nf(1)\n:nonsense\n:quit\nprint(\"after quit\")\n"),
    "repl/prog.geno": ('func inc(x: Int) -> Int\n    example 1 -> 2\n    return x + 1\nend func\n\n'
                       'func main() -> Int\n    print("main ran")\n    return inc(41)\nend func\n'),
    "repl/badload.geno": ('func ok1() -> Int\n    example () -> 1\n    return 1\nend func\n\n'
                          'func bad() -> Int\n    example () -> 1\n    return "x"\nend func\n'),
    # an entry cut short by the end of input; a decorator left alone
    "repl/cutshort.txt": "1 + 1\nfunc f() -> Int\n    return 1\n",
    "repl/decorator.txt": "@untested(\"x\")\n\n1 + 1\n@untested(\"y\")\n",
    "repl/badload.txt": ":load {d}/repl/badload.geno\nundefined_z\n",
    "repl/fixes.txt": ("1 + 1 // two\n:type\n:load\n:load {d}/repl/prog.geno\ninc(5)\nmain()\n"
                       "print(\"main() is only text here\")\n)\n1 +\n\n"
                       "func main() -> Int\n    return 7\nend func\n:type [1, 2] // a list\n"),
    # no main: the examples are verified and nothing runs, as in the reference
    "nomain.geno": "func inc(x: Int) -> Int\n    example 1 -> 2\n    return x + 1\nend func\n",
    "nomain_bad.geno": "func inc(x: Int) -> Int\n    example 1 -> 3\n    return x + 1\nend func\n",
    # a parse error inside a function: one diagnostic, no follow-on past the end
    "cascade.geno": "func main() -> Int\n    return (1 +\nend func\n",
    "docproj/Shapes.geno": ("/// A shape <with> markup & more.\ntype Shape = Circle(r: Float) | Square(s: Float)\n\n"
                            "/// The area of a shape.\n/// Squares too.\nexport func area(s: Shape) -> Float\n"
                            "    example Square(2.0) -> 4.0\n    match s with\n        | Circle(r) -> return 3.0 * r * r\n"
                            "        | Square(x) -> return x * x\n    end match\nend func\n"),
    "docproj/Main.geno": ("import Shapes\n@untested(\"prints\")\nfunc show(x: Float) -> Unit\n    print(x)\nend func\n"
                          "func main() -> Unit\n    show(1.0)\nend func\n"),
    "limits/procs.geno": 'func main() -> Unit\n    print(exec("/bin/echo one"))\n    print(exec("/bin/echo two"))\nend func\n',
    "limits/write.geno": 'func main() -> Unit\n    print(fs_write_text("out.txt", "0123456789"))\nend func\n',
    "limits/grow.geno": ("func main() -> Unit\n    var xs: List[Int] = []\n    for i: Int in range(0, 2000000) do\n"
                         "        xs = append(xs, i)\n    end for\nend func\n"),
    "emptydir/notes.txt": "no modules here\n",
    "browser/geno.toml": 'entrypoint = "app"\nfiles = ["app.geno"]\n',
    "browser/app.geno": 'func main() -> Unit\n    print("page")\nend func\n',
    "browser/envy.geno": 'func main() -> Unit\n    print(env_get("HOME"))\nend func\n',
}

# Programs given as bytes: text that is not UTF-8 and control characters
# (ESC sequences that would recolour or retitle the terminal, BEL), in
# places the CLI shows back: excerpts, diffs, documentation, echoes.
BYTE_PROGRAMS = {
    "raw/notutf8.geno": b'func main() -> Unit\n    let x: Int = "a\xff\x1b[31mred\x07"\n    print(x)\nend func\n',
    "raw/ctl.geno": b'/// doc \x1b[31m \x07 comment\nfunc f(x: String) -> String\n  example "a" -> "b\x1b[2J"\n'
                    b'  return x // \x1b]0;title\x07\nend func\n',
    "raw/repl_def.txt": b'func f() -> Int\n    return "\xfe"\nend func\n1 + 1\n',
    "raw/repl.txt": b'let x: Int = "a\xff\x1b[31m"\n:type "\x1b[2J\xfe"\n"\x1b[2J" + 1\n:type "\x1b[2J"\n'
                    b':load /nonexistent/\x1b[2J\n:\x1b[31mx\nfunc f() -> Int\n    return "\x1b[31m\xfe"\nend func\n',
}


def test_report_check(out):
    """The JSON report of the `suite` folder: per-file counts, untested
    functions, violations by kind, the error entry and the totals."""
    try:
        doc = json.loads(out)
    except ValueError as e:
        return f"stdout is not JSON: {e}"
    files = {os.path.basename(f["path"]): f for f in doc["files"]}
    if sorted(files) != ["a.geno", "b.geno", "c.geno"]:
        return f"files: {sorted(files)}"
    a, b, c = files["a.geno"], files["b.geno"], files["c.geno"]
    if (a["total"], a["passed"], a["failed"]) != (3, 1, 2):
        return f"a.geno counts {a['total']}/{a['passed']}/{a['failed']}"
    if a["untested"] != [{"function": "fetch", "reason": "talks to the network"}]:
        return f"a.geno untested {a['untested']}"
    kinds = [(v["kind"], v["function"]) for v in a["violations"]]
    if kinds != [("example", "inc"), ("test", "fails")]:
        return f"a.geno violations {kinds}"
    if a["violations"][0]["message"] != "expected 3, got 2":
        return f"example message {a['violations'][0]['message']!r}"
    if "Assertion failed" not in a["violations"][1]["message"]:
        return f"test message {a['violations'][1]['message']!r}"
    if [v["kind"] for v in b["violations"]] != ["requires"] or "Precondition failed" not in b["violations"][0]["message"]:
        return f"b.geno violations {b['violations']}"
    if "E300" not in c.get("error", "") or "total" in c:
        return f"c.geno entry {c}"
    want = {"total": 4, "passed": 1, "failed": 3, "errors": 1, "untested": 1, "success": False}
    got = {k: doc[k] for k in want}
    return None if got == want else f"totals {got}"


class Case:
    def __init__(self, name, args, rc, out=(), err=(), no_out=(), stdout=None, check=None, stdin=None, cwd=None,
                 no_err=(), clean=False, python=False, env=None):
        self.name, self.args, self.rc = name, args, rc
        # stdout and stderr must be UTF-8 without control characters but
        # line feed and tab (input shown back as '?')
        self.clean = clean
        self.python = python  # run args[0] with python3 (GENO_BINARY: the geno under test)
        self.env = env  # extra environment variables
        self.no_err = no_err  # texts stderr must not hold
        self.cwd = cwd  # "{d}"-relative working directory, or None
        self.stdin = stdin  # a path opened as the command's standard input
        self.out, self.err, self.no_out = out, err, no_out
        self.stdout = stdout  # None: a pipe; "full": /dev/full; "closed": no fd 1
        self.check = check    # extra check on stdout text: returns an error or None


def bundle_check(out, entry, modules):
    try:
        doc = json.loads(out)
    except ValueError as e:
        return f"stdout is not JSON: {e}"
    if doc.get("version") != "1" or doc.get("entrypoint") != entry:
        return f"version/entrypoint: {doc.get('version')!r} {doc.get('entrypoint')!r}"
    if sorted(doc.get("modules", {})) != sorted(modules):
        return f"modules: {sorted(doc.get('modules', {}))}"
    if PROGRAMS["proj/Util.geno"] != doc["modules"]["Util"]:
        return "Util's source differs"
    return None


def stdout_is(expected):
    """A check that stdout is exactly `expected`."""
    return lambda out: None if out == expected else f"stdout is {out!r}, expected {expected!r}"


def doc_check(out):
    try:
        doc = json.loads(out)
    except ValueError as e:
        return f"stdout is not JSON: {e}"
    defs = doc["modules"][0]["definitions"]
    got = [(d["kind"], d["name"]) for d in defs]
    if got != [("type", "Shape"), ("func", "area")]:
        return f"definitions {got}"
    if defs[1]["doc"] != "The area of a shape.\nSquares too." or defs[1]["examples"] != ["Square(2.0) -> 4.0"]:
        return f"area: {defs[1]}"
    if defs[0]["doc"] != "A shape <with> markup & more." or defs[1]["exported"] is not True:
        return f"shape: {defs[0]}"
    return None


def json_check(want_ok, code=None):
    def check(out):
        try:
            doc = json.loads(out)
        except (ValueError, RecursionError) as e:
            return f"stdout is not JSON Python can read: {e!r}"
        if doc.get("ok") is not want_ok:
            return f"ok is {doc.get('ok')!r}, expected {want_ok!r}"
        codes = [d.get("code") for d in doc.get("diagnostics", [])]
        if code and code not in codes:
            return f"diagnostic codes {codes}, expected {code}"
        for d in doc.get("diagnostics", []):
            for key in ("code", "message", "severity"):
                if key not in d:
                    return f"diagnostic without {key}: {d}"
        return None
    return check


CASES = [
    Case("no command", [], 2, err=["usage: geno <command>"]),
    Case("--help", ["--help"], 0, out=["commands:", "run FILE", "exit status"]),
    Case("--version", ["--version"], 0, out=["geno-c ", "(Geno 0.4"]),
    Case("unknown command", ["frobnicate"], 2, err=["unknown command 'frobnicate'", "see geno --help"]),
    Case("unknown top-level flag", ["--frob"], 2, err=["unrecognized option '--frob'"]),
    Case("run --help", ["run", "--help"], 0,
         out=["usage: geno run FILE", "--max-recursion-depth N", "1 to 10000", "0: no output allowed", "1 MiB"]),
    Case("check --help", ["check", "--help"], 0, out=["usage: geno check FILE", "--syntax-only"]),
    Case("test --help", ["test", "--help"], 0, out=["usage: geno test", "--cap NAME"]),
    Case("run: missing FILE", ["run"], 2, err=["missing FILE"]),
    Case("run: unknown flag", ["run", "--frob", "{d}/hi.geno"], 2, err=["'--frob'"]),
    Case("run: a limit without its value", ["run", "{d}/hi.geno", "--max-steps"], 2, err=["--max-steps needs a value"]),
    Case("run: a bad limit", ["run", "--max-recursion-depth", "0", "{d}/hi.geno"], 2, err=["1 to 10000"]),
    Case("run: misspelt capability", ["run", "--cap", "prnt", "{d}/hi.geno"], 2, err=["Unknown capability 'prnt'", "Did you mean 'print'"]),
    Case("run: file not found", ["run", "{d}/nothing.geno"], 1, err=["nothing.geno"]),
    Case("run: output", ["run", "{d}/hi.geno"], 0, out=["hi\n"], no_out=["=>"]),
    Case("run: main's value", ["run", "{d}/value.geno"], 0, out=["=> 42"]),
    Case("run --unsafe: main's value", ["run", "--unsafe", "{d}/value.geno"], 0, out=["=> 42"]),
    Case("run: --cap none denies print", ["run", "--cap", "none", "{d}/hi.geno"], 1, err=["E412"], no_out=["hi"]),
    Case("run: runtime error keeps output", ["run", "{d}/crash.geno"], 1, out=["before\n"], err=["crash.geno:4:", "error[E"]),
    Case("run --json: success", ["run", "--json", "{d}/value.geno"], 0, check=json_check(True)),
    # the reference's Units: () written or a bare return is {"_tuple": []};
    # a Unit no () wrote (main ending without a return, print's result) is null
    *[Case(f"run --json{' --unsafe' if unsafe else ''}: Unit shapes ({prog})",
           ["run", "--json", *(["--unsafe"] if unsafe else []), "--cap", "print", "{d}/" + prog], 0,
           check=lambda out, want=want: None if json.loads(out)["value"] == want
           else f"value {json.loads(out)['value']!r}, expected {want!r}")
      for unsafe in (False, True)
      for prog, want in (("units.geno", {"_tuple": [None, {"_tuple": []}, [None, {"_tuple": []}]]}),
                         ("unit_end.geno", None), ("unit_bare.geno", {"_tuple": []}))],
    Case("run --json: check error", ["run", "--json", "{d}/typo.geno"], 1, check=json_check(False, "E301")),
    Case("run --json: syntax error", ["run", "--json", "{d}/syntax.geno"], 1, check=json_check(False)),
    Case("check: clean", ["check", "{d}/hi.geno"], 0),
    Case("check: error located", ["check", "{d}/typo.geno"], 1, err=["typo.geno:2:11: error[E301]"]),
    Case("check --json", ["check", "--json", "{d}/typo.geno"], 1, check=json_check(False, "E301")),
    Case("check --syntax-only claims no target", ["check", "--syntax-only", "--target", "node-cli", "{d}/hi.geno"], 0,
         out=["Syntax check passed"], no_out=["targets"]),
    Case("check --target names its targets", ["check", "--target", "node-cli", "{d}/hi.geno"], 0,
         out=["Type check passed", "(target: node-cli)"]),
    Case("check --syntax-only ignores type errors", ["check", "--syntax-only", "{d}/typo.geno"], 0),
    Case("test: examples and test blocks", ["test", "{d}/tested.geno"], 0, out=["2 passed, 0 failed"]),
    Case("test --unsafe: same verdicts in-process", ["test", "--unsafe", "{d}/tested.geno"], 0, out=["2 passed, 0 failed"]),
    Case("test: a failing example", ["test", "{d}/badexample.geno"], 1, out=["FAIL", "0 passed, 1 failed"]),
    Case("test without -v: each failure in one line, where and what was expected and what came",
         ["test", "{d}/suite/a.geno"], 1,
         out=["FAIL  {d}/suite/a.geno (1/3) (1 untested)",
              "\n{d}/suite/a.geno:2:5: error[E409]: Example verification failed for inc: expected 3, got 2\n"
              "{d}/suite/a.geno:13:5: error[E499]: test \"fails\": Assertion failed\n\n"],
         no_out=["    example 1 -> 3", "@untested"]),
    Case("test: --no-check-examples is refused", ["test", "--no-check-examples", "{d}/tested.geno"], 2,
         err=["--no-check-examples is an option of geno run"]),
    Case("run: --fail-on-untested is refused", ["run", "--fail-on-untested", "{d}/hi.geno"], 2,
         err=["--fail-on-untested is an option of geno test"]),
    Case("test: a directory is searched recursively, in name order", ["test", "{d}/suite"], 1,
         out=["FAIL  {d}/suite/a.geno (1/3) (1 untested)", "FAIL  {d}/suite/sub/b.geno (0/1)",
              "ERROR  {d}/suite/sub/c.geno", "error[E300]", "1 passed, 3 failed, 1 untested, 1 file not run (errors above), in "],
         check=lambda out: None if out.index("suite/a.geno") < out.index("sub/b.geno") < out.index("sub/c.geno")
         else "files not in name order"),
    Case("test -v: failures and untested functions", ["test", "-v", "{d}/suite/a.geno"], 1,
         out=["expected 3, got 2", "o fetch: @untested('talks to the network')"]),
    Case("test --json: the report", ["test", "--json", "{d}/suite"], 1, check=lambda out: test_report_check(out)),
    Case("test --json: all passing", ["test", "--json", "{d}/tested.geno"], 0,
         check=lambda out: None if json.loads(out)["success"] is True and json.loads(out)["passed"] == 2
         else "expected success with 2 passed"),
    Case("test --fail-on-untested", ["test", "--fail-on-untested", "{d}/suite/a.geno"], 1, out=["1 untested"]),
    Case("modules beside the program, imported transitively", ["run", "{d}/mods/app.geno"], 0, out=["=> 8"]),
    Case("modules: same in-process", ["run", "--unsafe", "{d}/mods/app.geno"], 0, out=["=> 8"]),
    Case("modules: check", ["check", "{d}/mods/app.geno"], 0, out=["Type check passed"]),
    Case("a missing module says where it was looked for", ["check", "{d}/mods/missing.geno"], 1,
         err=["error[E204]: Module 'Nowhere' not found. Searched for 'Nowhere.geno' in "]),
    Case("a missing module, sandboxed run", ["run", "{d}/mods/missing.geno"], 1,
         err=["Module 'Nowhere' not found. Searched for 'Nowhere.geno' in "]),
    Case("an error inside a module shows that module's line", ["check", "{d}/mods/badmod.geno"], 1,
         err=["{d}/mods/Broken.geno:2:5: error[E300]", 'return "text"']),
    Case("a FIFO as a module does not hang (it reads as empty)", ["check", "{d}/fifo/app.geno"], 0, out=["Type check passed"]),
    Case("a FIFO as geno.toml does not hang", ["run", "{d}/fifoproj/app.geno"], 0, out=["=> 2"]),
    Case("a non-UTF-8 file name: JSON stays valid", ["check", "--json", "{d}/latin/bad\udcff.geno"], 1,
         check=lambda out: None if json.loads(out)["diagnostics"][0]["location"]["filename"].endswith("bad\ufffd.geno")
         else "filename not shown with U+FFFD"),
    Case("a non-UTF-8 file name: the sandboxed run reports the real error", ["run", "{d}/latin/rt\udcff.geno"], 1,
         err=["error[E400]: Division by zero"]),
    Case("a non-UTF-8 file name: test --json stays valid", ["test", "--json", "{d}/latin"], 1,
         check=lambda out: None if json.loads(out)["errors"] == 1 and "\ufffd" in json.loads(out)["files"][0]["path"]
         else "unexpected report"),
    Case("E306 says how to fix it", ["check", "{d}/hints/assign.geno"], 1,
         err=["error[E306]: Cannot assign to immutable variable: total (only `var` variables can be assigned: "
              "use `var total = ...`"]),
    Case("the named-argument rule shows the function's parameter names", ["check", "{d}/hints/named.geno"], 1,
         err=["use named arguments for clarity (e.g., fold(list: ..., initial: ..., reducer: ...))"]),
    Case("snippets show bidirectional controls as '?'", ["check", "{d}/bidi.geno"], 1,
         err=['let x: Int = "?abc"'], check=None),
    # every RunResult parses with Python's json (recursive): a value whose
    # JSON would nest past 500 levels ends with E502 instead, in both modes
    *[Case("run --json%s: a value %d levels deep" % (m, n), ["run", "--json"] + ([m] if m else []) + ["{d}/deep%d.geno" % n],
           0 if n == 166 else 1, check=json_check(n == 166, None if n == 166 else "E502"))
      for n in (166, 167, 10000) for m in ("", "--unsafe")],
    # the whole message on one line, controls shown as '?', in both modes
    Case("a thrown message is printed clean", ["run", "{d}/forge.geno"], 1,
         err=["forge.geno:3:5: error[E499]: x?]0;pwned??forged.geno:1:1: error[E999]: fake?z\n"]),
    Case("a thrown message is printed clean (--unsafe)", ["run", "--unsafe", "{d}/forge.geno"], 1,
         err=["forge.geno:3:5: error[E499]: x?]0;pwned??forged.geno:1:1: error[E999]: fake?z\n"]),
    Case("test: a missing path", ["test", "{d}/nowhere"], 1, err=["Error: '{d}/nowhere' not found"]),
    Case("test --json: a missing path", ["test", "--json", "{d}/nowhere"], 1,
         check=lambda out: None if json.loads(out)["errors"] == 1 and json.loads(out)["files"][0]["error"]
         .endswith("not found") else "expected one error entry"),
    Case("test: a directory without programs", ["test", "{d}/emptydir"], 1, err=["No .geno files found in"]),
    Case("test --json: a directory without programs", ["test", "--json", "{d}/tested.geno", "{d}/emptydir"], 1,
         check=lambda out: None if json.loads(out)["files"][0]["path"].endswith("emptydir")
         and json.loads(out)["files"][0]["error"].startswith("No .geno files found") else "expected the error entry"),
    Case("test: files that do not compile are counted in the summary", ["test", "{d}/suite/sub"], 1,
         out=["0 passed, 1 failed, 1 file not run (errors above), in "]),
    Case("run: invalid geno.toml stops the run", ["run", "{d}/badproj/src/app.geno"], 1,
         err=["geno.toml: invalid TOML: Expected '=' after a key", "E204"], no_out=["hi"]),
    Case("check: invalid geno.toml", ["check", "{d}/badproj/src/app.geno"], 1, err=["invalid TOML"]),
    # lines end at a lone CR too: the snippet is the line the error is on
    Case("check: snippet of a file with CR line ends", ["check", "{d}/lone_cr.geno"], 1,
         err=["lone_cr.geno:3:11: error[E301]", "\n      print(undefined_x)\n"]),
    Case("check --json: invalid geno.toml", ["check", "--json", "{d}/badproj/src/app.geno"], 1, check=json_check(False, "E204")),
    Case("run: a valid geno.toml", ["run", "{d}/goodproj/src/app.geno"], 0, out=["hi\n"]),
    Case("run --json: file not found, name needing escapes", ["run", "--json", '{d}/no"such\\file.geno'], 1,
         check=json_check(False, "E204")),
    # endless, always-readable input: the size limit ends the read (E504,
    # uncatchable); it used to read forever, past --timeout
    Case("run: stdin from /dev/zero", ["run", "--timeout", "5", "--cap", "print,stdin", "{d}/readall.geno"], 1,
         out=["reading\n"], err=["E504", "String size exceeds limit"], stdin="/dev/zero"),
    Case("run --unsafe: stdin from /dev/zero", ["run", "--unsafe", "--timeout", "5", "--cap", "print,stdin", "{d}/readall.geno"], 1,
         out=["reading\n"], err=["E504"], no_out=["err "], stdin="/dev/zero"),
    Case("run: stdin from /dev/zero, limit out of reach", ["run", "--timeout", "1", "--max-collection-size", "100000000000",
         "--cap", "print,stdin", "{d}/readall.geno"], 1, out=["reading\n"], err=["E501"], stdin="/dev/zero"),
    Case("check --json: file not found", ["check", "--json", "{d}/nothing.geno"], 1, check=json_check(False, "E204"),
         out=["File not found"], err=["File not found"]),
    Case("run --json: a directory without programs", ["run", "--json", "{d}/emptydir"], 1,
         check=json_check(False, "E204"), out=["No .geno files found in"], no_out=["File not found", "location"]),
    # projects: a directory runs, checks and tests as the reference's project mode
    Case("run DIR: the manifest's entrypoint, imports from its files, program args", ["run", "--cap", "print,env", "{d}/proj", "--", "a", "b"],
         0, out=["args: 2\n", "=> 42\n"]),
    Case("run DIR --json", ["run", "--json", "--cap", "print,env", "{d}/proj"], 0, check=json_check(True), out=['"value": 42']),
    Case("run DIR without entrypoint: the last module in import order", ["run", "{d}/proj2"], 0, out=["=> 26\n"]),
    Case("run DIR: an entrypoint that is not a module", ["run", "{d}/badentry"], 1,
         err=["entrypoint 'Nope' is not a module of the project"]),
    Case("run DIR: a declared file outside the project", ["run", "{d}/escape"], 1, err=["escapes the project root"]),
    Case("run DIR: a declared link that leads outside the project", ["run", "{d}/linkout"], 1,
         err=["file 'Outside.geno' escapes the project root"], no_out=["E300"]),
    Case("run: an import that is a link out of the program's folder is not read", ["run", "{d}/linkimport/Main.geno"],
         1, err=["'Outside.geno' resolves to", "outside the program's folder"], no_err=["func helper"]),
    Case("check: the same link refused", ["check", "{d}/linkimport/Main.geno"], 1, err=["outside the program's folder"]),
    Case("run: an import that is a link to a file beside it", ["run", "{d}/linksib/Main.geno"], 0, out=["=> 2\n"]),
    # an output named *.geno would replace the program with its own output
    Case("compile -o SOURCE refused", ["compile", "{d}/value.geno", "--target", "python", "-o", "{d}/value.geno"], 2,
         err=["names Geno source"]),
    Case("compile --target js --output SOURCE refused", ["compile", "{d}/value.geno", "--target", "js", "--output",
                                                         "{d}/value.geno"], 2, err=["names Geno source"]),
    Case("build --single-file -o SOURCE refused", ["build", "{d}/value.geno", "--single-file", "-o", "{d}/value.geno"],
         2, err=["names Geno source"]),
    Case("doc -o SOURCE refused", ["doc", "{d}/value.geno", "-o", "{d}/value.geno"], 2, err=["names Geno source"]),
    Case("bundle -o SOURCE refused", ["bundle", "--config", "{d}/proj/geno.toml", "-o", "{d}/value.geno"], 2,
         err=["names Geno source"]),
    Case("the program those refused outputs named is intact", ["run", "{d}/value.geno"], 0, out=["=> 42\n"]),
    Case("run: a device is no program", ["run", "/dev/null"], 1, err=["No .geno files found at /dev/null"]),
    Case("run: a FIFO is no program", ["run", "{d}/fifo/Pipe.geno"], 1, err=["No .geno files found at"]),
    Case("run DIR: a declared file that is not a .geno file", ["run", "{d}/notgeno"], 1,
         err=["file 'README.md' declared in geno.toml is not a .geno file"]),
    Case("run DIR: a declared file that is missing", ["run", "{d}/missingfile"], 1,
         err=["file 'Gone.geno' declared in geno.toml not found"]),
    Case("test DIR: a file listed twice in geno.toml counts once", ["test", "{d}/dupproj"], 0,
         out=["Util.geno (1/1)", "Main.geno (0/0)", "\n1 passed, 0 failed"], no_out=["(2/2)", "2 passed"]),
    Case("check DIR: a file listed twice is one module", ["check", "{d}/dupproj"], 0, out=["  3 definitions, 2 modules\n"]),
    Case("run DIR: a file listed twice runs once", ["run", "{d}/dupproj"], 0, out=["=> 1\n"]),
    Case("run DIR: two files with one module name", ["run", "{d}/collide"], 1,
         err=["module name collision: 'Main' is defined by both {d}/collide/Main.geno and {d}/collide/sub/Main.geno"]),
    Case("check DIR: every module, definitions and modules counted", ["check", "{d}/proj"], 0,
         out=["Type check passed: {d}/proj (target: python-cli)\n", "  6 definitions, 3 modules\n"]),
    Case("check FILE: its imports are counted", ["check", "{d}/noproj/app.geno"], 0,
         out=["Type check passed: {d}/noproj/app.geno\n", "  4 definitions, 2 modules\n"]),
    Case("test DIR: each module's examples once, in import order", ["test", "{d}/proj"], 0,
         out=["Util.geno (2/2)", "Main.geno (1/1)", "Extra.geno (2/2)", "\n5 passed, 0 failed"], no_out=["(3/3)"]),
    Case("test FILE beside geno.toml: the whole project", ["test", "{d}/proj/Main.geno"], 0,
         out=["Util.geno (2/2)", "Extra.geno (2/2)", "\n5 passed, 0 failed"]),
    Case("test DIR without manifest: an imported module's examples counted once", ["test", "{d}/noproj"], 0,
         out=["Inner.geno (1/1)", "app.geno (1/1)", "\n2 passed, 0 failed"]),
    Case("test --filter: only matching functions and tests", ["test", "--filter", "tri*", "{d}/proj"], 0,
         out=["Util.geno (0/0)", "Extra.geno (2/2)", "\n2 passed, 0 failed"]),
    Case("test --filter --json", ["test", "--json", "--filter", "dbl", "{d}/proj"], 0, out=['"passed": 2', '"success": true']),
    Case("fmt --check: lists what would change, changes nothing", ["fmt", "--check", "{d}/fmtok"], 1,
         out=["Would reformat: {d}/fmtok/ugly.geno\n", "Some files need formatting"], no_out=["fine.geno"]),
    Case("fmt --diff: a unified diff", ["fmt", "--diff", "{d}/fmtok/ugly.geno"], 0,
         out=["--- {d}/fmtok/ugly.geno\n+++ {d}/fmtok/ugly.geno\n", "-  let x = 1   \n",
              "-      return x\n+    let x = 1\n+    return x\n"]),
    Case("fmt: rewrites the files that change", ["fmt", "{d}/fmtok"], 0, out=["Formatted: {d}/fmtok/ugly.geno\n"],
         no_out=["fine.geno"]),
    Case("fmt: a second run changes nothing", ["fmt", "{d}/fmtok"], 0, out=["All files are properly formatted.\n"]),
    Case("fmt --check after fmt", ["fmt", "--check", "{d}/fmtok/ugly.geno"], 0, out=["All files are properly formatted."]),
    Case("fmt: a file that does not parse is reported and left alone", ["fmt", "{d}/fmtbad"], 1,
         err=["cannot format {d}/fmtbad/broken.geno: it does not parse", "error[E20"]),
    Case("fmt DIR: a .geno link out of the folder is skipped and said so", ["fmt", "{d}/fmtlink"], 0,
         err=["Skipped: {d}/fmtlink/Out.geno is a link to ", "fmtout/Ugly.geno, outside {d}/fmtlink\n"],
         out=["All files are properly formatted.\n"], no_out=["Formatted"]),
    Case("fmt DIR: ... and the file it leads to is not rewritten", ["fmt", "--check", "{d}/fmtout"], 1,
         out=["Would reformat: {d}/fmtout/Ugly.geno\n"]),
    Case("fmt --check --diff", ["fmt", "--check", "--diff", "{d}/fmtok"], 2, err=["cannot be used together"]),
    Case("fmt: a missing path", ["fmt", "{d}/nowhere"], 1, err=["Error: '{d}/nowhere' not found"]),
    Case("init --template minimal", ["init", "new_minimal", "--template", "minimal"], 0, cwd="{d}",
         out=["Created project 'new_minimal':\n", "  new_minimal/geno.toml\n"]),
    Case("init minimal: the project checks", ["check", "{d}/new_minimal"], 0, out=["Type check passed: {d}/new_minimal"]),
    Case("init minimal: its examples pass", ["test", "{d}/new_minimal"], 0, out=[" passed, 0 failed"]),
    Case("init minimal: it is formatted", ["fmt", "--check", "{d}/new_minimal"], 0, out=["All files are properly formatted."]),
    Case("init --template cli", ["init", "new_cli", "--template", "cli"], 0, cwd="{d}",
         out=["Created project 'new_cli':\n", "  new_cli/geno.toml\n"]),
    Case("init cli: the project checks", ["check", "{d}/new_cli"], 0, out=["Type check passed: {d}/new_cli"]),
    Case("init cli: its examples pass", ["test", "{d}/new_cli"], 0, out=[" passed, 0 failed"]),
    Case("init cli: it is formatted", ["fmt", "--check", "{d}/new_cli"], 0, out=["All files are properly formatted."]),
    Case("init --template web", ["init", "new_web", "--template", "web"], 0, cwd="{d}",
         out=["Created project 'new_web':\n", "  new_web/geno.toml\n"]),
    Case("init web: the project checks", ["check", "{d}/new_web"], 0, out=["Type check passed: {d}/new_web"]),
    Case("init web: its examples pass", ["test", "{d}/new_web"], 0, out=[" passed, 0 failed"]),
    Case("init web: it is formatted", ["fmt", "--check", "{d}/new_web"], 0, out=["All files are properly formatted."]),
    Case("init --template api", ["init", "new_api", "--template", "api"], 0, cwd="{d}",
         out=["Created project 'new_api':\n", "  new_api/geno.toml\n"]),
    Case("init api: the project checks", ["check", "{d}/new_api"], 0, out=["Type check passed: {d}/new_api"]),
    Case("init api: its examples pass", ["test", "{d}/new_api"], 0, out=[" passed, 0 failed"]),
    Case("init api: it is formatted", ["fmt", "--check", "{d}/new_api"], 0, out=["All files are properly formatted."]),
    Case("init --template lib", ["init", "new_lib", "--template", "lib"], 0, cwd="{d}",
         out=["Created project 'new_lib':\n", "  new_lib/geno.toml\n"]),
    Case("init lib: the project checks", ["check", "{d}/new_lib"], 0, out=["Type check passed: {d}/new_lib"]),
    Case("init lib: its examples pass", ["test", "{d}/new_lib"], 0, out=[" passed, 0 failed"]),
    Case("init lib: it is formatted", ["fmt", "--check", "{d}/new_lib"], 0, out=["All files are properly formatted."]),
    Case("init: the api template runs", ["run", "{d}/new_api"], 0, out=["GET /health -> 200 ok\n", "GET /missing -> 404"]),
    Case("init: existing files are never overwritten", ["init", "new_cli", "--template", "cli"], 1, cwd="{d}",
         err=["Refusing to overwrite existing files: new_cli/geno.toml"]),
    Case("init: a name with a slash", ["init", "a/b"], 1, cwd="{d}", err=["Error: 'a/b' is not a valid project name"]),
    Case("init: a name going up", ["init", ".."], 1, cwd="{d}", err=["is not a valid project name"]),
    Case("init: an absolute name", ["init", "/tmp/x"], 1, cwd="{d}", err=["is not a valid project name"]),
    Case("init: a quote in the name would break geno.toml", ["init", 'my"app'], 1, cwd="{d}",
         err=["Error: 'my\"app' is not a valid project name: use ASCII letters, digits, '_', '-' and '.'"]),
    Case("init: a line break in the name is refused and shown as '?'", ["init", "a\nname = 1"], 1, cwd="{d}",
         err=["Error: 'a?name = 1' is not a valid project name"]),
    Case("init: a space in the name", ["init", "my app"], 1, cwd="{d}", err=["is not a valid project name"]),
    Case("init: a name starting with '-'", ["init", "--", "-x"], 2, cwd="{d}"),
    Case("init: a dotted name is fine", ["init", "my-app.v2_x"], 0, cwd="{d}", out=["Created project 'my-app.v2_x':\n"]),
    Case("init: the dotted project checks", ["check", "{d}/my-app.v2_x"], 0, out=["Type check passed"]),
    Case("init: an unknown template", ["init", "z", "--template", "game"], 2, cwd="{d}", err=["invalid --template 'game'"]),
    Case("bundle: the project's modules as JSON", ["bundle", "--config", "{d}/proj/geno.toml"], 0,
         check=lambda out: bundle_check(out, "Main", ["Util", "Main", "Extra"])),
    Case("bundle -o", ["bundle", "-c", "{d}/proj/geno.toml", "-o", "{d}/bundle.json"], 0, out=["Bundled to {d}/bundle.json\n"]),
    Case("bundle -o -: standard output", ["bundle", "-c", "{d}/proj/geno.toml", "-o", "-"], 0,
         out=['"entrypoint": '], no_out=["Bundled to"]),
    Case("bundle: no manifest", ["bundle", "--config", "{d}/none.toml"], 1, err=["Config file not found: {d}/none.toml"]),
    Case("repl: definitions, statements, expressions, :type, errors with codes, limits, :clear",
         ["repl"], 0, stdin="{d}/repl/session.txt",
         out=["=> 3\n=> 10\n=> \"hi\"\n=> 6\nf(1) : Int\n[1, 2] : List[Int]\nprinted\n", "0\n100\n",
              "=> 10\nCleared.\n"],
         err=["<input>:1:1: error[E301]: Undefined variable: undefined_y", "error[E400]: Division by zero",
              "error[E503]: Step limit exceeded", "must have at least one example clause",
              "error[E302]: Undefined function: f", "Unknown command ':nonsense'"],
         no_out=["after quit", "printed\nprinted"]),
    Case("repl: comments after an expression, :load with main, main() refused, usage, errors in the input's words",
         ["repl"], 0, stdin="{d}/repl/fixes.txt",
         out=["=> 2\nmain ran\n=> 42\n=> 6\nmain() is only text here\n=> 7\n[1, 2] // a list : List[Int]\n"],
         err=["usage: :type EXPR", "usage: :load FILE", "error: `main` cannot be used in the REPL",
              "<input>:1:1: error[E202]: Expected expression (e.g., a value, variable, or function call), got ')'",
              "<input>:1:4: error[E202]: Unexpected end of input"],
         no_out=["Unknown command"], no_err=["E309", "E502", "got 'end'", "Expected function name", "Unknown command"]),
    Case("repl: an entry cut short by the end of input is an error, exit 1 (not a terminal)", ["repl"], 1,
         stdin="{d}/repl/cutshort.txt", out=["=> 2\n"], err=["<input>:2:13: error[E201]: Unexpected end of input"]),
    Case("repl: a decorator without its definition is an error, at a blank line and at the end", ["repl"], 1,
         stdin="{d}/repl/decorator.txt", out=["=> 2\n"],
         err=["<input>:1:15: error[E202]: Unexpected end of input"],
         check=lambda out: None if out == "=> 2\n" else f"stdout {out!r}"),
    Case("repl: the errors of a :load name the file, later inputs <input>", ["repl"], 0, stdin="{d}/repl/badload.txt",
         err=["{d}/repl/badload.geno:8:5: error[E300]: Return type mismatch",
              "<input>:1:1: error[E301]: Undefined variable: undefined_z"], no_err=["<input>:8:5"]),
    Case("run: a file without main verifies its examples and prints nothing", ["run", "{d}/nomain.geno"], 0,
         no_out=["=>"], check=lambda out: None if out == "" else f"stdout {out!r}"),
    Case("run: a file without main and a failing example", ["run", "{d}/nomain_bad.geno"], 1,
         err=["Example verification failed for inc: expected 3, got 2"]),
    Case("run --json: a file without main", ["run", "--json", "{d}/nomain.geno"], 0, check=json_check(True),
         out=['"value": null', '"output": ""']),
    Case("check: a parse error is reported once, without a follow-on past the end", ["check", "{d}/cascade.geno"], 1,
         err=["{d}/cascade.geno:3:1: error[E202]: Expected expression", "1 error found"],
         no_err=["Expected function name", ":4:1:"]),
    # compile and build: files and project directories, as the example apps' READMEs use them
    Case("compile --target js -o: a file", ["compile", "{d}/value.geno", "--target", "js", "-o", "{d}/value.js"], 0,
         out=["Compiled to {d}/value.js\n"]),
    Case("compile to stdout", ["compile", "{d}/value.geno", "--target", "js"], 0, out=["\"use strict\""]),
    Case("compile DIR: the project's entry with its imports", ["compile", "{d}/proj", "--target", "js", "-o", "{d}/proj.js"], 0,
         out=["Compiled to {d}/proj.js\n"]),
    Case("compile: a type error", ["compile", "{d}/mods/badmod.geno", "--target", "js"], 1, err=["error[E300]"]),
    Case("compile --target js: a project that declares browser but not node-cli is refused",
         ["compile", "{d}/webproj", "--target", "js", "-o", "{d}/webproj.js"], 1,
         err=["error[E204]: ", "declares the browser target but not node-cli", "geno build"], no_out=["Compiled"]),
    Case("compile --target js: its entry file is refused too", ["compile", "{d}/webproj/Main.geno", "--target", "js"],
         1, err=["declares the browser target but not node-cli"], no_out=["use strict"]),
    Case("compile --target js: browser and node-cli declared", ["compile", "{d}/bothproj", "--target", "js",
         "-o", "{d}/bothproj.js"], 0, out=["Compiled to {d}/bothproj.js\n"]),
    Case("build: a browser-only project builds", ["build", "{d}/webproj", "-o", "{d}/webproj.html"], 0,
         out=["Built to {d}/webproj.html"]),
    Case("compile: no --target and no -o: the Python launcher on stdout (the reference's default target)",
         ["compile", "{d}/value.geno"], 0, out=["#!/usr/bin/env python3\n", 'ENTRYPOINT = "value"\n',
                                               '    "value": (\n        "func main() -> Int\\n"\n']),
    Case("compile: -o X.js without --target is JavaScript", ["compile", "{d}/value.geno", "-o", "{d}/value2.js"], 0,
         out=["Compiled to {d}/value2.js\n"], check=lambda out: None),
    Case("compile: a target geno-c does not have", ["compile", "{d}/value.geno", "--target", "wasm"], 2,
         err=["invalid --target 'wasm' (choose from python, js)"]),
    Case("compile --target python --esm", ["compile", "{d}/value.geno", "--target", "python", "--esm"], 2,
         err=["--esm is an option of --target js"]),
    # --target python: a launcher that carries the modules and runs them on geno-c (GENO_BINARY)
    Case("compile DIR -o X.py: the project's launcher", ["compile", "{d}/pyproj", "-o", "{d}/pyproj.py"], 0,
         out=["Compiled to {d}/pyproj.py\n"]),
    Case("launcher: --cap and -- args, output and exit as geno run",
         ["{d}/pyproj.py", "--cap", "env,print,fs", "--", "{d}/pyproj/notes.md", "--loud"], 0, python=True,
         cwd="{d}/pyproj", out=["args: 2\nbytes: 19\n6\n42\n"], no_out=["=>"]),
    Case("launcher: --cap NAME repeated and --cap=NAME", ["{d}/pyproj.py", "--cap", "env", "--cap=print,fs", "--",
         "{d}/pyproj/notes.md"], 0, python=True, cwd="{d}/pyproj", out=["args: 1\n", "\n42\n"], no_out=["=>"]),
    # main's value as the reference's compiled Python shows it: print(value)
    Case("compile --target python: a String-valued main", ["compile", "{d}/pyval/Str.geno", "-o", "{d}/pystr.py"], 0),
    Case("launcher: main's String printed raw, as Python's print", ["{d}/pystr.py"], 0, python=True,
         check=stdout_is('say "hi"\n')),
    Case("run --value-style python: a Bool is True/False", ["run", "--value-style", "python", "{d}/pyval/Yes.geno"], 0,
         check=stdout_is("True\n")),
    Case("run --value-style python: nothing for main without a value",
         ["run", "--value-style=python", "--cap", "print", "{d}/pyval/Unit.geno"], 0, check=stdout_is("side\n")),
    Case("run --value-style geno: the usual => value", ["run", "--value-style", "geno", "{d}/pyval/Str.geno"], 0,
         check=stdout_is('=> "say \\"hi\\""\n')),
    Case("run --value-style: a style that does not exist", ["run", "--value-style", "repr", "{d}/pyval/Str.geno"], 2,
         err=["--value-style needs 'python' or 'geno'"]),
    Case("launcher: no capability unless granted", ["{d}/pyproj.py"], 1, python=True, cwd="{d}/pyproj",
         err=["Main.geno:3:30: error[E412]: Capability denied: 'cli_args' requires the 'env' capability",
              "\n      let args: List[String] = cli_args()\n"], no_out=["=>"]),
    Case("launcher: a runtime error in an imported module shows that module's line",
         ["{d}/pyproj.py", "--cap", "env,print,fs", "--", "{d}/pyproj/notes.md", "boom"], 1, python=True,
         cwd="{d}/pyproj", out=["args: 2\n"],
         err=["Text.geno:4:16: error[E400]: Division by zero", "\n          return 100 / (length(s) - length(s))\n"]),
    Case("launcher: an argument before -- is refused", ["{d}/pyproj.py", "--cap", "print", "notes.md"], 2, python=True,
         err=["error: unexpected argument 'notes.md' (the program's arguments go after --)"]),
    Case("launcher: --help", ["{d}/pyproj.py", "--help"], 0, python=True,
         out=["python3 pyproj.py [--cap NAME[,NAME...]]... [-- PROGRAM ARGS...]", "must be installed"]),
    Case("launcher: without geno-c", ["{d}/pyproj.py", "--cap", "print"], 1, python=True, env={"GENO_BINARY": "",
         "PATH": "/nonexistent", "PYTHONPATH": "/nonexistent"},
         err=["this program runs on geno-c, which is not installed"]),
    Case("compile --target python: the limits given are compiled in",
         ["compile", "{d}/pyproj/Loop.geno", "--target", "python", "--max-steps", "500", "-o", "{d}/loop.py"], 0),
    Case("launcher: its step limit", ["{d}/loop.py"], 1, python=True, err=["error[E503]: Step limit exceeded (500 steps)"]),
    Case("compile --target python: a type error, nothing written",
         ["compile", "{d}/mods/badmod.geno", "--target", "python", "-o", "{d}/bad.py"], 1, err=["error[E300]"],
         check=lambda out: None),
    Case("run --bundle: geno bundle's artifact", ["run", "--bundle", "--cap", "print,env", "{d}/bundle.json"], 0,
         out=["args: 0\n", "=> 42\n"]),
    Case("run --bundle: not a bundle", ["run", "--bundle", "{d}/hi.geno"], 1, err=["Error: Invalid bundle {d}/hi.geno:"]),
    Case("run --bundle: an entrypoint it lacks", ["run", "--bundle", "{d}/raw/nobundle.json"], 1,
         err=["the entrypoint is not among the modules"]),
    Case("compile: --source-map needs -o", ["compile", "{d}/value.geno", "--target", "js", "--source-map"], 2,
         err=["--source-map needs -o/--output"]),
    Case("compile: a missing file", ["compile", "{d}/nowhere.geno", "--target", "js"], 1, err=["nowhere.geno"]),
    Case("compile: a directory without modules", ["compile", "{d}/emptydir", "--target", "js"], 1,
         err=["Error: No .geno files found in '{d}/emptydir'"]),
    Case("build -o X.html: one page, as the reference", ["build", "{d}/browser/app.geno", "-o", "{d}/page.html"], 0,
         out=["Built to {d}/page.html\n"]),
    Case("build DIR -o OUT: the page and its script", ["build", "{d}/browser", "-o", "{d}/site"], 0,
         out=["Built to {d}/site/\n  {d}/site/index.html\n  {d}/site/app.js\n"]),
    Case("build: browser rules apply", ["build", "{d}/browser/envy.geno", "-o", "{d}/envy.html"], 1,
         err=["'env_get' is not available on the 'browser' target"]),
    Case("build: no FILE", ["build"], 2, err=["missing FILE"]),
    Case("build --cap: an unknown name is a usage error with a suggestion",
         ["build", "{d}/browser/app.geno", "--cap", "prnt", "-o", "{d}/capx.html"], 2,
         err=["Unknown capability 'prnt'", "Did you mean 'print'?"]),
    Case("build --cap: empty names refused", ["build", "{d}/browser/app.geno", "--cap", ",", "-o", "{d}/capy.html"],
         2, err=["Capability names must not be empty."]),
    Case("build --cap: needs a name", ["build", "{d}/browser/app.geno", "--cap"], 2, err=["--cap needs a capability name"]),
    Case("build --help names --cap", ["build", "--help"], 0, out=["--cap NAME", "__GENO_CAPS"]),
    Case("repl --help", ["repl", "--help"], 0, out=[":type EXPR", ":quit"]),
    Case("no command, stdin not a terminal: usage", [], 2, stdin="/dev/null", err=["usage: geno <command>"]),
    Case("doc: a project's HTML, escaped, with doc comments and examples",
         ["doc", "{d}/docproj", "-o", "{d}/docs.html", "--title", "API <b>&"], 0,
         out=["Documentation generated: {d}/docs.html\n", "  2 module(s), 2 function(s), 1 type(s), 0 trait(s)\n"]),
    Case("doc --json: the outline", ["doc", "--json", "{d}/docproj/Shapes.geno"], 0,
         check=lambda out: doc_check(out)),
    Case("doc: a file that does not parse", ["doc", "{d}/fmtbad/broken.geno"], 1, err=["Error parsing", "error[E20"]),
    Case("doc: a missing file", ["doc", "{d}/nothere.geno"], 1, err=["File not found"]),
    Case("run --max-processes: the second exec is refused", ["run", "--cap", "print,process", "--max-processes", "1",
         "{d}/limits/procs.geno"], 1, out=["stdout: \"one\\n\""], err=["this run may start at most 1 process"]),
    Case("run --unsafe --max-processes 0", ["run", "--unsafe", "--cap", "print,process", "--max-processes", "0",
         "{d}/limits/procs.geno"], 1, no_out=["one"], err=["at most 0 processes"]),
    Case("run --max-file-size-bytes: a larger write is refused", ["run", "--cap", "print,fs", "--max-file-size-bytes", "5",
         "{d}/limits/write.geno"], 1, err=["10 bytes exceed the file size limit of 5 bytes"], cwd="{d}/limits"),
    Case("run --max-file-size-bytes: a write within it", ["run", "--cap", "print,fs", "--max-file-size-bytes", "10",
         "{d}/limits/write.geno"], 0, out=["()\n"], cwd="{d}/limits"),
    Case("run --max-memory-bytes", ["run", "--max-steps", "0", "--max-memory-bytes", "1000000", "{d}/limits/grow.geno"], 1,
         err=["E504"]),
    Case("run --max-cpu-time must be positive", ["run", "--max-cpu-time", "0", "{d}/hi.geno"], 2,
         err=["--max-cpu-time must be a positive number"]),
    Case("watch: a missing path", ["watch", "{d}/nowhere.geno"], 1, err=["Error: '{d}/nowhere.geno' not found"]),
    Case("watch: --filter without --test", ["watch", "-f", "x", "{d}/hi.geno"], 2, err=["apply to --test"]),
    Case("run --target: a builtin the target lacks", ["run", "--target", "browser", "{d}/browser/envy.geno"], 1,
         err=["'env_get' is not available on the 'browser' target"]),
    Case("run --target: an unknown target", ["run", "--target", "mars", "{d}/hi.geno"], 2, err=["invalid --target 'mars'"]),
    Case("run --filter is an option of test", ["run", "--filter", "x", "{d}/hi.geno"], 2, err=["--filter is an option of geno test"]),
    Case("run: stdout full", ["run", "{d}/hi.geno"], 1, err=["error writing output"], stdout="full"),
    Case("run --unsafe: stdout full", ["run", "--unsafe", "{d}/hi.geno"], 1, err=["error writing output"], stdout="full"),
    Case("run --json: stdout closed", ["run", "--json", "{d}/hi.geno"], 1, err=["error writing output"], stdout="closed"),
    Case("check: an excerpt of bytes that are not UTF-8 and ESC sequences shows them as '?'",
         ["check", "{d}/raw/notutf8.geno"], 1, clean=True,
         err=['notutf8.geno:2:20: error[E100]: Invalid UTF-8', '\n      let x: Int = "a??[31mred?"\n                     ^\n']),
    Case("run and test: the same excerpt, clean", ["run", "{d}/raw/notutf8.geno"], 1, clean=True,
         err=['      let x: Int = "a??[31mred?"\n']),
    Case("test -v: a failing example's excerpt holds ESC and BEL", ["test", "-v", "{d}/raw/ctl.geno"], 1, clean=True,
         out=['error[E409]: Example verification failed for f: expected "b\\u001b[2J", got "a"',
              '\n    example "a" -> "b?[2J"\n    ^\n']),
    Case("repl: excerpts of the input, its messages and echoes, clean", ["repl"], 0, stdin="{d}/raw/repl.txt", clean=True,
         out=['"?[2J" : String\n'],
         err=['<input>:1:16: error[E100]: Invalid UTF-8: unexpected byte 0xff (source must be UTF-8)\n'
              '  let x: Int = "a??[31m"\n                 ^\n',
              '<input>:1:1: error[E300]: Cannot apply', '\n  "?[2J" + 1\n  ^\n',
              "Error: cannot read /nonexistent/?[2J: No such file or directory\n",
              "Unknown command ':?[31mx'", '<input>:2:18: error[E100]', '\n      return "?[31m?"\n                   ^\n']),
    Case("repl: a definition with a byte that is not UTF-8 is one input with one error", ["repl"], 0,
         stdin="{d}/raw/repl_def.txt", clean=True, out=["=> 2\n"],
         err=['<input>:2:13: error[E100]: Invalid UTF-8: unexpected byte 0xfe'],
         no_err=["Unexpected end of input", "<input>:1:"]),
    Case("fmt --diff: lines with control characters", ["fmt", "--diff", "{d}/raw/ctl.geno"], 0, clean=True,
         out=['-  example "a" -> "b?[2J"\n-  return x // ?]0;title?\n+    example "a" -> "b?[2J"\n+    return x // ?]0;title?\n']),
    Case("doc: control characters never reach the page", ["doc", "{d}/raw/ctl.geno", "-o", "/dev/stdout"], 0,
         clean=True, out=['example &quot;a&quot; -&gt; &quot;b?[2J&quot;', "doc ?[31m ? comment"]),
    Case("run: a path with an ESC sequence is echoed clean", ["run", "{d}/no\x1b[31m.geno"], 1, clean=True,
         err=["Error: File not found: {d}/no?[31m.geno\n"]),
    Case("check: stdout full", ["check", "--json", "{d}/hi.geno"], 1, err=["error writing output"], stdout="full"),
]


def run_case(geno, d, case):
    args = ([sys.executable] if case.python else [geno]) + [a.replace("{d}", d) for a in case.args]
    kw = dict(stderr=subprocess.PIPE, timeout=60)
    if case.python or case.env:
        kw["env"] = {**os.environ, "GENO_BINARY": geno, **(case.env or {})}
    if case.cwd is not None:
        kw["cwd"] = case.cwd.replace("{d}", d)
    if case.stdin:
        kw["stdin"] = open(case.stdin.replace("{d}", d), "rb")
    if case.stdout == "full":
        with open("/dev/full", "wb") as full:
            p = subprocess.run(args, stdout=full, **kw)
        out = ""
    elif case.stdout == "closed":
        # the child starts with descriptor 1 closed
        p = subprocess.run(args, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1), **kw)
        out = ""
    else:
        p = subprocess.run(args, stdout=subprocess.PIPE, **kw)
        out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    problems = []
    if case.clean:
        for name, data in (("stdout", getattr(p, "stdout", None) or b""), ("stderr", p.stderr)):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
                problems.append(f"{name} is not UTF-8: {e}")
                continue
            bad = sorted({hex(ord(c)) for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0})
            if bad:
                problems.append(f"{name} holds control characters {bad}")
    if p.returncode != case.rc:
        problems.append(f"exit {p.returncode}, expected {case.rc}")
    problems += [f"stdout lacks {s!r}" for s in case.out if s.replace("{d}", d) not in out]
    problems += [f"stdout has {s!r}" for s in case.no_out if s.replace("{d}", d) in out]
    problems += [f"stderr lacks {s!r}" for s in case.err if s.replace("{d}", d) not in err]
    problems += [f"stderr has {s!r}" for s in case.no_err if s.replace("{d}", d) in err]
    if case.check:
        msg = case.check(out)
        if msg:
            problems.append(msg)
    if problems:
        print(f"FAIL {case.name}: {'; '.join(problems)}\n  $ {' '.join(args)}\n  stdout: {out[:300]!r}\n  stderr: {err[:300]!r}")
        return False
    return True


def watch_scenario(geno, d):
    """geno watch: a first run, a run after each change, a failing run
    reported, nothing for a file that is not a program, Ctrl-C stops it."""
    import signal
    import time
    wd = os.path.join(d, "watchdir")
    os.makedirs(wd, exist_ok=True)
    prog = os.path.join(wd, "w.geno")

    def write(path, text):
        with open(path, "w") as f:
            f.write(text)

    write(prog, "func main() -> Int\n    return 1\nend func\n")
    p = subprocess.Popen([geno, "watch", prog], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def wait_for(text, limit=10.0):
        end = time.time() + limit
        while time.time() < end:
            time.sleep(0.1)
            if text in seen[0]:
                return True
        return False
    seen = [""]
    import threading

    def reader():
        for chunk in iter(lambda: p.stdout.read1(4096), b""):
            seen[0] += chunk.decode("utf-8", "replace")
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    problems = []
    try:
        if not wait_for("=> 1\n"):
            problems.append("no first run")
        write(os.path.join(wd, "notes.txt"), "not a program\n")
        write(prog, "func main() -> Int\n    return 2\nend func\n")
        if not wait_for("=> 2\n"):
            problems.append("no run after a change")
        write(prog, 'func main() -> Int\n    return "x"\nend func\n')
        if not wait_for("Process exited with status 1"):
            problems.append("a failing run not reported")
    finally:
        p.send_signal(signal.SIGINT)
        try:
            rc = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = None
        t.join(timeout=5)
    if rc != 0:
        problems.append(f"exit {rc} after Ctrl-C")
    if "Watch mode stopped." not in seen[0]:
        problems.append("no stop message")
    if seen[0].count("--- File change detected, re-running ---") != 2:
        problems.append(f"{seen[0].count('--- File change detected')} re-runs, expected 2")
    if problems:
        print(f"FAIL geno watch: {'; '.join(problems)}\n  output: {seen[0][:600]!r}")
        return False
    return True


def repl_tty_scenario(geno, d):
    """geno repl at a terminal (a pty, so libedit reads the lines): text
    that is not ASCII reaches the program whole, whatever the locale says."""
    import pty
    import select
    import time
    problems = []
    for lang in ("C.UTF-8", "C"):
        env = dict(os.environ, HOME=d, LANG=lang, LC_ALL=lang, TERM="dumb")
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(geno, [geno, "repl"], env)
        seen = b""

        def wait_for(text, limit=10.0):
            nonlocal seen
            end = time.time() + limit
            while text not in seen and time.time() < end:
                if select.select([fd], [], [], 0.1)[0]:
                    try:
                        chunk = os.read(fd, 4096)
                    except OSError:
                        break
                    if not chunk:
                        break
                    seen += chunk
            return text in seen
        try:
            if not wait_for(b">>> "):
                problems.append(f"{lang}: no prompt")
            os.write(fd, 'length("h\u00e9\u00e9") + 0\n'.encode())
            if not wait_for(b"=> 3\r\n"):
                problems.append(f"{lang}: a line with 'e acute' read as {seen[-80:]!r}")
            os.write(fd, ':quit\n'.encode())
        finally:
            for _ in range(50):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            os.close(fd)
    if problems:
        print(f"FAIL geno repl at a terminal: {'; '.join(problems)}")
        return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geno", required=True)
    opts = ap.parse_args()
    geno = os.path.abspath(opts.geno)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as d:
        for name, text in PROGRAMS.items():
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "w", newline="") as f:
                f.write(text.replace("{d}", d))
        for name, data in BYTE_PROGRAMS.items():
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        # FIFOs nobody writes to, where a module and a manifest are read
        os.mkfifo(os.path.join(d, "fifo", "Pipe.geno"))
        os.mkfifo(os.path.join(d, "fifoproj", "geno.toml"))
        os.symlink(os.path.join(d, "outside", "Outside.geno"), os.path.join(d, "linkout", "Outside.geno"))
        os.symlink(os.path.join(d, "outside", "Outside.geno"), os.path.join(d, "linkimport", "Outside.geno"))
        os.symlink("Real.geno", os.path.join(d, "linksib", "Alias.geno"))
        os.symlink(os.path.join(d, "fmtout", "Ugly.geno"), os.path.join(d, "fmtlink", "Out.geno"))
        os.symlink("Fine.geno", os.path.join(d, "fmtlink", "Same.geno"))
        for case in CASES:
            if run_case(geno, d, case):
                passed += 1
            else:
                failed += 1
        for scenario in (watch_scenario, repl_tty_scenario):
            if scenario(geno, d):
                passed += 1
            else:
                failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
