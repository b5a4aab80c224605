"""Compiled kernels of the vector environment (v1919_env.vector_env): N games in [N, state] arrays,
the learner's actions applied and the other seats played in one call, observations and masks
written into preallocated arrays.

Each game has a row of seat policy codes `pol[b, seat]`:
- `LEARNER` (-1): the learning seat; the kernels stop when it must decide;
- `POLICY_RANDOM` (0), `POLICY_RULEBOT` (1) of v1919_env.core.bots: compiled agents, played
  inside the kernels (`COMPILED_POLICIES` by name);
- `external_code(k)` (-2 - k): external policy slot k (a neural opponent); the kernels stop when
  it must decide, so that the caller can batch one forward pass over every game waiting on it.

Each game also has its own policy generator `rng[b]` (xorshift64 state, never zero), separate
from the game's dice, so a game replays from its seed whatever the opponents draw.

This module lives outside v1919_env/core/ so that editing it does not recompile the rules core;
it still caches in the core's folder (keyed by the core's sources), so a new core recompiles it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .core.bots import POLICY_NAMES, policy_action
from .core.layout import GAME_OVER, MAX_LEGAL, PENDING_PLAYER
from .core.observe import observe_and_mask
from .core.step import apply_action, init_game, try_step

LEARNER = -1
COMPILED_POLICIES = {name: code for code, name in enumerate(POLICY_NAMES)}
"""Compiled agents the kernels play (v1919_env.core.bots policy codes), by agent name."""


def external_code(slot: int) -> int:
    """Seat code of external policy slot `slot` (0, 1, ...)."""
    return -2 - slot


@njit(cache=True)
def advance(s, T, pol, buf, rng):
    """Play the compiled seats of one game until a learner or external seat must decide (returns
    that seat) or the game ends (returns -1)."""
    while s[GAME_OVER] == 0:
        p = s[PENDING_PLAYER]
        code = pol[p]
        if code < 0:
            return p
        apply_action(s, T, policy_action(s, T, code, buf, rng))
    return -1


@njit(cache=True)
def act_and_advance(S, T, rows, actions, pol, rng, ok, who):
    """For each k: apply actions[k] to game rows[k] if legal (ok[k] = 1; else 0 and the game is
    unchanged), then play its compiled seats; who[rows[k]] = the seat that decides next, -1 if over."""
    buf = np.empty(MAX_LEGAL, np.int64)
    for k in range(rows.shape[0]):
        b = rows[k]
        if S[b, GAME_OVER] == 0 and try_step(S[b], T, actions[k], buf):
            ok[k] = 1
            who[b] = advance(S[b], T, pol[b], buf, rng[b:b + 1])
        else:
            ok[k] = 0


@njit(cache=True)
def reset_games(S, T, rows, num_players, seeds, variant, negotiation, pol, rng, who):
    """Start game rows[k] from seeds[k] and play its compiled seats up to the first learner or
    external decision (who[rows[k]])."""
    buf = np.empty(MAX_LEGAL, np.int64)
    for k in range(rows.shape[0]):
        b = rows[k]
        init_game(S[b], T, num_players, seeds[k], variant, negotiation)
        who[b] = advance(S[b], T, pol[b], buf, rng[b:b + 1])


@njit(cache=True)
def observe_rows(S, T, rows, seats, obs, masks):
    """obs[k], masks[k] = observation of seat seats[k] in game rows[k] and its action mask (zeros
    unless that seat decides now)."""
    buf = np.empty(MAX_LEGAL, np.int64)
    for k in range(rows.shape[0]):
        observe_and_mask(S[rows[k]], T, seats[k], obs[k], masks[k], buf)


@njit(cache=True)
def step_observe(S, T, rows, actions, pol, rng, seats, ok, who, obs, masks):
    """One vector step in one call: act_and_advance over rows, then observe_rows of the learner
    seats (a game stopped at an external seat or over gets an all-zero mask)."""
    act_and_advance(S, T, rows, actions, pol, rng, ok, who)
    observe_rows(S, T, rows, seats, obs, masks)
