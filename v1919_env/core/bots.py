"""The rule bot as a policy (the `rulebot` agent) and the compiled play loops built on the policies.

The bot's priorities live in core/botrules.py (shared with the solitaire game, core/solo.py);
`bot_action(s, T, buf, rng)` returns the bot's legal action for the pending decision, whoever must
decide. `policy_action` picks by a per-seat policy code (POLICY_RANDOM, POLICY_RULEBOT);
`play_games`, `play_until` and `rollout` are the compiled loops built on it (benchmarks,
tournaments, opponents of an environment seat, search rollouts).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .board import splitmix64
from .botrules import _is_legal, bot_choose, piv, policy_below  # noqa: F401  (piv re-exported)
from .layout import GAME_OVER, MAX_LEGAL, MAX_PLAYERS, PENDING_PLAYER, STATE_SIZE
from .scoring import N_SCORE_COLS, SC_TOTAL, final_scores, winners
from .step import apply_action, init_game, legal

POLICY_RANDOM = 0
POLICY_RULEBOT = 1
POLICY_NAMES = ("random", "rulebot")

@njit(cache=True, _nrt=False)
def bot_action(s, T, buf, rng):
    """The rule bot's legal action for the pending decision (-1 when the game is over). buf: an
    int64 buffer of MAX_LEGAL; rng: uint64[1], the bot's own generator (tie-break dice)."""
    n = legal(s, T, buf)
    if n == 0:
        return -1
    if n == 1:
        return buf[0]
    a = bot_choose(s, T, buf, n, rng)
    if _is_legal(buf, n, a):
        return a
    return buf[0]


# ----------------------------------------------------------------------------- compiled loops
@njit(cache=True, _nrt=False)
def random_action(s, T, buf, rng):
    """A uniformly random legal action from the policy's own generator (-1 when the game is over)."""
    n = legal(s, T, buf)
    if n == 0:
        return -1
    return buf[policy_below(rng, n)]


@njit(cache=True, _nrt=False)
def policy_action(s, T, policy, buf, rng):
    """The action of a compiled policy (POLICY_RANDOM or POLICY_RULEBOT) for the pending decision."""
    if policy == POLICY_RULEBOT:
        return bot_action(s, T, buf, rng)
    return random_action(s, T, buf, rng)


@njit(cache=True, _nrt=False)
def play_until(s, T, seat, policies, buf, rng):
    """Play the seats' compiled policies (policies[seat]) until `seat` must decide or the game ends;
    returns the number of decisions taken."""
    k = 0
    while s[GAME_OVER] == 0 and s[PENDING_PLAYER] != seat:
        apply_action(s, T, policy_action(s, T, policies[s[PENDING_PLAYER]], buf, rng))
        k += 1
    return k


@njit(cache=True, _nrt=False)
def rollout(s, T, policies, buf, rng, max_decisions):
    """Play every seat by its compiled policy to the end of the game (or max_decisions)."""
    k = 0
    while s[GAME_OVER] == 0 and k < max_decisions:
        apply_action(s, T, policy_action(s, T, policies[s[PENDING_PLAYER]], buf, rng))
        k += 1
    return k


@njit(cache=True)
def seed_policy_rng(seed):
    """A policy generator state (uint64[1]) from an integer seed."""
    r = np.empty(1, np.uint64)
    r[0] = splitmix64(seed)
    return r


@njit(cache=True)
def play_games(num_games, num_players, T, policies, seed, variant, negotiation, scores, win, decisions):
    """Play num_games whole games, seat p by policies[p], game g from seed + g; fills
    scores[g, p] (final total), win[g] (winners bit mask), decisions[g]. Returns total decisions."""
    s = np.zeros(STATE_SIZE, np.int32)
    buf = np.empty(MAX_LEGAL, np.int64)
    out = np.zeros((MAX_PLAYERS, N_SCORE_COLS), np.int64)
    total = 0
    for g in range(num_games):
        init_game(s, T, num_players, seed + g, variant, negotiation)
        rng = seed_policy_rng(seed * 7919 + g)
        k = rollout(s, T, policies, buf, rng, 1 << 30)
        final_scores(s, T, out)
        for p in range(num_players):
            scores[g, p] = out[p, SC_TOTAL]
        win[g] = winners(s, T, out)
        decisions[g] = k
        total += k
    return total
