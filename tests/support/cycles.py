"""Finding reference cycles of pbem's (tests/test_cycles.py, tests/test_conformance.py).

pbem makes none, so that its objects are freed by reference counting as soon as they are let
go and the command line can let the garbage collector wait for a million new objects
(pbem/entry.py). A recursive closure (a function calling itself through its enclosing scope)
or an object kept by what it keeps is such a cycle."""

from __future__ import annotations

import contextlib
import gc
import importlib
import pkgutil
from typing import Iterator

import pbem


def import_all() -> None:
    """Every pbem module, imported: making a class is a cycle of Python's own (a class and
    its methods), which the first import of a module would otherwise add to what is found."""
    for module in pkgutil.walk_packages(pbem.__path__, "pbem."):
        if not module.name.endswith("__main__"):   # `python -m` runs those
            importlib.import_module(module.name)


def pbems(thing: object) -> bool:
    """An object of pbem's: a function or class it defines, an instance of one, a frame of its code."""
    if type(thing).__name__ == "frame":
        return "/pbem/" in thing.f_code.co_filename.replace("\\", "/")
    owner = getattr(thing, "__module__", None) if callable(thing) else type(thing).__module__
    return isinstance(owner, str) and owner.split(".")[0] == "pbem"


@contextlib.contextmanager
def cycles_of_pbem(every: bool = False) -> Iterator[list[str]]:
    """The names of pbem's objects found in reference cycles made inside the block (the list
    is filled when the block ends), with the collector off meanwhile; `every`: of every object,
    dicts and lists too (a block run a second time, when every module it needs is imported and
    no class is being made).

    Every object made before the block is frozen out of the collector's view meanwhile
    (gc.freeze), so the one pass at its end walks the block's own objects, not the whole heap
    of the test process: a cycle is found when it is garbage made of objects the block made.
    (One that runs through an older object the block let go would be missed; pbem keeps no
    such object.)"""
    import_all()
    found: list[str] = []
    enabled, debug = gc.isenabled(), gc.get_debug()
    gc.disable()
    gc.freeze()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
        gc.collect()
        found += sorted({getattr(o, "__qualname__", type(o).__qualname__) for o in gc.garbage if every or pbems(o)})
    finally:
        gc.garbage.clear()
        gc.set_debug(debug)
        gc.unfreeze()
        if enabled:
            gc.enable()
