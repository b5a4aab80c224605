"""Evaluation of a checkpoint through the tournament code: 4-player (or 3-player) games of the
`learned` agent against copies of one baseline agent, the seats rotated, the win rate with Wilson's
95% interval computed from the games' records (agents/arena/tournament/stats.py)."""
from __future__ import annotations

import csv
import sys
from contextlib import nullcontext
from pathlib import Path

from agents.base import parse_agent_spec
from agents.arena.tournament import config_from_dict, play_games
from agents.arena.tournament.ray_pool import address_arg, ray_session
from agents.arena.tournament.runner import TournamentError, finished_games
from agents.arena.tournament.stats import agent_rows

LEARNED = "learned"
EVAL_SEED_OFFSET = 7919       # evaluations play the same game seeds at every step (less noise in the curve)
CSV_COLUMNS = ("step", "minutes", "opponent", "games", "wins", "win_rate", "win_low", "win_high", "mean_total",
               "mean_rank")


def tournament_config(checkpoint, opponent: str, games: int, cfg: dict, seed: int, deterministic: bool = True):
    """The tournament of `checkpoint` (seat label 'learned') against num_players - 1 copies of
    `opponent` (an agent spec: 'greedy', 'ismcts:iterations=100')."""
    n = cfg["num_players"]
    name, opts = parse_agent_spec(opponent)
    agents = [{"name": LEARNED, "label": LEARNED, "options": {"path": str(checkpoint),
                                                              "deterministic": deterministic}}]
    agents += [{"name": name, "label": f"{opponent}#{k + 1}", "options": opts} for k in range(n - 1)]
    return config_from_dict({"name": f"eval-{opponent}", "num_players": n, "variant": cfg["variant"],
                             "games": games, "seed": seed, "workers": cfg["evaluation"]["workers"],
                             "agents": agents})


def evaluate_solitaire(checkpoint, cfg: dict, games: int, seed: int, progress: bool = False) -> list[dict]:
    """The solitaire game (num_players 1): `games` seeded games of the checkpoint as the player; one row,
    opponent "solitaire": the games won at the config's level, with Wilson's interval, and the mean VP."""
    from agents.arena.solitaire_score import measure

    solo = cfg["solitaire"]
    spec = {"label": LEARNED, "agent": LEARNED, "options": {"path": str(checkpoint),
                                                             "deterministic": cfg["evaluation"]["deterministic"]}}
    r = measure(spec, games, seed, {"faction": solo["faction"], "target_vp": solo["target_vp"]},
                levels=(solo["target_vp"],), progress=progress)
    lo, hi = r["win_intervals"][solo["target_vp"]]
    wins = r["wins"][solo["target_vp"]]
    return [{"opponent": "solitaire", "games": games, "wins": wins, "win_rate": wins / games, "win_low": lo,
             "win_high": hi, "mean_total": r["mean_vp"], "mean_rank": float("nan")}]


def evaluate(checkpoint, cfg: dict, out_dir, games: int, seed: int, progress: bool = False) -> list[dict]:
    """Play `games` games against each evaluation opponent (a tournament directory per opponent
    under out_dir, resumable); one row per opponent (CSV_COLUMNS less step and minutes). The solitaire
    game is scored by evaluate_solitaire."""
    if cfg["num_players"] == 1:
        return evaluate_solitaire(checkpoint, cfg, games, seed, progress)
    ray = cfg["evaluation"].get("ray")      # the RLlib configs have no such key (yet): local processes
    rows = []
    # one Ray instance (or connection) for every opponent's tournament; an RLlib run's own connection is kept
    with ray_session(ray, cfg["evaluation"]["workers"] or None) if ray else nullcontext():
        for opp in cfg["evaluation"]["opponents"]:
            tcfg = tournament_config(checkpoint, opp, games, cfg, seed, cfg["evaluation"]["deterministic"])
            d = Path(out_dir) / opp.replace(":", "_").replace(",", "_").replace("=", "")
            res = play_games(tcfg, d, workers=cfg["evaluation"]["workers"], progress=progress, ray=ray)
            if res["failed"]:
                raise RuntimeError(f"evaluation against {opp}: {len(res['failed'])} game(s) failed: "
                                   f"{next(iter(res['failed'].values()))}")
            records = finished_games(tcfg, d, repair=False)
            row = next(r for r in agent_rows(records, tcfg.labels) if r["agent"] == LEARNED)
            rows.append({"opponent": opp, "games": row["games"], "wins": row["wins"], "win_rate": row["win_rate"],
                         "win_low": row["win_low"], "win_high": row["win_high"], "mean_total": row["mean_total"],
                         "mean_rank": row["mean_rank"]})
    return rows


def append_rows(csv_path, rows: list[dict], step: int, minutes: float) -> None:
    """Append evaluation rows (with the training step and minutes) to the run's CSV."""
    p = Path(csv_path)
    new = not p.exists()
    with open(p, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
        if new:
            w.writeheader()
        for r in rows:
            w.writerow({"step": step, "minutes": round(minutes, 3), **r})


def read_rows(csv_path) -> list[dict]:
    """The CSV's rows, numbers as floats; of several rows for one (step, opponent), the last (a final
    evaluation extends the scheduled one at the same step with more games)."""
    p = Path(csv_path)
    if not p.exists():
        return []
    with open(p, newline="") as fh:
        rows = [{k: (v if k == "opponent" else float(v)) for k, v in r.items()} for r in csv.DictReader(fh)]
    return list({(r["step"], r["opponent"]): r for r in rows}.values())


def main(argv: list[str] | None = None) -> int:
    """`python -m training.evaluate RUN_DIR CHECKPOINT --opponents greedy ismcts:iterations=100 --games 48`:
    evaluate a checkpoint of a run (its config.yaml gives players and variant) against more agents;
    rows are printed as JSON and the tournaments kept under RUN_DIR/eval/extra/."""
    import argparse
    import json

    from .config import load_config

    ap = argparse.ArgumentParser(prog="python -m training.evaluate", description=main.__doc__)
    ap.add_argument("run_dir")
    ap.add_argument("checkpoint")
    ap.add_argument("--opponents", nargs="+", required=True, help="agent specs")
    ap.add_argument("--games", type=int, default=100, help="games per opponent (a multiple of 4)")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: the run's "
                    "evaluation.workers; 0: in this process); with --ray: the local Ray instance's CPUs, or at most "
                    "this many workers on a cluster")
    ap.add_argument("--ray", nargs="?", const="local", default=None, type=address_arg, metavar="ADDRESS",
                    help="play the games on Ray (default: the run's evaluation.ray): --ray alone starts a local Ray "
                         "instance; --ray auto or HOST:PORT joins a cluster (docs/distributed.md)")
    args = ap.parse_args(argv)
    cfg = load_config(Path(args.run_dir) / "config.yaml")
    cfg["evaluation"]["opponents"] = list(args.opponents)
    if args.workers is not None:
        cfg["evaluation"]["workers"] = args.workers
    if args.ray is not None:
        cfg["evaluation"]["ray"] = args.ray
    try:
        rows = evaluate(args.checkpoint, cfg, Path(args.run_dir) / "eval" / "extra", args.games,
                        seed=cfg["seed"] + EVAL_SEED_OFFSET, progress=True)
    except TournamentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
