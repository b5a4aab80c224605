"""Checks the agents play as strongly on the seat's information set as on the real game (paired games).

Do the agents play at the same strength on the seat's information set as on the real game?
(issue 33, docs/tournaments.md "Bots see only their information set").

    python tools/hand_off_strength.py [--agents ismcts:iterations=100,greedy] [--deals 6] [--seed 7700000]

Each AGENT plays against three rule bots, whole deals rotated through every seat (deal d, game
d * 4 + seat), twice: handed the arena's copy (`agents.arena.play.hand_off`, Game.information_set) and
handed a clone of the real game (the old hand-off). Paired: the same deals, seeds and agent seeds
in both. Prints, per agent, the win share of each arm with its Wilson 95% interval, how many of
the paired games were identical action for action, and the seconds. One process, one thread.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def measure(spec: str, deals: int, seed: int) -> dict:
    import agents.arena.play as play
    from agents.base import make_agent, parse_agent_spec
    from agents.arena.tournament.stats import wilson_interval

    name, opts = parse_agent_spec(spec)
    real_hand_off = play.hand_off
    arms = {"copy": real_hand_off, "real": lambda game, seat, rng: game.clone()}
    out = {"agent": spec, "games": deals * 4}
    records = {}
    for arm, fn in arms.items():
        play.hand_off = fn
        t0 = time.perf_counter()
        wins, recs = 0.0, []
        try:
            for d in range(deals):
                for seat in range(4):
                    specs = [play.seat_spec("rulebot")] * 4
                    specs[seat] = play.seat_spec(name, opts, label=spec)
                    agents = [make_agent(s["agent"], **s["options"]) for s in specs]
                    rec = play.run_game(agents, specs, num_players=4, seed=seed + d)
                    w = rec["result"]["winners"]
                    wins += (seat in w) / len(w)
                    recs.append(rec)
        finally:
            play.hand_off = real_hand_off
        lo, hi = wilson_interval(wins, deals * 4)
        out[arm] = {"win_share": round(wins / (deals * 4), 4), "wilson95": [round(lo, 4), round(hi, 4)],
                    "seconds": round(time.perf_counter() - t0, 1)}
        records[arm] = recs
    out["identical_games"] = sum(a["actions"] == b["actions"] for a, b in zip(records["copy"], records["real"]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", default="ismcts:iterations=100,greedy")
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--seed", type=int, default=7_700_000)
    a = ap.parse_args(argv)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    specs = [x for x in a.agents.split(";")] if ";" in a.agents else a.agents.split(",")
    for spec in specs:
        print(json.dumps(measure(spec, a.deals, a.seed)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
