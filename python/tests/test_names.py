"""Every public name exists with the reference's signature, defaults and field names."""
import dataclasses
import inspect

import geno
import geno.api
import geno.diagnostics
import geno.monitoring
import geno.values


def test_all_lists_only_real_names():
    for name in geno.__all__:
        assert hasattr(geno, name), name


def test_entry_point_signatures_and_defaults():
    sig = inspect.signature(geno.run)
    assert list(sig.parameters) == ["source", "filename", "config"]
    assert sig.parameters["filename"].default == "<api>"
    assert sig.parameters["config"].default is None
    sig = inspect.signature(geno.check)
    assert list(sig.parameters) == ["source", "filename", "modules", "target"]
    assert sig.parameters["filename"].default == "<api>"
    assert list(inspect.signature(geno.run_path).parameters) == ["path", "config"]
    assert list(inspect.signature(geno.check_path).parameters) == ["path", "modules", "target"]
    assert list(inspect.signature(geno.run_isolated).parameters)[:3] == ["source", "config", "sandbox"]


def test_run_config_fields_and_defaults():
    fields = {f.name: f.default for f in dataclasses.fields(geno.RunConfig)}
    assert list(fields) == [
        "timeout", "max_steps", "max_recursion_depth", "max_output_length", "max_collection_size",
        "max_integer_bits", "capabilities", "env_allowed_names", "env_allowed_prefixes", "host_callbacks",
        "modules", "target", "check_examples", "monitoring_hook"]
    assert fields["timeout"] == 5.0
    assert fields["max_steps"] == 1_000_000
    assert fields["max_recursion_depth"] == 500
    assert fields["max_output_length"] == 100_000
    assert fields["max_collection_size"] == 10_000_000
    assert fields["max_integer_bits"] == 33_219
    for name in ("capabilities", "env_allowed_names", "env_allowed_prefixes", "host_callbacks", "modules",
                 "target", "monitoring_hook"):
        assert fields[name] is None, name
    assert fields["check_examples"] is True


def test_result_fields():
    assert [f.name for f in dataclasses.fields(geno.RunResult)] == [
        "ok", "value", "value_raw", "output", "diagnostics", "timing", "steps_used"]
    assert [f.name for f in dataclasses.fields(geno.CheckResult)] == ["ok", "diagnostics", "timing"]
    assert [f.name for f in dataclasses.fields(geno.Timing)] == [
        "total_ms", "lex_ms", "parse_ms", "typecheck_ms", "run_ms"]
    assert [f.name for f in dataclasses.fields(geno.Diagnostic)] == ["code", "message", "severity", "location"]
    assert [f.name for f in dataclasses.fields(geno.RunMetrics)] == [
        "outcome", "ok", "wall_time_ms", "steps_used", "diagnostic_codes"]


def test_error_codes_and_constants():
    assert geno.ErrorCode.RUNTIME_CAPABILITY_DENIED.value == "E412"
    assert geno.ErrorCode.SANDBOX_TIMEOUT.value == "E501"
    assert len({c.value for c in geno.ErrorCode}) == len(list(geno.ErrorCode)) == 43
    assert geno.E412 == "E412" and geno.E100 == "E100" and geno.E505 == "E505"
    assert {s.name for s in geno.Severity} == {"ERROR", "WARNING", "INFO"}
    assert [o.value for o in geno.RunOutcome] == [
        "success", "syntax_error", "type_error", "runtime_error", "timeout", "capability_denied",
        "host_callback_missing", "security_violation", "resource_limit"]


def test_module_paths_of_the_reference():
    assert geno.api.RunConfig is geno.RunConfig
    assert geno.diagnostics.ErrorCode is geno.ErrorCode
    assert geno.monitoring.RuntimeMetricsCollector is geno.RuntimeMetricsCollector
    assert geno.values.ConstructorValue is geno.ConstructorValue


def test_every_public_name_has_a_docstring():
    for name in geno.__all__:
        obj = getattr(geno, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert inspect.getdoc(obj), name


def test_version():
    assert geno.__version__ == "0.1.0"
    assert geno.LANGUAGE_VERSION == "0.4"
