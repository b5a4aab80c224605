"""`gymnasium.make_vec` on the registered id gives the compiled vector env (issue 23's first item):
dict observations with the action masks, same-step auto-reset; the sync mode still vectorizes the
single env."""
from __future__ import annotations

import gymnasium
import numpy as np

import v1919_env  # noqa: F401  (registers the ids)
from v1919_env.envs.vector_env import GymVectorEnv
from v1919_env.envs.versions import GYM_ID


def _masked_random(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_make_vec_vector_entry_point_is_the_compiled_vector_env():
    envs = gymnasium.make_vec(GYM_ID, num_envs=6, vectorization_mode="vector_entry_point", num_players=3,
                              opponents=("random", "rulebot"), seed=0)
    assert isinstance(envs, GymVectorEnv) and envs.num_envs == 6
    obs, _ = envs.reset(seed=1)
    assert obs["observation"].shape[0] == 6 and obs["action_mask"].dtype == np.int8
    rng, ended = np.random.default_rng(0), 0
    for _ in range(2000):
        obs, rewards, terminated, truncated, infos = envs.step(_masked_random(rng, obs["action_mask"]))
        done = terminated | truncated
        if done.any():
            ended += int(done.sum())
            assert infos["_final_obs"][done].all()                                 # same-step auto-reset
            assert all(infos["final_obs"][b]["action_mask"].any() for b in np.flatnonzero(done))
            assert (obs["action_mask"][done].sum(axis=1) > 0).all()                 # the new games' masks
        if ended >= 3:
            break
    assert ended >= 3
    envs.close()


def test_make_vec_defaults_to_the_vector_entry_point_and_sync_still_works():
    assert isinstance(gymnasium.make_vec(GYM_ID, num_envs=2, num_players=4), GymVectorEnv)
    sync = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", num_players=4, seat=0)
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    obs, _ = sync.reset(seed=0)
    assert obs["action_mask"].shape[0] == 2
    sync.close()
