"""The GIL is released while a program runs; run_isolated's hard limits."""
import threading

import geno
from geno import RunConfig, SandboxConfig

from conftest import prog

SPIN = prog("""
    func main() -> Int
        var i = 0
        while i < 3000000 do
            i = i + 1
        end while
        return i
    end func
""")


def test_python_keeps_running_while_a_program_runs():
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("r", geno.run(SPIN, config=RunConfig(max_steps=None))))
    ticks = 0
    t.start()
    while t.is_alive():
        ticks += 1
    t.join()
    assert result["r"].value == 3000000
    # holding the GIL for the whole run would leave this thread a handful of ticks
    assert ticks > 10000, ticks


def test_runs_on_several_threads_give_their_own_results():
    results = [None] * 8

    def work(k):
        src = f"func main() -> Int\n    return {k} * 1000 + length(range(0, {k}))\nend func\n"
        results[k] = [geno.run(src).value for _ in range(20)]
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [[k * 1000 + k] * 20 for k in range(8)]


def test_callbacks_from_several_threads():
    src = 'func main() -> String\n    return fs_read_text("x")\nend func\n'
    out = []

    def work(k):
        cfg = RunConfig(capabilities={"fs"}, host_callbacks={"fs_read_text": lambda p: f"{k}:{p}"})
        out.append(all(geno.run(src, config=cfg).value == f"{k}:x" for _ in range(30)))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [True] * 6


LOOP = 'func main() -> Int\n    var i = 0\n    while true do\n        i = i + 1\n    end while\n    return i\nend func\n'


def test_isolated_endless_loop_is_killed_and_output_kept():
    src = LOOP.replace("    var i = 0\n", '    print("started")\n    var i = 0\n')
    r = geno.run_isolated(src, RunConfig(timeout=0.5, max_steps=None, capabilities={"print"}))
    assert not r.ok and r.diagnostics[0].code is geno.ErrorCode.SANDBOX_TIMEOUT
    assert r.output == "started\n"


def test_isolated_memory_bomb_is_stopped():
    bomb = prog("""
        func main() -> Int
            var s = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
            var keep: List[String] = []
            while true do
                s = s + s
                keep = append(keep, s)
            end while
            return 0
        end func
    """)
    r = geno.run_isolated(bomb, RunConfig(timeout=10, max_steps=None, max_collection_size=1 << 40),
                          sandbox=SandboxConfig(max_memory_bytes=64 << 20))
    assert not r.ok and r.diagnostics[0].code is geno.ErrorCode.SANDBOX_RESOURCE_LIMIT


def test_isolated_cpu_limit():
    r = geno.run_isolated(LOOP, RunConfig(timeout=None, max_steps=None), sandbox=SandboxConfig(max_cpu_time=1))
    assert not r.ok and r.diagnostics[0].code is geno.ErrorCode.SANDBOX_TIMEOUT
    assert "CPU" in r.diagnostics[0].message


def test_isolated_run_returns_values_and_uses_callbacks_in_this_process():
    pid_seen = []
    import os

    def read(path):
        pid_seen.append(os.getpid())
        return "from parent"
    src = 'func main() -> (String, List[Int])\n    return (fs_read_text("p"), [1, 2])\nend func\n'
    r = geno.run_isolated(src, RunConfig(capabilities={"fs"}, host_callbacks={"fs_read_text": read}))
    assert r.ok and r.value_raw == ("from parent", [1, 2]) and pid_seen == [os.getpid()]


def test_isolated_capabilities_fail_closed():
    r = geno.run_isolated('func main() -> Unit\n    print("x")\nend func\n')
    assert r.diagnostics[0].code.value == "E412"


def test_sandbox_config_validation():
    import pytest
    for bad in ({"max_memory_bytes": 0}, {"max_memory_bytes": 1.5}, {"max_cpu_time": -1},
                {"max_cpu_time": float("nan")}):
        with pytest.raises(ValueError):
            SandboxConfig(**bad)
