"""One agent against copies of another, whole deals rotated through every seat: the evaluation of
expert iteration's networks (docs/expert_iteration.md).

    python -m training.head_to_head AGENT OPPONENT [--games N] [--players 4] [--seed S] [--workers W]
                                    [--out FILE.json]

Game i is deal `seed + i // players` with AGENT in seat `i % players` and OPPONENT in the others
so every deal is played once from every seat; the win
share (a win split among tied winners) with its Wilson 95% interval. `--games` must be a multiple
of the player count (whole deals). `--workers W` plays the deals on W spawned processes (one torch
thread each); the games and so the figures are the same as on one (each game's agents are reset from
its deal seed). When AGENT is a search that reports its root (`guided`), the result also holds
`search`: over its searched decisions, the share where the most visited move, and where the move
played, is not the prior's top move, and the mean numbers of legal and of visited root moves. The
result, with the wall and CPU seconds, is printed as JSON and written to --out.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

EVAL_SEED = 7_310_000            # deals no training or tournament config uses
STAT_KEYS = ("searched", "visited_not_prior_top", "played_not_prior_top", "legal", "visited", "top_visit_share")


def game_share(me, others: list, agent: str, opponent: str, i: int, players: int, seed: int) -> float:
    """Game i of a head-to-head: deal seed + i // players, `me` (spec `agent`) in seat i % players and
    `others` (spec `opponent`) around it; `me`'s share of the win (split among tied winners)."""
    from agents.arena.play import run_game, seat_spec

    seat = i % players
    agents = others[:seat] + [me] + others[seat:]
    specs = [seat_spec(opponent)] * players
    specs = specs[:seat] + [seat_spec(agent)] + specs[seat + 1:]
    win = run_game(agents, specs, num_players=players, seed=seed + i // players, game_index=i)["result"]["winners"]
    return (1.0 / len(win)) if seat in win else 0.0


def play_games(agent: str, opponent: str, lo: int, hi: int, players: int, seed: int) -> dict:
    """Games lo .. hi - 1 of the head-to-head: {"share": win share summed, "games", "cpu_seconds",
    "search": sums of STAT_KEYS over the agent's searched decisions}."""
    import torch

    from agents import make_agent, parse_agent_spec

    torch.set_num_threads(1)
    c0 = time.process_time()
    name, opts = parse_agent_spec(agent)
    me = make_agent(name, **opts)
    oname, oopts = parse_agent_spec(opponent)
    others = [make_agent(oname, **oopts) for _ in range(players - 1)]
    stats = dict.fromkeys(STAT_KEYS, 0.0)
    act = me.act

    def watched(observation, action_mask, game=None):
        a = act(observation, action_mask, game)
        st = getattr(me, "last_stats", None)
        if st is not None and st.get("visits") is not None and len(st["visits"]) > 1:
            v, pr = np.asarray(st["visits"]), np.asarray(st["priors"])
            top = int(np.argmax(pr))
            stats["searched"] += 1
            stats["visited_not_prior_top"] += float(int(np.argmax(v)) != top)
            stats["played_not_prior_top"] += float(int(a) != int(st["actions"][top]))
            stats["legal"] += len(v)
            stats["visited"] += float((v > 0).sum())
            stats["top_visit_share"] += float(v.max() / max(1.0, v.sum()))
            me.last_stats = None
        return a

    me.act = watched
    share = 0.0
    for i in range(lo, hi):
        share += game_share(me, others, agent, opponent, i, players, seed)
    for a in [me] + others:
        a.close()
    return {"share": share, "games": hi - lo, "cpu_seconds": time.process_time() - c0, "search": stats}


def _star(args):
    return play_games(*args)


def measure(agent: str, opponent: str, games: int, players: int = 4, seed: int = EVAL_SEED,
            progress: bool = False, workers: int = 1) -> dict:
    """The head-to-head figures of `agent` against `players - 1` copies of `opponent`."""
    from tqdm import tqdm

    from agents.arena.tournament.stats import wilson_interval

    if games < players or games % players:
        raise ValueError(f"games: a positive multiple of the player count {players} (whole deals), got {games}")
    if workers < 1:
        raise ValueError(f"workers: at least 1, got {workers}")
    t0, c0 = time.perf_counter(), time.process_time()
    deals = games // players
    step = max(1, min(8, -(-deals // workers)))              # deals a task
    tasks = [(agent, opponent, d * players, min(deals, d + step) * players, players, seed)
             for d in range(0, deals, step)]
    parts = []
    bar = tqdm(total=games, desc=f"{agent} vs {opponent}", unit="game", disable=not progress)
    if workers == 1:
        for t in tasks:
            parts.append(play_games(*t))
            bar.update(parts[-1]["games"])
    else:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(min(workers, len(tasks))) as pool:
            for p in pool.imap_unordered(_star, tasks):
                parts.append(p)
                bar.update(p["games"])
    bar.close()
    share = sum(p["share"] for p in parts)
    lo, hi = wilson_interval(share, games)
    res = {"agent": agent, "opponent": opponent, "games": games, "win_rate": share / games, "ci95": [lo, hi],
           "players": players, "seed": seed, "workers": workers, "wall_seconds": round(time.perf_counter() - t0, 1),
           "cpu_seconds": round(time.process_time() - c0 + (sum(p["cpu_seconds"] for p in parts) if workers > 1 else 0),
                                1)}
    tot = {k: sum(p["search"][k] for p in parts) for k in STAT_KEYS}
    if tot["searched"]:
        n = tot["searched"]
        res["search"] = {"decisions": int(n), "most_visited_not_prior_top": tot["visited_not_prior_top"] / n,
                         "played_not_prior_top": tot["played_not_prior_top"] / n, "mean_legal": tot["legal"] / n,
                         "mean_visited": tot["visited"] / n, "mean_top_visit_share": tot["top_visit_share"] / n}
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.head_to_head", description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", help="agent spec, e.g. learned:path=runs/fit/fit_4p_r1/checkpoints/net.zip")
    ap.add_argument("opponent", help="agent spec of the other seats, e.g. rulebot")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    ap.add_argument("--seed", type=int, default=EVAL_SEED)
    ap.add_argument("--workers", type=int, default=1, help="worker processes (default 1: this process)")
    ap.add_argument("--out", default=None, help="also write the JSON here")
    args = ap.parse_args(argv)
    try:
        res = measure(args.agent, args.opponent, args.games, args.players, args.seed, progress=sys.stderr.isatty(),
                      workers=args.workers)
    except ValueError as e:
        raise SystemExit(f"error: {e}")
    text = json.dumps(res, indent=2)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
