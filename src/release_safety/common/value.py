"""A value class: fields named once (`FIELDS`), equal when of the same class with equal
fields, shown as a dataclass shows itself, copied with some fields changed (`replace`).

Written out rather than `dataclasses` (whose import brings `inspect`, `ast` and `dis`: a
third of a one-file lint's start) or `typing.NamedTuple` (a ForwardRef per field). The
subclass writes its `__init__` and declares `FIELDS`, in the order `__init__` takes them;
`HashableValue` adds the hash (a value that changes in place, as a schema's table, stays
unhashable). Compiled with the lint (setup.py's HOT): a compiled class may only inherit from
a compiled one, and the modules left interpreted subclass it too.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import ClassVar, TypeVar

    from mypy_extensions import mypyc_attr

    # (at run time a bound named by a string is a ForwardRef, compiled: the ast module built)
    V = TypeVar("V", bound="Value")


def _as_is(cls: type[Value]) -> type[Value]:
    return cls


def _no_attributes(**_flags: object) -> Callable[[type[Value]], type[Value]]:
    return _as_is


# Nothing imports mypy_extensions at run time: compiled, mypyc reads `mypyc_attr` and never
# calls it; interpreted, it is this no-op (set where mypy, which reads the import, looks not).
globals().setdefault("mypyc_attr", _no_attributes)


@mypyc_attr(allow_interpreted_subclasses=True)
class Value:
    """Equal by fields, shown by fields, copied with `replace`; unhashable."""

    FIELDS: ClassVar[tuple[str, ...]] = ()
    """The fields, in the order `__init__` takes them (and `repr` shows them)."""

    def field_values(self) -> tuple[object, ...]:
        """The fields' values, in `FIELDS` order."""
        return tuple([getattr(self, name) for name in self.FIELDS])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Value)
        return self.field_values() == other.field_values()

    def __repr__(self) -> str:
        shown = ", ".join([f"{name}={getattr(self, name)!r}" for name in self.FIELDS])
        return f"{self.__class__.__qualname__}({shown})"

    def replace(self: V, **changes: object) -> V:
        """This value with the fields named changed (`dataclasses.replace`)."""
        fields = {name: getattr(self, name) for name in self.FIELDS}
        fields.update(changes)
        return self.__class__(**fields)

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as its class and attributes, set again on a new instance (`restored`): compiled,
        the base's own state holds none of an interpreted subclass's attributes. A compiled
        class (no `__dict__`, read-only attributes) is built again from its fields."""
        held = getattr(self, "__dict__", None)
        if held is None:
            return (self.__class__, self.field_values())
        return (restored, (self.__class__, dict(held)))


def restored(cls: type[V], attributes: dict[str, object]) -> V:
    """An instance of `cls` holding `attributes` (`Value.__reduce__`), set past any `__setattr__`
    that refuses changes."""
    value = cls.__new__(cls)
    for name, held in attributes.items():
        object.__setattr__(value, name, held)
    return value


@mypyc_attr(allow_interpreted_subclasses=True)
class HashableValue(Value):
    """A `Value` that is hashable (by its fields): one that is never changed in place."""

    def __hash__(self) -> int:
        return hash(self.field_values())
