"""Training configs (YAML): every hyper-parameter of a run, validated, with errors that name the field.

    name: rulebot_4p              # run name (default: the file's stem); the run directory is runs/train/<name>
    seed: 0
    num_players: 4                # 1: the solitaire game (reward vp or win_loss; solitaire: {faction, target_vp})
    variant: standard
    reward: win_loss              # win_loss | rank | score_margin, or weights {win_loss: 1.0, score_margin: 0.2}
    budget: {steps: 2000000}      # and/or {minutes: 60}: training stops at the first reached
    torch_threads: 1              # one thread: more fight the env for this machine's two cores
    env: {num_envs: 64, seat: null, illegal_penalty: -1.0, obs_layout: full}   # seat null: drawn per episode
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

from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import yaml
from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from v1919_env import config_schema
from v1919_env.config_schema import FieldError, Name, Strict, name_field, one_of, read_config, with_defaults
from v1919_env.rewards import REWARD_KINDS

SOLO_TEACHERS = ("ismcts", "greedy")   # agents that play the solitaire player's VP (pretrain.teacher, 1 player)
SELF = "self"                    # the opponent-pool key of the learner's past checkpoints
CURRENT = "current"              # the opponent-pool key of the current policy (training/opponents.py)
SEED_MAX = 2 ** 32 - 1           # SB3 and RLlib seed numpy's global generator with it (np.random.seed's range)
ACTIVATIONS = ("relu", "tanh")


class ConfigError(config_schema.ConfigError):
    """A training config that cannot be run; the message names the field at fault."""


# ----------------------------------------------------------------------------- shared with the RLlib configs
PositiveInt = Annotated[int, Field(ge=1)]
Count = Annotated[int, Field(ge=0)]
NonNegative = Annotated[float, Field(ge=0)]
Fraction = Annotated[float, Field(ge=0, le=1)]
Layers = Annotated[list[PositiveInt], Field(description="a list of layer widths (positive integers)")]


def _compiled_names() -> list[str]:
    from v1919_env.envs.vector_kernels import COMPILED_POLICIES

    return list(COMPILED_POLICIES)


def check_ratios(opp: dict, known: list[str], what: str, note: str = "") -> dict:
    """A mapping of opponent: ratio whose keys are `known`, adding up to more than 0."""
    for k in opp:
        if k not in known:
            raise FieldError(k, f"not {what}; choose from {', '.join(known)}{note}")
    if not opp or sum(opp.values()) <= 0:
        raise ValueError(f"the ratios must add up to more than 0, got {opp!r}")
    return opp


def check_agent_specs(specs: list[str]) -> list[str]:
    """Registered agents, each a name or a spec 'name:key=value,...'."""
    from agents.base import agent_names, parse_agent_spec

    known = agent_names()
    for k, spec in enumerate(specs):
        try:
            name = parse_agent_spec(spec)[0]
        except ValueError as e:
            raise FieldError(f"[{k}]", str(e)) from None
        if name not in known:
            raise FieldError(f"[{k}]", f"unknown agent {name!r}; agents: {', '.join(known)}")
    return specs


def check_variant(variant: str) -> str:
    """A deck variant of the shipped card set (the one training plays), as Game.new checks it."""
    from v1919_env.game import card_tables
    from v1919_env.variants import variant_index

    variant_index(card_tables(None)[0], variant)
    return variant


def reward_schema(schema: dict) -> None:
    """The JSON Schema of a reward option: a kind, or a mapping {kind: weight}."""
    kinds = list(REWARD_KINDS)
    schema.update(anyOf=[
        {"enum": kinds + ["vp"], "description": "a reward kind (the solitaire game: vp or win_loss)"},
        {"type": "object", "propertyNames": {"enum": kinds}, "additionalProperties": {"type": "number", "minimum": 0},
         "description": "weights of a weighted sum, e.g. {win_loss: 1.0, score_margin: 0.2}"}])


class Policy(Strict):
    """The network: a shared trunk, then the policy and value layers."""

    trunk: Layers = [256]
    pi: Layers = [128]
    vf: Layers = [128]
    activation: Literal[ACTIVATIONS] = "relu"

    @model_validator(mode="before")
    @classmethod
    def _no_hiddens(cls, raw):
        if isinstance(raw, dict) and "hiddens" in raw:
            raise FieldError("hiddens", "replaced by trunk, pi and vf (a shared trunk, then the policy and value "
                                        "layers), e.g. {trunk: [256], pi: [128], vf: [128]}")
        return raw


class RunConfig(Strict):
    """The fields every training config starts with (the SB3 and the RLlib ones)."""

    name: Optional[Name] = name_field("the run's name (its directory: runs/<backend>/<name>)")
    seed: int = Field(0, ge=0, le=SEED_MAX, description=f"an integer in 0..{SEED_MAX}")
    num_players: one_of(1, 2, 3, 4) = Field(4, description="1 (the solitaire game), 2, 3 or 4")
    variant: Annotated[str, AfterValidator(check_variant)] = Field("standard", description="the name of a deck "
                                                                                          "variant")
    reward: Annotated[Any, Field(json_schema_extra=reward_schema)] = "win_loss"

    @field_validator("reward")
    @classmethod
    def _reward(cls, reward, info: ValidationInfo):
        from v1919_env.envs.vector_env import reward_weights

        if info.data.get("num_players") == 1:
            return reward                 # the solitaire game's rewards: checked with its other fields
        try:
            reward_weights(reward, nonnegative=True)
        except ValueError as e:
            raise ValueError(str(e).removeprefix("reward: ")) from None
        return reward

    def check_evaluation_games(self) -> None:
        for k in ("games", "final_games"):
            n = getattr(self.evaluation, k)
            if n % self.num_players:
                raise FieldError(f"evaluation.{k}", f"a multiple of num_players ({self.num_players}: the tournament "
                                                    f"rotates the seats), got {n}")


# ----------------------------------------------------------------------------- the SB3 config
class Budget(Strict):
    steps: Optional[PositiveInt] = Field(1_000_000, description="a number of environment steps or null (no limit)")
    minutes: Optional[NonNegative] = Field(None, description="a number of minutes or null (no limit)")

    @model_validator(mode="after")
    def _some(self):
        if self.steps is None and self.minutes is None:
            raise ValueError("give steps, minutes or both")
        return self


class Env(Strict):
    num_envs: PositiveInt = Field(64, description="the number of games the vector env steps at once")
    seat: Optional[Count] = Field(None, description="the learner's seat or null (drawn per episode)")
    illegal_penalty: float = -1.0
    obs_layout: Literal["full", "compact"] = Field("full", description="the observation: full (2,032 floats) or "
                                                                        "compact (1,596; docs/observation.md)")
    workers: one_of(1) = Field(1, description="only 1 (the vector env steps every game in the training process, "
                                               "far faster than the learner)")


class SelfPlay(Strict):
    pool_size: PositiveInt = 5
    snapshot_every_steps: PositiveInt = 100_000
    deterministic: bool = False
    priority: Literal["uniform", "pfsp"] = Field(
        "uniform", description="'uniform' (every snapshot alike) or 'pfsp' (the snapshots that beat the learner "
                               "more often, more often)")
    pfsp_power: NonNegative = 2.0


class PPO(Strict):
    learning_rate: NonNegative = 3.0e-4
    n_steps: PositiveInt = Field(128, description="a number of steps per game in a rollout")
    batch_size: PositiveInt = Field(1024, description="a minibatch size, at most a rollout (n_steps x env.num_envs)")
    n_epochs: PositiveInt = 4
    gamma: Fraction = 0.995
    gae_lambda: Fraction = 0.95
    clip_range: NonNegative = 0.2
    ent_coef: NonNegative = 0.01
    vf_coef: NonNegative = 0.5
    max_grad_norm: NonNegative = 0.5
    normalize_advantage: bool = True
    target_kl: Optional[NonNegative] = None


AgentSpecs = Annotated[list[str], Field(min_length=1, description="a list of agent specs (name or "
                                                                  "name:key=value,...)"),
                       AfterValidator(check_agent_specs)]


class Evaluation(Strict):
    every_steps: Optional[PositiveInt] = Field(200_000, description="a number of steps between evaluations or "
                                                                    "null (only the final one)")
    games: Count = 100
    final_games: Count = 400
    opponents: AgentSpecs = ["random", "rulebot"]
    workers: Count = 0
    deterministic: bool = True
    ray: Optional[str] = Field(None, description="null (worker processes on this machine), local (a Ray instance "
                                                 "started for each evaluation), auto or HOST:PORT (a Ray cluster)")

    @field_validator("ray")
    @classmethod
    def _ray(cls, v):
        from agents.arena.tournament.ray_pool import check_address

        if v is not None:
            try:
                check_address(v)
            except ValueError:
                raise ValueError(f"null (worker processes on this machine), local (a Ray instance started for "
                                 f"each evaluation), auto or HOST:PORT (a Ray cluster), got {v!r}") from None
        return v


class Solitaire(Strict):
    faction: Optional[str] = Field(None, description="the solitaire player's starting faction or null (the "
                                                     "one that goes last)")
    target_vp: int = Field(20, description="the solitaire level: the VP to reach")


class Pretrain(Strict):
    teacher: Optional[str] = Field(None, description="null (no warm start), a compiled agent, or in the solitaire "
                                                     "game a search agent spec ('ismcts:iterations=200')")
    decisions: PositiveInt = 500_000
    epochs: PositiveInt = 3
    batch_size: PositiveInt = 512
    learning_rate: NonNegative = 1.0e-3
    value_coef: NonNegative = 0.5
    holdout: float = Field(0.02, ge=0, le=0.5)
    workers: PositiveInt = 1


def device_of_this_machine(v: str) -> str:
    """A torch device this machine has ("auto": SB3 picks one)."""
    if v in ("auto", "cpu"):
        return v
    try:
        import torch
    except ImportError:
        return v
    try:
        d = torch.device(v)
    except (RuntimeError, ValueError) as e:
        raise ValueError(f"not a torch device ({e}); cpu, auto, cuda or cuda:N") from None
    if d.type == "cuda":
        n = torch.cuda.device_count()
        if (d.index or 0) >= n:
            raise ValueError(f"{v!r}: this machine has {n} CUDA device(s); use cpu, auto"
                             + (f" or cuda:0..{n - 1}" if n else ""))
    elif d.type == "mps":
        if not torch.backends.mps.is_available():
            raise ValueError(f"{v!r}: MPS is not available on this machine; cpu or auto")
    elif d.type != "cpu":
        raise ValueError(f"{v!r}: cpu, auto, cuda, cuda:N or mps")
    return v


class TrainConfig(RunConfig):
    """A MaskablePPO training run (the module docstring)."""

    budget: Budget = Field(default_factory=Budget, description="training stops at the first limit reached")
    torch_threads: PositiveInt = 1
    device: Annotated[str, AfterValidator(device_of_this_machine)] = Field("cpu", description="a torch device of this machine: cpu, auto, cuda or cuda:N")
    env: Env = Field(default_factory=Env)
    opponents: dict[str, NonNegative] = Field(
        default_factory=lambda: {"random": 1.0},
        description=f"ratios per seat: compiled agents, '{SELF}' (past checkpoints), '{CURRENT}' (the live policy)")
    self_play: SelfPlay = Field(default_factory=SelfPlay)
    policy: Policy = Field(default_factory=Policy)
    ppo: PPO = Field(default_factory=PPO)
    evaluation: Evaluation = Field(default_factory=Evaluation)
    checkpoint_every_steps: PositiveInt = 100_000
    init_from: Optional[str] = Field(None, description="null or the path of a MaskablePPO checkpoint (.zip)")
    solitaire: Solitaire = Field(default_factory=Solitaire)
    pretrain: Pretrain = Field(default_factory=Pretrain)

    @field_validator("opponents")
    @classmethod
    def _opponents(cls, opp):
        return check_ratios(opp, _compiled_names() + [SELF, CURRENT], f"a compiled agent, '{SELF}' or '{CURRENT}'")

    @field_validator("init_from")
    @classmethod
    def _init_from(cls, v):
        if v is not None and not Path(v).is_file():
            raise ValueError(f"null or the path of a MaskablePPO checkpoint (.zip), got {v!r}: no such file")
        return v

    @model_validator(mode="after")
    def _across(self):
        n = self.num_players
        if self.env.seat is not None and self.env.seat >= n:
            raise FieldError("env.seat", f"a seat 0..{n - 1} or null, got {self.env.seat}")
        self.check_evaluation_games()
        rollout = self.ppo.n_steps * self.env.num_envs
        if self.ppo.batch_size > rollout:
            raise FieldError("ppo.batch_size", f"at most a rollout (ppo.n_steps x env.num_envs = {self.ppo.n_steps} "
                                               f"x {self.env.num_envs} = {rollout}), got {self.ppo.batch_size}")
        pre = self.pretrain
        if n == 1:
            self._solitaire()
        elif pre.teacher is not None and pre.teacher not in _compiled_names():
            raise FieldError("pretrain.teacher", f"null (no warm start) or a compiled agent "
                                                 f"({', '.join(_compiled_names())}), got {pre.teacher!r}")
        if pre.teacher is not None and pre.batch_size > pre.decisions * (1 - pre.holdout):
            raise FieldError("pretrain.batch_size", f"{pre.batch_size} is more than the decisions left for fitting "
                                                    f"({pre.decisions} less the holdout)")
        return self

    def _solitaire(self) -> None:
        """The solitaire game's fields: its reward (the player's VP or the win), starting faction and
        level; no opponents (the bots play inside the game); a warm start only from a search agent."""
        from agents.base import make_agent, parse_agent_spec
        from v1919_env.envs.solitaire_features import SOLO_REWARDS
        from v1919_env.game import solo_config

        if self.reward not in SOLO_REWARDS:
            raise FieldError("reward", f"the solitaire game (num_players 1) pays one of {', '.join(SOLO_REWARDS)}, "
                                       f"got {self.reward!r}")
        try:
            solo_config(True, self.solitaire.faction, self.solitaire.target_vp, False)
        except ValueError as e:
            raise FieldError("solitaire.faction" if "faction" in str(e) else "solitaire.target_vp", str(e)) from None
        if set(self.opponents) - {"random"} or self.opponents.get("random", 1.0) != 1.0:
            raise FieldError("opponents", f"the solitaire game has none (the two bots play inside it), got "
                                          f"{self.opponents!r}")
        teacher = self.pretrain.teacher
        if teacher is None:
            return
        try:
            name, options = parse_agent_spec(teacher)
        except ValueError as e:
            raise FieldError("pretrain.teacher", str(e)) from None
        if name not in SOLO_TEACHERS:
            raise FieldError("pretrain.teacher", f"in the solitaire game null or a search agent that plays the "
                                                 f"player's VP ({', '.join(SOLO_TEACHERS)}, with options: "
                                                 f"'ismcts:iterations=200'; the rule bot plays for a faction, not "
                                                 f"the player), got {teacher!r}")
        try:
            make_agent(name, **options).close()
        except ValueError as e:             # (AgentError is a ValueError) a bad option of the teacher
            raise FieldError("pretrain.teacher", str(e)) from None


DEFAULTS = config_schema.defaults(TrainConfig)
"""Every key's default (the resolved config's shape)."""


def resolve(model, raw, name: str, kind: str, example: str) -> dict:
    """The resolved config (a plain mapping, every key present) of a decoded one; ConfigError names the
    field. An empty config is refused: it would start a run of the default budget nobody asked for."""
    keys = ", ".join(config_schema.defaults(model))
    if raw is None or raw == {}:
        raise ConfigError(f"the config is empty; {kind} is a mapping of the keys {keys} (a key left out takes its "
                          f"default: {model.__module__}.DEFAULTS); see {example}")
    if not isinstance(raw, dict):
        raise ConfigError(f"{kind} is a mapping of the keys {keys}, got {type(raw).__name__}")
    cfg = config_schema.validate(model, raw, ConfigError).model_dump(by_alias=True)
    if cfg["name"] is None:
        cfg["name"] = name
    return cfg


def config_from_dict(raw: dict, name: str = "train") -> dict:
    """Validate a decoded config (ConfigError names the field) and resolve it over the defaults."""
    return resolve(TrainConfig, raw, name, "a training config", "configs/train/smoke.yaml (budget: {steps: N} "
                                                               "and/or {minutes: M} says how long to train)")


def load_config(path) -> dict:
    """Read, merge and validate a YAML training config (`configs/train/*.yaml`): the fields it
    leaves out take their defaults; a wrong field raises `ConfigError` naming it. Returns the
    resolved config as a dict, what `training.learner.train` takes."""
    return read_config(path, lambda raw, name: config_from_dict(raw, name=name), ConfigError)


def saved_config(saved: dict) -> dict:
    """A run's saved config with the keys added since it started at their defaults (for --resume)."""
    return with_defaults(TrainConfig, saved)


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
