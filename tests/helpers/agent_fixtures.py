"""Test-only agents, registered by name so tournaments (and their spawned workers) can build them.

Tournament configs name this module under `modules:`; subprocesses need tests/ on PYTHONPATH.
"""
from __future__ import annotations

import os

import numpy as np

from agents.base import Agent, register


@register("test_raises")
class RaisingAgent(Agent):
    """Plays the first legal action, then raises at its `at`-th decision of a game (0-based)."""

    def __init__(self, at: int = 3):
        self.at = at
        self.n = 0

    def reset(self, seed=None):
        self.n = 0

    def act(self, observation, action_mask, game=None):
        self.n += 1
        if self.n > self.at:
            raise RuntimeError("test agent failure")
        return int(np.flatnonzero(action_mask)[0])


@register("test_illegal")
class IllegalAgent(Agent):
    """Returns an id the mask forbids (or `value` itself when given, e.g. a string)."""

    def __init__(self, value=None):
        self.value = value

    def act(self, observation, action_mask, game=None):
        if self.value is not None:
            return self.value
        return int(np.flatnonzero(action_mask == 0)[0])


@register("test_exit")
class ExitingAgent(Agent):
    """Plays the first legal action; kills its own process once the file `marker` exists (a dead worker)."""

    def __init__(self, marker: str = ""):
        self.marker = marker

    def act(self, observation, action_mask, game=None):
        if self.marker and os.path.exists(self.marker):
            os._exit(3)
        return int(np.flatnonzero(action_mask)[0])


@register("test_meddler")
class MeddlingAgent(Agent):
    """Steps the game it is handed (a clone, so the game being played must not change)."""

    needs_game = True

    def act(self, observation, action_mask, game=None):
        a = int(np.flatnonzero(action_mask)[0])
        game.step(a)
        return a
