"""RLlib training configs (YAML) for `v1919 train-rllib`: validated, errors naming the field.

    name: rllib_4p                 # run name (default: the file's stem); runs/rllib/<name>
    seed: 0
    num_players: 4
    variant: standard
    reward: {win_loss: 1.0, score_margin: 0.5}    # as in the SB3 configs (v1919_env/rewards.py)
    budget: {iterations: 100, steps: null, minutes: 30}   # stops at the first reached
    ray: {address: null, num_cpus: 2, num_env_runners: 0, num_envs_per_env_runner: 256, num_learners: 0,
          sample_timeout_s: 600}   # 0 env runners: the driver samples; games per runner (one compiled call)
    opponents: {rulebot: 0.6, self: 0.2, learner: 0.1, random: 0.1}   # ratios per opponent seat
    self_play: {pool_size: 4, snapshot_every_iterations: 5}
    policy: {trunk: [256], pi: [128], vf: [128], activation: relu}   # as the SB3 configs' policy
    ppo: {learning_rate: 3.0e-4, train_batch_size: 16384, minibatch_size: 2048, num_epochs: 2, gamma: 0.995,
          lambda: 0.95, clip_param: 0.2, entropy_coeff: 0.005, vf_loss_coeff: 0.5, grad_clip: 0.5,
          kl_coeff: 0.0}          # kl_coeff > 0: RLlib's KL term (its env runners then ship the logits)
    evaluation: {every_iterations: 10, games: 100, final_games: 400, opponents: [random, rulebot],
                 workers: 0, deterministic: true}
    checkpoint_every_iterations: 10

Opponent roles (training/rllib/env.py): a compiled agent (`random`, `rulebot`: played inside the
vector env's compiled step), `learner` (the current policy, its moves not trained on) or `self`
(frozen snapshots of it, refreshed every snapshot_every_iterations). Each env runner plays
num_envs_per_env_runner games; an iteration samples train_batch_size / (runners x games) steps of
every game (rounded up), so train_batch_size must be at least runners x games.
"""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import AfterValidator, Field, field_validator, model_validator

from v1919_env import config_schema
from v1919_env.config_schema import FieldError, Strict, one_of, read_config, with_defaults
from training.config import (AgentSpecs, ConfigError, Count, Fraction, NonNegative, Policy,
                             PositiveInt, RunConfig, _compiled_names, check_ratios, resolve)

ROLES = ("learner", "self")


def _address(v):
    from agents.arena.tournament.ray_pool import check_address

    if v is not None:
        check_address(v)
    return v


class Budget(Strict):
    iterations: Optional[PositiveInt] = Field(10, description="a number of iterations or null (no limit)")
    steps: Optional[PositiveInt] = Field(None, description="a number of environment steps or null (no limit)")
    minutes: Optional[NonNegative] = Field(None, description="a number of minutes or null (no limit)")

    @model_validator(mode="after")
    def _some(self):
        if self.iterations is None and self.steps is None and self.minutes is None:
            raise ValueError("give iterations, steps, minutes or several")
        return self


class Ray(Strict):
    address: Annotated[Optional[str], AfterValidator(_address)] = Field(
        None, description="a cluster address ('auto', 'HOST:6379') or null (a local Ray instance)")
    num_cpus: Optional[PositiveInt] = Field(2, description="the local Ray instance's CPUs")
    num_env_runners: Count = Field(0, description="env runner processes (0: the driver samples)")
    num_envs_per_env_runner: PositiveInt = Field(256, description="games per env runner (one compiled call)")
    num_learners: Count = 0
    sample_timeout_s: float = Field(600, ge=1)


class SelfPlay(Strict):
    pool_size: PositiveInt = 2
    snapshot_every_iterations: PositiveInt = 5


class PPO(Strict):
    learning_rate: NonNegative = 3.0e-4
    train_batch_size: PositiveInt = 16384
    minibatch_size: PositiveInt = 2048
    num_epochs: PositiveInt = 2
    gamma: Fraction = 0.995
    lambda_: Fraction = Field(0.95, alias="lambda")
    clip_param: NonNegative = 0.2
    entropy_coeff: NonNegative = 0.005
    vf_loss_coeff: NonNegative = 0.5
    grad_clip: NonNegative = 0.5
    kl_coeff: NonNegative = Field(0.0, description="RLlib's KL term (> 0: its env runners then ship the logits)")


class Evaluation(Strict):
    every_iterations: Optional[PositiveInt] = Field(10, description="a number of iterations between evaluations "
                                                                    "or null (only the final one)")
    games: Count = 100
    final_games: Count = 400
    opponents: AgentSpecs = ["random", "rulebot"]
    workers: Count = 0
    deterministic: bool = True


class RLlibConfig(RunConfig):
    """An RLlib training run (the module docstring)."""

    num_players: one_of(2, 3, 4) = Field(4, description="2, 3 or 4 (the solitaire game trains with `v1919 train`)")

    budget: Budget = Field(default_factory=Budget, description="training stops at the first limit reached")
    ray: Ray = Field(default_factory=Ray)
    opponents: dict[str, NonNegative] = Field(
        default_factory=lambda: {"rulebot": 0.5, "self": 0.5},
        description="ratios per opponent seat: compiled agents, 'learner' (the current policy), 'self' (snapshots)")
    self_play: SelfPlay = Field(default_factory=SelfPlay)
    policy: Policy = Field(default_factory=Policy)
    ppo: PPO = Field(default_factory=PPO)
    evaluation: Evaluation = Field(default_factory=Evaluation)
    checkpoint_every_iterations: PositiveInt = 10

    @field_validator("opponents")
    @classmethod
    def _opponents(cls, opp):
        return check_ratios(opp, list(ROLES) + _compiled_names(), "a role",
                            " (the vector env plays compiled agents and neural batch opponents only)")

    @model_validator(mode="after")
    def _across(self):
        self.check_evaluation_games()
        p, ray = self.ppo, self.ray
        if p.minibatch_size > p.train_batch_size:
            raise FieldError("ppo.minibatch_size", f"at most train_batch_size ({p.train_batch_size}), "
                                                   f"got {p.minibatch_size}")
        runners = max(1, ray.num_env_runners)
        games = runners * ray.num_envs_per_env_runner
        if p.train_batch_size < games:
            raise FieldError("ppo.train_batch_size", f"at least one step of every game ({runners} env runner(s) x "
                                                     f"{ray.num_envs_per_env_runner} games = {games}), got "
                                                     f"{p.train_batch_size}")
        return self


DEFAULTS = config_schema.defaults(RLlibConfig)
"""Every key's default (the resolved config's shape)."""


def config_from_dict(raw: dict, name: str = "rllib") -> dict:
    """Validate a decoded config (ConfigError names the field) and resolve it over the defaults; an
    empty config is refused, as the SB3 one is."""
    return resolve(RLlibConfig, raw, name, "an RLlib training config",
                   "configs/train/rllib_smoke.yaml (budget: {iterations: N}, {steps: N} and/or {minutes: M} says "
                   "how long to train)")


def load_config(path) -> dict:
    """Read, merge and validate a YAML RLlib training config (the run's name: the file's stem by default)."""
    return read_config(path, lambda raw, name: config_from_dict(raw, name), ConfigError)


def saved_config(saved: dict) -> dict:
    """A run's saved config with the keys added since it started at their defaults (for --resume)."""
    return with_defaults(RLlibConfig, saved)
