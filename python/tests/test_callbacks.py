"""Host callbacks: values of every type both ways, exceptions, wrong types."""
import pytest

import geno
from geno import RunConfig
from geno.values import NONE, ConstructorValue, err, ok, some

from conftest import prog


def run_with(src, caps, callbacks, isolated=False):
    cfg = RunConfig(capabilities=set(caps), host_callbacks=callbacks)
    return geno.run_isolated(src, cfg) if isolated else geno.run(src, config=cfg)


EVERY_KIND = prog("""
    type Shape = Circle(r: Float) | Dot

    func main() -> Unit
        print(0)
        print(123456789012345678901234567890)
        print(-0.5)
        print(true)
        print(())
        print("é\\n")
        print([1, 2])
        print((1, "two"))
        print(map_from_list([("k", 1)]))
        print(Some(Circle(1.5)))
        print(Dot)
        print(Err("bad"))
        print(array_from_list([1]))
        print(vec_from_list(["v"]))
        print(set_from_list([2]))
        print(fn(x: Int) -> x)
    end func
""")


@pytest.mark.parametrize("isolated", [False, True])
def test_every_kind_of_value_reaches_python(isolated):
    seen = []
    r = run_with(EVERY_KIND, {"print"}, {"print": lambda v: seen.append(v)}, isolated)
    assert r.ok, r.diagnostics
    assert r.output == ""  # the callback replaced print
    # a written () is the empty tuple, as in the reference (a Unit no ()
    # wrote, such as a function's that ends without a return, is None)
    assert seen[:8] == [0, 123456789012345678901234567890, -0.5, True, (), "é\n", [1, 2], (1, "two")]
    assert seen[8] == {"k": 1}
    assert seen[9] == some(ConstructorValue("Circle", {"r": 1.5}))
    assert seen[10] == ConstructorValue("Dot") and seen[11] == err("bad")
    assert seen[12]._elements == [1] and seen[13]._elements == ["v"] and seen[14]._data == {2}
    assert isinstance(seen[15], geno.values.FunctionValue)


RETURNS = prog("""
    func main() -> (String, Bool, Int, Float, Unit, Result[List[String], String], Option[Float], Result[ProcessResult, String], Result[HttpResponse, String], Result[FileMetadata, String])
        let s: String = fs_read_text("f")
        let b: Bool = fs_exists("f")
        let i: Int = random_int(1, 2)
        let x: Float = random_float()
        let u: Unit = fs_write_text("f", "c")
        let l: Result[List[String], String] = fs_list_dir(".")
        let o: Option[Float] = clock_parse("t", "%Y")
        let p: Result[ProcessResult, String] = exec("/bin/true")
        let h: Result[HttpResponse, String] = http_request(method: "GET", url: "http://x", headers: [("a", "b")], body: "")
        let m: Result[FileMetadata, String] = fs_metadata("f")
        return (s, b, i, x, u, l, o, p, h, m)
    end func
""")


@pytest.mark.parametrize("isolated", [False, True])
def test_every_kind_of_value_returns_from_python(isolated):
    args = {}

    def rec(name, value):
        def f(*a):
            args[name] = a
            return value
        return f

    meta = ok(ConstructorValue("FileMetadata", {"kind": ConstructorValue("FileKindFile"), "size": 3,
                                                "modified_ms": 2 ** 40}))
    callbacks = {
        "fs_read_text": rec("fs_read_text", "text ✓"), "fs_exists": rec("fs_exists", True),
        "random_int": rec("random_int", 2 ** 100), "random_float": rec("random_float", 0.25),
        "fs_write_text": rec("fs_write_text", None), "fs_list_dir": rec("fs_list_dir", ok(["a", "b"])),
        "clock_parse": rec("clock_parse", NONE),
        "exec": rec("exec", ok(ConstructorValue("ProcessResult", {"exit_code": 0, "stdout": "o", "stderr": ""}))),
        "http_request": rec("http_request", err("offline")), "fs_metadata": rec("fs_metadata", meta),
    }
    r = run_with(RETURNS, {"fs", "random", "clock", "process", "http"}, callbacks, isolated)
    assert r.ok, r.diagnostics
    v = r.value_raw
    assert v[:5] == ("text ✓", True, 2 ** 100, 0.25, None)
    assert v[5] == ok(["a", "b"]) and v[6] == NONE and v[7].fields["value"].fields["stdout"] == "o"
    assert v[8] == err("offline") and v[9] == meta
    assert args["random_int"] == (1, 2) and args["fs_write_text"] == ("f", "c")
    assert args["http_request"] == ("GET", "http://x", [("a", "b")], "")


READ = 'func main() -> String\n    return fs_read_text("f")\nend func\n'


@pytest.mark.parametrize("isolated", [False, True])
def test_exception_becomes_the_programs_runtime_error(isolated):
    def boom(path):
        raise OSError(f"cannot open {path}")
    r = run_with(READ, {"fs"}, {"fs_read_text": boom}, isolated)
    assert not r.ok and r.diagnostics[0].code is geno.ErrorCode.RUNTIME_UNKNOWN
    assert r.diagnostics[0].message == "cannot open f"  # the message, no traceback
    assert "Traceback" not in r.diagnostics[0].message


def test_exception_is_catchable_by_the_program():
    src = prog("""
        func main() -> String
            try
                return fs_read_text("f")
            catch e: String
                return "caught: " + e
            end try
        end func
    """)
    r = run_with(src, {"fs"}, {"fs_read_text": lambda p: 1 / 0}, False)
    assert r.ok and r.value == "caught: division by zero"


def test_exception_without_message_names_its_type():
    def quiet(path):
        raise LookupError()
    r = run_with(READ, {"fs"}, {"fs_read_text": quiet}, False)
    assert "LookupError" in r.diagnostics[0].message


@pytest.mark.parametrize("bad,needle", [
    (5, "found Int where String was expected"), (None, "String"), ([1], "String"),
    (some("x"), "String"), ({}, "dict"), (object(), "object"), ("\ud800", "surrogate"),
])
def test_wrong_return_type_gets_a_clear_diagnostic(bad, needle):
    r = run_with(READ, {"fs"}, {"fs_read_text": lambda p: bad}, False)
    assert not r.ok and r.diagnostics[0].code.value == "E499"
    assert needle in r.diagnostics[0].message and "fs_read_text" in r.diagnostics[0].message


def test_wrong_constructor_fields_are_refused():
    src = 'func main() -> Option[Float]\n    return clock_parse("t", "%Y")\nend func\n'
    r = run_with(src, {"clock"}, {"clock_parse": lambda *a: ConstructorValue("Some", {"nope": 1.0})}, False)
    assert not r.ok and r.diagnostics[0].code.value == "E499"


def test_a_cyclic_value_is_refused_not_a_crash():
    cyc = []
    cyc.append(cyc)
    src = 'func main() -> Result[List[String], String]\n    return fs_list_dir(".")\nend func\n'
    r = run_with(src, {"fs"}, {"fs_list_dir": lambda p: ok(cyc)}, False)
    assert not r.ok and "deeper" in r.diagnostics[0].message


def test_keyboard_interrupt_in_a_callback_propagates():
    def stop(path):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_with(READ, {"fs"}, {"fs_read_text": stop}, False)


def test_callback_may_run_another_program():
    inner = 'func main() -> Int\n    return 7\nend func\n'
    r = run_with(READ, {"fs"}, {"fs_read_text": lambda p: str(geno.run(inner).value)}, False)
    assert r.ok and r.value == "7"


def test_callback_mutating_the_config_is_harmless():
    cfg = RunConfig(capabilities={"fs"})

    def rude(path):
        cfg.host_callbacks.clear()
        cfg.modules = None
        return "still fine"
    cfg.host_callbacks = {"fs_read_text": rude}
    assert geno.run(READ, config=cfg).value == "still fine"
