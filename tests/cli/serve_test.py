#!/usr/bin/env python3
"""Programs that serve HTTP: `geno run --cap serve` with http_route and
http_listen (src/host/serve.c, the handler calls of src/runtime/hostcall.c
and, isolated, the INVOKE messages of src/sandbox/broker.c and isolate.c).

Each server is started by the test on a free port of 127.0.0.1 (the
program asks for port 0 and the test reads the port from "Listening on"),
queried with http.client or a raw socket, and stopped by its PID. Both
execution modes are covered: the default isolated run (the parent owns the
socket, the sandboxed child runs the handlers) and --unsafe (in-process).

The second half restates the reference's examples/apps/geno-snap app (its
endpoints, project layout and README command; our own code) and checks the
responses the reference gives for its README's requests."""
import argparse
import http.client
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

API = r'''
func hello(req: HttpRequest) -> HttpResponse
    example HttpRequest("GET", "/hello", "name=x", [], "") -> HttpResponse(200, "hello name=x", [("Content-Type", "text/plain")])
    return HttpResponse(200, "hello " + req.query, [("Content-Type", "text/plain")])
end func

@untested("server handler")
func echo(req: HttpRequest) -> HttpResponse
    return http_respond(status: 201, headers: [("X-Len", to_string(length(req.body))), ("X-Method", req.method)], body: req.body)
end func

@untested("server handler")
func names(req: HttpRequest) -> HttpResponse
    return HttpResponse(200, to_string(req.headers) + " path=" + req.path, [])
end func

@untested("server handler")
func boom(req: HttpRequest) -> HttpResponse
    let z: Int = length(req.body)
    return HttpResponse(200, to_string(10 / z), [])
end func

// about 12,000 steps: twice in a row under --max-steps 20000 works only
// if each request has its own step budget
@untested("server handler")
func work(req: HttpRequest) -> HttpResponse
    let total: Int = fold(list: range(0, 4000), initial: 0, reducer: fn(a: Int, x: Int) -> a + x)
    return HttpResponse(200, to_string(total), [])
end func

// 90 million additions: past any step limit, and past a 0.5 s timeout
// even on a fast idle machine (9 million once took only 0.24 s)
@untested("server handler")
func spin(req: HttpRequest) -> HttpResponse
    let total: Int = fold(list: range(0, 30000), initial: 0, reducer: fn(a: Int, x: Int) -> a + fold(list: range(0, 3000), initial: 0, reducer: fn(b: Int, y: Int) -> b + y))
    return HttpResponse(200, to_string(total), [])
end func

@untested("server handler")
func managed(req: HttpRequest) -> HttpResponse
    return HttpResponse(200, "x", [("Content-Length", "1")])
end func

@untested("server handler")
func nocontent(req: HttpRequest) -> HttpResponse
    return HttpResponse(204, "not allowed here", [])
end func

@untested("server handler")
func empty(req: HttpRequest) -> HttpResponse
    return HttpResponse(204, "", [("X-Empty", "yes")])
end func

@untested("server handler")
func badstatus(req: HttpRequest) -> HttpResponse
    return HttpResponse(99, "", [])
end func

// a handler may add routes while the server runs (the table grows)
@untested("server handler")
func add(req: HttpRequest) -> HttpResponse
    for i: Int in range(0, 8) do
        http_route(method: "GET", path: "/added" + to_string(i), handler: hello)
    end for
    return HttpResponse(200, "added", [])
end func

func main() -> Unit
    print("printed before listening")
    http_route(method: "POST", path: "/add", handler: add)
    http_route(method: "get", path: "/hello", handler: hello)
    http_route(method: "POST", path: "/echo", handler: echo)
    http_route(method: "PUT", path: "/echo", handler: echo)
    http_route(method: "GET", path: "/names", handler: names)
    http_route(method: "GET", path: "/boom", handler: boom)
    http_route(method: "GET", path: "/work", handler: work)
    http_route(method: "GET", path: "/spin", handler: spin)
    http_route(method: "GET", path: "/managed", handler: managed)
    http_route(method: "GET", path: "/nocontent", handler: nocontent)
    http_route(method: "OPTIONS", path: "/empty", handler: empty)
    http_route(method: "GET", path: "/badstatus", handler: badstatus)
    http_listen(port: 0)
end func
'''

# The geno-snap app, restated: a project of five modules whose Main reads
# GENO_PORT and registers the routes (run with the README's command,
# `geno run --cap serve,env apps/snap`, from the directory above it).
SNAP = {
    "geno.toml": 'name = "snap"\nversion = "0.1.0"\nentrypoint = "Main"\ntargets = ["python-hosted"]\n'
                 'files = ["Models.geno", "Validate.geno", "Responses.geno", "Routes.geno", "Main.geno"]\n',
    "Models.geno": r'''
export func envelope_ok(data: String) -> String
    example "1" -> "{\"ok\":true,\"data\":1}"
    return "{\"ok\":true,\"data\":" + data + "}"
end func

export func envelope_error(message: String) -> String
    example "no" -> "{\"ok\":false,\"error\":\"no\"}"
    return "{\"ok\":false,\"error\":\"" + message + "\"}"
end func
''',
    "Validate.geno": r'''
// The value of `name` in a query string "a=1&b=2", if present.
export func query_value(query: String, name: String) -> Option[String]
    example ("id=3&x=1", "id") -> Some("3")
    example ("x=1", "id") -> None
    example ("", "id") -> None
    for pair: String in split(query, "&") do
        let parts: List[String] = split(pair, "=")
        if length(parts) == 2 and parts[0] == name then
            return Some(parts[1])
        end if
    end for
    return None
end func

export func positive(text: String) -> Bool
    example "12" -> true
    example "0" -> false
    example "abc" -> false
    match parse_int(text) with
        | Some(n) -> return n > 0
        | None -> return false
    end match
end func
''',
    "Responses.geno": r'''
import Models

export func headers() -> List[(String, String)]
    example () -> [("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS"), ("Access-Control-Allow-Headers", "Content-Type"), ("Content-Type", "application/json")]
    return [("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS"), ("Access-Control-Allow-Headers", "Content-Type"), ("Content-Type", "application/json")]
end func

export func reply(status: Int, body: String) -> HttpResponse
    example (200, "x") -> HttpResponse(200, "x", headers())
    return HttpResponse(status, body, headers())
end func

export func user(id: String) -> Option[String]
    example "1" -> Some("{\"id\":1,\"name\":\"Alice\"}")
    example "7" -> None
    if id == "1" then
        return Some("{\"id\":1,\"name\":\"Alice\"}")
    end if
    if id == "2" then
        return Some("{\"id\":2,\"name\":\"Bob\"}")
    end if
    return None
end func
''',
    "Routes.geno": r'''
import Models
import Validate
import Responses

@untested("server handler")
func users(req: HttpRequest) -> HttpResponse
    return Responses.reply(200, Models.envelope_ok("[{\"id\":1,\"name\":\"Alice\"},{\"id\":2,\"name\":\"Bob\"}]"))
end func

@untested("server handler")
func one_user(req: HttpRequest) -> HttpResponse
    match Validate.query_value(req.query, "id") with
        | None -> return Responses.reply(400, Models.envelope_error("missing required parameter: id"))
        | Some(id) ->
            if not Validate.positive(id) then
                return Responses.reply(400, Models.envelope_error("parameter 'id' must be a positive integer"))
            end if
            match Responses.user(id) with
                | Some(data) -> return Responses.reply(200, Models.envelope_ok(data))
                | None -> return Responses.reply(404, Models.envelope_error("not found"))
            end match
    end match
end func

@untested("server handler")
func items(req: HttpRequest) -> HttpResponse
    return Responses.reply(200, Models.envelope_ok("[{\"id\":1,\"name\":\"Widget\",\"price\":9.99},{\"id\":2,\"name\":\"Gadget\",\"price\":24.99}]"))
end func

@untested("server handler")
func echo(req: HttpRequest) -> HttpResponse
    if req.body == "" then
        return Responses.reply(400, Models.envelope_error("request body must not be empty"))
    end if
    return Responses.reply(200, Models.envelope_ok(req.body))
end func

@untested("server handler")
func preflight(req: HttpRequest) -> HttpResponse
    return HttpResponse(204, "", Responses.headers())
end func
''',
    "Main.geno": r'''
import Routes

func port_of(text: String) -> Int
    example "3000" -> 3000
    example "x" -> 8080
    match parse_int(text) with
        | Some(p) -> return p
        | None -> return 8080
    end match
end func

func main() -> Unit
    let port: Int = port_of(unwrap_or(env_get("GENO_PORT"), "8080"))
    for path: String in ["/api/users", "/api/user", "/api/items", "/api/echo"] do
        http_route(method: "OPTIONS", path: path, handler: Routes.preflight)
    end for
    http_route(method: "GET", path: "/api/users", handler: Routes.users)
    http_route(method: "GET", path: "/api/user", handler: Routes.one_user)
    http_route(method: "GET", path: "/api/items", handler: Routes.items)
    http_route(method: "POST", path: "/api/echo", handler: Routes.echo)
    http_listen(port)
end func
''',
}

# (method, path, body) -> (status, body) as the reference's geno-snap
# answers them (measured: geno-lang 0.4.3, `run --unsafe --cap serve,env`).
SNAP_EXPECT = [
    ("GET", "/api/users", None, 200, '{"ok":true,"data":[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"}]}'),
    ("GET", "/api/user?id=1", None, 200, '{"ok":true,"data":{"id":1,"name":"Alice"}}'),
    ("GET", "/api/user?id=2", None, 200, '{"ok":true,"data":{"id":2,"name":"Bob"}}'),
    ("GET", "/api/user?id=999", None, 404, '{"ok":false,"error":"not found"}'),
    ("GET", "/api/user", None, 400, '{"ok":false,"error":"missing required parameter: id"}'),
    ("GET", "/api/user?id=abc", None, 400, '{"ok":false,"error":"parameter \'id\' must be a positive integer"}'),
    ("GET", "/api/items", None, 200,
     '{"ok":true,"data":[{"id":1,"name":"Widget","price":9.99},{"id":2,"name":"Gadget","price":24.99}]}'),
    ("POST", "/api/echo", '{"hello":"world"}', 200, '{"ok":true,"data":{"hello":"world"}}'),
    ("POST", "/api/echo", "", 400, '{"ok":false,"error":"request body must not be empty"}'),
    ("GET", "/nope", None, 404, "Not Found"),
]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(geno, args, cwd, env=None, wait=10.0):
    """Start `geno ARGS`; return (process, port) once it prints its
    "Listening on" line, or (process, None) when it ends first."""
    p = subprocess.Popen([geno] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, **(env or {})))
    line = b""
    deadline = time.time() + wait
    while time.time() < deadline and not line.endswith(b"\n"):
        r, _, _ = select.select([p.stdout], [], [], max(0.0, deadline - time.time()))
        if not r:
            break
        c = os.read(p.stdout.fileno(), 1)
        if not c:
            break
        line += c
    text = line.decode("utf-8", "replace")
    if text.startswith("Listening on http://127.0.0.1:"):
        return p, int(text.strip().rsplit(":", 1)[1])
    return p, None


def stop(p):
    """Stop a server by its PID; its stdout and stderr."""
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def request(port, method, path, body=None, headers=None, host=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    c.putheader("Host", host if host is not None else "127.0.0.1:%d" % port)
    for k, v in (headers or {}).items():
        c.putheader(k, v)
    data = body.encode("utf-8") if isinstance(body, str) else body
    if data is not None and not any(k.lower() in ("content-length", "transfer-encoding") for k in (headers or {})):
        c.putheader("Content-Length", str(len(data)))
    c.endheaders(data)
    r = c.getresponse()
    payload = r.read().decode("utf-8", "replace")
    hdrs = {k.lower(): v for k, v in r.getheaders()}
    c.close()
    return r.status, hdrs, payload


def raw(port, data):
    """Send raw bytes; the status line's code."""
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(data)
    got = b""
    while b"\r\n" not in got:
        k = s.recv(4096)
        if not k:
            break
        got += k
    s.close()
    parts = got.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


class SlowClient(threading.Thread):
    """A client that sends a request's headers one byte every 100 ms and
    never finishes them; records when the server cut it off."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.cut_after, self.sent = port, None, 0

    def run(self):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        t0 = time.time()
        data = b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % self.port + b"a" * 100000
        try:
            for i in range(len(data)):
                if time.time() - t0 > 45:
                    return
                s.sendall(data[i:i + 1])
                self.sent += 1
                r, _, _ = select.select([s], [], [], 0.1)
                if r and not s.recv(4096):
                    self.cut_after = time.time() - t0
                    return
        except OSError:  # reset by the server
            self.cut_after = time.time() - t0
        finally:
            s.close()


def api_checks(geno, d, mode):
    tag = "[%s] " % (mode or "isolated")
    extra = [mode] if mode else []
    p, port = start(geno, ["run"] + extra + ["--cap", "serve,print", "--max-steps", "20000", "api.geno"], d)
    check(port is not None, tag + "the server starts and prints its port")
    if port is None:
        print(stop(p))
        return
    # runs while the checks below are answered; cut off 30 s after it connected
    slow = SlowClient(port)
    slow.start()
    st, h, b = request(port, "GET", "/hello?name=x")
    check((st, b, h.get("content-type")) == (200, "hello name=x", "text/plain"), tag + "GET with a query: %r" % ((st, b),))
    check(h.get("connection") == "close", tag + "Connection: close")
    st, h, b = request(port, "POST", "/echo", "abc")
    check((st, b, h.get("x-len"), h.get("x-method")) == (201, "abc", "3", "POST"), tag + "POST body: %r" % ((st, b, h),))
    st, h, b = request(port, "PUT", "/echo", "h\u00e9")
    check((st, b, h.get("x-len")) == (201, "h\u00e9", "2"), tag + "PUT, a UTF-8 body: %r" % ((st, b, h),))
    st, h, b = request(port, "GET", "/names?q", headers={"X-Test": "1"})
    check(st == 200 and '("Host", "127.0.0.1:%d")' % port in b and '("X-Test", "1")' in b and b.endswith(" path=/names"),
          tag + "the handler sees the headers and the path without the query: %r" % b)
    st, h, b = request(port, "GET", "/missing")
    check((st, b, h.get("content-type")) == (404, "Not Found", "text/plain; charset=utf-8"), tag + "no route: 404")
    st, h, b = request(port, "POST", "/hello", "")
    check(st == 404, tag + "a route's method must match: %d" % st)
    st, h, b = request(port, "GET", "/hello", host="evil.example")
    check((st, b) == (421, "Misdirected Request"), tag + "a foreign Host: 421 %r" % ((st, b),))
    st, h, b = request(port, "GET", "/hello?l", host="localhost:%d" % port)
    check(st == 200, tag + "Host localhost:PORT is fine")
    st, h, b = request(port, "POST", "/echo", b"\xff\xfe")
    check((st, b) == (400, "Request body must be valid UTF-8"), tag + "a body that is not UTF-8: %r" % ((st, b),))
    st, h, b = request(port, "POST", "/echo", b"3\r\nabc\r\n0\r\n\r\n", headers={"Transfer-Encoding": "chunked"})
    check((st, b) == (400, "Transfer-Encoding is not supported"), tag + "chunked: %r" % ((st, b),))
    code = raw(port, b"POST /echo HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 1048577\r\n\r\n" % port)
    check(code == 413, tag + "a body over 1 MiB: %r" % code)
    code = raw(port, b"POST /echo HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: -1\r\n\r\n" % port)
    check(code == 400, tag + "a negative Content-Length: %r" % code)
    st, h, b = request(port, "GET", "/boom")
    check((st, b) == (500, "Internal Server Error"), tag + "a handler's runtime error: 500")
    st1, _, b1 = request(port, "GET", "/work")
    st2, _, b2 = request(port, "GET", "/work")
    check((st1, b1, st2, b2) == (200, "7998000", 200, "7998000"),
          tag + "each request has its own step budget: %r" % ((st1, b1, st2, b2),))
    st, h, b = request(port, "GET", "/spin")
    check(st == 500, tag + "a handler past the step limit: 500")
    for path in ("/managed", "/nocontent", "/badstatus"):
        st, h, b = request(port, "GET", path)
        check(st == 500, tag + "an invalid response (%s): 500, got %d" % (path, st))
    st, h, b = request(port, "OPTIONS", "/empty")
    check((st, b, h.get("x-empty")) == (204, "", "yes"), tag + "an OPTIONS route, 204 without a body: %r" % ((st, h),))
    st, h, b = request(port, "POST", "/add", "")
    st2, h2, b2 = request(port, "GET", "/added7?z")
    check((st, b, st2, b2) == (200, "added", 200, "hello z"), tag + "routes added by a handler: %r" % ((st, b, st2, b2),))
    st, h, b = request(port, "GET", "/hello?again")
    check((st, b) == (200, "hello again"), tag + "still serving after the failures")
    check(p.poll() is None, tag + "still running")
    slow.join(60)
    check(slow.cut_after is not None and 29 <= slow.cut_after <= 36,
          tag + "headers sent a byte every 100 ms: cut off 30 s after the connection (after %r s, %d bytes)"
          % (slow.cut_after, slow.sent))
    st, h, b = request(port, "GET", "/hello?later")
    check((st, b) == (200, "hello later"), tag + "still serving after the slow client")
    out, err = stop(p)
    check("printed before listening" not in out, tag + "program output stays in the run's buffer")
    check("handler of GET /boom failed: E400: Division by zero" in err, tag + "handler errors are logged: %r" % err)
    check("E503" in err, tag + "the step limit is logged")


def timeout_checks(geno, d, mode):
    tag = "[%s] " % (mode or "isolated")
    extra = [mode] if mode else []
    p, port = start(geno, ["run"] + extra + ["--cap", "serve,print", "--timeout", "0.5", "--max-steps", "0", "api.geno"], d)
    check(port is not None, tag + "starts with --timeout 0.5")
    if port is None:
        print(stop(p))
        return
    # the run's own timeout passed long ago; each request has its own
    time.sleep(0.8)
    st, h, b = request(port, "GET", "/hello?late")
    check((st, b) == (200, "hello late"), tag + "serving past the run's timeout: %r" % ((st, b),))
    t0 = time.time()
    st, h, b = request(port, "GET", "/spin")
    took = time.time() - t0
    check(st == 500 and took < 5, tag + "a handler past its timeout: 500 after %.1f s" % took)
    st, h, b = request(port, "GET", "/hello?after")
    check((st, b) == (200, "hello after"), tag + "still serving after a timeout")
    out, err = stop(p)
    check("E501" in err, tag + "the timeout is logged: %r" % err)


def failure_checks(geno, d):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    with open(os.path.join(d, "busy.geno"), "w") as f:
        f.write("func main() -> Unit\n    http_listen(port: %d)\nend func\n" % port)
    for extra in ([], ["--unsafe"]):
        r = subprocess.run([geno, "run"] + extra + ["--cap", "serve", "busy.geno"], cwd=d, capture_output=True,
                           text=True, timeout=30)
        check(r.returncode == 1 and "Cannot bind to port %d: [Errno 98] Address already in use" % port in r.stderr,
              "%s a port in use: %r" % (extra, r.stderr))
    busy.close()
    r = subprocess.run([geno, "run", "api.geno"], cwd=d, capture_output=True, text=True, timeout=30)
    check(r.returncode == 1 and "E412" in r.stderr and "'http_route' requires the 'serve' capability" in r.stderr,
          "without --cap serve: %r" % r.stderr)


def snap_checks(geno, d):
    app = os.path.join(d, "apps", "snap")
    os.makedirs(app)
    for name, text in SNAP.items():
        with open(os.path.join(app, name), "w") as f:
            f.write(text.lstrip("\n"))
    r = subprocess.run([geno, "check", "apps/snap"], cwd=d, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "5 modules" in r.stdout, "snap: geno check: %r" % (r.stdout + r.stderr))
    r = subprocess.run([geno, "test", "apps/snap"], cwd=d, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "0 failed" in r.stdout, "snap: geno test: %r" % (r.stdout + r.stderr))
    for mode in ([], ["--unsafe"]):
        port = free_port()
        # the README's command, from the directory above the app
        p, got = start(geno, ["run"] + mode + ["--cap", "serve,env", "apps/snap"], d, env={"GENO_PORT": str(port)})
        check(got == port, "snap %s: listens on GENO_PORT (%r)" % (mode, got))
        if got is None:
            print(stop(p))
            continue
        for method, path, body, want_st, want_body in SNAP_EXPECT:
            st, h, b = request(port, method, path, body, host="localhost:%d" % port)
            check((st, b) == (want_st, want_body), "snap %s: %s %s: %r" % (mode, method, path, (st, b)))
            if path.startswith("/api/"):
                check(h.get("access-control-allow-origin") == "*" and h.get("content-type") == "application/json",
                      "snap %s: %s headers %r" % (mode, path, h))
        st, h, b = request(port, "OPTIONS", "/api/users", host="localhost:%d" % port)
        check((st, b, h.get("access-control-allow-methods")) == (204, "", "GET, POST, PUT, DELETE, OPTIONS"),
              "snap %s: the CORS preflight route: %r" % (mode, (st, h)))
        stop(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geno", required=True)
    geno = os.path.abspath(ap.parse_args().geno)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "api.geno"), "w") as f:
            f.write(API.lstrip("\n"))
        r = subprocess.run([geno, "check", "api.geno"], cwd=d, capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, "the API program checks: %r" % (r.stdout + r.stderr))
        for mode in (None, "--unsafe"):
            api_checks(geno, d, mode)
            timeout_checks(geno, d, mode)
        failure_checks(geno, d)
        snap_checks(geno, d)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
