"""The environment under its versioned name, as PettingZoo names its environments:

    from v1919_env import versailles1919_v4
    env = versailles1919_v4.env(num_players=4)           # PettingZoo AEC
    par = versailles1919_v4.parallel_env(num_players=4)  # PettingZoo ParallelEnv (v1919_env.compat)
    gym.make(versailles1919_v4.GYM_ID)                   # "Versailles1919-v4"
    gym.make(versailles1919_v4.SELFPLAY_GYM_ID)          # "Versailles1919SelfPlay-v4": every seat learns

Pin this module (or the ids) to get the same episodes from the same seeds and actions; the version
goes up when they could differ (v1919_env/envs/versions.py, docs/versioning.md).
"""
from __future__ import annotations

from v1919_env.envs.versions import (AEC_NAME, ENV_VERSION, GYM_ID, OBSERVATION_VERSION, SELFPLAY_GYM_ID,
                                     SOLITAIRE_GYM_ID)

__all__ = ["env", "raw_env", "parallel_env", "ENV_VERSION", "OBSERVATION_VERSION", "AEC_NAME", "GYM_ID",
           "SOLITAIRE_GYM_ID", "SELFPLAY_GYM_ID"]


def env(**config):
    """The PettingZoo AEC environment, wrapped (v1919_env.env)."""
    from v1919_env.envs.pettingzoo_env import env as make

    return make(**config)


def raw_env(**config):
    """The PettingZoo AEC environment without wrappers (v1919_env.raw_env)."""
    from v1919_env.envs.pettingzoo_env import raw_env as make

    return make(**config)


def parallel_env(**config):
    """The turn-based game as a PettingZoo ParallelEnv (v1919_env.compat.parallel_env)."""
    from v1919_env.envs.compat import parallel_env as make

    return make(**config)
