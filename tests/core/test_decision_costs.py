"""The vector bench's split of a random game's decisions by kind (v1919_env.decision_costs)."""
from __future__ import annotations

import numpy as np
import pytest

from v1919_env.core.layout import PENDING, STATE_SIZE
from v1919_env.core.step import random_games
from v1919_env.decision_costs import decision_costs, format_decision_costs, random_positions
from v1919_env.game import card_tables

T = card_tables()[1]


def test_the_positions_are_those_of_the_random_games_loop():
    S = np.zeros((5000, STATE_SIZE), np.int32)
    A = np.zeros(5000, np.int64)
    N = np.zeros(5000, np.int64)
    k = random_positions(3, 4, T, 5, S, A, N)
    assert k == random_games(3, 4, T, 5, 0, 0)          # the same deals and draws
    kept = min(k, 5000)
    assert (S[:kept, PENDING] > 0).all() and (N[:kept] >= 1).all()
    assert (A[:kept] >= 0).all()


def test_every_kind_met_has_a_row_and_the_shares_sum_to_one():
    rows = decision_costs(T, 4, games=3, per_kind=20, rounds=1)
    assert sum(r["share"] for r in rows) == pytest.approx(1.0)
    assert len({r["kind"] for r in rows}) == len(rows) and all(r["kind"].startswith("D_") for r in rows)
    assert max(rows, key=lambda r: r["share"])["kind"] == "D_TURN"       # about half of a game's decisions
    for r in rows:
        assert r["legal_ns"] > 0 and r["apply_ns"] >= 0 and r["mean_legal"] >= 1
        assert r["weighted_ns"] == pytest.approx(r["share"] * (r["legal_ns"] + r["apply_ns"]))
    assert [r["weighted_ns"] for r in rows] == sorted((r["weighted_ns"] for r in rows), reverse=True)
    lines = format_decision_costs(rows, top=3)
    assert len(lines) == 4 and "an average decision" in lines[0] and "D_TURN" in "".join(lines)
