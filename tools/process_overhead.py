"""What a bot run as a process costs per decision, against the same agent in process.

What a bot process costs per decision, against the same agent in process (issue 33, docs/tournaments.md
"Bots as processes: the overhead").

    python tools/process_overhead.py [--agents random,rulebot,greedy] [--games 4] [--c-bot PATH] [--sandbox MODE]

For each AGENT, seat 0 plays `games` 4-player games against three rule bots, once in process and once
as `python -m agents.arena.process.client AGENT` (the same seeds, so the same games move for move); per
decision of seat 0: the wall-clock milliseconds in act() (for the process: sending the decide
message, the client's work, reading the action) and the difference; per game: the start of the
process (reset: spawn and hellos, plus new_game). With --c-bot, the compiled example bot
(agents/arena/process/example_bot.c) against `random` in process, which plays the same kind of move.
--sandbox: how the bot process runs (auto: in the sandbox, agents/arena/process/sandbox.py; none: bare).
One process here and the bot's; prints one JSON line per agent.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Timed:
    """Wraps an agent: the seconds of its reset (+ new_game) per game."""

    def __init__(self, agent):
        self.agent, self.needs_game, self.start_s = agent, agent.needs_game, []

    def reset(self, seed=None):
        t0 = time.perf_counter()
        self.agent.reset(seed)
        self.start_s.append(time.perf_counter() - t0)

    def new_game(self, info):
        if hasattr(self.agent, "new_game"):
            t0 = time.perf_counter()
            self.agent.new_game(info)
            self.start_s[-1] += time.perf_counter() - t0

    def act(self, *a):
        return self.agent.act(*a)

    def game_over(self, rec):
        if hasattr(self.agent, "game_over"):
            self.agent.game_over(rec)


def run(agent, games: int, seed: int) -> dict:
    from agents.base import make_agent
    from agents.arena.play import run_game, seat_spec

    t = Timed(agent)
    secs = decisions = 0
    actions = []
    for k in range(games):
        rec = run_game([t] + [make_agent("rulebot") for _ in range(3)],
                       [seat_spec("x")] + [seat_spec("rulebot")] * 3, num_players=4, seed=seed + k)
        assert rec["result"]["forfeit"] is None, rec["result"]["forfeit"]
        secs += rec["timing"]["seconds"][0]
        decisions += rec["timing"]["decisions"][0]
        actions.append(rec["actions"])
    return {"ms_per_decision": 1000 * secs / decisions, "decisions": decisions,
            "start_ms_per_game": 1000 * sum(t.start_s) / games, "actions": actions}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", default="random,rulebot,greedy")
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7_800_000)
    ap.add_argument("--c-bot", default=None)
    ap.add_argument("--sandbox", default="auto", choices=("auto", "strict", "none"))
    a = ap.parse_args(argv)
    from agents.base import make_agent

    client = [sys.executable, "-m", "agents.arena.process.client"]
    rows = [(spec, make_agent(spec), make_agent("process", cmd=client + [spec], sandbox=a.sandbox))
            for spec in a.agents.split(",")]
    if a.c_bot:
        rows.append(("c-bot vs random", make_agent("random"), make_agent("process", cmd=a.c_bot, sandbox=a.sandbox)))
    for label, inp, proc in rows:
        run(inp, 1, a.seed - 1)                    # load compiled code first (both sides)
        run(proc, 1, a.seed - 1)
        i, p = run(inp, a.games, a.seed), run(proc, a.games, a.seed)
        print(json.dumps({"agent": label, "sandbox": a.sandbox, "games": a.games, "decisions": p["decisions"],
                          "same_games": i["actions"] == p["actions"],
                          "in_process_ms": round(i["ms_per_decision"], 3),
                          "process_ms": round(p["ms_per_decision"], 3),
                          "overhead_ms": round(p["ms_per_decision"] - i["ms_per_decision"], 3),
                          "process_start_ms_per_game": round(p["start_ms_per_game"], 1)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
