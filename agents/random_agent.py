"""`random`: uniform over the legal actions, from the agent's own seeded generator."""
from __future__ import annotations

import numpy as np

from .base import Agent, register


@register("random")
class RandomAgent(Agent):
    """Uniformly random legal actions; `seed` fixes the choices (reset(seed) reseeds)."""

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def act(self, observation, action_mask, game=None) -> int:
        legal_ids = np.flatnonzero(action_mask)
        if len(legal_ids) == 0:
            raise ValueError("no legal action in the mask")
        return int(legal_ids[self.rng.integers(len(legal_ids))])
