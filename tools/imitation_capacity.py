"""Is the network's body what limits it? Three bodies from scratch imitate the rule bot, held out on other games.

    PYTHONPATH=. python tools/imitation_capacity.py [--decisions 300000] [--epochs 3] [--out runs/capacity.json]

The rule bot plays the same move on a game and on the deciding seat's information set (checked here
on 40 games), so its decisions are a function of what the seat knows: a body that could represent
that function would approach 100% top-1 agreement on games it never saw. Each body (the shipped
trunk, a wider trunk, the residual body of training/nets.py) is fitted from scratch by
training.pretrain (cross-entropy + 0.5 x value MSE, Adam 1e-3 decaying to 0, batch 512) to
`--decisions` rule-bot decisions of 4-player games (seed 101), then measured on 20,000 decisions of
other games (seed 202): top-1 agreement, cross-entropy, value MSE.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

ARCHES = {"shipped body (trunk 256, heads 128)": {"body": "trunk", "trunk": [256], "pi": [128], "vf": [128]},
          "wide (trunk 1024-512, heads 256)": {"body": "trunk", "trunk": [1024, 512], "pi": [256], "vf": [128]},
          "residual (512, 2 blocks)": {"body": "residual", "width": 512, "blocks": 2, "pi": [], "vf": [128]}}
ARCHES_BY_KEY = dict(zip(("shipped", "wide", "residual"), ARCHES))
REWARD = {"win_loss": 1.0, "score_margin": 0.2}      # the shipped networks' training reward


def information_set_check(games: int = 40) -> float:
    """The share of the rule bot's decisions that are the same on the game and on the seat's information set."""
    from agents import make_agent
    from v1919_env.game import Game

    bot = make_agent("rulebot")
    bot.reset(seed=0)
    same = total = 0
    for s in range(games):
        g, n = Game.new(num_players=4, seed=900_000 + s), 0
        while not g.is_over:
            a = bot.act(None, None, game=g)
            if len(g.legal_actions()) > 1:
                same += int(a == bot.act(None, None, game=g.information_set(g.active_player, n)))
                total += 1
                n += 1
            g.step(a)
    return same / total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=300_000)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--bodies", default=",".join(ARCHES_BY_KEY), help="comma-separated: " + ", ".join(ARCHES_BY_KEY))
    ap.add_argument("--out", default="runs/capacity.json")
    args = ap.parse_args(argv)
    import torch

    from training import pretrain
    from training.fit import FitConfig, make_model
    from training.teacher import teacher_decisions

    torch.set_num_threads(1)
    print(f"the rule bot's move is the same on its information set in {information_set_check():.1%} of decisions")
    train = teacher_decisions("rulebot", args.decisions, 4, REWARD, 0.998, seed=101)
    hold = teacher_decisions("rulebot", 20_000, 4, REWARD, 0.998, seed=202)
    print(f"{len(train):,} decisions of {train.games} games to fit, {len(hold):,} of {hold.games} other games held out")
    res = {}
    print("| body | parameters | held-out top-1 | cross-entropy | value MSE | CPU s |")
    print("|---|---|---|---|---|---|")
    keys = args.bodies.split(",")
    bad = [k for k in keys if k not in ARCHES_BY_KEY]
    if bad:
        raise SystemExit(f"error: --bodies: unknown {', '.join(bad)}; choose from {', '.join(ARCHES_BY_KEY)}")
    for name in (ARCHES_BY_KEY[k] for k in keys):
        arch = ARCHES[name]
        policy = make_model(FitConfig(name="capacity", arch=arch), 4)[0].policy
        c0 = time.process_time()
        pretrain.fit(policy, train, epochs=args.epochs, batch_size=512, learning_rate=1e-3, value_coef=0.5,
                     holdout=0.02, seed=0)
        ho = pretrain.evaluate_fit(policy, hold, np.arange(len(hold)))
        res[name] = {"params": sum(p.numel() for p in policy.parameters()), "other_games": ho,
                     "cpu_seconds": time.process_time() - c0}
        print(f"| {name} | {res[name]['params']:,} | {ho['accuracy']:.1%} | {ho['cross_entropy']:.3f} | "
              f"{ho['value_mse']:.3f} | {res[name]['cpu_seconds']:.0f} |", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
