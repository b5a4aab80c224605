"""DESIGN.md's invariants as a compiled check, for millions of random steps (the readable twin
with detailed messages is v1919_env.envs.conformance)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .board import _policy_index, is_usa_faction, over_unit_limit
from .solo import is_bot_decision
from .layout import (D_KEEP, D_MUTINY, DEP_COL, DRAWN, EV_CUBE, EV_DECK, EV_DECK_N, EV_DISC, EV_DISC_N, EV_TABLE,
                     EV_WAIT, FRAME_W, F_A0, F_PROC, GAME_OVER, HAPPY, INF_AVAIL, INF_EXH, ISSUE_CTRL, ISSUE_DECK,
                     ISSUE_DECK_N, ISSUE_DISC, ISSUE_DISC_N, KEG, MAX_PLAYERS, MIL_AVAIL, MIL_DEMOB, MIL_EXH,
                     N_EVENTS, N_ISSUES, N_NATIONS, N_REGIONS, N_SLOTS, NUM_PLAYERS, PENDING, P_BID, P_EVENT,
                     P_MUTINY, SLOT_CUBES, SLOT_ISSUE, SP, STACK, STATE_SIZE, UNREST, D_BID, D_DRAFT, D_EVENT_CUBE,
                     DRAFT_DONE, MODE, MODE_SOLO, PENDING_FACTION, PENDING_PLAYER, PLAYER_STRAT, SOLO_FACTION,
                     SOLO_FACTIONS, SOLO_TARGET, SOLO_VP, STRAT_DEALT, TURN_NO)
from .step import MAX_LEGAL, _policy_next, apply_action, init_game, legal
from .tables import T_FIRST_DEP_COL, T_INFLUENCE, T_KEG_MAX, T_MILITARY, T_TRACK_COLS

OK, BAD_INFLUENCE, BAD_MILITARY, BAD_SPACE, BAD_TRACK, BAD_HAPPY, BAD_ZERO, BAD_ISSUE, BAD_EVENT, DEAD_END, \
    NO_END, OVER_LIMIT, BAD_SOLO, BOT_LEFT = range(14)
MESSAGES = ("ok", "influence cubes not conserved", "military units not conserved", "two units share a space",
            "powder keg / unrest / military order broken", "happiness out of 0..30", "happiness left the zero box",
            "an issue card is not in exactly one place", "an event card is not in exactly one place",
            "no legal action although the game is not over", "the game did not end",
            "a player has more units than its happiness zone allows and no mutiny is under way",
            "solitaire: the player's faction, VP or seat, or the solitaire setup (no strategy cards, no Italian or "
            "Japanese happiness, two waiting-room issues, no cube on an event) is broken",
            "solitaire: a bot decision that the bot rules settle was left to the player")


@njit(cache=True, _nrt=False)
def check_solo(s, T, buf):
    """The solitaire game's own invariants (EN:860-884): OK, BAD_SOLO or BOT_LEFT."""
    if not (0 <= s[SOLO_FACTION] < SOLO_FACTIONS and 0 <= s[SOLO_VP] <= s[TURN_NO] + 1 and s[SOLO_TARGET] >= 1):
        return BAD_SOLO
    if s[HAPPY + 3] != 0 or s[HAPPY + 4] != 0 or s[EV_CUBE] >= 0 or s[SLOT_ISSUE + N_SLOTS - 1] >= 0 \
            or s[DRAFT_DONE] != 0:
        return BAD_SOLO
    for j in range(MAX_PLAYERS + 1):
        if s[STRAT_DEALT + j] >= 0:
            return BAD_SOLO
    for p in range(MAX_PLAYERS):
        if s[PLAYER_STRAT + p] >= 0:
            return BAD_SOLO
    if s[GAME_OVER] == 0:
        if s[PENDING_PLAYER] != 0 or not 0 <= s[PENDING_FACTION] < SOLO_FACTIONS:
            return BAD_SOLO
        if s[PENDING] == D_DRAFT or s[PENDING] == D_EVENT_CUBE:
            return BAD_SOLO
        if is_bot_decision(s):
            if s[PENDING] == D_BID or legal(s, T, buf) == 1:
                return BOT_LEFT
    return OK


@njit(cache=True)
def check(s, T, prev_happy):
    """0 if every invariant holds, else the code of the first broken one."""
    n = s[NUM_PLAYERS]
    for p in range(n):
        on = 0
        for sl in range(N_SLOTS):
            on += s[SLOT_CUBES + sl * MAX_PLAYERS + p]
        cube = 1 if s[EV_CUBE] == p else 0
        if s[INF_AVAIL + p] < 0 or s[INF_EXH + p] < 0 or s[INF_AVAIL + p] + s[INF_EXH + p] + on + cube != \
                T[T_INFLUENCE]:
            return BAD_INFLUENCE
        dep = 0
        for r in range(N_REGIONS):
            c = s[DEP_COL + p * N_REGIONS + r]
            if c != 0 and not T[T_FIRST_DEP_COL] <= c <= T[T_TRACK_COLS]:
                return BAD_MILITARY
            if c > 0:
                dep += 1
        if min(s[MIL_AVAIL + p], s[MIL_EXH + p], s[MIL_DEMOB + p]) < 0 or \
                s[MIL_AVAIL + p] + s[MIL_EXH + p] + s[MIL_DEMOB + p] + dep != (
                    0 if is_usa_faction(s, p) else T[T_MILITARY]):
            return BAD_MILITARY
    for r in range(N_REGIONS):
        cap = T[T_TRACK_COLS]
        for p in range(n):
            c = s[DEP_COL + p * N_REGIONS + r]
            if c > 0:
                for q in range(p + 1, n):
                    if s[DEP_COL + q * N_REGIONS + r] == c:
                        return BAD_SPACE
                if c - 1 < cap:
                    cap = c - 1
        if not (0 <= s[KEG + r] <= T[T_KEG_MAX] and s[KEG + r] < s[UNREST + r] <= cap):
            return BAD_TRACK
    for k in range(N_NATIONS):
        if not 0 <= s[HAPPY + k] <= 30:
            return BAD_HAPPY
        if prev_happy[k] == 0 and s[HAPPY + k] != 0:
            return BAD_ZERO
    where = np.zeros(N_ISSUES, np.int64)
    for sl in range(N_SLOTS):
        if s[SLOT_ISSUE + sl] >= 0:
            where[s[SLOT_ISSUE + sl]] += 1
    for j in range(s[ISSUE_DECK_N]):
        where[s[ISSUE_DECK + j]] += 1
    for j in range(s[ISSUE_DISC_N]):
        where[s[ISSUE_DISC + j]] += 1
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] >= 0:
            where[i] += 1
    for k in range(s[SP]):
        if s[STACK + k * FRAME_W + F_PROC] == P_BID:
            where[s[STACK + k * FRAME_W + F_A0]] += 1
    if s[PENDING] == D_KEEP and s[GAME_OVER] == 0:
        where[s[DRAWN]] += 1
        where[s[DRAWN + 1]] += 1
    for i in range(N_ISSUES):
        if where[i] != 1:
            return BAD_ISSUE
    mutiny = s[PENDING] == D_MUTINY
    for k in range(s[SP]):
        proc = s[STACK + k * FRAME_W + F_PROC]
        if proc == P_MUTINY or proc == P_EVENT:      # an event checks when applied in full (P-11)
            mutiny = True
    if not mutiny and s[GAME_OVER] == 0:
        for p in range(n):
            if over_unit_limit(s, T, p):
                return OVER_LIMIT
    ew = np.zeros(N_EVENTS, np.int64)
    if s[EV_TABLE] >= 0:
        ew[s[EV_TABLE]] += 1
    for w in range(2):
        if s[EV_WAIT + w] >= 0:
            ew[s[EV_WAIT + w]] += 1
    for j in range(s[EV_DECK_N]):
        ew[s[EV_DECK + j]] += 1
    for j in range(s[EV_DISC_N]):
        ew[s[EV_DISC + j]] += 1
    for e in range(N_EVENTS):
        if ew[e] != 1:
            return BAD_EVENT
    if s[MODE] == MODE_SOLO:
        return check_solo(s, T, np.empty(MAX_LEGAL, np.int64))
    return OK


@njit(cache=True)
def random_games_checked(num_games, num_players, T, seed, variant, negotiation, max_decisions, out):
    """Play random games checking every invariant after every step.

    out[g] = decisions of game g; returns (error code, game, step) of the first failure or (0, -1, -1)."""
    s = np.zeros(STATE_SIZE, np.int32)
    buf = np.empty(MAX_LEGAL, np.int64)
    prev = np.zeros(N_NATIONS, np.int64)
    r = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(11)
    for g in range(num_games):
        init_game(s, T, num_players, seed * 7919 + g, variant, negotiation)
        for k in range(N_NATIONS):
            prev[k] = 1
        k = 0
        while True:
            e = check(s, T, prev)
            if e != OK:
                return e, g, k
            for j in range(N_NATIONS):
                prev[j] = s[HAPPY + j]
            if s[GAME_OVER] != 0:
                break
            nl = legal(s, T, buf)
            if nl == 0:
                return DEAD_END, g, k
            r = _policy_next(r)
            apply_action(s, T, buf[_policy_index(r, nl)])
            k += 1
            if k > max_decisions:
                return NO_END, g, k
        out[g] = k
    return OK, -1, -1
