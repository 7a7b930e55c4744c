"""Constrained decoding: what may follow a partial program.

:func:`constrain_prefix` is the reference's interface. The answer comes
from libgeno's prefix recognizer, which is exact: a prefix is valid when
some continuation parses, wherever it stops (inside a string, a name, an
operator ...). ``allowed_next`` is the reference's coarse category guess,
in its shape.

:class:`Session` and :class:`Vocabulary` are for decoding under the
constraint: a session reads the model's output as it comes (each feed
costs time proportional to the bytes fed), and :meth:`Session.mask` gives
the exact set of a vocabulary's tokens that keep the text valid.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Union

from . import _geno

__all__ = ["AllowedNext", "ConstraintResult", "MAX_TEXT_BYTES", "Session", "Vocabulary", "constrain_prefix",
           "validate_prefix"]

#: Longest text (UTF-8 bytes) a prefix or a session may hold: libgeno's
#: GENO_CONSTRAIN_MAX_BYTES, the default per-module source limit of
#: :func:`geno.run` and :func:`geno.check` (``max_source_bytes``). A longer
#: prefix is answered as not valid with an error giving its size and the
#: limit, without being read; a session refuses the bytes that would pass it.
MAX_TEXT_BYTES = 1 << 20


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
    """Whether ``prefix`` can still become a program that parses, and what may come next.

    A prefix over :data:`MAX_TEXT_BYTES` (UTF-8) is not valid: its ``error``
    says "Prefix is N bytes; the limit is 1048576 bytes".
    """
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


def _as_bytes(data: Union[str, bytes, bytearray, memoryview], what: str) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"{what} must be str or bytes, not {type(data).__name__}")


class Vocabulary:
    """A model's vocabulary: token ``i`` is ``tokens[i]`` (bytes; a str is taken as its UTF-8).

    Built once (a trie and per-mode tables; about a second for 200,000
    tokens), immutable, and shareable between sessions and threads.
    """

    __slots__ = ("_v", "_n")

    def __init__(self, tokens: Iterable[Union[str, bytes]]):
        items = [_as_bytes(t, "a token") for t in tokens]
        self._v = _geno.ConstrainVocab(items)
        self._n = len(items)

    def __len__(self) -> int:
        return self._n


class Session:
    """An incremental constrained-decoding session over a growing text.

    ``feed`` appends bytes (or a str as UTF-8; a text may stop inside a
    character, a string, a name ...) and says whether the text is still
    valid: some continuation makes a program that parses. Once invalid, a
    session stays invalid. ``complete`` says whether the text parses as it
    is: end of text is allowed exactly then. One thread at a time. A text
    holds at most :data:`MAX_TEXT_BYTES`: a feed past it makes the session
    invalid (``error`` says so), and masks leave out the tokens that would.
    """

    __slots__ = ("_s",)

    def __init__(self, text: Union[str, bytes] = ""):
        self._s = _geno.ConstrainSession()
        if text:
            self.feed(text)

    def feed(self, data: Union[str, bytes]) -> bool:
        """Append ``data``; whether the text is still valid."""
        return self._s.feed(_as_bytes(data, "data"))

    @property
    def state(self) -> str:
        """``"invalid"``, ``"valid"`` or ``"complete"`` (valid, and parses as it is)."""
        return ("invalid", "valid", "complete")[self._s.state()]

    @property
    def valid(self) -> bool:
        """Some continuation makes a program that parses."""
        return self._s.state() != 0

    @property
    def complete(self) -> bool:
        """The text parses as it is (end of text is allowed)."""
        return self._s.state() == 2

    @property
    def error(self) -> str | None:
        """Why the text became invalid, or None while it is valid."""
        return self._s.error()

    def clone(self) -> "Session":
        """An independent copy (to try a continuation)."""
        c = Session.__new__(Session)
        c._s = self._s.clone()
        return c

    def mask(self, vocab: Vocabulary) -> bytes:
        """The tokens of ``vocab`` whose bytes, appended now, keep the text valid.

        A bitset: token ``i`` is bit ``i % 8`` of byte ``i // 8`` (with numpy:
        ``numpy.unpackbits(numpy.frombuffer(m, numpy.uint8), bitorder="little")[:len(vocab)]``).
        Exact: a token is set iff feeding it keeps :attr:`valid`.
        """
        if not isinstance(vocab, Vocabulary):
            raise TypeError(f"vocab must be a Vocabulary, not {type(vocab).__name__}")
        return self._s.mask(vocab._v)

    def allowed(self, vocab: Vocabulary) -> list[int]:
        """The ids of the tokens in :meth:`mask`, ascending."""
        m = self.mask(vocab)
        return [i for i in range(len(vocab)) if m[i >> 3] >> (i & 7) & 1]
