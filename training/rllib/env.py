"""What every env runner of `v1919 train-rllib` steps: the compiled vector env, its opponents inside.

Each env runner (training/rllib/runner.py) holds one `v1919_env.envs.vector_env.GymVectorEnv` of
`ray.num_envs_per_env_runner` games: one call steps them all (the learner's actions, the compiled
opponents, scoring, auto-reset). In each game one seat, drawn per episode, is the learner's; each
other seat draws its opponent from the config's `opponents` ratios:
- a compiled agent (`random`, `rulebot`): played inside the compiled call;
- `learner`: the current policy (the env runner's own copy of the learner's weights, refreshed
  every iteration) as a batch opponent; its moves are not trained on (one learning seat per game);
- `self`: the frozen snapshots `past0..past{k-1}` (the `self` share split evenly over the k slots),
  each a batch opponent: copies of the learner's weights the driver pushes at the start and at
  every `self_play.snapshot_every_iterations`.
A batch opponent runs one forward pass over every game waiting on it (the vector env's
`act_batch(observations, masks)` hook). Rewards are the learner seat's terminal reward (the
config's reward kinds, weighted; v1919_env.rewards), 0 before the end.

The observation is the env's dict `{"observation": float32 (OBS_SIZE,), "action_mask": int8
(NUM_ACTIONS,)}` (v1919_env.envs.pettingzoo_env.observation_space), the layout the module
(agents/rllib_module.py) reads.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from v1919_env.actions import NUM_ACTIONS
from v1919_env.envs.pettingzoo_env import observation_space as _observation_space
from v1919_env.envs.vector_env import GymVectorEnv
from v1919_env.envs.vector_kernels import COMPILED_POLICIES

LEARNER = "learner"          # the opponent role of the current policy
SELF = "self"                # the opponent role of the frozen snapshots
ROLES = (LEARNER, SELF)


def snapshot_slots(pool_size: int) -> list[str]:
    """Names of the frozen snapshot slots."""
    return [f"past{k}" for k in range(pool_size)]


def observation_space() -> spaces.Dict:
    """One game's observation: {"observation": Box(OBS_SIZE), "action_mask": Box(NUM_ACTIONS, int8)}."""
    return _observation_space()


def action_space() -> spaces.Discrete:
    return spaces.Discrete(NUM_ACTIONS)


def env_config(cfg: dict) -> dict:
    """The env_config RLlib ships to every env runner, from a resolved config (a few hundred bytes)."""
    return {"num_players": cfg["num_players"], "variant": cfg["variant"], "reward": cfg["reward"],
            "opponents": {k: float(v) for k, v in cfg["opponents"].items()},
            "pool_size": cfg["self_play"]["pool_size"], "seed": cfg["seed"]}


def runner_seed(seed: int, worker_index: int) -> int:
    """The vector env's seed in env runner `worker_index` (0: the driver's local runner): distinct
    game streams per runner, reproducible from the config's seed."""
    return int(np.random.SeedSequence([int(seed), int(worker_index)]).generate_state(1, np.uint64)[0] >> 1)


def opponent_entries(ratios: dict, learner_policy, snapshot_policies: list) -> tuple[list, list[float]]:
    """(opponents, weights) for VectorEnv.set_opponents: compiled agent names as they are,
    `learner` as `learner_policy`, `self` split evenly over `snapshot_policies` (batch policies)."""
    opponents, weights = [], []
    for role, r in ratios.items():
        if r <= 0:
            continue
        if role == LEARNER:
            opponents.append(learner_policy)
            weights.append(r)
        elif role == SELF:
            for p in snapshot_policies:
                opponents.append(p)
                weights.append(r / len(snapshot_policies))
        elif role in COMPILED_POLICIES:
            opponents.append(role)
            weights.append(r)
        else:
            raise ValueError(f"opponents.{role}: not a role; choose from {', '.join(ROLES + tuple(COMPILED_POLICIES))}")
    if not opponents:
        raise ValueError(f"opponents: no role with a positive ratio in {ratios!r}")
    return opponents, weights


def make_vector_env(config: dict, num_envs: int, worker_index: int = 0) -> GymVectorEnv:
    """The vector env of one env runner (compiled random opponents until the runner sets its pool)."""
    c = dict(config)
    return GymVectorEnv(num_envs=int(num_envs), copy=False, num_players=int(c.get("num_players", 4)),
                        variant=c.get("variant", "standard"), reward=c.get("reward", "win_loss"),
                        opponents=["random"], seed=runner_seed(c.get("seed", 0), worker_index), score_info=False)
