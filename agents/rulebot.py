"""`rulebot`: the designers' solitaire bot priorities for any seat (compiled: v1919_env/core/botrules.py,
played by core/bots.py; the priorities and the policies for every choice the rules leave open are listed
in docs/agents.md)."""
from __future__ import annotations

import numpy as np

from v1919_env.core.bots import bot_action, seed_policy_rng
from v1919_env.core.layout import MAX_LEGAL

from .base import Agent, number_option, register, require_game


@register("rulebot")
class RuleBotAgent(Agent):
    """Follows the bot priorities (EN:888-947). `seed` fixes its only random choice, the die
    between tied regions when it deploys (EN:898)."""

    needs_game = True

    def __init__(self, seed: int | None = None):
        self.seed = number_option("seed", seed, int, allow_none=True)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        s = self.seed if seed is None else seed
        self._rng = seed_policy_rng(0 if s is None else int(s) & 0x7FFFFFFFFFFFFFFF)
        self._buf = np.empty(MAX_LEGAL, np.int64)

    def act(self, observation, action_mask, game=None) -> int:
        g = require_game(self, game)
        return int(bot_action(g.state, g.T, self._buf, self._rng))

    def __repr__(self) -> str:
        return f"RuleBotAgent(seed={self.seed!r})"
