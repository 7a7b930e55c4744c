"""Source locations of diagnostics (the reference's ``geno.tokens.SourceLocation``)."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SourceLocation"]


@dataclass(frozen=True)
class SourceLocation:
    """Where a diagnostic points: 1-based ``line`` and ``column`` (in code points) in ``filename``."""

    line: int
    column: int
    filename: str = "<unknown>"

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"
