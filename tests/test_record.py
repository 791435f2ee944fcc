"""pbem's records (pbem/core/record.py): a class declared on `Record` is the named tuple that
`typing.NamedTuple` would build from the same body, without importing `typing`."""

from __future__ import annotations

import __future__

import ast
import importlib
import inspect
import pickle
import pkgutil
import textwrap
import typing
from pathlib import Path

import pytest

import pbem
from pbem import rulesets
from pbem.core.record import Record

BODY = '''
    """A place on the map."""

    name: str
    hexes: tuple[str, ...]
    points: int = 0
    owner: "str | None" = None

    def held(self, side: str) -> bool:
        """Whether SIDE holds it."""
        return self.owner == side

    @property
    def size(self) -> int:
        return len(self.hexes)
'''


def declared(base: str) -> type:
    """The class BODY declares on `base`, in a module of its own (as pbem's records are)."""
    code = f"from __future__ import annotations\nfrom typing import NamedTuple\nclass Place({base}):{BODY}"
    namespace = {"__name__": "tests.places", "Record": Record}
    exec(compile(code, "<places>", "exec"), namespace)
    return namespace["Place"]


def test_a_record_is_the_named_tuple_typing_builds_from_its_body():
    ours, theirs = declared("Record"), declared("NamedTuple")
    for name in ("_fields", "_field_defaults", "__doc__", "__module__", "__qualname__", "__slots__", "__mro__"):
        mine, typings = getattr(ours, name), getattr(theirs, name)
        if name == "__mro__":
            mine, typings = [c.__name__ for c in mine], [c.__name__ for c in typings]
        assert mine == typings, name
    # as written: typing wraps each string in a ForwardRef, which nothing here reads
    assert ours.__annotations__ == {"name": "str", "hexes": "tuple[str, ...]", "points": "int", "owner": "'str | None'"}
    assert ours.__annotations__ == {k: v.__forward_arg__ for k, v in theirs.__annotations__.items()}
    assert ours.__new__.__annotations__ == ours.__annotations__
    assert ours.__new__.__defaults__ == theirs.__new__.__defaults__ == (0, None)
    place = ours("Kalach", ("3320", "3321"), owner="german")
    assert place == theirs("Kalach", ("3320", "3321"), 0, "german") == ("Kalach", ("3320", "3321"), 0, "german")
    assert repr(place) == "Place(name='Kalach', hexes=('3320', '3321'), points=0, owner='german')"
    assert place.held("german") and not place.held("soviet") and place.size == 2
    assert place._replace(points=5).points == 5 and place._asdict()["owner"] == "german"
    assert ours._make(["Chir", (), 1, None]) < place and sorted([place, ours("A", ())])[0].name == "A"
    assert type(place).__bases__ == (tuple,) and not isinstance(place, Record)
    with pytest.raises(AttributeError):
        place.points = 3
    with pytest.raises(AttributeError):
        place.anything = 3                      # __slots__ = (): no instance dictionary
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'hexes'"):
        ours("Kalach")


def test_a_record_pickles_as_itself():
    """The scenario cache (pbem/core/cache.py) pickles scenarios full of records."""
    from pbem.core.geometry.hexgrid import Hex, Sheet

    for value in (Hex(3, -2), Sheet("N", (1, 30), (1, 20), (0, 0))):
        again = pickle.loads(pickle.dumps(value))
        assert again == value and type(again) is type(value)


@pytest.mark.parametrize("body, error, words", [
    ("a: int = 1\n    b: int\n", TypeError, "field b has no default but follows a, which has one"),
    ("a: int = 1\n    c: int = 2\n    b: int\n", TypeError, "field b has no default but follows a, c, which have one"),
    ("a: int\n    _fields = ('x',)\n", AttributeError, "_fields is the named tuple's own"),
    ("a: int\n    def __new__(cls, a): return super().__new__(cls, a)\n", AttributeError,
     "__new__ is the named tuple's own"),
    ("a: int\n    def _replace(self): return self\n", AttributeError, "_replace is the named tuple's own"),
    ("_a: int\n", ValueError, "Field names cannot start with an underscore: '_a'"),
])
def test_a_record_refuses_what_typing_refuses(body, error, words):
    for base in ("Record", "NamedTuple"):
        code = f"from __future__ import annotations\nfrom typing import NamedTuple\nclass Bad({base}):\n    {body}"
        with pytest.raises(error) as raised:
            exec(compile(code, "<bad>", "exec"), {"__name__": "tests.bad", "Record": Record})
        if base == "Record":
            assert words in str(raised.value)


def test_a_record_has_fields_and_its_attributes_learn_their_names():
    """A body with no annotated field is refused (without the future import, Python 3.14
    leaves its annotations to be worked out later, and a record would have no field); a
    descriptor in the body is told its owner and name, as a class statement tells it."""
    with pytest.raises(TypeError, match="record Empty: no annotated field"):
        class Empty(Record):
            def method(self) -> None:
                pass

    class Named:
        def __set_name__(self, owner: type, name: str) -> None:
            self.owner, self.name = owner, name

    class Holder(Record):
        a: int
        tag = Named()

    assert Holder.tag.owner is Holder and Holder.tag.name == "tag" and Holder(1).a == 1


def test_a_record_derives_from_record_alone():
    with pytest.raises(TypeError, match="record Both: a record derives from Record alone"):
        class Both(Record, dict):
            a: int


def _records() -> list[type]:
    """Every named tuple pbem declares, with the module it is declared in."""
    found = []
    for info in pkgutil.walk_packages(pbem.__path__, "pbem."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == info.name and value.__bases__ == (tuple,):
                found.append((value, module))
    return found


def test_every_record_of_pbem_is_the_named_tuple_typing_builds_from_its_body():
    """Each record's own class body, run again with `typing.NamedTuple` for `Record` in its
    module, gives the same fields, defaults, docstring and attributes."""
    records = _records()
    assert len(records) >= 30
    future = __future__.annotations.compiler_flag
    for record, module in records:
        # as written, where typing.NamedTuple would have made each a ForwardRef
        assert record.__annotations__ and all(type(a) is str for a in record.__annotations__.values()), record
        source = textwrap.dedent(inspect.getsource(record))
        assert f"class {record.__name__}(Record):" in source, record
        namespace = dict(vars(module), Record=typing.NamedTuple)
        exec(compile(source, inspect.getsourcefile(record), "exec", flags=future, dont_inherit=True), namespace)
        theirs = namespace[record.__name__]
        def defaults(r: type) -> dict:   # a function given as a default: the same code
            return {k: v.__code__.co_code if callable(v) else v for k, v in r._field_defaults.items()}
        assert (record._fields, defaults(record), record.__doc__) == (theirs._fields, defaults(theirs), theirs.__doc__)
        assert {k for k in vars(record) if not k.startswith("_")} == {k for k in vars(theirs) if not k.startswith("_")}


def test_no_module_uses_a_name_it_imports_for_type_checkers_only():
    """A name imported under `if TYPE_CHECKING:` does not exist at run time: it may appear in
    annotations (strings, under the future import every such module has) and nowhere else. (A
    name the module binds at run time too, anywhere, is let be: the check reads no scopes.)"""
    names = 0
    for path in sorted(Path(pbem.__file__).parent.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "TYPE_CHECKING" not in text:
            continue
        tree = ast.parse(text)
        checking = [n for n in tree.body if isinstance(n, ast.If) and isinstance(n.test, ast.Name)
                    and n.test.id == "TYPE_CHECKING"]
        if checking:
            assert any(isinstance(n, ast.ImportFrom) and n.module == "__future__" for n in tree.body), path
        hidden = set()
        for node in (n for block in checking for statement in block.body for n in ast.walk(statement)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                hidden |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ClassDef):
                hidden.add(node.name)
            elif isinstance(node, ast.Assign):
                hidden |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        inside = {id(n) for block in checking for statement in block.body for n in ast.walk(statement)}
        # a name bound at run time too (canonical.py imports yaml where it needs it) is no concern
        for node in ast.walk(tree):
            if id(node) in inside:
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                hidden -= {alias.asname or alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                hidden.discard(node.name)
            elif isinstance(node, ast.arg):
                hidden.discard(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                hidden.discard(node.id)
        annotation = {id(n) for node in ast.walk(tree) for part in ("annotation", "returns")
                      if getattr(node, part, None) is not None for n in ast.walk(getattr(node, part))}
        used = sorted((n.id, n.lineno) for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in hidden
                      and id(n) not in inside and id(n) not in annotation)
        assert used == [], f"{path}: {used}"
        names += len(hidden)
    assert names >= 60      # Any, Callable, Mapping, ... in some forty modules


def test_the_plain_commands_of_a_sandbox_game_never_import_typing(tmp_path):
    """pbem names `typing`'s types for type checkers only: the commands pbem/entry.py runs
    without click (adjudicate, audit, status, show) import neither `typing` nor the keys
    module (nor, with it, `cryptography`) in a game that signs nothing (kkoh's first packet,
    which seals its orders, aside)."""
    from pbem.core import bot, game, genesis

    from tests.support.imports import imported

    ran = []
    for name in ("chir", "dos", "kkoh", "stalingrad"):
        ruleset = rulesets.get(name)
        folder = game.create(tmp_path / name, genesis.sandbox(ruleset, {"seed": "s"}, created="t"))
        sender = folder.state["awaiting"]["packet_from"]
        commands = [["status", str(folder.path)], ["show", str(folder.path)], ["audit", str(folder.path)]]
        if name != "kkoh":
            orders = bot.plan(folder.game, folder.state, sender, lambda options: options[0])[:3]
            packet = game.build_packet(folder.game, folder.state, sender, orders, None, None, "")
            (tmp_path / f"{name}.yaml").write_text(game.packet_yaml(packet))
            commands.insert(0, ["adjudicate", str(folder.path), str(tmp_path / f"{name}.yaml")])
        for command in commands:
            assert imported(tmp_path, command, ("typing", "pbem.core.keys")) == [], command
            ran.append((name, command[0]))
        assert len(list((folder.path / "states").iterdir())) == len(commands) - 2
    assert len(ran) == 15
