"""Training configs (YAML): every hyper-parameter of a run, validated, with errors that name the field.

    name: rulebot_4p              # run name (default: the file's stem); the run directory is runs/train/<name>
    seed: 0
    num_players: 4                # 1: the solitaire game (reward vp or win_loss; solitaire: {faction, target_vp})
    variant: standard
    reward: win_loss              # win_loss | rank | score_margin, or weights {win_loss: 1.0, score_margin: 0.2}
    budget: {steps: 2000000}      # and/or {minutes: 60}: training stops at the first reached
    torch_threads: 1              # one thread: more fight the env for this machine's two cores
    env: {num_envs: 64, seat: null, illegal_penalty: -1.0}    # seat null: drawn per episode
    opponents: {random: 0.5, rulebot: 0.3, self: 0.2}        # ratios per seat; self = past checkpoints,
                                                              # current = the current policy (live weights)
    self_play: {pool_size: 5, snapshot_every_steps: 100000, deterministic: false,
                priority: uniform, pfsp_power: 2.0}          # pfsp: snapshots that beat the learner more often
    policy: {trunk: [256], pi: [128], vf: [128], activation: relu}
    ppo: {learning_rate: 3.0e-4, n_steps: 128, batch_size: 1024, n_epochs: 4, gamma: 0.995, ...}
    evaluation: {every_steps: 200000, games: 100, final_games: 400, opponents: [random, rulebot],
                 workers: 0, deterministic: true,
                 ray: null}               # null: worker processes here; local, auto or HOST:PORT: on Ray
    checkpoint_every_steps: 100000
    init_from: null               # a MaskablePPO .zip to start from (an earlier observation version's too)
    pretrain: {teacher: rulebot, decisions: 600000, epochs: 3, batch_size: 512, learning_rate: 1.0e-3,
               value_coef: 0.5, holdout: 0.02}   # imitation warm start (teacher null: none); training/pretrain.py
                                                # (solitaire: teacher 'ismcts:iterations=200', workers N;
                                                # training/solitaire_teacher.py)

Everything left out takes the defaults below (DEFAULTS); the resolved config is written into the
run directory, so a run is reproduced from that file alone.
"""
from __future__ import annotations

import copy
import math
from pathlib import Path

import yaml

from v1919_env.rewards import REWARD_KINDS

DEFAULTS = {
    "name": None,
    "seed": 0,
    "num_players": 4,
    "variant": "standard",
    "reward": "win_loss",
    "budget": {"steps": 1_000_000, "minutes": None},
    "torch_threads": 1,
    "device": "cpu",
    "env": {"num_envs": 64, "seat": None, "illegal_penalty": -1.0, "workers": 1},
    "opponents": {"random": 1.0},
    "self_play": {"pool_size": 5, "snapshot_every_steps": 100_000, "deterministic": False, "priority": "uniform",
                  "pfsp_power": 2.0},
    "policy": {"trunk": [256], "pi": [128], "vf": [128], "activation": "relu"},
    "ppo": {"learning_rate": 3.0e-4, "n_steps": 128, "batch_size": 1024, "n_epochs": 4, "gamma": 0.995,
            "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.01, "vf_coef": 0.5, "max_grad_norm": 0.5,
            "normalize_advantage": True, "target_kl": None},
    "evaluation": {"every_steps": 200_000, "games": 100, "final_games": 400, "opponents": ["random", "rulebot"],
                   "workers": 0, "deterministic": True, "ray": None},
    "checkpoint_every_steps": 100_000,
    "init_from": None,
    "solitaire": {"faction": None, "target_vp": 20},
    "pretrain": {"teacher": None, "decisions": 500_000, "epochs": 3, "batch_size": 512, "learning_rate": 1.0e-3,
                 "value_coef": 0.5, "holdout": 0.02, "workers": 1},
}
SOLO_TEACHERS = ("ismcts", "greedy")   # agents that play the solitaire player's VP (pretrain.teacher, 1 player)
SELF = "self"                    # the opponent-pool key of the learner's past checkpoints
CURRENT = "current"              # the opponent-pool key of the current policy (training/opponents.py)
SEED_MAX = 2 ** 32 - 1           # SB3 and RLlib seed numpy's global generator with it (np.random.seed's range)
ACTIVATIONS = ("relu", "tanh")


class ConfigError(ValueError):
    """A training config that cannot be run; the message names the field at fault."""


def _merge(base: dict, raw: dict, where: str = "") -> dict:
    out = copy.deepcopy(base)
    for k, v in raw.items():
        path = f"{where}{k}"
        if k not in base:
            raise ConfigError(f"{path}: unknown key; known: {', '.join(base)}")
        if isinstance(base[k], dict) and k not in ("opponents", "reward"):
            if not isinstance(v, dict):
                raise ConfigError(f"{path}: expected a mapping, got {v!r}")
            out[k] = _merge(base[k], v, path + ".")
        else:
            out[k] = v
    return out


def _number(cfg: dict, path: str, kind=(int, float), lo=None, hi=None, allow_none: bool = False):
    node = cfg
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[k]
    v = node[keys[-1]]
    if v is None and allow_none:
        return v
    if isinstance(v, bool) or not isinstance(v, kind) or isinstance(v, float) and not math.isfinite(v):
        want = "an integer" if kind is int else "a finite number"
        raise ConfigError(f"{path}: expected {want}{' or null' if allow_none else ''}, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ConfigError(f"{path}: {v} is out of range [{lo}, {hi if hi is not None else 'inf'}]")
    return v


def _layers(cfg: dict, path: str) -> None:
    v = cfg["policy"][path.split(".")[1]]
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v):
        raise ConfigError(f"{path}: expected a list of layer widths (positive integers), got {v!r}")


def _variant(variant) -> None:
    """A deck variant of the shipped card set (the one training plays), as Game.new checks it."""
    from v1919_env.game import card_tables
    from v1919_env.variants import variant_index

    try:
        variant_index(card_tables(None)[0], variant)
    except ValueError as e:
        raise ConfigError(f"variant: {e}") from None


def _solitaire(cfg: dict) -> None:
    """The solitaire game's fields: its reward (the player's VP or the win), starting faction and level;
    no opponents (the bots play inside the game) and no imitation warm start."""
    from v1919_env.envs.solitaire_features import SOLO_REWARDS
    from v1919_env.game import solo_config

    if cfg["reward"] not in SOLO_REWARDS:
        raise ConfigError(f"reward: the solitaire game (num_players 1) pays one of {', '.join(SOLO_REWARDS)}, "
                          f"got {cfg['reward']!r}")
    solo = cfg["solitaire"]
    try:
        solo_config(True, solo["faction"], solo["target_vp"], False)
    except ValueError as e:
        field = "solitaire.faction" if "faction" in str(e) else "solitaire.target_vp"
        raise ConfigError(f"{field}: {e}") from None
    if set(cfg["opponents"]) - {"random"} or cfg["opponents"].get("random", 1.0) != 1.0:
        raise ConfigError(f"opponents: the solitaire game has none (the two bots play inside it), got "
                          f"{cfg['opponents']!r}")
    teacher = cfg["pretrain"]["teacher"]
    if teacher is not None:          # a search agent that plays the player's objective (training/solitaire_teacher.py)
        from agents.base import parse_agent_spec

        try:
            name, _ = parse_agent_spec(teacher) if isinstance(teacher, str) else (None, None)
        except ValueError as e:
            raise ConfigError(f"pretrain.teacher: {e}") from None
        if name not in SOLO_TEACHERS:
            raise ConfigError(f"pretrain.teacher: in the solitaire game null or a search agent that plays the "
                              f"player's VP ({', '.join(SOLO_TEACHERS)}, with options: 'ismcts:iterations=200'; the "
                              f"rule bot plays for a faction, not the player), got {teacher!r}")
        from agents.base import make_agent

        try:
            make_agent(name, **parse_agent_spec(teacher)[1]).close()
        except ValueError as e:             # (AgentError is a ValueError) a bad option of the teacher
            raise ConfigError(f"pretrain.teacher: {e}") from None


def validate(cfg: dict) -> dict:
    """Check every field of a merged config; returns it."""
    from agents.base import agent_names, parse_agent_spec
    from v1919_env.envs.vector_env import reward_weights
    from v1919_env.envs.vector_kernels import COMPILED_POLICIES

    _number(cfg, "seed", int, 0, SEED_MAX)
    if cfg["num_players"] not in (1, 2, 3, 4) or isinstance(cfg["num_players"], bool):
        raise ConfigError(f"num_players: 1 (the solitaire game), 2, 3 or 4, got {cfg['num_players']!r}")
    _variant(cfg["variant"])
    if cfg["num_players"] == 1:
        _solitaire(cfg)
    else:
        try:
            reward_weights(cfg["reward"])
        except ValueError as e:
            raise ConfigError(f"reward: {e} (kinds: {', '.join(REWARD_KINDS)})") from None
    _number(cfg, "budget.steps", int, 1, allow_none=True)
    _number(cfg, "budget.minutes", (int, float), 0, allow_none=True)
    if cfg["budget"]["steps"] is None and cfg["budget"]["minutes"] is None:
        raise ConfigError("budget: give steps, minutes or both")
    _number(cfg, "torch_threads", int, 1)
    _number(cfg, "env.num_envs", int, 1)
    _number(cfg, "env.seat", int, 0, cfg["num_players"] - 1, allow_none=True)
    _number(cfg, "env.illegal_penalty")
    if cfg["env"]["workers"] != 1:
        raise ConfigError(f"env.workers: only 1 is supported (the vector env steps every game in the training "
                          f"process, far faster than the learner), got {cfg['env']['workers']!r}")
    opp = cfg["opponents"]
    if not isinstance(opp, dict) or not opp:
        raise ConfigError(f"opponents: expected a mapping of opponent: ratio, got {opp!r}")
    for k, v in opp.items():
        if k not in (SELF, CURRENT) and k not in COMPILED_POLICIES:
            raise ConfigError(f"opponents.{k}: not a compiled agent, '{SELF}' or '{CURRENT}'; choose from "
                              f"{', '.join(list(COMPILED_POLICIES) + [SELF, CURRENT])}")
        _number(cfg, f"opponents.{k}", (int, float), 0)
    if sum(opp.values()) <= 0:
        raise ConfigError("opponents: the ratios must add up to more than 0")
    _number(cfg, "self_play.pool_size", int, 1)
    _number(cfg, "self_play.snapshot_every_steps", int, 1)
    if cfg["self_play"]["priority"] not in ("uniform", "pfsp"):
        raise ConfigError(f"self_play.priority: 'uniform' (every snapshot alike) or 'pfsp' (the snapshots that beat "
                          f"the learner more often, more often), got {cfg['self_play']['priority']!r}")
    _number(cfg, "self_play.pfsp_power", (int, float), 0)
    for layer in ("trunk", "pi", "vf"):
        _layers(cfg, f"policy.{layer}")
    if cfg["policy"]["activation"] not in ACTIVATIONS:
        raise ConfigError(f"policy.activation: one of {ACTIVATIONS}, got {cfg['policy']['activation']!r}")
    for k in ("n_steps", "batch_size", "n_epochs"):
        _number(cfg, f"ppo.{k}", int, 1)
    for k in ("learning_rate", "clip_range", "ent_coef", "vf_coef", "max_grad_norm"):
        _number(cfg, f"ppo.{k}", (int, float), 0)
    for k in ("gamma", "gae_lambda"):
        _number(cfg, f"ppo.{k}", (int, float), 0, 1)
    ev = cfg["evaluation"]
    _number(cfg, "evaluation.every_steps", int, 1, allow_none=True)
    for k in ("games", "final_games"):
        _number(cfg, f"evaluation.{k}", int, 0)
        if ev[k] % cfg["num_players"]:
            raise ConfigError(f"evaluation.{k}: a multiple of num_players ({cfg['num_players']}: the tournament "
                              f"rotates the seats), got {ev[k]}")
    _number(cfg, "evaluation.workers", int, 0)
    if ev["ray"] is not None:
        from agents.tournament.ray_pool import check_address
        try:
            if not isinstance(ev["ray"], str):
                raise ValueError(ev["ray"])
            check_address(ev["ray"])
        except ValueError:
            raise ConfigError(f"evaluation.ray: null (worker processes on this machine), local (a Ray instance "
                              f"started for each evaluation), auto or HOST:PORT (a Ray cluster), got "
                              f"{ev['ray']!r}") from None
    if not isinstance(ev["opponents"], list) or not ev["opponents"]:
        raise ConfigError(f"evaluation.opponents: a list of agent specs (name or name:key=value,...), "
                          f"got {ev['opponents']!r}")
    known = agent_names()
    for k, spec in enumerate(ev["opponents"]):
        name = parse_agent_spec(spec)[0] if isinstance(spec, str) else spec
        if name not in known:
            raise ConfigError(f"evaluation.opponents[{k}]: unknown agent {name!r}; agents: {', '.join(known)}")
    _number(cfg, "checkpoint_every_steps", int, 1)
    init = cfg["init_from"]
    if init is not None and not (isinstance(init, str) and Path(init).is_file()):
        raise ConfigError(f"init_from: null or the path of a MaskablePPO checkpoint (.zip), got {init!r}")
    _number(cfg, "ppo.target_kl", (int, float), 0, allow_none=True)
    pre = cfg["pretrain"]
    if pre["teacher"] is not None and pre["teacher"] not in COMPILED_POLICIES and cfg["num_players"] != 1:
        raise ConfigError(f"pretrain.teacher: null (no warm start) or a compiled agent "
                          f"({', '.join(COMPILED_POLICIES)}), got {pre['teacher']!r}")
    for k in ("decisions", "epochs", "batch_size", "workers"):
        _number(cfg, f"pretrain.{k}", int, 1)
    for k in ("learning_rate", "value_coef"):
        _number(cfg, f"pretrain.{k}", (int, float), 0)
    _number(cfg, "pretrain.holdout", (int, float), 0, 0.5)
    if pre["teacher"] is not None and pre["batch_size"] > pre["decisions"] * (1 - pre["holdout"]):
        raise ConfigError(f"pretrain.batch_size: {pre['batch_size']} is more than the decisions left for "
                          f"fitting ({pre['decisions']} less the holdout)")
    return cfg


def config_from_dict(raw: dict, name: str = "train") -> dict:
    """Merge a decoded config over DEFAULTS and validate it (ConfigError names the field). An empty
    config is refused: it would start a run of the default budget that nobody asked for."""
    if raw is None or raw == {}:
        raise ConfigError(f"the config is empty; a training config is a mapping of the keys {', '.join(DEFAULTS)} "
                          f"(budget: {{steps: N}} and/or {{minutes: M}} says how long to train; a key left out takes "
                          f"its value in training.config.DEFAULTS); see configs/train/smoke.yaml")
    if not isinstance(raw, dict):
        raise ConfigError(f"a training config is a mapping of the keys {', '.join(DEFAULTS)}, got {type(raw).__name__}")
    cfg = _merge(DEFAULTS, raw)
    if cfg["name"] is None:
        cfg["name"] = name
    return validate(cfg)


def load_config(path) -> dict:
    """Read, merge and validate a YAML training config."""
    from agents.tournament.config import read_yaml_config

    return read_yaml_config(path, lambda raw, name: config_from_dict(raw, name=name), ConfigError)


def set_value(raw: dict, assignment: str) -> None:
    """Apply a command line's `key.path=value` (the value read as YAML) to a decoded config mapping
    (the benches' --set)."""
    key, _, value = assignment.partition("=")
    if not value:
        raise SystemExit(f"--set {assignment!r}: expected key.path=value")
    node = raw
    parts = key.split(".")
    for k in parts[:-1]:
        node = node.setdefault(k, {})
    node[parts[-1]] = yaml.safe_load(value)


def dump_config(cfg: dict) -> str:
    return yaml.safe_dump(cfg, sort_keys=False)
