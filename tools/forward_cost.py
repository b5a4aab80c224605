"""Where the network-guided search spends its time: the forward passes' share, and what a compact observation or a value per seat would save.

    PYTHONPATH=. python tools/forward_cost.py [--decisions 40] [--iterations 256]

Three measurements on the shipped 4-player network, one torch thread:
1. `guided` without rollouts, then with rule-bot rollouts, plays the first `--decisions` decisions
   with a choice of a 4-player game (each on the seat's information set): milliseconds a decision,
   forward passes and their rows (a row per seat of every evaluated leaf: the value head reads one
   seat's observation), and the forward passes' share of the time.
2. `LearnedAgent.evaluate_batch` on 15 rows (one per leaf: the decider's alone, as a network with a
   value per seat would need) and on 60 rows (four seats of 15 leaves, as now).
3. The first layer (observation -> 256) at the observation's 2,032 floats against a compact 512.
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def _ms(f, n: int = 400) -> float:
    for _ in range(30):
        f()
    t = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t) / n * 1e3


def search_share(spec: dict, decisions: int, seed: int = 11) -> dict:
    from agents import make_agent
    from v1919_env.game import Game

    agent = make_agent("guided", **spec)
    agent.reset(seed=1)
    net_cls = type(agent.net)
    orig = net_cls.evaluate_batch
    tot = {"seconds": 0.0, "passes": 0, "rows": 0}

    def timed(self, obs, masks):
        t = time.perf_counter()
        out = orig(self, obs, masks)
        tot["seconds"] += time.perf_counter() - t
        tot["passes"] += 1
        tot["rows"] += len(obs)
        return out

    net_cls.evaluate_batch = timed
    try:
        g, n, wall = Game.new(num_players=4, seed=seed), 0, 0.0
        while not g.is_over and n < decisions:
            legal = g.legal_actions()
            if len(legal) > 1:
                t = time.perf_counter()
                a = agent.act(None, None, game=g.information_set(g.active_player, n))
                wall += time.perf_counter() - t
                n += 1
            else:
                a = int(legal[0])
            g.step(a)
    finally:
        net_cls.evaluate_batch = orig
    return {"decisions": n, "ms_per_decision": wall / n * 1e3, "passes_per_decision": tot["passes"] / n,
            "rows_per_pass": tot["rows"] / max(1, tot["passes"]), "forward_share": tot["seconds"] / wall,
            "ms_per_pass": tot["seconds"] / max(1, tot["passes"]) * 1e3}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=40)
    ap.add_argument("--iterations", type=int, default=256)
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    from agents import make_agent
    from v1919_env.actions import NUM_ACTIONS

    print("| search | ms a decision | forward passes a decision | rows a pass | ms a pass | forward share |")
    print("|---|---|---|---|---|---|")
    for spec in ({"iterations": args.iterations}, {"iterations": args.iterations, "rollout_mix": 1.0}):
        r = search_share(spec, args.decisions)
        name = ",".join(f"{k}={v}" for k, v in spec.items())
        print(f"| `guided:{name}` | {r['ms_per_decision']:.1f} | {r['passes_per_decision']:.1f} | "
              f"{r['rows_per_pass']:.0f} | {r['ms_per_pass']:.2f} | {r['forward_share']:.0%} |")
    net = make_agent("learned")
    obs_size = net.obs_size
    print("\n| rows | evaluate_batch ms | first layer, 2,032 -> 256, ms | first layer, 512 -> 256, ms |")
    print("|---|---|---|---|")
    for rows in (15, 60):
        obs = np.random.default_rng(0).random((rows, obs_size), dtype=np.float32)
        masks = np.ones((rows, NUM_ACTIONS), bool)
        full = _ms(lambda: net.evaluate_batch(obs, masks))
        big, small = torch.nn.Linear(obs_size, 256), torch.nn.Linear(512, 256)
        x, xs = torch.from_numpy(obs), torch.rand(rows, 512)
        with torch.no_grad():
            f_big, f_small = _ms(lambda: big(x)), _ms(lambda: small(xs))
        print(f"| {rows} | {full:.3f} | {f_big:.3f} | {f_small:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
