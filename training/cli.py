"""`v1919 train CONFIG.yaml` and `python -m training CONFIG.yaml`: run or resume a training run."""
from __future__ import annotations

import argparse
import json
import sys


def add_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("config", help="training config (YAML); see configs/train/")
    p.add_argument("--out", default=None, help="run directory (default: runs/train/<config name>)")
    p.add_argument("--resume", action="store_true", help="continue the run in the directory from its latest "
                                                         "checkpoint (the budget may be raised)")
    p.add_argument("--steps", type=int, default=None, help="override budget.steps")
    p.add_argument("--minutes", type=float, default=None, help="override budget.minutes")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training", description=DESCRIPTION)
    return add_arguments(p)


DESCRIPTION = ("Train a MaskablePPO agent on the compiled vector env against a pool of baseline agents and past "
               "checkpoints, as the YAML config says; writes the run directory (resolved config, checkpoints, "
               "TensorBoard logs, evaluations.csv, learning_curve.png).")


def run(args) -> int:
    """Run the command from parsed arguments; returns the exit code."""
    from .config import ConfigError, load_config

    try:
        cfg = load_config(args.config)
        if args.steps is not None or args.minutes is not None:
            from .config import config_from_dict
            raw = dict(cfg)
            raw["budget"] = {"steps": args.steps if args.steps is not None else cfg["budget"]["steps"],
                             "minutes": args.minutes if args.minutes is not None else cfg["budget"]["minutes"]}
            cfg = config_from_dict(raw, cfg["name"])
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from .learner import RunError, train

    try:
        summary = train(cfg, args.out, resume=args.resume, progress=not args.no_progress)
    except RunError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=1))
    return 0


def add_commands(sub) -> tuple[type[Exception], ...]:
    """Add `v1919 train` and `v1919 train-rllib` to `v1919`'s subparsers (the `v1919.commands` entry point,
    pyproject.toml); torch and Ray are imported only when a command runs."""
    from .rllib import cli as rllib_cli

    tr = sub.add_parser("train", help="train a MaskablePPO agent from a YAML config (needs the train extra)",
                        description=DESCRIPTION, epilog="example:\n  v1919 train configs/train/smoke.yaml",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(tr).set_defaults(func=run)
    rl = sub.add_parser("train-rllib", help="PPO on Ray RLlib over the compiled vector env, local or on a cluster "
                        "(needs the rllib extra)", description=rllib_cli.DESCRIPTION, epilog=rllib_cli.EPILOG,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    rllib_cli.add_arguments(rl).set_defaults(func=rllib_cli.run)
    return ()


def main(argv: list[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))
