"""The imitation warm start: teacher decisions recorded from compiled rule-bot games (legal, replayable,
value targets from the seat's final reward) and the fit of policy and value heads to them."""
from __future__ import annotations

import logging

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training.teacher import teacher_decisions  # noqa: E402

REWARD = {"win_loss": 1.0, "score_margin": 0.5}


@pytest.fixture(scope="module")
def data():
    return teacher_decisions("rulebot", 3000, 4, REWARD, gamma=0.99, seed=3)


def test_teacher_decisions_are_legal_choices_with_discounted_returns(data):
    assert len(data) == 3000 and data.games >= 3
    n = np.arange(len(data))
    assert data.masks[n, data.actions].all()                 # the teacher's action is legal
    assert (data.masks.sum(axis=1) >= 2).all()               # single-choice decisions are skipped
    assert np.abs(data.returns).max() <= 1.5 + 1e-6          # |win_loss| <= 1, |score_margin| <= 1 (x 0.5)
    assert 0.25 <= data.teacher_win_share <= 1.0             # every game has a winner
    assert data.obs.dtype == np.float16 and np.isfinite(data.obs.astype(np.float32)).all()


def test_teacher_decisions_match_the_single_env_and_the_rulebot():
    """Replay the first recorded game with the Game API and the compiled rule bot: same
    observations, masks and actions, and the last decision of each seat carries its final reward."""
    from v1919_env.core.bots import POLICY_RULEBOT, policy_action, seed_policy_rng
    from v1919_env.core.layout import MAX_LEGAL
    from v1919_env.core.observe import OBS_SIZE, observe
    from v1919_env.game import Game
    from v1919_env.rewards import terminal_rewards

    d = teacher_decisions("rulebot", 400, 4, "win_loss", gamma=0.5, seed=11)
    seed = int(np.random.default_rng(11).integers(0, 2 ** 62, size=64, dtype=np.int64)[0])
    g = Game.new(4, seed=seed)
    rng = seed_policy_rng(seed + 1)
    buf = np.empty(MAX_LEGAL, np.int64)
    k, seen = 0, []
    obs = np.zeros(OBS_SIZE, np.float32)
    while not g.is_over and k < len(d):
        mask = g.action_mask()
        a = int(policy_action(g.state, g.T, POLICY_RULEBOT, buf, rng))
        if mask.sum() > 1:
            p = g.current_player
            observe(g.state, g.T, p, obs)
            np.testing.assert_array_equal(d.obs[k], obs.astype(np.float16))
            np.testing.assert_array_equal(d.masks[k], mask.astype(bool))
            assert d.actions[k] == a
            seen.append((k, p))
            k += 1
        g.step(a)
    assert g.is_over and k < len(d)       # the whole first game was recorded
    final = terminal_rewards(g.scores(), "win_loss")
    for p in range(4):
        last = max(j for j, q in seen if q == p)
        assert d.returns[last] == pytest.approx(final[p])
        earlier = max(j for j, q in seen if q == p and j < last)
        assert d.returns[earlier] == pytest.approx(0.5 * final[p])


def test_same_seed_same_decisions(data):
    again = teacher_decisions("rulebot", 3000, 4, REWARD, gamma=0.99, seed=3)
    np.testing.assert_array_equal(again.actions, data.actions)
    np.testing.assert_array_equal(again.obs, data.obs)
    with pytest.raises(ValueError, match="teacher: 'greedy'"):
        teacher_decisions("greedy", 10, 4, REWARD, gamma=0.99, seed=3)


def test_fit_learns_the_teacher_and_the_values(data, caplog, capsys):
    import torch
    from sb3_contrib import MaskablePPO

    from training.config import config_from_dict
    from training.envs import make_vec_env
    from training.policy import policy_kwargs
    from training.pretrain import evaluate_fit, fit

    torch.manual_seed(0)
    cfg = config_from_dict({"policy": {"trunk": [64], "pi": [32], "vf": [32]}, "env": {"num_envs": 4},
                           "ppo": {"batch_size": 256}}, "t")      # a minibatch fits in a rollout (128 x 4)
    venv, _ = make_vec_env(cfg, ["random"], None, seed=0)
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs=policy_kwargs(cfg), device="cpu", seed=0)
    idx = np.arange(len(data))
    before = evaluate_fit(model.policy, data, idx)
    with caplog.at_level(logging.INFO, logger="training.pretrain"):
        out = fit(model.policy, data, epochs=8, batch_size=128, learning_rate=3e-3, value_coef=0.5, holdout=0.05,
                  seed=0)
    assert capsys.readouterr().out == ""             # library code logs, it does not print
    assert [r.getMessage().split(":")[0] for r in caplog.records] == ["imitation"]
    after = evaluate_fit(model.policy, data, idx)
    assert out["holdout"] == 150 and out["after"]["cross_entropy"] < out["before"]["cross_entropy"]
    assert after["accuracy"] > before["accuracy"] + 0.2
    assert after["value_mse"] < before["value_mse"]
