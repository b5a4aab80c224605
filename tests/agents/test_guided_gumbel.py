"""The Gumbel root of the `guided` search (`root=gumbel`, agents/guided.py and agents/guided_kernels.py):
Gumbel-top-k sampling of the considered actions, sequential halving of the budget over them, the
move among the most visited, determinism given a seed, and the option errors."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents import make_agent, parse_agent_spec  # noqa: E402
from agents.guided_kernels import F_PENDING, F_VISITS, gumbel_rank  # noqa: E402
from v1919_env.game import Game  # noqa: E402

from helpers.games import mid_game  # noqa: E402


def wide_position(min_legal=20, seed=3):
    """A 4-player position with at least `min_legal` legal actions."""
    g = Game.new(4, seed=seed)
    rng = np.random.default_rng(seed)
    while len(g.legal_actions()) < min_legal:
        acts = g.legal_actions()
        g.step(int(acts[rng.integers(len(acts))]))
        assert not g.is_over
    return g


def gumbel(**kw):
    return make_agent("guided", **{"iterations": 48, "batch_size": 8, "root": "gumbel", "seed": 1, **kw})


def test_options_are_validated_with_clear_errors():
    for opts, msg in (({"root": "ucb"}, "option root must be one of puct, gumbel"),
                      ({"root": "gumbel", "considered": 0}, "considered must be an integer >= 1"),
                      ({"root": "gumbel", "considered": 2.5}, "considered must be an integer"),
                      ({"root": "gumbel", "c_scale": 0}, "c_scale must be a number > 0"),
                      ({"root": "gumbel", "c_visit": -1}, "c_visit must be a number >= 0"),
                      ({"root": "gumbel", "gumbel_scale": -1}, "gumbel_scale must be a number >= 0"),
                      ({"considered": 8}, "considered is an option of root=gumbel"),
                      ({"c_scale": 0.3}, "c_scale is an option of root=gumbel"),
                      ({"root": "gumbel", "time_ms": 50}, "give iterations, not time_ms")):
        with pytest.raises(ValueError, match=msg):
            make_agent("guided", **opts)
    name, opts = parse_agent_spec("guided:root=gumbel,considered=8,iterations=32")
    a = make_agent(name, **opts)
    assert (a.root, a.considered, a.iterations) == ("gumbel", 8, 32) and "considered=8" in repr(a)


def test_gumbel_rank_orders_by_score_and_keeps_ties_in_order():
    idx = np.arange(6, dtype=np.int64)
    score = np.array([0.5, 2.0, -1.0, 2.0, 3.0, 0.5])
    gumbel_rank(idx, 6, score)
    assert idx.tolist() == [4, 1, 3, 0, 5, 2]
    assert score.tolist() == [3.0, 2.0, 2.0, 0.5, 0.5, -1.0]


def test_visits_spread_over_the_considered_actions_and_the_budget_is_spent():
    g = wide_position()
    n = len(g.legal_actions())
    puct = make_agent("guided", iterations=48, batch_size=8, seed=1)
    puct.act(None, g.action_mask(), g.clone())
    a = gumbel(considered=16)
    before = g.state.copy()
    move = a.act(None, g.action_mask(), g)
    assert np.array_equal(g.state, before)
    st = a.last_stats
    assert st["simulations"] == 48 and st["visits"].sum() == 47
    assert np.all(a.NF[:st["nodes"], F_PENDING] == 0)
    cons = st["considered"]
    assert cons.sum() == min(16, n)
    visited = st["visits"] > 0
    assert np.all(cons[visited])                        # only the considered actions are searched
    assert visited.sum() == cons.sum()                  # each of them at least once (the first phase)
    assert visited.sum() > (puct.last_stats["visits"] > 0).sum()
    j = list(st["actions"]).index(move)                 # the move is one of the most visited
    assert cons[j] and st["visits"][j] == st["visits"][cons].max()
    assert np.isfinite(st["root_value"])


def test_the_halving_keeps_the_better_half_each_phase():
    """16 considered, 64 simulations (63 after the root's own evaluation), 4 phases: each remaining
    action gets max(1, 63 // (4 x remaining)) simulations a phase: 1 each for 16, 1 for 8, 3 for 4,
    then 7 for 2 until the budget is spent (the last phase cut): visit counts 1 (8 actions), 2 (4),
    5 (2) and 18-19 (2)."""
    g = wide_position(min_legal=20)
    a = gumbel(iterations=64, considered=16)
    a.act(None, g.action_mask(), g.clone())
    v = np.sort(a.last_stats["visits"][a.last_stats["considered"]])[::-1]
    assert v.sum() == 63
    assert v[2:].tolist() == [5, 5] + [2] * 4 + [1] * 8
    assert sorted(v[:2].tolist()) == [18, 19]


def test_same_seed_same_move_and_visits_other_seeds_other_samples():
    g = wide_position()
    runs = []
    for seed in (5, 5, 6, 7):
        a = gumbel(seed=seed, considered=4)
        m = a.act(None, g.action_mask(), g.clone())
        runs.append((m, a.last_stats["visits"].tolist(), a.last_stats["considered"].tolist()))
    assert runs[0] == runs[1]
    assert len({tuple(r[2]) for r in runs}) > 1         # the considered sets are samples
    b = gumbel(seed=5, considered=4)
    b.reset(5)
    assert b.act(None, g.action_mask(), g.clone()) == runs[0][0]


def test_without_noise_the_considered_actions_are_the_top_priors():
    g = wide_position()
    for seed in (1, 2):
        a = gumbel(seed=seed, considered=3, gumbel_scale=0.0)
        a.act(None, g.action_mask(), g.clone())
        st = a.last_stats
        top = set(np.argsort(-st["priors"], kind="stable")[:3].tolist())
        assert set(np.flatnonzero(st["considered"]).tolist()) == top


def test_one_considered_action_takes_the_whole_budget_and_plays_it():
    g = mid_game(seed=6)
    a = gumbel(considered=1, iterations=20)
    m = a.act(None, g.action_mask(), g.clone())
    st = a.last_stats
    assert st["considered"].sum() == 1 and st["visits"].max() == 19
    assert st["actions"][int(np.argmax(st["visits"]))] == m
    assert a.NF[0, F_VISITS] == 20


def test_plays_a_whole_game_with_legal_moves():
    from helpers.games import play

    play([gumbel(iterations=8, batch_size=4, considered=4)] + [make_agent("rulebot") for _ in range(3)], 4, seed=2,
         variant="short15")
