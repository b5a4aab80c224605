"""Where a decision of a random game goes, by decision kind (`v1919 bench --vector`).

Random games are played by the compiled loop and every decision's position is kept; each kind's
positions (a few hundred, so that they stay in the CPU's cache as one game's state does) are then
timed apart: the legal actions (core.step.legal) and the transition with its automatic steps to the
next decision (core.step.apply_action, less the copy of the position it is applied to). A kind's
weight is its share of the decisions, so the weighted sum is the rules core's cost of an average
decision. Kept outside v1919_env/core/ so that editing it does not recompile the rules core.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from .core.board import _policy_index, _policy_next
from .core.layout import GAME_OVER, MAX_LEGAL, PENDING, STATE_SIZE
from .core.step import apply_action, init_game, legal


@njit(cache=True)
def random_positions(num_games, num_players, T, seed, S, A, N):
    """Play num_games random games (as core.step.random_games deals and draws them) and keep each
    decision's position S[k], the action taken A[k] and the legal actions' count N[k] while S has
    room; returns the decisions played."""
    s = np.zeros(STATE_SIZE, np.int32)
    buf = np.empty(MAX_LEGAL, np.int64)
    k = 0
    r = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(7)
    for g in range(num_games):
        init_game(s, T, num_players, seed * 100003 + g, 0, 0)
        while s[GAME_OVER] == 0:
            n = legal(s, T, buf)
            r = _policy_next(r)
            a = buf[_policy_index(r, n)]
            if k < S.shape[0]:
                S[k] = s
                A[k] = a
                N[k] = n
            k += 1
            apply_action(s, T, a)
    return k


@njit(cache=True)
def legal_all(S, T, reps):
    """The legal actions of every position of S, reps times over; returns their total count."""
    buf = np.empty(MAX_LEGAL, np.int64)
    t = 0
    for _ in range(reps):
        for i in range(S.shape[0]):
            t += legal(S[i], T, buf)
    return t


@njit(cache=True)
def _apply_all(S, A, T, W, reps, apply):
    """Copy each position into W and (apply) take its action there."""
    for _ in range(reps):
        for i in range(S.shape[0]):
            W[:] = S[i]
            if apply:
                apply_action(W, T, A[i])


def decision_costs(T, num_players: int = 4, games: int = 100, per_kind: int = 300, seed: int = 1,
                   rounds: int = 5) -> list[dict]:
    """One row per decision kind met in `games` random games, the most costly first: its name, share
    of the decisions, ns of its legal actions and of its transition (best of `rounds`), the mean
    number of legal actions, and `weighted_ns` (share x both)."""
    from .core import layout

    cap = games * 800
    S = np.zeros((cap, STATE_SIZE), np.int32)
    A = np.zeros(cap, np.int64)
    N = np.zeros(cap, np.int64)
    k = min(random_positions(games, num_players, T, seed, S, A, N), cap)
    S, A, N = S[:k], A[:k], N[:k]
    names = {v: n for n, v in vars(layout).items() if n.startswith("D_") and isinstance(v, int)}
    W = np.zeros(STATE_SIZE, np.int32)
    reps = 8
    rows = []
    for kind in np.unique(S[:, PENDING]):
        sel = np.flatnonzero(S[:, PENDING] == kind)
        Sk, Ak = np.ascontiguousarray(S[sel[:per_kind]]), A[sel[:per_kind]]
        m = len(Sk)

        def best(fn):
            fn()
            out = []
            for _ in range(rounds):
                c = time.perf_counter()
                fn()
                out.append(time.perf_counter() - c)
            return min(out) / (reps * m) * 1e9

        leg = best(lambda: legal_all(Sk, T, reps))
        app = best(lambda: _apply_all(Sk, Ak, T, W, reps, True)) - best(lambda: _apply_all(Sk, Ak, T, W, reps, False))
        share = len(sel) / k
        rows.append({"kind": names.get(int(kind), str(int(kind))), "share": share, "legal_ns": leg,
                     "apply_ns": max(app, 0.0), "mean_legal": float(N[sel].mean()),
                     "weighted_ns": share * (leg + max(app, 0.0))})
    return sorted(rows, key=lambda r: -r["weighted_ns"])


def format_decision_costs(rows: list[dict], top: int = 6) -> list[str]:
    """Lines of decision_costs: the total and the `top` most costly kinds."""
    total = sum(r["weighted_ns"] for r in rows)
    lines = [f"  a decision by kind (positions of random games kept in cache; ns): {total:.0f} an average decision"]
    for r in rows[:top]:
        lines.append(f"    {r['kind']:<18} {100 * r['share']:5.1f}% of decisions  legal actions {r['legal_ns']:5.0f} "
                     f"({r['mean_legal']:.1f} of them)  transition {r['apply_ns']:5.0f}  "
                     f"{100 * r['weighted_ns'] / total:4.1f}% of the time")
    return lines
