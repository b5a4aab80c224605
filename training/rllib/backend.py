"""`v1919 train-rllib CONFIG.yaml`: PPO with action masking on Ray RLlib, stepping the compiled
vector env in every env runner (docs/rllib.md).

Each env runner (training/rllib/runner.py; `ray.num_env_runners` Ray actor processes, or with 0 the
driver itself) steps `ray.num_envs_per_env_runner` games per compiled call, the opponents inside
(training/rllib/env.py), and returns RLlib episodes built in bulk; the learner (`ray.num_learners`,
0: in the driver) trains the masked actor-critic module (agents/rllib_module.py) with RLlib's PPO.
Self-play: the snapshot slots `past0..past{k-1}` are frozen copies of the learner's weights, held
by the driver (all filled at the start, then the oldest refreshed every
`self_play.snapshot_every_iterations`) and pushed to the env runners, which play them as batch
opponents.

Run directory (runs/rllib/<name> unless given):
    config.yaml           the resolved config
    checkpoints/iter_<N>/ RLlib algorithm checkpoints (every checkpoint_every_iterations, and the last),
                          with snapshots.npz (the snapshot slots' weights); each loads as the `learned`
                          agent: `learned:path=<dir>` (agents/learned_rllib.py)
    progress.csv          per iteration: env steps, seconds, env steps/s, sampling and learner seconds,
                          the learner's mean episode return and win rate, episodes
    state.json            at every checkpoint: iteration, env steps, training seconds, snapshots taken,
                          the checkpoint: what --resume reads (the budget and the ray section may change)
    evaluations.csv       win rates against the evaluation opponents (training/evaluate.py), and
    learning_curve.png    their plot; eval/<iteration>/<opponent>/ the tournaments
    summary.json
"""
from __future__ import annotations

import csv
import json
import logging
import time
from pathlib import Path

import numpy as np

from training.config import dump_config
from training.rllib.config import saved_config
from training.evaluate import EVAL_SEED_OFFSET, append_rows, evaluate
from training.plots import plot_learning_curve
from training.rllib.env import (
    action_space,
    env_config,
    observation_space,
    snapshot_slots,
)

logger = logging.getLogger(__name__)

PROGRESS_COLUMNS = ("iteration", "env_steps", "seconds", "env_steps_per_s", "sample_seconds", "learn_seconds",
                    "learner_return_mean", "learner_win_rate", "episodes")
MODULE_ID = "default_policy"          # RLlib's DEFAULT_MODULE_ID: the one module of a single-agent algorithm
SNAPSHOTS_FILE = "snapshots.npz"      # in each checkpoint directory: the snapshot slots' weights


class RLlibRunError(RuntimeError):
    """A run that cannot be started as asked (an existing run directory, no Ray cluster at the address)."""


def module_spec(cfg: dict):
    """The RLModuleSpec of the masked actor-critic (agents/rllib_module.py) of a resolved config."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib_module import MaskedPPOModule

    return RLModuleSpec(module_class=MaskedPPOModule, observation_space=observation_space(),
                        action_space=action_space(), model_config=dict(cfg["policy"]))


def ppo_config(cfg: dict):
    """The RLlib PPOConfig of a resolved config: the vector env runner, the masked module."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from training.rllib.learner import VectorPPOTorchLearner
    from training.rllib.runner import VectorEnvRunner

    r, p = cfg["ray"], cfg["ppo"]
    return (PPOConfig()
            .environment(observation_space=observation_space(), action_space=action_space(),
                         env_config=env_config(cfg), disable_env_checking=True)
            .env_runners(env_runner_cls=VectorEnvRunner, num_env_runners=r["num_env_runners"],
                         num_envs_per_env_runner=r["num_envs_per_env_runner"], num_cpus_per_env_runner=1,
                         sample_timeout_s=r["sample_timeout_s"])
            .learners(num_learners=r["num_learners"], learner_class=VectorPPOTorchLearner)
            # a failing env runner stops the run with its error (no silent restarts, no empty iterations)
            .fault_tolerance(restart_failed_env_runners=False)
            .rl_module(rl_module_spec=module_spec(cfg))
            .training(lr=p["learning_rate"],
                      train_batch_size_per_learner=p["train_batch_size"], minibatch_size=p["minibatch_size"],
                      num_epochs=p["num_epochs"], gamma=p["gamma"], lambda_=p["lambda"], clip_param=p["clip_param"],
                      entropy_coeff=p["entropy_coeff"], vf_loss_coeff=p["vf_loss_coeff"], grad_clip=p["grad_clip"],
                      use_kl_loss=p["kl_coeff"] > 0, kl_coeff=p["kl_coeff"])
            .debugging(seed=cfg["seed"]))


def init_ray(address: str | None = None, num_cpus: int | None = None) -> None:
    """Connect to the cluster at `address`, or start a local Ray instance with num_cpus CPUs."""
    import ray

    if address is not None:
        try:
            ray.init(address=address, log_to_driver=False)
        except ConnectionError as e:
            raise RLlibRunError(f"cannot join a Ray cluster at {address!r}: {e}. Start one with `ray start --head`; "
                                f"if it uses token authentication (the default of `ray start`), set "
                                f"RAY_AUTH_MODE=token here, with the head's ~/.ray/auth_token") from None
    else:
        # "local": a new instance even where `ray start` left a cluster address on this machine
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)


def build_algorithm(cfg: dict):
    """The PPO Algorithm on the running Ray instance (its env runners built, the learner's initial
    weights synced to them; the snapshot slots are filled by the caller: push_snapshots)."""
    return ppo_config(cfg).build_algo()


def learner_weights(algo) -> dict:
    """The learner module's weights, inference part only (what the env runners' modules hold), as numpy."""
    from agents.rllib_module import NON_INFERENCE

    w = algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID]
    drop = tuple(a + "." for a in NON_INFERENCE)
    return {k: np.asarray(v) for k, v in w.items() if not k.startswith(drop)}


def push_snapshots(algo, states: dict) -> None:
    """Load snapshot weights {slot: weights} into every env runner (the driver's included), once
    through Ray's object store."""
    import ray

    ref = ray.put(states)
    algo.env_runner_group.foreach_env_runner(lambda r: r.set_snapshots(ray.get(ref)), local_env_runner=True,
                                             timeout_seconds=120.0)


def save_snapshots(path: Path, states: dict) -> None:
    np.savez(path, **{f"{slot}/{k}": v for slot, w in states.items() for k, v in w.items()})


def load_snapshots(path: Path) -> dict:
    out: dict = {}
    with np.load(path) as z:
        for key in z.files:
            slot, k = key.split("/", 1)
            out.setdefault(slot, {})[k] = z[key]
    return out


def _seconds(result: dict, *keys) -> float:
    """A timer of an algo.train() result (seconds; nan when RLlib did not report it)."""
    node = result
    for k in keys:
        if not isinstance(node, dict) or k not in node:
            return float("nan")
        node = node[k]
    return float(node) if isinstance(node, (int, float)) else float("nan")


def iteration_row(it: int, result: dict, seconds: float) -> dict:
    """The progress.csv row of one algo.train() result."""
    from training.rllib.runner import WIN_RATE

    er = result.get("env_runners", {})
    steps = int(er.get("num_env_steps_sampled", 0))
    return {"iteration": it, "env_steps": steps, "seconds": round(seconds, 3),
            "env_steps_per_s": round(steps / seconds, 1) if seconds > 0 else 0.0,
            "sample_seconds": round(_seconds(result, "timers", "env_runner_sampling_timer"), 3),
            "learn_seconds": round(_seconds(result, "timers", "learner_update_timer"), 3),
            "learner_return_mean": er.get("episode_return_mean", float("nan")),
            "learner_win_rate": er.get(WIN_RATE, float("nan")),
            "episodes": int(er.get("num_episodes", 0))}


STATE_FILE = "state.json"
MAY_CHANGE_ON_RESUME = ("budget", "ray")


def check_run(cfg: dict, run: Path, resume: bool) -> dict | None:
    """What the run directory allows (read only, before Ray starts): with resume its state.json
    (the config may differ in MAY_CHANGE_ON_RESUME only, the checkpoint's snapshots must be there),
    else nothing (the directory must not hold a run). RLlibRunError says why not."""
    path = run / STATE_FILE
    if run.exists() and not run.is_dir():
        raise RLlibRunError(f"{run} is a file, not a run directory; choose another --out")
    if resume:
        if not path.exists():
            raise RLlibRunError(f"--resume: no run to resume in {run} (no {STATE_FILE})")
        state = json.loads(path.read_text())
        old = saved_config(state["config"])    # a key added since the run started takes its default
        diff = sorted(k for k in set(old) | set(cfg) if k not in MAY_CHANGE_ON_RESUME and old.get(k) != cfg.get(k))
        if diff:
            raise RLlibRunError(f"--resume: the config differs from the run's in {', '.join(diff)} (only "
                                f"{' and '.join(MAY_CHANGE_ON_RESUME)} may change); use another run directory")
        snaps = Path(state["checkpoint"]) / SNAPSHOTS_FILE
        if not snaps.is_file():
            raise RLlibRunError(f"--resume: {snaps} is missing (the snapshot slots' weights, saved with every "
                                f"checkpoint)")
        return state
    if path.exists() or (run / "progress.csv").exists():
        raise RLlibRunError(f"{run} already holds a run; --resume continues it, or choose another --out")
    return None


class RLlibTrainer:
    """One run (see the module docstring); Ray must be initialised (init_ray). With `resume`, the
    run in run_dir goes on from its last checkpoint (state.json)."""

    def __init__(self, cfg: dict, run_dir=None, progress: bool = True, resume: bool = False):
        self.cfg, self.progress = cfg, progress
        self.run = Path(run_dir) if run_dir is not None else Path("runs/rllib") / cfg["name"]
        state = self._open_run(resume)
        self.algo = build_algorithm(cfg)
        self.iteration, self.env_steps = state["iteration"], state["env_steps"]
        self.train_seconds, self.snapshots = state["train_seconds"], state["snapshots"]
        self.slots = snapshot_slots(cfg["self_play"]["pool_size"])
        if resume:
            self.algo.restore_from_path(state["checkpoint"])
            path = Path(state["checkpoint"]) / SNAPSHOTS_FILE
            self.snapshot_states = load_snapshots(path)
            if sorted(self.snapshot_states) != sorted(self.slots):
                raise RLlibRunError(f"--resume: {path} holds the slots {sorted(self.snapshot_states)}, the config "
                                    f"{self.slots}")
        else:     # every slot starts as the initial learner
            w = learner_weights(self.algo)
            self.snapshot_states = {s: w for s in self.slots}
        push_snapshots(self.algo, self.snapshot_states)

    def _open_run(self, resume: bool) -> dict:
        state = check_run(self.cfg, self.run, resume)
        if resume:
            return state
        try:
            (self.run / "checkpoints").mkdir(parents=True, exist_ok=True)
            (self.run / "config.yaml").write_text(dump_config(self.cfg))
        except OSError as e:
            raise RLlibRunError(f"cannot write the run directory {self.run}: {e.strerror or e}") from None
        return {"iteration": 0, "env_steps": 0, "train_seconds": 0.0, "snapshots": 0}

    def checkpoint(self, it: int) -> Path:
        """Save the algorithm (once per iteration) and the run's state.json pointing at it."""
        path = (self.run / "checkpoints" / f"iter_{it:06d}").resolve()
        if not path.exists():
            self.algo.save_to_path(str(path))
            save_snapshots(path / SNAPSHOTS_FILE, self.snapshot_states)
            state = {"iteration": it, "env_steps": self.env_steps, "train_seconds": self.train_seconds,
                     "snapshots": self.snapshots, "checkpoint": str(path), "config": self.cfg}
            (self.run / STATE_FILE).write_text(json.dumps(state, indent=1))
        return path

    def evaluate(self, it: int, games: int) -> list[dict]:
        if games == 0:
            return []
        rows = evaluate(self.checkpoint(it), self.cfg, self.run / "eval" / f"{it:06d}", games,
                        seed=self.cfg["seed"] + EVAL_SEED_OFFSET)
        append_rows(self.run / "evaluations.csv", rows, self.env_steps, self.train_seconds / 60.0)
        plot_learning_curve(self.run / "evaluations.csv", self.run / "learning_curve.png",
                            title=f"{self.cfg['name']} (RLlib): learned vs baselines", num_players=self.cfg["num_players"])
        logger.info(f"iteration {it}: " + ", ".join(f"vs {r['opponent']} {100 * r['win_rate']:.1f}% of {r['games']}"
                                                      for r in rows))
        return rows

    def done(self, it: int) -> bool:
        b = self.cfg["budget"]
        return ((b["iterations"] is not None and it >= b["iterations"])
                or (b["steps"] is not None and self.env_steps >= b["steps"])
                or (b["minutes"] is not None and self.train_seconds >= 60 * b["minutes"]))

    def train(self) -> dict:
        """Train to the budget; checkpoint, snapshot and evaluate on schedule; the final checkpoint is
        evaluated with final_games."""
        from tqdm import tqdm

        cfg = self.cfg
        ev, every_ckpt = cfg["evaluation"], cfg["checkpoint_every_iterations"]
        bar = tqdm(total=cfg["budget"]["iterations"], initial=self.iteration, unit="it", disable=not self.progress,
                   dynamic_ncols=True)
        it = self.iteration
        new = it == 0
        if not new:      # iterations after the last checkpoint are done again
            lines = (self.run / "progress.csv").read_text().splitlines(keepends=True)
            (self.run / "progress.csv").write_text("".join(lines[:it + 1]))
        with open(self.run / "progress.csv", "w" if new else "a", newline="") as fh:
            log = csv.DictWriter(fh, fieldnames=PROGRESS_COLUMNS)
            if new:
                log.writeheader()
            while not self.done(it):
                t0 = time.perf_counter()
                result = self.algo.train()
                dt = time.perf_counter() - t0
                it += 1
                self.train_seconds += dt
                row = iteration_row(it, result, dt)
                if row["env_steps"] == 0:
                    raise RLlibRunError(f"iteration {it} sampled no env step (env runners lost?); their logs are "
                                        f"in Ray's session directory (logs/worker-*.err)")
                self.env_steps += row["env_steps"]
                log.writerow(row)
                fh.flush()
                bar.update(1)
                bar.set_postfix_str(f"{row['env_steps_per_s']:,.0f} env steps/s, learner return "
                                    f"{row['learner_return_mean']:.3f}, wins {row['learner_win_rate']:.1%}",
                                    refresh=False)
                if it % cfg["self_play"]["snapshot_every_iterations"] == 0:
                    slot = self.slots[self.snapshots % len(self.slots)]
                    self.snapshot_states = {**self.snapshot_states, slot: learner_weights(self.algo)}
                    push_snapshots(self.algo, {slot: self.snapshot_states[slot]})
                    self.snapshots += 1
                if it % every_ckpt == 0:
                    self.checkpoint(it)
                if ev["every_iterations"] is not None and it % ev["every_iterations"] == 0 and not self.done(it):
                    self.evaluate(it, ev["games"])
        bar.close()
        final = self.checkpoint(it)
        rows = self.evaluate(it, ev["final_games"])
        summary = {"run_dir": str(self.run), "iterations": it, "env_steps": self.env_steps,
                   "train_minutes": self.train_seconds / 60.0,
                   "env_steps_per_s": self.env_steps / self.train_seconds if self.train_seconds else 0.0,
                   "final_checkpoint": str(final), "final": rows}
        (self.run / "summary.json").write_text(json.dumps(summary, indent=1))
        return summary

    def close(self) -> None:
        self.algo.stop()


def train_rllib(cfg: dict, run_dir=None, address: str | None = None, num_cpus: int | None = None,
                progress: bool = True, resume: bool = False) -> dict:
    """Start (or join) Ray, train (or with resume, go on training) as the resolved config says, stop
    the algorithm and Ray; the summary."""
    import ray

    check_run(cfg, Path(run_dir) if run_dir is not None else Path("runs/rllib") / cfg["name"], resume)
    init_ray(address if address is not None else cfg["ray"]["address"],
             num_cpus if num_cpus is not None else cfg["ray"]["num_cpus"])
    try:
        import torch

        torch.set_num_threads(1)
        trainer = RLlibTrainer(cfg, run_dir, progress, resume)
        try:
            return trainer.train()
        finally:
            trainer.close()
    finally:
        ray.shutdown()
