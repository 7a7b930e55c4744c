"""The hosted runtime (the reference's ``geno.server``), served by geno-c's C server.

geno-c's hosted service is written in C (src/server: sandboxed workers,
the reference's statuses, messages, limits and ``GENO_*`` settings):
/run, /check, /test, /constrain, /healthz, /metrics and the playground.
This module offers it under the reference's names: ``main()`` is the
``geno serve`` command line (the reference's flags); ``create_server()``
starts a server process and returns a handle with the
``serve_forever()`` / ``shutdown()`` / ``server_close()`` /
``server_address`` of the reference's ThreadingHTTPServer; and
``create_handler()`` returns a request handler class for a server of your
own, whose requests go through the same C pipeline in this process
(each run still in a sandboxed child). The ``geno`` executable is
installed inside this package (``geno/bin/geno``); ``GENO_BINARY`` names
another.
"""
from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler
from typing import AbstractSet, Any

__all__ = ["DEFAULT_ALLOWED_CAPABILITIES", "create_handler", "create_server", "main", "HostedServer"]

DEFAULT_ALLOWED_CAPABILITIES = frozenset({"print", "clock", "random"})
"""Capabilities requests may ask for unless the operator allows others."""

_STARTUP_SECONDS = 30.0


def _binary() -> str:
    path = os.environ.get("GENO_BINARY") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "geno")
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"geno executable not found at {path} (set GENO_BINARY)")
    return path


def main(argv: list[str] | None = None) -> None:
    """Run the hosted server in this process: ``geno serve`` with these arguments (default sys.argv[1:])."""
    args = list(sys.argv[1:] if argv is None else argv)
    binary = _binary()
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(binary, [binary, "serve", *args])


class _HeaderBudget:
    """A request's reader while its headers are parsed: at most `limit` bytes
    of request line and headers in all (http.server then answers 431)."""

    def __init__(self, stream: Any, used: int, limit: int) -> None:
        self._stream, self._used, self._limit = stream, used, limit

    def readline(self, size: int = -1) -> bytes:
        left = self._limit - self._used
        if left < 0:
            raise http.client.LineTooLong("request headers")
        if size < 0 or size > left + 1:
            size = left + 1
        line = self._stream.readline(size)
        self._used += len(line)
        if self._used > self._limit:
            raise http.client.LineTooLong("request headers")
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _names(values: Any, what: str) -> list[str]:
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{what} must be a collection of strings")
    out = []
    for v in values:
        if not isinstance(v, str):
            raise TypeError(f"{what} must be a collection of strings")
        out.append(v.strip())
    return out


def create_handler(collector: Any, allowed_capabilities: AbstractSet[str] | None = None, *,
                   default_request_capabilities: AbstractSet[str] | None = None, api_key: str | None = None,
                   allowed_env_names: AbstractSet[str] | None = None,
                   allowed_env_prefixes: AbstractSet[str] | None = None,
                   require_auth_for_metrics: bool | None = None, require_auth_for_playground: bool | None = None,
                   rate_limit_requests: int | None = None, rate_limit_window_seconds: float | None = None,
                   rate_limit_max_buckets: int | None = None, trusted_proxy: str | None = None) -> type:
    """A ``BaseHTTPRequestHandler`` subclass serving the hosted runtime, for your own server.

    Mount it in a ``ThreadingHTTPServer``; each request goes through the
    pipeline of ``geno serve`` (geno-c's C server, the same code): the Host
    rule (the server's bound address names, plus ``GENO_ALLOWED_HOSTS``),
    Origin, the per-client rate limit, authentication, the body rules and
    field validation, the run in a sandboxed child with the server's
    limits, and the same statuses, headers and JSON bodies for /run,
    /check, /test, /constrain, /healthz, /metrics, the playground, OPTIONS
    and unknown paths. Runs and POST requests are recorded into
    ``collector`` (a :class:`geno.RuntimeMetricsCollector`), which /healthz
    and /metrics report.

    Options left as None keep the ``GENO_*`` environment's settings, as in
    the reference; ``api_key`` None means no authentication. Each call
    starts a small spawner process the sandboxed children fork from (it
    ends with the handler class); call it before starting threads that
    run Geno.
    ``default_request_capabilities`` other than empty is refused (requests
    get only the capabilities they list), and so is ``env`` among the
    allowed capabilities (``geno serve`` filters its own environment at
    start; a handler cannot filter its host program's): use
    :func:`create_server` for those.
    """
    from .monitoring import RuntimeMetricsCollector
    from . import _geno

    if not isinstance(collector, RuntimeMetricsCollector):
        raise TypeError("collector must be a geno.RuntimeMetricsCollector")
    if api_key is not None and (not isinstance(api_key, str) or not api_key.strip()):
        raise ValueError("api_key must not be empty or whitespace")
    if rate_limit_requests is not None and (isinstance(rate_limit_requests, bool)
                                            or not isinstance(rate_limit_requests, int) or rate_limit_requests < 0):
        raise ValueError("rate_limit_requests must be a non-negative integer")
    if rate_limit_window_seconds is not None and (isinstance(rate_limit_window_seconds, bool)
                                                  or not isinstance(rate_limit_window_seconds, (int, float))
                                                  or not rate_limit_window_seconds > 0
                                                  or rate_limit_window_seconds == float("inf")):
        raise ValueError("rate_limit_window_seconds must be a positive finite number")
    if rate_limit_max_buckets is not None and (isinstance(rate_limit_max_buckets, bool)
                                               or not isinstance(rate_limit_max_buckets, int)
                                               or rate_limit_max_buckets <= 0):
        raise ValueError("rate_limit_max_buckets must be a positive integer")
    if require_auth_for_metrics is not None and not isinstance(require_auth_for_metrics, bool):
        raise ValueError("require_auth_for_metrics must be a boolean or None")
    if require_auth_for_playground is not None and not isinstance(require_auth_for_playground, bool):
        raise ValueError("require_auth_for_playground must be a boolean")
    if trusted_proxy is not None and not isinstance(trusted_proxy, str):
        raise TypeError("trusted_proxy must be a str or None")
    allowed = sorted(DEFAULT_ALLOWED_CAPABILITIES if allowed_capabilities is None
                     else {c.lower() for c in _names(allowed_capabilities, "allowed_capabilities")})
    unknown = [c for c in allowed if c not in _geno.CAPABILITIES]
    if unknown:
        raise ValueError("unknown capabilities: " + ", ".join(unknown))
    if "env" in allowed:
        raise ValueError("create_handler cannot allow 'env': geno serve filters its own environment at start, "
                         "a handler cannot filter its host program's; use geno.server.create_server()")
    if default_request_capabilities:
        defaults = set(_names(default_request_capabilities, "default_request_capabilities"))
        if not defaults <= set(allowed):
            raise ValueError("default_request_capabilities must be a subset of allowed_capabilities: "
                             + ", ".join(sorted(defaults - set(allowed))))
        raise ValueError("geno-c's server grants a request only the capabilities it lists; "
                         "default_request_capabilities is not supported")
    core = _geno.ServerCore(
        collector._m, ["--allow-capability", ",".join(allowed) or "none"], api_key,
        None if allowed_env_names is None else _names(allowed_env_names, "allowed_env_names"),
        None if allowed_env_prefixes is None else _names(allowed_env_prefixes, "allowed_env_prefixes"),
        -2 if require_auth_for_metrics is None else int(require_auth_for_metrics),
        -1 if require_auth_for_playground is None else int(require_auth_for_playground),
        -1 if rate_limit_requests is None else rate_limit_requests,
        -1.0 if rate_limit_window_seconds is None else float(rate_limit_window_seconds),
        -1 if rate_limit_max_buckets is None else rate_limit_max_buckets,
        trusted_proxy)

    timeout = core.request_timeout
    header_limit = core.max_header_bytes

    class GenoRequestHandler(BaseHTTPRequestHandler):
        """One request through geno serve's pipeline (geno.server.create_handler)."""

        def setup(self) -> None:
            super().setup()
            # as geno serve: each read waits at most the request timeout, and
            # the whole request (headers and body) must arrive within it
            self.request.settimeout(timeout)
            self._deadline = threading.Timer(timeout, self._cut_off)
            self._deadline.daemon = True
            self._deadline.start()

        def _cut_off(self) -> None:
            try:
                self.request.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def parse_request(self) -> bool:
            reader = self.rfile
            self.rfile = _HeaderBudget(reader, len(getattr(self, "raw_requestline", b"")), header_limit)
            try:
                return super().parse_request()
            finally:
                self.rfile = reader

        def _read_body(self, n: int) -> bytes:
            try:
                return self.rfile.read(n)
            finally:
                self._deadline.cancel()  # arrived: the run has its own limits

        def finish(self) -> None:
            try:
                super().finish()
            finally:
                self._deadline.cancel()

        def _serve(self) -> None:
            if self.command != "POST":
                self._deadline.cancel()
            bound = self.server.server_address
            peer = str(self.client_address[0]) if self.client_address else "unknown"
            if peer.startswith("::ffff:") and "." in peer:
                peer = peer[7:]
            headers = [(k.encode("latin-1", "replace"), str(v).encode("latin-1", "replace"))
                       for k, v in self.headers.items()]
            try:
                status, out, body = core.handle(self.command, self.path, headers, peer, str(bound[0]),
                                                int(bound[1]), self._read_body)
            except OSError:  # the client went away or timed out mid-body (recorded as bad_request)
                self.close_connection = True
                return
            self.send_response(status)
            for name, value in out:
                self.send_header(name, value)
            if status not in (204, 304):
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD" and body:
                self.wfile.write(body)

        def __getattr__(self, name: str) -> Any:
            if name.startswith("do_"):  # every method: the pipeline answers 501 for those it does not serve
                return self._serve
            raise AttributeError(name)

        def log_message(self, format: str, *args: Any) -> None:
            return

    return GenoRequestHandler


class HostedServer:
    """A running ``geno serve`` process, driven like the reference's server object."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self._proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True, errors="replace")
        self.log: list[str] = []
        ready = threading.Event()
        self.server_address: tuple[str, int] = ("", 0)

        def pump() -> None:  # keep reading so the server never blocks on a full pipe
            assert self._proc.stderr is not None
            for line in self._proc.stderr:
                self.log.append(line.rstrip("\n"))
                m = re.search(r"Serving Geno runtime on http://\[?([^\]\s]*?)\]?:(\d+)", line)
                if m and not ready.is_set():
                    self.server_address = (m.group(1), int(m.group(2)))
                    ready.set()
            ready.set()

        self._pump = threading.Thread(target=pump, daemon=True)
        self._pump.start()
        # the pump also sets `ready` when the server's stderr ends: a server
        # that refused to start (its log says why) may not be reaped yet, so
        # no address read counts as not started, not only an exit status
        if not ready.wait(_STARTUP_SECONDS) or not self.server_address[1] or self._proc.poll() is not None:
            self.server_close()
            raise RuntimeError("geno serve did not start: " + " | ".join(self.log[-5:]))

    @property
    def pid(self) -> int:
        """The server process's id."""
        return self._proc.pid

    def serve_forever(self) -> None:
        """Wait until the server stops (after :meth:`shutdown`, or a signal)."""
        self._proc.wait()

    def shutdown(self) -> None:
        """Stop gracefully: SIGTERM lets requests in flight finish."""
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)

    def server_close(self) -> None:
        """Stop the server and reap it (killed if it does not stop within 10 s)."""
        self.shutdown()
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._pump.join(5)

    def __enter__(self) -> "HostedServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server_close()


def _csv(values: AbstractSet[str] | None, what: str) -> str:
    if values is None or isinstance(values, str):
        raise TypeError(f"{what} must be a collection of strings")
    return ",".join(sorted(values))


def create_server(host: str = "127.0.0.1", port: int = 8000, *, service: str = "geno-api",
                  revision: str | None = None, allowed_capabilities: set[str] | None = None,
                  default_request_capabilities: set[str] | None = None, api_key: str | None = None,
                  allowed_hosts: AbstractSet[str] | None = None, allowed_env_names: AbstractSet[str] | None = None,
                  allowed_env_prefixes: AbstractSet[str] | None = None, require_auth_for_metrics: bool | None = None,
                  require_auth_for_playground: bool | None = None, rate_limit_requests: int | None = None,
                  rate_limit_window_seconds: float | None = None, rate_limit_max_buckets: int | None = None,
                  trusted_proxy: str | None = None, allow_insecure: bool = False) -> HostedServer:
    """Start ``geno serve`` bound to (host, port) (port 0: any free port) and return its handle.

    Options left as None keep the server's defaults and its ``GENO_*``
    environment settings. Requests get no capability unless they list
    them; ``default_request_capabilities`` other than empty is refused.
    """
    if default_request_capabilities:
        raise ValueError("geno-c's server grants a request only the capabilities it lists; "
                         "default_request_capabilities is not supported")
    if not isinstance(host, str) or not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise ValueError("host must be a str and port an integer 0-65535")
    argv = [_binary(), "serve", "--host", host, "--port", str(port), "--service", service]
    if revision is not None:
        argv += ["--revision", revision]
    if allowed_capabilities is not None:
        argv += ["--allow-capability", _csv(allowed_capabilities, "allowed_capabilities") or "none"]
    if allow_insecure:
        argv.append("--allow-insecure")
    env = dict(os.environ)
    settings = {
        "GENO_API_KEY": api_key,
        "GENO_ALLOWED_HOSTS": None if allowed_hosts is None else _csv(allowed_hosts, "allowed_hosts"),
        "GENO_ALLOWED_ENV_NAMES": None if allowed_env_names is None else _csv(allowed_env_names, "allowed_env_names"),
        "GENO_ALLOWED_ENV_PREFIXES": None if allowed_env_prefixes is None
        else _csv(allowed_env_prefixes, "allowed_env_prefixes"),
        "GENO_REQUIRE_AUTH_FOR_METRICS": None if require_auth_for_metrics is None
        else str(bool(require_auth_for_metrics)).lower(),
        "GENO_REQUIRE_AUTH_FOR_PLAYGROUND": None if require_auth_for_playground is None
        else str(bool(require_auth_for_playground)).lower(),
        "GENO_RATE_LIMIT_REQUESTS": None if rate_limit_requests is None else str(int(rate_limit_requests)),
        "GENO_RATE_LIMIT_WINDOW_SECONDS": None if rate_limit_window_seconds is None
        else repr(float(rate_limit_window_seconds)),
        "GENO_RATE_LIMIT_MAX_BUCKETS": None if rate_limit_max_buckets is None else str(int(rate_limit_max_buckets)),
        "GENO_TRUSTED_PROXY": trusted_proxy,
    }
    env.update({k: v for k, v in settings.items() if v is not None})
    return HostedServer(argv, env)
