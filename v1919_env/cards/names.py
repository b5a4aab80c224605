"""One index convention for every public parameter (actions, positions, Game's name helpers).

- Cards (issues, events, strategy cards) are named by the number printed on the card (1-based:
  issues 1..53, events 1..46, strategy cards 1..10), by name or by data id (any case).
- Everything else counts from 0 in a documented order, or is named: regions 0..4 in board order
  (vocab.REGIONS) or by name; seats 0..3 (= vocab.NATIONS) or by nation; an issue's options 0..3
  in card order or by name; slots, branches and the other small choices from 0.
- Internally (the state array, the core) cards are 0-based indices: card number - 1.
"""
from __future__ import annotations

import numpy as np

from v1919_env.core import layout as L
from v1919_env.core.vocab import NATIONS, REGIONS


def is_int(v) -> bool:
    """An integer that is not a bool (Python or numpy)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


class CardNames:
    """Name and number lookups of one card set; errors are ValueError naming the field."""

    def __init__(self, cards):
        self.cards = cards
        self.tables = {}
        for kind in ("issues", "events", "strategies"):
            t = {}
            for r in cards.raw[kind]:
                t[r["name"].lower()] = r["number"] - 1
                t[r["id"].lower()] = r["number"] - 1
            self.tables[kind] = t
        self.names = {kind: {r["number"] - 1: r["name"] for r in cards.raw[kind]}
                      for kind in ("issues", "events", "strategies")}

    def _index(self, kind, v, field, what, n):
        if is_int(v):
            if 1 <= v <= n:
                return int(v) - 1
            raise ValueError(f"{field}: {what} number must be 1..{n}, got {v}")
        if isinstance(v, str) and v.lower() in self.tables[kind]:
            return self.tables[kind][v.lower()]
        raise ValueError(f"{field}: unknown {what} {v!r} (a card number 1..{n} or a name)")

    def issue(self, v, field="issue") -> int:
        """0-based index of an issue given by card number or name."""
        return self._index("issues", v, field, "issue", L.N_ISSUES)

    def event(self, v, field="event") -> int:
        return self._index("events", v, field, "event", L.N_EVENTS)

    def strategy(self, v, field="strategy") -> int:
        return self._index("strategies", v, field, "strategy card", L.N_STRATEGIES)

    def option(self, i, v, field="option") -> int:
        """Index of an option of issue index i, given as 0-based index or name."""
        opts = self.cards.issue(i + 1).get("options") or []
        if is_int(v):
            if 0 <= v < len(opts):
                return int(v)
            raise ValueError(f"{field}: option index must be 0..{len(opts) - 1}, got {v}")
        for k, o in enumerate(opts):
            if isinstance(v, str) and o["name"].lower() == v.lower():
                return k
        raise ValueError(f"{field}: unknown option {v!r} of {self.issue_at(i)}; "
                         f"options: {[o['name'] for o in opts]}")

    # names of 0-based indices (the state's numbering, for code that reads the state)
    def issue_at(self, i: int) -> str:
        return self.names["issues"][int(i)]

    def event_at(self, e: int) -> str:
        return self.names["events"][int(e)]

    def strategy_at(self, k: int) -> str:
        return self.names["strategies"][int(k)]


_by_card_set: dict[int, tuple] = {}


def names_of(cards) -> CardNames:
    """The (cached) CardNames of a card set."""
    hit = _by_card_set.get(id(cards))
    if hit is None or hit[0] is not cards:
        hit = (cards, CardNames(cards))
        _by_card_set[id(cards)] = hit
    return hit[1]


def region_index(v, field="region") -> int:
    """0-based region index of a region given by index (board order) or name."""
    if is_int(v) and 0 <= v < len(REGIONS):
        return int(v)
    if isinstance(v, str) and v.lower().replace(" ", "_") in REGIONS:
        return REGIONS.index(v.lower().replace(" ", "_"))
    raise ValueError(f"{field}: expected a region 0..{len(REGIONS) - 1} or one of {list(REGIONS)}, got {v!r}")


def seat_index(v, num_players: int = 4, field="seat") -> int:
    """Seat of a nation given by seat number (= nation index) or nation name."""
    if is_int(v) and 0 <= v < num_players:
        return int(v)
    if isinstance(v, str) and v.lower() in NATIONS[:num_players]:
        return NATIONS.index(v.lower())
    raise ValueError(f"{field}: expected a seat 0..{num_players - 1} or one of {list(NATIONS[:num_players])}, "
                     f"got {v!r}")
