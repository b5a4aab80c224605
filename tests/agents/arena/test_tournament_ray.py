"""Tournaments on Ray (agents/arena/tournament/ray_pool.py, `v1919 tournament CONFIG --ray [ADDRESS]`): the
games of a Ray run are the games of the local pool, record by record (forfeits and workers killed by
their agent included); a run stopped by Ctrl-C or SIGTERM leaves no process of its Ray instance and
resumes exactly; a Ray worker that dies fails only its game; a cluster of two nodes started with
`ray start` (a head and a second node, one CPU each) plays on both; an unreachable address is a
one-line error. The commands run in processes of their own, as a user runs them."""
from __future__ import annotations

import contextlib
import csv
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[rllib]'); --ray runs need it")
pytestmark = pytest.mark.xdist_group("ray")       # one Ray cluster at a time (pytest -n: one worker runs them all)

from helpers import agent_fixtures  # noqa: E402,F401  (registers the test agents)
from helpers.processes import descendants, is_running, wait_for_games  # noqa: E402
from agents.arena.tournament import TournamentError, config_from_dict, play_games, report  # noqa: E402
from agents.arena.tournament.ray_pool import check_address  # noqa: E402
from v1919_env.cli import main  # noqa: E402
from v1919_env.records import read_games, replay, result_differences  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]), RAY_AUTH_MODE="token")
TIMING_COLUMNS = ("ms_per_decision", "cpu_ms_per_decision")


def cfg_dict(gate: Path, games: int = 8, **agents_over) -> dict:
    """Four fast agents, two of them forfeiting (an agent that raises, one that kills its worker
    process at some seeds), one waiting at the `gate` (helpers/agent_fixtures.py: test_gate)."""
    agents = ["rulebot", {"name": "test_raises", "options": {"at": 40}},
              {"name": "test_exit", "label": "kill", "options": {"every": 3, "at": 20, "signum": int(signal.SIGKILL)}},
              {"name": "test_gate", "options": {"gate": str(gate)}}]
    for k, a in agents_over.items():
        agents[int(k[1:])] = a
    return {"name": "ray", "num_players": 4, "games": games, "seed": 11, "workers": 2,
            "modules": ["helpers.agent_fixtures"], "isolate": "none", "agents": agents}


def gate(tmp_path: Path, passes: int = 0, open_: bool = False) -> Path:
    g = tmp_path / "gate"
    g.mkdir(exist_ok=True)
    for k in range(passes):
        (g / f"pass{k:03d}").touch()
    if open_:
        (g / "open").touch()
    return g


def write_cfg(tmp_path: Path, d: dict) -> Path:
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(d))
    return p


def without_timing(recs: list[dict]) -> dict:
    return {r["game"]: {k: v for k, v in r.items() if k != "timing"} for r in recs}


def table_without_timing(out: Path) -> list[dict]:
    with open(out / "results.csv") as fh:
        return [{k: v for k, v in row.items() if k not in TIMING_COLUMNS} for row in csv.DictReader(fh)]


def local_reference(d: dict, out: Path) -> dict:
    """The games of the config played by the local pool of worker processes (the gate open)."""
    cfg = config_from_dict(d)
    run = play_games(cfg, out, workers=2, progress=False)
    assert run["failed"] == {}
    report(cfg, out)
    return without_timing(read_games(out / "games.jsonl"))


def v1919(*args: str, env=None, cwd=None) -> subprocess.Popen:
    return subprocess.Popen([str(BIN / "v1919"), *args, "--no-progress"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, env=env or ENV, cwd=cwd)


def finish(proc: subprocess.Popen, timeout: float = 300) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


# ---------------------------------------------------------------------------------------- processes
def running(procs: list[tuple[int, str]]) -> list[tuple[int, str]]:
    return [k for k in procs if is_running(*k)]


def wait_gone(procs: list[tuple[int, str]], limit: float = 20) -> list[tuple[int, str]]:
    deadline = time.monotonic() + limit
    while running(procs) and time.monotonic() < deadline:
        time.sleep(0.1)
    return running(procs)


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


# ---------------------------------------------------------------------------------------- no Ray needed
def test_addresses_and_unreachable_clusters_are_one_line_errors(tmp_path, capsys):
    assert [check_address(a) for a in ("local", "auto", "10.0.0.5:6379", "head.example:1")] == \
        ["local", "auto", "10.0.0.5:6379", "head.example:1"]
    for bad in ("c.yaml", "host", "host:0", "host:70000", ":6379", "ray://h:1"):
        with pytest.raises(ValueError, match="expected auto or HOST:PORT"):
            check_address(bad)
    cfg = write_cfg(tmp_path, cfg_dict(gate(tmp_path, open_=True), games=4))
    with socket.socket() as s:                  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "o"), "--ray", f"127.0.0.1:{port}",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (f"error: cannot reach a Ray cluster at 127.0.0.1:{port} (Connection refused); "
                                    f"start its head there with `ray start --head --port {port}`, or check the address")
    assert time.monotonic() - t0 < 30
    assert not (tmp_path / "o" / "games.jsonl").read_text()
    with pytest.raises(SystemExit) as e:        # the config after a bare --ray is taken for its address
        main(["tournament", "--ray", str(cfg)])
    assert e.value.code == 2
    assert "argument --ray: expected auto or HOST:PORT" in capsys.readouterr().err
    with pytest.raises(TournamentError, match="ray: expected auto or HOST:PORT"):
        play_games(config_from_dict(cfg_dict(gate(tmp_path, open_=True), games=4)), tmp_path / "p", ray="h")


def test_the_evaluation_config_takes_a_ray_address():
    from training.config import ConfigError, config_from_dict as train_config

    assert train_config({"budget": {"steps": 8}})["evaluation"]["ray"] is None
    cfg = train_config({"budget": {"steps": 8}, "evaluation": {"ray": "head:6379"}})
    assert cfg["evaluation"]["ray"] == "head:6379"
    with pytest.raises(ConfigError, match="evaluation.ray: null .* got 'yes'"):
        train_config({"budget": {"steps": 8}, "evaluation": {"ray": "yes"}})


# ---------------------------------------------------------------------------------------- a local Ray instance
def test_ray_workers_that_cannot_start_stop_the_run_with_their_error(tmp_path, monkeypatch):
    """Every GameHost fails in its constructor (a node without the project): the run stops with the
    error, no game is played or recorded, and the Ray instance it started is shut down."""
    import ray

    from agents.arena.tournament.ray_pool import RayPool
    from helpers.ray_hosts import BrokenHost

    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])     # the Ray workers import helpers.ray_hosts
    monkeypatch.setattr(RayPool, "host_class", BrokenHost)
    cfg = config_from_dict(cfg_dict(gate(tmp_path, open_=True), games=4))
    with pytest.raises(TournamentError, match=r"no Ray worker is left to play the games: a Ray worker could not "
                                              r"start \(.*No module named 'agents' \(a node without the project\)"):
        play_games(cfg, tmp_path / "out", workers=2, progress=False, ray="local")
    assert not ray.is_initialized()
    assert not (tmp_path / "out" / "games.jsonl").read_text()


def test_an_evaluation_on_ray_plays_the_games_of_the_local_one(tmp_path, caplog):
    """training/evaluate.py with `evaluation.ray: local`: the shipped checkpoint against two opponents,
    both tournaments on one Ray instance (1 CPU) started for the evaluation and shut down after it:
    the second waits for the CPU the first one's worker frees. The rows and the records are those
    of the evaluation in a worker process."""
    pytest.importorskip("sb3_contrib")
    import ray

    from training.config import config_from_dict as train_config
    from training.evaluate import evaluate

    assert not ray.is_initialized()
    weights = ROOT / "agents" / "weights" / "ppo_4p.zip"
    rows = {}
    for where in (None, "local"):
        cfg = train_config({"budget": {"steps": 8}, "evaluation": {
            "opponents": ["random", "rulebot"], "workers": 1, "ray": where}})
        with caplog.at_level(logging.INFO, logger="agents.arena.tournament"):
            rows[where] = evaluate(weights, cfg, tmp_path / str(where), games=4, seed=5)
        assert not ray.is_initialized()
    # both tournaments used the instance the evaluation started
    assert [r.getMessage() for r in caplog.records if r.name == "agents.arena.tournament.ray_pool"].count(
        "Ray: using the Ray instance this process is connected to") == 2
    assert rows[None] == rows["local"] and [r["opponent"] for r in rows[None]] == ["random", "rulebot"]
    for opp in ("random", "rulebot"):
        assert without_timing(read_games(tmp_path / "local" / opp / "games.jsonl")) == \
            without_timing(read_games(tmp_path / "None" / opp / "games.jsonl"))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_local_ray_instance_stopped_and_resumed_plays_the_local_games_and_leaves_no_process(tmp_path):
    """`--ray` (a Ray instance started for the run, 2 CPUs): stopped by Ctrl-C (SIGINT to the process
    group) after 3 games, then by SIGTERM after 6, then run to its end. Each time every process the
    command started (Ray's own, its workers and their game processes) is gone when it ends; the
    exit codes and messages are the local pool's; the 16 records are the local pool's but their
    timing, and so is the table but its timing columns."""
    g = gate(tmp_path, passes=3)
    d = cfg_dict(g, games=16)
    cfg, out = write_cfg(tmp_path, d), tmp_path / "out"
    games = out / "games.jsonl"
    for stop, kept, more in ((signal.SIGINT, 3, 3), (signal.SIGTERM, 6, 9)):
        proc = v1919("tournament", str(cfg), "--out", str(out), "--ray")
        try:
            wait_for_games(games, kept, proc)
            procs = descendants(proc.pid)
            names = " ".join(cmdline(p) for p, _ in procs)
            assert "raylet" in names and "gcs_server" in names and "ray::GameHost" in names, names
            t0 = time.monotonic()
            if stop == signal.SIGINT:
                os.killpg(proc.pid, signal.SIGINT)          # Ctrl-C: the whole foreground group
            else:
                os.kill(proc.pid, signal.SIGTERM)
            stdout, stderr = proc.communicate(timeout=120)
            seconds = time.monotonic() - t0
            left = wait_gone(procs)
        finally:
            finish(proc)
        word = "interrupted" if stop == signal.SIGINT else "terminated"
        assert proc.returncode == 128 + stop, stderr
        assert f"{word}: {kept} of 16 games kept in {games}; run the same command again to resume" in stderr
        assert seconds < 30, seconds
        assert left == [], [cmdline(p) for p, _ in left]
        assert len(read_games(games)) == kept
        for k in range(more):
            (g / f"pass{kept}_{k:03d}").touch()
    proc = v1919("tournament", str(cfg), "--out", str(out), "--ray")
    try:                        # the last game waits at the gate: the run's processes are seen, then it ends
        wait_for_games(games, 15, proc)
        procs = descendants(proc.pid)
        (g / "open").touch()
        stdout, stderr = proc.communicate(timeout=300)
        left = wait_gone(procs)
    finally:
        finish(proc)
    assert proc.returncode == 0, stderr
    assert "played 10 games" in stdout and "on 1 Ray node(s)" in stdout
    assert f"resuming: 6 of 16 games already in {games}" in stderr
    assert "Ray: 2 game workers (1 CPU each) on a cluster of 1 node, 2 CPUs" in stderr
    assert left == [], [cmdline(p) for p, _ in left]
    recs = read_games(games)
    want = local_reference(d, tmp_path / "local")
    assert without_timing(recs) == want
    assert any(r["result"]["forfeit"] and "killed by SIGKILL" in r["result"]["forfeit"]["reason"] for r in recs)
    assert any(r["result"]["forfeit"] and "raised RuntimeError" in r["result"]["forfeit"]["reason"] for r in recs)
    assert table_without_timing(out) == table_without_timing(tmp_path / "local")
    for r in recs[:3]:
        assert result_differences(r, replay(r)) == []


# ---------------------------------------------------------------------------------------- a cluster of two nodes
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_nodes(address: str, n: int, limit: float = 120) -> None:
    code = ("import ray, time, sys\n"
            f"ray.init(address={address!r}, log_to_driver=False)\n"
            f"t0 = time.time()\n"
            f"while len([x for x in ray.nodes() if x['Alive']]) < {n} and time.time() - t0 < {limit}:\n"
            "    time.sleep(0.5)\n"
            f"sys.exit(0 if len([x for x in ray.nodes() if x['Alive']]) >= {n} else 1)\n")
    r = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=limit + 60)
    assert r.returncode == 0, r.stderr[-2000:]


@pytest.fixture(scope="module")
def cluster():
    """`ray start --head` and a second node `ray start --address HEAD` on this machine, one CPU each,
    in a temp folder of their own (never /tmp/ray, where other clusters may run); stopped by process
    id (SIGTERM to each `ray start --block`), every process of theirs checked gone."""
    temp = tempfile.mkdtemp(prefix="v1919ray")          # short: Ray's socket paths must fit 107 bytes
    port = _free_port()
    address = f"127.0.0.1:{port}"
    starts = []
    try:
        starts.append(subprocess.Popen([str(BIN / "ray"), "start", "--head", f"--port={port}", "--num-cpus=1",
                                        "--include-dashboard=false", f"--temp-dir={temp}", "--block"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                                       env=ENV, cwd=temp))
        deadline = time.time() + 120
        while True:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            assert time.time() < deadline and starts[0].poll() is None, "the head did not start"
            time.sleep(0.3)
        starts.append(subprocess.Popen([str(BIN / "ray"), "start", f"--address={address}", "--num-cpus=1",
                                        "--block"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       start_new_session=True, env=ENV, cwd=temp))
        _wait_for_nodes(address, 2)
        yield Cluster(address, [s.pid for s in starts])
    finally:
        procs = [p for s in starts for p in descendants(s.pid)]
        for s in reversed(starts):                      # the second node first, then the head
            s.send_signal(signal.SIGTERM)
            try:
                s.wait(timeout=60)
            except subprocess.TimeoutExpired:
                s.kill()
                s.wait()
        for pid, _ in wait_gone(procs, 30):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)
        assert wait_gone(procs, 10) == []


class Cluster(str):
    """The cluster's address, with the ids of its `ray start` processes (`pids`): its processes, and
    only its, descend from them."""

    def __new__(cls, address: str, pids: list[int]):
        self = super().__new__(cls, address)
        self.pids = pids
        return self


def _hosts(address_procs: list[tuple[int, str]]) -> list[tuple[int, str]]:
    return [p for p in address_procs if cmdline(p[0]).startswith("ray::GameHost")]


def test_a_cluster_joined_by_address_plays_the_local_games_on_both_nodes(tmp_path, cluster):
    """`--ray HOST:PORT`: a GameHost on each node (one CPU each), the same records as the local pool
    (an agent that raises, one that kills its worker process: forfeits judged on the node), the
    GameHosts and their game processes gone after the command; the cluster keeps running."""
    g = gate(tmp_path, passes=6)
    d = cfg_dict(g, games=8)
    cfg, out = write_cfg(tmp_path, d), tmp_path / "out"
    proc = v1919("tournament", str(cfg), "--out", str(out), "--ray", cluster)
    try:
        wait_for_games(out / "games.jsonl", 6, proc)
        time.sleep(0.5)
        hosts = _hosts([p for s in cluster.pids for p in descendants(s)])      # this cluster's, not another test's
        hosted = [k for h, _ in hosts for k in descendants(h)]
        (g / "open").touch()
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        finish(proc)
    assert proc.returncode == 0, stderr
    assert len(hosts) == 2 and len(hosted) >= 2, (hosts, hosted)
    assert "played 8 games" in stdout and "on 2 Ray node(s)" in stdout, stdout
    assert "Ray: 2 game workers (1 CPU each) on a cluster of 2 nodes, 2 CPUs" in stderr
    assert wait_gone(hosts + hosted) == []
    recs = read_games(out / "games.jsonl")
    assert without_timing(recs) == local_reference(d, tmp_path / "local")
    assert any(r["result"]["forfeit"] and "killed by SIGKILL" in r["result"]["forfeit"]["reason"] for r in recs)
    assert table_without_timing(out) == table_without_timing(tmp_path / "local")


def test_a_ray_worker_that_dies_fails_its_game_and_a_rerun_plays_it(tmp_path, cluster):
    """An agent kills the GameHost it plays under (a node lost, as the driver sees it): that game
    fails (not recorded, exit code 1), the other host plays the rest; the rerun (`--ray auto`,
    finding the cluster through RAY_ADDRESS) plays that game, and the records are the local pool's.
    The agent's folder is a path relative to the command's directory: the cluster's workers (started
    where `ray start` ran) play from there."""
    mark = tmp_path / "mark"
    mark.mkdir()
    d = cfg_dict(gate(tmp_path, open_=True), games=8,
                 a2={"name": "test_kill_host", "label": "killer", "options": {"mark": "mark"}})
    cfg, out = write_cfg(tmp_path, d), tmp_path / "out"
    proc = v1919("tournament", str(cfg), "--out", str(out), "--ray", cluster, cwd=tmp_path)
    stdout, stderr = finish(proc)
    assert (mark / "killed").exists(), stderr
    assert proc.returncode == 1, stderr
    assert "played 7 games" in stdout, (stdout, stderr)
    assert "1 game(s) failed and were not recorded (rerun to retry): game " in stderr
    assert "its Ray worker died (" in stderr
    assert len(read_games(out / "games.jsonl")) == 7
    proc = v1919("tournament", str(cfg), "--out", str(out), "--ray", "auto", env=dict(ENV, RAY_ADDRESS=cluster),
                 cwd=tmp_path)
    stdout, stderr = finish(proc)
    assert proc.returncode == 0, stderr
    assert "played 1 games" in stdout and "resuming: 7 of 8 games" in stderr
    assert without_timing(read_games(out / "games.jsonl")) == local_reference(d, tmp_path / "local")


@pytest.mark.slow                   # Ray tries the connection for about 20 s before it says why
def test_a_cluster_asking_for_its_token_is_a_one_line_error(tmp_path, cluster):
    """`ray start` clusters use token authentication: without RAY_AUTH_MODE=token the command says so
    in one line (exit 2) and leaves no game written."""
    cfg = write_cfg(tmp_path, cfg_dict(gate(tmp_path, open_=True), games=4))
    env = {k: v for k, v in ENV.items() if k != "RAY_AUTH_MODE"}
    t0 = time.monotonic()
    proc = v1919("tournament", str(cfg), "--out", str(tmp_path / "out"), "--ray", cluster, env=env)
    stdout, stderr = finish(proc, timeout=120)
    assert proc.returncode == 2, stderr
    assert stderr.splitlines()[-1] == (f"error: cannot join the Ray cluster at {cluster}: it asks for its token "
                                       f"(token authentication, the default of `ray start`); run with "
                                       f"RAY_AUTH_MODE=token and the head's ~/.ray/auth_token copied to this machine")
    assert time.monotonic() - t0 < 60
    assert not (tmp_path / "out" / "games.jsonl").read_text()
