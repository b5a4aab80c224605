"""`greedy`: one-ply lookahead. Every legal action is tried on `samples` determinized copies of the
game (the dice and draws it triggers are sampled, never read from the real game), the other seats'
replies inside the procedure it starts (bids, uprising and event choices) are played by the rule
bot, and the position is scored by the evaluation of v1919_env/core/search.py (`evaluate`,
documented in docs/agents.md): the seat's victory-point estimate minus the best other seat's.
In the solitaire game it plays the player's objective instead (agents/solitaire_eval.py)."""
from __future__ import annotations

import numpy as np

from v1919_env.core.bots import seed_policy_rng
from v1919_env.core.layout import MAX_LEGAL, STATE_SIZE
from v1919_env.core.search import greedy_action

from .base import Agent, number_option, register, require_game
from .solitaire_eval import solitaire_greedy_action


@register("greedy")
class GreedyAgent(Agent):
    """samples: determinized copies per action (>= 1); seed: determinizations and tie-breaks."""

    needs_game = True

    def __init__(self, samples: int = 2, seed: int | None = None):
        self.samples = number_option("samples", samples, int, minimum=1)
        self.seed = number_option("seed", seed, int, allow_none=True)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        s = self.seed if seed is None else seed
        self._rng = seed_policy_rng(0 if s is None else int(s) & 0x7FFFFFFFFFFFFFFF)
        self._s = np.zeros(STATE_SIZE, np.int32)
        self._acts = np.empty(MAX_LEGAL, np.int64)
        self._buf = np.empty(MAX_LEGAL, np.int64)

    def act(self, observation, action_mask, game=None) -> int:
        g = require_game(self, game)
        if g.solitaire:
            return solitaire_greedy_action(g.state, g.T, self.samples, self._rng, self._s, self._acts, self._buf)
        return int(greedy_action(g.state, g.T, self.samples, self._rng, self._s, self._acts, self._buf))

    def __repr__(self) -> str:
        return f"GreedyAgent(samples={self.samples}, seed={self.seed!r})"
