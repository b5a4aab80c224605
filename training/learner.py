"""The learner: MaskablePPO on the compiled vector env, with the run directory, the opponent pool,
checkpoints, the evaluation schedule, the budget and --resume.

Run directory (runs/train/<name> unless given):
    config.yaml          the resolved config (every hyper-parameter)
    checkpoints/         step_<N>.zip every checkpoint_every_steps, latest.zip, final.zip;
                         snapshots/ the frozen policies of the self-play pool
    tb/                  TensorBoard logs (SB3's rollout/train figures, eval/win_rate_<opponent>)
    evaluations.csv      one row per evaluation and opponent: win rate and its 95% interval
    learning_curve.png   the CSV as a plot
    eval/<step>/<opponent>/   the evaluation tournaments (games.jsonl, results.md)
    state.json           steps, training seconds, pool snapshots, schedule: what --resume reads
The minutes budget counts training time only (evaluations excluded): the imitation warm start
(`pretrain`, training/pretrain.py) and PPO; state.json keeps train_seconds (both), pretrain_seconds
and eval_seconds. summary.json's steps_per_s is PPO's: learner steps / (train - pretrain seconds).
"""
from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path

import torch
from stable_baselines3.common.callbacks import BaseCallback

from .config import CURRENT, SELF, ConfigError, dump_config, saved_config
from .envs import make_vec_env
from .evaluate import EVAL_SEED_OFFSET, append_rows, evaluate
from .opponents import OpponentPool
from .plots import plot_learning_curve
from .policy import init_from_checkpoint, policy_kwargs

STATE_FILE = "state.json"


class RunError(RuntimeError):
    """A run directory that cannot be (re)used as asked."""


def _ckpt(run: Path, name: str) -> Path:
    return run / "checkpoints" / name


class _Schedule:
    """Next step at which something periodic is due (kept in state.json for --resume)."""

    def __init__(self, every: int | None, next_at: int | None = None):
        self.every = every
        self.next_at = next_at if next_at is not None else every

    def due(self, step: int) -> bool:
        if self.every is None or step < self.next_at:
            return False
        while self.next_at <= step:
            self.next_at += self.every
        return True


class TrainCallback(BaseCallback):
    """Budget, checkpoints, pool snapshots, evaluations and the progress bar, at every vector step."""

    def __init__(self, trainer: "Trainer"):
        super().__init__()
        self.t = trainer

    def _on_training_start(self) -> None:
        self.t.started = time.perf_counter()

    def _on_step(self) -> bool:
        t, step = self.t, self.num_timesteps
        t.pool.record(self.locals["infos"])
        t.bar_update(step)
        if t.ckpt.due(step):
            t.save_checkpoint(step)
        if t.snap.due(step):
            t.snapshot(step)
        if t.evals.due(step):
            t.run_evaluation(step, t.cfg["evaluation"]["games"], self.logger)
        budget = t.cfg["budget"]["minutes"]
        return budget is None or t.train_seconds() < 60.0 * budget

    def _on_rollout_end(self) -> None:
        if self.t.pool.priority == "pfsp" and self.t.pool.snapshots:
            self.t.pool.apply(self.t.engine)       # the league's draw weights follow the latest results


class Trainer:
    """One training run (see the module docstring)."""

    def __init__(self, cfg: dict, run_dir=None, resume: bool = False, progress: bool = True):
        self.cfg, self.progress = cfg, progress
        self.run = Path(run_dir) if run_dir is not None else Path("runs/train") / cfg["name"]
        self.state = self._open_run(resume)
        torch.set_num_threads(cfg["torch_threads"])
        torch.distributions.Distribution.set_default_validate_args(False)   # checks cost ~5% of a step
        ratios = {k: float(v) for k, v in cfg["opponents"].items()}
        sp = cfg["self_play"]
        self.pool = OpponentPool(ratios, sp["pool_size"], sp["deterministic"], seed=cfg["seed"],
                                 priority=sp["priority"], pfsp_power=sp["pfsp_power"], num_players=cfg["num_players"])
        self.venv, self.engine = make_vec_env(cfg, ["random"], None, seed=cfg["seed"] + self.state["resumes"])
        self.model = self._make_model(resume)
        if resume and self.state["snapshots"]:
            self.pool.load_snapshots([tuple(x) for x in self.state["snapshots"]])
        self.pool.results = {k: list(v) for k, v in self.state.get("pool_results", {}).items()}
        if ratios.get(CURRENT, 0) > 0:
            self.pool.set_current(self.model.policy)
        self.pool.apply(self.engine)
        st = self.state["schedule"]
        self.ckpt = _Schedule(cfg["checkpoint_every_steps"], st.get("ckpt"))
        self.snap = _Schedule(sp["snapshot_every_steps"] if ratios.get(SELF, 0) > 0 else None, st.get("snap"))
        self.evals = _Schedule(cfg["evaluation"]["every_steps"], st.get("eval"))
        self.started = time.perf_counter()
        self.bar = None
        self.last_eval = ""

    # ------------------------------------------------------------------ run directory
    def _open_run(self, resume: bool) -> dict:
        state_path = self.run / STATE_FILE
        cfg_text = dump_config(self.cfg)
        if self.run.exists() and not self.run.is_dir():
            raise RunError(f"{self.run} is a file, not a run directory; choose another --out")
        if resume:
            if not state_path.exists():
                raise RunError(f"--resume: no run to resume in {self.run} (no {STATE_FILE})")
            state = json.loads(state_path.read_text())
            old = saved_config(state["config"])     # a key added since the run started takes its default
            diff = sorted(k for k in set(old) | set(self.cfg) if k != "budget" and old.get(k) != self.cfg.get(k))
            if diff:
                raise RunError(f"--resume: the config differs from the run's in {', '.join(diff)} (only the budget "
                               f"may change); use another run directory")
            state["resumes"] += 1
            # a run killed before its end saved its time only with its last checkpoint, which --resume loads
            state["train_seconds"] = max(state["train_seconds"], state.get("train_seconds_at_save", 0.0))
        else:
            if state_path.exists():
                raise RunError(f"{self.run} already holds a run; --resume continues it, or choose another --out")
            state = {"num_timesteps": 0, "train_seconds": 0.0, "eval_seconds": 0.0, "pretrain_seconds": 0.0,
                     "pretrain": None, "snapshots": [], "schedule": {}, "resumes": 0}
        state["config"] = self.cfg
        try:
            (self.run / "checkpoints" / "snapshots").mkdir(parents=True, exist_ok=True)
            (self.run / "config.yaml").write_text(cfg_text)
        except OSError as e:
            raise RunError(f"cannot write the run directory {self.run}: {e.strerror or e}") from None
        return state

    def _make_model(self, resume: bool):
        from sb3_contrib import MaskablePPO

        if resume:
            path = _ckpt(self.run, "latest.zip")
            if not path.exists():
                raise RunError(f"--resume: {path} is missing")
            return MaskablePPO.load(str(path), env=self.venv, device=self.cfg["device"],
                                    tensorboard_log=str(self.run / "tb"))
        model = MaskablePPO("MlpPolicy", self.venv, seed=self.cfg["seed"], device=self.cfg["device"],
                            tensorboard_log=str(self.run / "tb"), policy_kwargs=policy_kwargs(self.cfg), verbose=0,
                            **self.cfg["ppo"])
        if self.cfg["init_from"] is not None:
            self.state["init_from"] = {"path": self.cfg["init_from"],
                                       **init_from_checkpoint(model.policy, self.cfg["init_from"])}
        return model

    def save_state(self) -> None:
        self.state["num_timesteps"] = int(self.model.num_timesteps)
        self.state["snapshots"] = self.pool.state()
        self.state["pool_results"] = self.pool.results
        self.state["league"] = self.pool.table()
        self.state["schedule"] = {"ckpt": self.ckpt.next_at, "snap": self.snap.next_at, "eval": self.evals.next_at}
        (self.run / STATE_FILE).write_text(json.dumps(self.state, indent=1))

    # ------------------------------------------------------------------ periodic work
    def train_seconds(self) -> float:
        return self.state["train_seconds"] + time.perf_counter() - self.started

    @contextlib.contextmanager
    def _pause(self):
        """Work inside does not count as training time (it goes to eval_seconds)."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            dt = time.perf_counter() - t0
            self.started += dt
            self.state["eval_seconds"] += dt

    def save_checkpoint(self, step: int) -> Path:
        path = _ckpt(self.run, f"step_{step:09d}.zip")
        self.model.save(str(path))
        self.model.save(str(_ckpt(self.run, "latest.zip")))
        self.state["train_seconds_at_save"] = self.train_seconds()
        self.save_state()
        return path

    def snapshot(self, step: int) -> None:
        path = _ckpt(self.run, f"snapshots/self_{step:09d}.zip")
        self.model.save(str(path))
        self.pool.add_snapshot(self.model, step, str(path))
        self.pool.apply(self.engine)

    def run_evaluation(self, step: int, games: int, logger=None) -> list[dict]:
        if games == 0:
            return []
        minutes = self.train_seconds() / 60.0
        with self._pause():
            path = _ckpt(self.run, f"step_{step:09d}.zip")
            if not path.exists():
                self.model.save(str(path))
            rows = evaluate(path, self.cfg, self.run / "eval" / f"{step:09d}", games,
                            seed=self.cfg["seed"] + EVAL_SEED_OFFSET)
            append_rows(self.run / "evaluations.csv", rows, step, minutes)
            plot_learning_curve(self.run / "evaluations.csv", self.run / "learning_curve.png",
                                title=f"{self.cfg['name']}: learned vs baselines", num_players=self.cfg["num_players"])
            self.last_eval = " ".join(f"{r['opponent']} {100 * r['win_rate']:.0f}%" for r in rows)
            if logger is not None:
                for r in rows:
                    logger.record(f"eval/win_rate_{r['opponent']}", r["win_rate"])
            if self.progress:
                from tqdm import tqdm
                tqdm.write(f"step {step:,}: " + ", ".join(
                    f"vs {r['opponent']} {100 * r['win_rate']:.1f}% [{100 * r['win_low']:.1f}, "
                    f"{100 * r['win_high']:.1f}] of {r['games']}" for r in rows), file=sys.stderr)
        return rows

    def bar_update(self, step: int) -> None:
        if self.bar is None:
            return
        self.bar.n = step
        dt = self.train_seconds() - self._bar_t0[1]
        rate = (step - self._bar_t0[0]) / dt if dt > 0 else 0.0
        self.bar.set_postfix_str(f"{rate:,.0f} steps/s {self.last_eval}", refresh=False)
        self.bar.refresh() if step % (self.engine.num_envs * 16) == 0 else None

    def warm_start(self) -> None:
        """The imitation phase (config `pretrain`), once per run: teacher games, then the fit of the
        policy and value heads; its seconds count as training time. Evaluated at step 0."""
        from .pretrain import fit
        from .teacher import teacher_decisions

        pre = self.cfg["pretrain"]
        t0 = time.perf_counter()
        if self.cfg["num_players"] == 1:
            from .solitaire_teacher import solitaire_teacher_decisions

            data = solitaire_teacher_decisions(pre["teacher"], pre["decisions"], self.cfg["reward"],
                                               self.cfg["ppo"]["gamma"], self.cfg["seed"], self.cfg["solitaire"],
                                               workers=pre["workers"], progress=self.progress,
                                               obs_layout=self.cfg["env"]["obs_layout"])
        else:
            data = teacher_decisions(pre["teacher"], pre["decisions"], self.cfg["num_players"], self.cfg["reward"],
                                     self.cfg["ppo"]["gamma"], seed=self.cfg["seed"], variant=self.cfg["variant"],
                                     progress=self.progress, obs_layout=self.cfg["env"]["obs_layout"])
        gen = time.perf_counter() - t0
        result = fit(self.model.policy, data, pre["epochs"], pre["batch_size"], pre["learning_rate"],
                     pre["value_coef"], pre["holdout"], seed=self.cfg["seed"], progress=self.progress)
        del data
        result.update(teacher=pre["teacher"], generate_seconds=gen, seconds=time.perf_counter() - t0)
        self.state["pretrain"] = result
        self.state["pretrain_seconds"] = result["seconds"]
        self.state["train_seconds"] += result["seconds"]
        self.started = time.perf_counter()
        self.save_state()
        self.run_evaluation(0, self.cfg["evaluation"]["games"])

    # ------------------------------------------------------------------ the run
    def train(self) -> dict:
        """Warm start (if configured and not done yet), train to the budget, then save final.zip,
        evaluate it with final_games and plot."""
        from tqdm import tqdm

        if self.cfg["pretrain"]["teacher"] is not None and self.state.get("pretrain") is None:
            self.warm_start()
        if self.cfg["opponents"].get(SELF, 0) > 0 and not self.pool.snapshots:
            self.snapshot(self.model.num_timesteps)
        budget = self.cfg["budget"]
        steps = budget["steps"] if budget["steps"] is not None else 10 ** 12
        remaining = max(0, steps - self.model.num_timesteps)
        cb = TrainCallback(self)
        self.bar = tqdm(total=budget["steps"], initial=self.model.num_timesteps, unit="step", unit_scale=True,
                        disable=not self.progress, dynamic_ncols=True)
        self._bar_t0 = (self.model.num_timesteps, self.state["train_seconds"])
        self.started = time.perf_counter()
        try:
            if remaining > 0 and (budget["minutes"] is None or self.state["train_seconds"] < 60 * budget["minutes"]):
                self.model.learn(total_timesteps=remaining, callback=cb, reset_num_timesteps=False,
                                 tb_log_name="ppo")
        finally:
            self.state["train_seconds"] = self.train_seconds()
            self.started = time.perf_counter()
            self.model.save(str(_ckpt(self.run, "latest.zip")))
            self.save_state()
        step = int(self.model.num_timesteps)
        self.model.save(str(_ckpt(self.run, "final.zip")))
        rows = self.run_evaluation(step, self.cfg["evaluation"]["final_games"])
        self.bar.close()
        self.save_state()
        ppo_seconds = self.state["train_seconds"] - self.state.get("pretrain_seconds", 0.0)
        summary = {"run_dir": str(self.run), "steps": step, "train_minutes": self.state["train_seconds"] / 60,
                   "pretrain_minutes": self.state.get("pretrain_seconds", 0.0) / 60,
                   "eval_minutes": self.state["eval_seconds"] / 60,
                   "steps_per_s": step / ppo_seconds if ppo_seconds > 0 else 0.0,
                   "pretrain": self.state.get("pretrain"), "final": rows}
        (self.run / "summary.json").write_text(json.dumps(summary, indent=1))
        return summary


def train(cfg: dict, run_dir=None, resume: bool = False, progress: bool = True) -> dict:
    """Run (or with resume, continue) the training a resolved config describes; returns the summary.

    What `v1919 train CONFIG.yaml` runs: an optional imitation warm start, then MaskablePPO on the
    compiled vector env against the config's opponent pool, with checkpoints and evaluation
    tournaments on the way (docs/training.md).

    Args:
        cfg: a resolved config (`training.config.load_config(path)`).
        run_dir (str | Path | None): the run directory (default `runs/train/<name>`): `config.yaml`, `checkpoints/`
            (`latest.zip`, `final.zip`), `evaluations.csv`, `state.json`, TensorBoard logs.
        resume: go on from `checkpoints/latest.zip` of `run_dir`.
        progress: show progress bars.

    Example:
        ```python
        from training.config import load_config
        from training.learner import train
        summary = train(load_config("configs/train/smoke.yaml"), "runs/train/smoke")
        ```
    """
    if not isinstance(cfg, dict):
        raise ConfigError("train() takes a resolved config (training.config.load_config)")
    return Trainer(cfg, run_dir, resume, progress).train()
