"""Training throughput: learner steps per second of PPO end to end (rollouts in the vector env with its
opponents, the policy's forward passes, PPO's updates) for training configs, without their warm start
and evaluations, each in a fresh temporary run directory.

    python -m training.bench configs/train/ppo_4p.yaml --steps 100000
    python -m training.bench configs/train/ppo_4p.yaml --steps 100000 --set env.num_envs=64 ppo.n_epochs=4

`--rllib` (first) measures an RLlib config instead: `python -m training.bench --rllib CONFIG [...]`
(training/rllib/bench.py: sampling, learner and whole-iteration env steps/s).
"""
from __future__ import annotations

import argparse
import copy
import tempfile

import yaml

from .config import set_value


def measure(raw: dict, steps: int) -> dict:
    """Train a copy of config `raw` (a decoded YAML mapping) for `steps` learner steps; its figures."""
    from .config import config_from_dict
    from .learner import train

    raw = copy.deepcopy(raw)
    raw["budget"] = {"steps": steps, "minutes": None}
    raw.setdefault("pretrain", {})["teacher"] = None
    raw["evaluation"] = dict(raw.get("evaluation", {}), every_steps=None, final_games=0)
    raw["checkpoint_every_steps"] = 10 ** 12
    cfg = config_from_dict(raw, raw.get("name") or "bench")
    with tempfile.TemporaryDirectory() as d:
        s = train(cfg, d, progress=False)
    return {"steps": s["steps"], "seconds": s["train_minutes"] * 60, "steps_per_s": s["steps_per_s"]}


def main(argv: list[str] | None = None) -> int:
    import sys

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--rllib"]:
        from .rllib.bench import main as rllib_main

        return rllib_main(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m training.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="+", help="training configs (YAML); --rllib first: RLlib configs, see "
                                                "training/rllib/bench.py")
    ap.add_argument("--steps", type=int, default=100_000, help="learner steps per config")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="overrides, e.g. ppo.n_epochs=4")
    args = ap.parse_args(argv)
    for path in args.configs:
        with open(path) as fh:
            raw = yaml.safe_load(fh) or {}
        for a in args.set:
            set_value(raw, a)
        r = measure(raw, args.steps)
        print(f"{path} {' '.join(args.set)}: {r['steps']:,} learner steps in {r['seconds']:.1f} s = "
              f"{r['steps_per_s']:,.0f} steps/s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
