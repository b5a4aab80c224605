"""Readable, versioned JSON positions (`Game.to_dict` / `Game.from_dict`).

`write` turns a game into a position and is the entry point of reading (`to_dict`, `from_dict`,
the engine seal); `read` has one reader per section; `fields` the typed field checks and
`PositionError`, which names the field at fault. May import `core`, `cards` and the small
vocabularies of the facade (`variants`, `seating`); never `game` (which imports this package).
"""
from v1919_env.positions.fields import PositionError
from v1919_env.positions.write import FORMAT, VERSION, from_dict, to_dict

__all__ = ["FORMAT", "VERSION", "PositionError", "from_dict", "to_dict"]
