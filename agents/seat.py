"""What an agent is given at a decision, built the one way every caller builds it: the deciding
seat's observation and action mask (`observe_seat`, as the environments build them) and, for an
agent that reads the game, the seat's information set (`hand_off`: a determinized copy whose
hidden deck orders and dice are resampled with a seed the caller draws, never the real game).
The arena's play loop, the OpenSpiel bot wrapper, the self-play teachers and the web app's analysis
use these."""
from __future__ import annotations

import numpy as np

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core import layout as L
from v1919_env.core.observations import kernels_of
from v1919_env.game import Game, hand_off_rng

__all__ = ["hand_off", "hand_off_rng", "observe_seat"]


def observe_seat(game: Game, seat: int, buf: np.ndarray | None = None,
                 obs_layout: str = "full") -> tuple[np.ndarray, np.ndarray]:
    """Fresh (observation, action mask) of `seat`, as the environments build them (fresh arrays: an
    agent may keep them), in `obs_layout` ('full' or 'compact'); `buf` is scratch of L.MAX_LEGAL int64
    (made when None)."""
    k = kernels_of(obs_layout)
    obs = np.empty(k.size, np.float32)
    mask = np.empty(NUM_ACTIONS, np.int8)
    k.observe_and_mask(game.state, game.T, seat, obs, mask, np.empty(L.MAX_LEGAL, np.int64) if buf is None else buf)
    return obs, mask


def hand_off(game: Game, seat: int, rng: np.random.Generator) -> Game:
    """What an agent that reads the game is handed: the information set of `seat` (a determinized
    copy, Game.information_set), with the next seed of `rng` (hand_off_rng)."""
    return game.information_set(seat, int(rng.integers(1 << 62)))
