"""pbem's records (pbem/core/record.py): a class declared on `Record` is the named tuple that
`typing.NamedTuple` would build from the same body, without importing `typing`."""

from __future__ import annotations

import importlib
import pickle
import pkgutil
import subprocess
import sys
import typing

import pytest

import pbem
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


def test_a_record_pickles_as_itself(monkeypatch):
    """The scenario cache (pbem/core/cache.py) pickles scenarios full of records."""
    from pbem.core.geometry.hexgrid import Hex, Sheet

    for value in (Hex(3, -2), Sheet("N", (1, 30), (1, 20), (0, 0))):
        again = pickle.loads(pickle.dumps(value))
        assert again == value and type(again) is type(value)


@pytest.mark.parametrize("body, error, words", [
    ("a: int = 1\n    b: int\n", TypeError, "field b has no default but follows a, which have one"),
    ("a: int\n    _fields = ('x',)\n", AttributeError, "_fields is the named tuple's own"),
    ("a: int\n    def __new__(cls, a): return super().__new__(cls, a)\n", AttributeError, "__new__ is the named tuple's own"),
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


def test_a_record_derives_from_record_alone():
    with pytest.raises(TypeError, match="record Both: a record derives from Record alone"):
        class Both(Record, dict):
            a: int


def test_every_record_of_pbem_is_declared_on_record_and_built_as_typing_would():
    """Every named tuple pbem declares comes from `Record`; rebuilt by `typing.NamedTuple` from
    its own annotations and defaults, it has the same fields and defaults."""
    records = []
    for info in pkgutil.walk_packages(pbem.__path__, "pbem."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == info.name and value.__bases__ == (tuple,):
                records.append(value)
    assert len(records) >= 30
    for record in records:
        assert hasattr(record, "_fields") and record.__annotations__, record
        # as written, where typing.NamedTuple would have made each a ForwardRef
        assert all(type(a) is str for a in record.__annotations__.values()), record
        fields = list(record.__annotations__)
        rebuilt = typing.NamedTuple(record.__name__, [(f, typing.Any) for f in fields])
        assert record._fields == rebuilt._fields
        assert list(record._field_defaults) == fields[len(fields) - len(record._field_defaults):]


def test_a_sandbox_game_is_played_and_shown_without_importing_typing(tmp_path):
    """pbem names `typing`'s types for type checkers only: a game that signs nothing (a
    sandbox) is created, played (kkoh's sealed orders aside), shown and drawn without importing
    `typing`."""
    code = ("import sys\n"
            "from pbem import rulesets\n"
            "from pbem.core import bot, describe, game, genesis\n"
            "for name in ('chir', 'dos', 'kkoh', 'stalingrad'):\n"
            "    ruleset = rulesets.get(name)\n"
            "    folder = game.create(sys.argv[1] + '/' + name, genesis.sandbox(ruleset, {'seed': 's'}, created='t'))\n"
            "    for _ in range(0 if name == 'kkoh' else 3):\n"
            "        sender = folder.state['awaiting']['packet_from']\n"
            "        orders = bot.plan(folder.game, folder.state, sender, lambda options: options[0])[:3]\n"
            "        packet = game.build_packet(folder.game, folder.state, sender, orders, None, None, '')\n"
            "        game.adjudicate(folder, packet, game.packet_yaml(packet).encode(), 'packet')\n"
            "    describe.status(game.open_folder(folder.path))\n"
            "    folder.game.render(folder.state['rules'])\n"
            "sys.stderr.write(repr(sorted(m for m in ('typing', 'pbem.core.keys') if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "[]", done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chir", "dos", "kkoh", "stalingrad"]
    assert [len(list((tmp_path / name / "states").iterdir())) for name in ("chir", "dos", "kkoh", "stalingrad")] == [4, 4, 1, 4]
