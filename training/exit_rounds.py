"""Expert iteration, round after round: teacher games, a fit, an evaluation, and the next round's
teacher searches the new network.

    python -m training.exit_rounds configs/experiments/expert_iteration/rounds/rounds_4p_s1.yaml [--workers N] [--ray [ADDR]]
    python -m training.exit_rounds --plot docs/images/exit_rounds_4p.png runs/exit_rounds/rounds_4p_s1 ...

Round r (1..rounds), in `runs/exit_rounds/<name>/round_<r>/`:

1. `selfplay/`: `games` teacher games (`training.selfplay`) with the config's `teacher` options, the
   teacher searching the network of round r - 1 (round 0: `init`, default the shipped weights of the
   player count), the search options of `search_by_round[r - 1]` laid over `teacher.search` (the last
   entry repeats: lower the rule bot's share of the prior and the rollouts round by round), deals
   seeded by (seed, r).
2. `fit/`: that network fitted (`training.fit`, the `fit` options) to the last `window` rounds' games.
3. `eval.json`: the new network alone against `num_players - 1` rule bots (`evaluation.games`) and
   against copies of the round r - 1 network (`evaluation.previous_games`), whole deals rotated
   through every seat, Wilson 95% (`training.head_to_head`), on deals no training config uses.

Each step is skipped when its output exists, so a stopped run resumes where it was (or goes on with
more `rounds`); a directory holding a run of another config is refused. `curve.jsonl`
holds a row per round (round 0: the starting network) with the games and CPU seconds spent so far
(teacher games and fits; evaluations apart), and `--plot` draws the curves of one or more runs by
round, by teacher games and by CPU hours.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import time
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from v1919_env.config_schema import Strict

from . import fit as fitmod
from . import head_to_head, selfplay, shards
from .runs import out_dir
from .config import SEED_MAX
from .head_to_head import EVAL_SEED
from .selfplay import RUN_NAME, ConfigError, read_model

logger = logging.getLogger(__name__)
RUN_SET = ("name", "seed", "num_players", "variant", "path", "games")   # teacher options the run sets itself


class Evaluation(Strict):
    """The evaluation after each round (whole deals: multiples of the player count)."""
    games: int = Field(1000, ge=0)            # against the rule bots (0: none)
    previous_games: int = Field(400, ge=0)    # against the previous round's network (0: none)
    seed: int = Field(EVAL_SEED, ge=0, le=SEED_MAX)


class RoundsConfig(Strict):
    """Expert iteration over rounds (see the module docstring)."""
    KIND: ClassVar[str] = "rounds"
    name: str | None = RUN_NAME
    seed: int = Field(0, ge=0, le=2 ** 20)
    num_players: Literal[2, 3, 4] = 4
    variant: str = "standard"
    init: str | None = None                   # the round-0 network (None: the shipped weights)
    rounds: int = Field(3, ge=1)
    games: int = Field(320, ge=1)             # teacher games a round
    window: int = Field(2, ge=1)              # rounds of teacher games each fit uses (the newest)
    teacher: dict = Field(default_factory=dict)           # training.selfplay options (not the RUN_SET ones)
    search_by_round: list[dict] = Field(default_factory=list)   # laid over teacher.search, round by round
    fit: dict = Field(default_factory=dict)               # training.fit options (not name, data, init)
    evaluation: Evaluation = Evaluation()

    def teacher_config(self, r: int, path: str | None) -> selfplay.SelfPlayConfig:
        bad = sorted(set(self.teacher) & set(RUN_SET))
        if bad:
            raise ConfigError(f"teacher: {', '.join(bad)} are set by the run")
        raw = {**self.teacher, "name": f"{self.name}_r{r}", "seed": self.seed * 1000 + r,
               "num_players": self.num_players, "variant": self.variant, "path": path, "games": self.games}
        if self.search_by_round:
            over = self.search_by_round[min(r, len(self.search_by_round)) - 1]
            raw["search"] = {**raw.get("search", selfplay.SelfPlayConfig().search), **over}
        try:
            return selfplay.load_config(raw=raw)
        except ConfigError as e:
            raise ConfigError(f"teacher (round {r}): {e}") from None

    def fit_config(self, r: int, init: str | None, data: list[str]) -> fitmod.FitConfig:
        bad = sorted(set(self.fit) & {"name", "data", "init"})
        if bad:
            raise ConfigError(f"fit: {', '.join(bad)} are set by the run")
        try:
            return fitmod.load_config(raw={**self.fit, "name": f"{self.name}_r{r}", "seed": self.seed * 1000 + r,
                                           "data": data, "init": init})
        except (ConfigError, ValueError) as e:
            raise ConfigError(f"fit (round {r}): {e}") from None


def load_config(path: str | Path | None = None, raw: dict | None = None, **overrides) -> RoundsConfig:
    """A rounds config from the YAML file `path` (or the mapping `raw`), the overrides that are not None
    laid over it; the teacher's and the fit's options and the evaluation's whole deals are checked
    before anything runs (ConfigError names the field)."""
    cfg = read_model(RoundsConfig, path, raw, overrides)
    for k in ("games", "previous_games"):
        n = getattr(cfg.evaluation, k)
        if n % cfg.num_players:
            raise ConfigError(f"evaluation.{k}: a multiple of the player count {cfg.num_players} (whole deals), "
                              f"got {n}")
    cfg.teacher_config(1, cfg.init)           # the nested options are checked before anything runs
    cfg.fit_config(1, cfg.init, [])
    return cfg


def _net(cfg: RoundsConfig, out: Path, r: int) -> str | None:
    """The network after round r (round 0: the config's init, None for the shipped weights)."""
    return cfg.init if r == 0 else str(out / f"round_{r}" / "fit" / "checkpoints" / "net.zip")


def _spec(path: str | None) -> str:
    return "learned" if path is None else f"learned:path={path}"


def _write_json(p: Path, obj) -> None:
    shards.write_atomic(p, json.dumps(obj, indent=2))


def _evaluate(cfg: RoundsConfig, out: Path, r: int, workers: int) -> dict:
    ev = cfg.evaluation
    res = {}
    if ev.games:
        res["rulebot"] = head_to_head.measure(_spec(_net(cfg, out, r)), "rulebot", ev.games, cfg.num_players,
                                              ev.seed, progress=True, workers=workers)
    if r and ev.previous_games:
        res["previous"] = head_to_head.measure(_spec(_net(cfg, out, r)), _spec(_net(cfg, out, r - 1)),
                                               ev.previous_games, cfg.num_players, ev.seed, progress=True,
                                               workers=workers)
    return res


def run(cfg: RoundsConfig, out: str | Path, workers: int | None = None, ray_address: str | None = None) -> list[dict]:
    """Play every missing step of every round; returns the curve (a row per round, round 0 first)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    workers = workers or os.cpu_count() or 1
    cj = out / "config.json"
    if cj.is_file():            # a run resumes (or gains rounds) under its own config only
        old = {k: v for k, v in json.loads(cj.read_text()).items() if k != "rounds"}
        new = {k: v for k, v in json.loads(json.dumps(cfg.model_dump())).items() if k != "rounds"}
        if old != new:
            diff = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
            raise ConfigError(f"{out} holds a run of another config ({', '.join(diff)} differ); give another --out")
    _write_json(cj, cfg.model_dump())
    e0 = out / "round_0" / "eval.json"
    if not e0.is_file():
        e0.parent.mkdir(exist_ok=True)
        _write_json(e0, _evaluate(cfg, out, 0, workers))
    for r in range(1, cfg.rounds + 1):
        rd = out / f"round_{r}"
        rd.mkdir(exist_ok=True)
        sp = rd / "selfplay.json"
        if not sp.is_file():
            t = cfg.teacher_config(r, _net(cfg, out, r - 1))
            logger.info(f"round {r}: {cfg.games} teacher games, search {t.search}")
            figs = selfplay.generate(t, rd / "selfplay", workers, ray_address)
            if figs["stopped_by_time"]:
                raise RuntimeError("teacher games stopped before the end")
            _write_json(sp, {**buffer_figures(rd / "selfplay"), "search": t.search})
        fj = rd / "fit" / "fit.json"
        if not fj.is_file():
            data = [str(out / f"round_{k}" / "selfplay") for k in range(max(1, r - cfg.window + 1), r + 1)]
            fcfg = cfg.fit_config(r, _net(cfg, out, r - 1), data)
            c0 = time.process_time()
            res = fitmod.fit(fcfg, rd / "fit")
            res["cpu_seconds"] = time.process_time() - c0
            _write_json(fj, res)
        ej = rd / "eval.json"
        if not ej.is_file():
            _write_json(ej, _evaluate(cfg, out, r, workers))
    return curve(out)


def buffer_figures(root: str | Path) -> dict:
    """Games, searched decisions and CPU seconds of a teacher buffer, summed over its shards (a run
    resumed after a stop counts the shards of every part)."""
    import numpy as np

    figs = {"games": 0, "searched": 0, "cpu_seconds": 0.0}
    for i in shards.shard_indices(root):
        with np.load(shards.shard_path(root, i)) as z:
            figs["games"] += len(z["game_ids"])
            figs["searched"] += len(z["action"])
            figs["cpu_seconds"] += float(z["cpu_seconds"]) if "cpu_seconds" in z.files else float("nan")
    return figs


def curve(out: str | Path) -> list[dict]:
    """The rows of a run directory's finished rounds (and write them to curve.jsonl)."""
    out = Path(out)
    rows, games, cpu = [], 0, 0.0
    r = 0
    while (out / f"round_{r}" / "eval.json").is_file():
        ev = json.loads((out / f"round_{r}" / "eval.json").read_text())
        if r:
            sp = json.loads((out / f"round_{r}" / "selfplay.json").read_text())
            ft = json.loads((out / f"round_{r}" / "fit" / "fit.json").read_text())
            games += sp["games"]
            cpu += sp["cpu_seconds"] + ft["cpu_seconds"]
        row = {"round": r, "teacher_games": games, "cpu_hours": cpu / 3600}
        for k, e in ev.items():
            row[k] = {"win_rate": e["win_rate"], "ci95": e["ci95"], "games": e["games"]}
        if r:
            row["fit"] = {k: ft[k] for k in ("before", "after", "records")}
            row["brier"] = ft["win_prediction"]["brier"]
            row["brier_nations"] = ft["win_prediction"]["brier_nation_baseline"]
        rows.append(row)
        r += 1
    if rows:
        (out / "curve.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows))
    return rows


def plot(runs: list[str | Path], png: str | Path) -> Path:
    """Win share against the rule bots by round, by teacher games and by CPU hours (a line per run), and
    against the previous round's network by round; 95% intervals shaded."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from .plots import save_figure

    fig, grid = plt.subplots(2, 2, figsize=(11, 8), dpi=100)
    axes = grid.ravel()
    fair = None
    for run_dir in runs:
        rows = curve(run_dir)
        if not rows:
            raise ValueError(f"{run_dir}: no finished round")
        n = json.loads((Path(run_dir) / "config.json").read_text())["num_players"]
        fair = 1.0 / n
        label = Path(run_dir).name
        for ax, key in zip(axes[:3], ("round", "teacher_games", "cpu_hours")):
            rs = [x for x in rows if "rulebot" in x]
            xs = [x[key] for x in rs]
            ax.plot(xs, [x["rulebot"]["win_rate"] for x in rs], marker="o", label=label)
            ax.fill_between(xs, [x["rulebot"]["ci95"][0] for x in rs], [x["rulebot"]["ci95"][1] for x in rs],
                            alpha=0.15)
        rs = [x for x in rows if "previous" in x]
        axes[3].errorbar([x["round"] for x in rs], [x["previous"]["win_rate"] for x in rs],
                         yerr=[[x["previous"]["win_rate"] - x["previous"]["ci95"][0] for x in rs],
                               [x["previous"]["ci95"][1] - x["previous"]["win_rate"] for x in rs]],
                         marker="o", capsize=3, label=label)
    titles = ("by round", "by teacher games", "by CPU hours (teacher games and fits)")
    for ax in (axes[0], axes[3]):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    xlabels = ("round", "teacher games", "CPU hours")
    for ax, t, xl in zip(axes[:3], titles, xlabels):
        ax.set_title(f"the network alone vs rule bots, {t}", fontsize=9)
        ax.set_xlabel(xl)
        ax.set_ylabel("win share (95% interval)")
    axes[3].set_title("the network alone vs the previous round's network", fontsize=9)
    axes[3].set_ylabel("win share (95% interval)")
    axes[3].set_xlabel("round")
    for ax in axes:
        ax.axhline(fair, color="grey", linestyle="--", linewidth=1, label="fair share")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    return save_figure(fig, png)


def main(argv=None) -> int:
    from agents.arena.tournament.ray_pool import address_arg

    ap = argparse.ArgumentParser(prog="python -m training.exit_rounds", description=__doc__.split("\n\n")[0])
    ap.add_argument("config", nargs="?", help="a rounds config (YAML)")
    ap.add_argument("--out", default=None, help="run directory (default $V1919_RUNS/exit_rounds/<name>, training.runs); resumes there")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: every core)")
    ap.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS", type=address_arg,
                    help="play the teacher games on Ray: local (default), auto or HOST:PORT")
    ap.add_argument("--plot", nargs="+", default=None, metavar=("PNG", "RUN_DIR"),
                    help="draw the curves of these run directories into PNG instead of running")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        if args.plot:
            if len(args.plot) < 2:
                raise ConfigError("--plot: a PNG path and at least one run directory")
            print(plot(args.plot[1:], args.plot[0]))
            return 0
        if not args.config:
            raise ConfigError("config: a rounds config file (or --plot)")
        if args.workers is not None and args.workers < 1:
            raise ConfigError(f"--workers: at least 1, got {args.workers}")
        cfg = load_config(args.config)
        rows = run(cfg, out_dir(args.out, "exit_rounds", cfg.name), args.workers, args.ray)
    except (ConfigError, ValueError, OSError) as e:
        raise SystemExit(f"error: {e}")
    for row in rows:
        print(json.dumps({k: row[k] for k in row if k != "fit"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
