"""Issue 12: `v1919 train-rllib` (training/rllib_*.py): the self-play multi-agent env, the config, one
small training iteration on a local Ray instance with 2 CPUs whose checkpoint loads as the `learned`
agent and plays a game. Skipped without ray[rllib]."""
import json
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.play import run_game, seat_spec  # noqa: E402
from training.config import ConfigError  # noqa: E402
from training.rllib.config import config_from_dict, load_config  # noqa: E402
from training.rllib.env import SelfPlayRLlibEnv, module_of  # noqa: E402
from v1919_env.actions import IllegalActionError  # noqa: E402
from v1919_env.rewards import terminal_rewards  # noqa: E402

SMOKE = "configs/train/rllib_smoke.yaml"
OPPONENTS = {"learner": 0.3, "self": 0.3, "random": 0.2, "rulebot": 0.2}


@pytest.fixture(autouse=True)
def _one_torch_thread():
    torch.set_num_threads(1)


def play_random(env, rng):
    """One episode with random legal actions; (agents seen, the last step's rewards, steps)."""
    obs, _ = env.reset()
    seen, steps = set(), 0
    while True:
        (agent, o), = obs.items()
        assert env.observation_spaces[agent].contains(o)
        seen.add(agent)
        obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        steps += 1
        if term["__all__"] or trunc["__all__"]:
            assert obs == {}
            return seen, rew, steps
        assert set(rew) == set(obs)          # RLlib wants a reward with each observation


def test_env_rewards_every_rllib_seat_with_the_weighted_final_reward():
    reward = {"win_loss": 1.0, "score_margin": 0.5}
    env = SelfPlayRLlibEnv({"num_players": 4, "opponents": OPPONENTS, "pool_size": 2, "seed": 3, "reward": reward})
    rng = np.random.default_rng(0)
    for _ in range(6):
        seen, rew, _ = play_random(env, rng)
        rllib_seats = [a for a in env.seat_role if "/" in a]
        assert seen == set(rllib_seats) == set(rew)          # baseline seats never reach RLlib
        assert sum(module_of(a) == "learner" for a in rllib_seats) >= 1
        scores = env.game.scores()
        want = [terminal_rewards(scores, "win_loss")[p] + 0.5 * terminal_rewards(scores, "score_margin")[p]
                for p in range(4)]
        for seat, a in enumerate(env.seat_role):
            if a in rew:
                assert rew[a] == pytest.approx(want[seat])
    roles = {a.split("/")[-1] for _ in range(200) for a in env.draw_roles()}
    assert roles == {"learner", "past0", "past1", "random", "rulebot"}


def test_env_draws_reproducibly_and_refuses_illegal_actions():
    def roles_and_steps(seed):
        env = SelfPlayRLlibEnv({"num_players": 3, "opponents": OPPONENTS, "seed": seed})
        rng = np.random.default_rng(1)
        return [(play_random(env, rng)[2], tuple(env.seat_role)) for _ in range(3)]

    assert roles_and_steps(5) == roles_and_steps(5)
    assert roles_and_steps(5) != roles_and_steps(6)
    env = SelfPlayRLlibEnv({"num_players": 3, "opponents": {"learner": 1.0}, "seed": 0})
    obs, _ = env.reset()
    (agent, o), = obs.items()
    with pytest.raises(IllegalActionError):
        env.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})
    with pytest.raises(ValueError, match="is to move"):
        env.step({a: 0 for a in env.possible_agents if a != agent})


@pytest.mark.parametrize("patch, match", [
    ({"opponents": {"ismcts2": 1.0}}, "opponents.ismcts2: not a role"),
    ({"opponents": {"human": 1.0}}, "opponents.human: not a role"),
    ({"ppo": {"train_batch_size": 64, "minibatch_size": 128}}, "ppo.minibatch_size: at most"),
    ({"budget": {"iterations": None}}, "budget: give"),
    ({"ray": {"num_env_runners": -1}}, "ray.num_env_runners"),
    ({"evaluation": {"games": 6}}, "evaluation.games: a multiple of num_players"),
    ({"reward": {"win_loss": 1.0, "margin": 1.0}}, "reward: reward kind 'margin' is unknown"),
    ({"policy": {"hiddens": []}}, "policy.hiddens"),
    ({"learner": 1}, "learner: unknown key"),
])
def test_config_errors_name_the_field(patch, match):
    with pytest.raises(ConfigError, match=match):
        config_from_dict(patch)


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
    """`v1919 train-rllib` with 2 local CPUs and one env runner process: one iteration, a
    checkpoint whose learner module loads as the `learned` agent and plays a legal game; the
    snapshot module holds the trained weights; Ray is shut down with nothing left running; --resume
    goes on from the checkpoint."""
    import ray
    from ray.rllib.core.rl_module.rl_module import RLModule

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
    assert len(progress) == 2 and int(progress[1].split(",")[1]) >= cfg["ppo"]["train_batch_size"]
    ckpt = out / "checkpoints" / "iter_000001"
    modules = ckpt / "learner_group" / "learner" / "rl_module"
    learner = RLModule.from_checkpoint(str(modules / "learner")).get_state()
    past = RLModule.from_checkpoint(str(modules / "past0")).get_state()
    assert learner.keys() == past.keys()
    assert all(np.array_equal(learner[k], past[k]) for k in learner)   # snapshot taken after iteration 1
    assert (out / "evaluations.csv").read_text().count("\n") == 2      # header + the final evaluation

    agent = make_agent("learned", path=str(ckpt), deterministic=False, seed=0)
    specs = [seat_spec("learned", {"path": str(ckpt)})] + [seat_spec("random") for _ in range(3)]
    rec = run_game([agent] + [make_agent("random") for _ in range(3)], specs, num_players=4, seed=11)
    assert rec["result"].get("forfeit") is None and len(rec["actions"]) > 100
    # the agent's distribution is the module's masked softmax
    env = SelfPlayRLlibEnv({"num_players": 4, "opponents": {"learner": 1.0}, "seed": 0})
    obs, _ = env.reset()
    (_, o), = obs.items()
    probs = agent.action_probabilities(o["observations"], o["action_mask"].astype(np.int8))
    assert probs.sum() == pytest.approx(1.0) and probs[o["action_mask"] == 0].max() == 0.0
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
    learner2 = RLModule.from_checkpoint(str(out / "checkpoints" / "iter_000002" / "learner_group" / "learner" /
                                            "rl_module" / "learner")).get_state()
    assert any(not np.array_equal(learner[k], learner2[k]) for k in learner)       # it went on learning
    assert json.loads((out / "state.json").read_text())["iteration"] == 2


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
