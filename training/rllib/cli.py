"""`v1919 train-rllib CONFIG.yaml` and `python -m training rllib CONFIG.yaml`: an RLlib training run,
on a local Ray instance (`--num-cpus`) or on a cluster (`--address`). Imports Ray only when run."""
from __future__ import annotations

import argparse
import json
import sys

DESCRIPTION = ("PPO with action masking on Ray RLlib (needs the rllib extra), on the compiled vector env: each "
               "env runner steps many games per call, the opponents inside (rule bots, the learner's frozen "
               "past versions, its current self), as the YAML config says; env runners in the driver or in "
               "processes of their own, local or on a cluster. Writes the run directory (resolved config, "
               "RLlib checkpoints that load as the `learned` agent, progress.csv, evaluations.csv, "
               "learning_curve.png); docs/rllib.md.")
EPILOG = """examples:
  v1919 train-rllib configs/train/rllib_smoke.yaml --num-cpus 2
  ray start --head --num-cpus 8          # on the head machine; `ray start --address HEAD:6379` on the others
  v1919 train-rllib configs/train/rllib_4p.yaml --address HEAD:6379"""


def add_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("config", help="RLlib training config (YAML); see configs/train/rllib_*.yaml")
    p.add_argument("--out", default=None, help="run directory (default: runs/rllib/<config name>)")
    p.add_argument("--resume", action="store_true", help="go on with the run in the directory from its last "
                                                         "checkpoint (the budget and the ray section may change)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--address", default=None, help="join the Ray cluster at this address ('auto' or HOST:PORT) "
                                                       "instead of starting a local Ray instance")
    where.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray instance (default: ray.num_cpus)")
    p.add_argument("--env-runners", type=int, default=None, help="override ray.num_env_runners")
    p.add_argument("--iterations", type=int, default=None, help="override budget.iterations")
    p.add_argument("--minutes", type=float, default=None, help="override budget.minutes")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def overrides(cfg: dict, args) -> dict:
    """The config with the command line's overrides, validated again."""
    from training.rllib.config import config_from_dict

    raw = dict(cfg)
    if args.env_runners is not None:
        raw["ray"] = {**cfg["ray"], "num_env_runners": args.env_runners}
    if args.iterations is not None or args.minutes is not None:
        raw["budget"] = {**cfg["budget"]}
        if args.iterations is not None:
            raw["budget"]["iterations"] = args.iterations
        if args.minutes is not None:
            raw["budget"]["minutes"] = args.minutes
    return config_from_dict(raw, cfg["name"])


def run(args) -> int:
    """Run the command from parsed arguments; returns the exit code."""
    from training.config import ConfigError
    from training.rllib.config import load_config

    try:
        cfg = overrides(load_config(args.config), args)
        if args.num_cpus is not None and args.num_cpus < 1:
            raise ConfigError(f"--num-cpus: at least 1, got {args.num_cpus}")
        if args.address is not None:
            from agents.arena.tournament.ray_pool import check_address
            try:
                check_address(args.address)
            except ValueError as e:
                raise ConfigError(f"--address: {e}") from None
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        import ray.rllib  # noqa: F401
    except ImportError as e:
        print(f"error: train-rllib needs Ray RLlib: pip install -e '.[rllib]' ({e})", file=sys.stderr)
        return 2
    from training.rllib.backend import RLlibRunError, train_rllib

    try:
        summary = train_rllib(cfg, args.out, address=args.address, num_cpus=args.num_cpus,
                              progress=not args.no_progress, resume=args.resume)
    except RLlibRunError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=1))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training rllib", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    return add_arguments(p)


def main(argv: list[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))
