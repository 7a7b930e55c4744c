"""The hosted runtime (the reference's ``geno.server``), served by geno-c's ``geno serve``.

geno-c's hosted service is written in C (libmicrohttpd, sandboxed workers):
/run, /check, /test, /constrain, /healthz, /metrics and the playground,
with the reference's statuses, messages, limits and ``GENO_*`` settings.
This module starts it from Python under the reference's names: ``main()``
is the ``geno serve`` command line (the reference's flags), and
``create_server()`` starts a server process and returns a handle with the
``serve_forever()`` / ``shutdown()`` / ``server_close()`` /
``server_address`` of the reference's ThreadingHTTPServer. The ``geno``
executable is installed inside this package (``geno/bin/geno``);
``GENO_BINARY`` names another.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
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


def create_handler(collector: Any, allowed_capabilities: set[str] | None = None, **options: Any) -> Any:
    """Not available: geno-c serves requests in C, not with a Python handler class.

    Raises NotImplementedError; use :func:`create_server` or :func:`main`.
    """
    raise NotImplementedError("geno-c's hosted service handles requests in C (geno serve); "
                              "use geno.server.create_server() or geno.server.main()")


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
        if not ready.wait(_STARTUP_SECONDS) or self._proc.poll() is not None:
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
