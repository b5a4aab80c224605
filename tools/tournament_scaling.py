"""Games/s of tournaments on local worker processes against Ray (the figures in docs/benchmarks.md).

Games/s of tournaments, local worker processes against Ray (docs/benchmarks.md, "Distributed runs"):

    .venv/bin/python tools/tournament_scaling.py [--games rulebot=400 greedy=200 ismcts=24]
                                                 [--only rulebot greedy ismcts] [--cluster HOST:PORT] [--json]

Three tournaments: four rule bots (a game takes 4 to 7 ms of one core: the overheads show), two
greedy agents with a rule bot and a random agent (about 20 ms a game), and two ISMCTS agents of 50
iterations a decision with a greedy agent and a rule bot (about 1.5 s a game: the compute shows).
Each is played, through runner.play_games as `v1919 tournament` plays it, by the local pool of 1 and 2
worker processes, by a local Ray instance of 1 and 2 CPUs (`--ray --workers N`) and, with
--cluster, by the cluster at that address (`--ray HOST:PORT`; run with RAY_AUTH_MODE=token when
the cluster was started by `ray start`). Each run writes a fresh directory; a thread watches its
games.jsonl: "start-up" is the time to the first record (processes started, Ray started or
joined, kernels loaded), "games/s" the rate after it ((N - 1) games from the first record to the
last), "overall" the games over the whole run. The machine's load average is printed beside each
row, since other processes share the cores.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LINEUPS = {"rulebot": ["rulebot", "rulebot:seed=1", "rulebot:seed=2", "rulebot:seed=3"],
           "greedy": ["greedy", "greedy:seed=1", "rulebot", "random"],
           "ismcts": ["ismcts:iterations=50", "ismcts:iterations=50,seed=1", "greedy", "rulebot"]}
GAMES = {"rulebot": 400, "greedy": 200, "ismcts": 24}


class _Watch(threading.Thread):
    """The times games.jsonl first grew and last grew."""

    def __init__(self, path: Path):
        super().__init__(daemon=True)
        self.path, self.first, self.last, self.stop = path, None, None, threading.Event()

    def run(self):
        size = 0
        while not self.stop.is_set():
            try:
                now = self.path.stat().st_size
            except OSError:
                now = 0
            if now != size:
                size, t = now, time.perf_counter()
                self.first = self.first or t
                self.last = t
            time.sleep(0.002)


def measure(agents: list[str], games: int, workers: int, ray: str | None) -> dict:
    from agents.arena.tournament import config_from_dict, play_games

    cfg = config_from_dict({"name": "scaling", "num_players": 4, "games": games, "seed": 0, "workers": workers,
                            "agents": agents})
    with tempfile.TemporaryDirectory(prefix="v1919-scaling-") as d:
        watch = _Watch(Path(d) / "games.jsonl")
        watch.start()
        t0 = time.perf_counter()
        run = play_games(cfg, d, workers=workers, progress=False, ray=ray)
        total = time.perf_counter() - t0
        time.sleep(0.05)
        watch.stop.set()
    assert run["played"] == games and not run["failed"], run
    rate = (games - 1) / (watch.last - watch.first) if watch.last > watch.first else float("nan")
    return {"setting": run["executor"], "workers": workers, "nodes": len(run.get("nodes") or {}) or 1,
            "games": games, "seconds": round(total, 2), "startup_s": round(watch.first - t0, 2),
            "games_per_s": round(rate, 2), "overall_games_per_s": round(games / total, 2),
            "load": round(os.getloadavg()[0], 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=[], metavar="LINEUP=N", help="games per lineup")
    ap.add_argument("--only", nargs="+", choices=list(LINEUPS), default=list(LINEUPS))
    ap.add_argument("--cluster", default=None, metavar="HOST:PORT", help="also a Ray cluster joined by address")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from agents.arena.precompile import precompile
    from agents.arena.tournament import config_from_dict

    settings = [(1, None), (2, None), (1, "local"), (2, "local")] + ([(0, args.cluster)] if args.cluster else [])
    rows = []
    games_of = dict(GAMES, **{k: int(v) for k, v in (x.split("=") for x in args.games)})
    for name in args.only:
        agents, games = LINEUPS[name], games_of[name]
        cfg = config_from_dict({"name": "scaling", "num_players": 4, "games": 4, "agents": agents})
        precompile(cfg.agents, 4)              # the kernels in the disk cache before any run is timed
        for workers, ray in settings:
            row = {"agents": name, **measure(agents, games, workers, ray)}
            rows.append(row)
            if not args.json:
                print(row, flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print("\n| games of | where | workers | nodes | games | start-up s | games/s after | overall games/s | load |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['agents']} | {r['setting']} | {r['workers'] or 'all CPUs'} | {r['nodes']} | {r['games']} | "
                  f"{r['startup_s']} | {r['games_per_s']} | {r['overall_games_per_s']} | {r['load']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
