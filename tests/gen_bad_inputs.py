#!/usr/bin/env python3
"""Hostile and huge inputs for the front end, generated at test time.

Each case is a byte string built here (nothing big is committed) and the
diagnostics the front end must give for it: a list of (code, line, column)
and optionally a piece of the first message, or [] for a valid program.
Every case is parsed by tests/parse_file (the public geno_parse with the
source-size limits lifted, plus geno_source_imports), under a time and a
memory budget; inputs small enough for `geno check` (1 MiB by default) also
go through `geno check --syntax-only --json`, which must agree.

Where the reference implementation gives an answer, the expectations are
its answers (checked when the case was written); where it crashes or hangs,
they are what docs/compatibility.md says we do instead.

Usage: gen_bad_inputs.py --parse-file PATH [--geno PATH]
                         [--build release|debug|sanitized]
                         [--filter SUBSTR] [--keep DIR] [-v]
Prints one line per failure and ends with "N passed, N failed".
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

MiB = 1 << 20
N = 100_000  # nesting / chain length for the "100,000 nested" cases

FUNC = b"func main() -> Int\n"
END = b"end func\n"


def in_main(body):
    """A function whose body is `body` (bytes), as line 2 onwards."""
    return FUNC + body + b"\n" + END


# (name, source bytes, expected [(code, line, col)], message fragment,
#  seconds, MiB of RSS). The time budget is for geno_parse alone in a
# release (-O2) build, with room for a loaded machine; --build debug
# multiplies it by 4 and --build sanitized by 40 (and skips the memory
# budget, which ASan's shadow memory would break).
CASES = []


def case(name, src, expect, fragment=None, seconds=1.0, rss_mb=64):
    """src: bytes, or a function returning them (big inputs are built only
    when their case runs, so this process stays small)."""
    CASES.append((name, src, expect, fragment, seconds, rss_mb))


# ---- encoding -------------------------------------------------------------
case("utf8_invalid_in_code", in_main(b"  return 1 \xff"), [("E100", 2, 12)], "Invalid UTF-8")
case("utf8_invalid_in_string", in_main(b'  let s: String = "ab\xc3("\n  return 0'), [("E100", 2, 22)],
     "Invalid UTF-8")
case("utf8_invalid_in_comment", b"// caf\xe9\n" + in_main(b"  return 0"), [("E100", 1, 7)], "Invalid UTF-8")
case("utf8_invalid_in_block_comment", b"/* \xfe\xff */\n" + in_main(b"  return 0"), [("E100", 1, 4)],
     "Invalid UTF-8")
case("utf8_overlong", in_main(b'  return "\xc0\xaf"'), [("E100", 2, 11)], "Invalid UTF-8")
case("utf8_surrogate", in_main(b'  return "\xed\xa0\x80"'), [("E100", 2, 11)], "Invalid UTF-8")
case("utf8_above_max", in_main(b'  return "\xf4\x90\x80\x80"'), [("E100", 2, 11)], "Invalid UTF-8")
case("utf8_lone_continuation", in_main(b"  return \x80"), [("E100", 2, 10)], "Invalid UTF-8")
case("utf8_truncated_at_eof", FUNC + b'  return "\xe2\x82', [("E100", 2, 11)], "Invalid UTF-8")
case("utf8_bom", b"\xef\xbb\xbf" + in_main(b"  return 0"), [("E100", 1, 1)], "\\ufeff")
case("utf8_columns_count_code_points", in_main('  let s: String = "日本語🎉" !'.encode()), [("E100", 2, 26)],
     "'!'")

# ---- NUL bytes: an error at the NUL wherever it is --------------------------
case("nul_only", b"\x00", [("E100", 1, 1)], "\\x00")
case("nul_in_code", in_main(b"  return 1\x00"), [("E100", 2, 11)], "\\x00")
case("nul_in_string", in_main(b'  return "a\x00b"'), [("E100", 2, 12)], "\\x00")
case("nul_in_triple_string", in_main(b'  return """a\x00b"""'), [("E100", 2, 14)], "\\x00")
case("nul_in_fstring", in_main(b'  return f"a\x00b"'), [("E100", 2, 13)], "\\x00")
case("nul_in_fstring_expr", in_main(b'  return f"{1 \x00}"'), [("E100", 2, 15)], "\\x00")
case("nul_in_line_comment", in_main(b"  return 1 // a\x00b"), [("E100", 2, 16)], "\\x00")
case("nul_in_block_comment", in_main(b"  return 1 /* a\x00b */"), [("E100", 2, 16)], "\\x00")

# ---- 10 MB inputs ------------------------------------------------------------
TEN = 10 * MiB
case("parens_10mb_top_level", lambda: b"(" * TEN, [("E202", 1, 1)], "Expected 'func'")
case("parens_10mb_in_function", lambda: FUNC + b"  return " + b"(" * TEN, [("E200", 2, 60)], "nesting too deep")
case("brackets_10mb_in_function", lambda: FUNC + b"  return " + b"[" * TEN, [("E200", 2, 60)], "nesting too deep")
case("braces_10mb", lambda: b"{" * TEN, [("E202", 1, 1)], "Expected 'func'")
case("string_10mb", lambda: in_main(b'  let s: String = "' + b"a" * TEN + b'"\n  return 0'), [])
case("triple_string_10mb", lambda: in_main(b'  let s: String = """' + b"line\n" * (TEN // 5) + b'"""\n  return 0'), [])
case("block_comment_10mb", lambda: b"/*" + b"* comment text\n" * (TEN // 15) + b"*/\n" + in_main(b"  return 0"), [])
case("identifiers_10mb_top_level", lambda: b"x " * (TEN // 2), [("E202", 1, 1)], "Expected 'func'")
case("functions_10mb", lambda: b"func f() -> Int\n  return 1 + 2\nend func\n" * (TEN // 38), [], None, 1.5, 400)
# Every `func` without a name is one error; the list is capped at 1000.
case("errors_10mb", lambda: b"func " * (TEN // 5), [("E201", 1, 6 + 5 * i) for i in range(1000)],
     "Expected function name")

# ---- 100,000 nested blocks and expressions ------------------------------------
# The parser's recursion stops at depth 50 (E200, as in the reference); the
# rest of the input is skipped to the next definition keyword.
case("nested_if_100k", FUNC + b"if true then\n" * N + b"end if\n" * N + b"  return 0\n" + END,
     [("E200", 51, 4)], "Expression nesting too deep")
case("nested_while_100k", FUNC + b"while x do\n" * N + b"end while\n" * N + b"  return 0\n" + END,
     [("E200", 51, 7)], "Expression nesting too deep")
case("nested_try_100k", FUNC + b"try\n" * N + b"catch e: String\nend try\n" * N + b"  return 0\n" + END,
     [("E200", 52, 1)], "Statement nesting too deep")
case("nested_match_100k", FUNC + b"match x with | _ ->\n" * N + b"end match\n" * N + b"  return 0\n" + END,
     [("E200", 51, 7)], "Expression nesting too deep")
case("nested_block_lambdas_100k", FUNC + b"  let f = " + b"fn() do\n" * N + b"1\n" + b"end fn\n" * N
     + b"  return 0\n" + END, [("E200", 52, 1)], "Expression nesting too deep")
case("nested_expr_lambdas_100k", FUNC + b"  let f = " + b"fn() -> " * N + b"1\n  return 0\n" + END,
     [("E200", 2, 411)], "Expression nesting too deep")
case("nested_lists_100k", FUNC + b"  let x = " + b"[" * N + b"]" * N + b"\n  return 0\n" + END,
     [("E200", 2, 61)], "Expression nesting too deep")
case("nested_parens_100k", FUNC + b"  return " + b"(" * N + b"1" + b")" * N + b"\n" + END,
     [("E200", 2, 60)], "Expression nesting too deep")
case("nested_not_100k", FUNC + b"  return " + b"not " * N + b"true\n" + END,
     [("E200", 2, 210)], "Expression nesting too deep")
case("nested_minus_100k", FUNC + b"  return " + b"-" * N + b"1\n" + END,
     [("E200", 2, 60)], "Expression nesting too deep")
case("nested_power_100k", FUNC + b"  return 2" + b" ** 2" * N + b"\n" + END,
     [("E200", 2, 260)], "Expression nesting too deep")
case("nested_types_100k", b"func f(x: " + b"List[" * N + b"Int" + b"]" * N + b") -> Int\n  return 0\n" + END,
     [("E200", 1, 261)], "Type annotation nesting too deep")
case("nested_patterns_100k", FUNC + b"  match x with\n    | " + b"Some(" * N + b"y" + b")" * N
     + b" -> return 0\n  end match\n" + END, [("E200", 3, 252)], "Pattern nesting too deep")
case("nested_fstring_parens", FUNC + b'  return f"{' + b"(" * 60 + b"1" + b")" * 60 + b'}"\n' + END,
     [("E200", 2, 63)], "Expression nesting too deep")

# ---- long chains: read in loops, bounded by the tree-depth limit (1000) ----------
DEEP = "Code nested too deeply"
case("else_if_chain_990", FUNC + b"  if false then\n    return 1\n" + b"  else if false then\n    return 1\n" * 990
     + b"  end if\n  return 0\n" + END, [])
case("else_if_chain_100k", FUNC + b"  if false then\n    return 1\n" + b"  else if false then\n    return 1\n" * N
     + b"  end if\n  return 0\n" + END, [("E200", 1999, 12)], DEEP, 1.0, 128)
# `return` is level 1 and the chain's root level 2, so 998 operators put
# the first operand at level 1000, the limit, and 999 one past it.
case("operator_chain_998", FUNC + b"  return 1" + b" + 1" * 998 + b"\n" + END, [])
case("operator_chain_999", FUNC + b"  return 1" + b" + 1" * 999 + b"\n" + END, [("E200", 2, 10)], DEEP)
case("operator_chain_100k", FUNC + b"  return 1" + b" + 1" * N + b"\n" + END, [("E200", 2, 10)], DEEP)
case("and_chain_100k", FUNC + b"  return a" + b" and a" * N + b"\n" + END, [("E200", 2, 10)], DEEP)
case("field_chain_100k", FUNC + b"  return x" + b".f" * N + b"\n" + END, [("E200", 2, 10)], DEEP)
case("call_chain_100k", FUNC + b"  return f" + b"()" * N + b"\n" + END, [("E200", 2, 10)], DEEP)
case("index_chain_100k", FUNC + b"  return x" + b"[0]" * N + b"\n" + END, [("E200", 2, 10)], DEEP)
case("propagate_chain_100k", FUNC + b"  return x" + b"?" * N + b"\n" + END, [("E200", 2, 10)], DEEP)
case("pipeline_100k", FUNC + b"  return x" + b" |> f" * N + b"\n" + END, [])
case("statements_100k", FUNC + b"  let x: Int = 1\n" * N + b"  return 0\n" + END, [])
case("list_elements_1m", FUNC + b"  let xs: List[Int] = [" + b"1, " * (10 * N) + b"1]\n  return 0\n" + END,
     [], None, 1.0, 256)

# ---- unterminated things at the end of the file ---------------------------------
case("eof_in_string", FUNC + b'  return "abc', [("E101", 2, 10)], "Unterminated string literal")
case("eof_in_triple_string", FUNC + b'  return """abc\nmore', [("E101", 2, 10)], "Unterminated multi-line")
case("eof_in_fstring", FUNC + b'  return f"abc', [("E101", 2, 11)], "Unterminated f-string literal")
case("eof_in_fstring_expr", FUNC + b'  return f"abc {1 +', [("E101", 2, 17)], "Unterminated f-string expression")
case("eof_in_block_comment", in_main(b"  return 0") + b"/* trailing", [("E102", 4, 1)], "Unterminated block comment")
case("eof_after_escape", FUNC + b'  return "abc\\', [("E103", 2, 15)], "Invalid escape")
case("only_quote", b'"', [("E101", 1, 1)], "Unterminated string literal")
case("only_fquote", b'f"', [("E101", 1, 2)], "Unterminated f-string literal")
case("only_comment_open", b"/*", [("E102", 1, 1)], "Unterminated block comment")
case("unclosed_function", FUNC + b"  return 0\n", [("E201", 3, 1)], "Expected 'end', got end of file")
case("unclosed_function_no_newline", FUNC + b"  return 0", [("E201", 2, 11)], "Expected 'end'")

# ---- line endings: CR LF and lone CR end lines, as in the reference -----------------
CRLF_OK = b"// config\r\nfunc main() -> String\r\n  let s: String = \"\"\"a\r\nb\"\"\"\r\n  return s\r\nend func\r\n"
case("crlf_valid", CRLF_OK, [])
case("crlf_error_column", b"func main() -> Int\r\n  let x: Int = (1\r\n  return x\r\nend func\r\n",
     [("E201", 3, 3)], "Expected ')', got 'return'")
case("crlf_unterminated_string", b"func main() -> String\r\n  return \"abc\r\nend func\r\n",
     [("E101", 2, 10)], "Unterminated string literal")
case("crlf_error_at_line_end", b"func main() -> Int\r\n  return 1 +\r\nend func\r\n",
     [("E202", 3, 1)], "got 'end'")
case("crlf_unclosed_function", b"func main() -> Int\r\n  return 0\r\n", [("E201", 3, 1)], "end of file")
case("cr_only_lines", b"func main() -> Int\r  let x: Int = 1\r  x +\rend func\r",
     [("E202", 4, 1)], "got 'end'")
case("mixed_line_endings", b"func main() -> Int\r\n  let a: Int = 1\n  let b: Int = 2\r  return a +\r\nend func\n",
     [("E202", 5, 1)], "got 'end'")
case("crlf_in_block_comment", b"/* one\r\ntwo\r\n*/ func main() -> Int\r\n  return $\r\nend func\r\n",
     [("E100", 4, 10)], "'$'")

# ---- (almost) empty files ----------------------------------------------------------
case("empty", b"", [])
case("only_newlines", b"\n\n\r\n\r", [])
case("only_whitespace", b" \t \n\t\n   ", [])
case("only_line_comment_no_newline", b"// just a comment", [])
case("only_block_comment", b"/* just\n   a comment */", [])
case("only_comments_mixed", b"// a\n/* b */ // c\n/**/\n", [])


# Time-budget factor per kind of build.
SLOWDOWN = {"release": 1, "debug": 4, "sanitized": 40}


def run(cmd, timeout):
    """Run cmd; return (exit status or None on timeout, stdout, stderr)."""
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, b"", b"TIMEOUT"


def parse_output(text):
    """parse_file's output -> (diagnostics, {"parse_ms": .., "peak_rss_kb": ..})."""
    diags, stats = [], {}
    for line in text.splitlines():
        key, _, rest = line.partition(" ")
        if key in ("imports", "parse_ms", "peak_rss_kb"):
            stats[key] = float(rest)
            continue
        code, loc, msg = (line.split(" ", 2) + [""])[:3]
        ln, col = loc.split(":")
        diags.append((code, int(ln), int(col), msg))
    return diags, stats


def short(xs):
    return xs if len(xs) < 6 else list(xs[:3]) + ["... %d in all" % len(xs)]


def check_case(args, tmpdir, name, src, expect, fragment, seconds, rss_mb):
    fails = []
    if callable(src):
        src = src()
    path = os.path.join(tmpdir, name + ".geno")
    with open(path, "wb") as f:
        f.write(src)
    size = len(src)
    del src
    budget = seconds * SLOWDOWN[args.build]
    # Generous wall-clock cap on the whole driver; the budget proper is on
    # geno_parse's own time, reported by the driver.
    rc, out, err = run([args.parse_file, path], 30 * budget + 30)
    if rc is None:
        return ["parse_file timed out"]
    if rc not in (0, 1):
        return ["parse_file exit %s: %s" % (rc, err.decode("utf-8", "replace")[-500:])]
    got, stats = parse_output(out.decode("utf-8", "replace"))
    keys = [(c, ln, col) for c, ln, col, _ in got]
    if keys != expect:
        fails.append("diagnostics: want %s got %s" % (short(expect), short(got)))
    if rc != (1 if expect else 0):
        fails.append("parse_file exit %d, want %d" % (rc, 1 if expect else 0))
    if fragment and got and fragment not in got[0][3]:
        fails.append("first message %r lacks %r" % (got[0][3], fragment))
    if any("\r" in m for *_, m in got):
        fails.append("a message contains a carriage return")
    secs = stats.get("parse_ms", 0) / 1000.0
    if secs > budget:
        fails.append("geno_parse took %.2fs (budget %.1fs)" % (secs, budget))
    rss = stats.get("peak_rss_kb", 0) / 1024.0
    if args.build != "sanitized" and rss > rss_mb:
        fails.append("peak RSS %.0f MiB (budget %d MiB)" % (rss, rss_mb))
    if args.geno:
        # The user-facing command: the same answer for inputs within its
        # default size limit (1 MiB), a clean E204 beyond it.
        rc2, out2, err2 = run([args.geno, "check", "--syntax-only", "--json", path], 30 * budget + 30)
        try:
            j = json.loads(out2)
            if size <= MiB:
                got2 = [(d["code"], d["location"]["line"], d["location"]["column"]) for d in j["diagnostics"]]
                if got2 != expect or rc2 != (1 if expect else 0):
                    fails.append("geno check: want %s got %s (exit %s)" % (short(expect), short(got2), rc2))
            else:
                codes = [d["code"] for d in j["diagnostics"]]
                if codes != ["E204"] or rc2 != 1:
                    fails.append("geno check on %d bytes: want [E204] exit 1, got %s exit %s" % (size, codes, rc2))
        except (ValueError, KeyError, TypeError) as e:
            fails.append("geno check gave no usable JSON (exit %s, %s): %r" % (rc2, e, (out2 + err2)[-300:]))
    if args.verbose:
        print("  %-32s %8d bytes %7.3fs %5.0f MiB %s" % (name, size, secs, rss, short(keys)[:2]))
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parse-file", required=True)
    ap.add_argument("--geno")
    ap.add_argument("--build", choices=sorted(SLOWDOWN), default="debug",
                    help="how the binaries were built (scales the time budget)")
    ap.add_argument("--filter", default="")
    ap.add_argument("--keep", help="write the generated inputs to this directory and keep them")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    failed = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = args.keep or tmp
        os.makedirs(tmpdir, exist_ok=True)
        for name, src, expect, fragment, seconds, rss_mb in CASES:
            if args.filter not in name:
                continue
            fails = check_case(args, tmpdir, name, src, expect, fragment, seconds, rss_mb)
            if fails:
                failed += 1
                print("FAIL %s" % name)
                for f in fails:
                    print("  " + f)
            else:
                passed += 1
            if not args.keep:
                os.unlink(os.path.join(tmpdir, name + ".geno"))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
