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
