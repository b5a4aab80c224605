"""`obs_layout='compact'` in every environment: its libraries' own checks pass, every observation is
the compact observation of the observing seat (core/observe_compact.py), the default stays the full
one, and a bad layout is refused naming the option."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

import v1919_env
from v1919_env.compat import SelfPlayEnv, parallel_env
from v1919_env.core import layout as L
from v1919_env.core.observe import OBS_SIZE
from v1919_env.core.observe_compact import COMPACT_SIZE, observe_compact
from v1919_env.envs.gymnasium_env import Versailles1919Env
from v1919_env.envs.solitaire_gym import SolitaireEnv
from v1919_env.envs.vector_env import GymVectorEnv, VectorEnv


def _compact(g, seat) -> np.ndarray:
    out = np.empty(COMPACT_SIZE, np.float32)
    observe_compact(g.state, g.T, seat, out)
    return out


def test_the_libraries_checks_pass_on_the_compact_layout():
    check_env(Versailles1919Env(obs_layout="compact"), skip_render_check=True)
    check_env(SolitaireEnv(obs_layout="compact"), skip_render_check=True)
    check_env(SelfPlayEnv(num_players=3, obs_layout="compact"), skip_render_check=True)
    api_test(v1919_env.env(obs_layout="compact"), num_cycles=100)
    api_test(v1919_env.env(obs_layout="compact", obs_mode="vector"), num_cycles=100)
    parallel_api_test(parallel_env(obs_layout="compact", obs_mode="dict"), num_cycles=100)


@pytest.mark.parametrize("players", [2, 4])
def test_aec_observations_are_the_compact_view_of_each_seat(players):
    env = v1919_env.env(num_players=players, obs_layout="compact")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter(max_iter=300):
        obs, _, term, trunc, _ = env.last()
        assert obs["observation"].shape == (COMPACT_SIZE,) and obs["observation"].dtype == np.float32
        if not (term or trunc):
            seat = env.possible_agents.index(agent)
            np.testing.assert_array_equal(obs["observation"], _compact(env.game, seat))
            for other in env.possible_agents:            # any seat's view, asked at any time
                np.testing.assert_array_equal(env.observe(other)["observation"],
                                              _compact(env.game, env.possible_agents.index(other)))
            steps += 1
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert steps > 100


def test_gym_env_and_its_python_opponents_see_the_compact_layout():
    seen = []

    def opponent(obs, info):
        seen.append(obs["observation"].shape)
        return int(np.flatnonzero(obs["action_mask"])[0])

    env = Versailles1919Env(num_players=3, opponents=[opponent] * 3, obs_layout="compact", obs_mode="vector")
    obs, _ = env.reset(seed=1)
    assert env.observation_space.shape == (COMPACT_SIZE,)
    for _ in range(30):
        np.testing.assert_array_equal(obs, _compact(env.game, env.seat))
        a = int(env.game.legal_actions()[0])
        obs, _, term, trunc, _ = env.step(a)
        if term or trunc:
            obs, _ = env.reset()
    assert seen and set(seen) == {(COMPACT_SIZE,)}


@pytest.mark.parametrize("players", [1, 4])
def test_vector_env_rows_are_the_learners_compact_view(players):
    venv = VectorEnv(num_envs=16, num_players=players, obs_layout="compact", seed=5,
                     **({} if players == 1 else {"opponents": ["random", "rulebot"]}))
    obs = venv.reset()
    extra = 0 if players > 1 else obs.shape[1] - COMPACT_SIZE
    assert obs.shape == (16, COMPACT_SIZE + extra) and venv.observation_space.shape == obs.shape[1:]
    rng = np.random.default_rng(0)
    for _ in range(60):
        for b in range(16):
            np.testing.assert_array_equal(obs[b, :COMPACT_SIZE], _compact_state(venv, b))
        masks = venv.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, _, dones, infos = venv.step(acts)
        for b in np.flatnonzero(dones):
            assert infos[b]["terminal_observation"].shape == (COMPACT_SIZE + extra,)


def _compact_state(venv, b) -> np.ndarray:
    out = np.empty(COMPACT_SIZE, np.float32)
    observe_compact(venv.S[b], venv.T, int(venv.seats[b]), out)
    return out


def test_gymnasium_vector_env_and_make_take_the_option():
    env = GymVectorEnv(num_envs=4, obs_layout="compact")
    obs, _ = env.reset(seed=0)
    assert obs["observation"].shape == (4, COMPACT_SIZE)
    assert env.single_observation_space["observation"].shape == (COMPACT_SIZE,)
    single = gymnasium.make(v1919_env.GYM_ID, obs_layout="compact")
    assert single.reset(seed=0)[0]["observation"].shape == (COMPACT_SIZE,)


def test_the_default_stays_the_full_observation():
    assert Versailles1919Env().observation_space["observation"].shape == (OBS_SIZE,)
    assert VectorEnv(num_envs=2).reset().shape == (2, OBS_SIZE)
    assert v1919_env.env().observation_space("uk")["observation"].shape == (OBS_SIZE,)


@pytest.mark.parametrize("make", [lambda: Versailles1919Env(obs_layout="tiny"),
                                  lambda: v1919_env.env(obs_layout=512),
                                  lambda: VectorEnv(num_envs=2, obs_layout="Compact"),
                                  lambda: SolitaireEnv(obs_layout=None)])
def test_a_bad_layout_is_refused_naming_the_option(make):
    with pytest.raises(ValueError, match="obs_layout must be one of 'full', 'compact'"):
        make()


def test_an_external_batch_opponent_gets_compact_rows():
    shapes = []

    class First:
        def act_batch(self, obs, masks):
            shapes.append(obs.shape[1])
            return np.argmax(masks, axis=1)

    venv = VectorEnv(num_envs=8, num_players=3, opponents=[First()], obs_layout="compact", seed=2)
    venv.reset()
    for _ in range(5):
        venv.step(np.argmax(venv.action_masks(), axis=1))
    assert shapes and set(shapes) == {COMPACT_SIZE}
    assert L.MAX_PLAYERS == 4
