"""Geno, the statically typed language for LLM-written code, on geno-c's C runtime.

The reference's embedding API (geno-lang 0.4.3), unchanged for its users::

    import geno

    result = geno.run('''
    func main() -> Int
        return 42
    end func
    ''')
    assert result.ok and result.value == 42

Names: :func:`run`, :func:`check`, :func:`run_path`, :func:`check_path`,
:class:`RunConfig`, :class:`RunResult`, :class:`CheckResult`, :class:`Timing`,
:class:`Diagnostic`, :class:`ErrorCode`, :class:`Severity`, the monitoring
classes (:class:`RuntimeMetricsCollector` ...), and geno-c's additions
:func:`run_isolated` with :class:`SandboxConfig`; :func:`constrain_prefix` and
:func:`validate_prefix` for constrained decoding, with :class:`Session` and
:class:`Vocabulary` for exact token masks.
"""
from . import _geno
from .values import (ArrayValue, ConstructorValue, FunctionValue, MutableMapValue, OpaqueValue, SetValue,
                     VecValue)

_geno.register_types(ConstructorValue, ArrayValue, VecValue, SetValue, MutableMapValue, FunctionValue,
                     OpaqueValue)

from .api import (CheckResult, RunConfig, RunResult, SandboxConfig, Timing, check, check_path,  # noqa: E402
                  run, run_isolated, run_path)
from .constraints import AllowedNext, ConstraintResult, Session, Vocabulary, constrain_prefix, validate_prefix  # noqa: E402
from .diagnostics import Diagnostic, ErrorCode, Severity  # noqa: E402
from .monitoring import (BenchmarkValidationState, BuildInfo, HealthCheck, HealthReport,  # noqa: E402
                         MetricsSnapshot, RunMetrics, RunOutcome, RuntimeMetricsCollector)
from .tokens import SourceLocation  # noqa: E402

__version__ = _geno.LIBRARY_VERSION
"""This package's version (that of libgeno)."""
LANGUAGE_VERSION = _geno.LANGUAGE_VERSION
"""The Geno language version implemented (the reference geno-lang 0.4.3's)."""

# The error-code constants, also as module attributes: geno.E412 == "E412".
globals().update({code.value: code.value for code in ErrorCode})

__all__ = [
    "__version__", "LANGUAGE_VERSION",
    "run", "run_path", "check", "check_path", "run_isolated", "constrain_prefix", "validate_prefix",
    "ConstraintResult", "AllowedNext", "Session", "Vocabulary",
    "RunConfig", "SandboxConfig", "RunResult", "CheckResult", "Timing",
    "Diagnostic", "ErrorCode", "Severity", "SourceLocation",
    "BenchmarkValidationState", "BuildInfo", "HealthCheck", "HealthReport", "MetricsSnapshot",
    "RunMetrics", "RunOutcome", "RuntimeMetricsCollector",
    "ConstructorValue", "ArrayValue", "VecValue", "SetValue", "MutableMapValue", "FunctionValue", "OpaqueValue",
]
