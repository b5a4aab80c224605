"""Checks the arena is fair: do four identical copies of one agent win equally in a seat-rotated tournament?

Do four identical copies of one agent win equally in a seat-rotated tournament? (issue 33,
docs/strength.md "Equal agents, equal results: the arena is fair").

    python tools/equal_agents.py --agent rulebot --games 4800 --workers 2 [--seed 33] [--duplicate]
    python tools/equal_agents.py --null 240 --shares 23.3,19.0,33.3,24.4 --nations 34.2,20.0,12.9,33.3

With --agent: plays the tournament (4 copies labelled c0..c3, the arena as `v1919 tournament` runs it:
the schedule, the seeds, `workers` worker processes each keeping its copies between games) into a
temporary directory and prints each copy's win share, Pearson's chi-square of equal shares and its
p-value (agents/arena/tournament/stats.py: equal_shares_test).

With --null N: the distribution of that chi-square when the arena is fair: N games under the
tournament schedule (each copy at each nation N/4 times), each won by the nation drawn with the
win rates --nations (UK, France, USA, Italy, in %); prints the chi-square of --shares (each copy's
win share, in %) computed as Pearson's (expected counts) and as the sum of squared binomial
z-scores (variance n p (1-p)), and the share of 200,000 fair tournaments at or above each.
One process (the tournament's workers aside).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tournament(agent: str, games: int, workers: int, seed: int, duplicate: bool) -> dict:
    from agents.base import parse_agent_spec
    from agents.arena.tournament import config_from_dict, finished_games, play_games
    from agents.arena.tournament.stats import equal_shares_test

    name, opts = parse_agent_spec(agent)
    labels = [f"c{k}" for k in range(4)]
    cfg = config_from_dict({"name": "equal", "num_players": 4, "games": games, "seed": seed, "workers": workers,
                            "duplicate": duplicate,
                            "agents": [{"name": name, "label": lab, "options": opts} for lab in labels]})
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        play_games(cfg, d, progress=False)
        recs = finished_games(cfg, d)
    t = equal_shares_test(recs, labels)
    return {"agent": agent, "games": games, "workers": workers, "duplicate": duplicate, "seed": seed,
            "shares": {k: round(100 * v, 2) for k, v in t["shares"].items()}, "chi2": round(t["chi2"], 2),
            "p": round(t["p"], 4), "seconds": round(time.perf_counter() - t0, 1)}


def null(games: int, shares: list[float], nations: list[float], sims: int = 200_000, seed: int = 0) -> dict:
    import numpy as np

    from agents.arena.tournament.schedule import seating
    from agents.arena.tournament.stats import chi2_sf_3

    rng = np.random.default_rng(seed)
    p = np.asarray(nations, float) / sum(nations)
    seat_of = np.array([[seating(k, 4, 4).index(c) for c in range(4)] for k in range(games)])   # [game, copy]
    winner_seat = rng.choice(4, size=(sims, games), p=p)                                    # nation that won
    wins = (seat_of[None, :, :] == winner_seat[:, :, None]).sum(axis=1)                     # [sim, copy]
    e = games / 4
    pearson = ((wins - e) ** 2).sum(axis=1) / e
    zsq = ((wins - e) ** 2).sum(axis=1) / (e * 0.75)
    w = np.asarray(shares, float) / 100 * games
    x_p = float(((w - e) ** 2).sum() / e)
    x_z = float(((w - e) ** 2).sum() / (e * 0.75))
    return {"games": games, "shares": shares, "nations": nations,
            "pearson_chi2": round(x_p, 2), "pearson_p_chi2_3df": round(chi2_sf_3(x_p), 4),
            "pearson_p_fair_arena": round(float((pearson >= x_p - 1e-9).mean()), 4),
            "binomial_z_chi2": round(x_z, 2), "binomial_z_p_chi2_3df": round(chi2_sf_3(x_z), 4),
            "binomial_z_p_fair_arena": round(float((zsq >= x_z - 1e-9).mean()), 4), "simulations": sims}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent")
    ap.add_argument("--games", type=int, default=960)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--duplicate", action="store_true")
    ap.add_argument("--null", type=int)
    ap.add_argument("--shares", default="23.3,19.0,33.3,24.4")
    ap.add_argument("--nations", default="34.2,20.0,12.9,33.3")
    a = ap.parse_args(argv)
    if a.null:
        print(json.dumps(null(a.null, [float(x) for x in a.shares.split(",")],
                              [float(x) for x in a.nations.split(",")])))
    if a.agent:
        print(json.dumps(tournament(a.agent, a.games, a.workers, a.seed, a.duplicate)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
