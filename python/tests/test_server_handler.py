"""geno.server.create_handler: geno serve's pipeline behind a ThreadingHTTPServer.

The differential test sends the same requests to a real `geno serve`
(started by geno.server.create_server on a free port of 127.0.0.1,
stopped by its PID) and to a ThreadingHTTPServer mounting
create_handler(...) with the same settings, and fails when they answer
differently: status, the pipeline's headers, and the body (JSON compared
without the parts that differ between any two runs: timings, request
ids, uptime). The handler's runs and requests are recorded into the
collector it was given.
"""
import http.client
import json
import threading
from http.server import ThreadingHTTPServer

import pytest

import geno
import geno.server

OK = "func main() -> Int\n    print(\"hi\")\n    return 41 + 1\nend func\n"
CRASH = "func main() -> Int\n    let z: Int = 0\n    return 10 / z\nend func\n"
TYPE_ERROR = "func main() -> Int\n    return \"text\"\nend func\n"
LOOP = "func main() -> Unit\n    var i: Int = 0\n    while true do\n        i = i + 1\n    end while\nend func\n"
EXAMPLES = ("func inc(x: Int) -> Int\n    example 1 -> 2\n    example 2 -> 4\n    return x + 1\nend func\n\n"
            "test \"adds\"\n    assert inc(1) == 2\nend test\n")
IMPORTS = "import Helper\nfunc main() -> Int\n    return Helper.twice(21)\nend func\n"
HELPER = "export func twice(x: Int) -> Int\n    return 2 * x\nend func\n"

JSON = {"Content-Type": "application/json"}


def body(obj):
    return json.dumps(obj).encode()


# (name, method, path, headers, body); "{host}" is each server's own Host.
REQUESTS = [
    ("run", "POST", "/run", JSON, body({"source": OK, "capabilities": ["print"]})),
    ("run without print", "POST", "/run", JSON, body({"source": OK})),
    ("runtime error", "POST", "/run", JSON, body({"source": CRASH})),
    ("type error", "POST", "/run", JSON, body({"source": TYPE_ERROR})),
    ("a capability not allowed", "POST", "/run", JSON, body({"source": OK, "capabilities": ["fs"]})),
    ("an unknown capability", "POST", "/run", JSON, body({"source": OK, "capabilities": ["teleport"]})),
    ("step limit", "POST", "/run", JSON, body({"source": LOOP, "max_steps": 1000})),
    ("modules", "POST", "/run", JSON, body({"source": IMPORTS, "modules": {"Helper": HELPER}})),
    ("bad timeout", "POST", "/run", JSON, body({"source": OK, "timeout": -1})),
    ("steps past the maximum", "POST", "/run", JSON, body({"source": OK, "max_steps": 10**12})),
    ("source not a string", "POST", "/run", JSON, body({"source": 5})),
    ("missing source", "POST", "/run", JSON, body({})),
    ("not JSON", "POST", "/run", JSON, b"{nope"),
    ("a JSON array", "POST", "/run", JSON, b"[1, 2]"),
    ("NaN", "POST", "/run", JSON, b'{"source": "x", "timeout": NaN}'),
    ("deep JSON", "POST", "/run", JSON, b"[" * 200 + b"]" * 200),
    ("no Content-Type", "POST", "/run", {}, body({"source": OK})),
    ("text/plain", "POST", "/run", {"Content-Type": "text/plain"}, body({"source": OK})),
    ("Content-Type with charset", "POST", "/run", {"Content-Type": "application/json; charset=utf-8"},
     body({"source": OK})),
    ("Content-Length too large", "POST", "/run", {**JSON, "Content-Length": "99999999"}, b""),
    ("check", "POST", "/check", JSON, body({"source": OK})),
    ("check a type error", "POST", "/check", JSON, body({"source": TYPE_ERROR})),
    ("test", "POST", "/test", JSON, body({"source": EXAMPLES})),
    ("constrain", "POST", "/constrain", JSON, body({"prefix": "func main() -> Int\n    return (1 +"})),
    ("constrain invalid", "POST", "/constrain", JSON, body({"prefix": "func main( ) ) ->"})),
    ("constrain without prefix", "POST", "/constrain", JSON, body({"source": "x"})),
    ("unknown POST path", "POST", "/nope", JSON, body({})),
    ("POST with a query", "POST", "/run?x=1", JSON, body({"source": OK})),
    ("foreign Origin", "POST", "/run", {**JSON, "Origin": "http://evil.example"}, body({"source": OK})),
    ("same Origin", "POST", "/run", {**JSON, "Origin": "http://{host}"}, body({"source": OK})),
    ("two Origins", "POST", "/run", {**JSON, "Origin": ["http://{host}", "http://{host}"]}, body({"source": OK})),
    ("foreign Host", "POST", "/run", {**JSON, "Host": "evil.example"}, body({"source": OK})),
    ("foreign Host on GET", "GET", "/metrics", {"Host": "evil.example"}, None),
    ("healthz from a loopback name on another port", "GET", "/healthz", {"Host": "localhost:1"}, None),
    ("OPTIONS", "OPTIONS", "/run", {"Origin": "http://{host}"}, None),
    ("playground", "GET", "/", {}, None),
    ("playground path", "GET", "/playground", {}, None),
    ("unknown GET path", "GET", "/nope?a=b", {}, None),
    ("PUT", "PUT", "/run", JSON, body({"source": OK})),
    ("DELETE", "DELETE", "/healthz", {}, None),
    ("healthz", "GET", "/healthz", {}, None),
    ("metrics", "GET", "/metrics", {}, None),
]

# Headers the pipeline sets (the HTTP servers' own, Server/Date/Connection,
# differ: libmicrohttpd and http.server).
PIPELINE_HEADERS = {
    "content-type", "access-control-allow-methods", "access-control-allow-headers", "access-control-max-age",
    "access-control-allow-origin", "vary", "x-content-type-options", "cache-control", "referrer-policy",
    "content-security-policy", "x-frame-options",
}
VOLATILE = {"timing", "generated_at_unix", "uptime_seconds", "total_ms", "lex_ms", "parse_ms", "typecheck_ms",
            "run_ms", "wall_time_ms"}


def scrub(value):
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def metric_counters(text):
    """The counters of a Prometheus text (durations and gauges of time left out)."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, _, value = line.rpartition(" ")
        if "_total" in name and "seconds" not in name and "_ms" not in name:
            out[name] = value
    return out


def send(port, method, path, headers, data):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    host = "127.0.0.1:%d" % port
    sent_host = False
    for k, v in headers.items():
        for one in (v if isinstance(v, list) else [v]):
            c.putheader(k, one.replace("{host}", host))
        sent_host |= k.lower() == "host"
    if not sent_host:
        c.putheader("Host", host)
    if data is not None and "Content-Length" not in headers:
        c.putheader("Content-Length", str(len(data)))
    c.endheaders(data if data else None)
    r = c.getresponse()
    payload = r.read()
    hdrs = {}
    for k, v in r.getheaders():
        hdrs.setdefault(k.lower(), []).append(v)
    c.close()
    return r.status, hdrs, payload


def answer_of(port, req):
    name, method, path, headers, data = req
    status, hdrs, payload = send(port, method, path, headers, data)
    kept = {k: v for k, v in hdrs.items() if k in PIPELINE_HEADERS}
    has_id = "x-request-id" in hdrs
    ctype = hdrs.get("content-type", [""])[0]
    if ctype.startswith("application/json"):
        content = scrub(json.loads(payload))
    elif path == "/metrics" and status == 200:
        content = metric_counters(payload.decode())
    else:
        content = payload.decode("utf-8", "replace")
    return status, kept, has_id, content


class Mounted:
    """create_handler(...) in a ThreadingHTTPServer on a free port of 127.0.0.1."""

    def __init__(self, collector, **options):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), geno.server.create_handler(collector, **options))
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


@pytest.fixture
def pair(request, monkeypatch):
    """(geno serve's port, the mounted handler's port, its collector) with the same options."""
    options = getattr(request, "param", {})
    # the same spawner layout in both (/healthz names each spawner and its
    # CPU): geno serve's default is measured at its start, create_handler's
    # is one per CPU
    monkeypatch.setenv("GENO_SPAWNERS", "1")
    real = geno.server.create_server("127.0.0.1", 0, service="geno-api", **options)
    collector = geno.RuntimeMetricsCollector(service="geno-api")
    mounted = Mounted(collector, **options)
    try:
        yield real.server_address[1], mounted.port, collector
    finally:
        mounted.close()
        real.server_close()


def test_same_answers_as_geno_serve(pair):
    real, mine, collector = pair
    differences = []
    for req in REQUESTS:
        want, got = answer_of(real, req), answer_of(mine, req)
        if want != got:
            differences.append(f"{req[0]}: geno serve {want!r}\n  create_handler {got!r}")
    assert not differences, "\n".join(differences)
    posts = sum(1 for r in REQUESTS if r[1] == "POST" and r[2] in ("/run", "/check", "/test", "/constrain")
                and r[0] not in ("foreign Host", "two Origins", "foreign Origin"))
    snap = collector.snapshot()
    assert snap.http_post_requests == posts
    assert snap.total_runs > 0 and snap.constrain_requests == 2  # the third had no prefix: 400


@pytest.mark.parametrize("pair", [{"api_key": "k3y", "rate_limit_requests": 4, "require_auth_for_playground": True}],
                         indirect=True)
def test_same_answers_with_auth_and_rate_limit(pair):
    real, mine, collector = pair
    reqs = [
        ("metrics without a key", "GET", "/metrics", {}, None),
        ("metrics with the key", "GET", "/metrics", {"X-API-Key": "k3y"}, None),
        ("healthz without a key", "GET", "/healthz", {}, None),
        ("playground without a key", "GET", "/", {}, None),
        ("playground with a bearer key", "GET", "/", {"Authorization": "Bearer k3y"}, None),
        ("run without a key", "POST", "/run", JSON, body({"source": OK})),
        ("run with a wrong key", "POST", "/run", {**JSON, "Authorization": "Bearer nope"}, body({"source": OK})),
        ("run with the key", "POST", "/run", {**JSON, "Authorization": "Bearer k3y"}, body({"source": OK})),
        ("two keys", "POST", "/run", {**JSON, "X-API-Key": ["k3y", "k3y"]}, body({"source": OK})),
        ("past the rate limit", "POST", "/run", {**JSON, "X-API-Key": "k3y"}, body({"source": OK})),
        ("still limited", "POST", "/check", {**JSON, "X-API-Key": "k3y"}, body({"source": OK})),
    ]
    for req in reqs:
        want, got = answer_of(real, req), answer_of(mine, req)
        assert want == got, f"{req[0]}: geno serve {want!r} / create_handler {got!r}"
    assert answer_of(mine, reqs[-1])[0] == 429
    snap = collector.snapshot()
    assert snap.http_post_requests_by_outcome.get("rate_limited") == 3
    assert snap.http_post_requests_by_outcome.get("auth_failed") == 3  # no key, a wrong one, two


def test_malformed_content_length_gets_the_pipelines_answer():
    """libmicrohttpd refuses these itself (its HTML page) before geno serve's
    pipeline sees them; behind http.server the pipeline answers, with the
    reference's messages."""
    mounted = Mounted(geno.RuntimeMetricsCollector())
    try:
        for value, msg in (("-1", "invalid Content-Length: must not be negative"),
                           ("12x", "invalid Content-Length header"), ("1, 1", "ambiguous Content-Length header"),
                           ("007", "invalid Content-Length header")):
            status, _, has_id, content = answer_of(mounted.port, ("cl", "POST", "/run",
                                                                  {**JSON, "Content-Length": value}, b""))
            assert (status, content, has_id) == (400, {"error": msg}, True), value
    finally:
        mounted.close()


def test_endless_runs_on_parallel_requests_end_at_their_limits():
    collector = geno.RuntimeMetricsCollector()
    mounted = Mounted(collector)
    try:
        req = ("loop", "POST", "/run", JSON, body({"source": LOOP, "timeout": 0.5, "max_steps": 10000000}))
        results = []
        threads = [threading.Thread(target=lambda: results.append(answer_of(mounted.port, req))) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(results) == 3
        for status, _, _, content in results:
            assert status == 400 and content["diagnostics"][0]["code"] in ("E501", "E503"), content
        snap = collector.snapshot()
        assert snap.timeout_runs + snap.resource_limit_runs == 3 and snap.http_post_requests == 3
    finally:
        mounted.close()


def test_options_are_checked():
    c = geno.RuntimeMetricsCollector()
    with pytest.raises(TypeError):
        geno.server.create_handler(object())
    with pytest.raises(ValueError):
        geno.server.create_handler(c, api_key="  ")
    with pytest.raises(ValueError):
        geno.server.create_handler(c, rate_limit_requests=-1)
    with pytest.raises(ValueError):
        geno.server.create_handler(c, rate_limit_window_seconds=0)
    with pytest.raises(ValueError):
        geno.server.create_handler(c, allowed_capabilities={"teleport"})
    with pytest.raises(ValueError):
        geno.server.create_handler(c, allowed_capabilities={"env"})
    with pytest.raises(ValueError):
        geno.server.create_handler(c, allowed_capabilities={"print"}, default_request_capabilities={"fs"})
    with pytest.raises(TypeError):
        geno.server.create_handler(c, allowed_capabilities="print")
    # allowed_capabilities=set() allows nothing (the reference's fixed bug)
    mounted = Mounted(c, allowed_capabilities=set())
    try:
        status, _, _, content = answer_of(mounted.port, ("print", "POST", "/run", JSON,
                                                          body({"source": OK, "capabilities": ["print"]})))
        assert (status, content) == (400, {"error": "unsupported capabilities requested: print"})
    finally:
        mounted.close()


def test_slow_and_oversized_requests_are_cut_off(monkeypatch):
    """GENO_REQUEST_TIMEOUT_SECONDS bounds a request's whole arrival (a client
    trickling header bytes is cut off) and GENO_MAX_REQUEST_HEADER_BYTES its
    headers (431); other clients are served meanwhile."""
    import socket
    import time
    monkeypatch.setenv("GENO_REQUEST_TIMEOUT_SECONDS", "2")
    monkeypatch.setenv("GENO_MAX_REQUEST_HEADER_BYTES", "4096")
    mounted = Mounted(geno.RuntimeMetricsCollector())
    try:
        s = socket.create_connection(("127.0.0.1", mounted.port), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % mounted.port)
        t0, cut = time.time(), None
        while time.time() - t0 < 8:
            try:
                s.sendall(b"X-Slow: 1\r\n")
                if not s.recv(1, socket.MSG_DONTWAIT):
                    cut = time.time() - t0
                    break
            except BlockingIOError:
                pass
            except OSError:
                cut = time.time() - t0
                break
            assert answer_of(mounted.port, ("healthz", "GET", "/healthz", {}, None))[0] == 200
            time.sleep(0.2)
        s.close()
        assert cut is not None and 1.5 <= cut <= 4, cut
        big = {"X-Big-%d" % i: "v" * 200 for i in range(40)}
        status, _, _, _ = answer_of(mounted.port, ("big", "GET", "/healthz", big, None))
        assert status == 431
    finally:
        mounted.close()
