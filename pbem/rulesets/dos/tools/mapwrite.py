"""Write the map that mapgen builds as `data/map.yaml` (hand-laid-out YAML, strict-loader safe)."""

from __future__ import annotations

from pathlib import Path

HEADER = """\
# The game-map of Drive on Stalingrad (dos): two mapsheets, north (N) and south (S).
#
# The printed map is not part of the rulebook. This file reconstructs it: the ground of
# southern Russia in 1942 at the rulebook's hex numbers (written by tools/mapgen.py from
# the real towns, rivers, railways, coasts, forests and mountains, projected onto the
# numbering by a least-squares fit to the city hexes the text gives; see data/README.md).
# Every hex the text names is where the text puts it; everything else is reconstructed.
# A user who owns the printed map replaces any part of it by editing this file.
#
# Hex ids: sheet letter, two-digit hexrow, two-digit position: "N3117" is Stalingrad on
# the north sheet, hexrow 31, position 17 (3.1). Hexrows run east-west and are numbered
# from each sheet's north edge; positions are numbered from the east edge (16.51 calls
# N3025 "further east" than N3028). In the joined grid a hexrow is the "column" of the
# even-q offset layout: N3426 touches N3326 and N3327 (10.43), S1202 touches S1302 and
# S1303 (errata). The south sheet's hexrow 01 lies directly south of the north sheet's 40.
# Hexsides are "AAAA/BBBB", the lower id first.
"""


def _q(s: str) -> str:
    return '"' + s + '"'


def _flow(items: list[str], indent: int, width: int = 100) -> list[str]:
    """A flow sequence of quoted strings wrapped at `width` columns."""
    out, line = [], " " * indent + "["
    for i, item in enumerate(items):
        piece = _q(item) + (", " if i < len(items) - 1 else "]")
        if len(line) + len(piece) > width and line.strip() != "[":
            out.append(line.rstrip())
            line = " " * (indent + 1)
        line += piece
    if not items:
        line += "]"
    out.append(line)
    return out


def write(built: dict, path: Path) -> None:
    lines = [HEADER.rstrip("\n"), ""]
    lines += [
        "reconstructed: true",
        "basis: >-",
        "  The ground of 1942 (rivers, railways, towns, coasts, forests, the Caucasus) at the",
        "  rulebook's hex numbers: a least-squares fit of real latitude and longitude to the 33 city",
        "  hexes of 3.1, 5.11, 5.12 (errata), 6.39 (errata) and 19.2 (errata), 16 km to the hex.",
        "",
        "layout: even-q",
        "digits: 2",
        "sheets:",
        "  - {prefix: \"N\", hexrows: [1, 40], positions: [1, 54], shift: 0}",
        "  - {prefix: \"S\", hexrows: [1, 40], positions: [1, 54], shift: 40}",
        "compass: {north: lower hexrow, east: lower position}",
        "edges:",
        "  north: {sheet: \"N\", hexrow: 1}",
        "  south: {sheet: \"S\", hexrow: 40}",
        "  east: {position: 1}",
        "  west: {position: 54}",
        "",
        "# Terrain of every hex: one character per hex, position 01 (the east edge) first.",
        "# Sea, lake and off-limits hexes are not part of the playing area (10.29; the errata's",
        "# fractional land hexes S3243, S2848 and S2452, and S1303, are off limits).",
        "terrain_codes: {\".\": clear, \"l\": light-woods, \"h\": heavy-woods, \"r\": rough, \"m\": mountain, "
        "\"~\": sea, \"o\": lake, \"x\": off-limits}",
        "hexrows:",
    ]
    for name, row in built["rows"].items():
        lines.append(f"  {name}: \"{row}\"")
    lines += ["", "# Rivers along hexsides: minor rivers (10.21, 10.22), the Don and the Volga (10.23-10.28).",
              "# The Voronezh is a minor river; with the Don it bounds the areas of 15.41, 16.31 and 18.21.",
              "rivers:"]
    for r in built["rivers"]:
        lines.append(f"  - name: {r['name']}")
        lines.append(f"    kind: {r['kind']}")
        lines.append("    hexsides:")
        lines += _flow(r["hexsides"], 6)
    lines += ["", "# All-lake hexsides (10.29): no movement, attack or supply line across them.", "lakes:"]
    for r in built["lakes"]:
        lines.append(f"  - name: {r['name']}")
        lines.append("    hexsides:")
        lines += _flow(r["hexsides"], 6)
    lines += ["", "# Railroads (10.4): each line a chain of adjacent hexes; consecutive hexes are connected.",
              "# Cities count as rail hexes (10.4, 6.36) but connect only along these lines and the links:",
              "# every city is on a line but Elista, which had no railroad in 1942.",
              "rail:"]
    for line in built["rail"]:
        first = _flow(line, 4)
        first[0] = "  - " + first[0].lstrip()
        lines += first
    lines += ["", "# Special rail connections (6.37, 6.38 and 6.39 with the errata): Rail Movement Points,",
              "# both ways. Off-map links join east-edge rail hexes; N0811-N0911 crosses the Volga at Saratov.",
              "rail_links:"]
    for link in built["rail_links"]:
        lines.append(f"  - {{hexes: [{_q(link['hexes'][0])}, {_q(link['hexes'][1])}], cost: {link['cost']}, "
                     f"rule: {_q(link['rule'])}}}")
    lines += ["", "# Major and minor cities (10.4). VP and bonus deadlines are in victory.yaml (19.2).",
              "cities:"]
    for c in built["cities"]:
        hexes = ", ".join(_q(h) for h in c["hexes"])
        lines.append(f"  - {{name: {_q(c['name'])}, class: {c['class']}, hexes: [{hexes}]}}")
    lines += ["", "# The 28 June 1942 Front Line (3.1, 5.22, 10.44): the hexes it passes through, from the",
              "# north edge to the Sea of Azov east of Taganrog. West of it is Axis ground at the start.",
              "front_line:"]
    lines += _flow(built["front"], 2)
    path.write_text("\n".join(lines) + "\n")
