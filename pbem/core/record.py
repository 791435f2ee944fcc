"""`Record`: the base of pbem's fixed records (pbem/core/__init__.py), a `typing.NamedTuple`
built without `typing`.

    class Place(Record):
        name: str
        hexes: tuple[str, ...]
        points: int = 0

reads as a `typing.NamedTuple` declaration, and a type checker takes it for one (the
`TYPE_CHECKING` branch below). At run time `_Declared` builds the class as `typing` builds a
named tuple's: `collections.namedtuple` of the annotated fields, in order, with the defaults
given, then the class body's methods and docstring. It does not check each annotation as
`typing` does: every pbem module reads its annotations as strings (`from __future__ import
annotations`), and `typing` compiles each string into a `ForwardRef` that nothing at run time
reads. For the 11 records a busy chir `pbem adjudicate` builds, that was 19 million
instructions, half of what a bare interpreter's start-up takes (38 million). The annotations
stay on the class as written.

pbem's modules name `typing`'s types for type checkers only, under `TYPE_CHECKING = False`
(which type checkers read as true). So a command that checks no signature (status, show or
render of a sandbox game, or its adjudication) never imports `typing`, another 13 million
instructions. `cryptography`, which checks a signed game's signatures, imports it itself."""

from __future__ import annotations

import collections

TYPE_CHECKING = False

# what `typing.NamedTuple` refuses to take from a class body, and what it never copies
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                         "_make", "_replace", "_asdict", "_source"})
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})


class _Declared(type):
    """The metaclass of `Record`: a class declared on it is a `collections.namedtuple`."""

    def __new__(mcls, name: str, bases: tuple, namespace: dict):
        if not bases:                        # Record itself
            return super().__new__(mcls, name, bases, namespace)
        if bases != (Record,):
            raise TypeError(f"record {name}: a record derives from Record alone")
        fields = namespace.get("__annotations__", {})
        defaulted: list[str] = []
        for field in fields:
            if field in namespace:
                defaulted.append(field)
            elif defaulted:
                raise TypeError(f"record {name}: field {field} has no default but follows {', '.join(defaulted)}, "
                                "which have one")
        record = collections.namedtuple(name, fields, defaults=[namespace[f] for f in defaulted],
                                        module=namespace["__module__"])
        record.__annotations__ = record.__new__.__annotations__ = dict(fields)
        for key, value in namespace.items():
            if key in _PROHIBITED:
                raise AttributeError(f"record {name}: {key} is the named tuple's own")
            if key not in _SPECIAL and key not in fields:
                setattr(record, key, value)
        return record


if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    class Record(metaclass=_Declared):
        """Derive a record from this class; the class derived is a named tuple, not a Record."""
