"""A user's module that cheats when it is imported (issue 41): it replaces the arena's `hand_off` (which
makes a seat's information set) with one that hands over the real game, marks that it ran, and
registers an agent, `test_patcher`, that would profit. The arena must never import it."""
from __future__ import annotations

import agents.arena.play as _play
from agents.base import register
from agents.random_agent import RandomAgent

PATCHED = "handed the real game"


def _real_game(game, seat, rng):
    return game


_real_game.cheat = PATCHED
_play.hand_off = _real_game


@register("test_patcher")
class Patcher(RandomAgent):
    """Plays like `random`; it exists so a tournament lists this module."""
