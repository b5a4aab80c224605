"""One agent against copies of another, whole deals rotated through every seat: the evaluation of
expert iteration's networks (docs/expert_iteration.md).

    python -m training.head_to_head AGENT OPPONENT [--games N] [--players 4] [--seed S] [--out FILE.json]

Game i is deal `seed + i // players` with AGENT in seat `i % players` and OPPONENT in the others
(training.expert_iteration.head_to_head), so every deal is played once from every seat; the win
share (a win split among tied winners) with its Wilson 95% interval. `--games` must be a multiple
of the player count (whole deals). The result, with the wall and CPU seconds, is printed as JSON and
written to --out.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

EVAL_SEED = 7_310_000            # deals no training or tournament config uses (training.fit.EVAL_SEED)


def measure(agent: str, opponent: str, games: int, players: int = 4, seed: int = EVAL_SEED,
            progress: bool = False) -> dict:
    """The head-to-head figures of `agent` against `players - 1` copies of `opponent`."""
    import torch

    from .expert_iteration import head_to_head

    if games < players or games % players:
        raise ValueError(f"games: a positive multiple of the player count {players} (whole deals), got {games}")
    torch.set_num_threads(1)
    t0, c0 = time.perf_counter(), time.process_time()
    res = head_to_head(agent, opponent, games, players, seed, progress)
    res.update(players=players, seed=seed, wall_seconds=round(time.perf_counter() - t0, 1),
               cpu_seconds=round(time.process_time() - c0, 1))
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.head_to_head", description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", help="agent spec, e.g. learned:path=runs/fit/fit_4p_r1/checkpoints/net.zip")
    ap.add_argument("opponent", help="agent spec of the other seats, e.g. rulebot")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    ap.add_argument("--seed", type=int, default=EVAL_SEED)
    ap.add_argument("--out", default=None, help="also write the JSON here")
    args = ap.parse_args(argv)
    try:
        res = measure(args.agent, args.opponent, args.games, args.players, args.seed, progress=sys.stderr.isatty())
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
