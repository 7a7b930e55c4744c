"""The examples of the reference's embedding-api.md and capabilities.md, restated.

Each is written against the documented API only (``import geno``), so a
program using the reference's package runs unchanged on this one.
"""
import geno
from geno import RunConfig


def test_quick_start():
    result = geno.run("""
func main() -> Int
    return 42
end func
""")
    assert result.ok is True
    assert result.value == 42


def test_run_with_config():
    source = 'func main() -> Unit\n    print("hello")\nend func\n'
    result = geno.run(source, config=RunConfig(timeout=10.0, capabilities={"print", "fs"}))
    assert result.ok and result.output == "hello\n"


def test_check_and_print_diagnostics(capsys):
    source = 'func main() -> Int\n    return "text"\nend func\n'
    result = geno.check(source)
    if not result.ok:
        for d in result.diagnostics:
            print(f"{d.code.value}: {d.message}")
    assert capsys.readouterr().out.startswith("E300: ")


def test_host_callback_for_fs(tmp_path):
    target = tmp_path / "note.txt"
    target.write_text("from disk")

    def my_fs_read(path):
        return open(path).read()

    source = f'func main() -> String\n    return fs_read_text("{target}")\nend func\n'
    result = geno.run(source, config=RunConfig(capabilities={"fs"}, host_callbacks={"fs_read_text": my_fs_read}))
    assert result.value == "from disk"


def test_multi_module_programs():
    math_module = """
func double(x: Int) -> Int
    example 3 -> 6
    return x * 2
end func
"""
    main_source = """
import Math

func main() -> Int
    return Math.double(21)
end func
"""
    result = geno.run(main_source, config=RunConfig(modules={"Math": math_module}))
    assert result.value == 42


def test_error_handling_loop(capsys):
    source = "func main() -> Int\n    return 1 / 0\nend func\n"
    result = geno.run(source)
    if not result.ok:
        for d in result.diagnostics:
            loc = f"{d.location.line}:{d.location.column}" if d.location else "?"
            print(f"[{d.code.value}] {loc}: {d.message}")
    assert capsys.readouterr().out.startswith("[E400] 2:")


def test_capabilities_examples():
    source = 'func main() -> Unit\n    print("x")\nend func\n'
    result = geno.run(source)  # capabilities=None: fail closed
    assert result.diagnostics[0].code.value == "E412"
    result = geno.run(source, config=RunConfig(capabilities=set()))
    assert result.diagnostics[0].code.value == "E412"
    result = geno.run(source, config=RunConfig(capabilities={"print", "fs", "http"}))
    assert result.ok and result.output == "x\n"


def test_value_oriented_run_never_exits_the_host():
    result = geno.run("func main() -> Int\n    return 3\nend func\n")
    assert result.value == 3  # an Int from main is a value, not an exit status


def test_execution_surface_monitoring_contract():
    collector = geno.RuntimeMetricsCollector()
    geno.run("func main() -> Int\n    return 1\nend func\n", config=RunConfig(monitoring_hook=collector.record))
    import json
    json.dumps(collector.snapshot().to_dict())
    json.dumps(collector.health_report().to_dict())
    assert "geno_run_success_total 1" in collector.snapshot().to_prometheus_text()
