"""Expert iteration: the network-guided search (`guided`) plays games, its root visit distributions
and the games' outcomes are distilled back into the network it searched with, round after round.

    python -m training.expert_iteration configs/expert_iteration/exit_4p.yaml [--out DIR]

A round: `games` games with the search in every seat (the current network, `search` options;
decisions with a choice are searched, a seat's first `explore_decisions` of a game are drawn from
the visit distribution, later ones are the most visited), recording at each searched decision the
decider's observation and mask, the root visit distribution and the seat; when a game ends each
record gets the value target gamma^k x the seat's final reward (the training reward of the
network, `reward`; k the seat's decisions still to come, as PPO's discounted return). Whole games
are held out (`fit.holdout`); the network is fitted on the rest by cross-entropy to the visit
distributions (masked logits) + value_coef x the squared value error (Adam, the learning rate
decaying linearly to 0). Figures on the held-out decisions before and after: the KL divergence of
the policy from the visit targets, the cross-entropy, the top-1 agreement, the value MSE. The new
checkpoint is `checkpoints/round_<r>.zip` (a MaskablePPO zip: `learned:path=...`, `guided:path=...`);
`config.yaml` in the run directory records the player count and reward for `guided`.

Evaluation after the last round (`evaluation.games` 4-player games each, seats rotated: game i is
deal seed + i // 4 with the tested seat i % 4; wins split among tied winners; Wilson 95%):
`learned` on the new weights in one seat against three `learned` on the weights the run started
from, and each of them against three `rulebot`s. Everything goes to `summary.json`.
"""
from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import numpy as np
import yaml
from pydantic import Field, StringConstraints, field_validator, model_validator

from v1919_env import config_schema
from v1919_env.config_schema import FieldError, Strict, one_of, read_config
from v1919_env.core.vocab import VARIANT_ALIASES, VARIANTS

logger = logging.getLogger(__name__)

SEARCH_DEFAULTS = {"iterations": 64, "batch_size": 16, "c_puct": 1.5, "fpu": 0.2}
SET_BY_RUN = ("path", "reward", "seed", "temperature", "players")   # guided options the run sets itself
ILLEGAL_LOGIT = -1.0e9


class ExItConfigError(config_schema.ConfigError):
    """An expert-iteration config that cannot be run; the message names the file and the field."""


RunName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]+$")]
PositiveInt = Annotated[int, Field(ge=1)]
NonNegative = Annotated[float, Field(ge=0)]


def _reward_schema(schema: dict) -> None:
    from training.config import _reward_schema as reward

    reward(schema)
    kinds = schema["anyOf"][0]
    kinds.update(enum=[k for k in kinds["enum"] if k != "vp"], description="a reward kind")
    schema["anyOf"].append({"type": "null", "description": "the init checkpoint's training reward"})


class Fit(Strict):
    epochs: PositiveInt = 4
    batch_size: PositiveInt = 256
    learning_rate: NonNegative = 1.0e-4
    value_coef: NonNegative = 0.5
    holdout: float = Field(0.1, ge=0, le=0.9, description="a fraction of the games held out, 0..0.9")


class Evaluation(Strict):
    games: int = Field(200, ge=0, description="a number of games per head-to-head (0: no evaluation)")
    rulebot: bool = Field(True, description="true or false (true: both networks also against three rule bots)")


class ExItConfig(Strict):
    """An expert-iteration run (the module docstring)."""

    name: Optional[RunName] = Field(None, description="a run name (letters, digits, _ . -) or null (the config "
                                                      "file's stem)")
    seed: int = Field(0, ge=0, le=2 ** 32 - 1, description=f"an integer in 0..{2 ** 32 - 1}")
    num_players: one_of(2, 3, 4) = Field(4, description="2, 3 or 4")
    variant: Literal[VARIANTS + tuple(VARIANT_ALIASES)] = Field(
        "standard", description=f"one of {', '.join(VARIANTS)} (or {', '.join(VARIANT_ALIASES)})")
    init: Optional[str] = Field(None, description="a checkpoint path or null (the shipped weights)")
    reward: Annotated[Any, Field(json_schema_extra=_reward_schema)] = None
    gamma: float = Field(0.998, ge=0, le=1, description="a number in 0..1, the value target's discount per "
                                                       "decision of the seat")
    rounds: PositiveInt = 1
    games: int = Field(60, ge=2, description="a number of self-play games per round, at least 2")
    explore_decisions: int = Field(8, ge=0, description="a number of searched decisions per seat and game drawn "
                                                        "from the visit distribution")
    search: dict[str, Any] = Field(default_factory=lambda: dict(SEARCH_DEFAULTS),
                                   description="a mapping of options of the guided agent (over the defaults "
                                               f"{SEARCH_DEFAULTS})")
    fit: Fit = Field(default_factory=Fit)
    evaluation: Evaluation = Field(default_factory=Evaluation)
    torch_threads: PositiveInt = 1

    @field_validator("search", mode="before")
    @classmethod
    def _search_over_defaults(cls, v):
        return {**SEARCH_DEFAULTS, **v} if isinstance(v, dict) else v

    @field_validator("search")
    @classmethod
    def _not_set_by_run(cls, v):
        set_by_run = sorted(set(v) & set(SET_BY_RUN))
        if set_by_run:
            raise ValueError(f"{', '.join(set_by_run)} are set by the run (init, reward, seed, explore_decisions), "
                             f"not search options here")
        return v

    @field_validator("init")
    @classmethod
    def _init(cls, v):
        if v is not None and not Path(v).is_file():
            raise ValueError(f"no checkpoint file at {v!r}")
        return v

    @field_validator("reward")
    @classmethod
    def _reward(cls, v):
        from v1919_env.envs.vector_env import reward_weights

        if v is not None:
            try:
                reward_weights(v, nonnegative=True)
            except ValueError as e:
                raise ValueError(str(e).removeprefix("reward: ")) from None
        return v

    @model_validator(mode="after")
    def _search_builds(self):
        from agents import AgentError, make_agent

        try:          # the search options, checked by the agent itself (and the players/reward facts)
            make_agent("guided", path=self.init, reward=self.reward, **self.search).close()
        except AgentError as e:
            raise FieldError("search", str(e)) from None
        return self


DEFAULTS = config_schema.defaults(ExItConfig)
"""Every key's default (the resolved config's shape)."""


def config_from_dict(raw, name: str = "exit") -> dict:
    """The checked config of a decoded mapping, every key present (ExItConfigError names the field)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ExItConfigError(f"expected a mapping of the keys {', '.join(DEFAULTS)} at the top, "
                              f"got {type(raw).__name__}")
    cfg = config_schema.validate(ExItConfig, raw, ExItConfigError).model_dump(by_alias=True)
    if cfg["name"] is None:
        cfg["name"] = name
    return cfg


def load_config(path: str | Path | None = None, raw: dict | None = None) -> dict:
    """The checked config of a YAML file (errors prefixed by the file) or of `raw`."""
    if raw is not None or path is None:
        return config_from_dict(raw)
    return read_config(path, config_from_dict, ExItConfigError)


class Records:
    """Searched decisions: observation (float16, the network's prefix), mask, visit distribution,
    value target, seat and game index."""

    def __init__(self):
        self.obs, self.masks, self.targets, self.values, self.seats, self.games = [], [], [], [], [], []

    def __len__(self) -> int:
        return len(self.obs)

    def arrays(self) -> dict:
        return {"obs": np.asarray(self.obs, np.float16), "masks": np.asarray(self.masks, bool),
                "targets": np.asarray(self.targets, np.float32), "values": np.asarray(self.values, np.float32),
                "seats": np.asarray(self.seats, np.int64), "games": np.asarray(self.games, np.int64)}


def play_games(cfg: dict, path: str | None, round_index: int, progress: bool = False) -> tuple[Records, dict]:
    """`cfg['games']` games with the guided search on `path` in every seat; returns the records and
    the games' figures (decisions, searched decisions, seconds)."""
    from tqdm import tqdm

    from agents import make_agent
    from agents.play import observe_seat
    from v1919_env.actions import NUM_ACTIONS
    from v1919_env.game import Game
    from v1919_env.rewards import terminal_rewards

    agent = make_agent("guided", path=path, reward=cfg["reward"], **cfg["search"])
    weights = agent.reward
    n_obs = agent.net.obs_size
    gamma = float(cfg["gamma"])
    rec = Records()
    t0 = time.perf_counter()
    decisions = searched = 0
    base = cfg["seed"] * 1_000_003 + round_index * 10_007
    for i in tqdm(range(cfg["games"]), desc=f"round {round_index} self-play", unit="game", disable=not progress):
        g = Game.new(cfg["num_players"], seed=base + i, variant=cfg["variant"])
        agent.reset(base + i)
        made = [0] * g.num_players                  # decisions of each seat so far (forced ones too)
        start = len(rec)
        at = []                                     # (record index, seat, the seat's decision number)
        while not g.is_over:
            p = g.current_player
            acts = g.legal_actions()
            made[p] += 1
            decisions += 1
            if len(acts) == 1:
                g.step(int(acts[0]))
                continue
            agent.temperature = 1.0 if sum(1 for _, s, _ in at if s == p) < cfg["explore_decisions"] else 0.0
            a = agent.act(None, g.action_mask(), g.clone())
            st = agent.last_stats
            obs, mask = observe_seat(g, p)
            pi = np.zeros(NUM_ACTIONS, np.float32)
            pi[st["actions"]] = st["visits"] / st["visits"].sum()
            rec.obs.append(obs[:n_obs].astype(np.float16))
            rec.masks.append(mask.astype(bool))
            rec.targets.append(pi)
            rec.seats.append(p)
            rec.games.append(i)
            rec.values.append(0.0)
            at.append((len(rec) - 1, p, made[p]))
            searched += 1
            g.step(a)
        scores = g.scores()
        final = sum(w * np.asarray(terminal_rewards(scores, k), np.float64) for k, w in weights.items())
        for j, p, k in at:
            rec.values[j] = float(gamma ** (made[p] - k) * final[p])
        assert len(rec) - start == len(at)
    agent.close()
    return rec, {"games": cfg["games"], "decisions": decisions, "searched_decisions": searched,
                 "seconds": time.perf_counter() - t0}


# ----------------------------------------------------------------------------- distillation
def _outputs(policy, obs):
    from training.pretrain import policy_outputs

    return policy_outputs(policy, obs)


def fit_figures(policy, data: dict, idx: np.ndarray, batch: int = 2048) -> dict:
    """Mean KL(visits || policy), cross-entropy, top-1 agreement (the policy's most probable legal
    action is the most visited) and value MSE over the records idx."""
    import torch

    tot = np.zeros(4)
    with torch.no_grad():
        for k in range(0, len(idx), batch):
            sl = idx[k:k + batch]
            logits, values = _outputs(policy, torch.from_numpy(data["obs"][sl].astype(np.float32)))
            mask = torch.from_numpy(data["masks"][sl])
            logp = torch.log_softmax(logits.masked_fill(~mask, ILLEGAL_LOGIT), dim=-1)
            pi = torch.from_numpy(data["targets"][sl])
            ce = -(pi * logp).sum(1)
            ent = -(pi * torch.log(pi.clamp_min(1e-12))).sum(1)
            top = (logp.argmax(1) == pi.argmax(1)).float()
            mse = (values - torch.from_numpy(data["values"][sl])) ** 2
            tot += np.array([(ce - ent).sum().item(), ce.sum().item(), top.sum().item(), mse.sum().item()])
    kl, ce, top, mse = tot / max(1, len(idx))
    return {"kl": float(kl), "cross_entropy": float(ce), "top1": float(top), "value_mse": float(mse)}


def distill(policy, data: dict, train: np.ndarray, hold: np.ndarray, fit: dict, seed: int) -> dict:
    """Fit `policy` in place on the records `train`; the held-out figures before and after."""
    import torch

    rng = np.random.default_rng(seed)
    before = fit_figures(policy, data, hold)
    opt = torch.optim.Adam(policy.parameters(), lr=fit["learning_rate"])
    bs = fit["batch_size"]
    steps = max(1, fit["epochs"] * max(1, len(train) // bs))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 1.0 - k / steps)
    policy.set_training_mode(True)
    t0 = time.perf_counter()
    for _ in range(fit["epochs"]):
        order = rng.permutation(train)
        for k in range(0, max(1, len(order) - bs + 1), bs):
            sl = np.sort(order[k:k + bs])
            logits, values = _outputs(policy, torch.from_numpy(data["obs"][sl].astype(np.float32)))
            mask = torch.from_numpy(data["masks"][sl])
            logp = torch.log_softmax(logits.masked_fill(~mask, ILLEGAL_LOGIT), dim=-1)
            ce = -(torch.from_numpy(data["targets"][sl]) * logp).sum(1).mean()
            mse = ((values - torch.from_numpy(data["values"][sl])) ** 2).mean()
            loss = ce + fit["value_coef"] * mse
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
    policy.set_training_mode(False)
    after = fit_figures(policy, data, hold)
    return {"train_records": int(len(train)), "holdout_records": int(len(hold)), "before": before, "after": after,
            "fit_seconds": time.perf_counter() - t0}


# ----------------------------------------------------------------------------- evaluation
def head_to_head(spec: str, opponent: str, games: int, num_players: int, seed: int, progress: bool = False) -> dict:
    """`spec` in one seat against `opponent` in the others, seats rotated (game i: deal seed + i //
    n, seat i % n); the win share (split among tied winners) with its Wilson 95% interval."""
    from tqdm import tqdm

    from agents import make_agent, parse_agent_spec
    from agents.tournament.stats import wilson_interval

    from .head_to_head import game_share

    name, opts = parse_agent_spec(spec)
    me = make_agent(name, **opts)
    oname, oopts = parse_agent_spec(opponent)
    others = [make_agent(oname, **oopts) for _ in range(num_players - 1)]
    share = 0.0
    for i in tqdm(range(games), desc=f"{spec} vs {opponent}", unit="game", disable=not progress):
        share += game_share(me, others, spec, opponent, i, num_players, seed)
    lo, hi = wilson_interval(share, games)
    return {"agent": spec, "opponent": opponent, "games": games, "win_rate": share / max(1, games), "ci95": [lo, hi]}


# ----------------------------------------------------------------------------- the run
def run(cfg: dict, out: str | Path, progress: bool = False) -> dict:
    """Run the expert-iteration loop of a checked config (`load_config`) into `out`.

    Each round plays self-play games with `guided` in every seat, distills the root visit
    distributions and the outcomes into the network (held-out figures before and after), and saves
    `checkpoints/round_<r>.zip`; then the evaluation games (the new weights against the old, and
    each against three rule bots). Returns the summary, also written to `out/summary.json`
    (docs/training.md, "Expert iteration")."""
    import torch

    from agents.learned import DEFAULT_WEIGHTS, LearnedAgent

    torch.set_num_threads(cfg["torch_threads"])
    torch.manual_seed(cfg["seed"])
    out = Path(out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    from agents.guided import checkpoint_facts

    init = str(cfg["init"] or DEFAULT_WEIGHTS)
    facts = checkpoint_facts(init)
    resolved = dict(cfg, reward=cfg["reward"] if cfg["reward"] is not None else facts.get("reward", "win_loss"))
    (out / "config.yaml").write_text(yaml.safe_dump(resolved, sort_keys=False))
    path = init
    summary = {"config": resolved, "rounds": []}
    for r in range(1, cfg["rounds"] + 1):
        rec, play = play_games(resolved, path, r, progress)
        data = rec.arrays()
        rng = np.random.default_rng(cfg["seed"] + r)
        games = np.unique(data["games"])
        n_hold = max(1, int(round(cfg["fit"]["holdout"] * len(games)))) if cfg["fit"]["holdout"] > 0 else 0
        held = set(rng.permutation(games)[:n_hold].tolist())
        is_hold = np.array([gi in held for gi in data["games"]], bool)
        hold, train = np.flatnonzero(is_hold), np.flatnonzero(~is_hold)
        net = LearnedAgent(path=path)
        fit = distill(net.model.policy, data, train, hold if len(hold) else train, cfg["fit"], cfg["seed"] + r)
        new = out / "checkpoints" / f"round_{r}.zip"
        net.model.save(str(new))
        logger.info(f"round {r}: {play['searched_decisions']} searched decisions in {play['games']} games "
                    f"({play['seconds']:.0f} s); held-out KL(visits||policy) {fit['before']['kl']:.3f} -> "
                    f"{fit['after']['kl']:.3f}, value MSE {fit['before']['value_mse']:.3f} -> "
                    f"{fit['after']['value_mse']:.3f}")
        summary["rounds"].append({"round": r, "from": path, "to": str(new), "play": play, "fit": fit})
        path = str(new)
        (out / "summary.json").write_text(json.dumps(summary, indent=2))
    ev = cfg["evaluation"]
    if ev["games"] > 0:
        n = cfg["num_players"]
        after, before = f"learned:path={path}", f"learned:path={init}"
        seed = cfg["seed"] + 500_000
        res = [head_to_head(after, before, ev["games"], n, seed, progress)]
        if ev["rulebot"]:
            res += [head_to_head(s, "rulebot", ev["games"], n, seed, progress) for s in (after, before)]
        summary["evaluation"] = res
        for x in res:
            logger.info(f"{x['agent']} vs {x['opponent']}: {x['win_rate']:.3f} [{x['ci95'][0]:.3f}, "
                        f"{x['ci95'][1]:.3f}] over {x['games']} games")
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.expert_iteration", description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--out", default=None, help="run directory (default runs/exit/<name>)")
    args = ap.parse_args(argv)
    from v1919_env.logs import show_logs_on_terminal

    show_logs_on_terminal()
    try:
        cfg = load_config(args.config)
    except (ExItConfigError, OSError, yaml.YAMLError) as e:
        raise SystemExit(f"error: {e}")
    s = run(cfg, args.out or Path("runs") / "exit" / cfg["name"], progress=True)
    print(json.dumps({"rounds": [{k: r[k] for k in ("round", "to", "fit")} for r in s["rounds"]],
                      "evaluation": s.get("evaluation")}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
