"""Environment construction for training: the compiled vector env as a Stable-Baselines3 VecEnv."""
from __future__ import annotations

from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from v1919_env.envs.vector_env import VectorEnv


class SB3VectorEnv(VectorEnv, VecEnv):
    """v1919_env.envs.vector_env.VectorEnv as a real `VecEnv` subclass (what SB3 and sb3-contrib check
    with isinstance); every method is the vector env's own."""

    def __init__(self, **kwargs):
        VectorEnv.__init__(self, **kwargs)
        VecEnv.__init__(self, self.num_envs, self.observation_space, self.action_space)

    def seed(self, seed: int | None = None):
        return VectorEnv.seed(self, seed)

    def reset(self):
        return VectorEnv.reset(self)

    def step(self, actions):
        return VectorEnv.step(self, actions)


def make_vec_env(cfg: dict, opponents, weights, seed: int) -> tuple[VecMonitor, SB3VectorEnv]:
    """(the env the learner sees: monitored for episode statistics, the vector env itself) from a
    resolved training config and the opponent pool's entries."""
    solo = {"faction": cfg["solitaire"]["faction"], "target_vp": cfg["solitaire"]["target_vp"]} \
        if cfg["num_players"] == 1 else {}
    env = SB3VectorEnv(num_envs=cfg["env"]["num_envs"], num_players=cfg["num_players"], opponents=opponents,
                       opponent_weights=weights, seat=cfg["env"]["seat"], reward=cfg["reward"], seed=seed,
                       variant=cfg["variant"], illegal_penalty=cfg["env"]["illegal_penalty"],
                       obs_layout=cfg["env"].get("obs_layout", "full"), **solo)
    return VecMonitor(env), env
