"""The rules kernels run without numba's reference counting (core/stack.py): stack scratch arrays,
the non-allocating deploy check and score table that this needs, and a guard that the hot kernels
stay compiled that way."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from v1919_env.envs import vector_kernels
from v1919_env.core import layout as L
from v1919_env.core.observe import observe
from v1919_env.core.scoring import SCORE_TABLE_COLS, score_table
from v1919_env.core.stack import stack_empty
from v1919_env.core.step import apply_action, init_game, legal, run
from v1919_env.core.turn import can_deploy, legal_deploy
from v1919_env.game import Game, score_rows

N = 64


@njit(_nrt=False)
def _squares_on_the_stack(k):
    buf = stack_empty(N, np.int64)
    for i in range(k):
        buf[i] = i * i
    t = 0
    for i in range(k):
        t += buf[i]
    return t, buf.shape[0]


@njit(_nrt=False)
def _nested(k):
    t = 0
    for j in range(20):                # a fresh frame per call: no call sees another's values
        t += _squares_on_the_stack(k + j % 3)[0]
    return t


def test_stack_empty_is_a_writable_array_of_the_constant_size():
    assert _squares_on_the_stack(10) == (sum(i * i for i in range(10)), N)
    assert _nested(5) == sum(sum(i * i for i in range(5 + j % 3)) for j in range(20))


@pytest.mark.parametrize("kernel", [legal, apply_action, run, init_game, observe, vector_kernels.vector_step,
                                    vector_kernels.vector_continue, vector_kernels.vector_reset])
def test_hot_kernels_are_compiled_without_reference_counting(kernel):
    # an allocation anywhere below them would no longer compile (rather than slow every call down)
    assert kernel.targetoptions.get("_nrt") is False


def _random_states(num_players, games, seed):
    rng = np.random.default_rng(seed)
    for g in range(games):
        game = Game.new(num_players, seed=seed * 1000 + g)
        while not game.is_over:
            yield game
            acts = game.legal_actions()
            game.step(int(acts[rng.integers(len(acts))]))
        yield game


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_can_deploy_is_whether_legal_deploy_lists_anything(num_players):
    buf = np.empty(L.MAX_LEGAL, np.int64)
    seen = {True: 0, False: 0}
    for game in _random_states(num_players, 6, num_players):
        for p in range(L.MAX_PLAYERS if num_players == 2 else num_players):
            if p >= num_players and not (num_players == 2 and p == L.USA_FACTION):
                continue
            want = legal_deploy(game.state, game.T, p, buf, 0) > 0
            assert can_deploy(game.state, game.T, p) == want
            seen[want] += 1
    assert seen[True] > 100 and seen[False] > 100     # both answers were exercised


def test_score_table_rows_are_the_game_scores():
    tab = np.zeros((L.MAX_PLAYERS, SCORE_TABLE_COLS), np.int64)
    for game in _random_states(4, 3, 7):
        if not game.is_over:
            continue
        win = score_table(game.state, game.T, tab)
        rows = score_rows(tab, 4)
        assert rows == game.scores()
        assert win == sum(1 << p for p, r in enumerate(rows) if r["winner"])
        assert [r["issues_controlled"] for r in rows] == [
            int(np.sum(game.state[L.ISSUE_CTRL:L.ISSUE_CTRL + L.N_ISSUES] == p)) for p in range(4)]
        assert [r["happiness_level"] for r in rows] == game.state[L.HAPPY:L.HAPPY + 4].tolist()
