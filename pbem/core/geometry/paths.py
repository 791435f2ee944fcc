"""Deterministic shortest paths over any board: hexes, squares or areas (STYLE 5, 9).

Nodes are any hashable, totally ordered values (a ruleset passes printed ids, which are
strings). The board is given as two functions:

    neighbours(node) -> iterable of nodes        the candidate steps from `node`
    cost(from_node, to_node) -> int | None       the price of that step; None: impassable

Costs are non-negative integers (a ruleset with half movement points counts in halves).
A `stop(node) -> bool` predicate marks nodes that may be entered but not left (a zone of
control that ends movement); the start node is always left.

Determinism: the frontier is ordered by (cost, node), and of two equally cheap ways into
a node (through predecessors settled before it) the one through the lower predecessor is
kept. So the result depends only on the board, never on the order in which `neighbours`
lists the steps, on hashing, or on the Python version.
"""

from __future__ import annotations

import heapq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Hashable, Iterable, TypeVar

    N = TypeVar("N", bound=Hashable)

    Neighbours = Callable[[N], Iterable[N]]
    Cost = Callable[[N, N], "int | None"]
    Stop = Callable[[N], bool]


def _search(
    start: N,
    neighbours: Neighbours,
    cost: Cost,
    *,
    budget: int | None = None,
    stop: Stop | None = None,
    is_goal: Callable[[N], bool] | None = None,
) -> tuple[dict[N, int], dict[N, N], N | None]:
    """Dijkstra from `start`. Returns (settled costs, predecessors, first goal settled)."""
    best: dict[N, int] = {start: 0}
    parent: dict[N, N] = {}
    settled: dict[N, int] = {}
    frontier: list[tuple[int, N]] = [(0, start)]
    while frontier:
        c, node = heapq.heappop(frontier)
        if node in settled:
            continue
        settled[node] = c
        if is_goal is not None and is_goal(node):
            return settled, parent, node
        if node != start and stop is not None and stop(node):
            continue
        for nxt in neighbours(node):
            if nxt in settled:
                continue
            step = cost(node, nxt)
            if step is None:
                continue
            if not isinstance(step, int) or isinstance(step, bool) or step < 0:
                raise ValueError(f"cost({node!r}, {nxt!r}) must be a non-negative int or None, not {step!r}")
            total = c + step
            if budget is not None and total > budget:
                continue
            old = best.get(nxt)
            if old is None or total < old or (total == old and node < parent[nxt]):
                best[nxt] = total
                parent[nxt] = node
                heapq.heappush(frontier, (total, nxt))
    return settled, parent, None


def _path_to(parent: dict[N, N], start: N, goal: N) -> list[N]:
    path = [goal]
    while path[-1] != start:
        path.append(parent[path[-1]])
    path.reverse()
    return path


def shortest_path(
    start: N,
    goal: N,
    neighbours: Neighbours,
    cost: Cost,
    *,
    budget: int | None = None,
    stop: Stop | None = None,
) -> tuple[int, list[N]] | None:
    """(total cost, [start, ..., goal]) of the cheapest path, or None if there is none
    (within `budget`, if given)."""
    settled, parent, found = _search(
        start, neighbours, cost, budget=budget, stop=stop, is_goal=lambda n: n == goal
    )
    if found is None:
        return None
    return settled[found], _path_to(parent, start, found)


def shortest_path_to_any(
    start: N,
    is_goal: Callable[[N], bool],
    neighbours: Neighbours,
    cost: Cost,
    *,
    budget: int | None = None,
    stop: Stop | None = None,
) -> tuple[int, list[N]] | None:
    """The cheapest path to any node for which `is_goal` holds; of equally cheap goals
    the lowest node wins. None if no goal can be reached."""
    settled, parent, found = _search(
        start, neighbours, cost, budget=budget, stop=stop, is_goal=is_goal
    )
    if found is None:
        return None
    return settled[found], _path_to(parent, start, found)


def reachable(
    start: N,
    budget: int,
    neighbours: Neighbours,
    cost: Cost,
    *,
    stop: Stop | None = None,
) -> dict[N, int]:
    """Every node reachable from `start` for at most `budget`, with its cheapest cost,
    sorted by node (the start is included at cost 0)."""
    if budget < 0:
        raise ValueError("budget must be >= 0")
    settled, _, _ = _search(start, neighbours, cost, budget=budget, stop=stop)
    return {n: settled[n] for n in sorted(settled)}


def all_costs(
    start: N,
    neighbours: Neighbours,
    cost: Cost,
    *,
    stop: Stop | None = None,
) -> dict[N, int]:
    """Cheapest cost from `start` to every reachable node, sorted by node."""
    settled, _, _ = _search(start, neighbours, cost, stop=stop)
    return {n: settled[n] for n in sorted(settled)}


def reachable_paths(
    start: N,
    budget: int,
    neighbours: Neighbours,
    cost: Cost,
    *,
    stop: Stop | None = None,
) -> dict[N, tuple[int, list[N]]]:
    """Every node reachable from `start` for at most `budget`, with its cheapest cost and
    that cheapest path ([start, ..., node]), sorted by node; ties as in `_search`."""
    if budget < 0:
        raise ValueError("budget must be >= 0")
    settled, parent, _ = _search(start, neighbours, cost, budget=budget, stop=stop)
    return {n: (settled[n], _path_to(parent, start, n)) for n in sorted(settled)}
