#!/usr/bin/env python3
"""`geno constrain`: outputs, stdin, exit codes (golden cases written for
this project; the JSON and text forms are the reference's).

usage: run_constrain_cli.py --geno PATH
"""
import argparse
import json
import subprocess
import sys

ALL_KEYWORDS = ("and assert async await break catch continue do else end ensures example export false fn "
                "for func if impl import in let match not or ref requires return test then throw trait "
                "true try type var where while with").split()
ALL_PUNCT = ["!=", "%", "(", ")", "*", "+", ",", "-", "->", "/", ":", "<", "<=", "=", "==", ">", ">=",
             "[", "]", "_", "|", "|>"]

FUNC_JSON = (
    '{\n  "valid": true,\n  "error": null,\n  "unclosed_blocks": [\n    "func"\n  ],\n'
    '  "allowed_next": {\n    "keywords": [],\n    "allow_identifier": true,\n'
    '    "allow_type_identifier": false,\n    "allow_int": false,\n    "allow_float": false,\n'
    '    "allow_string": false,\n    "allow_bool": false,\n    "allow_punct": [],\n'
    '    "expected_end_stack": [\n      "func"\n    ]\n  }\n}\n')

MISMATCH = "func main() -> Int\nend while"
MISMATCH_MSG = "mismatched end: expected 'end func', got 'end while'"

# (name, argv, stdin, want_rc, want_stdout or callable, want_stderr or None)
CASES = [
    ("text form", ["func "], None, 0, "AllowedNext(IDENT, need_to_close=['func'])\n", ""),
    ("json form", ["--json", "func "], None, 0, FUNC_JSON, ""),
    ("stdin when no prefix", ["--json"], "func ", 0, FUNC_JSON, ""),
    ("validate valid", ["--validate", "func main() -> Int\n    if true then\n"], None, 0, "valid\n", ""),
    ("validate invalid", ["--validate", MISMATCH], None, 1, "",
     "Invalid prefix: " + MISMATCH_MSG + "\nUnclosed blocks: func\n"),
    ("plain invalid goes to stderr", [MISMATCH], None, 1, "",
     "Invalid prefix: " + MISMATCH_MSG + "\nAllowedNext(need_to_close=['func'])\n"),
    ("json wins over validate", ["--validate", "--json", MISMATCH], None, 1,
     lambda out: json.loads(out) == {
         "valid": False, "error": MISMATCH_MSG, "unclosed_blocks": ["func"],
         "allowed_next": {"keywords": [], "allow_identifier": False, "allow_type_identifier": False,
                          "allow_int": False, "allow_float": False, "allow_string": False,
                          "allow_bool": False, "allow_punct": [], "expected_end_stack": ["func"]}}, ""),
    ("empty prefix allows top-level keywords", ["--json", ""], None, 0,
     lambda out: json.loads(out)["allowed_next"]["keywords"] == ALL_KEYWORDS
     and json.loads(out)["allowed_next"]["allow_punct"] == ALL_PUNCT and json.loads(out)["valid"], ""),
    ("parameter list", ["--json", "func add(x"], None, 0,
     lambda out: json.loads(out)["allowed_next"]["allow_punct"] == [":", ",", ")"]
     and json.loads(out)["allowed_next"]["keywords"] == ["fn"], ""),
    ("import wants a module name", ["--json", "import "], None, 0,
     lambda out: json.loads(out)["allowed_next"]["allow_type_identifier"]
     and not json.loads(out)["allowed_next"]["allow_identifier"], ""),
    ("trait method is not a block", ["--json", "trait Show\n    func show(x: Int) -> String\n"], None, 0,
     lambda out: json.loads(out)["unclosed_blocks"] == ["trait"], ""),
    ("impl header for is not a loop", ["--json", "impl Show for Point\n"], None, 0,
     lambda out: json.loads(out)["unclosed_blocks"] == ["impl"], ""),
    ("innermost block first", ["--json", "func main() -> Int\n    try\n"], None, 0,
     lambda out: json.loads(out)["unclosed_blocks"] == ["try", "func"], ""),
    # exact where the reference is not (docs/compatibility.md)
    ("inside a string is valid", ["--validate", 'func main() -> String\n    return "abc'], None, 0, "valid\n", ""),
    ("inside a name is valid", ["--validate", "func main() -> Int\n    retu"], None, 0, "valid\n", ""),
    ("inside a block comment is valid", ["--validate", "/* note"], None, 0, "valid\n", ""),
    ("a prefix of a name can still become one", ["--validate", "func func"], None, 0, "valid\n", ""),
    ("a keyword where a name must come", ["--validate", "func func "], None, 1, "",
     "Invalid prefix: unexpected 'func'\nUnclosed blocks: func, func\n"),
    ("end with no block", ["--validate", "end"], None, 1, "",
     "Invalid prefix: unexpected 'end' with no open block\n"),
    ("unterminated string at a line end", ["--validate", 'func f() -> String\n    return "a\n'], None, 1,
     "", "Invalid prefix: Lexer error: Unterminated string literal\nUnclosed blocks: func\n"),
    # usage
    ("unknown option", ["--bogus"], None, 2, "", None),
    ("two prefixes", ["a", "b"], None, 2, "", None),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geno", required=True)
    args = ap.parse_args()
    failed = 0
    for name, argv, stdin, rc, want_out, want_err in CASES:
        p = subprocess.run([args.geno, "constrain"] + argv, input=(stdin or "").encode(),
                           capture_output=True, timeout=30)
        out, err = p.stdout.decode(), p.stderr.decode()
        ok = p.returncode == rc
        if callable(want_out):
            try:
                ok = ok and bool(want_out(out))
            except (ValueError, KeyError):
                ok = False
        else:
            ok = ok and out == want_out
        if want_err is not None:
            ok = ok and err == want_err
        if not ok:
            failed += 1
            print(f"FAIL {name}: rc={p.returncode} (want {rc})\n  stdout={out!r}\n  stderr={err!r}")
    print(f"constrain cli: {len(CASES) - failed}/{len(CASES)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
