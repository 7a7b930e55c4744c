"""constrain_prefix / validate_prefix / ConstraintResult (the reference's names over libgeno's recognizer)."""
import dataclasses
import inspect
import json

import pytest

import geno


def test_reference_example():
    result = geno.constrain_prefix("func main() -> ")
    assert result.valid is True
    assert result.unclosed_blocks == ("func",)
    assert result.error is None


def test_fields_and_json_form():
    assert [f.name for f in dataclasses.fields(geno.ConstraintResult)] == [
        "allowed_next", "valid", "error", "unclosed_blocks"]
    assert list(inspect.signature(geno.constrain_prefix).parameters) == ["prefix"]
    r = geno.constrain_prefix("func f(x: Int) -> Int\n    match x with\n")
    assert r.valid and r.unclosed_blocks == ("match", "func")
    d = r.to_dict()
    assert list(d) == ["valid", "error", "unclosed_blocks", "allowed_next"]
    assert list(d["allowed_next"]) == ["keywords", "allow_identifier", "allow_type_identifier", "allow_int",
                                       "allow_float", "allow_string", "allow_bool", "allow_punct",
                                       "expected_end_stack"]
    assert d["allowed_next"]["expected_end_stack"] == ["match", "func"]
    json.dumps(d)
    assert repr(r.allowed_next).startswith("AllowedNext(")


def test_invalid_prefixes():
    ok, error = geno.validate_prefix("end func")
    assert ok is False and error
    r = geno.constrain_prefix("func main() -> Int\nend while")
    assert not r.valid and r.error
    # a prefix may stop inside a string: still valid (the reference says otherwise)
    assert geno.constrain_prefix('func main() -> String\n    return "abc').valid


def test_bad_arguments():
    with pytest.raises(TypeError):
        geno.constrain_prefix(None)
    with pytest.raises(ValueError):
        geno.constrain_prefix("\ud800")


# ---- sessions, vocabularies and masks ------------------------------------

def parses(text: str) -> bool:
    """No lexer or parser diagnostic: checker and import-resolution errors do not count."""
    return not [d for d in geno.check(text).diagnostics if d.code.name.startswith(("LEX_", "PARSE_"))]


def test_session_feeds_and_answers():
    s = geno.Session()
    assert s.state == "complete" and s.valid and s.complete  # the empty text parses
    assert s.feed("func main() -> Int\n    return \"h\xe9")  # inside a string, a str is fed as UTF-8
    assert s.state == "valid" and s.error is None
    assert s.feed(b"llo\"\nend func\n")
    assert s.complete
    c = s.clone()
    assert not c.feed(")") and c.state == "invalid" and "unexpected" in c.error
    assert not c.feed("\nfunc")  # stays invalid
    assert s.complete  # the clone is independent
    # a text may stop inside a character
    u = geno.Session('func main() -> String\n    return "')
    assert u.feed(b"\xc3") and u.state == "valid"
    assert not u.feed(b"\x41")  # not a continuation byte


def test_session_argument_errors():
    s = geno.Session()
    with pytest.raises(TypeError):
        s.feed(3)
    with pytest.raises(TypeError):
        s.mask(["func"])
    with pytest.raises(TypeError):
        geno.Vocabulary([b"ok", 7])


VOCAB_PIECES = ["", " ", "\n", "    ", "func", " main", "()", "(", ")", " ->", " Int", " return", " 1", "1.", " +",
                " x", "x", " end", " func", "end", " if", " then", "\"", " \"", "\")", "ab\"cd", "\\n", "\xe9",
                "\xe9\"", " //", "// c\n", "/*", "*/", " don't", ".x", "-x", "f\"", "{x", "}\"", " else",
                "\" else\n    if", " let", " =", "[", "]", ",", " match", " with", "\n    |", " _"]


def test_mask_is_exact_against_feeding_each_token():
    pieces = [p.encode("utf-8") for p in VOCAB_PIECES] + [b"\xc3", b"\xa9", b"\x00"]
    vocab = geno.Vocabulary(pieces)
    assert len(vocab) == len(pieces)
    prog = ('func main() -> Int\n    let s = f"{x}\xe9 \\n" // c\n    if x then\n        return 1.5\n    '
            'end if\n    return 1 + x\nend func\n').encode("utf-8")
    for cut in range(len(prog) + 1):
        s = geno.Session(prog[:cut])
        assert s.valid, cut
        m = s.mask(vocab)
        assert len(m) == (len(pieces) + 7) // 8
        for i, p in enumerate(pieces):
            c = s.clone()
            assert bool(m[i >> 3] >> (i & 7) & 1) == c.feed(p), (cut, p)
        assert s.allowed(vocab) == [i for i, p in enumerate(pieces) if s.clone().feed(p)]


def _docs_sampler():
    """The Python sampler block of docs/constrain.md, run as written."""
    import pathlib
    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "constrain.md").read_text()
    start = text.index("```python", text.index("The same in Python")) + len("```python")
    code = text[start:text.index("```", start)]
    scope: dict = {}
    exec(compile(code, "docs/constrain.md", "exec"), scope)  # noqa: S102 - our own documentation
    return scope["sample"]


def test_docs_sampler_always_parses():
    sample = _docs_sampler()
    lengths = []
    for seed in range(40):
        text = sample(seed)
        assert parses(text), (seed, text)
        assert geno.Session(text).complete
        lengths.append(len(text))
    assert sum(1 for n in lengths if n > 20) >= 20, lengths  # programs, not just the empty text


def test_text_size_limit():
    # the run/check source limit (1 MiB): a 10 MB prefix once took seconds
    from geno.constraints import MAX_TEXT_BYTES, Session
    assert MAX_TEXT_BYTES == 1 << 20
    fits = "// " + "a" * (MAX_TEXT_BYTES - 3)
    assert geno.constrain_prefix(fits).valid
    r = geno.constrain_prefix(fits + "a")
    assert not r.valid and r.unclosed_blocks == ()
    assert r.error == "Prefix is 1048577 bytes; the limit is 1048576 bytes"
    # counted in UTF-8 bytes, as the C API counts them
    assert not geno.constrain_prefix("// " + "é" * (MAX_TEXT_BYTES // 2)).valid
    assert geno.validate_prefix("x" * (10 * MAX_TEXT_BYTES)) == (
        False, "Prefix is 10485760 bytes; the limit is 1048576 bytes")
    s = Session(fits[:-1])
    assert s.feed("a") and s.state == "complete"
    assert not s.feed("a") and s.state == "invalid"
    assert "limit of constrained decoding is 1048576 bytes" in s.error
