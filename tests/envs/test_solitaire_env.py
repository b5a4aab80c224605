"""The solitaire game's Gymnasium env (v1919_env/envs/solitaire_gym.py): API conformance, the VP return,
the win/loss reward, observations, bad configuration, illegal actions, MaskablePPO."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from helpers import solitaire_example as X
import v1919_env
from v1919_env.actions import NUM_ACTIONS, encode
from v1919_env.core.observe import OBS_SIZE
from v1919_env.envs.solitaire_gym import SOLO_FEATURES, SolitaireEnv


def _play_random(env, seed, rng_seed=0):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    rewards, infos = [], [info]
    while True:
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, r, term, trunc, info = env.step(a)
        rewards.append(r)
        infos.append(info)
        if term or trunc:
            return rewards, infos


@pytest.mark.parametrize("obs_mode", ["dict", "vector"])
def test_check_env(obs_mode):
    check_env(SolitaireEnv(obs_mode=obs_mode), skip_render_check=True)


def test_registered_and_made_by_gym():
    env = gym.make("Versailles1919Solitaire-v4", faction="uk", target_vp=25)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["target_vp"] == 25 and info["player_vp"] == 0
    assert isinstance(v1919_env.solitaire_env(), SolitaireEnv)


def test_spaces_and_features():
    env = SolitaireEnv(faction="france")
    obs, info = env.reset(seed=4)
    assert obs["observation"].shape == (OBS_SIZE,) and obs["action_mask"].shape == (NUM_ACTIONS,)
    f = dict(zip(SOLO_FEATURES, obs["solitaire"]))
    assert f["faction_france"] == 1.0 and f["faction_uk"] == f["faction_usa"] == 0.0
    assert f["for_" + info["acting_for"]] == 1.0                 # the decision is for this faction
    assert f["target_vp"] == 20 / 20
    assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())
    vec = SolitaireEnv(obs_mode="vector").reset(seed=4)[0]
    assert vec.shape == (OBS_SIZE + len(SOLO_FEATURES),)


def test_every_step_is_the_players_and_episodes_end():
    env = SolitaireEnv()
    rewards, infos = _play_random(env, seed=11)
    assert env.game.is_over and infos[-1]["scores"][0]["target_vp"] == 20
    assert sum(rewards) == env.game.player_vp            # reward 'vp': the return is the player's VP
    assert all(i["seat"] == 0 for i in infos)


def test_vp_reward_pays_the_vp_when_it_is_scored():
    """From the example before turn 16 (the UK, the player, scores its first VP, IT:2011): the step
    that ends the USA bot's turn pays 1."""
    env = SolitaireEnv()
    env.reset(seed=0)
    g = X.replay(until=14)
    assert g.turn == 15 and g.player_vp == 0 and g.decision == "turn"
    env.game, env._vp = g, g.player_vp
    slot = X._slot(g, "Disarmament")
    _, r1, *_ = env.step(encode("place", slot=slot, n=1))
    _, r2, term, trunc, info = env.step(encode("place", slot=X._slot(g, "Bessarabia"), n=1))
    assert (r1, r2) == (0.0, 1.0) and info["player_vp"] == 1 and not (term or trunc)


def test_win_loss_reward():
    lost = SolitaireEnv(reward="win_loss")
    rewards, _ = _play_random(lost, seed=2)
    assert rewards[-1] == -1.0 and set(rewards[:-1]) == {0.0} and not lost.game.won
    won = SolitaireEnv(reward="win_loss", target_vp=1)      # the example scores a VP on turn 16
    won.reset(seed=0)
    g = X.replay(until=14)
    g.state[v1919_env.core.layout.SOLO_TARGET] = 1
    won.game, won._vp = g, 0
    rng = np.random.default_rng(0)
    while True:
        _, r, term, trunc, _ = won.step(int(rng.choice(np.flatnonzero(won.action_masks()))))
        if term or trunc:
            break
        assert r == 0.0
    assert won.game.won and r == 1.0


def test_same_seed_same_episode():
    a = _play_random(SolitaireEnv(), seed=5)
    b = _play_random(SolitaireEnv(), seed=5)
    assert a == b
    c = _play_random(SolitaireEnv(), seed=6)
    assert [i["decision"] for i in c[1]] != [i["decision"] for i in a[1]]


@pytest.mark.parametrize("kwargs, field", [({"faction": "italy"}, "faction"), ({"target_vp": 0}, "target_vp"),
                                           ({"reward": "rank"}, "reward"), ({"obs_mode": "pixels"}, "obs_mode")])
def test_bad_configuration_names_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        SolitaireEnv(**kwargs)


def test_illegal_action_ends_the_episode_or_raises():
    env = SolitaireEnv()
    env.reset(seed=1)
    before = env.game.to_dict()
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    obs, r, term, trunc, info = env.step(illegal)
    assert (r, term, trunc, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.game.to_dict() == before and np.flatnonzero(obs["action_mask"]).tolist() == [0]
    assert "solitaire" in info["illegal_reason"]
    strict = SolitaireEnv(illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(v1919_env.actions.IllegalActionError, match="solitaire"):
        strict.step(illegal)


def test_maskable_ppo_runs():
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    torch.set_num_threads(1)
    env = SolitaireEnv()
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1,
                        policy_kwargs=dict(net_arch=[16]), seed=0, verbose=0)
    model.learn(128)
    obs, _ = env.reset(seed=1)
    a, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(a)] and model.num_timesteps >= 128
