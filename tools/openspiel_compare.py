"""Our `ismcts` agent against OpenSpiel's ISMCTSBot at the same time per decision.

4-player games: one seat ours, one seat OpenSpiel's (on the `versailles1919` OpenSpiel game of
v1919_env.openspiel_game), the other two `rulebot`. Deals come in pairs with the two search seats
swapped, and the pair of seats cycles through all 12 ordered seat pairs. Both searches use random
rollouts and the same exploration (OpenSpiel's returns span [-1, 1], ours [0, 1], so uct_c = 2 x
explore). OpenSpiel's bot stops starting simulations when its time is up, after at least two (its
first only expands the root); the figures report the time each side really took.

    python tools/openspiel_compare.py --games 200 --ms 100 --out runs/openspiel_compare.jsonl

Games are appended to --out as they finish (a rerun with the same file resumes); the summary
(win rates with Wilson 95% intervals, time per searched decision) is printed at the end, or with
--report alone.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import Agent, make_agent  # noqa: E402
from agents.arena.play import run_game, seat_spec  # noqa: E402
from v1919_env.records import write_record  # noqa: E402
from agents.arena.tournament.stats import wilson_interval  # noqa: E402

LABELS = ("ismcts (ours)", "OpenSpiel ISMCTSBot", "rulebot")


class _OutOfTime(Exception):
    pass


def timed_ismcts_bot(game, seconds: float, seed: int, explore: float, min_simulations: int = 2):
    """OpenSpiel's ISMCTSBot with a wall-clock budget per decision instead of a simulation count."""
    from open_spiel.python.algorithms import ismcts, mcts

    class TimedISMCTSBot(ismcts.ISMCTSBot):
        def run_search(self, state):
            self._deadline = time.perf_counter() + seconds
            self._started = 0
            try:
                return super().run_search(state)
            except _OutOfTime:            # raised before a simulation starts: the tree is whole
                return self.get_final_policy(state, self._root_node)

        def sample_root_state(self, state):
            if self._started >= min_simulations and time.perf_counter() >= self._deadline:
                raise _OutOfTime
            self._started += 1
            return super().sample_root_state(state)

    rs = np.random.RandomState(seed % 2 ** 32)
    return TimedISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), uct_c=2 * explore,
                          max_simulations=2 ** 62, random_state=rs)


class OpenSpielISMCTSAgent(Agent):
    """An agent playing OpenSpiel's ISMCTSBot on the OpenSpiel state of the game it is given."""

    needs_game = True

    def __init__(self, ms: float, explore: float, variant: str):
        import pyspiel

        import v1919_env.openspiel_game  # noqa: F401  (registers the game)
        self.ms, self.explore = ms, explore
        self.spiel_game = pyspiel.load_game("versailles1919", {"players": 4, "variant": variant})
        self.reset(0)

    def reset(self, seed=None):
        self.bot = timed_ismcts_bot(self.spiel_game, self.ms / 1000.0, int(seed or 0), self.explore)

    def act(self, observation, action_mask, game=None):
        return int(self.bot.step(self.spiel_game.state_from_game(game)))


class SearchTimer(Agent):
    """Delegates to `agent` and records the wall time of each decision with two or more legal actions."""

    needs_game = True

    def __init__(self, agent: Agent):
        self.agent, self.times = agent, []

    def reset(self, seed=None):
        self.agent.reset(seed)

    def act(self, observation, action_mask, game=None):
        t0 = time.perf_counter()
        a = self.agent.act(observation, action_mask, game)
        if int(np.count_nonzero(action_mask)) > 1:
            self.times.append(time.perf_counter() - t0)
        return a


def seating(game_index: int) -> tuple[int, int]:
    """(our seat, OpenSpiel's seat): pairs of games swap them; pairs cycle through the 12 ordered pairs."""
    pair = game_index // 2
    a = pair % 4
    b = (a + 1 + (pair // 4) % 3) % 4
    return (a, b) if game_index % 2 == 0 else (b, a)


def play(args) -> None:
    from tqdm import tqdm

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {r["game"] for r in _read(out)}
    ours = SearchTimer(make_agent("ismcts", time_ms=args.ms, rollout="random", explore=args.explore))
    theirs = SearchTimer(OpenSpielISMCTSAgent(args.ms, args.explore, args.variant))
    rulebots = [make_agent("rulebot"), make_agent("rulebot")]
    with out.open("a") as fh:
        for i in tqdm(range(args.games), desc=f"ismcts vs OpenSpiel ISMCTSBot, {args.ms:g} ms", unit="game"):
            if i in done:
                continue
            a, b = seating(i)
            agents, specs, bots = [None] * 4, [None] * 4, iter(rulebots)
            for seat in range(4):
                if seat == a:
                    agents[seat], specs[seat] = ours, seat_spec("ismcts", {"time_ms": args.ms}, LABELS[0])
                elif seat == b:
                    agents[seat], specs[seat] = theirs, seat_spec("openspiel_ismcts", {"ms": args.ms}, LABELS[1])
                else:
                    agents[seat], specs[seat] = next(bots), seat_spec("rulebot", {}, LABELS[2])
            ours.times, theirs.times = [], []
            rec = run_game(agents, specs, num_players=4, seed=args.seed + i // 2, variant=args.variant,
                           game_index=i)
            rec["search_seconds"] = {LABELS[0]: ours.times, LABELS[1]: theirs.times}
            write_record(fh, rec)


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def summary(records: list[dict]) -> dict:
    """Win share (a shared victory is split) per label with Wilson 95% intervals, and search times."""
    res = {"games": len(records), "forfeits": sum(1 for r in records if r["result"]["forfeit"]), "agents": {}}
    for label in LABELS:
        share, seats, times = 0.0, 0, []
        for r in records:
            win = r["result"]["winners"]
            for p, s in enumerate(r["seats"]):
                if s["label"] == label:
                    seats += 1
                    share += (1.0 / len(win)) if p in win else 0.0
            times += r.get("search_seconds", {}).get(label, [])
        lo, hi = wilson_interval(share, seats)
        res["agents"][label] = {"seats": seats, "win_rate": share / seats if seats else None, "ci95": [lo, hi],
                                "searched_decisions": len(times),
                                "mean_ms_per_searched_decision": 1000 * float(np.mean(times)) if times else None}
    return res


def format_summary(s: dict, ms: float | None = None) -> str:
    head = f"{s['games']} four-player games" + (f", {ms:g} ms per decision" if ms else "")
    lines = [head + f" ({s['forfeits']} forfeits)",
             f"  {'agent':<22}{'seats':>6}{'win rate':>10}{'95% interval':>18}{'ms/searched decision':>22}"]
    for label, a in s["agents"].items():
        t = a["mean_ms_per_searched_decision"]
        rate = "-" if a["win_rate"] is None else f"{a['win_rate']:.3f}"
        ci = "[{:.3f}, {:.3f}]".format(*a["ci95"])
        ms_txt = "-" if t is None else f"{t:.1f}"
        lines.append(f"  {label:<22}{a['seats']:>6}{rate:>10}{ci:>18}{ms_txt:>22}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--ms", type=float, default=100.0, help="milliseconds per decision for both searches")
    ap.add_argument("--explore", type=float, default=0.7, help="our UCT constant (OpenSpiel's uct_c is twice it)")
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--seed", type=int, default=0, help="deal of the first pair of games")
    ap.add_argument("--out", default="runs/openspiel_compare.jsonl", help="game records, appended (resumes)")
    ap.add_argument("--report", action="store_true", help="only summarize the records in --out")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    if not args.report:
        play(args)
    s = summary(_read(Path(args.out)))
    print(json.dumps(s, indent=2) if args.json else format_summary(s, None if args.report else args.ms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
