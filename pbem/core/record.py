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
annotations`, which a record's module needs: a class body then holds its `__annotations__` on
every Python version), and `typing` compiles each string into a `ForwardRef` that nothing at
run time reads. The annotations stay on the class as written.

pbem's modules name `typing`'s types for type checkers only, under `TYPE_CHECKING = False`
(which type checkers read as true). So the commands that `pbem.entry` runs without click
(`adjudicate`, `audit`, `status` and `show` without options) never import `typing`, in a
sandbox game or a signed one: a signature is checked with `cryptography`'s compiled binding
alone (pbem/core/keys.py), whose public modules import `typing`, as click does.

Measured with callgrind on an installed pbem, where `python -c pass` runs 38 million
instructions: a busy chir `pbem adjudicate` of a sandbox game ran 381 million with
`typing.NamedTuple`, 362 million with these records, and 349 million without importing
`typing` at all."""

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
        # no annotations: none written, or (Python 3.14, without the future import) left to be
        # worked out later, which would make a record of no fields
        fields = namespace.get("__annotations__")
        if not fields:
            raise TypeError(f"record {name}: no annotated field (a record's module begins with "
                            "`from __future__ import annotations`)")
        defaulted: list[str] = []
        for field in fields:
            if field in namespace:
                defaulted.append(field)
            elif defaulted:
                have = "which have one" if len(defaulted) > 1 else "which has one"
                raise TypeError(f"record {name}: field {field} has no default but follows "
                                f"{', '.join(defaulted)}, {have}")
        record = collections.namedtuple(name, fields, defaults=[namespace[f] for f in defaulted],
                                        module=namespace["__module__"])
        record.__annotations__ = record.__new__.__annotations__ = dict(fields)
        for key, value in namespace.items():
            if key in _PROHIBITED:
                raise AttributeError(f"record {name}: {key} is the named tuple's own")
            if key not in _SPECIAL and key not in fields:
                setattr(record, key, value)
                # what type() does for a class body's attributes, and typing too from Python 3.13
                set_name = getattr(type(value), "__set_name__", None)
                if set_name is not None:
                    set_name(value, record, key)
        return record


if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    class Record(metaclass=_Declared):
        """Derive a record from this class; the class derived is a named tuple, not a Record."""
