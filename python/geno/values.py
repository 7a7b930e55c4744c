"""Python forms of Geno values, as the reference's interpreter gives them.

``RunResult.value_raw`` and host-callback arguments use plain Python values
where one fits (int, float, str, bool, list, tuple, dict, None for Unit)
and the classes below otherwise. Host callbacks return the same forms:
``ConstructorValue("Some", {"value": 3})`` for ``Some(3)``, and the
shorthands :func:`some`, :data:`NONE`, :func:`ok` and :func:`err`.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Iterable, Mapping

__all__ = [
    "ConstructorValue", "ArrayValue", "VecValue", "SetValue", "MutableMapValue",
    "FunctionValue", "OpaqueValue", "some", "ok", "err", "NONE",
]


class ConstructorValue:
    """A value built by a constructor: ``Some(3)``, ``Circle(radius: 1.0)``, ``Red``.

    ``constructor`` is its name and ``fields`` a read-only mapping of field
    name to value, in declaration order. Immutable; equal when name and
    fields are equal.
    """

    __slots__ = ("_fields", "constructor")

    def __init__(self, constructor: str, fields: Mapping[str, Any] | None = None) -> None:
        if not isinstance(constructor, str):
            raise TypeError("ConstructorValue needs a constructor name (str)")
        object.__setattr__(self, "constructor", constructor)
        object.__setattr__(self, "_fields", MappingProxyType(dict(fields or {})))

    @property
    def fields(self) -> Mapping[str, Any]:
        """Field name to value (read-only)."""
        return self._fields

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ConstructorValue is immutable; cannot set '{name}'")

    def __repr__(self) -> str:
        if not self._fields:
            return self.constructor
        inner = ", ".join(f"{k}: {v!r}" for k, v in self._fields.items())
        return f"{self.constructor}({inner})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConstructorValue) and self.constructor == other.constructor
                and dict(self._fields) == dict(other._fields))

    def __hash__(self) -> int:
        try:
            return hash((self.constructor, tuple(sorted(self._fields.items()))))
        except TypeError:
            raise TypeError(f"unhashable type: '{self.constructor}' holds mutable fields") from None


def some(value: Any) -> ConstructorValue:
    """``Some(value)``."""
    return ConstructorValue("Some", {"value": value})


def ok(value: Any) -> ConstructorValue:
    """``Ok(value)``."""
    return ConstructorValue("Ok", {"value": value})


def err(error: Any) -> ConstructorValue:
    """``Err(error)``."""
    return ConstructorValue("Err", {"error": error})


NONE = ConstructorValue("None")
"""``None``, Option's empty case (Python's None is Geno's Unit)."""


class _Shared:
    """Base of the mutable, shared-reference containers (Array, Vec, Set, MutableMap)."""

    __slots__ = ()
    _label = ""
    _attr = "_elements"

    def __len__(self) -> int:
        return len(getattr(self, self._attr))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and getattr(self, self._attr) == getattr(other, self._attr)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{self._label}({getattr(self, self._attr)!r})"


class ArrayValue(_Shared):
    """A Geno ``Array`` (fixed size, mutable); elements in ``_elements``."""

    __slots__ = ("_elements",)
    _label = "Array"

    def __init__(self, elements: Iterable[Any] = ()) -> None:
        self._elements = list(elements)

    def __getitem__(self, index: int) -> Any:
        return self._elements[index]


class VecValue(_Shared):
    """A Geno ``Vec`` (growable); elements in ``_elements``."""

    __slots__ = ("_elements",)
    _label = "Vec"

    def __init__(self, elements: Iterable[Any] = ()) -> None:
        self._elements = list(elements)


class SetValue(_Shared):
    """A Geno ``Set``; members in ``_data`` (a Python set)."""

    __slots__ = ("_data",)
    _label = "Set"
    _attr = "_data"

    def __init__(self, members: Iterable[Any] = ()) -> None:
        self._data = set(members)


class MutableMapValue(_Shared):
    """A Geno ``MutableMap``; entries in ``_data`` (a dict, insertion order)."""

    __slots__ = ("_data",)
    _label = "MutableMap"
    _attr = "_data"

    def __init__(self, data: Mapping[Any, Any] | None = None) -> None:
        self._data = dict(data or {})


class FunctionValue:
    """A Geno function value; only its name can be read."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<function {self.name}>"


class OpaqueValue:
    """A value with no Python form (an async handle ...); ``text`` is how Geno shows it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text
