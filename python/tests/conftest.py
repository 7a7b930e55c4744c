"""Shared helpers for the geno package's tests (they import the installed package)."""
import textwrap

import pytest


def prog(text: str) -> str:
    """A Geno program from an indented triple-quoted block."""
    return textwrap.dedent(text).lstrip("\n")


@pytest.fixture
def codes():
    """codes(result) -> the diagnostic code strings of a result."""
    return lambda result: [d.code.value for d in result.diagnostics]
