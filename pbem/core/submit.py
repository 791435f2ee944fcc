"""`pbem submit`: turn an orders file into a signed packet, applied to the sender's folder."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from pbem.core import game
from pbem.core.canonical import load_file
from pbem.core.errors import RulesError, UsageError, VerificationError

_ORDER_FILE_KEYS = {"orders", "policies"}


def read_orders(path: Path) -> tuple[list, dict | None]:
    """An orders file is a mapping {orders: [...], policies: {...}} or a bare list of orders."""
    doc = load_file(path, str(path))
    if isinstance(doc, list):
        return doc, None
    if not isinstance(doc, dict):
        raise RulesError(f"{path}: an orders file holds `orders:` (a list) and optionally `policies:`")
    unknown = sorted(set(doc) - _ORDER_FILE_KEYS)
    if unknown:
        raise RulesError(f"{path}: unknown key `{unknown[0]}` (an orders file holds `orders:` and `policies:`)")
    orders = doc.get("orders") or []
    policies = doc.get("policies")
    if not isinstance(orders, list) or not all(isinstance(o, dict) for o in orders):
        raise RulesError(f"{path}: `orders` must be a list of orders, each a mapping with a `type`")
    if policies is not None and not isinstance(policies, dict):
        raise RulesError(f"{path}: `policies` must be a mapping of standing orders")
    return orders, policies


def submit(folder: game.Folder, orders_path: Path, *, key: Any = None, side: str | None = None,
           out: Path | None = None, sent: str | None = None) -> game.Applied:
    orders, policies = read_orders(orders_path)
    return submit_orders(folder, orders, policies, key=key, side=side, out=out, sent=sent, source=str(orders_path))


def submit_orders(folder: game.Folder, orders: list, policies: dict | None, *, key: Any = None, side: str | None = None,
                  out: Path | None = None, sent: str | None = None, source: str = "orders") -> game.Applied:
    g, state = folder.game, folder.state
    if g.secure:
        key_side = game.side_of_key(g, key)
        if side is not None and side != key_side:
            raise UsageError(f"--side {side} does not match the key, which is {key_side}'s")
        side = key_side
        expected = g.sender_of(state["seq"] + 1)
        if side != expected:
            raise RulesError(f"it is {expected}'s turn to send packet {state['seq'] + 1}, not {side}'s "
                             f"(packets alternate; wait for {expected}'s packet and adjudicate it)")
    elif side is None:
        raise UsageError("a sandbox game needs --side SIDE")
    if sent is None:
        sent = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    packet = game.build_packet(g, state, side, orders, policies, key, sent)
    text = game.packet_yaml(packet)
    try:
        applied = game.adjudicate(folder, packet, text.encode("utf-8"), source)
    except VerificationError as exc:  # our own packet failing verification is a bug or a wrong key
        raise VerificationError(f"the packet built from {source} does not verify: {exc.message}") from None
    if out is not None:
        game.write_new(out, text)
    return applied
