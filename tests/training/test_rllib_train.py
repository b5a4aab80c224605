"""Issues 12 and 23: `v1919 train-rllib` (training/rllib/): the config, one small training iteration
on a local Ray instance with 2 CPUs and one env runner process stepping the compiled vector env,
whose checkpoint loads as the `learned` agent and plays a game, and --resume. The env runner, the
module and the learner on their own: test_rllib_runner.py. Skipped without ray[rllib]."""
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytestmark = pytest.mark.xdist_group("ray")       # one Ray cluster at a time (pytest -n: one worker runs them all)
torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.arena.play import run_game, seat_spec  # noqa: E402
from training.config import ConfigError  # noqa: E402
from training.rllib.config import config_from_dict, load_config  # noqa: E402
from v1919_env.envs.vector_env import GymVectorEnv  # noqa: E402

SMOKE = "configs/train/rllib_smoke.yaml"


@pytest.fixture(autouse=True)
def _one_torch_thread():
    torch.set_num_threads(1)


@pytest.mark.parametrize("patch, match", [
    ({"opponents": {"ismcts2": 1.0}}, "opponents.ismcts2: not a role"),
    ({"opponents": {"human": 1.0}}, "opponents.human: not a role"),
    ({"ppo": {"train_batch_size": 64, "minibatch_size": 128}}, "ppo.minibatch_size: at most"),
    ({"budget": {"iterations": None}}, "budget: give"),
    ({"ray": {"num_env_runners": -1}}, "ray.num_env_runners"),
    ({"evaluation": {"games": 6}}, "evaluation.games: a multiple of num_players"),
    ({"reward": {"win_loss": 1.0, "margin": 1.0}}, "reward: reward kind 'margin' is unknown"),
    ({"opponents": {"greedy": 1.0}}, "opponents.greedy: not a role; choose from learner, self, random, rulebot"),
    ({"policy": {"hiddens": [64]}}, "policy.hiddens: replaced by trunk, pi and vf"),
    ({"policy": {"trunk": [0]}}, r"policy.trunk\[0\]: must be at least 1, got 0"),
    ({"policy": {"vf": "128"}}, "policy.vf: expected a list of layer widths"),
    ({"ppo": {"kl_coeff": -0.1}}, "ppo.kl_coeff: must be at least 0.0, got -0.1"),
    ({"ray": {"num_env_runners": 2, "num_envs_per_env_runner": 64}, "ppo": {"train_batch_size": 100,
      "minibatch_size": 50}}, "ppo.train_batch_size: at least one step of every game \\(2 env runner\\(s\\) x 64"),
    ({"ray": {"num_envs_per_env_runner": 0}}, "ray.num_envs_per_env_runner: must be at least 1, got 0"),
    ({"learner": 1}, "learner: unknown key"),
])
def test_config_errors_name_the_field(patch, match):
    with pytest.raises(ConfigError, match=match):
        config_from_dict(patch)


def test_every_shipped_rllib_config_is_valid():
    configs = sorted(Path("configs/train").glob("rllib_*.yaml"))
    assert {"rllib_smoke.yaml", "rllib_4p.yaml", "rllib_parity.yaml"} <= {p.name for p in configs}
    for p in configs:
        load_config(p)


def test_resume_accepts_a_run_saved_before_a_config_key_existed_and_refuses_a_changed_one(tmp_path):
    from training.rllib.backend import SNAPSHOTS_FILE, STATE_FILE, RLlibRunError, check_run

    cfg = config_from_dict({"budget": {"iterations": 2}})
    ck = tmp_path / "checkpoints" / "iter_2"
    ck.mkdir(parents=True)
    (ck / SNAPSHOTS_FILE).write_bytes(b"")
    saved = json.loads(json.dumps(cfg))
    del saved["evaluation"]["deterministic"]         # as if the run predates that key
    (tmp_path / STATE_FILE).write_text(json.dumps({"config": saved, "checkpoint": str(ck), "iteration": 2}))
    assert check_run(cfg, tmp_path, resume=True)["iteration"] == 2
    cfg["budget"] = {"iterations": 5, "steps": None, "minutes": None}    # the budget may change
    check_run(cfg, tmp_path, resume=True)
    cfg["ppo"]["gamma"] = 0.9
    with pytest.raises(RLlibRunError, match="differs from the run's in ppo"):
        check_run(cfg, tmp_path, resume=True)


def test_cli_rejects_a_bad_config_before_starting_ray(tmp_path, capsys):
    from v1919_env.cli import main

    bad = tmp_path / "bad.yaml"
    bad.write_text("opponents: {nobody: 1.0}\n")
    assert main(["train-rllib", str(bad), "--num-cpus", "2"]) == 2
    assert "opponents.nobody" in capsys.readouterr().err


def _ray_children() -> list:
    import psutil

    names = ("raylet", "gcs_server", "ray::", "default_worker", "dashboard")
    return [p for p in psutil.Process().children(recursive=True)
            if any(n in " ".join(p.cmdline()) for n in names) and p.is_running()]


def test_one_iteration_on_local_ray_checkpoints_a_learned_agent(tmp_path):
    """`v1919 train-rllib` with 2 local CPUs and one env runner process (16 games of the vector
    env): one iteration, a checkpoint whose module loads as the `learned` agent and plays a legal
    game; the snapshot slot (snapshots.npz) holds the trained weights; Ray is shut down with
    nothing left running; --resume goes on from the checkpoint, its snapshots included."""
    import ray
    from ray.rllib.core.rl_module.rl_module import RLModule

    from agents.rllib_module import MaskedPPOModule
    from training.rllib.backend import load_snapshots
    from v1919_env.cli import main

    out = tmp_path / "run"
    try:
        assert main(["train-rllib", SMOKE, "--out", str(out), "--num-cpus", "2", "--no-progress"]) == 0
    finally:
        ray.shutdown()
    assert not ray.is_initialized()
    deadline = time.time() + 20
    while _ray_children() and time.time() < deadline:
        time.sleep(0.5)
    assert _ray_children() == []
    cfg = load_config(SMOKE)
    progress = (out / "progress.csv").read_text().splitlines()
    head = progress[0].split(",")
    row = dict(zip(head, progress[1].split(",")))
    assert len(progress) == 2 and int(row["env_steps"]) == cfg["ppo"]["train_batch_size"]   # 16 games x 32 steps
    assert int(row["episodes"]) >= 0 and float(row["sample_seconds"]) > 0 and float(row["learn_seconds"]) > 0
    ckpt = out / "checkpoints" / "iter_000001"
    module = RLModule.from_checkpoint(str(ckpt / "learner_group" / "learner" / "rl_module" / "default_policy"))
    assert isinstance(module, MaskedPPOModule)
    learner = module.get_state(inference_only=True)
    past = load_snapshots(ckpt / "snapshots.npz")
    assert list(past) == ["past0"] and past["past0"].keys() == learner.keys()
    assert all(np.array_equal(learner[k], past["past0"][k]) for k in learner)   # snapshot taken after iteration 1
    assert (out / "evaluations.csv").read_text().count("\n") == 2      # header + the final evaluation

    agent = make_agent("learned", path=os.path.relpath(ckpt), deterministic=False, seed=0)   # relative: resolved
    specs = [seat_spec("learned", {"path": str(ckpt)})] + [seat_spec("random") for _ in range(3)]
    rec = run_game([agent] + [make_agent("random") for _ in range(3)], specs, num_players=4, seed=11)
    assert rec["result"].get("forfeit") is None and len(rec["actions"]) > 100
    # the agent's distribution is the module's masked softmax
    obs, _ = GymVectorEnv(num_envs=1, seed=0).reset()
    o, m = obs["observation"][0], obs["action_mask"][0]
    probs = agent.action_probabilities(o, m)
    with torch.no_grad():
        logits = module.logits({"observation": torch.as_tensor(o[None]), "action_mask": torch.as_tensor(m[None])})
    assert probs.sum() == pytest.approx(1.0) and probs[m == 0].max() == 0.0
    np.testing.assert_allclose(probs, torch.softmax(logits[0].double(), -1).numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="not an RLlib checkpoint"):
        make_agent("learned", path=str(out / "checkpoints"))

    # --resume: one more iteration from the checkpoint; a changed config is refused
    changed = tmp_path / "changed.yaml"
    changed.write_text(Path(SMOKE).read_text().replace("seed: 0", "seed: 1"))
    try:
        assert main(["train-rllib", str(changed), "--out", str(out), "--resume", "--num-cpus", "2"]) == 2
        assert main(["train-rllib", SMOKE, "--out", str(out), "--resume", "--iterations", "2", "--num-cpus", "2",
                     "--no-progress"]) == 0
    finally:
        ray.shutdown()
    rows = (out / "progress.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "2"]
    ckpt2 = out / "checkpoints" / "iter_000002"
    learner2 = RLModule.from_checkpoint(str(ckpt2 / "learner_group" / "learner" / "rl_module" /
                                            "default_policy")).get_state(inference_only=True)
    assert any(not np.array_equal(learner[k], learner2[k]) for k in learner)       # it went on learning
    past2 = load_snapshots(ckpt2 / "snapshots.npz")["past0"]
    assert all(np.array_equal(learner2[k], past2[k]) for k in learner2)    # the slot refreshed after iteration 2
    assert json.loads((out / "state.json").read_text())["iteration"] == 2
    (ckpt2 / "snapshots.npz").unlink()
    try:
        assert main(["train-rllib", SMOKE, "--out", str(out), "--resume", "--iterations", "3", "--num-cpus", "2"]) == 2
    finally:
        ray.shutdown()


@pytest.mark.slow
def test_one_iteration_on_a_cluster_by_address(tmp_path):
    """`ray start --head` (its own processes, token authentication as Ray sets it up), then
    `RAY_AUTH_MODE=token v1919 train-rllib --address` in a process of its own: it joins the cluster
    and trains an iteration; the head's processes are stopped by id, none left running."""
    import contextlib
    import os
    import signal
    import socket
    import subprocess
    import sys

    import psutil

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ray_bin = Path(sys.executable).with_name("ray")
    head = subprocess.Popen([str(ray_bin), "start", "--head", f"--port={port}", "--num-cpus=2",
                             "--include-dashboard=false", "--block"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not any(
                c.name().startswith("gcs_server") for c in psutil.Process(head.pid).children(recursive=True)):
            time.sleep(0.5)
        out = tmp_path / "run"
        cmd = [sys.executable, "-m", "v1919_env.cli", "train-rllib", SMOKE, "--out", str(out),
               "--address", f"127.0.0.1:{port}", "--no-progress"]
        run = subprocess.run(cmd, env={**os.environ, "RAY_AUTH_MODE": "token"}, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        assert (out / "checkpoints" / "iter_000001" / "learner_group").is_dir()
        assert "Connected to Ray cluster" in run.stderr
    finally:
        procs = psutil.Process(head.pid).children(recursive=True) if head.poll() is None else []
        os.killpg(head.pid, signal.SIGTERM)
        for p in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                p.terminate()
        _, alive = psutil.wait_procs(procs, timeout=10)
        for p in alive:
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        head.wait(timeout=30)
        psutil.wait_procs(alive, timeout=10)
        marker = Path("/tmp/ray/ray_current_cluster")      # `ray start` leaves its address for ray.init()
        if marker.exists() and marker.read_text().strip().endswith(f":{port}"):
            marker.unlink()
    assert not [p for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
