"""Every RunConfig field at its edge and one past (and its validation)."""
import pytest

import geno
from geno import RunConfig

from conftest import prog

COUNT = prog("""
    func main() -> Int
        var i = 0
        while i < 200 do
            i = i + 1
        end while
        return i
    end func
""")


def code(r):
    return r.diagnostics[0].code.value if r.diagnostics else None


def test_max_steps_edge():
    used = geno.run(COUNT).steps_used
    assert geno.run(COUNT, config=RunConfig(max_steps=used)).ok
    over = geno.run(COUNT, config=RunConfig(max_steps=used - 1))
    assert code(over) == "E503"
    assert geno.run(COUNT, config=RunConfig(max_steps=None)).ok


def depth_prog(n):
    return prog(f"""
        func down(n: Int) -> Int
            example 0 -> 0
            if n == 0 then
                return 0
            end if
            return down(n - 1) + 1
        end func

        func main() -> Int
            return down({n})
        end func
    """)


def test_max_recursion_depth_edge():
    # main plus down(n) .. down(0): n + 2 nested calls
    assert geno.run(depth_prog(8), config=RunConfig(max_recursion_depth=10)).value == 8
    assert code(geno.run(depth_prog(9), config=RunConfig(max_recursion_depth=10))) == "E502"


def test_max_output_length_edge_keeps_partial_output():
    src = 'func main() -> Unit\n    print("abcd")\n    print("e")\nend func\n'
    full = geno.run(src, config=RunConfig(capabilities={"print"}, max_output_length=7))
    assert full.ok and full.output == "abcd\ne\n"
    cut = geno.run(src, config=RunConfig(capabilities={"print"}, max_output_length=6))
    assert code(cut) == "E505" and cut.output.startswith("abcd\n")
    none = geno.run(src, config=RunConfig(capabilities={"print"}, max_output_length=0))
    assert code(none) == "E505" and none.output == ""


def test_max_collection_size_edge():
    src = "func main() -> Int\n    return length(range(0, 100))\nend func\n"
    assert geno.run(src, config=RunConfig(max_collection_size=100)).value == 100
    assert code(geno.run(src, config=RunConfig(max_collection_size=99))) == "E504"


def test_max_integer_bits_edge():
    src = "func main() -> Int\n    var x = 1\n    var i = 0\n    while i < 99 do\n        x = x * 2\n        i = i + 1\n    end while\n    return x\nend func\n"
    assert geno.run(src, config=RunConfig(max_integer_bits=100)).value == 2 ** 99
    assert code(geno.run(src, config=RunConfig(max_integer_bits=99))) == "E504"


def test_timeout_edge():
    loop = "func main() -> Int\n    var i = 0\n    while true do\n        i = i + 1\n    end while\n    return i\nend func\n"
    r = geno.run(loop, config=RunConfig(timeout=0.2, max_steps=None))
    assert code(r) == "E501" and 150 <= r.timing.total_ms < 3000
    assert geno.run(COUNT, config=RunConfig(timeout=None)).ok


def test_check_examples_field():
    src = prog("""
        func wrong(x: Int) -> Int
            example 1 -> 5
            return x
        end func

        func main() -> Int
            return wrong(1)
        end func
    """)
    assert code(geno.run(src)) == "E409"
    assert geno.run(src, config=RunConfig(check_examples=False)).value == 1


@pytest.mark.parametrize("field,bad", [
    ("timeout", 0), ("timeout", -1.0), ("timeout", float("inf")), ("timeout", float("nan")), ("timeout", True),
    ("timeout", "5"), ("max_steps", 0), ("max_steps", -5), ("max_steps", 1.5), ("max_steps", True),
    ("max_recursion_depth", 0), ("max_recursion_depth", None), ("max_output_length", -1),
    ("max_collection_size", -1), ("max_integer_bits", 0), ("capabilities", {"prnt"}),
    ("capabilities", "print"), ("capabilities", {""}), ("env_allowed_names", "HOME"),
    ("env_allowed_prefixes", {""}), ("host_callbacks", {"no_such_builtin": print}),
    ("host_callbacks", {"length": print}),
])
def test_out_of_domain_values_raise_value_error(field, bad):
    with pytest.raises(ValueError):
        RunConfig(**{field: bad})


@pytest.mark.parametrize("field,bad", [
    ("host_callbacks", {"print": 5}), ("host_callbacks", [("print", print)]), ("modules", {"A": 5}),
    ("modules", ["A"]), ("target", 5), ("check_examples", 1), ("monitoring_hook", 5),
])
def test_wrong_types_raise_type_error(field, bad):
    with pytest.raises(TypeError):
        RunConfig(**{field: bad})


def test_smallest_valid_values_are_accepted():
    RunConfig(timeout=1e-9, max_steps=1, max_recursion_depth=1, max_output_length=0, max_collection_size=0,
              max_integer_bits=1, capabilities=set(), env_allowed_names=set(), env_allowed_prefixes=set(),
              host_callbacks={}, modules={}, target=None)


def test_huge_limits_are_clamped_not_wrapped():
    huge = 1 << 80
    r = geno.run(COUNT, config=RunConfig(max_steps=huge, max_recursion_depth=huge, max_output_length=huge,
                                         max_collection_size=huge, max_integer_bits=huge))
    assert r.ok and r.value == 200


def test_unknown_capability_suggests_a_name():
    with pytest.raises(ValueError, match="Did you mean 'print'"):
        RunConfig(capabilities={"prnt"})


def test_fields_changed_after_construction_are_checked_at_run():
    cfg = RunConfig()
    cfg.max_steps = -1
    with pytest.raises(ValueError):
        geno.run(COUNT, config=cfg)


def test_unknown_target_is_a_diagnostic():
    r = geno.run(COUNT, config=RunConfig(target="mainframe"))
    assert not r.ok and "mainframe" in r.diagnostics[0].message
