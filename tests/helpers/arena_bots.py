"""Bots that probe the arena (issue 33): a cheater that reads everything in the game it is handed,
its honest twin, and a bot that records what it was handed.

`PeekingRollout` tries a few candidate actions (the rule bot's choice and `k` drawn at random) and
plays each to the end with the compiled rule bot for every seat, from the game it was handed *as
it is*: its deck orders and its dice generator. Handed the real game, those rollouts see the cards
that will come and the dice that will fall, and it wins almost every game against rule bots;
handed the seat's information set, they see a resample. `honest=True` makes its twin, which first
determinizes the copy itself (what an honest search does), so the two differ only in the cheat.
"""
from __future__ import annotations

import numpy as np

from agents.base import Agent, register
from v1919_env.core.bots import POLICY_NAMES, bot_action, rollout, seed_policy_rng
from v1919_env.core.layout import MAX_LEGAL, MAX_PLAYERS
from v1919_env.core.scoring import N_SCORE_COLS, SC_TOTAL, final_scores
from v1919_env.core.step import apply_action, legal
from v1919_env.core.tree import determinize

_RULEBOT = np.full(MAX_PLAYERS, POLICY_NAMES.index("rulebot"), np.int64)


@register("test_peeking_rollout")
class PeekingRollout(Agent):
    needs_game = True

    def __init__(self, honest: bool = False, k: int = 6):
        self.honest, self.k = bool(honest), int(k)
        self.reset(0)

    def reset(self, seed=None):
        self._rng = seed_policy_rng(int(seed or 0) & 0x7FFFFFFFFFFFFFFF)
        self._np = np.random.default_rng(int(seed or 0))
        self._buf = np.empty(MAX_LEGAL, np.int64)
        self._acts = np.empty(MAX_LEGAL, np.int64)
        self._out = np.zeros((MAX_PLAYERS, N_SCORE_COLS), np.int64)

    def act(self, observation, action_mask, game=None):
        root, T = game.state, game.T
        n = legal(root, T, self._acts)
        if n == 1:
            return int(self._acts[0])
        p, players = int(game.current_player), game.num_players
        cand = {int(bot_action(root.copy(), T, self._buf, self._rng))}
        cand.update(int(a) for a in self._np.choice(self._acts[:n], min(self.k, n), replace=False))
        if self.honest:
            root = root.copy()
            determinize(root, T, self._rng)
        best, best_a = -1e300, None
        for a in sorted(cand):
            s = root.copy()                      # the handed game's decks and generator, as they are
            apply_action(s, T, a)
            rollout(s, T, _RULEBOT, self._buf, self._rng.copy(), 20000)
            final_scores(s, T, self._out)
            tot = self._out[:players, SC_TOTAL]
            v = tot[p] - max(tot[q] for q in range(players) if q != p)
            if v > best:
                best, best_a = v, a
        return best_a


@register("test_records_hand_off")
class RecordsHandOff(Agent):
    """Plays the first legal action and keeps every game it was handed (class-level list)."""

    needs_game = True
    seen: list = []

    def act(self, observation, action_mask, game=None):
        RecordsHandOff.seen.append(game)
        return int(np.flatnonzero(action_mask)[0])


@register("test_sleeper")
class Sleeper(Agent):
    """Plays the first legal action; sleeps `sleep_s` at its decisions number `at` (0-based) and
    after (`every`: all of them from `at` on, else only that one); `forever`: sleeps an hour there.
    Keeps what the arena told it of its clock (class-level list `told`)."""

    told: list = []

    def __init__(self, sleep_s: float = 0.2, at: int = 3, every: bool = False, forever: bool = False):
        self.sleep_s, self.at, self.every, self.forever = float(sleep_s), int(at), bool(every), bool(forever)
        self.n = 0

    def reset(self, seed=None):
        self.n = 0

    def act(self, observation, action_mask, game=None):
        import time

        Sleeper.told.append(self.time_left)
        k, self.n = self.n, self.n + 1
        if k == self.at or (self.every and k > self.at):
            time.sleep(3600 if self.forever else self.sleep_s)
        return int(np.flatnonzero(action_mask)[0])


def find_real_game(handed):
    """What an in-process cheater can do that no interface stops: look through the interpreter (every
    thread's frames) for another Game at the same point of the same game, the one being played."""
    import sys

    from v1919_env.game import Game

    for frame in sys._current_frames().values():
        f = frame
        while f is not None:
            for v in list(f.f_locals.values()):
                if (isinstance(v, Game) and v is not handed and v.decisions_taken == handed.decisions_taken
                        and v.num_players == handed.num_players and np.array_equal(v.action_mask(), handed.action_mask())):
                    return v
            f = f.f_back
    return None


@register("test_frame_cheater")
class FrameCheater(PeekingRollout):
    """PeekingRollout on the real game when it can find it through the interpreter's frames
    (find_real_game), else on the game it was handed. `found` counts its finds (class-level)."""

    found = 0

    def act(self, observation, action_mask, game=None):
        real = find_real_game(game)
        if real is not None:
            FrameCheater.found += 1
            game = real.clone()
        return super().act(observation, action_mask, game)


@register("test_gil_hog")
class GilHog(Agent):
    """Plays the first legal action; at its decision number `at` it runs a regular expression that
    backtracks for ever inside C code holding the interpreter lock: its thread cannot be given up."""

    def __init__(self, at: int = 2):
        self.at, self.n = int(at), 0

    def reset(self, seed=None):
        self.n = 0

    def act(self, observation, action_mask, game=None):
        import re

        k, self.n = self.n, self.n + 1
        if k == self.at:
            re.match(r"(a+)+$", "a" * 60 + "b")
        return int(np.flatnonzero(action_mask)[0])
