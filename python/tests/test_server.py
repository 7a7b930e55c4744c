"""geno.server: the reference's hosted-runtime launcher names, served by `geno serve`.

Restates the reference's examples/monitoring_http_adapter.py (a launcher
that re-exports the four names and calls main()) and drives the server
it starts on 127.0.0.1 (a free port), stopping it by its PID.
"""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request

import pytest

import geno.server

ADAPTER = textwrap.dedent('''
    """A launcher for the hosted Geno runtime, written against the reference's names."""
    from geno.server import (
        DEFAULT_ALLOWED_CAPABILITIES,
        create_handler,
        create_server,
        main,
    )

    __all__ = ["DEFAULT_ALLOWED_CAPABILITIES", "create_handler", "create_server", "main"]

    if __name__ == "__main__":
        main()
''')


def get(url, data=None, headers=None):
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def post_run(base, body):
    return get(base + "/run", json.dumps(body).encode(), {"Content-Type": "application/json"})


def test_names():
    assert geno.server.DEFAULT_ALLOWED_CAPABILITIES == {"print", "clock", "random"}
    handler = geno.server.create_handler(geno.RuntimeMetricsCollector())
    from http.server import BaseHTTPRequestHandler
    assert issubclass(handler, BaseHTTPRequestHandler)
    with pytest.raises(ValueError):
        geno.server.create_server(port=0, default_request_capabilities={"print"})


def test_create_server_serves_run_health_and_metrics():
    with geno.server.create_server("127.0.0.1", 0, service="pytest-svc", revision="r9") as server:
        host, port = server.server_address
        assert host == "127.0.0.1" and port > 0
        base = f"http://127.0.0.1:{port}"
        status, body = post_run(base, {"source": 'func main() -> Int\n    print("hi")\n    return 42\nend func\n',
                                       "capabilities": ["print"]})
        assert status == 200, body
        out = json.loads(body)
        assert out["ok"] and out["value"] == 42 and out["output"] == "hi\n"
        status, body = post_run(base, {"source": 'func main() -> Unit\n    print("x")\nend func\n'})
        assert status == 400 and json.loads(body)["diagnostics"][0]["code"] == "E412"
        status, body = get(base + "/healthz")
        health = json.loads(body)
        assert status == 200 and health["status"] == "ok" and health["build"]["service"] == "pytest-svc"
        status, text = get(base + "/metrics")
        assert status == 200 and "geno_run_requests_total 2" in text
        server.shutdown()
        server.serve_forever()  # returns once the process has stopped


def test_the_adapter_script_runs_the_server(tmp_path):
    script = tmp_path / "monitoring_http_adapter.py"
    script.write_text(ADAPTER)
    proc = subprocess.Popen([sys.executable, str(script), "--host", "127.0.0.1", "--port", "0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        port = None
        deadline = time.time() + 30
        while port is None and time.time() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            if "Serving Geno runtime on http://127.0.0.1:" in line:
                port = int(line.rsplit(":", 1)[1].split()[0].strip("/"))
        assert port, "the server did not announce its port"
        status, body = get(f"http://127.0.0.1:{port}/healthz")
        assert status == 200 and json.loads(body)["status"] == "ok"
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(15)
    assert proc.returncode == 0


def test_create_server_raises_when_the_server_refuses_to_start():
    # a non-loopback address without GENO_API_KEY: geno serve refuses before
    # it binds anything (192.0.2.1 is a documentation address, never local).
    # Its stderr ending woke create_server before the exit was reaped, and
    # about half the calls returned a handle to a dead server.
    env_key = os.environ.pop("GENO_API_KEY", None)
    try:
        for _ in range(12):
            with pytest.raises(RuntimeError, match="Refusing to bind 192.0.2.1"):
                geno.server.create_server(host="192.0.2.1", port=0)
    finally:
        if env_key is not None:
            os.environ["GENO_API_KEY"] = env_key
