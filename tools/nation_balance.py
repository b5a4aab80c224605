"""Nation balance: how often each nation wins when every seat plays the same compiled agent.

    PYTHONPATH=. python tools/nation_balance.py [--games 4000] [--players 3 4] [--agents rulebot random]

Identical agents in every seat, so any difference between nations comes from the game (and the card
data), not from skill. A game's winners (ties included) each count as a win; win rates carry Wilson
95% intervals; a fair nation would win 1/n of the games. Games are played by the compiled loop
(`v1919_env.core.bots.play_games`), each from its own seed, in the standard deck variant.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from agents.tournament.stats import wilson_interval
from v1919_env.core.bots import POLICY_NAMES, play_games
from v1919_env.core.vocab import PLAYER_NATIONS
from v1919_env.game import card_tables


def nation_balance(num_players: int, agent: str, games: int, seed: int = 0) -> dict:
    """Per nation: wins (ties count for every winner), win rate with its Wilson 95% interval, and
    the mean final score, over `games` games with `agent` in every seat."""
    _, T = card_tables(None)
    pol = np.full(4, POLICY_NAMES.index(agent), np.int64)
    scores, win, dec = np.zeros((games, 4), np.int64), np.zeros(games, np.int64), np.zeros(games, np.int64)
    t0 = time.perf_counter()
    play_games(games, num_players, T, pol, seed, 0, 0, scores, win, dec)
    rows = []
    for p, nation in enumerate(PLAYER_NATIONS[num_players]):
        wins = int(((win >> p) & 1).sum())
        lo, hi = wilson_interval(wins, games)
        rows.append({"nation": nation, "wins": wins, "win_rate": wins / games, "win_low": lo, "win_high": hi,
                     "mean_score": float(scores[:, p].mean())})
    return {"num_players": num_players, "agent": agent, "games": games, "rows": rows,
            "ties": int(sum(bin(int(w)).count("1") > 1 for w in win)), "decisions_per_game": float(dec.mean()),
            "seconds": time.perf_counter() - t0}


def format_table(r: dict) -> str:
    """A Markdown table of one nation_balance result."""
    lines = [f"{r['num_players']} players, {r['agent']} in every seat, {r['games']:,} games ({r['ties']} with tied "
             f"winners; fair share {100 / r['num_players']:.1f}%):", "",
             "| nation | wins | win rate | 95% interval | mean score |", "|---|---|---|---|---|"]
    for x in r["rows"]:
        lines.append(f"| {x['nation']} | {x['wins']:,} | {100 * x['win_rate']:.1f}% | "
                     f"[{100 * x['win_low']:.1f}, {100 * x['win_high']:.1f}] | {x['mean_score']:.1f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--players", type=int, nargs="+", default=[3, 4], choices=(2, 3, 4))
    ap.add_argument("--agents", nargs="+", default=["rulebot", "random"], choices=POLICY_NAMES)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for n in args.players:
        for agent in args.agents:
            r = nation_balance(n, agent, args.games, args.seed)
            print(format_table(r))
            print(f"({r['decisions_per_game']:.0f} decisions per game, {r['seconds']:.1f} s)\n")


if __name__ == "__main__":
    main()
