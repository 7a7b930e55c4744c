"""Capabilities: omitted means none; each gated builtin needs its grant (fail-closed)."""
import pytest

import geno
from geno import RunConfig

from conftest import prog

GATED = {
    "print": 'print("x")',
    "clock": "let t: Float = clock_now()",
    "random": "let r: Int = random_int(1, 2)",
    "regex": 'let m: Option[String] = regex_match("a", "a")',
    "env": 'let v: Option[String] = env_get("HOME")',
    "fs": 'let s: String = fs_read_text("f")',
}


def program(stmt):
    return prog(f"""
        func main() -> Unit
            {stmt}
        end func
    """)


@pytest.mark.parametrize("cap", sorted(GATED))
def test_denied_without_grant(cap):
    for config in (None, RunConfig(), RunConfig(capabilities=set()), RunConfig(capabilities=None)):
        r = geno.run(program(GATED[cap]), config=config)
        assert not r.ok
        assert r.diagnostics[0].code is geno.ErrorCode.RUNTIME_CAPABILITY_DENIED, (cap, r.diagnostics)


@pytest.mark.parametrize("cap", sorted(GATED))
def test_granted_only_to_its_own_builtins(cap):
    callbacks = {"fs_read_text": lambda p: "data"}
    r = geno.run(program(GATED[cap]), config=RunConfig(capabilities={cap}, host_callbacks=callbacks))
    assert r.ok, r.diagnostics
    others = set(GATED) - {cap}
    r = geno.run(program(GATED[cap]), config=RunConfig(capabilities=others, host_callbacks=callbacks))
    assert r.diagnostics[0].code.value == "E412"


def test_callback_for_an_ungranted_capability_never_runs():
    calls = []
    r = geno.run(program(GATED["fs"]), config=RunConfig(
        capabilities={"print"}, host_callbacks={"fs_read_text": lambda p: calls.append(p) or "x"}))
    assert r.diagnostics[0].code.value == "E412" and calls == []


def test_granted_host_builtin_without_callback_is_e413():
    r = geno.run(program(GATED["fs"]), config=RunConfig(capabilities={"fs"}))
    assert r.diagnostics[0].code is geno.ErrorCode.RUNTIME_HOST_CALLBACK_MISSING


def test_pure_builtins_need_no_grant():
    r = geno.run(prog("""
        func main() -> Int
            return length(reverse([3, 1, 2])) + length(to_chars("ab"))
        end func
    """), config=RunConfig(capabilities=set()))
    assert r.ok and r.value == 5


def test_env_allow_lists(monkeypatch):
    monkeypatch.setenv("APP_MODE", "fast")
    monkeypatch.setenv("APP_TOKEN", "secret")
    monkeypatch.setenv("OTHER", "x")
    src = 'func main() -> Option[String]\n    return env_get(NAME)\nend func\n'
    cfg = RunConfig(capabilities={"env"}, env_allowed_prefixes={"APP_"})
    assert geno.run(src.replace("NAME", '"APP_MODE"'), config=cfg).value_raw == geno.values.some("fast")
    assert geno.run(src.replace("NAME", '"APP_MISSING"'), config=cfg).value_raw == geno.values.NONE
    denied = geno.run(src.replace("NAME", '"OTHER"'), config=cfg)
    assert not denied.ok and "not allowed by the host env policy" in denied.diagnostics[0].message
    secret = geno.run(src.replace("NAME", '"APP_TOKEN"'), config=cfg)
    assert not secret.ok  # looks like a secret: needs an exact name
    exact = RunConfig(capabilities={"env"}, env_allowed_names={"APP_TOKEN"})
    assert geno.run(src.replace("NAME", '"APP_TOKEN"'), config=exact).value_raw == geno.values.some("secret")
    # no policy: env reads are ungated beyond the capability
    assert geno.run(src.replace("NAME", '"OTHER"'), config=RunConfig(capabilities={"env"})).ok
