"""A schematic plan of an area graph, game-agnostic (STYLE 5): where to draw each area of
a map that has no coordinates, only areas in a reading order and their adjacency.

Areas are laid out in columns by their distance (in steps) from a set of source areas
(a river's crossings, a map edge): the sources form the first column, their neighbours
the next, and so on. Down each column, areas keep the order the map lists them in (north
to south, say), spread over as many rows as the longest column needs and pushed apart so
that no two share a row. Everything is deterministic: breadth-first search in sorted
order, ties broken by the reading order.
"""

from __future__ import annotations

from collections import deque

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Mapping


def depths(order: Iterable[str], adjacency: Mapping[str, Iterable[str]], sources: Iterable[str]) -> dict[str, int]:
    """Steps from the nearest source to each area; areas no source reaches come one
    column beyond the farthest."""
    order = list(order)
    depth = {s: 0 for s in sorted(sources)}
    queue = deque(sorted(depth))
    while queue:
        a = queue.popleft()
        for b in sorted(adjacency.get(a, ())):
            if b not in depth:
                depth[b] = depth[a] + 1
                queue.append(b)
    far = max(depth.values(), default=-1) + 1
    return {a: depth.get(a, far) for a in order}


def schematic(order: Iterable[str], adjacency: Mapping[str, Iterable[str]],
              sources: Iterable[str]) -> dict[str, tuple[int, float]]:
    """(column, row) of each area: column = steps from the sources, row = the place in
    the reading order, scaled to the longest column and pushed down where two would meet.
    A source's row is the mean of its neighbours' (a crossing lies beside the areas it
    serves)."""
    order = list(order)
    sources = set(sources)
    depth = depths(order, adjacency, sources)
    inland = [a for a in order if a not in sources]
    rank = {a: float(i) for i, a in enumerate(inland)}
    for a in order:
        if a in sources:
            near = [rank[b] for b in sorted(adjacency.get(a, ())) if b in rank]
            rank[a] = sum(near) / len(near) if near else float(order.index(a))
    columns: dict[int, list[str]] = {}
    for a in order:
        columns.setdefault(depth[a], []).append(a)
    longest = max((len(c) for c in columns.values()), default=1)
    scale = (longest - 1) / max(1.0, max(rank.values(), default=0.0)) if longest > 1 else 1.0
    out: dict[str, tuple[int, float]] = {}
    for column, areas in sorted(columns.items()):
        row = -1.0
        for a in sorted(areas, key=lambda a: (rank[a], order.index(a))):
            row = max(row + 1.0, rank[a] * scale)
            out[a] = (column, row)
    return {a: out[a] for a in order}
