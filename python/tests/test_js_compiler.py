"""geno.compile_to_js / geno.compile_to_html: the reference's signatures over
geno_compile_js_ex / geno_compile_html. Scripts are run under node when it
is installed."""
import base64
import inspect
import json
import shutil
import subprocess

import pytest

import geno
from conftest import prog

NODE = shutil.which("node")

HELLO = prog('''
    func double(x: Int) -> Int
        example 2 -> 4
        return x * 2
    end func

    func main() -> Int
        print("hi")
        return double(21)
    end func
''')


def run_node(tmp_path, js, *args, name="out.js"):
    path = tmp_path / name
    path.write_text(js, encoding="utf-8")
    return subprocess.run([NODE, str(path), *args], capture_output=True, text=True, timeout=60)


def test_compile_to_js_returns_a_script():
    js = geno.compile_to_js(HELLO)
    assert isinstance(js, str)
    assert js.startswith('"use strict";')
    assert "f_double" in js and "export {" not in js


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_script_prints_what_geno_run_prints(tmp_path):
    r = run_node(tmp_path, geno.compile_to_js(HELLO), "--cap", "print")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "hi\n=> 42\n"
    assert r.stdout.replace("=> ", "").split() == ["hi", str(geno.run(HELLO, geno.RunConfig(capabilities={"print"})).value)]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_capabilities_fail_closed(tmp_path):
    r = run_node(tmp_path, geno.compile_to_js(HELLO))
    assert r.returncode == 1
    assert "error[E412]" in r.stderr and "'print'" in r.stderr
    assert r.stdout == ""


def test_esm_exports_the_functions():
    js = geno.compile_to_js(HELLO, esm=True)
    assert "export {" in js and "f_double as double" in js
    assert not js.startswith('"use strict";')


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_esm_module_is_importable(tmp_path):
    (tmp_path / "m.mjs").write_text(geno.compile_to_js(HELLO, esm=True), encoding="utf-8")
    (tmp_path / "use.mjs").write_text('import { double } from "./m.mjs";\nconsole.log(String(double(5n)));\n')
    r = subprocess.run([NODE, str(tmp_path / "use.mjs")], capture_output=True, text=True, timeout=60)
    assert r.stdout == "10\n", r.stderr


def test_source_map_is_a_pair_with_real_mappings():
    out = geno.compile_to_js(HELLO, filename="hello.geno", source_map=True)
    assert isinstance(out, tuple) and len(out) == 2
    js, smap = out
    m = json.loads(smap)
    assert m["version"] == 3
    assert m["file"] == "output.js"  # the reference's default name
    assert m["sources"] == ["hello.geno"]
    assert m["sourcesContent"] == [HELLO]
    lines = m["mappings"].split(";")
    assert len(lines) >= js.count("\n")
    # the line of `print("hi")` maps to line 7, column 5 (0-based 6, 4)
    gen = next(i for i, line in enumerate(js.split("\n")) if '$b_print("hi")' in line)
    assert lines[gen], "the statement's line is mapped"
    named = geno.compile_to_js(HELLO, source_map=True, source_map_file="app.js")[1]
    assert json.loads(named)["file"] == "app.js"


def test_type_errors_raise_with_diagnostics():
    bad = prog('''
        func main() -> Int
            return "x"
        end func
    ''')
    with pytest.raises(geno.JSCompileError) as info:
        geno.compile_to_js(bad, filename="bad.geno")
    err = info.value
    assert isinstance(err, Exception)
    assert str(err).startswith("bad.geno:2:")
    assert err.diagnostics and err.diagnostics[0].code.value.startswith("E3")
    with pytest.raises(geno.JSCompileError):
        geno.compile_to_js("func main( -> Int\n")


def test_typecheck_false_still_checks():
    with pytest.raises(geno.JSCompileError):
        geno.compile_to_js("func main() -> Int\n    return \"x\"\nend func\n", typecheck=False)
    assert "f_main" in geno.compile_to_js(HELLO, typecheck=False)


def test_browser_only_builtins_do_not_compile_for_node():
    app = prog('''
        func main() -> Unit with io
            draw_rect(x: 1, y: 2, width: 3, height: 4, color: "red")
        end func
    ''')
    with pytest.raises(geno.JSCompileError):
        geno.compile_to_js(app)


def test_bad_arguments():
    with pytest.raises(TypeError):
        geno.compile_to_js(b"func main() -> Int\n    return 1\nend func\n")
    with pytest.raises(TypeError):
        geno.compile_to_js(HELLO, esm="yes")
    with pytest.raises(TypeError):
        geno.compile_to_js(HELLO, filename=3)
    with pytest.raises(ValueError):
        geno.compile_to_js(HELLO, target_profile="browser")
    with pytest.raises(ValueError):
        geno.compile_to_js(HELLO, filename="a\0b")
    assert geno.compile_to_js(HELLO, target_profile="node-cli")


APP = prog('''
    type Model = Model(x: Int)

    func init() -> Model
        example () -> Model(0)
        return Model(0)
    end func

    func update(m: Model, dt: Float) -> Model
        example Model(0), 0.1 -> Model(1)
        return Model(m.x + 1)
    end func

    func render(m: Model) -> Unit
        example Model(0) -> ()
        clear_screen("black")
        draw_rect(x: m.x, y: 10, width: 20, height: 20, color: "red")
    end func
''')


def test_compile_to_html_makes_a_page():
    page = geno.compile_to_html(APP, width=320, height=200, title="Demo")
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert 'id="geno-canvas"' in page and 'width="320"' in page and 'height="200"' in page
    assert "<title>Demo</title>" in page
    assert "Content-Security-Policy" in page
    assert "$app(f_init, f_update, f_render" in page


def test_compile_to_html_source_map_is_inline():
    page = geno.compile_to_html(APP, filename="app.geno", source_map=True)
    script = page[page.index("<script>") + len("<script>"):page.index("</script>")]
    lines = script.split("\n")
    prefix = "//# sourceMappingURL=data:application/json;charset=utf-8;base64,"
    assert lines[-2].startswith(prefix)
    m = json.loads(base64.b64decode(lines[-2][len(prefix):]))
    assert m["version"] == 3 and m["file"] == "app.js" and m["sources"] == ["app.geno"]
    # lines count from the <script> element: the render function's line maps
    # to `func render` in the source
    groups = m["mappings"].split(";")
    gen = next(i for i, line in enumerate(lines) if line.startswith("function f_render("))
    assert groups[gen].startswith("AA"), "the function's line is mapped at column 0"
    assert "sourceMappingURL" not in geno.compile_to_html(APP)


def test_compile_to_html_escapes_the_title():
    page = geno.compile_to_html(APP, title='</title><script>alert("x")</script> & Co')
    assert "<script>alert" not in page
    assert "&lt;/title&gt;&lt;script&gt;" in page and "&amp; Co" in page


def test_compile_to_html_defaults_and_errors():
    page = geno.compile_to_html(APP)
    assert 'width="800"' in page and 'height="600"' in page and "<title>Geno App</title>" in page
    with pytest.raises(ValueError):
        geno.compile_to_html(APP, width=0)
    with pytest.raises(ValueError):
        geno.compile_to_html(APP, height=16385)
    with pytest.raises(TypeError):
        geno.compile_to_html(APP, width="800")
    with pytest.raises(TypeError):
        geno.compile_to_html(APP, width=True)
    with pytest.raises(TypeError):
        geno.compile_to_html(APP, title=None)
    with pytest.raises(geno.JSCompileError):
        geno.compile_to_html("func main() -> Int\n    return \"x\"\nend func\n")
    # fs is not a browser builtin
    with pytest.raises(geno.JSCompileError):
        geno.compile_to_html(prog('''
            func main() -> Unit with fs
                print(fs_read_text("/etc/passwd"))
            end func
        '''))


def test_names_are_exported():
    for name in ("compile_to_js", "compile_to_html", "JSCompileError"):
        assert name in geno.__all__ and getattr(geno, name).__doc__


def test_signatures_are_the_references():
    sig = inspect.signature(geno.compile_to_js)
    assert list(sig.parameters) == ["source", "filename", "typecheck", "source_map", "source_map_file", "esm",
                                    "target_profile"]
    assert [sig.parameters[p].default for p in list(sig.parameters)[1:]] == ["<stdin>", True, False, None, False, None]
    sig = inspect.signature(geno.compile_to_html)
    assert list(sig.parameters) == ["source", "filename", "typecheck", "width", "height", "title", "source_map"]
    assert [sig.parameters[p].default for p in list(sig.parameters)[1:]] == ["<stdin>", True, 800, 600, "Geno App",
                                                                             False]
    from geno import js_compiler
    assert js_compiler.compile_to_js is geno.compile_to_js  # the reference's module path works too
