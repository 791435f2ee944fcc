"""Rewrite the reports (aar/) of example folders from a replay of their signed packets.

For a change of pbem's wording only: the packets, signatures and states stay byte for byte as
they are (a state that the replay does not reproduce stops the script), so the games need not
be played again with new keys. `pbem audit` must pass afterwards.

    python examples/rereport.py examples/dos-demo examples/kkoh-demo
"""

from __future__ import annotations

import sys
from pathlib import Path

from pbem.core import engine, game, report
from pbem.core.canonical import load_mapping


def rereport(folder: Path) -> int:
    opened = game.open_folder(folder)
    state, changed = game.initial_state(opened.game), 0
    for seq, path in game.packet_files(folder):
        packet, _ = game.read_packet(path)
        state, events = engine.apply_packet(opened.game, state, packet, str(path.relative_to(folder)))
        if state != load_mapping(folder / "states" / f"{seq:04d}.yaml"):
            raise SystemExit(f"{folder}: the replay of packet {seq} does not give states/{seq:04d}.yaml; play the game again")
        aar = folder / "aar" / f"{seq:04d}.md"
        text = report.render(opened.game, state, events)
        if aar.read_text(encoding="utf-8") != text:
            aar.write_text(text, encoding="utf-8")
            changed += 1
    return changed


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"{name}: {rereport(Path(name))} reports rewritten")
