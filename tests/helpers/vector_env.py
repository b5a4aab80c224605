"""Helpers of the vector env tests: random learner actions and the Game-by-Game reference."""
from __future__ import annotations

import numpy as np

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core import layout as L
from v1919_env.core.bots import play_until, policy_action
from v1919_env.core.observe import OBS_SIZE, observe_and_mask
from v1919_env.core.step import play_random_until, try_step
from v1919_env.game import Game

MANUAL_SEATING = ["uk", "usa", "italy", "france"]       # the Player's Manual's table (IT:1263)


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of masks."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def hashed_choice(obs: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic legal action that varies with the position (an external policy's stand-in)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(np.flatnonzero(obs).sum()) % len(legal)])


class HashedBatchPolicy:
    """External batch policy playing hashed_choice in every game (one call per batch)."""

    label = "hashed"

    def __init__(self):
        self.calls = []

    def act_batch(self, obs, masks):
        self.calls.append(len(masks))
        return np.array([hashed_choice(o, m) for o, m in zip(obs, masks)], np.int64)


class ReplayedGame:
    """The single env's path for one game: Game.new(seed), then the opponents played by
    play_random_until (the Gymnasium env's random opponents) or by bots.play_until with the seats'
    compiled policy codes; seats with an external code (<= -2) play hashed_choice, one Python
    decision at a time."""

    def __init__(self, seed: int, seat: int, num_players: int = 4, policies=None, seating=None):
        self.game = Game.new(num_players, seed=seed, seating=seating)
        self.seat = seat
        self.policies = policies
        self.rng = np.array([seed * 2 + 1], np.uint64)
        self.buf = np.empty(L.MAX_LEGAL, np.int64)
        self._opponents()

    def _opponents(self):
        s, T = self.game.state, self.game.T
        if self.policies is None:
            play_random_until(s, T, self.seat, self.rng, self.buf)
        elif (self.policies >= -1).all():
            play_until(s, T, self.seat, self.policies, self.buf, self.rng)
        else:
            while not self.game.is_over and s[L.PENDING_PLAYER] != self.seat:
                p = int(s[L.PENDING_PLAYER])
                if self.policies[p] <= -2:
                    a = hashed_choice(*self.observe(p))
                else:
                    a = policy_action(s, T, self.policies[p], self.buf, self.rng)
                assert try_step(s, T, a, self.buf)

    def observe(self, seat: int | None = None):
        obs = np.empty(OBS_SIZE, np.float32)
        mask = np.empty(NUM_ACTIONS, np.int8)
        observe_and_mask(self.game.state, self.game.T, self.seat if seat is None else seat, obs, mask, self.buf)
        return obs, mask

    def step(self, a: int) -> None:
        assert try_step(self.game.state, self.game.T, a, self.buf)
        self._opponents()
