"""Solitaire score of the agents: mean VP and win rate (VP >= the level) of each agent over seeded
solitaire games, with the seconds per game.

    python tools/solitaire_agents.py --agents random,rulebot,greedy --games 50 [--target-vp 20] [--faction uk]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from tqdm import tqdm

from agents.play import build_agents, parse_agents_arg, run_game


def measure(spec: dict, games: int, seed0: int, solitaire: dict) -> dict:
    """Play `games` solitaire games (seeds seed0..) with one agent; its VP, wins and seconds."""
    vps, wins, t0 = [], 0, time.perf_counter()
    for k in tqdm(range(games), desc=spec["label"], leave=False):
        agent = build_agents([spec])[0]
        rec = run_game([agent], [spec], num_players=1, seed=seed0 + k, solitaire=solitaire)
        agent.close()
        s = rec["result"]["scores"][0]
        if rec["result"]["forfeit"] is not None:
            raise SystemExit(f"{spec['label']} forfeited game {seed0 + k}: {rec['result']['forfeit']}")
        vps.append(s["total"])
        wins += s["total"] >= s["target_vp"]
    v = np.asarray(vps, float)
    return {"agent": spec["label"], "games": games, "mean_vp": v.mean(), "se": v.std(ddof=1) / np.sqrt(len(v)),
            "max_vp": int(v.max()), "win_rate": wins / games, "s_per_game": (time.perf_counter() - t0) / games}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", default="random,rulebot,greedy", help="agents (comma-separated, as for v1919 play)")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0, help="first game seed")
    ap.add_argument("--target-vp", type=int, default=20)
    ap.add_argument("--faction", default=None)
    a = ap.parse_args()
    solitaire = {"faction": a.faction, "target_vp": a.target_vp}
    print(f"{'agent':<24} {'games':>5} {'mean VP':>8} {'(se)':>6} {'max':>4} {'win rate':>8} {'s/game':>7}")
    for spec in parse_agents_arg(a.agents):
        r = measure(spec, a.games, a.seed, solitaire)
        print(f"{r['agent']:<24} {r['games']:>5} {r['mean_vp']:>8.2f} {r['se']:>6.2f} {r['max_vp']:>4} "
              f"{r['win_rate']:>8.0%} {r['s_per_game']:>7.2f}", flush=True)


if __name__ == "__main__":
    main()
