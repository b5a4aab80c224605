"""The driver: legal actions of the pending decision, applying an action and running the automatic
steps to the next decision; batch kernels over [batch, state] arrays and random playouts."""
from __future__ import annotations

import numpy as np
from numba import njit

from .actions import A_BID_PASS, A_DEMOB, A_FLAG, action_ids
from .board import _policy_index, _policy_next, top  # noqa: F401  (_policy_next: the policies' generator, re-exported)
from .events import event_proc, legal_event
from .layout import (ACTIVE, MAX_LEGAL, D_CHOOSE_FACTION, MODE, MODE_SOLO, PENDING_FACTION, P_SWITCH, D_ADD_ISSUE,
                     D_ADV_EVENT, D_ADV_ISSUE, D_AFFECTED, D_BID, D_DRAFT, D_EVENT_CUBE, D_KEEP, D_MODIFIER, D_MUTINY,
                     D_NAVAL, D_OPTION, D_PLACE2, D_SIGN, D_TURN, D_UPRISING_ISSUE, DECISIONS, F_A0, F_PROC,
                     GAME_OVER, PENDING, PENDING_PLAYER, P_BID, P_DRAFT, P_EVENT, P_MUTINY, P_OPTION, P_SETTLE,
                     P_TURN, P_UPRISING, STATE_SIZE)
from .settle import (legal_add_issue, legal_adv_event, legal_adv_issue, legal_event_cube, legal_keep, legal_option,
                     option_proc, settle_proc)
from .setup import new_game
from .stack import stack_empty
from .solo import bot_legal, is_bot_decision, legal_switch, solo_auto, solo_filter, switch_proc
from .turn import legal_demobilize, legal_place_second, legal_turn, mutiny_proc, turn_proc
from .uprising import (bid_proc, draft_proc, legal_affected, legal_bid, legal_bid_tie, legal_draft, legal_modifier,
                       legal_sign, legal_uprising_issue, uprising_proc)

MAX_DECISIONS = 20000      # safety cap reported as truncation, not a rule (rulings A-39)


@njit(cache=True, _nrt=False)
def legal(s, T, out):
    """Write the legal action ids of the pending decision into out; return how many (0 when over).
    In the solitaire game a bot faction's decision offers what the bot rules allow (core/solo.py)."""
    if s[MODE] == MODE_SOLO and s[GAME_OVER] == 0 and is_bot_decision(s):
        n = bot_legal(s, T, out)
        if n >= 0:
            return n
    n = _legal_rules(s, T, out)
    if s[MODE] == MODE_SOLO and n > 0:
        return solo_filter(s, T, out, n)
    return n


@njit(cache=True, _nrt=False)
def _legal_rules(s, T, out):
    """The legal actions by the rules of play, whoever decides."""
    if s[GAME_OVER] != 0:
        return 0
    k = s[PENDING]
    p = s[PENDING_FACTION]
    if k == D_TURN:
        return legal_turn(s, T, out)
    if k == D_PLACE2:
        return legal_place_second(s, s[ACTIVE], s[top(s) + F_A0], out, 0)
    if k == D_OPTION:
        return legal_option(s, T, out)
    if k == D_NAVAL:
        out[0] = A_FLAG
        out[1] = A_FLAG + 1
        return 2
    if k == D_EVENT_CUBE:
        return legal_event_cube(s, out)
    if k == D_ADV_ISSUE:
        return legal_adv_issue(s, out)
    if k == D_ADV_EVENT:
        return legal_adv_event(s, out)
    if k == D_ADD_ISSUE:
        return legal_add_issue(s, T, out)
    if k == D_KEEP:
        return legal_keep(s, out)
    if k == D_MODIFIER:
        return legal_modifier(out)
    if k == D_AFFECTED:
        return legal_affected(s, out)
    if k == D_UPRISING_ISSUE:
        return legal_uprising_issue(s, T, out)
    if k == D_BID:
        out[0] = A_BID_PASS
        return legal_bid(s, T, p, out, 1)
    if k == D_DRAFT:
        return legal_draft(s, T, out)
    if k == D_SIGN and s[top(s) + F_PROC] == P_UPRISING:
        return legal_sign(out)
    if k == D_MUTINY:
        return legal_demobilize(s, p, out, 0, A_DEMOB)
    if k == D_CHOOSE_FACTION:
        return legal_switch(s, T, out) if s[top(s) + F_PROC] == P_SWITCH else legal_bid_tie(s, out)
    return legal_event(s, T, k, out)


@njit(cache=True, _nrt=False)
def _dispatch(s, T, kind, a):
    proc = s[top(s) + F_PROC]
    if proc == P_TURN:
        turn_proc(s, T, kind, a)
    elif proc == P_SETTLE:
        settle_proc(s, T, kind, a)
    elif proc == P_OPTION:
        option_proc(s, T, kind, a)
    elif proc == P_EVENT:
        event_proc(s, T, kind, a)
    elif proc == P_UPRISING:
        uprising_proc(s, T, kind, a)
    elif proc == P_BID:
        bid_proc(s, T, kind, a)
    elif proc == P_DRAFT:
        draft_proc(s, T, kind, a)
    elif proc == P_MUTINY:
        mutiny_proc(s, T, kind, a)
    elif proc == P_SWITCH:
        switch_proc(s, T, kind, a)
    else:
        raise ValueError("unknown procedure on the frame stack")


@njit(cache=True, _nrt=False)
def run(s, T, kind, a):
    """Apply (kind, a) to the top frame, then run automatic steps to the next decision or the end."""
    if s[MODE] == MODE_SOLO:
        _run_solo(s, T, kind, a)
        return
    while s[GAME_OVER] == 0:
        if s[PENDING] != 0:
            return
        if s[DECISIONS] > MAX_DECISIONS:
            s[GAME_OVER] = 2
            return
        _dispatch(s, T, kind, a)
        kind = 0
        a = -1


@njit(cache=True, _nrt=False)
def _run_solo(s, T, kind, a):
    """`run` for the solitaire game: the bots' decisions that their rules settle are taken here, as
    decisions of the game (counted, safety cap included), until the player must decide."""
    buf = stack_empty(MAX_LEGAL, np.int64)
    while s[GAME_OVER] == 0:
        if s[PENDING] != 0:
            if not is_bot_decision(s):
                return
            a = solo_auto(s, T, buf, legal(s, T, buf))
            if a < 0:
                return
            kind = s[PENDING]
            s[PENDING] = 0
            s[DECISIONS] += 1
        if s[DECISIONS] > MAX_DECISIONS:
            s[GAME_OVER] = 2
            return
        _dispatch(s, T, kind, a)
        kind = 0
        a = -1


@njit(cache=True, _nrt=False)
def apply_action(s, T, a):
    """Apply a legal action (the caller checks legality) and advance to the next decision."""
    kind = s[PENDING]
    s[PENDING] = 0
    s[DECISIONS] += 1
    run(s, T, kind, a)


@njit(cache=True, _nrt=False)
def try_step(s, T, a, buf):
    """Apply a if it is legal (one compiled call for the facade); returns False and changes nothing if not."""
    n = legal(s, T, buf)
    for j in range(n):
        if buf[j] == a:
            apply_action(s, T, a)
            return True
    return False


@njit(cache=True, _nrt=False)
def advance(s, T, a, buf):
    """The facade's step (one compiled entry point, where `run` and `try_step` were two that each
    compiled the whole rules core): a < 0 runs a new game's automatic steps to its first decision
    (True); else try_step(s, T, a, buf)."""
    if a < 0:
        run(s, T, 0, -1)
        return True
    return try_step(s, T, a, buf)


@njit(cache=True, _nrt=False)
def init_game(s, T, num_players, seed, variant, negotiation):
    new_game(s, T, num_players, seed, variant, negotiation)
    run(s, T, 0, -1)


# ----------------------------------------------------------------------------- batch kernels
@njit(cache=True, _nrt=False)
def init_batch(S, T, num_players, seeds, variant, negotiation):
    for b in range(S.shape[0]):
        init_game(S[b], T, num_players, seeds[b], variant, negotiation)


@njit(cache=True)
def mask_batch(S, T, M):
    """M[b, :] = 1 for the legal actions of game b (all zeros when it is over)."""
    buf = np.empty(MAX_LEGAL, np.int64)
    M[:] = 0
    for b in range(S.shape[0]):
        n = legal(S[b], T, buf)
        for j in range(n):
            M[b, buf[j]] = 1


@njit(cache=True)
def _step_batch(S, T, actions, ok):
    """Apply actions[b] to every unfinished game b where it is legal; ok[b] = 1 if applied, 0 if
    the game is over or the action is illegal (that game is left unchanged). Returns the number of
    actions applied."""
    buf = np.empty(MAX_LEGAL, np.int64)
    applied = 0
    for b in range(S.shape[0]):
        ok[b] = 0
        if S[b, GAME_OVER] == 0 and try_step(S[b], T, actions[b], buf):
            ok[b] = 1
            applied += 1
    return applied


@njit(cache=True, _nrt=False)
def _step_batch_unchecked(S, T, actions):
    for b in range(S.shape[0]):
        if S[b, GAME_OVER] == 0:
            apply_action(S[b], T, actions[b])


def step_batch(S, T, actions, ok) -> int:
    """Apply actions[b] to every unfinished game b where it is legal; ok[b] = 1 if applied, 0 if
    the game is over or the action is illegal (that game is left unchanged). Returns the number of
    actions applied. actions: a 1-d integer array, one id per game (v1919_env.actions.action_ids)."""
    return _step_batch(S, T, action_ids(actions, S.shape[0]), ok)


def step_batch_unchecked(S, T, actions) -> None:
    """step_batch without the legality check, for callers whose actions come from mask_batch of
    the same states (an illegal action here corrupts that game). Still a 1-d integer array."""
    _step_batch_unchecked(S, T, action_ids(actions, S.shape[0]))


@njit(cache=True)
def random_playout_batch(S, T, policy_seed, max_decisions):
    """Play every game to the end with uniformly random legal actions; returns total decisions.

    The policy draws from its own generator, so the games' own dice stay reproducible."""
    buf = np.empty(MAX_LEGAL, np.int64)
    r = np.uint64(policy_seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    total = 0
    for b in range(S.shape[0]):
        s = S[b]
        k = 0
        while s[GAME_OVER] == 0 and k < max_decisions:
            n = legal(s, T, buf)
            r = _policy_next(r)
            a = buf[_policy_index(r, n)]
            apply_action(s, T, a)
            k += 1
        total += k
    return total


@njit(cache=True, _nrt=False)
def play_random_until(s, T, seat, rng, buf):
    """Play uniformly random legal actions for every seat but `seat` until `seat` must decide or the
    game ends (random opponents of the Gymnasium env, in one compiled call). rng: uint64[1] state."""
    k = 0
    while s[GAME_OVER] == 0 and s[PENDING_PLAYER] != seat:
        n = legal(s, T, buf)
        rng[0] = _policy_next(rng[0])
        apply_action(s, T, buf[_policy_index(rng[0], n)])
        k += 1
    return k


@njit(cache=True)
def random_games(num_games, num_players, T, seed, variant, negotiation):
    """Create and play num_games random games at batch size 1 (a compiled loop); returns decisions."""
    s = np.zeros(STATE_SIZE, np.int32)
    buf = np.empty(MAX_LEGAL, np.int64)
    total = 0
    r = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(7)
    for g in range(num_games):
        init_game(s, T, num_players, seed * 100003 + g, variant, negotiation)
        while s[GAME_OVER] == 0:
            n = legal(s, T, buf)
            r = _policy_next(r)
            a = buf[_policy_index(r, n)]
            apply_action(s, T, a)
            total += 1
    return total

