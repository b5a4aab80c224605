"""The every-seat-learns wrapper under its registered Gymnasium id (issue 23): `gymnasium.make` passes
the keyword arguments through to `v1919_env.compat.SelfPlayEnv`, the env passes Gymnasium's
`check_env`, a whole game plays through gym.make's wrappers, and `make_vec` copies it per game."""
from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import v1919_env  # noqa: F401  (registers the ids)
from v1919_env.actions import IllegalActionError
from v1919_env.compat import SelfPlayEnv
from v1919_env.envs.versions import ENV_VERSION, SELFPLAY_GYM_ID
from v1919_env.rewards import terminal_rewards


def test_the_id_carries_the_env_version_and_names_the_wrapper():
    assert SELFPLAY_GYM_ID == f"Versailles1919SelfPlay-v{ENV_VERSION}"
    spec = gymnasium.spec(SELFPLAY_GYM_ID)
    assert spec.entry_point == "v1919_env.envs.compat:SelfPlayEnv"
    assert spec.vector_entry_point is None          # make_vec copies the single env (sync / async)


def test_make_passes_the_keyword_arguments_through():
    env = gymnasium.make(SELFPLAY_GYM_ID, num_players=3, obs_mode="vector", reward="rank", illegal_action="raise",
                         render_mode="ansi")
    inner = env.unwrapped
    assert isinstance(inner, SelfPlayEnv)
    assert (inner.num_players, inner.obs_mode, inner.render_mode) == (3, "vector", "ansi")
    assert inner.aec.reward_kind == "rank" and inner.aec.illegal_action == "raise"
    assert env.spec.kwargs == {"num_players": 3, "obs_mode": "vector", "reward": "rank", "illegal_action": "raise",
                               "render_mode": "ansi"}
    obs, info = env.reset(seed=3)
    assert isinstance(obs, np.ndarray) and obs.shape == env.observation_space.shape
    assert info["seat"] in range(3) and "action_mask" in info
    bad = int(np.flatnonzero(~env.unwrapped.action_masks())[0])
    with pytest.raises(IllegalActionError):                      # illegal_action="raise" reached the env
        env.step(bad)
    assert isinstance(env.render(), str)
    env.close()


@pytest.mark.parametrize("num_players,kwargs", [(4, {}), (2, {"obs_mode": "vector", "render_mode": "ansi"}),
                                                (3, {"shaping": True, "reward": "score_margin"})])
def test_check_env_passes_without_warnings(num_players, kwargs):
    env = gymnasium.make(SELFPLAY_GYM_ID, num_players=num_players, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check="render_mode" not in kwargs)
    gym_warnings = [str(w.message) for w in caught if "gymnasium" in w.filename or "WARN" in str(w.message)]
    assert gym_warnings == []


def test_a_whole_game_through_make_pays_every_seat_its_terminal_reward():
    env = gymnasium.make(SELFPLAY_GYM_ID, num_players=4)      # PassiveEnvChecker + OrderEnforcing around it
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(0)
    per_seat = np.zeros(4)
    for _ in range(5000):
        seat = info["seat"]
        assert obs["action_mask"].any() and obs["action_mask"].dtype == np.int8
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        per_seat[seat] += reward
        if terminated or truncated:
            break
    assert terminated and not truncated
    np.testing.assert_allclose(per_seat, terminal_rewards(env.unwrapped.aec.game.scores(), "win_loss"))
    assert obs["action_mask"].tolist() == [1] + [0] * (len(obs["action_mask"]) - 1)   # action 0 alone at the end


def test_make_vec_copies_the_wrapper_per_game():
    envs = gymnasium.make_vec(SELFPLAY_GYM_ID, num_envs=2, num_players=3)     # sync: no vector entry point
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    obs, infos = envs.reset(seed=0)
    assert obs["action_mask"].shape[0] == 2 and set(infos["seat"].tolist()) <= {0, 1, 2}
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert rewards.shape == (2,)
    envs.close()
