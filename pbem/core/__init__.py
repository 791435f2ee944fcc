"""The game-agnostic core: canonical bytes, keys, dice, packets, states, audit.

Records. pbem's fixed records (a hex, a unit's printed attributes, a ruleset, a need) are
named tuples, declared as `typing.NamedTuple`s are but on `record.Record`, which builds them
without `typing`'s checks of their annotations (pbem/core/record.py). Its few mutable ones
(a game folder, an audit result) are plain classes with `__slots__`, not dataclasses: every
command builds them at start-up, and `dataclasses` costs a bare interpreter's start-up again
on the way (it imports `inspect`, and with it `ast`, `dis` and `tokenize`, then compiles
each class's methods from source), where a named tuple costs a few dozen microseconds. A
named tuple is also a tuple: it equals the plain tuple of its fields and sorts by them (a
hex by (q, r), as it must), and no code here mixes records of two kinds in one set or
mapping, where that could matter."""
