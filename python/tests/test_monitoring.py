"""The monitoring hook and RuntimeMetricsCollector."""
import json
import threading
import warnings

import pytest

import geno
from geno import RunConfig, RunMetrics, RunOutcome, RuntimeMetricsCollector

OK = "func main() -> Int\n    return 1\nend func\n"
TYPE_ERR = 'func main() -> Int\n    return "x"\nend func\n'
DENIED = 'func main() -> Unit\n    print("x")\nend func\n'


def test_hook_receives_run_metrics_for_every_outcome():
    seen = []
    cfg = RunConfig(monitoring_hook=seen.append)
    geno.run(OK, config=cfg)
    geno.run(TYPE_ERR, config=cfg)
    geno.run(DENIED, config=cfg)
    geno.run("func main( ->", config=cfg)
    assert [m.outcome for m in seen] == [RunOutcome.SUCCESS, RunOutcome.TYPE_ERROR,
                                         RunOutcome.CAPABILITY_DENIED, RunOutcome.SYNTAX_ERROR]
    assert all(isinstance(m, RunMetrics) for m in seen)
    assert seen[1].diagnostic_codes == ("E300",) and not seen[1].ok
    d = seen[0].to_dict()
    assert list(d) == ["outcome", "ok", "wall_time_ms", "steps_used", "diagnostic_codes"]
    assert d["outcome"] == "success" and d["steps_used"] > 0


def test_failing_hook_warns_and_keeps_the_result():
    def bad(m):
        raise RuntimeError("hook broke")
    with pytest.warns(RuntimeWarning, match="hook broke"):
        r = geno.run(OK, config=RunConfig(monitoring_hook=bad))
    assert r.ok and r.value == 1


def test_collector_snapshot_health_and_prometheus():
    c = RuntimeMetricsCollector(service="svc", revision="r1")
    cfg = RunConfig(monitoring_hook=c.record)
    geno.run(OK, config=cfg)
    geno.run(TYPE_ERR, config=cfg)
    c.record_run_result(geno.run(DENIED))
    c.record(RunMetrics(RunOutcome.TIMEOUT, False, 12.5, 7, ("E501",)))
    c.record_http_post_request(endpoint="/run", status=200, outcome="ok")
    c.record_constrain_result(valid=None, wall_time_ms=3.0)
    c.record_benchmark_validation(total_problems=4, canonical_passed=4, problems_with_issues=0)
    s = c.snapshot()
    assert (s.total_runs, s.successful_runs, s.type_error_runs, s.capability_denied_runs, s.timeout_runs) == (
        4, 1, 1, 1, 1)
    assert s.http_post_requests == 1 and s.http_post_requests_by_status == {"200": 1}
    assert s.timeout_constrain_requests == 1 and s.last_benchmark_validation.success
    d = s.to_dict()
    assert list(d)[:8] == ["http_post_requests", "http_post_requests_by_endpoint", "http_post_requests_by_status",
                           "http_post_requests_by_outcome", "total_runs", "successful_runs", "failed_runs",
                           "success_rate"]
    assert d["success_rate"] == 0.25
    json.dumps(d)
    text = s.to_prometheus_text()
    assert "geno_run_requests_total 4" in text and "geno_run_timeout_total 1" in text
    assert 'geno_http_post_requests_by_status_total{status="200"} 1' in text
    assert not text.endswith("\n")
    h = c.health_report(extra_checks=[geno.HealthCheck("disk", "warn", "low")])
    assert h.status == "degraded" and h.build.service == "svc" and h.build.revision == "r1"
    assert [k.name for k in h.checks][-1] == "disk"
    hd = h.to_dict()
    assert list(hd) == ["status", "generated_at_unix", "uptime_seconds", "build", "checks"]
    assert hd["build"]["python_version"]
    c.record_startup_errors(["db down"])
    assert c.health_report().status == "failed"


def test_fresh_collector_renders_the_reference_families():
    text = RuntimeMetricsCollector().snapshot().to_prometheus_text()
    # the reference's 26 families less the three labelled ones, empty until a request
    assert text.count("# TYPE ") == 23
    assert text.startswith("# HELP geno_http_post_requests_total ")
    assert "by_status" not in text


def test_collector_is_thread_safe():
    c = RuntimeMetricsCollector()
    cfg = RunConfig(monitoring_hook=c.record)
    threads = [threading.Thread(target=lambda: [geno.run(OK, config=cfg) for _ in range(25)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert c.snapshot().total_runs == 100


def test_collector_argument_errors():
    c = RuntimeMetricsCollector()
    with pytest.raises(TypeError):
        c.record({"outcome": "success"})
    with pytest.raises(ValueError):
        c.record_http_post_request(endpoint="/run", status=42, outcome="ok")
    with pytest.raises(ValueError):
        c.record_benchmark_validation(total_problems=-1, canonical_passed=0, problems_with_issues=0)
    with pytest.raises(TypeError):
        RuntimeMetricsCollector(service=5)
    with pytest.raises(ValueError):
        geno.MetricsSnapshot().to_prometheus_text()
