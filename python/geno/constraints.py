"""Constrained decoding: what may follow a partial program (the reference's ``constrain_prefix``).

The answer comes from libgeno's prefix recognizer, which is exact: a prefix
is valid when some continuation parses, wherever it stops (inside a string,
a name, an operator ...). ``allowed_next`` is the reference's coarse
category guess, in its shape.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from . import _geno

__all__ = ["AllowedNext", "ConstraintResult", "constrain_prefix", "validate_prefix"]


@dataclass
class AllowedNext:
    """Token categories that may come next, and the blocks still open (innermost first)."""

    keywords: list[str] = field(default_factory=list)
    allow_identifier: bool = False
    allow_type_identifier: bool = False
    allow_int: bool = False
    allow_float: bool = False
    allow_string: bool = False
    allow_bool: bool = False
    allow_punct: list[str] = field(default_factory=list)
    expected_end_stack: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        text = getattr(self, "_text", None)
        return text if text is not None else (
            f"AllowedNext(keywords={self.keywords}, punct={self.allow_punct}, "
            f"need_to_close={self.expected_end_stack})")


@dataclass(frozen=True)
class ConstraintResult:
    """What :func:`constrain_prefix` returns."""

    allowed_next: AllowedNext
    valid: bool
    error: str | None = None
    unclosed_blocks: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """``{"valid", "error", "unclosed_blocks", "allowed_next"}``, JSON-ready."""
        return {"valid": self.valid, "error": self.error, "unclosed_blocks": list(self.unclosed_blocks),
                "allowed_next": asdict(self.allowed_next)}


def constrain_prefix(prefix: str) -> ConstraintResult:
    """Whether ``prefix`` can still become a program that parses, and what may come next."""
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str, not {type(prefix).__name__}")
    text, shown = _geno.constrain_prefix(prefix)
    d = json.loads(text)
    allowed = AllowedNext(**d["allowed_next"])
    object.__setattr__(allowed, "_text", shown)
    return ConstraintResult(allowed, d["valid"], d["error"], tuple(d["unclosed_blocks"]))


def validate_prefix(prefix: str) -> tuple[bool, str | None]:
    """``(is_valid, error_message)`` for a partial program."""
    r = constrain_prefix(prefix)
    return r.valid, r.error
