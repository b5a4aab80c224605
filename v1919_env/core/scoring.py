"""Final scoring (EN 'Final Scoring', 'Tie Breaks'): issue stars, own-flag counters, strategy
cards, happiness VP; winners after the tie-breaks."""
from __future__ import annotations

from numba import njit

from .board import count_counters, issue_counter, issues_controlled, issues_in_region, n_players
from .layout import HAPPY, ISSUE_CTRL, MIL_DEMOB, N_ISSUES, N_REGIONS, PLAYER_STRAT, UNREST
from .tables import (ANY_FLAG, C_COUNTERS, C_HAPPY_X2, C_ISSUE_REGIONS, C_ISSUES, C_MILITARY, C_REGIONS_UNREST,
                     C_TREATY, CONDW, MAX_COND, T_FLAG_VP, T_HAPPY_VP, T_ISSUE_CAT, T_ISSUE_STARS, T_MILITARY,
                     T_SIGN, T_STRAT_COND, T_STRAT_NCOND, T_ZERO_VP)

# breakdown columns (final_scores); a score table (score_table) adds the ranking's other criteria and the winner flag
SC_ISSUES, SC_FLAGS, SC_STRATEGY, SC_HAPPINESS, SC_TOTAL = range(5)
N_SCORE_COLS = 5
SC_LEVEL, SC_CONTROLLED, SC_WINNER = range(N_SCORE_COLS, N_SCORE_COLS + 3)
SCORE_TABLE_COLS = N_SCORE_COLS + 3


@njit(cache=True, _nrt=False)
def _counters_flagged(s, T, kind, flag):
    if flag == ANY_FLAG:
        return count_counters(s, T, kind, -1)
    base = 5 if kind == 5 else 10
    n = 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] >= 0:
            n += issue_counter(s, T, i, base + flag)
    return n


@njit(cache=True, _nrt=False)
def _strategy(s, T, p):
    """(strategy VP, happiness multiplier) from p's strategy card (EN:737-749)."""
    c = s[PLAYER_STRAT + p]
    if c < 0:
        return 0, 1
    vp, mult = 0, 1
    for j in range(T[T_STRAT_NCOND + c]):
        b = T_STRAT_COND + (c * MAX_COND + j) * CONDW
        k = T[b]
        if k == C_COUNTERS:
            vp += T[b + 3] * _counters_flagged(s, T, T[b + 1], T[b + 2])
        elif k == C_REGIONS_UNREST:
            n = 0
            for r in range(N_REGIONS):
                if (T[b + 1] == 1) == (s[UNREST + r] >= 4):
                    n += 1
            vp += T[b + 2] * n
        elif k == C_MILITARY:
            vp += T[b + 1] * (T[T_MILITARY] - s[MIL_DEMOB + p])
        elif k == C_HAPPY_X2:
            mult = 2
        elif k == C_TREATY:
            ok = True
            for nat in range(5):
                if (T[b + 1] >> nat) & 1 and (s[HAPPY + nat] >= T[T_SIGN]) != (T[b + 2] == 1):
                    ok = False
            if ok:
                vp += T[b + 3]
        elif k == C_ISSUES:
            n = 0
            for i in range(N_ISSUES):
                ctrl = s[ISSUE_CTRL + i]
                if ctrl >= 0 and (T[b + 1] >> T[T_ISSUE_CAT + i]) & 1 and (T[b + 2] == 0 or ctrl == p):
                    n += 1
            vp += T[b + 3] * n
        elif k == C_ISSUE_REGIONS:
            n = 0
            for r in range(N_REGIONS):
                if issues_in_region(s, T, p, r) > 0:
                    n += 1
            vp += T[b + 1] * n
    return vp, mult


@njit(cache=True, _nrt=False)
def seat_score(s, T, p):
    """Seat p's final-scoring breakdown (EN:725-763, rulings A-09): issue stars, own-flag counters,
    strategy card and happiness VP. The 2-player USA's issues score for nobody and it takes no
    happiness place (EN:829, 755)."""
    np_ = n_players(s)
    stars, flags = 0, 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] == p:
            stars += T[T_ISSUE_STARS + i]
            flags += issue_counter(s, T, i, 5 + p) + issue_counter(s, T, i, 10 + p)
    flags *= T[T_FLAG_VP]
    strat, mult = _strategy(s, T, p)
    higher = 0
    for q in range(np_):
        if s[HAPPY + q] > s[HAPPY + p]:
            higher += 1
    hv = T[T_HAPPY_VP + np_ * 4 + higher]
    if s[HAPPY + p] == 0:
        hv += T[T_ZERO_VP]
    return stars, flags, strat, hv * mult


@njit(cache=True, _nrt=False)
def final_scores(s, T, out):
    """Fill out[p, SC_*] with seat_score for every seat."""
    for p in range(n_players(s)):
        stars, flags, strat, hv = seat_score(s, T, p)
        out[p, SC_ISSUES] = stars
        out[p, SC_FLAGS] = flags
        out[p, SC_STRATEGY] = strat
        out[p, SC_HAPPINESS] = hv
        out[p, SC_TOTAL] = stars + flags + strat + hv


@njit(cache=True, _nrt=False)
def winners(s, T, sc):
    """Bit mask of winners: most points, then happiness, then issues controlled, else shared (EN:765-769);
    the 2-player USA cannot win (EN:829)."""
    np_ = n_players(s)
    best = -(1 << 40)
    for p in range(np_):
        key = (sc[p, SC_TOTAL] * 64 + s[HAPPY + p]) * 64 + issues_controlled(s, p)
        if key > best:
            best = key
    m = 0
    for p in range(np_):
        key = (sc[p, SC_TOTAL] * 64 + s[HAPPY + p]) * 64 + issues_controlled(s, p)
        if key == best:
            m |= 1 << p
    return m


@njit(cache=True, _nrt=False)
def score_table(s, T, out):
    """out[p] (MAX_PLAYERS, SCORE_TABLE_COLS): final_scores, then the seat's happiness level, issues
    controlled and 1 if it wins (the rows of Game.scores()); returns the winners bit mask."""
    final_scores(s, T, out)
    win = winners(s, T, out)
    for p in range(n_players(s)):
        out[p, SC_LEVEL] = s[HAPPY + p]
        out[p, SC_CONTROLLED] = issues_controlled(s, p)
        out[p, SC_WINNER] = (win >> p) & 1
    return win
