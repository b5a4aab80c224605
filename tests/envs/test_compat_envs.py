"""Issue 12, the options other RL libraries need: the AEC env's Box observation with the mask in
info["action_mask"], numeric infos, and the self-play Gymnasium env (every seat's final reward
reaches the learner). The libraries' own loops are in test_compat_libs.py."""
import itertools

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import v1919_env
from helpers.compat import masked_aec_moves
from v1919_env.actions import NUM_ACTIONS, IllegalActionError
from v1919_env.compat import SelfPlayEnv
from v1919_env.envs.pettingzoo_env import GAME_OVER, INFO_DECISIONS, WAITING, decision_name
from v1919_env.rewards import terminal_rewards


def test_vector_obs_mode_matches_the_dict_layout_and_masks_every_info():
    d = v1919_env.env(num_players=3)
    v = v1919_env.env(num_players=3, obs_mode="vector")
    assert v.observation_space("uk") == spaces.Box(0.0, 10.0, (d.observation_space("uk")["observation"].shape[0],),
                                                   np.float32)
    moves = 0
    for (ad, od, idict), (av, ov, iv) in zip(masked_aec_moves(d, 5, lambda o, i: o["action_mask"]),
                                             masked_aec_moves(v, 5, lambda o, i: i["action_mask"])):
        assert ad == av and isinstance(ov, np.ndarray)
        np.testing.assert_array_equal(od["observation"], ov)
        np.testing.assert_array_equal(od["action_mask"], iv["action_mask"])
        assert iv["decision"] == idict["decision"]
        for other in v.agents:                  # every agent's info has a mask: zeros for those not to move
            if other != av:
                assert not v.infos[other]["action_mask"].any()
        moves += 1
    assert moves > 100
    # at the end every info's mask is all zeros
    v.reset(seed=5)
    g = v.game
    while not g.is_over:
        v.step(g.legal_actions()[0])
    assert all(not info["action_mask"].any() and info["decision"] == "game_over" for info in v.infos.values())


def test_vector_obs_mode_passes_the_pettingzoo_api_test():
    api_test(v1919_env.env(obs_mode="vector"), num_cycles=200)


def test_numeric_infos_hold_numbers_only_with_fixed_keys_and_the_names_stay_available():
    named = v1919_env.env(num_players=4)
    num = v1919_env.env(num_players=4, numeric_info=True)
    keys = {"decision", "illegal_action", "score"}
    steps = 0
    for (a1, _, i1), (a2, _, i2) in zip(masked_aec_moves(named, 9, lambda o, i: o["action_mask"]),
                                        masked_aec_moves(num, 9, lambda o, i: o["action_mask"])):
        assert a1 == a2
        assert decision_name(i2["decision"]) == i1["decision"]
        for agent, info in num.infos.items():
            assert set(info) == keys
            assert all(isinstance(x, (int, float)) for x in info.values())
            if agent != a2:
                assert info["decision"] == WAITING
        steps += 1
    assert steps > 100
    # the last infos before the agents leave: the final totals
    num.reset(seed=9)
    g = num.game
    rng = np.random.default_rng(0)
    while not g.is_over:
        num.step(int(rng.choice(g.legal_actions())))
    for p, a in enumerate(num.possible_agents):
        assert num.infos[a] == {"decision": GAME_OVER, "illegal_action": 0, "score": float(g.scores()[p]["total"])}


def test_numeric_infos_flag_the_offender_of_an_illegal_action():
    env = v1919_env.env(num_players=3, numeric_info=True, illegal_action="penalize")
    env.reset(seed=1)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    for a, info in env.infos.items():
        assert info == {"decision": GAME_OVER, "illegal_action": int(a == offender), "score": 0.0}


def test_decision_names_and_bad_codes():
    assert decision_name(WAITING) == "waiting"
    assert decision_name(GAME_OVER) == "game_over"
    assert decision_name(1) == INFO_DECISIONS[1] == "turn"
    with pytest.raises(ValueError, match="decision code"):
        decision_name(len(INFO_DECISIONS))
    with pytest.raises(ValueError, match="obs_mode"):
        v1919_env.env(obs_mode="box")


# ---------------------------------------------------------------------- the self-play Gymnasium env
def _self_play_episode(env, seed, policy_seed=0):
    """Random masked play; returns per-seat reward sums, the seat of each step, the settlement flags."""
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    per_seat = np.zeros(env.num_players)
    seats, settle = [], []
    while True:
        seat = info["seat"]
        seats.append(seat)
        settle.append(info["settlement"])
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        per_seat[seat] += r
        if term or trunc:
            return per_seat, seats, settle, term, trunc


@pytest.mark.parametrize("num_players,reward,obs_mode", [(4, "win_loss", "dict"), (3, "rank", "vector")])
def test_self_play_every_seat_final_reward_reaches_the_learner(num_players, reward, obs_mode):
    env = SelfPlayEnv(num_players=num_players, reward=reward, obs_mode=obs_mode)
    per_seat, seats, settle, term, trunc = _self_play_episode(env, seed=4)
    want = terminal_rewards(env.aec.game.scores(), reward)
    np.testing.assert_allclose(per_seat, want)
    assert term != trunc
    # one settlement step for each seat other than the last mover, in seat order after it
    assert settle[-(num_players - 1):] == [True] * (num_players - 1) and not any(settle[:-(num_players - 1)])
    last = seats[-num_players]
    assert seats[-(num_players - 1):] == [(last + j) % num_players for j in range(1, num_players)]


@pytest.mark.parametrize("num_players", [3, 4])
def test_self_play_pays_each_seat_its_shaped_rewards_exactly_once(num_players):
    """With shaping, the rewards of a seat summed over the episode equal its terminal reward (the
    shaping telescopes), an illegal id refused in 'raise' mode on the way changing nothing."""
    env = SelfPlayEnv(num_players=num_players, shaping=True, illegal_action="raise", reward="rank")
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    per_seat = np.zeros(num_players)
    for step in itertools.count():
        if step % 7 == 3 and not info["settlement"]:
            with pytest.raises(IllegalActionError):
                env.step(int(np.flatnonzero(~env.action_masks())[0]))
        seat = info["seat"]
        _, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        per_seat[seat] += r
        if term or trunc:
            break
    np.testing.assert_allclose(per_seat, terminal_rewards(env.aec.game.scores(), "rank"), atol=1e-9)


def test_self_play_settlement_steps_allow_action_zero_only():
    env = SelfPlayEnv(num_players=3)
    _, info = env.reset(seed=2)
    rng = np.random.default_rng(1)
    while not info["settlement"]:
        _, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    m = env.action_masks()
    assert m[0] and m.sum() == 1


def test_self_play_is_deterministic_and_checked_by_gymnasium():
    a = _self_play_episode(SelfPlayEnv(num_players=3), seed=11)
    b = _self_play_episode(SelfPlayEnv(num_players=3), seed=11)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1]
    check_env(SelfPlayEnv(num_players=3), skip_render_check=True)


def test_self_play_illegal_action_penalises_the_offender_and_still_settles():
    env = SelfPlayEnv(num_players=4, illegal_penalty=-2.0)
    _, info = env.reset(seed=0)
    offender = info["seat"]
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, r, term, trunc, info = env.step(illegal)
    assert r == -2.0 and not term and info["settlement"]
    total, settled = 0.0, [info["seat"]]
    while not (term or trunc):
        _, r, term, trunc, info = env.step(0)
        total += r
        settled.append(info["seat"])
    assert total == 0.0 and term
    assert sorted(set(settled)) == sorted(set(range(4)) - {offender})

    strict = SelfPlayEnv(num_players=4, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    with pytest.raises(RuntimeError, match="reset"):
        SelfPlayEnv(num_players=3).step(0)


def test_self_play_with_sb3_contrib_action_masker_and_maskable_ppo():
    """The PettingZoo SB3 action-mask tutorial's loop, on SelfPlayEnv."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    torch.set_num_threads(1)
    env = ActionMasker(SelfPlayEnv(num_players=3, obs_mode="vector"), lambda e: e.action_masks())
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=128, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=256)
    obs, _ = env.reset(seed=0)
    act, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(act)]
    assert model.num_timesteps >= 256 and NUM_ACTIONS == env.action_space.n


def test_compat_imports_no_rl_library_until_an_adapter_is_called():
    import subprocess
    import sys
    code = ("import sys, v1919_env.compat\n"
            "print(*(m in sys.modules for m in ('torch', 'ray', 'torchrl', 'tianshou', 'supersuit')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"] * 5
