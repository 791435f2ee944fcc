"""Pictures of a game: a ruleset's scene drawn as SVG and PNG, and the replay page.

A ruleset's `draw(scenario, rules, events)` returns a *scene* (scene.py, docs/scene.md):
geometry-level primitives on a grid of hexes, squares or areas. Nothing here knows a game:
svg.py draws any scene, png.py rasterises the SVG, frames.py reads a game folder's states
with the events that made them, and replay.py writes the one-page replay of a whole game.
Only `pbem render` and `pbem replay` import this package.
"""
