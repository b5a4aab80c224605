"""The seating: who sits next to whom around the table.

Seats are nations (seat k plays vocab.NATIONS[k]); the seating is their clockwise order, which the
rules leave to the players (the Player's Manual sits UK, USA, Italy, France, IT:1263). Every turn
order follows it: turns, bidding, draft ties, die-modifier announcements, mutinies, "starting /
ending with you" effects; tied players roll off in seat order, that is clockwise from the UK.

A seating is written as nation names (or seat numbers) clockwise from any of them; it is stored
rotated to start with the UK (seat 0), so equal tables compare equal.
"""
from __future__ import annotations

import numpy as np

from v1919_env.core.vocab import NATIONS


def parse_seating(seating, num_players: int, field: str = "seating") -> tuple[int, ...]:
    """Seats clockwise from seat 0 for `seating` (None: seat order). Raises ValueError naming `field`."""
    players = NATIONS[:num_players]
    if seating is None:
        return tuple(range(num_players))
    if isinstance(seating, str) or not isinstance(seating, (list, tuple)):
        raise ValueError(f"{field}: expected a list of the {num_players} players' nations in clockwise order "
                         f"(e.g. {list(players)}), got {seating!r}")
    seats = []
    for k, v in enumerate(seating):
        if isinstance(v, str) and v.lower() in players:
            seats.append(players.index(v.lower()))
        elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and 0 <= v < num_players:
            seats.append(int(v))
        else:
            raise ValueError(f"{field}[{k}]: expected one of {list(players)}, got {v!r}")
    if sorted(seats) != list(range(num_players)):
        raise ValueError(f"{field}: expected each of {list(players)} exactly once, got {list(seating)!r}")
    i = seats.index(0)
    return tuple(seats[i:] + seats[:i])


def seating_names(seats) -> list[str]:
    """Nation names of a stored seating."""
    return [NATIONS[int(p)] for p in seats]
