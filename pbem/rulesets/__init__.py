"""The explicit registry of rulesets: id -> the module that builds its `RULESET` record.

Listed by hand (STYLE 1: no plugin discovery); imported only when a game needs one, so
that `pbem --help` stays fast."""

from __future__ import annotations

import importlib

from pbem.core.errors import UsageError
from pbem.rulesets.base import Ruleset

REGISTRY: dict[str, str] = {
    "chir": "pbem.rulesets.chir",
    "dos": "pbem.rulesets.dos",
    "kkoh": "pbem.rulesets.kkoh",
    "stalingrad": "pbem.rulesets.stalingrad",
}


def get(ruleset_id: str) -> Ruleset:
    module = REGISTRY.get(ruleset_id)
    if module is None:
        raise UsageError(f"unknown ruleset {ruleset_id!r}; this pbem knows {', '.join(sorted(REGISTRY))}")
    return importlib.import_module(module).RULESET


def ids() -> list[str]:
    return sorted(REGISTRY)
