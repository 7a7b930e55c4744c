"""Run metrics, health reports and Prometheus text (the reference's ``geno.monitoring``).

:class:`RuntimeMetricsCollector` wraps libgeno's thread-safe collector, so
its snapshot, health report and Prometheus text are the ones geno-c's
server renders (the reference's keys, order and metric names, plus a few
additions: phase times, output bytes, diagnostic codes, operations).
Typical use::

    collector = geno.RuntimeMetricsCollector()
    geno.run(src, config=geno.RunConfig(monitoring_hook=collector.record))
    print(collector.snapshot().to_prometheus_text())
"""
from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from . import _geno

__all__ = [
    "RunOutcome", "RunMetrics", "BuildInfo", "HealthCheck", "BenchmarkValidationState",
    "MetricsSnapshot", "HealthReport", "RuntimeMetricsCollector",
]


class RunOutcome(Enum):
    """How a run ended, classified from its diagnostics."""

    SUCCESS = "success"
    SYNTAX_ERROR = "syntax_error"
    TYPE_ERROR = "type_error"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    CAPABILITY_DENIED = "capability_denied"
    HOST_CALLBACK_MISSING = "host_callback_missing"
    SECURITY_VIOLATION = "security_violation"
    RESOURCE_LIMIT = "resource_limit"


@dataclass(frozen=True)
class RunMetrics:
    """The payload a ``monitoring_hook`` receives after every run."""

    outcome: RunOutcome
    ok: bool
    wall_time_ms: float
    steps_used: int
    diagnostic_codes: tuple[str, ...] = ()

    @classmethod
    def from_run_result(cls, result: Any) -> "RunMetrics":
        """The metrics of a RunResult (or CheckResult-like object with ok/diagnostics/timing)."""
        raw = getattr(result, "_raw", None)
        codes = tuple(d.code.value for d in result.diagnostics if getattr(d, "code", None) is not None)
        outcome = RunOutcome(raw.outcome if raw is not None else _geno.outcome_for(bool(result.ok), list(codes)))
        metrics = cls(outcome, result.ok, result.timing.total_ms, getattr(result, "steps_used", 0), codes)
        object.__setattr__(metrics, "_raw", raw)  # the C result, for RuntimeMetricsCollector.record
        return metrics

    def to_dict(self) -> dict:
        """``{"outcome", "ok", "wall_time_ms" (2 decimals), "steps_used", "diagnostic_codes"}``."""
        return {"outcome": self.outcome.value, "ok": self.ok, "wall_time_ms": round(self.wall_time_ms, 2),
                "steps_used": self.steps_used, "diagnostic_codes": list(self.diagnostic_codes)}


@dataclass(frozen=True)
class BuildInfo:
    """What is running: service name, version, revision, Python version."""

    service: str = "geno-runtime"
    version: str = _geno.LIBRARY_VERSION
    revision: str | None = None
    python_version: str = field(default_factory=platform.python_version)

    def to_dict(self) -> dict:
        return {"service": self.service, "version": self.version, "revision": self.revision,
                "python_version": self.python_version}


@dataclass(frozen=True)
class HealthCheck:
    """One check of a health report; ``status`` is "pass", "warn" or "fail"."""

    name: str
    status: str
    detail: str

    def to_dict(self) -> dict:
        return {"name": self.name, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class BenchmarkValidationState:
    """The last benchmark validation recorded."""

    success: bool
    total_problems: int
    canonical_passed: int
    problems_with_issues: int

    @property
    def canonical_pass_rate(self) -> float:
        return self.canonical_passed / self.total_problems if self.total_problems else 0.0

    def to_dict(self) -> dict:
        return {"success": self.success, "total_problems": self.total_problems,
                "canonical_passed": self.canonical_passed,
                "canonical_pass_rate": round(self.canonical_pass_rate, 4),
                "problems_with_issues": self.problems_with_issues}


@dataclass(frozen=True)
class MetricsSnapshot:
    """Counters at one moment (from :meth:`RuntimeMetricsCollector.snapshot`)."""

    http_post_requests: int = 0
    http_post_requests_by_endpoint: dict = field(default_factory=dict)
    http_post_requests_by_status: dict = field(default_factory=dict)
    http_post_requests_by_outcome: dict = field(default_factory=dict)
    total_runs: int = 0
    successful_runs: int = 0
    syntax_error_runs: int = 0
    type_error_runs: int = 0
    runtime_error_runs: int = 0
    timeout_runs: int = 0
    capability_denied_runs: int = 0
    host_callback_missing_runs: int = 0
    security_violation_runs: int = 0
    resource_limit_runs: int = 0
    total_wall_time_ms: float = 0.0
    average_wall_time_ms: float = 0.0
    total_steps: int = 0
    average_steps: float = 0.0
    constrain_requests: int = 0
    valid_constrain_requests: int = 0
    invalid_constrain_requests: int = 0
    timeout_constrain_requests: int = 0
    total_constrain_wall_time_ms: float = 0.0
    average_constrain_wall_time_ms: float = 0.0
    benchmark_validations: int = 0
    benchmark_validation_failures: int = 0
    last_benchmark_validation: BenchmarkValidationState | None = None

    def to_dict(self) -> dict:
        """The JSON-ready snapshot, keys in the reference's order (then geno-c's additions)."""
        if getattr(self, "_dict", None) is not None:
            return json.loads(json.dumps(self._dict))
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.last_benchmark_validation is not None:
            d["last_benchmark_validation"] = self.last_benchmark_validation.to_dict()
        return d

    def to_prometheus_text(self) -> str:
        """Prometheus text exposition (format 0.0.4) of this snapshot, no trailing newline."""
        if getattr(self, "_prometheus", None) is None:
            raise ValueError("only a snapshot taken by RuntimeMetricsCollector.snapshot() renders Prometheus text")
        return self._prometheus


@dataclass(frozen=True)
class HealthReport:
    """``status`` is "failed" if a check fails, else "degraded" if one warns, else "ok"."""

    status: str
    generated_at_unix: float
    uptime_seconds: float
    build: BuildInfo
    checks: tuple[HealthCheck, ...]

    def to_dict(self) -> dict:
        """The JSON-ready report."""
        if getattr(self, "_dict", None) is not None:
            return json.loads(json.dumps(self._dict))
        return {"status": self.status, "generated_at_unix": self.generated_at_unix,
                "uptime_seconds": self.uptime_seconds, "build": self.build.to_dict(),
                "checks": [c.to_dict() for c in self.checks]}


_SNAPSHOT_FIELDS = [f.name for f in fields(MetricsSnapshot)]


class RuntimeMetricsCollector:
    """Thread-safe counters of runs, HTTP requests, constrain calls and benchmark validations.

    Pass :meth:`record` as ``RunConfig(monitoring_hook=...)``; read it with
    :meth:`snapshot` and :meth:`health_report`.
    """

    def __init__(self, service: str = "geno-runtime", revision: str | None = None) -> None:
        if not isinstance(service, str) or (revision is not None and not isinstance(revision, str)):
            raise TypeError("service must be a str and revision a str or None")
        self._service, self._revision = service, revision
        self._m = _geno.Metrics(service, revision)

    def record(self, metrics: RunMetrics) -> None:
        """Count one finished run (the ``monitoring_hook`` payload)."""
        if not isinstance(metrics, RunMetrics):
            raise TypeError(f"record() takes a RunMetrics, not {type(metrics).__name__}")
        if getattr(metrics, "_raw", None) is not None:
            self._m.record(metrics._raw, "run")
        else:
            self._m.record_run(metrics.outcome.value, float(metrics.wall_time_ms), int(metrics.steps_used),
                               list(metrics.diagnostic_codes))

    def record_run_result(self, result: Any) -> None:
        """Count one finished run from its RunResult."""
        self.record(RunMetrics.from_run_result(result))

    def record_http_post_request(self, *, endpoint: str, status: int, outcome: str) -> None:
        """Count one handled POST request (server side)."""
        if not isinstance(status, int) or not 100 <= status <= 599:
            raise ValueError("status must be an HTTP status code (100-599)")
        self._m.record_http(str(endpoint), status, str(outcome))

    def record_constrain_result(self, *, valid: bool | None, wall_time_ms: float) -> None:
        """Count one /constrain evaluation; ``valid`` None means it timed out."""
        self._m.record_constrain(valid, float(wall_time_ms))

    def record_benchmark_validation(self, *, total_problems: int, canonical_passed: int,
                                    problems_with_issues: int) -> None:
        """Record a benchmark validation; it succeeds when every problem passed and none had issues."""
        for n in (total_problems, canonical_passed, problems_with_issues):
            if not isinstance(n, int) or n < 0:
                raise ValueError("benchmark counts must be non-negative integers")
        self._m.record_benchmark(total_problems, canonical_passed, problems_with_issues)

    def record_startup_errors(self, errors: list[str]) -> None:
        """Replace the startup errors the health report shows."""
        self._m.set_startup_errors([str(e) for e in errors])

    def snapshot(self) -> MetricsSnapshot:
        """The counters now, with their Prometheus rendering."""
        d = json.loads(self._m.snapshot_json())
        text = self._m.prometheus()
        values = {k: d[k] for k in _SNAPSHOT_FIELDS if k in d}
        last = d.get("last_benchmark_validation")
        if last is not None:
            values["last_benchmark_validation"] = BenchmarkValidationState(
                last["success"], last["total_problems"], last["canonical_passed"], last["problems_with_issues"])
        snap = MetricsSnapshot(**values)
        object.__setattr__(snap, "_dict", d)
        object.__setattr__(snap, "_prometheus", text)
        return snap

    def health_report(self, extra_checks: list[HealthCheck] | None = None) -> HealthReport:
        """Startup checks, the runtime API, the collector, the last benchmark validation, then ``extra_checks``."""
        extra = [(c.name, c.status, c.detail) for c in (extra_checks or [])]
        d = json.loads(self._m.health_json(extra))
        build = d.get("build", {})
        build.setdefault("python_version", platform.python_version())
        info = BuildInfo(service=build.get("service", self._service), version=build.get("version", ""),
                         revision=build.get("revision"), python_version=build["python_version"])
        checks = tuple(HealthCheck(c["name"], c["status"], c["detail"]) for c in d.get("checks", []))
        report = HealthReport(d["status"], d["generated_at_unix"], d["uptime_seconds"], info, checks)
        object.__setattr__(report, "_dict", d)
        return report
