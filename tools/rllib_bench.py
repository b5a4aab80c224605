"""Env steps/s of RLlib iterations with 1, 2, ... env runners (docs/rllib.md):

    .venv/bin/python tools/rllib_bench.py [--config configs/train/rllib_4p.yaml] [--runners 1 2]
                                          [--iterations 2] [--num-cpus 2] [--json]

For each runner count: a fresh local Ray instance, the config's algorithm, one warm-up iteration
(env runner start, first episodes), then the measured iterations: env steps sampled and the whole
iteration's env steps/s (sampling, the PPO update, the weight sync). Then the sampling alone: every
runner samples train_batch_size / runners env steps at once, no update. Prints a table (or one
JSON object) with the machine's load average, since other processes share the cores.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def measure(cfg: dict, runners: int, iterations: int, num_cpus: int, envs: int | None = None) -> dict:
    """Figures of `iterations` iterations after a warm-up one, with `runners` env runners (of
    `envs` envs each, default the config's)."""
    import ray

    from training.rllib.backend import build_algorithm, init_ray, iteration_row
    from training.rllib.config import config_from_dict

    envs = envs or cfg["ray"]["num_envs_per_env_runner"]
    cfg = config_from_dict({**cfg, "ray": {**cfg["ray"], "num_env_runners": runners, "num_envs_per_env_runner": envs}},
                           cfg["name"])
    init_ray(num_cpus=num_cpus)
    try:
        algo = build_algorithm(cfg)
        try:
            algo.train()                       # warm-up
            rows = []
            per_runner = -(-cfg["ppo"]["train_batch_size"] // runners)
            for it in range(iterations):
                t0 = time.perf_counter()
                result = algo.train()
                rows.append(iteration_row(it + 1, result, time.perf_counter() - t0))
                if rows[-1]["env_steps"] == 0:
                    raise RuntimeError(f"{runners} env runner(s): iteration {it + 1} sampled nothing "
                                       f"(ray.sample_timeout_s passed?)")
            t0 = time.perf_counter()
            counts = algo.env_runner_group.foreach_env_runner(
                lambda er: sum(len(e) for e in er.sample(num_timesteps=per_runner)), local_env_runner=runners == 0)
            sampling = sum(counts) / (time.perf_counter() - t0)
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    steps = sum(r["env_steps"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    return {"env_runners": runners, "envs_per_runner": envs, "iterations": iterations, "env_steps": steps,
            "iteration_env_steps_per_s": round(steps / seconds, 1),
            "sampling_env_steps_per_s": round(sampling, 1),
            "seconds_per_iteration": round(statistics.mean(r["seconds"] for r in rows), 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/train/rllib_4p.yaml")
    ap.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--envs-per-runner", type=int, default=None, help="default: the config's")
    ap.add_argument("--num-cpus", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    import torch

    from training.rllib.config import load_config

    torch.set_num_threads(1)
    cfg = load_config(args.config)
    rows = []
    for n in args.runners:
        load = os.getloadavg()[0]
        rows.append({**measure(cfg, n, args.iterations, args.num_cpus, args.envs_per_runner), "load_before": round(load, 2)})
        if not args.json:
            print(f"{n} env runner(s): {rows[-1]}", file=sys.stderr)
    out = {"config": args.config, "train_batch_size": cfg["ppo"]["train_batch_size"], "num_cpus": args.num_cpus,
           "cpu_count": os.cpu_count(), "rows": rows}
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{args.config}: train batch {cfg['ppo']['train_batch_size']} env steps, Ray with {args.num_cpus} CPUs "
          f"on {os.cpu_count()} cores")
    print("| env runners x envs | env steps/s (iteration) | env steps/s (sampling alone) | s/iteration | load |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['env_runners']} x {r['envs_per_runner']} | {r['iteration_env_steps_per_s']:,.0f} | {r['sampling_env_steps_per_s']:,.0f} | "
              f"{r['seconds_per_iteration']} | {r['load_before']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
