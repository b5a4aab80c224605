"""Pictures of a position: the text board (`text`), one drawing of the table (`scene`) rendered
as SVG (`svg`) and as raster frames for `rgb_array` (`raster`), and the self-contained HTML replay
viewer (`replay_html`).

The drawing modules read a state array through `core` and the card names through `cards`; they
never import the facade, so `Game.render()` and `Game.svg()` can use them. Only `replay_html`,
which replays a game record, imports the facade (`v1919_env.game`, `v1919_env.records`).
"""
