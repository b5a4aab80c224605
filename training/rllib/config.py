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

from training.config import DEFAULTS as SB3_DEFAULTS
from training.config import ConfigError, _merge, _number

DEFAULTS = {
    **{k: SB3_DEFAULTS[k] for k in ("name", "seed", "num_players", "variant", "reward")},    # the SB3 configs'
    "budget": {"iterations": 10, "steps": None, "minutes": None},
    "ray": {"address": None, "num_cpus": 2, "num_env_runners": 0, "num_envs_per_env_runner": 256,
            "num_learners": 0, "sample_timeout_s": 600},
    "opponents": {"rulebot": 0.5, "self": 0.5},
    "self_play": {"pool_size": 2, "snapshot_every_iterations": 5},
    "policy": {"trunk": [256], "pi": [128], "vf": [128], "activation": "relu"},
    "ppo": {"learning_rate": 3.0e-4, "train_batch_size": 16384, "minibatch_size": 2048, "num_epochs": 2,
            "gamma": 0.995, "lambda": 0.95, "clip_param": 0.2, "entropy_coeff": 0.005, "vf_loss_coeff": 0.5,
            "grad_clip": 0.5, "kl_coeff": 0.0},
    "evaluation": {"every_iterations": 10, "games": 100, "final_games": 400, "opponents": ["random", "rulebot"],
                   "workers": 0, "deterministic": True},
    "checkpoint_every_iterations": 10,
}
ROLES = ("learner", "self")
ACTIVATIONS = ("relu", "tanh")


SHARED_EVALUATION = ("games", "final_games", "opponents", "workers", "deterministic")


def validate_shared(cfg: dict) -> None:
    """The fields both backends share (seed, num_players, variant, reward, the evaluation's games,
    opponents and workers), checked by the SB3 config's validator: one rule, the same messages."""
    from training.config import config_from_dict as sb3_config

    sb3_config({"seed": cfg["seed"], "num_players": cfg["num_players"], "variant": cfg["variant"],
                "reward": cfg["reward"], "evaluation": {k: cfg["evaluation"][k] for k in SHARED_EVALUATION}})


def validate(cfg: dict) -> dict:
    """Check every field of a merged config; returns it."""
    from v1919_env.envs.vector_kernels import COMPILED_POLICIES

    validate_shared(cfg)
    for k in ("iterations", "steps"):
        _number(cfg, f"budget.{k}", int, 1, allow_none=True)
    _number(cfg, "budget.minutes", (int, float), 0, allow_none=True)
    if all(v is None for v in cfg["budget"].values()):
        raise ConfigError("budget: give iterations, steps, minutes or several")
    ray = cfg["ray"]
    if ray["address"] is not None and not isinstance(ray["address"], str):
        raise ConfigError(f"ray.address: a cluster address ('auto', 'HOST:6379') or null, got {ray['address']!r}")
    _number(cfg, "ray.num_cpus", int, 1, allow_none=True)
    for k in ("num_env_runners", "num_learners"):
        _number(cfg, f"ray.{k}", int, 0)
    _number(cfg, "ray.num_envs_per_env_runner", int, 1)
    _number(cfg, "ray.sample_timeout_s", (int, float), 1)
    opp = cfg["opponents"]
    if not isinstance(opp, dict) or not opp:
        raise ConfigError(f"opponents: expected a mapping of role: ratio, got {opp!r}")
    roles = ROLES + tuple(COMPILED_POLICIES)
    for k in opp:
        if k not in roles:
            raise ConfigError(f"opponents.{k}: not a role; choose from {', '.join(roles)} (the vector env plays "
                              f"compiled agents and neural batch opponents only)")
        _number(cfg, f"opponents.{k}", (int, float), 0)
    if sum(opp.values()) <= 0:
        raise ConfigError("opponents: the ratios must add up to more than 0")
    _number(cfg, "self_play.pool_size", int, 1)
    _number(cfg, "self_play.snapshot_every_iterations", int, 1)
    for layer in ("trunk", "pi", "vf"):
        h = cfg["policy"][layer]
        if not isinstance(h, list) or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in h):
            raise ConfigError(f"policy.{layer}: expected a list of layer widths (positive integers), got {h!r}")
    if cfg["policy"]["activation"] not in ACTIVATIONS:
        raise ConfigError(f"policy.activation: one of {ACTIVATIONS}, got {cfg['policy']['activation']!r}")
    for k in ("train_batch_size", "minibatch_size", "num_epochs"):
        _number(cfg, f"ppo.{k}", int, 1)
    p = cfg["ppo"]
    if p["minibatch_size"] > p["train_batch_size"]:
        raise ConfigError(f"ppo.minibatch_size: at most train_batch_size ({p['train_batch_size']}), "
                          f"got {p['minibatch_size']}")
    games = max(1, ray["num_env_runners"]) * ray["num_envs_per_env_runner"]
    if p["train_batch_size"] < games:
        raise ConfigError(f"ppo.train_batch_size: at least one step of every game ({max(1, ray['num_env_runners'])} "
                          f"env runner(s) x {ray['num_envs_per_env_runner']} games = {games}), got "
                          f"{p['train_batch_size']}")
    for k in ("learning_rate", "clip_param", "entropy_coeff", "vf_loss_coeff", "grad_clip", "kl_coeff"):
        _number(cfg, f"ppo.{k}", (int, float), 0)
    for k in ("gamma", "lambda"):
        _number(cfg, f"ppo.{k}", (int, float), 0, 1)
    _number(cfg, "evaluation.every_iterations", int, 1, allow_none=True)
    _number(cfg, "checkpoint_every_iterations", int, 1)
    return cfg


def config_from_dict(raw: dict, name: str = "rllib") -> dict:
    """Merge a decoded config over DEFAULTS and validate it (ConfigError names the field); an empty
    config is refused, as the SB3 one is."""
    if raw is None or raw == {}:
        raise ConfigError(f"the config is empty; an RLlib training config is a mapping of the keys "
                          f"{', '.join(DEFAULTS)} (budget: {{iterations: N}}, {{steps: N}} and/or {{minutes: M}} says "
                          f"how long to train; a key left out takes its value in training.rllib.config.DEFAULTS); "
                          f"see configs/train/rllib_smoke.yaml")
    if not isinstance(raw, dict):
        raise ConfigError(f"an RLlib training config is a mapping of the keys {', '.join(DEFAULTS)}, "
                          f"got {type(raw).__name__}")
    if isinstance(raw.get("policy"), dict) and "hiddens" in raw["policy"]:
        raise ConfigError("policy.hiddens: replaced by trunk, pi and vf (the SB3 configs' policy: a shared trunk, "
                          "then the policy and value layers), e.g. {trunk: [256], pi: [128], vf: [128]}")
    cfg = _merge(DEFAULTS, raw)
    cfg["name"] = cfg["name"] or name
    return validate(cfg)


def load_config(path) -> dict:
    """Read, merge and validate a YAML RLlib training config (the run's name: the file's stem by default)."""
    from agents.tournament.config import read_yaml_config

    return read_yaml_config(path, lambda raw, name: config_from_dict(raw, name), ConfigError)
