#!/usr/bin/env python3
"""Integration tests of `geno serve`: start the real server on 127.0.0.1
on a free port (--port 0; the bound port is read from its log), drive it
over HTTP (http.client, or raw sockets for malformed requests), stop it by
its PID. Every case is bounded in time.

usage: run_server.py --geno PATH
"""
import argparse
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import sys
import threading
import time

GENO = None
FAILURES = []
CHECKS = 0

OK42 = "func main() -> Int\n    return 42\nend func\n"
# Endless, and slow per step (each iteration builds a 200 KB string), so
# no step limit ends it before the clocks do.
LOOP = ("func main() -> Int\n    var i = 0\n    while true do\n"
        "        i = i + length(repeat_string(\"ab\", 100000))\n"
        "    end while\n    return i\nend func\n")


def check(cond, what):
    global CHECKS
    CHECKS += 1
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)


class Server:
    def __init__(self, env=None, args=()):
        e = {k: v for k, v in os.environ.items() if not k.startswith("GENO_")}
        e.update(env or {})
        self.log_lines = []
        self.proc = subprocess.Popen([GENO, "serve", "--port", "0", *args], env=e,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.port = None
        deadline = time.time() + 30
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log_lines.append(line)
            m = re.search(r"Serving Geno runtime on http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            self.proc.kill()
            raise RuntimeError("server did not start: " + "".join(self.log_lines))
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        # the spawner (a helper process the workers fork from) is a child
        # from the start; workers are the children that come and go
        self.base = set(self._all_children())

    def _read(self):
        for line in self.proc.stderr:
            self.log_lines.append(line)

    def log(self, wait_for=None):
        """The log so far; with wait_for, first wait (up to 5 s) until it holds that text
        (the log is read by another thread)."""
        deadline = time.time() + 5
        while wait_for is not None and wait_for not in "".join(self.log_lines) and time.time() < deadline:
            time.sleep(0.02)
        return "".join(self.log_lines)

    def host(self):
        return "127.0.0.1:%d" % self.port

    def request(self, method, path, body=None, headers=None, timeout=30):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        h = {"Host": self.host()}
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in h.items():
            if isinstance(v, list):
                for one in v:
                    c.putheader(k, one)
            elif v is not None:
                c.putheader(k, v)
        data = body.encode() if isinstance(body, str) else body
        if data is not None and "Content-Length" not in h:
            c.putheader("Content-Length", str(len(data)))
        c.endheaders(data)
        r = c.getresponse()
        payload = r.read()
        c.close()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), payload

    def post(self, path, obj, headers=None, timeout=30):
        status, hdrs, payload = self.request("POST", path, obj, headers, timeout)
        try:
            return status, hdrs, json.loads(payload)
        except ValueError:
            return status, hdrs, payload

    def raw(self, data, timeout=10, pause=0):
        """Send data, wait `pause` seconds, shut the write side, read the answer to the end."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        s.sendall(data)
        time.sleep(pause)
        s.shutdown(socket.SHUT_WR)
        out = b""
        try:
            while True:
                k = s.recv(65536)
                if not k:
                    break
                out += k
        except socket.timeout:
            pass
        s.close()
        return out

    def post_in_background(self, obj, wait_for_worker=True):
        """POST obj to /run on a thread of its own; returns (thread, result),
        result["r"] the (status, headers, body) once the thread ends. With
        wait_for_worker, first waits (up to 2 s) until a worker is running."""
        result = {}

        def run():
            result["r"] = self.post("/run", obj, timeout=30)

        th = threading.Thread(target=run)
        th.start()
        for _ in range(200 if wait_for_worker else 0):
            if self.children():
                break
            time.sleep(0.01)
        return th, result

    def children(self):
        return sorted(set(self._all_children()) - self.base)

    def _all_children(self):
        try:
            with open("/proc/%d/task/%d/children" % (self.proc.pid, self.proc.pid)) as f:
                kids = f.read().split()
        except OSError:
            kids = []
        for task in os.listdir("/proc/%d/task" % self.proc.pid):
            try:
                with open("/proc/%d/task/%s/children" % (self.proc.pid, task)) as f:
                    kids += f.read().split()
            except OSError:
                pass
        return [int(k) for k in kids]

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        return self.proc.returncode


def err(body):
    return body.get("error") if isinstance(body, dict) else body


def test_basics(s):
    st, h, b = s.post("/run", {"source": OK42})
    check(st == 200 and b["ok"] is True and b["value"] == 42, "run 42: %r %r" % (st, b))
    check(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
                       h.get("x-request-id", "")), "X-Request-Id is a uuid4")
    check(h.get("content-type") == "application/json; charset=utf-8", "JSON content type")
    for k, v in [("x-content-type-options", "nosniff"), ("cache-control", "no-store"),
                 ("referrer-policy", "no-referrer"), ("access-control-allow-methods", "GET, POST, OPTIONS"),
                 ("access-control-max-age", "3600")]:
        check(h.get(k) == v, "header %s: %r" % (k, h.get(k)))
    check("access-control-allow-origin" not in h, "no CORS origin without a configured one")
    st, h, b = s.post("/run", {"source": "func main() -> Int\n    print(\"hi\")\n    return 1\nend func\n"})
    check(st == 400 and any(d["code"] == "E412" for d in b["diagnostics"]),
          "print without the capability is E412: %r" % b)
    st, h, b = s.post("/run", {"source": "func main() -> Int\n    print(\"hi\")\n    return 1\nend func\n",
                               "capabilities": ["print"]})
    check(st == 200 and b["output"] == "hi\n", "print granted: %r" % b)
    st, h, b = s.post("/run", {"source": "func main() -> Int\n    return \"x\"\nend func\n", "filename": "f.geno"})
    check(st == 400 and b["diagnostics"][0]["code"] == "E300", "type error 400: %r" % b)
    check(b["diagnostics"][0]["location"]["filename"] == "f.geno", "filename used in locations")
    # /check: typecheck only
    st, h, b = s.post("/check", {"source": "func main() -> Int\n    return \"x\"\nend func\n"})
    check(st == 400 and list(b.keys()) == ["ok", "diagnostics", "timing"] and b["diagnostics"][0]["code"] == "E300",
          "/check shape: %r" % b)
    st, h, b = s.post("/check", {"source": LOOP})
    check(st == 200 and b["ok"] is True, "/check never runs the program: %r" % b)
    # /test: the test report
    src = "func sq(x: Int) -> Int\n    example 3 -> 9\n    example 2 -> 5\n    return x * x\nend func\n"
    st, h, b = s.post("/test", {"source": src})
    check(st == 400 and b["value"]["total"] == 2 and b["value"]["failed"] == 1, "/test report: %r" % b)
    st, h, b = s.post("/constrain", {"prefix": "func main() -> Int\n    return "})
    check(st == 200 and b["valid"] is True and b["error"] is None and b["unclosed_blocks"] == ["func"] and
          "allowed_next" in b, "/constrain of a valid prefix: %r %r" % (st, b))
    st, h, b = s.post("/constrain", {"prefix": "func main() -> Int\n    return )"})
    check(st == 200 and b["valid"] is False and isinstance(b["error"], str), "/constrain of an invalid prefix: %r" % b)
    st, h, b = s.request("GET", "/metrics")
    check(re.search(rb"geno_constrain_valid_total 1\b", b) is not None and
          re.search(rb"geno_constrain_invalid_total 1\b", b) is not None, "constrain metrics counted")
    st, h, b = s.post("/constrain", {"prefix": 3})
    check(st == 400 and err(b) == "'prefix' must be a string", "/constrain prefix validated: %r" % b)
    # modules
    st, h, b = s.post("/run", {"source": "import Util\nfunc main() -> Int\n    return Util.twice(4)\nend func\n",
                               "modules": {"Util": "func twice(x: Int) -> Int\n    example 1 -> 2\n    return x * 2\nend func\n"}})
    check(st == 200 and b["value"] == 8, "modules: %r" % b)
    st, h, b = s.post("/run", {"source": "import Util\nfunc main() -> Int\n    return Util.twice(4)\nend func\n",
                               "modules": {"Util": "func twice(x: Int) -> Int\n    return \"x\"\nend func\n"}})
    locs = [d.get("location", {}).get("filename") for d in b.get("diagnostics", [])] if isinstance(b, dict) else []
    check(st == 400 and locs and locs[0] == "<module:Util>",
          "a diagnostic inside a module names it <module:Util>, as the reference: %r" % b)
    # steps: default hosted limit 10,000
    st, h, b = s.post("/run", {"source": LOOP})
    check(st == 400 and b["diagnostics"][0]["code"] == "E503", "default step limit: %r" % b)


def test_get(s):
    st, h, b = s.request("GET", "/healthz")
    rep = json.loads(b)
    check(st == 200 and rep["status"] == "ok" and [c["name"] for c in rep["checks"]][:3] ==
          ["startup_checks", "runtime_api", "metrics_collector"], "healthz: %r" % rep)
    st, h, b = s.request("GET", "/healthz", headers={"Host": "localhost:1"})
    check(st == 200, "healthz from a loopback peer with a loopback Host on another port: %r" % st)
    st, h, b = s.request("GET", "/metrics")
    check(st == 200 and h["content-type"] == "text/plain; version=0.0.4; charset=utf-8" and
          b"# TYPE geno_http_post_requests_total counter" in b and not b.endswith(b"\n"), "metrics: %r" % b[:200])
    check(re.search(rb'geno_http_post_requests_by_status_total\{status="200"\} \d+', b) is not None,
          "metrics count POST statuses")
    st, h, b = s.request("GET", "/")
    check(st == 200 and b"<textarea" in b and h.get("x-frame-options") == "DENY" and
          "frame-ancestors 'none'" in h.get("content-security-policy", ""), "playground")
    st, h, b = s.request("GET", "/playground")
    check(st == 200, "playground alias")
    st, h, b = s.request("GET", "/nope")
    check(st == 404 and json.loads(b) == {"error": "unknown endpoint: /nope"}, "GET 404: %r" % b)
    st, h, b = s.request("POST", "/nope", {"source": OK42})
    check(st == 404 and json.loads(b) == {"error": "unknown endpoint: /nope"}, "POST 404: %r" % b)
    st, h, b = s.request("OPTIONS", "/run")
    check(st == 204 and h.get("content-length") == "0" and
          h.get("access-control-allow-headers") == "Content-Type, Authorization, X-API-Key", "OPTIONS: %r" % h)
    st, h, b = s.request("HEAD", "/healthz")
    check(st == 501 and b == b"", "HEAD is 501, as the reference's http.server handler: %r" % st)
    # GET, OPTIONS and POST answers keep the connection open (HTTP/1.1 keep-alive)
    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
    try:
        seen = []
        for method, path, body in (("GET", "/healthz", None), ("OPTIONS", "/run", None), ("GET", "/nope", None),
                                   ("POST", "/run", json.dumps({"source": OK42})), ("GET", "/healthz", None)):
            hd = {"Host": s.host()}
            if body:
                hd["Content-Type"] = "application/json"
            c.request(method, path, body, hd)
            r = c.getresponse()
            r.read()
            seen.append((method, r.status, r.getheader("Connection")))
        check([x[1] for x in seen] == [200, 204, 404, 200, 200] and all(x[2] is None for x in seen),
              "five requests on one kept-alive connection: %r" % seen)
    finally:
        c.close()
    # a client that sends a request and shuts its side down gets the answer and the connection closed
    t0 = time.time()
    out = s.raw(b"GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n" % s.host().encode())
    check(out.startswith(b"HTTP/1.1 200 ") and time.time() - t0 < 3,
          "a half-closed keep-alive connection is closed after its answer: %.1fs %r" % (time.time() - t0, out[:40]))
    st, h, b = s.request("PUT", "/run", "x")
    check(st == 501, "PUT is 501: %r" % st)


def test_host_origin(s):
    for host in ["evil.example:%d" % s.port, "localhost", "127.0.0.1:1"]:
        st, h, b = s.request("POST", "/run", {"source": OK42}, {"Host": host})
        check(st == 421 and b == b'{"error": "invalid Host header"}\n' and "x-request-id" not in h,
              "Host %s is 421: %r %r" % (host, st, b))
    st, h, b = s.request("POST", "/run", {"source": OK42}, {"Host": "LOCALHOST.:%d" % s.port})
    check(st == 200, "Host compared lower-case without the trailing dot: %r" % st)
    st, h, b = s.request("GET", "/metrics", headers={"Host": "evil.example"})
    check(st == 421, "GET with a bad Host: %r" % st)
    st, h, b = s.post("/run", {"source": OK42}, {"Origin": "http://evil.example"})
    check(st == 403 and b == {"error": "cross-origin request is not allowed"}, "cross origin: %r" % b)
    st, h, b = s.post("/run", {"source": OK42}, {"Origin": "http://127.0.0.1:%d" % s.port})
    check(st == 200, "same origin: %r" % st)
    st, h, b = s.post("/run", {"source": OK42}, {"Origin": "https://127.0.0.1:%d" % s.port})
    check(st == 403, "scheme must match: %r" % st)
    st, h, b = s.post("/run", {"source": OK42}, {"Origin": ["http://127.0.0.1:%d" % s.port] * 2})
    check(st == 403, "two Origin headers: %r" % st)


def test_body_rules(s):
    def post_raw(headers, body=b""):
        lines = ["POST /run HTTP/1.1", "Host: " + s.host(), "Connection: close"] + headers
        out = s.raw(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head, _, payload = out.partition(b"\r\n\r\n")
        m = re.match(rb"HTTP/1\.[01] (\d+)", head)
        return (int(m.group(1)) if m else 0), payload

    body = json.dumps({"source": OK42}).encode()
    cases = [
        (["Content-Type: application/json", "Transfer-Encoding: chunked"], b"0\r\n\r\n",
         "Transfer-Encoding is not supported"),
        (["Content-Length: %d" % len(body)], body, "missing Content-Type header"),
        (["Content-Type: application/json", "Content-Type: application/json", "Content-Length: %d" % len(body)],
         body, "ambiguous Content-Type header"),
        (["Content-Type: text/plain", "Content-Length: %d" % len(body)], body,
         "Content-Type must be application/json"),
        (["Content-Type: application/json"], b"", "missing Content-Length header"),
        (["Content-Type: application/json", "Content-Length: 2000000"], b"",
         "request body too large (max 1048576 bytes)"),
    ]
    for headers, data, msg in cases:
        st, payload = post_raw(headers, data)
        try:
            got = json.loads(payload).get("error")
        except ValueError:
            got = payload
        check(st == 400 and got == msg, "body rule %r: %r %r" % (msg, st, payload[:120]))
    st, payload = post_raw(["Content-Type: Application/JSON; charset=utf-8", "Content-Length: %d" % len(body)], body)
    check(st == 200, "media type compared without parameters, any case: %r" % st)
    st, payload = post_raw(["Content-Type: application/json", "Content-Length: 1048577"], b'{"source":"' + b"x" * 1000)
    check(st == 400 and json.loads(payload)["error"] == "request body too large (max 1048576 bytes)",
          "one byte over the body cap, judged from the header: %r" % payload[:100])
    for data, msg in [
        (b"\xff\xfe", "request body must be valid JSON"),
        (b"{bad json", "request body must be valid JSON"),
        (b'{"source": NaN}', "request body must be valid JSON"),
        (b'{"source": Infinity}', "request body must be valid JSON"),
        (b"[" * 129 + b"]" * 129, "request body JSON is nested too deeply"),
        (b"[1, 2]", "request body must be a JSON object"),
    ]:
        st, h, b = s.request("POST", "/run", data, {"Content-Type": "application/json"})
        check(st == 400 and json.loads(b)["error"] == msg, "JSON rule %r: %r %r" % (msg, st, b))
    st, h, b = s.request("POST", "/run", b'{"source": "' + b"[" * 200 + b'"}', {"Content-Type": "application/json"})
    check(st == 400 and json.loads(b)["diagnostics"], "brackets inside strings do not count as nesting")
    # a body shorter than its Content-Length, then the client shuts its side down: 400, as the reference
    for pause in (0, 0.3):  # the end of stream with the bytes, or after them
        t0 = time.time() + pause
        out = s.raw(b"POST /run HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100\r\n\r\n{\"source\"" % s.host().encode(), pause=pause)
        head, _, payload = out.partition(b"\r\n\r\n")
        try:
            got = json.loads(payload)
        except ValueError:
            got = payload
        check(head.startswith(b"HTTP/1.1 400 ") and got == {"error": "incomplete request body"} and
              re.search(rb"\r\nX-Request-Id: [0-9a-f-]{36}\r\n", head) is not None and time.time() - t0 < 3,
              "a body cut short (pause %.1f) is 400 incomplete request body: %.1fs %r" % (pause, time.time() - t0,
                                                                                          out[:300]))
    check("status=400" in s.log("outcome=bad_request"), "the cut-short body logged as a 400")


def test_json_numbers_and_surrogates(s):
    """Numbers beyond 64 bits or the double range and unpaired surrogate
    escapes are read as the reference's JSON reader reads them: the field
    rules judge them, and a field that ignores them ignores them."""
    src = '"source":"func main() -> Int\\n    return 1\\nend func\\n"'

    def post(extra):
        st, h, b = s.request("POST", "/run", "{" + src + extra + "}", {"Content-Type": "application/json"})
        return st, json.loads(b)

    cases = [
        (',"max_steps":' + "9" * 30, "'max_steps' exceeds server maximum (10000000)"),
        (',"max_steps":' + "9" * 4300, "'max_steps' exceeds server maximum (10000000)"),
        (',"max_steps":' + "9" * 4301, "request body must be valid JSON"),
        (',"x":' + "9" * 4301, "request body must be valid JSON"),
        (',"max_steps":-' + "9" * 30, "'max_steps' must be a positive integer when provided"),
        (',"timeout":' + "9" * 30, "'timeout' exceeds server maximum (30.0s)"),
        (',"timeout":-' + "9" * 30, "'timeout' must be a positive number"),
        (',"timeout":1e400', "'timeout' must be a positive number"),
        (',"timeout":-1e400', "'timeout' must be a positive number"),
        (',"max_steps":1e400', "'max_steps' must be a positive integer when provided"),
        (',"capabilities":[1e400]', "'capabilities' must be a list of strings"),
        (',"capabilities":1e400', "'capabilities' must be a list of strings"),
        (',"modules":1e400', "'modules' must be an object of {name: source}"),
        (',"modules":{"A":1e400}', "'modules' entries must be string -> string"),
        (',"check_examples":1e400', "'check_examples' must be a boolean"),
    ]
    for extra, msg in cases:
        st, b = post(extra)
        check(st == 400 and b.get("error") == msg, "JSON number %s...: %r %r" % (extra[:30], st, b))
    st, h, b = s.request("POST", "/run", '{"source":1e400}', {"Content-Type": "application/json"})
    check(st == 400 and json.loads(b) == {"error": "'source' must be a string"}, "infinite source: %r" % b)
    st, h, b = s.request("POST", "/run", "1" * 40, {"Content-Type": "application/json"})
    check(st == 400 and json.loads(b) == {"error": "request body must be a JSON object"}, "huge top level: %r" % b)
    # ignored fields may hold the numbers the reference's reader accepts
    for extra in [',"x":1e400', ',"x":-' + "9" * 100]:
        st, b = post(extra)
        check(st == 200 and b.get("value") == 1, "ignored field %r: %r %r" % (extra, st, b))
    # an unpaired surrogate escape anywhere is refused (400): a program's
    # text is never changed quietly (the reference runs or crashes on it)
    surrogate_msg = "request body contains an unpaired surrogate escape (\\uD800-\\uDFFF without its pair)"
    for extra in [',"x":"\\ud800"', ',"\\udc00":1', ',"x":"\\udbff\\u0041"', ',"filename":"a\\ud800.geno"',
                  ',"modules":{"A":"\\udfff"}']:
        st, b = post(extra)
        check(st == 400 and b.get("error") == surrogate_msg, "unpaired surrogate %r: %r %r" % (extra, st, b))
    st, h, b = s.request("POST", "/run",
                         '{"source":"func main() -> String\\n    return \\"\\ud800|\\udc00\\"\\nend func\\n"}',
                         {"Content-Type": "application/json"})
    b = json.loads(b)
    check(st == 400 and b.get("error") == surrogate_msg, "surrogates in a string literal: %r" % b)
    # a valid pair, and an escaped backslash before "ud800" (a comment's
    # text here), are fine
    st, h, b = s.request("POST", "/run",
                         '{"source":"func main() -> String\\n    // \\\\ud800\\n    return \\"\\ud83d\\ude00\\"\\nend func\\n"}',
                         {"Content-Type": "application/json"})
    b = json.loads(b)
    check(st == 200 and b.get("value") == "\U0001F600", "a surrogate pair and an escaped backslash: %r" % b)


def test_ascii_only_json(s):
    """Every JSON answer is ASCII-only, as the reference's: non-ASCII text as
    \\uXXXX escapes, a surrogate pair above U+FFFF, in results, /check,
    /constrain and error messages alike."""
    src = 'func main() -> String\n    return "\u00e9\u4e2d\U0001F600"\nend func\n'
    st, h, raw = s.request("POST", "/run", {"source": src})
    check(st == 200 and raw.isascii() and b'"value":"\\u00e9\\u4e2d\\ud83d\\ude00"' in raw,
          "ASCII-only RunResult: %r" % raw[:120])
    st, h, raw = s.request("POST", "/check", {"source": "func main() -> Int\n    return \u00e9t\u00e9\nend func\n"})
    check(st == 400 and raw.isascii() and b"Unexpected character: '\\u00e9'" in raw, "ASCII-only /check: %r" % raw[:200])
    st, h, raw = s.request("POST", "/run", {"source": OK42, "capabilities": ["\u00e9"]})
    check(st == 400 and raw.isascii() and b"Unknown capability '\\u00e9'" in raw,
          "ASCII-only error message, one escape per character: %r" % raw[:80])
    st, h, raw = s.request("POST", "/constrain", {"prefix": 'func main() -> String\n    return "\u00e9'})
    check(st == 200 and raw.isascii(), "ASCII-only /constrain: %r" % raw[:120])
    st, h, raw = s.request("POST", "/run", {"source": 'func main() -> String\n    return "a\x7fb"\nend func\n'})
    check(st == 200 and b"\x7f" not in raw and b'"value":"a\\u007fb"' in raw,
          "U+007F escaped as \\u007f, as the reference's JSON writer does: %r" % raw[:80])


def test_malformed_content_length(s):
    """A Content-Length libmicrohttpd cannot read is refused by it before the
    server sees the request: a 400, the connection closed, the server
    unharmed."""
    for value in ("-5", "+5", "5x"):
        out = s.raw(("POST /run HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %s\r\n\r\n{}" % (s.host(), value)).encode())
        check(out.startswith(b"HTTP/1.1 400 "), "Content-Length %s: %r" % (value, out[:60]))
    st, h, b = s.post("/run", {"source": OK42})
    check(st == 200 and b["value"] == 42, "served after malformed Content-Length: %r" % st)


def test_idle_connections(s):
    """Idle and half-open connections cannot starve real clients: with 200
    of them open (none sends a complete request), a client is still served
    at once, and /constrain runs in a worker while a slow /run holds
    another."""
    idle = []
    try:
        for i in range(200):
            c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
            if i % 2:
                c.sendall(b"POST /run HTTP/1.1\r\nHost: x\r\n")  # half a request
            idle.append(c)
        t0 = time.time()
        st, h, b = s.post("/run", {"source": OK42}, timeout=10)
        check(st == 200 and b["value"] == 42, "served beside 200 idle connections: %r %r" % (st, b))
        check(time.time() - t0 < 5, "served at once beside 200 idle connections")
        st, h, b = s.request("GET", "/healthz", timeout=10)
        check(st == 200, "/healthz beside 200 idle connections: %r" % st)
    finally:
        for c in idle:
            c.close()
    th, result = s.post_in_background({"source": LOOP, "timeout": 1.0, "max_steps": 10000000}, False)
    try:
        time.sleep(0.2)
        t0 = time.time()
        st, h, b = s.post("/constrain", {"prefix": "func main() -> Int\n    return "}, timeout=10)
        check(st == 200 and b.get("valid") is True, "/constrain beside a slow /run: %r %r" % (st, b))
        check(time.time() - t0 < 0.9, "/constrain not held up by a slow /run (%.2fs)" % (time.time() - t0))
    finally:
        th.join(20)
    st = result.get("r", (0,))[0]
    check(st in (400, 504), "slow /run ended by its limit: %r" % st)


def test_fields(s):
    def msg(obj):
        st, h, b = s.post("/run", obj)
        return st, err(b)

    fixed = ("hosted /run clients may configure only timeout and max_steps; operator-controlled resource "
             "limits are fixed: ")
    cases = [
        ({}, "'source' must be a string"),
        ({"source": 3}, "'source' must be a string"),
        ({"source": OK42, "filename": 3}, "'filename' must be a string when provided"),
        ({"source": OK42, "max_memory_bytes": 1, "max_cpu_time": 1, "timeout": -1},
         fixed + "max_cpu_time, max_memory_bytes"),
        ({"source": OK42, "max_recursion_depth": 10}, fixed + "max_recursion_depth"),
        ({"source": OK42, "timeout": -1}, "'timeout' must be a positive number"),
        ({"source": OK42, "timeout": 0}, "'timeout' must be a positive number"),
        ({"source": OK42, "timeout": "5"}, "'timeout' must be a positive number"),
        ({"source": OK42, "timeout": True}, "'timeout' must be a positive number"),
        ({"source": OK42, "timeout": 31}, "'timeout' exceeds server maximum (30.0s)"),
        ({"source": OK42, "max_steps": 0}, "'max_steps' must be a positive integer when provided"),
        ({"source": OK42, "max_steps": 1.5}, "'max_steps' must be a positive integer when provided"),
        ({"source": OK42, "max_steps": True}, "'max_steps' must be a positive integer when provided"),
        ({"source": OK42, "max_steps": 10000001}, "'max_steps' exceeds server maximum (10000000)"),
        ({"source": OK42, "check_examples": "yes"}, "'check_examples' must be a boolean"),
        ({"source": OK42, "capabilities": "print"}, "'capabilities' must be a list of strings"),
        ({"source": OK42, "capabilities": [1]}, "'capabilities' must be a list of strings"),
        ({"source": OK42, "capabilities": [""]}, "Capability names must not be empty."),
        ({"source": OK42, "capabilities": ["prnt"]},
         "Unknown capability 'prnt'. Valid capabilities: clock, env, fs, http, print, process, random, regex, "
         "serve, stdin. Did you mean 'print'?"),
        ({"source": OK42, "capabilities": ["fs", "print", "env"]}, "unsupported capabilities requested: env, fs"),
        ({"source": OK42, "modules": []}, "'modules' must be an object of {name: source}"),
        ({"source": OK42, "modules": {"A%d" % i: "" for i in range(51)}}, "too many modules (51, max 50)"),
        ({"source": OK42, "modules": {"Util": 3}}, "'modules' entries must be string -> string"),
        ({"source": OK42, "modules": {"lower": ""}},
         "invalid module name 'lower': expected a simple PascalCase identifier"),
        ({"source": OK42, "modules": {"Big": "x" * 1000001}},
         "module 'Big' exceeds size limit (1000001 bytes, max 1000000)"),
    ]
    for obj, want in cases:
        st, got = msg(obj)
        check(st == 400 and got == want, "field rule %r: %r %r" % (want, st, got))
    st, h, b = s.post("/run", {"source": OK42, "max_steps": None, "timeout": 2.5, "check_examples": False,
                               "unknown_field": 1, "capabilities": None})
    check(st == 200, "null max_steps/capabilities and unknown fields accepted: %r" % b)


def test_limits(s):
    # an endless loop: the run's own timeout ends it (400, E501), no child left
    t0 = time.time()
    st, h, b = s.post("/run", {"source": LOOP, "timeout": 0.3, "max_steps": 10000000})
    check(st == 400 and b["diagnostics"][0]["code"] == "E501", "endless loop timed out: %r" % b)
    check(time.time() - t0 < 5, "endless loop ended promptly")
    time.sleep(0.1)
    check(s.children() == [], "no worker left after the endless loop: %r" % s.children())


def test_wall_timeout_and_crash():
    # Wall budget (1 s) below the cooperative timeout: the kill answers 504.
    # The child's CPU limit (by default equal to the wall budget) is raised:
    # on an idle machine an endless loop's 1 s of CPU and the 1 s wall kill
    # race (seen in a CI simulation: 400 E501 "CPU time limit exceeded").
    # (1.05 s: the 504 message prints the budget with one decimal, as the reference's does)
    s = Server({"GENO_MAX_WALL_CLOCK_SECONDS": "1.05", "GENO_WORKER_MAX_CPU_TIME": "4", "GENO_RATE_LIMIT_REQUESTS": "0",
                "GENO_MAX_RESPONSE_BODY_BYTES": "2000", "GENO_REQUIRE_AUTH_FOR_METRICS": "1",
                "GENO_MAX_MODULE_SOURCE_BYTES": "10"}, ["--allow-capability", "print,env"])
    try:
        t0 = time.time()
        st, h, b = s.post("/run", {"source": LOOP, "timeout": 5, "max_steps": 10000000})
        check(st == 504 and b == {"error": "Wall-clock timeout (1.1s)"}, "wall timeout 504: %r %r" % (st, b))
        check(time.time() - t0 < 4, "killed at the wall budget")
        time.sleep(0.1)
        check(s.children() == [], "killed worker reaped")
        # a worker killed from outside: that request is a 500, the server goes on
        th, result = s.post_in_background({"source": LOOP, "timeout": 5, "max_steps": 10000000})
        kids = s.children()
        check(len(kids) == 1, "one worker for one request: %r" % kids)
        if kids:
            os.kill(kids[0], signal.SIGILL)  # a crash (sanitizer builds catch SIGSEGV themselves)
        th.join(10)
        st, h, b = result.get("r", (0, {}, None))
        check(st == 500 and b == {"error": "internal server error"}, "crashed worker is a 500: %r %r" % (st, b))
        st, h, b = s.post("/run", {"source": OK42})
        check(st == 200, "server serves after a worker crash")
        # response cap
        src = "func main() -> String\n    return repeat_string(\"ab\", 5000)\nend func\n"
        st, h, b = s.post("/run", {"source": src})
        check(st == 413 and b == {"error": "response too large"}, "response cap 413: %r %r" % (st, b))
        check("Response exceeded configured limit request_id=%s path=/run" % h.get("x-request-id")
              in s.log("Response exceeded"), "413 logged with its request id: %r" % h.get("x-request-id"))
        st, h, b = s.post("/run", {"source": OK42, "capabilities": ["env"]})
        check(st == 400 and err(b) == "env capability requires GENO_ALLOWED_ENV_NAMES or GENO_ALLOWED_ENV_PREFIXES",
              "env needs an allow-list: %r" % b)
        st, h, b = s.post("/run", {"source": OK42, "modules": {"Big": "x" * 11}})
        check(st == 400 and err(b) == "module 'Big' exceeds size limit (11 bytes, max 10)", "module cap from env")
        st, h, b = s.request("GET", "/metrics")
        check(st == 503 and json.loads(b)["error"] ==
              "authentication is required for this endpoint, but GENO_API_KEY is not configured",
              "metrics auth without a key: %r" % b)
    finally:
        check(s.stop() == 0, "SIGTERM exit status 0")


def test_env_allowlist():
    os.environ["GENO_TEST_VISIBLE"] = "yes"
    os.environ["GENO_TEST_SECRET_TOKEN"] = "no"
    s = Server({"GENO_ALLOWED_ENV_PREFIXES": "GENO_TEST_", "GENO_RATE_LIMIT_REQUESTS": "0",
                "GENO_TEST_VISIBLE": "yes", "GENO_TEST_SECRET_TOKEN": "no", "GENO_API_KEY": "k"},
               ["--allow-capability", "env"])
    try:
        src = ("func main() -> String\n    return env_get_or(\"GENO_TEST_VISIBLE\", \"-\") + "
               "env_get_or(\"GENO_TEST_SECRET_TOKEN\", \"-\") + env_get_or(\"GENO_API_KEY\", \"-\")\nend func\n")
        st, h, b = s.post("/run", {"source": src, "capabilities": ["env"]}, {"X-API-Key": "k"})
        check(st == 200 and b["value"] == "yes--", "env allow-list, secrets hidden: %r" % b)
    finally:
        s.stop()


def test_effect_allowlists():
    """fs and process are carried out by the server, so they need the
    operator's lists: without them a request granting either is refused
    (a trial once ran /bin/sh as the server's user with
    --allow-capability process and no list; the server had emptied its
    environment at start, so the list was never read at request time)."""
    src_echo = ("func main() -> Result[ProcessResult, String]\n    return exec(\"/bin/echo hi\")\nend func\n")
    src_sh = ("func main() -> Result[ProcessResult, String]\n    return exec(\"/bin/sh -c id\")\nend func\n")
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as cwd:
        write = "func main() -> Unit\n    fs_write_text(%s, \"x\")\nend func\n"
        outside = os.path.join(cwd, "outside.txt")
        s = Server({"GENO_RATE_LIMIT_REQUESTS": "0"}, ["--allow-capability", "print,fs,process"])
        try:
            for caps, src, msg in ((["process"], src_sh, "process capability requires GENO_PROCESS_EXECUTABLES"),
                                   (["fs"], write % json.dumps(outside), "fs capability requires GENO_FS_ROOTS")):
                for path in ("/run", "/test", "/check"):
                    st, h, b = s.post(path, {"source": src, "capabilities": caps})
                    check(st == 400 and err(b) == msg, "%s %s without its list: %r" % (path, caps, b))
        finally:
            s.stop()
        check(not os.path.exists(outside), "nothing written without GENO_FS_ROOTS")
        s = Server({"GENO_RATE_LIMIT_REQUESTS": "0", "GENO_FS_ROOTS": root,
                    "GENO_PROCESS_EXECUTABLES": "/bin/echo"}, ["--allow-capability", "print,fs,process"])
        try:
            st, h, b = s.post("/run", {"source": src_echo, "capabilities": ["process"]})
            check(st == 200 and b["value"]["fields"]["value"]["fields"]["stdout"] == "hi\n",
                  "a listed executable runs: %r" % b)
            st, h, b = s.post("/run", {"source": src_sh, "capabilities": ["process"]})
            check(st == 200 and b["value"]["_constructor"] == "Err" and "allowlist" in b["value"]["fields"]["error"],
                  "an executable not listed is refused: %r" % b)
            st, h, b = s.post("/run", {"source": write % json.dumps(os.path.join(root, "in.txt")),
                                       "capabilities": ["fs"]})
            check(st == 200 and open(os.path.join(root, "in.txt")).read() == "x", "a write inside the root: %r" % b)
            st, h, b = s.post("/run", {"source": "func main() -> String\n    return fs_read_text(\"in.txt\")\nend func\n",
                                       "capabilities": ["fs"]})
            check(st == 200 and b["value"] == "x", "a relative path is read from the root: %r" % b)
            st, h, b = s.post("/run", {"source": write % json.dumps(outside), "capabilities": ["fs"]})
            check(st == 400 and "escapes configured filesystem roots" in b["diagnostics"][0]["message"]
                  and not os.path.exists(outside), "a write outside the root refused: %r" % b)
            st, h, b = s.post("/run", {"source": write % json.dumps("in.txt"), "capabilities": ["print"]})
            check(st == 400 and b["diagnostics"][0]["code"] == "E412", "fs still needs the request's grant: %r" % b)
        finally:
            s.stop()
        s = Server({"GENO_RATE_LIMIT_REQUESTS": "0", "GENO_FS_ROOTS": root, "GENO_FS_READ_ONLY": "1"},
                   ["--allow-capability", "fs"])
        try:
            st, h, b = s.post("/run", {"source": write % json.dumps("in2.txt"), "capabilities": ["fs"]})
            check(st == 400 and "writes are not allowed" in b["diagnostics"][0]["message"]
                  and not os.path.exists(os.path.join(root, "in2.txt")),
                  "GENO_FS_READ_ONLY read at start holds at request time: %r" % b)
        finally:
            s.stop()


def test_auth_and_rate():
    s = Server({"GENO_API_KEY": "s3cret", "GENO_RATE_LIMIT_REQUESTS": "6"})
    try:
        st, h, b = s.post("/run", {"source": OK42})
        check(st == 401 and b == {"error": "authentication required"} and "x-request-id" in h, "no key: 401")
        check("auth_failed request_id=" in s.log("auth_failed"), "auth failure logged")
        st, h, b = s.post("/run", {"source": OK42}, {"Authorization": "Bearer s3cret"})
        check(st == 200, "Bearer key: %r" % st)
        st, h, b = s.post("/run", {"source": OK42}, {"Authorization": "bearer s3cret"})
        check(st == 401, "lower-case bearer refused")
        st, h, b = s.post("/run", {"source": OK42}, {"X-API-Key": "s3cret"})
        check(st == 200, "X-API-Key")
        st, h, b = s.post("/run", {"source": OK42}, {"X-API-Key": ["s3cret", "s3cret"]})
        check(st == 401, "two X-API-Key headers refused")
        st, h, b = s.post("/run", {"source": OK42}, {"X-API-Key": "s3cre"})
        check(st == 401, "a prefix of the key refused")
        # the 7th POST in the window from this client (X-Forwarded-For ignored: no trusted proxy)
        st, h, b = s.post("/run", {"source": OK42}, {"X-API-Key": "s3cret", "X-Forwarded-For": "9.9.9.9"})
        check(st == 429 and b == {"error": "rate limit exceeded"}, "rate limit: %r %r" % (st, b))
        check("rate_limited request_id=" in s.log("rate_limited"), "rate limit logged")
        st, h, b = s.request("GET", "/healthz")
        check(json.loads(b) == {"status": "ok"}, "healthz without credentials is terse")
        st, h, b = s.request("GET", "/healthz", headers={"X-API-Key": "s3cret"})
        check("checks" in json.loads(b), "healthz with credentials is full")
        st, h, b = s.request("GET", "/metrics")
        check(st == 401, "metrics need the key when one is set")
        st, h, b = s.request("GET", "/metrics", headers={"Authorization": "Bearer s3cret"})
        check(st == 200, "metrics with the key")
        check(re.search(r"request_id=\S+ client_ip=127\.0\.0\.1 status=200 duration_ms=[0-9.]+ "
                        r"source_bytes=\d+ outcome=ok", s.log("outcome=ok")) is not None, "access log line")
    finally:
        s.stop()
    s = Server({"GENO_RATE_LIMIT_REQUESTS": "2", "GENO_TRUSTED_PROXY": "127.0.0.1"})
    try:
        for i in range(2):
            st, h, b = s.post("/run", {"source": OK42}, {"X-Forwarded-For": "1.2.3.4"})
            check(st == 200, "XFF client under the limit")
        st, h, b = s.post("/run", {"source": OK42}, {"X-Forwarded-For": "1.2.3.4, garbage, 127.0.0.1"})
        check(st == 429, "XFF scanned right to left past garbage and the proxy: %r" % st)
        check("client_ip=1.2.3.4" in s.log("client_ip=1.2.3.4"), "client address from XFF logged")
        st, h, b = s.post("/run", {"source": OK42}, {"X-Forwarded-For": "5.6.7.8"})
        check(st == 200, "another XFF client has its own bucket")
        st, h, b = s.post("/run", {"source": OK42}, {"X-Forwarded-For": "garbage"})
        check(st == 200, "unparsable XFF falls back to the peer")
    finally:
        s.stop()


def test_concurrency():
    s = Server({"GENO_MAX_CONCURRENT_REQUESTS": "1", "GENO_RATE_LIMIT_REQUESTS": "0"})
    try:
        th, result = s.post_in_background({"source": LOOP, "timeout": 1.5, "max_steps": 10000000})
        st, h, b = s.post("/run", {"source": OK42})
        check(st == 503 and b == {"error": "Too many concurrent requests"}, "concurrency cap: %r %r" % (st, b))
        # SIGTERM while the slow request runs: it still gets its answer, then exit 0
        os.kill(s.proc.pid, signal.SIGTERM)
        th.join(15)
        st, h, b = result.get("r", (0, {}, None))
        # drained = it gets its answer: the program's own deadline (E501), or,
        # on a machine too loaded for the child to see its deadline first,
        # the server's wall-clock kill (504); never a dropped connection
        drained = (st == 400 and b["diagnostics"][0]["code"] == "E501") or \
            (st == 504 and b == {"error": "Wall-clock timeout (4.5s)"})
        check(drained, "in-flight request drained: %r %r" % (st, b))
        check(s.proc.wait(timeout=15) == 0, "drained server exits 0")
        check("Received SIGTERM, shutting down gracefully" in s.log("Received SIGTERM"), "SIGTERM logged")
    finally:
        s.stop()


def test_kill_under_load():
    """Workers killed at random while 8 clients keep /run busy: every
    request gets an answer; the answers that are not 500 are 200 with the
    value that request asked for; there are no more 500s than kills; and
    the server (and its spawner) serves on. Bounded: 3 s of load, at most
    300 requests per client."""
    import random
    s = Server({"GENO_RATE_LIMIT_REQUESTS": "0", "GENO_MAX_CONCURRENT_REQUESTS": "64"})
    try:
        stop = time.time() + 3.0
        answers, problems = [], []
        kills = [0]
        lock = threading.Lock()

        def client(k):
            for i in range(300):
                if time.time() > stop:
                    break
                n = k * 100000 + i
                try:
                    st, h, b = s.post("/run", {"source": "func main() -> Int\n    return %d\nend func\n" % n},
                                      timeout=30)
                except (OSError, http.client.HTTPException) as e:
                    with lock:
                        problems.append("request %d: %r" % (n, e))
                    continue
                with lock:
                    answers.append((n, st, b))

        def killer():
            rng = random.Random(12)
            while time.time() < stop:
                kids = s.children()
                if kids:
                    try:
                        os.kill(rng.choice(kids), signal.SIGKILL)
                        kills[0] += 1
                    except ProcessLookupError:
                        pass
                time.sleep(rng.uniform(0.005, 0.03))

        threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
        threads.append(threading.Thread(target=killer))
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        ok = sum(1 for n, st, b in answers if st == 200 and isinstance(b, dict) and b.get("value") == n)
        killed = sum(1 for n, st, b in answers if st == 500 and b == {"error": "internal server error"})
        other = [(n, st, b) for n, st, b in answers
                 if not (st == 200 and isinstance(b, dict) and b.get("value") == n)
                 and not (st == 500 and b == {"error": "internal server error"})]
        check(not problems, "every request answered under kills: %r" % problems[:3])
        check(not other, "answers are the right value or a 500: %r" % other[:3])
        check(killed <= kills[0], "no more 500s (%d) than kills (%d)" % (killed, kills[0]))
        check(kills[0] > 0 and ok > 0, "the test killed workers (%d) and others were served (%d)" % (kills[0], ok))
        st, h, b = s.post("/run", {"source": OK42})
        check(st == 200 and b["value"] == 42, "server serves after the kills: %r" % st)
        check(all(os.path.exists("/proc/%d" % p) for p in s.base), "the spawner survived the kills")
        print("kill test: %d requests, %d killed workers, %d answered 500, %d right values"
              % (len(answers), kills[0], killed, ok))
    finally:
        s.stop()


def test_request_budgets():
    """GENO_REQUEST_TIMEOUT_SECONDS bounds a request's whole arrival, not only
    idle time: a client trickling header or body bytes is cut off (the server
    exits at once on SIGTERM meanwhile), while a run longer than it is still
    answered. GENO_MAX_REQUEST_HEADER_BYTES is the exact budget of request
    line and headers (431), a request line over 65,536 bytes is 414, and the
    server keeps serving."""
    s = Server({"GENO_RATE_LIMIT_REQUESTS": "0", "GENO_REQUEST_TIMEOUT_SECONDS": "2",
                "GENO_MAX_REQUEST_HEADER_BYTES": "4096"})
    try:
        def trickle(first, more):
            c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
            c.sendall(first)
            c.settimeout(0.05)  # (a recv with MSG_DONTWAIT on a socket with a timeout still waits)
            t0 = time.time()
            while time.time() - t0 < 8:
                try:
                    c.sendall(more)
                    if not c.recv(1):
                        break
                except socket.timeout:
                    pass
                except OSError:
                    break
                time.sleep(0.2)
            c.close()
            return time.time() - t0

        cut = trickle(b"GET /healthz HTTP/1.1\r\nHost: %s\r\n" % s.host().encode(), b"X-Slow: 1\r\n")
        check(1.5 <= cut <= 4, "a client trickling headers is cut off after the request timeout: %.1fs" % cut)
        cut = trickle(b"POST /run HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100000\r\n\r\n" % s.host().encode(), b" ")
        check(1.5 <= cut <= 4, "a client trickling its body is cut off after the request timeout: %.1fs" % cut)
        st, h, b = s.post("/run", {"source": LOOP, "timeout": 2.5, "max_steps": 10000000})
        check(st == 400 and b["diagnostics"][0]["code"] == "E501", "a run longer than the request timeout: %r" % st)
        for name, head in (("one header", {"X-Big": "v" * 4100}),
                           ("many headers", {"X-Big-%d" % i: "v" * 100 for i in range(40)})):
            st, h, b = s.request("GET", "/healthz", headers=head)
            check(st == 431, "%s over GENO_MAX_REQUEST_HEADER_BYTES: %r" % (name, st))
        st, h, b = s.request("GET", "/healthz", headers={"X-Big": "v" * 3900})
        check(st == 200, "headers within GENO_MAX_REQUEST_HEADER_BYTES: %r" % st)
        st, h, b = s.request("GET", "/" + "a" * 5000)
        check(st == 431, "a request line over GENO_MAX_REQUEST_HEADER_BYTES: %r" % st)
        st, h, b = s.post("/run", {"source": OK42}, headers={"X-Big": "v" * 4100})
        check(st == 431, "a POST with headers over the budget: %r" % st)
        st, h, b = s.post("/run", {"source": OK42})
        check(st == 200 and b["value"] == 42, "served after the refused requests: %r" % st)
        # SIGTERM while a client trickles its request: the drain does not wait for it
        slow = threading.Thread(target=trickle, args=(b"POST /run HTTP/1.1\r\nHost: %s\r\nContent-Type: "
                                                      b"application/json\r\nContent-Length: 100000\r\n\r\n"
                                                      % s.host().encode(), b" "))
        slow.start()
        time.sleep(0.3)
        t0 = time.time()
        check(s.stop() == 0, "stopped by SIGTERM while a request trickles in")
        check(time.time() - t0 < 4, "SIGTERM drain not held up by a trickling request: %.1fs" % (time.time() - t0))
        slow.join()
    finally:
        s.stop()
    s = Server({"GENO_RATE_LIMIT_REQUESTS": "0"})
    try:
        st, h, b = s.request("GET", "/" + "a" * 70000)
        check(st == 414, "a request line over 65,536 bytes: %r" % st)
        st, h, b = s.request("GET", "/healthz", headers={"X-Big": "v" * 66000})
        check(st == 431, "a header over the default 65,536-byte budget: %r" % st)
    finally:
        s.stop()


def test_connection_cap():
    """GENO_MAX_CONNECTIONS: with that many connections open, one more is
    accepted and closed at once (not left waiting in the listen backlog);
    once some close, new ones are served."""
    s = Server({"GENO_RATE_LIMIT_REQUESTS": "0", "GENO_MAX_CONNECTIONS": "20"})
    held = []
    try:
        # connections of every ending first (answered, refused by libmicrohttpd, cut short, refused
        # early), more than the cap: each one closed must leave the count
        host = s.host().encode()
        for _ in range(3):
            s.request("GET", "/healthz")
            s.post("/run", {"source": OK42})
            s.post("/nope", {"source": OK42})
            s.raw(b"POST /run HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 5x\r\n\r\n{}" % host)
            s.raw(b"POST /run HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 99999999999999999999999\r\n\r\n{}" % host)
            s.raw(b"POST /run HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 50\r\n\r\n{" % host)
            s.raw(b"GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n" % host)
            socket.create_connection(("127.0.0.1", s.port), timeout=5).close()
        time.sleep(0.3)
        for _ in range(20):
            held.append(socket.create_connection(("127.0.0.1", s.port), timeout=5))
        time.sleep(0.3)
        closed = 0
        for _ in range(5):
            c = socket.create_connection(("127.0.0.1", s.port), timeout=5)
            t0 = time.time()
            try:
                c.sendall(b"GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n" % s.host().encode())
                got = c.recv(100)
            except socket.timeout:
                got = None
            except OSError:
                got = b""
            c.close()
            if got == b"" and time.time() - t0 < 2:
                closed += 1
        check(closed == 5, "connections over GENO_MAX_CONNECTIONS=20 closed at once: %d of 5" % closed)
        answered = 0
        for c in held:  # the 20 within the cap are all served
            try:
                c.sendall(b"GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n" % host)
                answered += c.recv(12).startswith(b"HTTP/1.1 200")
            except OSError:
                pass
        check(answered == 20, "the 20 connections within the cap are served: %d" % answered)
        for c in held[:5]:
            c.close()
        del held[:5]
        time.sleep(0.3)
        st, h, b = s.request("GET", "/healthz", timeout=5)
        check(st == 200, "served again once connections closed: %r" % st)
        st, h, b = s.post("/run", {"source": OK42}, timeout=10)
        check(st == 200 and b["value"] == 42, "a run served again once connections closed: %r" % st)
    finally:
        for c in held:
            c.close()
        s.stop()


def test_drain():
    """SIGTERM with a long request timeout: idle connections and requests
    still arriving (headers or body partly sent) are closed at once, a run
    in progress gets its answer, and the server exits 0 promptly."""
    for with_run in (False, True):
        s = Server({"GENO_RATE_LIMIT_REQUESTS": "0", "GENO_REQUEST_TIMEOUT_SECONDS": "20"})
        conns = []
        try:
            host = s.host().encode()
            for first in (b"", b"POST /run HTTP/1.1\r\nHost: %s\r\n" % host,
                          b"POST /run HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 100\r\n\r\n{" % host):
                c = socket.create_connection(("127.0.0.1", s.port), timeout=30)
                if first:
                    c.sendall(first)
                conns.append(c)
            th, result = None, {}
            if with_run:  # 1.5 s asleep (clock is in the default ceiling)
                th, result = s.post_in_background({"source": "func main() -> Int\n    sleep_ms(1500)\n    return 7\n"
                                                             "end func\n", "capabilities": ["clock"]})
            time.sleep(0.2)
            t0 = time.time()
            os.kill(s.proc.pid, signal.SIGTERM)
            try:
                rc = s.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                rc = None
            took = time.time() - t0
            check(rc == 0, "drained server exits 0: %r" % rc)
            check(took < (3.5 if with_run else 2), "SIGTERM not held up by idle or partly sent requests "
                                                   "(run in progress: %s): %.1fs" % (with_run, took))
            if th:
                th.join(15)
                st, h, b = result.get("r", (0, {}, None))
                check(st == 200 and b.get("value") == 7, "the run in progress answered during the drain: %r %r"
                      % (st, b))
        finally:
            for c in conns:
                c.close()
            s.stop()


def cpus_allowed(pid):
    """The CPUs a process may run on, as a set of numbers (None: gone)."""
    return cpus_allowed_path("/proc/%d/status" % pid)


def cpus_allowed_path(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r"^Cpus_allowed_list:\s*(\S+)", text, re.M)
    cpus = set()
    for part in m.group(1).split(","):
        a, _, b = part.partition("-")
        cpus.update(range(int(a), int(b or a) + 1))
    return cpus


def thread_cpus(pid):
    """The CPU sets of a process's threads."""
    out = []
    for task in os.listdir("/proc/%d/task" % pid):
        got = cpus_allowed_path("/proc/%d/task/%s/status" % (pid, task))
        if got is not None:
            out.append(got)
    return out


def start_fails(env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("GENO_")}
    e.update(env)
    p = subprocess.run([GENO, "serve", "--port", "0"], env=e, capture_output=True, text=True, timeout=30)
    return p.returncode, p.stderr


def test_spawner_placement():
    """GENO_SPAWNER_CPUS: checked at start (exit 2 with a message naming
    the variable); a single spawner bound to the CPU named, the worker
    threads left unbound by default and moved to it when
    GENO_SPAWNER_BIND_THREADS says so; auto (the default) measures forking
    and picks a valid layout, which it logs and which the spawners really
    have; GENO_SPAWNERS or GENO_SPAWNER_CPUS skip the measurement."""
    mine = sorted(os.sched_getaffinity(0))
    outside = next(c for c in range(4096) if c not in mine)
    for value, want in (("x", "GENO_SPAWNER_CPUS must be auto, all, or a list of CPU numbers"),
                        ("", "GENO_SPAWNER_CPUS must be auto, all, or a list"),
                        ("0-", "GENO_SPAWNER_CPUS must be auto, all, or a list"),
                        ("1-0", "GENO_SPAWNER_CPUS must be auto, all, or a list"),
                        ("%d," % mine[0], "GENO_SPAWNER_CPUS must be auto, all, or a list"),
                        (str(outside), "GENO_SPAWNER_CPUS names CPU %d, which this process may not use" % outside),
                        ("%d-%d" % (mine[0], outside), "names CPU %d, which this process may not use" % outside),
                        ("99999999999", "which this process may not use"),
                        ("%d,%d" % (mine[0], mine[0]), "GENO_SPAWNER_CPUS names CPU %d twice" % mine[0])):
        rc, text = start_fails({"GENO_SPAWNER_CPUS": value})
        check(rc == 2 and want in text, "GENO_SPAWNER_CPUS=%r refused: %r %r" % (value, rc, text))
    rc, text = start_fails({"GENO_SPAWNER_BIND_THREADS": "sometimes", "GENO_SPAWNER_CPUS": str(mine[0])})
    check(rc == 2 and "GENO_SPAWNER_BIND_THREADS must be a boolean" in text, "bad GENO_SPAWNER_BIND_THREADS: %r" % text)

    def spawner_cpus(s):
        return [cpus_allowed(p) for p in sorted(s.base)]

    def serve_some(s, what):
        for i in range(8):
            st, h, b = s.post("/run", {"source": "func main() -> Int\n    return %d\nend func\n" % i})
            check(st == 200 and b["value"] == i, "a run with %s: %r %r" % (what, st, b))

    # a single spawner on the CPU named (the last one: not the default's
    # first), threads unbound by default, then bound when asked
    last = mine[-1]
    for bind, env in ((False, {}), (True, {"GENO_SPAWNER_BIND_THREADS": "1"})):
        s = Server(dict(env, GENO_SPAWNER_CPUS=str(last), GENO_RATE_LIMIT_REQUESTS="0"))
        try:
            check(spawner_cpus(s) == [{last}], "one spawner bound to CPU %d: %r" % (last, spawner_cpus(s)))
            log = s.log()
            check("Spawner placement (GENO_SPAWNER_CPUS): 1 spawner bound to CPU %d;" % last in log and
                  "auto" not in log, "the log names the layout given, no calibration: %r" % log)
            status, c = spawner_check(s)
            check(c.get("status") == "pass" and c.get("detail", "").startswith("spawner 0 (cpu %d): running" % last),
                  "healthz names the spawner's CPU: %r" % c)
            serve_some(s, env)
            pinned = [t for t in thread_cpus(s.proc.pid) if t == {last}]
            if len(mine) > 1:
                check(bool(pinned) == bind, "worker threads bound to CPU %d only when asked (%r): %r" %
                      (last, env, thread_cpus(s.proc.pid)))
        finally:
            check(s.stop() == 0, "a server with one spawner stops")

    # auto: a valid layout, logged, the spawners bound as logged
    s = Server({"GENO_RATE_LIMIT_REQUESTS": "0"})
    try:
        log = s.log()
        m = re.search(r"Spawner placement \((auto[^\n]*|one CPU)\): (\d+) spawners? (?:bound to CPUs? (\S+)|not bound);"
                      r" worker threads (follow their spawner's CPU|not bound) \(default\)", log)
        check(m is not None, "auto placement logged: %r" % log)
        if m:
            how, count, listed, threads = m.group(1), int(m.group(2)), m.group(3), m.group(4)
            got = spawner_cpus(s)
            if len(mine) == 1:
                check(how == "one CPU" and count == 1, "one CPU, one spawner: %r" % log)
            elif count == 1:
                check(re.search(r"\(\d+\.\d\dx: under 1\.3x; \d rounds in \d+ ms\)", how) and got == [{last}] and
                      threads == "not bound", "auto chose one spawner: bound to the last CPU: %r %r" % (how, got))
            else:
                check(count == len(mine) and sorted(min(g) for g in got) == mine and all(len(g) == 1 for g in got)
                      and threads == "follow their spawner's CPU",
                      "auto chose one spawner per CPU, each bound to its own: %r %r" % (how, got))
            ms = re.search(r"in (\d+) ms|after (\d+) ms", how)
            if ms:
                check(int(ms.group(1) or ms.group(2)) < 1000, "the calibration is capped in time: %r" % how)
        serve_some(s, "auto")
    finally:
        check(s.stop() == 0, "a server with the auto layout stops")

    # explicit settings skip it
    for env, want in (({"GENO_SPAWNERS": "2"}, "Spawner placement (GENO_SPAWNERS=2): 2 spawners"),
                      ({"GENO_SPAWNER_CPUS": "all"}, "Spawner placement (GENO_SPAWNER_CPUS): %d spawner" % len(mine)),
                      ({"GENO_SPAWNER_CPUS": "auto", "GENO_SPAWNERS": "1"}, "Spawner placement (GENO_SPAWNERS=1): 1 spawner")):
        s = Server(env)
        try:
            check(want in s.log() and "auto" not in s.log(), "%r is obeyed without calibration: %r" % (env, s.log()))
            got = spawner_cpus(s)
            if len(mine) > 1:
                check(all(g is not None and len(g) == 1 for g in got), "%r: every spawner bound: %r" % (env, got))
        finally:
            s.stop()


def spawner_check(s):
    st, h, b = s.request("GET", "/healthz")
    health = json.loads(b)
    checks = [c for c in health.get("checks", []) if c.get("name") == "spawners"]
    return health.get("status"), (checks[0] if checks else {})


def test_spawner_executable():
    """The spawners are the separate small executable next to geno
    (geno-spawner) by default: a few mappings, not the server's hundred;
    GENO_SPAWNER_EXECUTABLE="" forks them from the server instead; one that
    does not start is replaced by a forked one (a warning in the log);
    a relative or missing path is refused at start."""
    def exes(s):
        return sorted(os.path.basename(os.readlink("/proc/%d/exe" % p)) for p in s.base)

    def mappings(pid):
        with open("/proc/%d/maps" % pid) as f:
            return sum(1 for _ in f)

    counts = {}
    for env, want in (({}, "geno-spawner"), ({"GENO_SPAWNER_EXECUTABLE": ""}, os.path.basename(GENO)),
                      ({"GENO_SPAWNER_EXECUTABLE": "/bin/true"}, os.path.basename(GENO))):
        s = Server(dict(env, GENO_SPAWNERS="2"))
        try:
            got = exes(s)
            check(got == [want, want], "spawners with %r are %s: %r" % (env, want, got))
            counts.setdefault(want, []).extend(mappings(p) for p in s.base)
            if env.get("GENO_SPAWNER_EXECUTABLE") == "/bin/true":
                check("/bin/true did not start" in s.log(), "the failed executable is logged: %r" % s.log())
            for i in range(4):
                st, h, b = s.post("/run", {"source": "func main() -> Int\n    return %d\nend func\n" % i})
                check(st == 200 and b["value"] == i, "a run with %r: %r %r" % (env, st, b))
        finally:
            s.stop()
    # 12 against 126 in a release build (a sanitized build maps more in both)
    check(max(counts["geno-spawner"]) < min(counts[os.path.basename(GENO)]),
          "a separate spawner maps fewer regions than a forked one: %r" % counts)


def kill_and_wait(pid):
    """SIGKILL pid and wait (up to 5 s) until it has exited (a zombie, or
    gone): a killed process on a busy CPU may take a moment to die, and
    until then /healthz rightly reports it running."""
    os.kill(pid, signal.SIGKILL)
    for _ in range(500):
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return
        except OSError:
            return
        time.sleep(0.01)


def test_spawners():
    """One spawner per CPU (GENO_SPAWNERS=2 here): each bound to its own
    CPU when the machine has two, requests served by both (the /healthz
    check counts runs per spawner); a spawner killed under load costs at
    most the requests it was starting, the other serves on and /healthz
    says degraded; with every spawner dead the server still serves
    (forking from itself) and /healthz says failed."""
    ncpu = len(os.sched_getaffinity(0))
    s = Server({"GENO_RATE_LIMIT_REQUESTS": "0", "GENO_SPAWNERS": "2", "GENO_MAX_CONCURRENT_REQUESTS": "64"})
    try:
        spawners = sorted(s.base)
        check(len(spawners) == 2, "two spawners started: %r" % spawners)
        check("2 spawners started" in s.log(), "the log says how many spawners")
        bound = [cpus_allowed(p) for p in spawners]
        if ncpu >= 2:
            check(all(b is not None and len(b) == 1 for b in bound) and bound[0] != bound[1],
                  "each spawner bound to a CPU of its own: %r" % bound)
        status, c = spawner_check(s)
        check(status == "ok" and c.get("status") == "pass", "healthz with all spawners running: %r %r" % (status, c))
        answers, lock = [], threading.Lock()
        seen_cpus = set()

        def client(k, count):
            for i in range(count):
                n = k * 100000 + i
                try:
                    st, h, b = s.post("/run", {"source": "func main() -> Int\n    return %d\nend func\n" % n})
                except (OSError, http.client.HTTPException) as e:
                    st, b = 0, repr(e)
                with lock:
                    answers.append((n, st, b))

        def watch(until):
            while time.time() < until:
                for kid in s.children():
                    cpus = cpus_allowed(kid)
                    if cpus and len(cpus) == 1:
                        seen_cpus.update(cpus)
                time.sleep(0.002)

        watcher = threading.Thread(target=watch, args=(time.time() + 3,))
        threads = [threading.Thread(target=client, args=(k, 40)) for k in range(4)]
        for th in threads + [watcher]:
            th.start()
        for th in threads + [watcher]:
            th.join(60)
        ok = sum(1 for n, st, b in answers if st == 200 and isinstance(b, dict) and b.get("value") == n)
        check(ok == 160, "160 concurrent requests over two spawners all right: %d" % ok)
        runs = [int(x) for x in re.findall(r"(\d+) runs", spawner_check(s)[1].get("detail", ""))]
        check(len(runs) == 2 and all(r > 0 for r in runs), "both spawners served requests: %r" % runs)
        if ncpu >= 2:
            check(len(seen_cpus) >= 2, "workers ran bound to both CPUs: %r" % seen_cpus)
        # a spawner killed while 4 clients keep it busy
        answers.clear()
        threads = [threading.Thread(target=client, args=(k, 30)) for k in range(4)]
        for th in threads:
            th.start()
        # mid-load: on a fast machine the 120 runs take ~0.1 s, so a fixed
        # pause once let them all end before the kill
        for _ in range(500):
            with lock:
                if len(answers) >= 12:
                    break
            time.sleep(0.002)
        kill_and_wait(spawners[1])
        for th in threads:
            th.join(60)
        ok = sum(1 for n, st, b in answers if st == 200 and isinstance(b, dict) and b.get("value") == n)
        failed = [(n, st, b) for n, st, b in answers
                  if not (st == 200 and isinstance(b, dict) and b.get("value") == n)]
        check(all(st == 500 and b == {"error": "internal server error"} for n, st, b in failed),
              "a killed spawner's requests get a 500, never a wrong answer: %r" % failed[:3])
        check(len(failed) <= 4 and ok == 120 - len(failed),
              "a killed spawner costs at most the requests in its hands: %d failed" % len(failed))
        status, c = spawner_check(s)
        check(status == "degraded" and c.get("status") == "warn" and "died" in c.get("detail", ""),
              "healthz degraded with a spawner dead: %r %r" % (status, c))
        for i in range(6):
            st, h, b = s.post("/run", {"source": "func main() -> Int\n    return %d\nend func\n" % i})
            check(st == 200 and b["value"] == i, "served by the spawner left: %r %r" % (st, b))
        kill_and_wait(spawners[0])
        st, h, b = s.post("/run", {"source": OK42})
        # the first run may have been handed to the dying spawner
        if st == 500:
            st, h, b = s.post("/run", {"source": OK42})
        check(st == 200 and b["value"] == 42, "served with every spawner dead: %r %r" % (st, b))
        status, c = spawner_check(s)
        check(status == "failed" and c.get("status") == "fail", "healthz failed with every spawner dead: %r" % c)
    finally:
        check(s.stop() == 0, "server with dead spawners stops with status 0")


def test_startup_rules():
    def run(args, env=None):
        e = {k: v for k, v in os.environ.items() if not k.startswith("GENO_")}
        e.update(env or {})
        p = subprocess.run([GENO, "serve", "--port", "0", *args], env=e, capture_output=True, text=True, timeout=30)
        return p.returncode, p.stderr

    rc, err_text = run(["--host", "0.0.0.0"])
    check(rc == 1 and "GENO_API_KEY" in err_text, "non-loopback bind without a key refused: %r" % err_text)
    rc, err_text = run(["--host", "0.0.0.0"], {"GENO_API_KEY": "k"})
    check(rc == 1 and "GENO_ALLOWED_HOSTS" in err_text, "non-loopback bind without hosts refused")
    rc, err_text = run([], {"GENO_MAX_MODULES": "abc"})
    check(rc == 2 and "GENO_MAX_MODULES must be an integer" in err_text, "bad integer variable: %r" % err_text)
    rc, err_text = run([], {"GENO_MAX_TIMEOUT_SECONDS": "-1"})
    check(rc == 2 and "GENO_MAX_TIMEOUT_SECONDS must be positive" in err_text, "bad float variable")
    rc, err_text = run([], {"GENO_REQUIRE_AUTH_FOR_METRICS": "maybe"})
    check(rc == 2 and "must be a boolean" in err_text, "bad boolean variable")
    rc, err_text = run([], {"GENO_DEFAULT_MAX_STEPS": "20", "GENO_MAX_STEPS": "10"})
    check(rc == 2 and "GENO_DEFAULT_MAX_STEPS must be <= GENO_MAX_STEPS" in err_text, "steps default over max")
    rc, err_text = run([], {"GENO_ALLOWED_HOSTS": "a b"})
    check(rc == 2 and "GENO_ALLOWED_HOSTS" in err_text, "bad allowed host entry")
    rc, err_text = run(["--allow-capability", "bogus"])
    check(rc == 2 and "Unknown capability 'bogus'" in err_text, "bad capability flag")
    rc, err_text = run([], {"GENO_SPAWNERS": "many"})
    check(rc == 2 and "GENO_SPAWNERS must be an integer" in err_text, "bad GENO_SPAWNERS: %r" % err_text)
    rc, err_text = run([], {"GENO_SPAWNERS": "5000"})
    check(rc == 2 and "GENO_SPAWNERS must be at most 1024" in err_text, "GENO_SPAWNERS too large: %r" % err_text)
    for bad in ("geno-spawner", "/nonexistent/geno-spawner"):
        rc, err_text = run([], {"GENO_SPAWNER_EXECUTABLE": bad})
        check(rc == 2 and "GENO_SPAWNER_EXECUTABLE must be the absolute path of an executable" in err_text,
              "bad GENO_SPAWNER_EXECUTABLE %r: %r" % (bad, err_text))
    rc, err_text = run(["--port", "x"])
    check(rc == 2, "bad port")
    for var, value, text in (("GENO_FS_ROOTS", "relative/dir", "GENO_FS_ROOTS entries must be absolute paths"),
                             ("GENO_FS_ROOTS", "/nonexistent/root", "which does not exist"),
                             ("GENO_FS_ROOTS", "/bin/sh", "which is not a directory"),
                             ("GENO_PROCESS_EXECUTABLES", "echo", "entries must be absolute paths"),
                             ("GENO_PROCESS_EXECUTABLES", "/tmp", "which is not an executable file"),
                             ("GENO_FS_READ_ONLY", "maybe", "must be a boolean"),
                             ("GENO_HTTP_ALLOW_PRIVATE", "2", "must be a boolean")):
        rc, err_text = run([], {var: value})
        check(rc == 2 and text in err_text, "bad %s=%r: %r" % (var, value, err_text))
    # an empty --allow-capability list means no capability, not the defaults
    s = Server({"GENO_RATE_LIMIT_REQUESTS": "0"}, ["--allow-capability", ""])
    try:
        st, h, b = s.post("/run", {"source": OK42, "capabilities": ["print"]})
        check(st == 400 and err(b) == "unsupported capabilities requested: print", "empty ceiling: %r" % b)
    finally:
        s.stop()


def main():
    global GENO
    ap = argparse.ArgumentParser()
    ap.add_argument("--geno", required=True)
    GENO = os.path.abspath(ap.parse_args().geno)
    s = Server({"GENO_RATE_LIMIT_REQUESTS": "0"})
    try:
        test_basics(s)
        test_get(s)
        test_host_origin(s)
        test_body_rules(s)
        test_json_numbers_and_surrogates(s)
        test_ascii_only_json(s)
        test_malformed_content_length(s)
        test_idle_connections(s)
        test_fields(s)
        test_limits(s)
    finally:
        check(s.stop() == 0, "server stops with status 0 on SIGTERM")
    test_wall_timeout_and_crash()
    test_env_allowlist()
    test_effect_allowlists()
    test_auth_and_rate()
    test_concurrency()
    test_kill_under_load()
    test_request_budgets()
    test_connection_cap()
    test_drain()
    test_spawners()
    test_spawner_placement()
    test_spawner_executable()
    test_startup_rules()
    print("%d checks, %d failures" % (CHECKS, len(FAILURES)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
