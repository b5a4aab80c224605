"""Teacher games for expert iteration: the search plays, its root visit distributions and the games'
outcomes go to compressed shards on disk (training.shards).

    python -m training.selfplay CONFIG.yaml [--out DIR] [--workers N] [--ray [ADDRESS]] [--games N] [--minutes M]

Each game seats, seat by seat, the teacher (`guided` with the config's `search` options on the
network at `path`), a `rulebot` or the network alone (`learned` sampling its policy) with the
probabilities `seats`, at least one teacher per game. Only the teacher's decisions with a choice
are recorded (observation, mask, root visits, priors and mean values, the action, the seat); at
the game's end each record gets the seat's outcome (the network's training reward), its share of
the win and the number of its decisions left (the value target is gamma ** left x outcome). A
teacher seat's first `explore_decisions` searched decisions of a game are drawn from the visit
distribution, the later ones are the most visited.

Game g (global index) is played from deal seed `seed * 1_000_003 + g` with its seating drawn from
(seed, g): a game is defined by the config and its index alone, so shard k always holds games
k * games_per_shard ... and a resumed run (the same directory) plays only the shards missing.
Worker processes (default: every core) or Ray tasks (`--ray`: "local", "auto" or HOST:PORT) each
play whole shards and hand the arrays back; the driver writes them and shows a progress bar with
games/s, searched decisions/s and the ETA. `--minutes M` starts no shard after M minutes of wall
time (the shards in flight finish and are written; a later run in the same directory resumes).
"""
from __future__ import annotations

import argparse
import io
import json
import logging
import math
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, Field, field_validator, model_validator

from v1919_env import config_schema
from v1919_env.config_schema import Strict

from . import shards
from .runs import out_dir

logger = logging.getLogger(__name__)
SEED_STRIDE = 1_000_003
KINDS = ("teacher", "rulebot", "network")


def _reward_schema(schema: dict) -> None:
    from .config import reward_schema

    reward_schema(schema)
    schema["anyOf"].append({"type": "null", "description": "the training reward of the network searched"})


RUN_NAME = Field(None, pattern=r"^[A-Za-z0-9_.-]+$",
                 description="letters, digits, _ . or - (the run folder's name), or null (the config file's stem)")


class SeatMix(Strict):
    """Probabilities that a seat is played by the teacher, a rule bot or the network alone."""
    teacher: float = Field(1.0, ge=0, le=1)
    rulebot: float = Field(0.0, ge=0, le=1)
    network: float = Field(0.0, ge=0, le=1)

    @model_validator(mode="after")
    def _sum(self):
        if self.teacher <= 0 or abs(self.teacher + self.rulebot + self.network - 1.0) > 1e-6:
            raise ValueError("seats: teacher > 0 and teacher + rulebot + network = 1")
        return self


class SelfPlayConfig(Strict):
    """A self-play data run (see the module docstring)."""
    KIND: ClassVar[str] = "selfplay"
    name: str | None = RUN_NAME
    seed: int = Field(0, ge=0, le=2 ** 31 - 1)
    num_players: Literal[2, 3, 4] = 4
    variant: str = "standard"
    path: str | None = None                       # the network the teacher searches (None: the shipped one)
    reward: Annotated[Any, Field(json_schema_extra=_reward_schema)] = None   # None: the network's training reward
    games: int = Field(1000, ge=1)
    games_per_shard: int = Field(8, ge=1)
    lockstep_games: int = Field(64, ge=1)        # games a worker searches at once (whole shards; agents/lockstep.py)
    holdout_every: int = Field(10, ge=0)          # shards k with k % holdout_every == 0 are held out (0: none)
    explore_decisions: int = Field(4, ge=0)
    seats: SeatMix = SeatMix()
    search: dict = Field(default_factory=lambda: {"iterations": 32, "batch_size": 16, "rollout_mix": 1.0,
                                                  "bot_prior": 0.5})
    network_temperature: float = Field(1.0, ge=0)  # the network seats sample policy ** (1 / t) (0: argmax)

    @field_validator("variant")
    @classmethod
    def _variant(cls, v):
        from v1919_env.core.vocab import VARIANT_ALIASES, VARIANTS

        if v not in VARIANTS and v not in VARIANT_ALIASES:
            raise ValueError(f"one of {', '.join(VARIANTS)} (or {', '.join(VARIANT_ALIASES)})")
        return v

    @field_validator("reward")
    @classmethod
    def _reward(cls, v):
        if v is not None:
            from agents.guided import reward_spec

            reward_spec(v)
        return v

    @field_validator("path")
    @classmethod
    def _path(cls, v):
        if v is not None and not Path(v).is_file():
            raise ValueError(f"no checkpoint file at {v!r}")
        return v

    @field_validator("search")
    @classmethod
    def _search(cls, v):
        bad = sorted(set(v) & {"path", "reward", "seed", "temperature", "players"})
        if bad:
            raise ValueError(f"{', '.join(bad)} are set by the run, not search options")
        from agents import AgentError, make_agent

        try:
            make_agent("guided", **v).close()
        except (AgentError, ValueError, TypeError) as e:
            raise ValueError(str(e)) from None
        return v

    @property
    def shards(self) -> int:
        return math.ceil(self.games / self.games_per_shard)


class ConfigError(config_schema.ConfigError):
    """A config that cannot be run; the message names the file and the field."""


def load_config(path: str | Path | None = None, raw: dict | None = None, **overrides) -> SelfPlayConfig:
    """A self-play config from the YAML file `path` (or the mapping `raw`); ConfigError names the field."""
    return read_model(SelfPlayConfig, path, raw, overrides)


def read_model(model: type[BaseModel], path: str | Path | None, raw: dict | None, overrides: dict):
    """A config of `model` (the self-play, fit and rounds kinds) from the YAML file `path` (or the
    mapping `raw`), with the overrides that are not None laid over it; a null or missing name takes
    the file's stem (else the model's kind). Errors are one line naming the file and the field, as
    every config kind's (v1919_env.config_schema); an empty file is refused, not run with defaults."""
    def build(raw, name: str | None):
        if path is not None and (raw is None or raw == {}):
            raise ConfigError(f"the config is empty; a {model.KIND} config is a mapping of the keys "
                              f"{', '.join(model.model_fields)} (see configs/expert_iteration/)")
        if not isinstance(raw, dict):
            raise ConfigError(f"expected a mapping of the keys {', '.join(model.model_fields)} at the top, got "
                              f"{type(raw).__name__}")
        raw = {**raw, **{k: v for k, v in overrides.items() if v is not None}}
        cfg = config_schema.validate(model, raw, ConfigError)
        if cfg.name is None:
            cfg.name = name or model.KIND
        return cfg

    return build(raw, None) if raw is not None else config_schema.read_config(path, build, ConfigError)


# ----------------------------------------------------------------------------- one shard
class _Players:
    """The agents of one worker process, built once and kept across shards."""

    def __init__(self, cfg: SelfPlayConfig):
        import torch

        from agents import make_agent
        from agents.guided import checkpoint_facts, reward_spec
        from agents.learned import DEFAULT_WEIGHTS, SHIPPED_WEIGHTS

        torch.set_num_threads(1)
        path = cfg.path or str(SHIPPED_WEIGHTS[cfg.num_players] if cfg.num_players != 4 else DEFAULT_WEIGHTS)
        self.teacher = make_agent("guided", path=path, reward=cfg.reward, **cfg.search)
        self.reward = self.teacher.reward if cfg.reward is None else reward_spec(cfg.reward)
        self.facts = checkpoint_facts(path)
        self.rulebot = make_agent("rulebot")
        self.network = self.teacher.net          # the same LearnedAgent, its policy sampled


def seating(cfg: SelfPlayConfig, g: int) -> list[str]:
    """Who plays each seat of game g: drawn from (seed, g), at least one teacher."""
    rng = np.random.default_rng([cfg.seed, g, 7])
    p = np.array([cfg.seats.teacher, cfg.seats.rulebot, cfg.seats.network])
    while True:
        kinds = [KINDS[i] for i in rng.choice(3, size=cfg.num_players, p=p / p.sum())]
        if "teacher" in kinds:
            return kinds


class _GameRun:
    """One teacher game in a lockstep batch: its seats, generators and records so far."""

    def __init__(self, cfg: SelfPlayConfig, players: _Players, g: int):
        from agents import make_agent
        from v1919_env.core.bots import seed_policy_rng
        from v1919_env.game import Game

        self.cfg, self.g = cfg, g
        self.seed = seed = cfg.seed * SEED_STRIDE + g
        self.kinds = seating(cfg, g)
        self.game = Game.new(cfg.num_players, seed=seed, variant=cfg.variant)
        self.rulebot = make_agent("rulebot", seed=seed + 1)
        self.network = players.network
        self.teacher_rng = seed_policy_rng(seed)             # the teacher's search generator (GuidedAgent.reset)
        self.pick_rng = np.random.default_rng(seed)          # its draws from the visits
        self.rng = np.random.default_rng([seed, 11])         # the network seats' draws
        self.made = [0] * cfg.num_players
        self.searched = [0] * cfg.num_players
        self.recs: list[dict] = []
        self.decisions = 0
        self.pending: tuple | None = None

    def advance(self) -> bool:
        """Play on to the next teacher decision with a choice (True: it waits for a search; its
        observation is kept in `pending`) or to the end of the game (False)."""
        from agents.seat import observe_seat

        game, cfg = self.game, self.cfg
        while not game.is_over:
            p = game.current_player
            acts = game.legal_actions()
            self.made[p] += 1
            self.decisions += 1
            if len(acts) == 1:
                game.step(int(acts[0]))
                continue
            obs, mask = observe_seat(game, p)
            kind = self.kinds[p]
            if kind == "rulebot":
                a = self.rulebot.act(obs, mask, game.clone())
            elif kind == "network":
                probs = self.network.action_probabilities(obs, mask)
                if cfg.network_temperature > 0:
                    w = probs ** (1.0 / cfg.network_temperature)
                    a = int(self.rng.choice(len(w), p=w / w.sum()))
                else:
                    a = int(np.argmax(probs))
            else:
                self.pending = (p, obs, mask, game.state.copy())
                return True
            game.step(int(a))
        return False

    def apply(self, r) -> None:
        """The teacher's move from its finished search r (agents.lockstep.SearchResult): the first
        `explore_decisions` searched decisions of a seat drawn from the visits (PUCT root), the later
        ones the search's own move."""
        p, obs, mask, state = self.pending
        j = r.choice
        if self.searched[p] < self.cfg.explore_decisions and r.considered is None and r.visits.sum() > 0:
            j = int(self.pick_rng.choice(len(r.actions), p=r.visits / r.visits.sum()))
        self.searched[p] += 1
        a = int(r.actions[j])
        self.recs.append({"obs": obs, "mask": mask.astype(bool), "actions": r.actions, "visits": r.visits,
                          "prior": r.priors, "q": r.values, "root_value": r.root_value, "action": a, "seat": p,
                          "made": self.made[p], "game": self.g, "state": state})
        self.pending = None
        self.game.step(a)

    def finish(self, reward: dict) -> tuple[list[dict], dict]:
        """The records with the game's outcome, and the game's facts."""
        from v1919_env.core.layout import SEATING
        from v1919_env.core.vocab import NATIONS
        from v1919_env.rewards import terminal_rewards

        scores = self.game.scores()
        final = sum(w * np.asarray(terminal_rewards(scores, k), np.float64) for k, w in reward.items())
        winners = [s["seat"] for s in scores if s["winner"]]
        order = [int(x) for x in self.game.state[SEATING:SEATING + len(final)]]     # seats clockwise
        for r in self.recs:
            p = r["seat"]
            me = order.index(p)
            r["left"] = self.made[p] - r["made"]
            r["outcome"] = float(final[p])
            r["outcomes"] = [float(final[order[(me + k) % len(order)]]) for k in range(len(order))]
            r["win"] = 1.0 / len(winners) if p in winners else 0.0
            r["nation"] = NATIONS.index(scores[p]["nation"])
        return self.recs, {"game": self.g, "seed": self.seed, "kinds": self.kinds, "decisions": self.decisions}


def play_games(cfg: SelfPlayConfig, players: _Players, games: list[int]) -> tuple[list[dict], list[dict]]:
    """Games `games` in lockstep: every teacher decision waiting at once is searched by one engine
    (agents/lockstep.py), one step of all of them at a time. A game's records depend on its index
    alone, not on the games beside it. Returns the records (in game order) and the games' facts."""
    from agents.lockstep import Lockstep

    runs = [_GameRun(cfg, players, g) for g in games]
    eng = Lockstep(players.teacher, len(runs), cfg.num_players)

    def start(i):
        run = runs[i]
        if run.advance():
            eng.rng[i] = run.teacher_rng
            eng.begin([i], run.game.state, run.game.T)

    for i in range(len(runs)):
        start(i)
    while eng.step():
        for i in eng.done():
            r = eng.result(i)
            runs[i].teacher_rng[:] = eng.rng[i]
            runs[i].apply(r)
            start(i)
    out = [run.finish(players.reward) for run in runs]
    return [r for recs, _ in out for r in recs], [info for _, info in out]


def shard_arrays(recs: list[dict], games: list[dict]) -> dict:
    from v1919_env.actions import NUM_ACTIONS
    from v1919_env.core.layout import MAX_PLAYERS, STATE_SIZE

    n = len(recs)
    visits = np.zeros((n, NUM_ACTIONS), np.uint16)
    prior = np.zeros((n, NUM_ACTIONS), np.float16)
    q = np.zeros((n, NUM_ACTIONS), np.float16)
    for i, r in enumerate(recs):
        visits[i, r["actions"]] = np.minimum(r["visits"], 65535).astype(np.uint16)
        prior[i, r["actions"]] = r["prior"]
        q[i, r["actions"]] = r["q"]
    col = lambda k, dt: np.asarray([r[k] for r in recs], dt)  # noqa: E731
    return {"obs": np.asarray([r["obs"] for r in recs], np.float16).reshape(n, -1),
            "mask": np.asarray([r["mask"] for r in recs], bool).reshape(n, NUM_ACTIONS),
            "visits": visits, "prior": prior, "q": q, "root_value": col("root_value", np.float32),
            "action": col("action", np.int16), "seat": col("seat", np.int8),
            "state": np.asarray([r["state"] for r in recs], np.int32).reshape(n, STATE_SIZE),
            "game": col("game", np.int64),
            "left": col("left", np.int32), "outcome": col("outcome", np.float32),
            "outcomes": np.asarray([r["outcomes"] + [0.0] * (MAX_PLAYERS - len(r["outcomes"])) for r in recs],
                                   np.float32).reshape(n, MAX_PLAYERS), "win": col("win", np.float32),
            "nation": col("nation", np.int8), "game_ids": np.asarray([gm["game"] for gm in games], np.int64),
            "game_seeds": np.asarray([gm["seed"] for gm in games], np.int64),
            "game_kinds": np.asarray([gm["kinds"] for gm in games], "<U8"),
            "game_decisions": np.asarray([gm["decisions"] for gm in games], np.int64)}


_PLAYERS: dict = {}


def play_shards(cfg_json: str, indices: list[int]) -> list[tuple[int, bytes, dict]]:
    """Play the shards `indices` (in any process), all their games in one lockstep batch: [(index, the
    .npz bytes, its figures)]. The CPU time is shared among the shards by their searched decisions."""
    import torch

    torch.set_num_threads(1)
    cfg = SelfPlayConfig.model_validate_json(cfg_json)
    if _PLAYERS.get("key") != cfg_json:
        _PLAYERS.clear()
        _PLAYERS.update(key=cfg_json, players=_Players(cfg))
    players = _PLAYERS["players"]
    t0, c0 = time.perf_counter(), time.process_time()
    ranges = {i: range(i * cfg.games_per_shard, min(cfg.games, (i + 1) * cfg.games_per_shard)) for i in indices}
    recs, games = play_games(cfg, players, [g for i in indices for g in ranges[i]])
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    out = []
    for i in indices:
        rs = [r for r in recs if r["game"] in ranges[i]]
        gs = [gm for gm in games if gm["game"] in ranges[i]]
        share = len(rs) / max(1, len(recs))
        buf = io.BytesIO()     # the shard keeps its CPU time: the cost of a buffer survives a resumed run
        np.savez_compressed(buf, **shard_arrays(rs, gs), cpu_seconds=np.float64(cpu * share))
        out.append((i, buf.getvalue(), {"games": len(gs), "searched": len(rs),
                                        "decisions": sum(gm["decisions"] for gm in gs), "seconds": wall * share,
                                        "cpu_seconds": cpu * share}))
    return out


# ----------------------------------------------------------------------------- the run
def _local_pool(workers: int):
    import multiprocessing as mp

    ctx = mp.get_context("spawn")      # a fresh interpreter: no torch threads or numba state inherited
    return ctx.Pool(workers, maxtasksperchild=None)


def task_groups(cfg: SelfPlayConfig, todo: list[int], workers: int) -> list[list[int]]:
    """The shards `todo` in tasks of consecutive shards: about `lockstep_games` games a task (searched
    in one lockstep batch), fewer when that would leave a worker without a task."""
    per = max(1, cfg.lockstep_games // cfg.games_per_shard)
    per = max(1, min(per, math.ceil(len(todo) / max(1, workers))))
    return [todo[i:i + per] for i in range(0, len(todo), per)]


def _iter_results(cfg: SelfPlayConfig, todo: list[int], workers: int, ray_address: str | None,
                  deadline: float | None = None):
    """(index, bytes, figures) of the shards `todo` as they finish, a task's shards together. With a
    deadline (time.monotonic()), no task starts after it: at most `workers` tasks are in flight, and
    those finish."""
    js = cfg.model_dump_json()
    more = (lambda: True) if deadline is None else (lambda: time.monotonic() < deadline)
    groups = task_groups(cfg, todo, workers)
    queue = iter(groups)
    limit = len(groups) if deadline is None else workers
    if ray_address is not None:
        import ray

        # "local": a new instance of this run's own, never a cluster another program runs on this machine
        ray.init(address=ray_address, ignore_reinit_error=True,
                 **({"num_cpus": workers, "include_dashboard": False} if ray_address == "local" else {}))
        task = ray.remote(num_cpus=1)(play_shards)
        pending = []

        def fill():
            while len(pending) < limit and more():
                grp = next(queue, None)
                if grp is None:
                    return
                pending.append(task.remote(js, grp))

        fill()
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield from ray.get(done[0])
                fill()
        finally:
            for p in pending:
                ray.cancel(p)
            if ray_address == "local":
                ray.shutdown()
    elif workers <= 1:
        for grp in groups:
            if not more():
                return
            yield from play_shards(js, grp)
    else:
        with _local_pool(workers) as pool:
            inflight = []

            def fill():
                while len(inflight) < limit and more():
                    grp = next(queue, None)
                    if grp is None:
                        return
                    inflight.append(pool.apply_async(play_shards, (js, grp)))

            fill()
            while inflight:
                done = [r for r in inflight if r.ready()]
                if not done:
                    time.sleep(0.05)
                    continue
                for r in done:
                    inflight.remove(r)
                    yield from r.get()
                fill()


def generate(cfg: SelfPlayConfig, out: str | Path, workers: int | None = None, ray_address: str | None = None,
             progress: bool = True, minutes: float | None = None) -> dict:
    """Play every shard of the config missing from `out`; returns the run's figures. With `minutes`,
    no shard starts after that much wall time: the shards in flight finish and are written, the rest
    are left for a resumed run (`stopped_by_time` in the figures)."""
    from tqdm import tqdm

    out = Path(out)
    meta = {"config": cfg.model_dump(), "holdout_every": cfg.holdout_every, "games_per_shard": cfg.games_per_shard}
    if (out / "meta.json").is_file():
        old = shards.read_meta(out)
        keep = {k: old["config"].get(k) for k in ("seed", "num_players", "variant", "games_per_shard", "search",
                                                  "seats", "path", "explore_decisions")}
        new = {k: meta["config"].get(k) for k in keep}
        if json.dumps(keep, sort_keys=True) != json.dumps(new, sort_keys=True):
            raise ConfigError(f"{out} holds games of another config ({keep} != {new}); give another --out")
    shards.write_meta(out, meta)
    done = set(shards.shard_indices(out))
    todo = [i for i in range(cfg.shards) if i not in done]
    workers = workers or os.cpu_count() or 1
    left_games = sum(min(cfg.games, (i + 1) * cfg.games_per_shard) - i * cfg.games_per_shard for i in todo)
    totals = {"games": 0, "searched": 0, "decisions": 0, "cpu_seconds": 0.0, "shards": 0}
    t0 = time.perf_counter()
    bar = tqdm(total=left_games, unit="game", desc=f"{cfg.name} ({len(done)} shards done)", disable=not progress,
               mininterval=5, smoothing=0.05, file=sys.stderr)
    deadline = None if minutes is None else time.monotonic() + 60.0 * minutes
    for index, blob, figs in _iter_results(cfg, todo, workers, ray_address, deadline):
        shards.write_atomic(shards.shard_path(out, index), blob)
        for k in ("games", "searched", "decisions", "cpu_seconds"):
            totals[k] += figs[k]
        totals["shards"] += 1
        dt = time.perf_counter() - t0
        bar.update(figs["games"])
        bar.set_postfix_str(f"{totals['games'] / dt:.3f} games/s, {totals['searched'] / dt:.1f} searched/s, "
                            f"{totals['cpu_seconds'] / max(1, totals['searched']) * 1e3:.1f} CPU ms/searched")
    bar.close()
    totals["seconds"] = time.perf_counter() - t0
    totals["skipped_shards"] = len(done & set(range(cfg.shards)))
    totals["stopped_by_time"] = totals["shards"] < len(todo)
    return totals


def main(argv=None) -> int:
    from agents.arena.tournament.ray_pool import address_arg

    ap = argparse.ArgumentParser(prog="python -m training.selfplay", description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--out", default=None, help="data directory (default $V1919_RUNS/selfplay/<name>, training.runs); resumes there")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: every core)")
    ap.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS", type=address_arg,
                    help="play on Ray: local (default), auto or HOST:PORT")
    ap.add_argument("--games", type=int, default=None, help="override the config's games (grow a buffer)")
    ap.add_argument("--minutes", type=float, default=None,
                    help="start no shard after this much wall time (those in flight finish; resume later)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        if args.minutes is not None and not args.minutes >= 0:
            raise ConfigError(f"--minutes: a number >= 0, got {args.minutes}")
        cfg = load_config(args.config, games=args.games)
        if args.workers is not None and args.workers < 1:
            raise ConfigError(f"--workers: at least 1, got {args.workers}")
        s = generate(cfg, out_dir(args.out, "selfplay", cfg.name), args.workers, args.ray,
                     minutes=args.minutes)
    except (ConfigError, ValueError) as e:
        raise SystemExit(f"error: {e}")
    print(json.dumps(s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
