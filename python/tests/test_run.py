"""geno.run / check / run_path / check_path: values, output, diagnostics, files."""
import math
import os

import pytest

import geno
from geno import RunConfig
from geno.values import ArrayValue, ConstructorValue, FunctionValue, MutableMapValue, SetValue, VecValue

from conftest import prog


def test_value_of_main_and_timing():
    r = geno.run(prog("""
        func main() -> Int
            return 42
        end func
    """))
    assert r.ok and r.value == 42 and r.value_raw == 42
    assert r.output == "" and r.diagnostics == [] and r.steps_used > 0
    assert r.timing.total_ms >= r.timing.run_ms >= 0


def test_runconfig_as_second_positional_argument():
    r = geno.run('func main() -> Unit\n    print("hi")\nend func\n', RunConfig(capabilities={"print"}))
    assert r.ok and r.output == "hi\n" and r.value is None
    with pytest.raises(TypeError):
        geno.run("", RunConfig(), config=RunConfig())


VALUES = prog("""
    type Shape = Circle(r: Float) | Dot

    func main() -> (Int, Float, Bool, String, List[Int], Option[Int], Option[Int], Result[Int, String], Shape, Shape, Map[String, Int], Int)
        return (7, 2.5, true, "é", [1, 2], Some(3), None, Err("no"), Circle(1.5), Dot, map_from_list([("k", 1)]), 123456789012345678901234567890)
    end func
""")


def test_values_as_the_reference_gives_them():
    r = geno.run(VALUES)
    assert r.ok, r.diagnostics
    tup = r.value["_tuple"]
    assert tup[:5] == [7, 2.5, True, "é", [1, 2]]
    assert tup[5] == {"_constructor": "Some", "fields": {"value": 3}}
    assert tup[6] == {"_constructor": "None", "fields": {}}
    assert tup[7] == {"_constructor": "Err", "fields": {"error": "no"}}
    assert tup[8] == {"_constructor": "Circle", "fields": {"r": 1.5}}
    assert tup[10] == {"k": 1}
    assert tup[11] == 123456789012345678901234567890
    raw = r.value_raw
    assert isinstance(raw, tuple) and raw[:5] == (7, 2.5, True, "é", [1, 2])
    assert raw[5] == ConstructorValue("Some", {"value": 3}) and raw[5].fields["value"] == 3
    assert raw[6].constructor == "None" and dict(raw[6].fields) == {}
    assert raw[7] == geno.values.err("no")
    assert repr(raw[8]) == "Circle(r: 1.5)" and repr(raw[9]) == "Dot"
    assert raw[10] == {"k": 1}
    assert raw[11] == 123456789012345678901234567890


def test_mutable_containers_and_functions_as_values():
    r = geno.run(prog("""
        func twice(x: Int) -> Int
            example 1 -> 2
            return x * 2
        end func

        func main() -> (Array[Int], Vec[String], Set[Int], MutableMap[String, Int], (Int) -> Int)
            let mm: MutableMap[String, Int] = mutable_map_new()
            mutable_map_set(map: mm, key: "a", value: 1)
            return (array_from_list([1, 2]), vec_from_list(["x"]), set_from_list([3, 1]), mm, twice)
        end func
    """))
    assert r.ok, r.diagnostics
    arr, vec, st, mm, fn = r.value_raw
    assert isinstance(arr, ArrayValue) and arr._elements == [1, 2] and len(arr) == 2
    assert isinstance(vec, VecValue) and vec._elements == ["x"]
    assert isinstance(st, SetValue) and st._data == {1, 3}
    assert isinstance(mm, MutableMapValue) and mm._data == {"a": 1}
    assert isinstance(fn, FunctionValue) and fn.name == "twice"


def test_non_finite_floats():
    r = geno.run('func main() -> List[Float]\n    return [1.0 / 0.0, 0.0 - 1.0 / 0.0]\nend func\n')
    if r.ok:  # division by a float zero may be an error in Geno; when it is a value it is JSON-safe
        assert r.value == ["Infinity", "-Infinity"]
        assert r.value_raw == [math.inf, -math.inf]
    else:
        assert r.diagnostics[0].code == geno.ErrorCode.RUNTIME_DIVISION_BY_ZERO


def test_diagnostics_carry_code_location_and_severity():
    r = geno.run('func main() -> Int\n    return "x"\nend func\n', filename="prog.geno")
    assert not r.ok and r.value is None and r.value_raw is None
    d = r.diagnostics[0]
    assert d.code is geno.ErrorCode.TYPE_MISMATCH and d.severity is geno.Severity.ERROR
    assert (d.location.line, d.location.column, d.location.filename) == (2, 5, "prog.geno")
    assert str(d).startswith("[E300] prog.geno:2:5 ")
    assert d.to_dict()["location"] == {"line": 2, "column": 5, "filename": "prog.geno"}


def test_runtime_error_keeps_output():
    r = geno.run(prog("""
        func main() -> Int
            print("before")
            let xs: List[Int] = []
            return xs[3]
        end func
    """), config=RunConfig(capabilities={"print"}))
    assert not r.ok and r.output == "before\n"
    assert r.diagnostics[0].code is geno.ErrorCode.RUNTIME_INDEX_OUT_OF_BOUNDS


def test_check_and_check_result():
    ok = geno.check("func main() -> Int\n    return 1\nend func\n")
    assert isinstance(ok, geno.CheckResult) and ok.ok and ok.diagnostics == []
    bad = geno.check("func main( -> Int\n")
    assert not bad.ok and bad.diagnostics[0].code.value.startswith("E2")
    lexed = geno.check('func main() -> String\n    return "unterminated\nend func\n')
    assert lexed.diagnostics[0].code is geno.ErrorCode.LEX_UNTERMINATED_STRING


def test_check_with_target_rejects_what_the_target_lacks():
    src = 'func main() -> Option[String] with env\n    return env_get("HOME")\nend func\n'
    assert geno.check(src).ok
    browser = geno.check(src, target="browser")
    assert not browser.ok
    r = geno.run(src, config=RunConfig(target="browser", capabilities={"env"}))
    assert not r.ok and r.diagnostics == browser.diagnostics


def test_check_and_run_with_modules():
    util = "func twice(x: Int) -> Int\n    example 2 -> 4\n    return x * 2\nend func\n"
    main = "import Util\n\nfunc main() -> Int\n    return Util.twice(21)\nend func\n"
    assert geno.check(main, modules={"Util": util}).ok
    assert not geno.check(main).ok
    assert geno.run(main, config=RunConfig(modules={"Util": util})).value == 42
    # a module given as text is named "<module:Name>" in its diagnostics, as the reference names it
    bad = {"Util": "func twice(x: Int) -> Int\n    return \"x\"\nend func\n"}
    for r in (geno.check(main, modules=bad), geno.run(main, config=RunConfig(modules=bad))):
        assert not r.ok and r.diagnostics[0].location.filename == "<module:Util>"


def test_run_path_and_check_path(tmp_path):
    (tmp_path / "Util.geno").write_text("func twice(x: Int) -> Int\n    example 1 -> 2\n    return x * 2\nend func\n")
    (tmp_path / "Main.geno").write_text("import Util\n\nfunc main() -> Int\n    return Util.twice(4)\nend func\n")
    assert geno.run_path(str(tmp_path / "Main.geno")).value == 8
    assert geno.check_path(tmp_path / "Main.geno").ok
    # a project directory runs its entrypoint; geno.toml targets apply
    (tmp_path / "geno.toml").write_text('name = "p"\nentrypoint = "Main"\ntargets = ["python-cli"]\n')
    assert geno.run_path(str(tmp_path)).value == 8
    # modules given in the config win over files
    over = RunConfig(modules={"Util": "func twice(x: Int) -> Int\n    example 1 -> 3\n    return x * 3\nend func\n"})
    assert geno.run_path(str(tmp_path / "Main.geno"), config=over).value == 12
    # diagnostics in a module read from disk name its file; an overlay keeps "<module:Name>"
    (tmp_path / "Bad.geno").write_text("func twice(x: Int) -> Int\n    return \"x\"\nend func\n")
    (tmp_path / "UseBad.geno").write_text("import Bad\n\nfunc main() -> Int\n    return Bad.twice(4)\nend func\n")
    for r in (geno.run_path(str(tmp_path / "UseBad.geno")), geno.check_path(tmp_path / "UseBad.geno")):
        assert not r.ok and r.diagnostics[0].location.filename == "Bad.geno"
    bad_over = {"Bad": "func twice(x: Int) -> Int\n    return 1.5\nend func\n"}
    r = geno.check_path(tmp_path / "UseBad.geno", modules=bad_over)
    assert not r.ok and r.diagnostics[0].location.filename == "<module:Bad>"
    missing = geno.run_path(str(tmp_path / "Nope.geno"))
    assert not missing.ok and missing.diagnostics[0].code is geno.ErrorCode.PROJECT_RESOLUTION_ERROR
    assert geno.check_path(str(tmp_path / "Nope.geno")).diagnostics[0].code.value == "E204"


def test_run_path_refuses_devices_fifos_and_huge_files(tmp_path):
    # each in a child with bounded memory and time: reading /dev/zero whole
    # used to grow until MemoryError, and opening a FIFO waited forever
    import subprocess
    import sys
    os.symlink("/dev/zero", tmp_path / "Zero.geno")
    os.mkfifo(tmp_path / "Pipe.geno")
    with open(tmp_path / "Huge.geno", "wb") as f:
        f.truncate(200 << 20)  # sparse: no disk used
    code = (
        "import resource, sys, geno\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "for name in ('Zero', 'Pipe', 'Huge'):\n"
        "    for call in (geno.run_path, geno.check_path):\n"
        "        r = call(sys.argv[1] + '/' + name + '.geno')\n"
        "        d = r.diagnostics[0]\n"
        "        print(name, r.ok, d.code.value, d.message)\n"
    )
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 6
    for line in lines[:4]:
        assert " False E204 " in line and "not a regular file" in line
    for line in lines[4:]:
        assert " False E204 " in line and "larger than" in line


def test_run_path_does_not_follow_an_import_link_out_of_the_folder(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "prog").mkdir()
    (tmp_path / "outside" / "Secret.geno").write_text("secret text line\n")
    os.symlink(tmp_path / "outside" / "Secret.geno", tmp_path / "prog" / "Secret.geno")
    (tmp_path / "prog" / "Main.geno").write_text("import Secret\nfunc main() -> Int\n    return 1\nend func\n")
    for r in (geno.run_path(tmp_path / "prog" / "Main.geno"), geno.check_path(tmp_path / "prog" / "Main.geno")):
        assert not r.ok and r.diagnostics[0].code.value == "E204"
        assert "outside the program's folder" in r.diagnostics[0].message
        assert "secret text" not in r.diagnostics[0].message
    # a link to a file beside it is followed
    (tmp_path / "prog" / "Real.geno").write_text("func two() -> Int\n    example () -> 2\n    return 2\nend func\n")
    os.symlink("Real.geno", tmp_path / "prog" / "Alias.geno")
    (tmp_path / "prog" / "Two.geno").write_text("import Alias\nfunc main() -> Int\n    return Alias.two()\nend func\n")
    assert geno.run_path(tmp_path / "prog" / "Two.geno").value == 2


def test_run_path_entrypoint_is_a_module_name_not_a_path(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "proj").mkdir()
    (tmp_path / "outside" / "Other.geno").write_text("func main() -> Int\n    return 7\nend func\n")
    (tmp_path / "proj" / "Main.geno").write_text("func main() -> Int\n    return 1\nend func\n")
    for entry in ("../outside/Other", str(tmp_path / "outside" / "Other"), "sub/Main", ".Main"):
        (tmp_path / "proj" / "geno.toml").write_text(f'entrypoint = "{entry}"\n')
        for r in (geno.run_path(tmp_path / "proj"), geno.check_path(tmp_path / "proj")):
            assert not r.ok and r.diagnostics[0].code.value == "E204", entry
            assert "must be a module name" in r.diagnostics[0].message
    (tmp_path / "proj" / "geno.toml").write_text('entrypoint = "Main"\n')
    assert geno.run_path(tmp_path / "proj").value == 1


def test_bad_arguments_raise_and_never_crash():
    for call in (lambda: geno.run(None), lambda: geno.run(b"func"), lambda: geno.run("x", filename=3),
                 lambda: geno.run("x", config={"timeout": 1}), lambda: geno.check(1),
                 lambda: geno.check("x", modules={"A": 1}), lambda: geno.run_isolated("x", sandbox=1),
                 lambda: geno.check("x", target=5)):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(ValueError):
        geno.run("\ud800")  # a lone surrogate is not UTF-8
    with pytest.raises(ValueError):
        geno.run("func main() -> Int\n    return 1\nend func\n", filename="a\0b")


def test_source_with_nul_and_odd_text_is_a_diagnostic():
    r = geno.run("func main() -> Int\n    return 1\0\nend func\n")
    assert not r.ok and r.diagnostics
