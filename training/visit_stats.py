"""What a teacher's root visits say, from its shards (training.selfplay): how often they leave the
prior's first choice.

    python -m training.visit_stats DIR [DIR ...] [--out FILE.json]

Over the searched decisions recorded: the share where the most visited move is not the prior's top
move (the prior the search used, as recorded), the share where the move played is not, the mean
numbers of legal and of visited root moves, the mean share of the visits on the most visited move,
and the records, games and searched decisions per game; with the run's figures (meta.json) where
the run wrote them.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from . import shards


def visit_stats(root: str | Path) -> dict:
    d = shards.load(root, "all", keys=("mask", "visits", "prior", "action", "game"))
    v = d["visits"].astype(np.float64)
    p = np.where(d["mask"], d["prior"].astype(np.float64), -1.0)
    top = p.argmax(1)
    n = len(v)
    tot = np.maximum(v.sum(1), 1.0)
    return {"dir": str(root), "records": int(n), "games": int(len(np.unique(d["game"]))),
            "shards": len(shards.shard_indices(root)),
            "most_visited_not_prior_top": float(np.mean(v.argmax(1) != top)),
            "played_not_prior_top": float(np.mean(d["action"].astype(np.int64) != top)),
            "mean_legal": float(d["mask"].sum(1).mean()), "mean_visited": float((v > 0).sum(1).mean()),
            "mean_top_visit_share": float(np.mean(v.max(1) / tot))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.visit_stats", description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    try:
        res = [visit_stats(x) for x in args.dirs]
    except ValueError as e:
        raise SystemExit(f"error: {e}")
    text = json.dumps(res if len(res) > 1 else res[0], indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
