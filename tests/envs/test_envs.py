"""PettingZoo AEC and Gymnasium environments: the projects' own checkers, seeding, rewards,
illegal-action policies, rendering, and a MaskablePPO smoke run."""
from __future__ import annotations

import numpy as np
import pytest

import v1919_env
from v1919_env.actions import NUM_ACTIONS
from v1919_env.game import IllegalActionError
from v1919_env.rewards import terminal_rewards


# ------------------------------------------------------------------ PettingZoo
@pytest.mark.parametrize("players", [3, 4])
def test_pettingzoo_api_test(players):
    from pettingzoo.test import api_test
    api_test(v1919_env.env(players), num_cycles=2000)


def test_pettingzoo_api_test_auto_forced_and_shaping():
    from pettingzoo.test import api_test
    api_test(v1919_env.env(4, auto_forced=True, shaping=True, reward="rank"), num_cycles=500)


def test_pettingzoo_seed_test():
    from pettingzoo.test import seed_test
    seed_test(lambda: v1919_env.env(4), num_cycles=300)


def _play_aec(e, seed, policy_seed):
    e.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    trace = []
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, a, float(obs["observation"].sum())))
        e.step(a)
    return trace


def test_pettingzoo_full_game_and_rewards():
    e = v1919_env.env(4)
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        totals[agent] += rew
        if term or trunc:
            assert info["decision"] == "game_over" and info["card_set"] == e.card_set_label
            e.step(None)
            continue
        assert agent == e.possible_agents[e.game.current_player]
        assert info["decision"] == e.game.decision
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.sum() >= 1
        assert set(np.flatnonzero(mask)) == set(int(x) for x in e.game.legal_actions())
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert sum(totals.values()) == pytest.approx(0.0)          # win_loss is zero-sum
    assert max(totals.values()) > 0


def test_pettingzoo_reset_reproducible():
    e = v1919_env.env(3)
    assert _play_aec(e, 11, 1) == _play_aec(e, 11, 1)
    assert _play_aec(e, 11, 1) != _play_aec(e, 12, 1)


def test_pettingzoo_observation_is_own_perspective():
    e = v1919_env.env(4)
    e.reset(seed=5)
    from v1919_env.core.observe import obs_slices
    off, n, _ = obs_slices()["my_nation"]
    for k, a in enumerate(e.possible_agents):
        o = e.observe(a)["observation"]
        assert o[off + k] == 1.0 and o[off:off + n].sum() == 1.0
        if a != e.agent_selection:
            assert e.observe(a)["action_mask"].sum() == 0


def test_pettingzoo_illegal_action_raise_and_penalize():
    e = v1919_env.env(4)
    e.reset(seed=1)
    before = e.game.state.copy()
    bad = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="phase"):
        e.step(bad)
    assert np.array_equal(before, e.game.state)
    p = v1919_env.env(4, illegal_action="penalize")
    p.reset(seed=1)
    offender = p.agent_selection
    p.step(bad)
    assert all(p.terminations.values())
    assert p.rewards[offender] == -1.0 and p.infos[offender]["illegal_action"]


def test_pettingzoo_illegal_action_in_raise_mode_keeps_the_rewards():
    """A caught illegal step changes nothing, the shaped rewards included."""
    e = v1919_env.env(4, shaping=True)
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    while e.last()[1] == 0.0:
        e.step(int(rng.choice(np.flatnonzero(e.last()[0]["action_mask"]))))
    agent = e.agent_selection
    before = (dict(e.rewards), dict(e._cumulative_rewards), e.game.state.copy())
    bad = int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0])
    for wrong in (bad, None, 2.5, "x", 10 ** 30, -1):
        with pytest.raises(IllegalActionError):
            e.step(wrong)
    assert (dict(e.rewards), dict(e._cumulative_rewards)) == before[:2]
    assert np.array_equal(e.game.state, before[2]) and e.agent_selection == agent


def test_pettingzoo_penalized_episode_offers_no_action():
    p = v1919_env.env(3, illegal_action="penalize")
    p.reset(seed=2)
    offender = p.agent_selection
    p.step(int(np.flatnonzero(p.observe(offender)["action_mask"] == 0)[0]))
    assert all(p.terminations.values()) and p.rewards[offender] == -1.0
    assert "not legal in phase 'turn'" in p.infos[offender]["illegal_reason"]
    assert all("illegal_reason" not in p.infos[a] for a in p.agents if a != offender)
    assert all(p.observe(a)["action_mask"].sum() == 0 for a in p.agents)
    for _ in p.agent_iter():
        assert p.last()[2]
        p.step(None)
    assert p.agents == []


def test_pettingzoo_observations_belong_to_the_caller():
    e = v1919_env.env(4)
    e.reset(seed=5)
    agent = e.agent_selection
    first = e.observe(agent)
    first["action_mask"][:] = 0
    first["observation"][:] = 0
    again = e.observe(agent)
    assert again["action_mask"].sum() == len(e.game.legal_actions()) and again["observation"].any()
    e.step(int(np.flatnonzero(again["action_mask"])[0]))
    a, b = e.observe(e.agent_selection), e.observe(e.agent_selection)
    assert a["observation"] is not b["observation"] and np.array_equal(a["observation"], b["observation"])


def test_render_before_reset_is_a_clear_error():
    with pytest.raises(RuntimeError, match="reset"):
        v1919_env.env(4, render_mode="ansi").render()
    with pytest.raises(RuntimeError, match="reset"):
        v1919_env.gym_env(num_players=4, render_mode="ansi").render()


def test_pettingzoo_render_modes(capsys):
    e = v1919_env.env(3, render_mode="ansi")
    e.reset(seed=0)
    assert "Region tracks" in e.render()
    h = v1919_env.env(3, render_mode="human")
    h.reset(seed=0)                               # 'human' renders on reset and on every step
    assert "Region tracks" in capsys.readouterr().out
    h.step(int(np.flatnonzero(h.last()[0]["action_mask"])[0]))
    assert "Region tracks" in capsys.readouterr().out
    assert h.render() is None and "Region tracks" in capsys.readouterr().out


def test_pettingzoo_bad_config():
    with pytest.raises(ValueError, match="reward"):
        v1919_env.env(4, reward="elo")
    with pytest.raises(ValueError, match="num_players"):
        v1919_env.env(5)


def test_reward_kinds():
    sc = [{"total": 30, "winner": False}, {"total": 42, "winner": True}, {"total": 32, "winner": False},
          {"total": 30, "winner": False}]
    assert terminal_rewards(sc, "win_loss") == pytest.approx([-1 / 3, 1.0, -1 / 3, -1 / 3])
    assert terminal_rewards(sc, "rank") == pytest.approx([-2 / 3, 1.0, 1 / 3, -2 / 3])
    m = terminal_rewards(sc, "score_margin")
    assert m[1] > 0 > m[0] and all(-1 <= x <= 1 for x in m)
    shared = [{"total": 40, "winner": True}, {"total": 40, "winner": True}, {"total": 10, "winner": False}]
    assert terminal_rewards(shared, "win_loss") == pytest.approx([0.5, 0.5, -1.0])
    # tied totals are ranked as the rules rank the winner: happiness, then issues controlled
    tied = [{"total": 40, "happiness_level": 12, "issues_controlled": 5, "winner": True},
            {"total": 40, "happiness_level": 9, "issues_controlled": 7, "winner": False},
            {"total": 40, "happiness_level": 9, "issues_controlled": 6, "winner": False}]
    assert terminal_rewards(tied, "rank") == pytest.approx([1.0, 0.0, -1.0])


# ------------------------------------------------------------------ Gymnasium
def test_gymnasium_check_env():
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env
    check_env(gym.make("Versailles1919-v4", num_players=4).unwrapped, skip_render_check=True)
    check_env(v1919_env.gym_env(num_players=3, obs_mode="vector"), skip_render_check=True)


def test_sb3_check_env():
    sb3 = pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env
    check_env(v1919_env.gym_env(num_players=4), warn=True)
    assert sb3


def test_gymnasium_episode_and_masks():
    env = v1919_env.gym_env(num_players=4, seat=2)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    steps, done = 0, False
    while not done:
        m = env.action_masks()
        assert m.dtype == bool and np.array_equal(m, obs["action_mask"].astype(bool))
        assert env.game.current_player == 2
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(m))))
        done = term or trunc
        steps += 1
    assert r in (1.0, -1 / 3, 1 / 2, 1 / 3, -1.0) or -1 <= r <= 1
    assert "scores" in info and steps > 20


def test_gymnasium_reset_reproducible():
    def run(seed):
        env = v1919_env.gym_env(num_players=3)
        obs, _ = env.reset(seed=seed)
        out = [obs["observation"].copy()]
        rng = np.random.default_rng(1)
        for _ in range(60):
            obs, r, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            out.append(obs["observation"].copy())
            if term or trunc:
                break
        return np.array(out)
    assert np.array_equal(run(7), run(7))
    assert not np.array_equal(run(7), run(8))


def test_gymnasium_illegal_action_policies():
    env = v1919_env.gym_env(num_players=4)
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    before = env.game.state.copy()
    obs, r, term, trunc, info = env.step(bad)
    assert term and r == -1.0 and info["illegal_action"] and np.array_equal(before, env.game.state)
    strict = v1919_env.gym_env(num_players=4, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(bad)


def test_gymnasium_episode_ended_by_an_illegal_action_is_over():
    env = v1919_env.gym_env(num_players=4)
    env.reset(seed=0)
    obs, r, term, trunc, info = env.step(int(np.flatnonzero(~env.action_masks())[0]))
    assert term and r == -1.0 and info["illegal_action"] and "not legal in phase" in info["illegal_reason"]
    # nothing is played from the final observation: its mask holds the fill action 0 alone
    assert np.flatnonzero(obs["action_mask"]).tolist() == [0] and np.flatnonzero(env.action_masks()).tolist() == [0]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(int(np.flatnonzero(env.game.action_mask())[0]))
    obs, _ = env.reset(seed=0)
    assert env.action_masks().any()


def test_gymnasium_opponent_policies_own_their_observations():
    kept = []

    def policy(obs, info):
        kept.append(obs["observation"])
        return int(np.flatnonzero(obs["action_mask"])[0])

    env = v1919_env.gym_env(num_players=4, opponents=policy)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(5):
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert len(kept) > 3 and len({id(o) for o in kept}) == len(kept)
    assert not all(np.array_equal(kept[0], o) for o in kept[1:])


def test_maskable_ppo_smoke_run():
    """2,000 learning steps with a tiny network: the pieces fit together."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    torch.set_num_threads(1)
    env = v1919_env.gym_env(num_players=4, obs_mode="vector")
    model = MaskablePPO("MlpPolicy", env, n_steps=500, batch_size=250, n_epochs=2,
                        policy_kwargs=dict(net_arch=[16]), seed=0, verbose=0)
    model.learn(2000)
    obs, _ = env.reset(seed=1)
    a, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(a)]
    assert model.num_timesteps >= 2000


def test_observation_table_documents_every_slice():
    from v1919_env.core.observe import OBS_SIZE, OBS_SLICES
    from v1919_env.docs import observation_table
    text = observation_table()
    for name, n, _ in OBS_SLICES:
        assert f"| {name} |" in text
    assert sum(n for _, n, _ in OBS_SLICES) == OBS_SIZE
    assert NUM_ACTIONS == v1919_env.env(4).action_space("uk").n


def test_observation_counters_match_the_engine():
    from v1919_env.core.board import issue_counter
    from v1919_env.core.layout import N_ISSUES
    from v1919_env.core.observe import obs_slices
    from v1919_env.core.vocab import N_COUNTERS
    e = v1919_env.env(4)
    e.reset(seed=9)
    rng = np.random.default_rng(2)
    for _ in range(400):
        if e.game.is_over:
            break
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    g = e.game
    want = [sum(issue_counter(g.state, g.T, i, k) for i in range(N_ISSUES)) for k in range(N_COUNTERS)]
    off, n, _ = obs_slices()["counters_in_play"]
    got = e.observe("uk")["observation"][off:off + n] * 8
    assert np.allclose(got, want) and sum(want) > 0
