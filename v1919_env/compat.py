"""Library glue, public name: the adapters for RL libraries (docs/compat.md).

The code is in `v1919_env.envs.compat`; this module keeps the documented import path
(`from v1919_env.compat import SelfPlayEnv, parallel_env, torchrl_env, rllib_env`).
"""
from v1919_env.envs.compat import (RLlibObservation, SelfPlayEnv, TurnParallelEnv, decision_name, parallel_env,
                                   rllib_env, torchrl_env)

__all__ = ["SelfPlayEnv", "RLlibObservation", "TurnParallelEnv", "parallel_env", "torchrl_env", "rllib_env",
           "decision_name"]
