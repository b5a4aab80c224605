"""`ismcts`: information-set Monte Carlo tree search (single-observer, with availability counts).

Each iteration determinizes the hidden information (`v1919_env.core.tree.determinize`, the
compiled counterpart of `Game.determinize`: deck orders and dice resampled from a canonical order,
so nothing about the real hidden order leaks in), descends the tree by UCT over the legal actions,
adds one node, finishes the game with a compiled rollout (random or rule-bot play) and backs the
seats' win shares up; in the solitaire game, where the one player always "wins", it backs up the
player's objective instead (`core.search.solo_value`: its VP against the level, and the win at it),
the bots deciding inside the kernel as the rules fix them and the player's own choices searched.
The parts live apart: `SearchTree` (flat arrays; the (parent, action) index and the node allocation
are v1919_env/core/tree.py's, shared with `guided`), the selection rule (`uct_score`, its constant
`explore`), the determinization (core/tree.py, shared with `guided`) and the rollout policy; the
whole iteration loop runs compiled (core/search.py `ismcts_iterate`). Turn decisions offer
hundreds of actions, more than a budget of a few hundred iterations can try, so nodes widen
progressively (1 + widen * sqrt(visits) children) and the rule bot's choice is tried first.
Decisions with one legal action are answered at once; the answer is the most visited root action
(then the best mean, then the first legal).
"""
from __future__ import annotations

import time

import numpy as np

from v1919_env.core.bots import POLICY_NAMES, seed_policy_rng
from v1919_env.core.layout import MAX_LEGAL, MAX_PLAYERS, STATE_SIZE
from v1919_env.core.search import MAX_PATH, ismcts_iterate, root_child_stats, tree_reset

from .base import Agent, number_option, register, require_game

TIME_CHUNK = 16            # iterations per compiled call when the budget is in milliseconds
DEFAULT_TIME_NODES = 1 << 16


class SearchTree:
    """The flat-array tree: node statistics, (parent, action) -> child hash table, counters."""

    def __init__(self, max_nodes: int):
        self.max_nodes = int(max_nodes)
        self.TF = np.zeros((self.max_nodes, 3), np.float64)
        self.TI = np.zeros((self.max_nodes, 2), np.int64)
        size = 1
        while size < 2 * self.max_nodes + 2:
            size *= 2
        self.hk = np.full(size, -1, np.int64)
        self.hv = np.zeros(size, np.int64)
        self.meta = np.zeros(2, np.int64)
        self.reset()

    def reset(self) -> None:
        tree_reset(self.TF, self.TI, self.hk, self.meta)

    @property
    def nodes(self) -> int:
        return int(self.meta[0])

    @property
    def iterations(self) -> int:
        return int(self.meta[1])

    def root_stats(self, actions: np.ndarray) -> np.ndarray:
        """[len(actions), 2]: visits and mean reward of each root action."""
        out = np.zeros((len(actions), 2), np.float64)
        root_child_stats(self.TF, self.hk, self.hv, np.asarray(actions, np.int64), len(actions), out)
        return out


@register("ismcts")
class ISMCTSAgent(Agent):
    """iterations: per decision (used when time_ms is None); time_ms: milliseconds per decision
    instead (at most the arena clock's budget, Agent.think_ms); rollout: 'rulebot' (default: much stronger at small budgets) or 'random'; explore: the UCT constant (rewards are win shares in
    [0, 1]); widen: progressive widening, a node may have 1 + widen * sqrt(visits) children
    (0: every legal action); max_rollout: decisions per rollout before it is cut (scored as it
    stands); seed."""

    needs_game = True

    def __init__(self, iterations: int = 200, time_ms: float | None = None, rollout: str = "rulebot",
                 explore: float = 0.7, widen: float = 1.0, max_rollout: int = 20000, seed: int | None = None):
        self.iterations = number_option("iterations", iterations, int, minimum=1)
        self.time_ms = number_option("time_ms", time_ms, float, above=0, allow_none=True)
        self._policies = rollout_policies(rollout)
        self.rollout = rollout
        self.explore = number_option("explore", explore, float, minimum=0)
        self.widen = number_option("widen", widen, float, minimum=0)
        self.max_rollout = number_option("max_rollout", max_rollout, int, minimum=1)
        self.seed = number_option("seed", seed, int, allow_none=True)
        self.tree = SearchTree(DEFAULT_TIME_NODES if self.time_ms is not None else self.iterations + 1)
        self._s = np.zeros(STATE_SIZE, np.int32)
        self._buf = np.empty(MAX_LEGAL, np.int64)
        self._buf2 = np.empty(MAX_LEGAL, np.int64)
        self._path = np.zeros(MAX_PATH, np.int64)
        self.last_stats: dict | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        s = self.seed if seed is None else seed
        self._rng = seed_policy_rng(0 if s is None else int(s) & 0x7FFFFFFFFFFFFFFF)

    def search(self, game) -> int:
        """Run the budget from `game` (never modified) and return the number of iterations."""
        self.tree.reset()
        t = self.tree
        args = (t.TF, t.TI, t.hk, t.hv, t.meta, self.explore, self.widen, self._policies, self.max_rollout,
                self._rng, self._s, self._buf, self._buf2, self._path)
        if self.time_ms is None:
            ismcts_iterate(game.state, game.T, self.iterations, *args)
        else:
            end = time.perf_counter() + self.think_ms(self.time_ms) / 1000.0       # the clock may cut it
            while True:
                ismcts_iterate(game.state, game.T, TIME_CHUNK, *args)
                if time.perf_counter() >= end:
                    break
        return t.iterations

    def act(self, observation, action_mask, game=None) -> int:
        g = require_game(self, game)
        acts = g.legal_actions()
        if len(acts) == 0:
            raise ValueError("the game is over: no legal action")
        if len(acts) == 1:
            return int(acts[0])
        self.search(g)
        st = self.tree.root_stats(acts)
        best = max(range(len(acts)), key=lambda j: (st[j, 0], st[j, 1], -j))
        self.last_stats = {"iterations": self.tree.iterations, "nodes": self.tree.nodes,
                           "actions": acts, "visits": st[:, 0].copy(), "means": st[:, 1].copy()}
        return int(acts[best])

    def __repr__(self) -> str:
        return (f"ISMCTSAgent(iterations={self.iterations}, time_ms={self.time_ms!r}, rollout={self.rollout!r}, "
                f"explore={self.explore}, widen={self.widen}, seed={self.seed!r})")


def rollout_policies(rollout: str) -> np.ndarray:
    """The compiled rollout policy of every seat for a `rollout` option ('rulebot' or 'random',
    core.bots.POLICY_NAMES); a ValueError naming the option otherwise."""
    if rollout not in POLICY_NAMES:
        raise ValueError(f"option rollout must be one of {', '.join(POLICY_NAMES)}, got {rollout!r}")
    return np.full(MAX_PLAYERS, POLICY_NAMES.index(rollout), np.int64)
