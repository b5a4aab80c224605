"""`v1919 nation-balance`: how often each nation wins when every seat plays the same agent.

    v1919 nation-balance [--games 4000] [--players 3 4] [--agents rulebot random]
    v1919 nation-balance --records runs/tournaments/NAME        # a tournament's games.jsonl

Identical agents in every seat, so any difference between nations comes from the game (and the card
data), not from skill. A game's winners (ties included) each count as a win; win rates carry Wilson
95% intervals; a fair nation would win 1/n of the games. Compiled agents play in the compiled loop
(`v1919_env.core.bots.play_games`), each game from its own seed, in the standard deck variant. Other
agents (a search, a network) are measured from the game records of a tournament whose seats all play
that agent (`--records`; e.g. configs/experiments/nation_balance_guided_4p.yaml).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from agents.arena.tournament.stats import wilson_interval
from v1919_env.core.bots import POLICY_NAMES, play_games
from v1919_env.core.vocab import PLAYER_NATIONS
from v1919_env.game import card_tables
from v1919_env.records import read_games


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


def nation_balance_of_records(path: str | Path) -> dict:
    """nation_balance's result from a tournament's game records (games.jsonl): every game must have
    the same player count and one agent spec in every seat (labels aside); forfeited games are left
    out, ties count for every winner. A file that is not game records raises RecordError naming the
    line and field (v1919_env.records.read_games), one that mixes agents ValueError."""
    games = [g for g in read_games(path) if not g["result"]["forfeit"]]
    if not games:
        raise ValueError(f"{path}: no finished game records")
    specs = {json.dumps([s.get("agent"), s.get("options", {})], sort_keys=True) for g in games for s in g["seats"]}
    counts = {g["num_players"] for g in games}
    if len(specs) != 1 or len(counts) != 1:
        raise ValueError(f"{path}: the seats must all play one agent in one player count "
                         f"(found agents {sorted(specs)}, player counts {sorted(counts)})")
    n = counts.pop()
    agent, options = json.loads(specs.pop())
    rows = []
    for p, nation in enumerate(PLAYER_NATIONS[n]):
        wins = sum(p in g["result"]["winners"] for g in games)
        lo, hi = wilson_interval(wins, len(games))
        rows.append({"nation": nation, "wins": wins, "win_rate": wins / len(games), "win_low": lo, "win_high": hi,
                     "mean_score": float(np.mean([g["result"]["scores"][p]["total"] for g in games]))})
    label = agent + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")
    return {"num_players": n, "agent": label, "games": len(games), "rows": rows,
            "ties": sum(len(g["result"]["winners"]) > 1 for g in games),
            "decisions_per_game": float(np.mean([g["result"]["decisions"] for g in games])),
            "seconds": float(sum(sum((g.get("timing") or {}).get("cpu_seconds", [])) for g in games))}


def format_table(r: dict) -> str:
    """A Markdown table of one nation_balance result."""
    lines = [f"{r['num_players']} players, {r['agent']} in every seat, {r['games']:,} games ({r['ties']} with tied "
             f"winners; fair share {100 / r['num_players']:.1f}%):", "",
             "| nation | wins | win rate | 95% interval | mean score |", "|---|---|---|---|---|"]
    for x in r["rows"]:
        lines.append(f"| {x['nation']} | {x['wins']:,} | {100 * x['win_rate']:.1f}% | "
                     f"[{100 * x['win_low']:.1f}, {100 * x['win_high']:.1f}] | {x['mean_score']:.1f} |")
    return "\n".join(lines)


def run(args) -> int:
    """Print the tables; exit 0, or 2 with one line for records that cannot be read."""
    if args.games < 1:
        print(f"error: --games must be 1 or more, got {args.games}", file=sys.stderr)
        return 2
    if args.seed + args.games - 1 > 2 ** 63 - 1:
        print(f"error: --seed: the games' seeds {args.seed}..{args.seed + args.games - 1} pass 2**63-1; a smaller "
              f"--seed or fewer --games", file=sys.stderr)
        return 2
    bad = [a for a in args.agents if a not in POLICY_NAMES]
    if bad:
        print(f"error: --agents: compiled agents among {', '.join(POLICY_NAMES)}, got {', '.join(bad)} (another "
              f"agent: a tournament with it in every seat, then --records)", file=sys.stderr)
        return 2
    if args.records:
        path = Path(args.records)
        try:
            r = nation_balance_of_records(path / "games.jsonl" if path.is_dir() else path)
        except (ValueError, OSError) as e:      # a RecordError names the line and field at fault
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(format_table(r))
        print(f"({r['decisions_per_game']:.0f} decisions per game, {r['seconds']:.1f} CPU s in the agents)\n")
        return 0
    for n in args.players:
        for agent in args.agents:
            r = nation_balance(n, agent, args.games, args.seed)
            print(format_table(r))
            print(f"({r['decisions_per_game']:.0f} decisions per game, {r['seconds']:.1f} s)\n")
    return 0
