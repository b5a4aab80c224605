"""Helpers of the vector env tests: random learner actions and the Game-by-Game reference."""
from __future__ import annotations

import numpy as np

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core import layout as L
from v1919_env.core.bots import play_until
from v1919_env.core.observe import OBS_SIZE, observe_and_mask
from v1919_env.core.step import play_random_until, try_step
from v1919_env.game import Game

MANUAL_SEATING = ["uk", "usa", "italy", "france"]       # the Player's Manual's table (IT:1263)


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of masks."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


class ReplayedGame:
    """The single env's path for one game: Game.new(seed), then the opponents played by
    play_random_until (the Gymnasium env's random opponents) or by bots.play_until with the seats'
    compiled policy codes."""

    def __init__(self, seed: int, seat: int, num_players: int = 4, policies=None, seating=None):
        self.game = Game.new(num_players, seed=seed, seating=seating)
        self.seat = seat
        self.policies = policies
        self.rng = np.array([seed * 2 + 1], np.uint64)
        self.buf = np.empty(L.MAX_LEGAL, np.int64)
        self._opponents()

    def _opponents(self):
        if self.policies is None:
            play_random_until(self.game.state, self.game.T, self.seat, self.rng, self.buf)
        else:
            play_until(self.game.state, self.game.T, self.seat, self.policies, self.buf, self.rng)

    def observe(self):
        obs = np.empty(OBS_SIZE, np.float32)
        mask = np.empty(NUM_ACTIONS, np.int8)
        observe_and_mask(self.game.state, self.game.T, self.seat, obs, mask, self.buf)
        return obs, mask

    def step(self, a: int) -> None:
        assert try_step(self.game.state, self.game.T, a, self.buf)
        self._opponents()
