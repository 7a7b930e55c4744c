"""The embedding API: run, check, run_path, check_path, run_isolated.

Same names, signatures, defaults and result fields as the reference's
``geno.api``; the work is done by libgeno (the ``_geno`` extension) with the
GIL released, so several threads can run programs at once.
"""
from __future__ import annotations

import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from typing import AbstractSet, Any, Callable, Mapping, Union

from . import _geno
from .diagnostics import Diagnostic, ErrorCode, Severity, _from_c
from .monitoring import RunMetrics
from .values import NONE, some

__all__ = [
    "RunConfig", "SandboxConfig", "Timing", "RunResult", "CheckResult",
    "run", "check", "run_path", "check_path", "run_isolated", "KNOWN_CAPABILITIES",
]

KNOWN_CAPABILITIES = frozenset(_geno.CAPABILITIES)
"""The capability names a program can be granted."""

_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1


class CapabilityParseError(ValueError):
    """An unknown or empty capability name."""


def _capability_set(values: Any) -> set[str]:
    if isinstance(values, str):
        raise CapabilityParseError("RunConfig.capabilities must be a collection of names, not a str")
    try:
        items = list(values)
    except TypeError:
        raise CapabilityParseError("RunConfig.capabilities must be a collection of names") from None
    out: set[str] = set()
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise CapabilityParseError("Capability names must be non-empty strings.")
        name = item.strip()
        if name not in KNOWN_CAPABILITIES:
            import difflib

            message = f"Unknown capability '{name}'. Valid capabilities: {', '.join(sorted(KNOWN_CAPABILITIES))}."
            close = difflib.get_close_matches(name, sorted(KNOWN_CAPABILITIES), n=1, cutoff=0.6)
            if close:
                message += f" Did you mean '{close[0]}'?"
            raise CapabilityParseError(message)
        out.add(name)
    return out


def _name_set(values: Any, what: str) -> frozenset[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        raise ValueError(f"{what} must be a collection of non-empty strings")
    try:
        names = frozenset(values)
    except TypeError:
        raise ValueError(f"{what} must be a collection of non-empty strings") from None
    if any(not isinstance(n, str) or not n for n in names):
        raise ValueError(f"{what} must contain only non-empty strings")
    return names


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass
class RunConfig:
    """Limits and grants for one run (the reference's RunConfig, field for field).

    Attributes:
        timeout: wall-clock seconds (cooperative in-process; None = no limit). Default 5.0.
        max_steps: VM steps (None = no step limit). Default 1,000,000.
        max_recursion_depth: nested Geno calls. Default 500.
        max_output_length: characters of print output (0 = none). Default 100,000.
        max_collection_size: elements of one collection / characters of one string. Default 10,000,000.
        max_integer_bits: bits of one Int. Default 33,219.
        capabilities: names granted ("print", "fs" ...). None or omitted = none (fail-closed).
        env_allowed_names: with ``env`` granted, the only variables env_get may read
            (besides ``env_allowed_prefixes``); None = no policy.
        env_allowed_prefixes: variable-name prefixes env_get may read; names that look
            like secrets need an exact entry in env_allowed_names.
        host_callbacks: builtin name -> Python function implementing it ("fs_read_text").
            A callback runs only when its builtin's capability is granted.
        modules: module name -> source, for ``import Name``.
        target: an execution target ("python-cli", "node-cli", "browser", "python-hosted")
            whose rules the program is checked against first.
        check_examples: verify ``example`` clauses before main. Default True.
        monitoring_hook: called with a :class:`geno.monitoring.RunMetrics` after every run.
    """

    timeout: float | None = 5.0
    max_steps: int | None = 1_000_000
    max_recursion_depth: int = 500
    max_output_length: int = 100_000
    max_collection_size: int = 10_000_000
    max_integer_bits: int = 33_219
    capabilities: set[str] | None = None
    env_allowed_names: AbstractSet[str] | None = None
    env_allowed_prefixes: AbstractSet[str] | None = None
    host_callbacks: dict[str, Callable] | None = None
    modules: dict[str, str] | None = None
    target: str | None = None
    check_examples: bool = True
    monitoring_hook: Callable[[Any], None] | None = None

    def __post_init__(self) -> None:
        _validate(self)


def _validate(cfg: RunConfig) -> None:
    """Raise ValueError/TypeError for a field out of its domain; normalise the name sets."""
    t = cfg.timeout
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0):
        raise ValueError("RunConfig.timeout must be a positive finite number or None")
    if cfg.max_steps is not None and (not _is_int(cfg.max_steps) or cfg.max_steps <= 0):
        raise ValueError("RunConfig.max_steps must be a positive integer or None")
    if not _is_int(cfg.max_recursion_depth) or cfg.max_recursion_depth <= 0:
        raise ValueError("RunConfig.max_recursion_depth must be a positive integer")
    if not _is_int(cfg.max_output_length) or cfg.max_output_length < 0:
        raise ValueError("RunConfig.max_output_length must be a non-negative integer")
    if not _is_int(cfg.max_collection_size) or cfg.max_collection_size < 0:
        raise ValueError("RunConfig.max_collection_size must be a non-negative integer")
    if not _is_int(cfg.max_integer_bits) or cfg.max_integer_bits <= 0:
        raise ValueError("RunConfig.max_integer_bits must be a positive integer")
    if cfg.capabilities is not None:
        cfg.capabilities = _capability_set(cfg.capabilities)
    cfg.env_allowed_names = _name_set(cfg.env_allowed_names, "RunConfig.env_allowed_names")
    cfg.env_allowed_prefixes = _name_set(cfg.env_allowed_prefixes, "RunConfig.env_allowed_prefixes")
    if cfg.host_callbacks is not None:
        if not isinstance(cfg.host_callbacks, Mapping):
            raise TypeError("RunConfig.host_callbacks must be a dict of builtin name -> callable")
        for name, fn in cfg.host_callbacks.items():
            if not isinstance(name, str) or not _geno.callback_name_valid(name):
                raise ValueError(f"RunConfig.host_callbacks entry {name!r} is not a capability-gated builtin")
            if not callable(fn):
                raise TypeError(f"RunConfig.host_callbacks[{name!r}] must be callable")
    if cfg.modules is not None:
        if not isinstance(cfg.modules, Mapping):
            raise TypeError("RunConfig.modules must be a dict of module name -> source")
        for name, src in cfg.modules.items():
            if not isinstance(name, str) or not isinstance(src, str):
                raise TypeError("RunConfig.modules must map str module names to str sources")
    if cfg.target is not None and not isinstance(cfg.target, str):
        raise TypeError("RunConfig.target must be a str or None")
    if not isinstance(cfg.check_examples, bool):
        raise TypeError("RunConfig.check_examples must be a bool")
    if cfg.monitoring_hook is not None and not callable(cfg.monitoring_hook):
        raise TypeError("RunConfig.monitoring_hook must be callable or None")


@dataclass
class SandboxConfig:
    """Hard limits of :func:`run_isolated` (geno-c's sandboxed child process).

    Attributes:
        max_memory_bytes: address space the child may add (and the VM heap budget).
            Default 256 MiB; None = no limit.
        max_cpu_time: CPU seconds of the child; None (default) = one second past
            the wall-clock kill, which comes at ``RunConfig.timeout`` + 0.5 s.
    """

    max_memory_bytes: int | None = 256 << 20
    max_cpu_time: float | None = None

    def __post_init__(self) -> None:
        m, c = self.max_memory_bytes, self.max_cpu_time
        if m is not None and (not _is_int(m) or m <= 0):
            raise ValueError("SandboxConfig.max_memory_bytes must be a positive integer or None")
        if c is not None and (isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c)
                              or c <= 0 or c > 1e9):
            raise ValueError("SandboxConfig.max_cpu_time must be a positive number of seconds (at most 1e9) or None")


@dataclass
class Timing:
    """Phase timings in milliseconds."""

    total_ms: float = 0.0
    lex_ms: float = 0.0
    parse_ms: float = 0.0
    typecheck_ms: float = 0.0
    run_ms: float = 0.0


@dataclass
class RunResult:
    """What :func:`run` returns.

    ``value`` is main's value in JSON-ready form (tuples ``{"_tuple": [...]}``,
    constructor values ``{"_constructor": name, "fields": {...}}``);
    ``value_raw`` the same value as Python objects (see :mod:`geno.values`).
    ``output`` keeps what was printed before an error or limit.
    """

    ok: bool
    value: Any = None
    value_raw: Any = None
    output: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    timing: Timing = field(default_factory=Timing)
    steps_used: int = 0


@dataclass
class CheckResult:
    """What :func:`check` returns."""

    ok: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    timing: Timing = field(default_factory=Timing)


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def _str_arg(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    return value


_SENSITIVE_EXACT = frozenset({"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                              "GENO_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"})
_SENSITIVE_STARTS = ("AWS_", "AZURE_", "GCP_", "GCLOUD_", "GOOGLE_")
_SENSITIVE_ENDS = ("_CREDENTIAL", "_CREDENTIALS", "_KEY", "_PASS", "_PWD")
_SENSITIVE_PARTS = ("APIKEY", "CONNECTION_STRING", "DATABASE_URL", "DB_URL", "PASSPHRASE", "PASSWD",
                    "PASSWORD", "PRIVATE_KEY", "SECRET", "TOKEN")


def _env_allowed(name: str, cfg: RunConfig) -> bool:
    if name in (cfg.env_allowed_names or ()):
        return True
    upper = name.upper()
    if (upper in _SENSITIVE_EXACT or upper.startswith(_SENSITIVE_STARTS) or upper.endswith(_SENSITIVE_ENDS)
            or any(p in upper for p in _SENSITIVE_PARTS)):
        return False
    return any(name.startswith(p) for p in (cfg.env_allowed_prefixes or ()))


def _env_policy_callbacks(cfg: RunConfig) -> dict[str, Callable]:
    """env_get / env_get_or / cli_args behind the allow-lists (only when a list is set)."""

    def deny(builtin: str, name: str) -> None:
        raise PermissionError(f"{builtin}: environment variable {name!r} is not allowed by the host env policy")

    def env_get(name: str) -> Any:
        if not _env_allowed(name, cfg):
            deny("env_get", name)
        value = os.environ.get(name)
        return NONE if value is None else some(value)

    def env_get_or(name: str, default: str) -> str:
        if not _env_allowed(name, cfg):
            deny("env_get_or", name)
        return os.environ.get(name, default)

    def cli_args() -> list:
        if not _env_allowed("GENO_CLI_ARGS", cfg):
            deny("cli_args", "GENO_CLI_ARGS")
        return []

    return {"env_get": env_get, "env_get_or": env_get_or, "cli_args": cli_args}


def _emit(cfg: RunConfig, result: RunResult) -> RunResult:
    """Give the monitoring hook its RunMetrics; a failing hook never changes the result."""
    if cfg.monitoring_hook is not None:
        try:
            cfg.monitoring_hook(RunMetrics.from_run_result(result))
        except Exception as exc:  # the reference warns and carries on
            import warnings

            warnings.warn(f"RunConfig.monitoring_hook raised {exc.__class__.__name__}: {exc}",
                          RuntimeWarning, stacklevel=3)
    return result


def _run_result(raw: Any) -> RunResult:
    ok = raw.ok
    result = RunResult(
        ok=ok,
        value=json.loads(raw.value_json) if ok else None,
        value_raw=raw.value_raw() if ok else None,
        output=raw.output,
        diagnostics=[_from_c(t) for t in raw.diagnostics],
        timing=Timing(*raw.timing),
        steps_used=raw.steps_used,
    )
    result._raw = raw  # type: ignore[attr-defined]  # for RuntimeMetricsCollector
    return result


def _failed(cfg: RunConfig, diagnostics: list[Diagnostic], total_ms: float = 0.0) -> RunResult:
    return _emit(cfg, RunResult(ok=False, diagnostics=diagnostics, timing=Timing(total_ms=total_ms)))


def _execute(source: str, filename: str, cfg: RunConfig, sandbox: SandboxConfig | None) -> RunResult:
    _validate(cfg)
    modules = tuple((cfg.modules or {}).items())
    if cfg.target is not None:  # the target's rules first, as a check
        pre = _geno.check(source, filename, modules, (cfg.target,))
        if not pre.ok:
            return _failed(cfg, [_from_c(t) for t in pre.diagnostics], pre.timing[0])
    caps = 0
    for name in cfg.capabilities or ():
        caps |= _geno.CAPABILITIES[name]
    callbacks: dict[str, Callable] = {}
    if "env" in (cfg.capabilities or ()) and (cfg.env_allowed_names is not None
                                              or cfg.env_allowed_prefixes is not None):
        callbacks.update(_env_policy_callbacks(cfg))
    callbacks.update(cfg.host_callbacks or {})
    isolated = sandbox is not None
    memory = 256 << 20
    cpu = 0.0
    if isolated:
        memory = 0 if sandbox.max_memory_bytes is None else min(sandbox.max_memory_bytes, _U64)
        cpu = 0.0 if sandbox.max_cpu_time is None else float(sandbox.max_cpu_time)
    raw = _geno.run(
        source, filename,
        0.0 if cfg.timeout is None else float(cfg.timeout),
        0 if cfg.max_steps is None else min(cfg.max_steps, _U64),
        min(cfg.max_recursion_depth, _U32),
        min(cfg.max_output_length, _U64),
        min(cfg.max_collection_size, _U64),
        min(cfg.max_integer_bits, _U32),
        caps, tuple(callbacks.items()), modules, cfg.check_examples,
        isolated, memory, cpu,
    )
    return _emit(cfg, _run_result(raw))


def _config_arg(filename: Any, config: Any) -> tuple[str, RunConfig]:
    if isinstance(filename, RunConfig):  # run(source, RunConfig(...)), kept by the reference
        if config is not None:
            raise TypeError("run() received RunConfig both positionally and via config=")
        filename, config = "<api>", filename
    filename = _str_arg(filename, "filename")
    if config is None:
        config = RunConfig()
    elif not isinstance(config, RunConfig):
        raise TypeError(f"config must be a RunConfig, not {type(config).__name__}")
    return filename, config


def run(source: str, filename: Union[str, RunConfig] = "<api>", config: RunConfig | None = None) -> RunResult:
    """Check and run a Geno program in this process; return main's value, output and diagnostics.

    Limits are cooperative (steps, deadline, sizes); use :func:`run_isolated`
    for hard limits in a separate process. Never raises for a bad program:
    errors come back as ``diagnostics`` with ``ok`` False.
    """
    fname, cfg = _config_arg(filename, config)
    return _execute(_str_arg(source, "source"), fname, cfg, None)


def run_isolated(source: str, config: RunConfig | None = None, sandbox: SandboxConfig | None = None,
                 filename: str = "<api>") -> RunResult:
    """As :func:`run`, in geno-c's sandboxed child process (seccomp, rlimits, a kill at the deadline).

    Memory, CPU and wall clock are hard limits (``sandbox`` and
    ``config.timeout``). Host callbacks still run here, in this process,
    when the program calls them. A program that exhausts a limit ends with
    its diagnostic (E501, E504 ...) and keeps the output printed so far.
    """
    fname, cfg = _config_arg(filename, config)
    if sandbox is None:
        sandbox = SandboxConfig()
    elif not isinstance(sandbox, SandboxConfig):
        raise TypeError(f"sandbox must be a SandboxConfig, not {type(sandbox).__name__}")
    return _execute(_str_arg(source, "source"), fname, cfg, sandbox)


def check(source: str, filename: str = "<api>", modules: dict[str, str] | None = None,
          target: str | None = None) -> CheckResult:
    """Parse and type-check a program (and its ``modules``) without running it."""
    _str_arg(source, "source")
    _str_arg(filename, "filename")
    if modules is not None and (not isinstance(modules, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in modules.items())):
        raise TypeError("modules must map str module names to str sources")
    if target is not None and not isinstance(target, str):
        raise TypeError("target must be a str or None")
    return _check(source, filename, modules, [target] if target else [])


def _check(source: str, filename: str, modules: Mapping[str, str] | None, targets: list[str]) -> CheckResult:
    raw = _geno.check(source, filename, tuple((modules or {}).items()), tuple(targets))
    return CheckResult(ok=raw.ok, diagnostics=[_from_c(t) for t in raw.diagnostics], timing=Timing(*raw.timing))


# ---------------------------------------------------------------------------
# Files and projects
# ---------------------------------------------------------------------------

class _ProjectError(Exception):
    pass


# Larger files are refused before they are read whole (the library's own
# per-module limit, 1 MiB by default, is lower; this only bounds the read).
_MAX_FILE_BYTES = 64 << 20


def _read(path: str) -> str:
    """A source file's text. A device, FIFO or socket is no program (reading
    /dev/zero never ends, opening a FIFO waits for a writer), as in the CLI."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise _ProjectError(f"Cannot read {path}: not a regular file")
        with open(path, "rb") as f:
            data = f.read(_MAX_FILE_BYTES + 1)
        if len(data) > _MAX_FILE_BYTES:
            raise _ProjectError(f"Cannot read {path}: larger than {_MAX_FILE_BYTES} bytes")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _ProjectError(f"Cannot read {path}: {exc}") from None


def _manifest(directory: str) -> tuple[str, dict] | None:
    """The nearest geno.toml at or above ``directory``: (its directory, its table)."""
    d = os.path.abspath(directory)
    while True:
        candidate = os.path.join(d, "geno.toml")
        if os.path.isfile(candidate):
            try:
                import tomllib
            except ImportError:  # Python 3.10: no manifest support
                return None
            try:
                with open(candidate, "rb") as f:
                    return d, tomllib.load(f)
            except (OSError, ValueError) as exc:
                raise _ProjectError(f"Invalid manifest {candidate}: {exc}") from None
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _load(path: Any, overlay: Mapping[str, str] | None, target: str | None):
    """(entry filename, its source, modules, targets) for a file or project directory.

    Imports are read from ``Name.geno`` beside the entry file (transitively);
    ``overlay`` modules win; targets come from ``target`` or the nearest
    geno.toml.
    """
    path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError("path must be a str or os.PathLike")
    found = None
    if os.path.isdir(path):
        found = _manifest(path) if os.path.isfile(os.path.join(path, "geno.toml")) else None
        entry = (found[1].get("entrypoint") if found else None) or "Main"
        if not isinstance(entry, str):
            raise _ProjectError(f"Invalid manifest in {path}: entrypoint must be a string")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.geno)?", entry):
            # a path ("../x/Secret", "/etc/x") would leave the project, as the CLI refuses
            raise _ProjectError(f"Invalid manifest in {path}: entrypoint {entry!r} must be a module name, "
                                "e.g. entrypoint = \"Main\"")
        path = os.path.join(path, entry if entry.endswith(".geno") else entry + ".geno")
    source = _read(path)
    directory = os.path.dirname(os.path.abspath(path))
    modules = dict(overlay or {})
    pending = list(_geno.source_imports(source) or [])
    seen = set(modules)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        candidate = os.path.join(directory, name + ".geno")
        if os.path.isfile(candidate):  # otherwise a std module, or the checker reports it
            real = os.path.realpath(candidate)
            if os.path.dirname(real) != os.path.realpath(directory):
                # a link out of the program's folder is not followed, as in the CLI
                raise _ProjectError(f"Module '{name}': '{name}.geno' resolves to {real}, "
                                    f"outside the program's folder {os.path.realpath(directory)}")
            modules[name] = _read(candidate)
            pending.extend(_geno.source_imports(modules[name]) or [])
    if target is not None:
        targets = [target]
    else:
        found = found or _manifest(directory)
        listed = found[1].get("targets", []) if found else []
        if not isinstance(listed, list) or not all(isinstance(t, str) for t in listed):
            raise _ProjectError("Invalid manifest: targets must be a list of strings")
        targets = listed
    return path, source, modules, targets


def run_path(path: str, config: RunConfig | None = None) -> RunResult:
    """Load a Geno file (or a project directory's entrypoint) and its imports from disk, then run it.

    ``config.modules`` override modules found on disk. With several targets
    in geno.toml, the program is checked against each and runs under the first.
    """
    _, cfg = _config_arg("<api>", config)
    try:
        filename, source, modules, targets = _load(path, cfg.modules, cfg.target)
    except _ProjectError as exc:
        return _failed(cfg, [Diagnostic(ErrorCode.PROJECT_RESOLUTION_ERROR, str(exc), Severity.ERROR)])
    if len(targets) > 1:
        checked = _check(source, filename, modules, targets)
        if not checked.ok:
            return _failed(cfg, checked.diagnostics, checked.timing.total_ms)
    from dataclasses import replace

    run_cfg = replace(cfg, modules=modules, target=targets[0] if targets else None)
    result = _execute(source, filename, run_cfg, None)
    result.diagnostics = _disk_module_names(result.diagnostics, modules, cfg.modules)
    return result


def check_path(path: str, modules: dict[str, str] | None = None, target: str | None = None) -> CheckResult:
    """Load a Geno file (or a project directory's entrypoint) and its imports from disk, then check it."""
    try:
        filename, source, found, targets = _load(path, modules, target)
    except _ProjectError as exc:
        return CheckResult(ok=False, diagnostics=[Diagnostic(ErrorCode.PROJECT_RESOLUTION_ERROR, str(exc),
                                                             Severity.ERROR)])
    result = _check(source, filename, found, targets)
    result.diagnostics = _disk_module_names(result.diagnostics, found, modules)
    return result


def _disk_module_names(diagnostics: list[Diagnostic], modules: Mapping[str, str],
                       overlay: Mapping[str, str] | None) -> list[Diagnostic]:
    """Diagnostics in a module read from disk name its file (``Name.geno``);
    the library names every module given as text ``<module:Name>``, which
    an overlay module keeps, as in the reference."""
    from dataclasses import replace

    out = []
    for d in diagnostics:
        loc = d.location
        if loc is not None and loc.filename.startswith("<module:") and loc.filename.endswith(">"):
            name = loc.filename[len("<module:"):-1]
            if name in modules and name not in (overlay or {}):
                d = replace(d, location=replace(loc, filename=name + ".geno"))
        out.append(d)
    return out
