"""The vector env plays the solitaire game (num_players=1): the same games as Game and the single
SolitaireEnv, the solitaire features, the VP and win/loss rewards, gymnasium.make_vec."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import v1919_env
from v1919_env.core.observe import OBS_SIZE, observe
from v1919_env.envs.solitaire_features import SOLO_FEATURES, solo_features
from v1919_env.envs.vector_env import VectorEnv
from v1919_env.game import Game


@pytest.mark.parametrize("faction, target", [(None, 20), ("france", 25)])
def test_same_games_as_game_new_with_the_features_and_vp_rewards(faction, target):
    v = VectorEnv(num_envs=3, num_players=1, seed=5, reward="vp", faction=faction, target_vp=target)
    obs, masks = v.reset_all()
    assert obs.shape == (3, OBS_SIZE + len(SOLO_FEATURES)) and v.observation_space.shape == (obs.shape[1],)
    games = [Game.new(1, seed=int(v.game_seeds[b]), faction=faction, target_vp=target) for b in range(3)]
    rng = np.random.default_rng(1)
    ret, ended = np.zeros(3), 0
    row = np.empty(OBS_SIZE, np.float32)
    for _ in range(700):
        for b, g in enumerate(games):
            assert np.array_equal(v.S[b], g.state)
            observe(g.state, g.T, 0, row)
            assert np.array_equal(obs[b, :OBS_SIZE], row) and np.array_equal(obs[b, OBS_SIZE:], solo_features(g))
            assert set(np.flatnonzero(masks[b]).tolist()) == set(g.legal_actions().tolist())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        before = [g.player_vp for g in games]
        for g, a in zip(games, actions):
            g.step(int(a))
        obs, masks, rewards, term, trunc, finals = v.step_all(actions)
        for b, g in enumerate(games):
            assert rewards[b] == g.player_vp - before[b]          # the VP scored in the step
            ret[b] += rewards[b]
            if b in finals:
                fo, fm, info = finals[b]
                assert g.is_over and term[b] and info["player_vp"] == g.player_vp == ret[b]
                assert info["winner"] == g.won and info["target_vp"] == target and info["opponents"] == []
                assert np.array_equal(fo[OBS_SIZE:], solo_features(g))
                games[b] = Game.new(1, seed=int(v.game_seeds[b]), faction=faction, target_vp=target)
                ret[b] = 0
                ended += 1
    assert ended >= 3


def test_win_loss_reward_and_the_level():
    v = VectorEnv(num_envs=8, num_players=1, seed=0, reward="win_loss", target_vp=1)
    obs, masks = v.reset_all()
    rng = np.random.default_rng(0)
    results = []
    while len(results) < 60:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, masks, rewards, term, trunc, finals = v.step_all(actions)
        for b in range(8):
            if b in finals:
                info = finals[b][2]
                assert info["winner"] == (info["player_vp"] >= 1)
                assert rewards[b] == (1.0 if info["winner"] else -1.0)
                results.append(info["winner"])
            else:
                assert rewards[b] == 0.0
    assert 0 < sum(results) < len(results)          # random play wins some games at level 1, loses most


def test_bad_solitaire_options_are_clear_errors():
    with pytest.raises(ValueError, match="reward: the solitaire game pays one of"):
        VectorEnv(num_envs=2, num_players=1, reward="rank")
    with pytest.raises(ValueError, match="faction"):
        VectorEnv(num_envs=2, num_players=1, faction="italy")
    with pytest.raises(ValueError, match="options of the solitaire game"):
        VectorEnv(num_envs=2, num_players=4, faction="uk")
    with pytest.raises(ValueError, match="num_players must be 1"):
        VectorEnv(num_envs=2, num_players=5)


def test_make_vec_gives_the_compiled_solitaire_vector_env_with_the_single_envs_layout():
    env = gym.make_vec(v1919_env.SOLITAIRE_GYM_ID, num_envs=4, vectorization_mode="vector_entry_point",
                       faction="uk", target_vp=20)
    single = gym.make(v1919_env.SOLITAIRE_GYM_ID, faction="uk")
    assert env.single_observation_space == single.observation_space
    obs, _ = env.reset(seed=2)
    assert {k: v.shape for k, v in obs.items()} == {"observation": (4, OBS_SIZE), "action_mask": (4, 694),
                                                    "solitaire": (4, len(SOLO_FEATURES))}
    assert obs["solitaire"][:, 0].tolist() == [1.0] * 4           # the UK, as asked
    acts = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    obs, rewards, term, trunc, infos = env.step(acts)
    assert rewards.shape == (4,)
    with pytest.raises(ValueError, match="obs_mode"):
        gym.make_vec(v1919_env.SOLITAIRE_GYM_ID, num_envs=2, vectorization_mode="vector_entry_point", obs_mode="vector")
    env.close()
