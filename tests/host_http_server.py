#!/usr/bin/env python3
"""A small local HTTP server for the tests of the CLI's HTTP callbacks
(tests/lang/host/http_*.geno through run_golden.py, and
tests/unit/test_host_http.c), so no test needs the internet.

It listens on 127.0.0.1 (a port the OS picks) and answers:

  /hello                  200 "hello"
  /status/N               status N, body "status N"
  /echo                   200, body: the method, the request headers
                          (lowercased names, sorted, one "name: value" a
                          line, without host/user-agent/accept-encoding/
                          connection/content-length), then "--", then the
                          request body
  /redirect?to=URL&code=N N (default 302) with Location: URL
  /chain/K                302 to /chain/K-1; /chain/0 is 200 "end of chain"
  /big?n=N                200, N bytes of "a"
  /bytes                  200, b"\\xffok\\xe4" (not UTF-8)
  /headers                200 with Set-Cookie twice and a Latin-1 header
  /slow?s=S               sleeps S seconds, then 200 "slow"
  /hits                   200, the number of other requests served so far

Responses carry only the headers set here (no Server or Date), so tests
can print them. Run as a program it prints the port and serves until
killed.
"""
import http.server
import socketserver
import sys
import threading
import time
import urllib.parse

HITS = [0]
HITS_LOCK = threading.Lock()
HIDDEN = {"host", "user-agent", "accept-encoding", "connection", "content-length"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response_only(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/hits":
            with HITS_LOCK:
                n = HITS[0]
            self.reply(200, str(n).encode())
            return
        with HITS_LOCK:
            HITS[0] += 1
        q = dict(urllib.parse.parse_qsl(url.query))
        parts = url.path.strip("/").split("/")
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        if url.path == "/hello":
            self.reply(200, b"hello", [("Content-Type", "text/plain")])
        elif parts[0] == "status" and len(parts) == 2:
            self.reply(int(parts[1]), b"status " + parts[1].encode())
        elif url.path == "/echo":
            lines = [self.command]
            for k in sorted(self.headers.keys(), key=str.lower):
                if k.lower() not in HIDDEN:
                    lines.append("%s: %s" % (k.lower(), self.headers[k]))
            text = "\n".join(lines) + "\n--\n"
            self.reply(200, text.encode("latin-1") + body)
        elif url.path == "/redirect":
            self.reply(int(q.get("code", "302")), b"moved", [("Location", q.get("to", "/hello"))])
        elif parts[0] == "chain" and len(parts) == 2:
            k = int(parts[1])
            if k <= 0:
                self.reply(200, b"end of chain")
            else:
                self.reply(302, b"", [("Location", "/chain/%d" % (k - 1))])
        elif url.path == "/big":
            self.reply(200, b"a" * int(q.get("n", "0")))
        elif url.path == "/bytes":
            self.reply(200, b"\xffok\xe4")
        elif url.path == "/headers":
            self.send_response_only(200)
            self.send_header("Set-Cookie", "a=1")
            self.send_header("Set-Cookie", "b=2")
            self._headers_buffer.append(b"X-Latin: caf\xe9\r\n")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
        elif url.path == "/slow":
            time.sleep(float(q.get("s", "1")))
            self.reply(200, b"slow")
        else:
            self.reply(404, b"not found")

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = handle_any


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # clients that stop reading (the size-limit tests) are expected


def start():
    """Start the server in a background thread; returns its port."""
    srv = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv.server_address[1]


if __name__ == "__main__":
    port = start()
    print(port, flush=True)
    try:
        sys.stdin.read()  # serve until stdin closes (the test ends)
    except KeyboardInterrupt:
        pass
