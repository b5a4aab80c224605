"""Throughput of `v1919 train-rllib` (docs/rllib.md): env steps/s of an RLlib config, three ways.

    python -m training.bench --rllib configs/train/rllib_4p.yaml                  # all three, the config's settings
    python -m training.bench --rllib configs/train/rllib_4p.yaml --games 64 256 1024 --runners 0 1 2
    python -m training.bench --rllib configs/train/rllib_4p.yaml --only sampling --opponents rulebot=0.9,random=0.1
    python -m training.bench --rllib configs/train/rllib_4p.yaml --only learner --set ppo.train_batch_size=65536
    python -m training.rllib.bench ...                                            # the same

- sampling: one env runner (training/rllib/runner.py) in this process, no Ray: `sample()` of
  train_batch_size env steps, after a warm-up call; per games-per-runner count. `--stock` adds RLlib's
  own SingleAgentEnvRunner over the same vector env (gymnasium's vector_entry_point; it drops a
  transition per episode, test_rllib_runner.py) for comparison.
- learner: RLlib's PPO learner in this process on one sampled batch: seconds of `update()` (the
  learner connectors, GAE, num_epochs over minibatches), i.e. the learner's share of an iteration.
- iteration: PPO end to end on a local Ray instance (`--num-cpus`): one warm-up iteration, then
  `--iterations` measured `algo.train()` calls (sampling, the update, the weight sync) per
  (env runners, games per runner); 0 runners: the driver samples.

Every row prints the machine's load average before it: other processes share the cores.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time


def _cfg(cfg: dict, runners: int, games: int) -> dict:
    from training.rllib.config import config_from_dict

    raw = {**cfg, "ray": {**cfg["ray"], "num_env_runners": runners, "num_envs_per_env_runner": games}}
    return config_from_dict(raw, cfg["name"])


def _snapshot_states(runner) -> dict:
    """The runner's own initial weights in every snapshot slot (what the driver pushes at the start)."""
    w = runner.module.get_state()
    return {s: w for s in runner.get_snapshot_states()}


def sampling(cfg: dict, games: int, calls: int = 2) -> dict:
    """Env steps/s of one VectorEnvRunner's sample() (train_batch_size steps per call) in this process."""
    from training.rllib.backend import ppo_config
    from training.rllib.runner import VectorEnvRunner

    c = _cfg(cfg, 0, games)
    runner = VectorEnvRunner(config=ppo_config(c))
    runner.set_snapshots(_snapshot_states(runner))
    n = c["ppo"]["train_batch_size"]
    runner.sample(num_timesteps=n)                  # warm-up: first episodes, allocations
    t0 = time.perf_counter()
    steps = sum(sum(len(e) for e in runner.sample(num_timesteps=n)) for _ in range(calls))
    dt = time.perf_counter() - t0
    runner.stop()
    return {"games": games, "env_steps": steps, "seconds": round(dt, 3), "env_steps_per_s": round(steps / dt, 1)}


def stock_sampling(cfg: dict, games: int) -> dict:
    """The same with RLlib's SingleAgentEnvRunner over GymVectorEnv (its own per-game loop and connectors)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from training.rllib.backend import module_spec
    from v1919_env.envs.vector_env import GymVectorEnv

    c = _cfg(cfg, 0, games)
    compiled = {k: v for k, v in c["opponents"].items() if k not in ("self", "learner")}
    if not compiled:
        raise SystemExit("--stock: the stock runner plays compiled opponents only; give --opponents rulebot=1")

    def creator(ctx):
        return GymVectorEnv(num_envs=ctx.get("num_envs", 1), num_players=c["num_players"], reward=c["reward"],
                            opponents=list(compiled), opponent_weights=list(compiled.values()), seed=c["seed"],
                            score_info=False)

    pc = (PPOConfig().environment(creator, disable_env_checking=True)
          .env_runners(num_env_runners=0, num_envs_per_env_runner=games, gym_env_vectorize_mode="vector_entry_point")
          .rl_module(rl_module_spec=module_spec(c)))
    runner = SingleAgentEnvRunner(config=pc)
    n = c["ppo"]["train_batch_size"]
    runner.sample(num_timesteps=n // 4)
    t0 = time.perf_counter()
    steps = sum(len(e) for e in runner.sample(num_timesteps=n))
    dt = time.perf_counter() - t0
    runner.stop()
    return {"games": games, "env_steps": steps, "seconds": round(dt, 3), "env_steps_per_s": round(steps / dt, 1)}


def learner(cfg: dict, repeats: int = 2) -> dict:
    """Seconds of RLlib's PPO learner update on one train batch (sampled by a VectorEnvRunner here)."""
    from training.rllib.backend import ppo_config
    from training.rllib.runner import VectorEnvRunner

    c = _cfg(cfg, 0, cfg["ray"]["num_envs_per_env_runner"])
    pc = ppo_config(c)
    runner = VectorEnvRunner(config=pc)
    runner.set_snapshots(_snapshot_states(runner))
    lrn = pc.build_learner(env=None, spaces=runner.get_spaces())
    p, times, steps = c["ppo"], [], 0
    for k in range(repeats + 1):
        eps = runner.sample(num_timesteps=p["train_batch_size"])
        steps = sum(len(e) for e in eps)
        t0 = time.perf_counter()
        lrn.update(episodes=eps, timesteps={"num_env_steps_sampled_lifetime": steps * (k + 1)},
                   num_epochs=p["num_epochs"], minibatch_size=p["minibatch_size"])
        if k:                                    # the first update warms up (optimizer state, allocations)
            times.append(time.perf_counter() - t0)
    runner.stop()
    s = statistics.mean(times)
    return {"train_batch": steps, "num_epochs": p["num_epochs"], "minibatch_size": p["minibatch_size"],
            "seconds": round(s, 3), "env_steps_per_s": round(steps / s, 1)}


def iteration(cfg: dict, runners: int, games: int, iterations: int, num_cpus: int) -> dict:
    """PPO end to end on a local Ray instance: env steps/s of `iterations` algo.train() calls."""
    import ray

    from training.rllib.backend import RLlibTrainer, init_ray, iteration_row

    c = _cfg(cfg, runners, games)
    import tempfile

    init_ray(num_cpus=num_cpus)
    try:
        with tempfile.TemporaryDirectory() as d:
            trainer = RLlibTrainer(c, d, progress=False)       # builds the algorithm, pushes the snapshots
            algo = trainer.algo
            try:
                algo.train()                                   # warm-up: env runner start, first episodes
                rows = []
                for it in range(iterations):
                    t0 = time.perf_counter()
                    rows.append(iteration_row(it + 1, algo.train(), time.perf_counter() - t0))
                    if rows[-1]["env_steps"] == 0:
                        raise RuntimeError(f"{runners} env runner(s): iteration {it + 1} sampled nothing")
            finally:
                trainer.close()
    finally:
        ray.shutdown()
    steps = sum(r["env_steps"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    return {"env_runners": runners, "games": games, "iterations": iterations, "env_steps": steps,
            "seconds_per_iteration": round(seconds / iterations, 2), "env_steps_per_s": round(steps / seconds, 1)}


def _opponents(text: str | None) -> dict | None:
    if text is None:
        return None
    out = {}
    for part in text.split(","):
        k, _, v = part.partition("=")
        if not v:
            raise SystemExit(f"--opponents {text!r}: expected role=ratio,role=ratio")
        out[k.strip()] = float(v)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.bench --rllib", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("config", help="an RLlib training config (YAML)")
    ap.add_argument("--only", choices=("sampling", "learner", "iteration"), nargs="+",
                    default=["sampling", "learner", "iteration"])
    ap.add_argument("--games", type=int, nargs="+", default=None, help="games per env runner (default: the config's)")
    ap.add_argument("--runners", type=int, nargs="+", default=None,
                    help="env runner counts for the iteration rows (default: the config's)")
    ap.add_argument("--iterations", type=int, default=3, help="measured iterations per iteration row")
    ap.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance")
    ap.add_argument("--opponents", default=None, help="other opponent ratios (every row), e.g. rulebot=0.9,random=0.1")
    ap.add_argument("--stock", action="store_true", help="sampling rows: also RLlib's stock SingleAgentEnvRunner")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="config overrides (every row), e.g. ppo.train_batch_size=65536 ppo.num_epochs=4")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of a JSON line per row")
    args = ap.parse_args(argv)
    import torch

    from training.config import ConfigError, set_value
    from training.rllib.config import config_from_dict, load_config

    torch.set_num_threads(1)
    try:
        cfg = load_config(args.config)
        raw = copy.deepcopy(cfg)
        for a in args.set:
            set_value(raw, a)
        opp = _opponents(args.opponents)
        if opp is not None:
            raw["opponents"] = opp
        cfg = config_from_dict(raw, cfg["name"])
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    games = args.games or [cfg["ray"]["num_envs_per_env_runner"]]
    runners = args.runners if args.runners is not None else [cfg["ray"]["num_env_runners"]]
    out = {"config": args.config, "set": args.set, "train_batch_size": cfg["ppo"]["train_batch_size"],
           "cpu_count": os.cpu_count(), "opponents": cfg["opponents"], "rows": []}

    def row(kind: str, r: dict) -> None:
        r = {"kind": kind, **r, "load_before": round(load, 2)}
        out["rows"].append(r)
        if not args.json:
            print(json.dumps(r), flush=True)

    for g in games:
        if "sampling" in args.only:
            load = os.getloadavg()[0]
            row("sampling", sampling(cfg, g))
            if args.stock:
                load = os.getloadavg()[0]
                row("sampling_stock_runner", stock_sampling(cfg, g))
    if "learner" in args.only:
        load = os.getloadavg()[0]
        row("learner", learner(cfg))
    if "iteration" in args.only:
        for g in games:
            for n in runners:
                load = os.getloadavg()[0]
                row("iteration", iteration(cfg, n, g, args.iterations, args.num_cpus))
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
