"""Error codes and structured diagnostics (the reference's ``geno.diagnostics``).

Every diagnostic carries an :class:`ErrorCode` whose value is the stable
code string (``"E412"``); tools match on it instead of parsing messages.
E1xx lexer, E2xx parser and project, E3xx types and effects, E4xx runtime,
E5xx sandbox limits.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, auto

from .tokens import SourceLocation

__all__ = ["Severity", "ErrorCode", "Diagnostic"]


class Severity(Enum):
    """How serious a diagnostic is."""

    ERROR = auto()
    WARNING = auto()
    INFO = auto()


class ErrorCode(Enum):
    """The stable diagnostic codes; ``.value`` is the code string."""

    LEX_UNEXPECTED_CHAR = "E100"
    LEX_UNTERMINATED_STRING = "E101"
    LEX_UNTERMINATED_COMMENT = "E102"
    LEX_INVALID_ESCAPE = "E103"
    PARSE_UNEXPECTED_TOKEN = "E200"
    PARSE_EXPECTED_TOKEN = "E201"
    PARSE_INVALID_SYNTAX = "E202"
    PARSE_RECOVERY = "E203"
    PROJECT_RESOLUTION_ERROR = "E204"
    TYPE_MISMATCH = "E300"
    TYPE_UNDEFINED_VAR = "E301"
    TYPE_UNDEFINED_FUNC = "E302"
    TYPE_UNDEFINED_TYPE = "E303"
    TYPE_WRONG_ARITY = "E304"
    TYPE_NOT_CALLABLE = "E305"
    TYPE_IMMUTABLE_ASSIGN = "E306"
    TYPE_UNKNOWN_FIELD = "E307"
    TYPE_PATTERN_MISMATCH = "E308"
    TYPE_DUPLICATE_DEFINITION = "E309"
    EFFECT_VIOLATION = "E310"
    EFFECT_UNKNOWN = "E311"
    EFFECT_MISMATCH = "E312"
    RUNTIME_DIVISION_BY_ZERO = "E400"
    RUNTIME_INDEX_OUT_OF_BOUNDS = "E401"
    RUNTIME_KEY_NOT_FOUND = "E402"
    RUNTIME_UNDEFINED_VAR = "E403"
    RUNTIME_WRONG_ARITY = "E404"
    RUNTIME_NOT_CALLABLE = "E405"
    RUNTIME_NO_MATCH = "E406"
    RUNTIME_PRECONDITION_FAILED = "E407"
    RUNTIME_POSTCONDITION_FAILED = "E408"
    RUNTIME_EXAMPLE_FAILED = "E409"
    RUNTIME_TYPE_ERROR = "E410"
    RUNTIME_UNFILLED_HOLE = "E411"
    RUNTIME_CAPABILITY_DENIED = "E412"
    RUNTIME_HOST_CALLBACK_MISSING = "E413"
    RUNTIME_UNKNOWN = "E499"
    SANDBOX_SECURITY_VIOLATION = "E500"
    SANDBOX_TIMEOUT = "E501"
    SANDBOX_RECURSION_LIMIT = "E502"
    SANDBOX_STEP_LIMIT = "E503"
    SANDBOX_RESOURCE_LIMIT = "E504"
    SANDBOX_OUTPUT_LIMIT = "E505"


@dataclass(frozen=True)
class Diagnostic:
    """One error or warning: ``code``, ``message``, ``severity`` and, when it
    points into source, ``location``."""

    code: ErrorCode
    message: str
    severity: Severity
    location: SourceLocation | None = None

    def __str__(self) -> str:
        parts = [f"[{self.code.value}]"]
        if self.location:
            parts.append(str(self.location))
        parts.append(self.message)
        return " ".join(parts)

    def to_dict(self) -> dict:
        """The JSON form: code, message, severity and, if any, location."""
        d: dict = {"code": self.code.value, "message": self.message, "severity": self.severity.name.lower()}
        if self.location:
            d["location"] = {"line": self.location.line, "column": self.location.column,
                             "filename": self.location.filename}
        return d


_CODES = {c.value: c for c in ErrorCode}
_SEVERITIES = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO}


def _from_c(t: tuple) -> Diagnostic:
    """A Diagnostic from the extension's (code, message, severity, filename, line, column, ...)."""
    code, message, severity, filename, line, column = t[:6]
    known = _CODES.get(code)
    if known is None:  # a code this table lacks keeps its text in the message
        known, message = ErrorCode.RUNTIME_UNKNOWN, f"[{code}] {message}"
    loc = SourceLocation(line, column, filename or "<unknown>") if line > 0 else None
    return Diagnostic(known, message, _SEVERITIES.get(severity, Severity.ERROR), loc)
