"""Tournaments: config validation, the seating schedule, statistics, reports from games.jsonl,
worker processes, forfeits (an agent that kills its worker process included), and stopping on
Ctrl-C or SIGTERM with no worker left, then resuming exactly (real subprocesses and signals)."""
from __future__ import annotations

import contextlib
import csv
import json
import logging
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from itertools import permutations
from pathlib import Path

import pytest
import yaml

from helpers import agent_fixtures  # noqa: F401  (registers the test agents)
from helpers.processes import children, is_running, wait_for_games
from v1919_env.records import read_games, record_digest, replay, result_differences
from agents.arena.tournament import (ConfigError, TournamentError, config_from_dict, finished_games, play_games,
                               report, schedule_period, seating)
from agents.arena.tournament.stats import agent_rows, wilson_interval
from agents.arena.tournament.worker import (BUILDING, CHOOSING, STEPPING, Progress, dead_worker_outcome, make_job,
                                      play_job)
from v1919_env.cli import main

ROOT = Path(__file__).resolve().parents[3]
V1919 = Path(sys.executable).with_name("v1919")


def cfg_dict(**over):
    d = {"name": "t", "num_players": 4, "games": 8, "seed": 3, "workers": 0,
         "isolate": "none",      # the test agents of helpers.agent_fixtures play in process (worker failures)
         "agents": ["random", {"name": "random", "label": "r2"}, {"name": "random", "label": "r3", "options": {}},
                    "random:seed=7"]}
    d.update(over)
    return d


# ---------------------------------------------------------------------- schedule
@pytest.mark.parametrize("m, n", [(4, 4), (3, 3), (4, 3), (5, 4), (6, 3), (5, 3)])
def test_every_agent_plays_every_seat_equally_often(m, n):
    period = schedule_period(m, n)
    for cycles in (1, 3):
        seats = Counter()
        for k in range(period * cycles):
            s = seating(k, m, n)
            assert len(set(s)) == n and all(0 <= a < m for a in s)
            seats.update((a, p) for p, a in enumerate(s))
        assert set(seats.values()) == {period * cycles * n // m // n}, seats
        assert len(seats) == m * n


def test_all_seat_permutations_with_four_agents():
    assert schedule_period(4, 4) == 4
    assert {seating(k, 4, 4) for k in range(24)} == set(permutations(range(4)))
    assert {seating(k, 3, 3) for k in range(6)} == set(permutations(range(3)))
    with pytest.raises(ValueError, match="cannot fill"):
        schedule_period(2, 3)


# ---------------------------------------------------------------------- config validation
@pytest.mark.parametrize("over, message", [
    ({"gmes": 8}, "gmes: unknown key; known: name, num_players,"),
    ({"games": "ten"}, "games: expected a positive integer, a multiple of the schedule period, got 'ten'"),
    ({"games": 8.0}, "games: expected a positive integer"),
    ({"seed": True}, "seed: expected an integer"),
    ({"duplicate": "yes"}, "duplicate: expected true or false"),
    ({"name": []}, "name: expected a non-empty string"),
    ({"name": 1.5}, "name: expected a non-empty string"),
    ({"name": float("nan")}, "name: expected a non-empty string"),
    ({"name": " "}, "name: expected a non-empty string"),
    ({"agents": [{"name": "random", "label": ""}, "a", "b", "c"]}, "agents[0].label: expected a non-empty string"),
    ({"games": 0}, "games: must be at least 1"),
    ({"games": 10}, "games: 10 is not a multiple of the schedule period 4"),
    ({"num_players": 5}, "num_players: expected 2, 3 or 4, got 5"),
    ({"num_players": True}, "num_players: expected 2, 3 or 4"),
    ({"negotiation": "yes"}, "negotiation: expected true or false"),
    ({"variant": "huge"}, "variant: unknown variant 'huge'"),
    ({"workers": -1}, "workers: must be at least 0, got -1"),
    ({"modules": ["no_such_module_x"]}, "modules[0]: cannot import 'no_such_module_x'"),
    ({"deals": "hidden"}, "deals: "),
    ({"sandbox": "maybe"}, "sandbox: "),
    ({"agents": [{"cmd": "true", "label": "b", "max_procs": 0}, "a", "b2", "c"]}, "agents[0].max_procs: must be at least 1"),
    ({"agents": [{"cmd": "true", "label": "b", "disk_mb": -3}, "a", "b2", "c"]}, "agents[0].disk_mb: must be at least 1"),
    ({"agents": [{"cmd": "true", "label": "b", "files": "x"}, "a", "b2", "c"]}, "agents[0].files: "),
    ({"agents": ["random", "random", "random", "random"]}, "label(s) 'random' used twice"),
    ({"agents": ["random", "random:seed=1"]}, "2 agent(s) for 4 seats"),
    ({"agents": ["random", "rand0m", "a", "b"]}, "agents[1].name: unknown agent 'rand0m'; agents: "),
    ({"agents": [{"name": "random", "options": {"sed": 1}}, "a", "b", "c"]},
     "agents[0].options: agent 'random' has no option 'sed'; its options: seed=None"),
    ({"agents": [{"name": "random", "lable": "x"}, "a", "b", "c"]}, "agents[0].lable: unknown key; known: name, cmd, memory_mb, cpu_s, max_procs, disk_mb, files, label, options, clock"),
    ({"agents": [{"label": "x"}, "a", "b", "c"]}, "agents[0].name: missing"),
    ({"agents": [{"name": "random", "options": [1]}, "a", "b", "c"]}, "agents[0].options: expected a mapping"),
    ({"agents": [5, "a", "b", "c"]}, "agents[0]: expected an agent name"),
    ({"agents": ["random", "human", "random:seed=1", "random:seed=2"]}, "agents[1].name: 'human' needs a person"),
])
def test_config_errors_name_the_field(over, message):
    with pytest.raises(ConfigError) as e:
        config_from_dict(cfg_dict(**over))
    assert message in str(e.value)


def test_config_file_errors(tmp_path, capsys):
    p = tmp_path / "c.yaml"
    p.write_text("num_players: [4\n")
    assert main(["tournament", str(p)]) == 2
    assert "not valid YAML" in capsys.readouterr().err
    p.write_text(yaml.safe_dump(cfg_dict(games=6)))
    assert main(["tournament", str(p)]) == 2
    assert f"{p}: games: 6 is not a multiple" in capsys.readouterr().err


def test_shipped_configs_are_valid_once_their_agents_exist():
    from agents import agent_names

    for path in sorted((ROOT / "configs" / "tournament").glob("*.yaml")):
        raw = yaml.safe_load(path.read_text())
        names = {a if isinstance(a, str) else a["name"] for a in raw["agents"]}
        if names <= set(agent_names()):
            assert config_from_dict(raw).games >= 1
        if path.stem.startswith("full"):
            assert raw["games"] >= 400 and names == {"random", "rulebot", "greedy", "ismcts"}


# ---------------------------------------------------------------------- statistics
def test_wilson_interval():
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(2.5, 10)[0] < 0.25 < wilson_interval(2.5, 10)[1]


def _fake(game, labels, ranks, forfeit=None):
    scores = [{"seat": p, "total": 10 * (5 - r), "issues": 5 - r, "flags": 0, "strategy": 0, "happiness": 0}
              for p, r in enumerate(ranks)]
    return {"game": game, "seats": [{"label": x} for x in labels], "timing": None,
            "result": {"ranks": ranks, "winners": [p for p, r in enumerate(ranks) if r == 1], "scores": scores,
                       "forfeit": forfeit, "truncated": False}}


def test_agent_rows_count_shared_wins_fractionally_and_rate_the_best_first():
    recs = [_fake(k, ["a", "b", "c"], [1, 2, 3]) for k in range(6)]
    recs.append(_fake(6, ["c", "b", "a"], [1, 1, 3]))                 # b and c share a win
    recs.append(_fake(7, ["a", "b", "c"], [3, 1, 2], forfeit={"seat": 0}))
    recs[0]["timing"] = {"decisions": [4, 2, 1], "seconds": [0.4, 0.1, 0.0], "cpu_seconds": [0.2, 0.1, 0.0]}
    rows = {r["agent"]: r for r in agent_rows(recs, ["c", "b", "a"])}
    assert [r["agent"] for r in agent_rows(recs, ["c", "b", "a"])] == ["a", "b", "c"]
    assert rows["a"]["wins"] == 6 and rows["b"]["wins"] == 1.5 and rows["c"]["wins"] == 0.5
    assert sum(r["wins"] for r in rows.values()) == len(recs)
    assert rows["a"]["forfeits"] == 1 and rows["a"]["games"] == 8
    assert rows["a"]["mean_total"] == pytest.approx((6 * 40 + 20) / 7)       # the forfeited game left out
    assert rows["a"]["mean_rank"] == pytest.approx((6 * 1 + 3 + 3) / 8)
    assert rows["a"]["mu"] > rows["b"]["mu"] > rows["c"]["mu"]
    assert rows["a"]["ms_per_decision"] == pytest.approx(100) and rows["a"]["cpu_ms_per_decision"] == pytest.approx(50)


def test_agent_rows_are_ordered_by_win_rate_not_by_the_openskill_ordinal():
    """Issue 21: results.md was sorted by the OpenSkill ordinal, which can contradict the win rates.
    Here a wins 3 of 6 games, b 2 and c 1, but a's wins come first and OpenSkill weighs the game
    order: its ordinals put them the other way round. Equal win rates go by the better mean rank."""
    recs = [_fake(0, ["a", "b", "c"], [1, 3, 2]), _fake(1, ["a", "b", "c"], [1, 3, 2]),
            _fake(2, ["a", "b", "c"], [1, 3, 2]), _fake(3, ["a", "b", "c"], [3, 2, 1]),
            _fake(4, ["a", "b", "c"], [3, 1, 2]), _fake(5, ["a", "b", "c"], [3, 1, 2])]
    rows = agent_rows(recs, ["c", "b", "a"])
    assert [(r["agent"], r["wins"]) for r in rows] == [("a", 3), ("b", 2), ("c", 1)]
    assert rows[0]["ordinal"] < rows[1]["ordinal"] < rows[2]["ordinal"]       # OpenSkill: c, b, a
    tied = agent_rows([_fake(0, ["a", "b", "c"], [1, 3, 2]), _fake(1, ["a", "b", "c"], [2, 1, 3])], ["b", "c", "a"])
    assert [(r["agent"], r["wins"], r["mean_rank"]) for r in tied] == [("a", 1, 1.5), ("b", 1, 2.0), ("c", 0, 2.5)]


# ---------------------------------------------------------------------- running
def test_tournament_in_process_reports_from_games_jsonl(tmp_path):
    cfg = config_from_dict(cfg_dict())
    run = play_games(cfg, tmp_path, progress=False)
    assert run["played"] == 8 and not run["failed"]
    recs = read_games(tmp_path / "games.jsonl")
    assert sorted(r["game"] for r in recs) == list(range(8))
    seat_use = Counter((s["label"], p) for r in recs for p, s in enumerate(r["seats"]))
    assert set(seat_use.values()) == {2} and len(seat_use) == 16
    for r in recs[:2]:
        assert result_differences(r, replay(r)) == []
    rows = report(cfg, tmp_path)
    assert sum(r["wins"] for r in rows) == pytest.approx(8)
    with open(tmp_path / "results.csv") as fh:
        table = list(csv.DictReader(fh))
    assert {r["agent"] for r in table} == set(cfg.labels) and all(r["games"] == "8" for r in table)
    md = (tmp_path / "results.md").read_text()
    assert "| agent | games | wins | win rate [95% CI]" in md and "8 games of 4 players" in md
    shares = [sum(1 / len(r["result"]["winners"]) for r in recs if p in r["result"]["winners"]) / 8 for p in range(4)]
    assert "Wins by seat (whoever sat there): " + ", ".join(
        f"{x} {100 * w:.1f}%" for x, w in zip(("UK", "FRANCE", "USA", "ITALY"), shares)) in md
    assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # --report-only recomputes the same tables from games.jsonl
    before = (tmp_path / "results.csv").read_text()
    (tmp_path / "results.csv").unlink()
    cfg_path = tmp_path / "c.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg_dict()))
    assert main(["tournament", str(cfg_path), "--out", str(tmp_path), "--report-only"]) == 0
    assert (tmp_path / "results.csv").read_text() == before


def test_worker_processes_play_the_same_games(tmp_path):
    cfg = config_from_dict(cfg_dict(workers=2))
    play_games(cfg, tmp_path / "mp", progress=False)
    play_games(cfg, tmp_path / "local", workers=0, progress=False)
    a = {r["game"]: r["actions"] for r in read_games(tmp_path / "mp" / "games.jsonl")}
    b = {r["game"]: r["actions"] for r in read_games(tmp_path / "local" / "games.jsonl")}
    assert a == b and len(a) == 8


def test_forfeits_are_recorded_and_the_tournament_goes_on(tmp_path):
    cfg = config_from_dict(cfg_dict(workers=2, modules=["helpers.agent_fixtures"], agents=[
        "random", {"name": "random", "label": "r2"},
        {"name": "test_raises", "options": {"at": 5}}, "test_illegal"]))
    run = play_games(cfg, tmp_path, progress=False)
    assert run["played"] == 8
    recs = read_games(tmp_path / "games.jsonl")
    reasons = Counter(r["result"]["forfeit"]["label"] for r in recs)
    assert set(reasons) <= {"test_raises", "test_illegal"} and sum(reasons.values()) == 8
    for r in recs:
        f = r["result"]["forfeit"]
        assert r["seats"][f["seat"]]["label"] == f["label"]
        assert r["result"]["ranks"][f["seat"]] == 4
        assert "raised RuntimeError" in f["reason"] or "not legal now" in f["reason"]
        assert result_differences(r, replay(r)) == []
    rows = {r["agent"]: r for r in report(cfg, tmp_path)}
    assert rows["test_raises"]["forfeits"] + rows["test_illegal"]["forfeits"] == 8
    assert "## Forfeits" in (tmp_path / "results.md").read_text()


@pytest.mark.parametrize("exit", [False, True])
def test_an_agent_raising_keyboardinterrupt_in_a_worker_forfeits_quietly(exit, tmp_path, capfd):
    """Workers ignore SIGINT, so a KeyboardInterrupt (or SystemExit) there comes from the agent's own
    code: its games are forfeited with the reason, no worker prints a traceback (issue 43)."""
    cfg = config_from_dict(cfg_dict(workers=2, games=4, modules=["helpers.agent_fixtures"], agents=[
        "random", {"name": "random", "label": "r2"}, {"name": "random", "label": "r3"},
        {"name": "test_interrupts", "options": {"exit": exit}}]))
    run = play_games(cfg, tmp_path, progress=False)
    assert run["played"] == 4 and not run["failed"]
    err = capfd.readouterr().err
    assert "Traceback" not in err, err
    want = "raised SystemExit: 3" if exit else "raised KeyboardInterrupt"
    assert [r["result"]["forfeit"]["reason"] for r in read_games(tmp_path / "games.jsonl")] == [want] * 4


@pytest.mark.parametrize("value", [13.0, "13", True])
def test_an_action_that_is_not_an_integer_forfeits_however_the_agent_runs(value, tmp_path):
    """13.0, "13" or True from act(): a forfeit in process and as a bot process alike (the process
    client applies the arena's rule instead of converting with int(); issue 43)."""
    reasons = {}
    for isolate in ("none", "auto"):
        cfg = config_from_dict(cfg_dict(games=4, isolate=isolate, modules=["helpers.agent_fixtures"], agents=[
            "random", {"name": "random", "label": "r2"}, {"name": "random", "label": "r3"},
            {"name": "test_illegal", "options": {"value": value}}]))
        assert (cfg.agents[3]["agent"] == "process") == (isolate == "auto")
        play_games(cfg, tmp_path / isolate, progress=False)
        recs = read_games(tmp_path / isolate / "games.jsonl")
        assert all(r["result"]["forfeit"]["label"] == "test_illegal" for r in recs) and len(recs) == 4
        reasons[isolate] = recs[0]["result"]["forfeit"]["reason"]
    said = f"returned {value!r} ({type(value).__name__}), not an integer action id"
    assert reasons["none"] == said and reasons["auto"].endswith(f"its stderr ends: {'client: the agent ' + said!r}"), reasons


def test_resume_skips_finished_games_and_repairs_a_cut_line(tmp_path, caplog, capsys):
    cfg = config_from_dict(cfg_dict())
    play_games(cfg, tmp_path, progress=False)
    path = tmp_path / "games.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:40])              # a write cut short
    assert len(finished_games(cfg, tmp_path, repair=False)) == 3
    with caplog.at_level(logging.INFO, logger="agents.arena.tournament"):
        run = play_games(cfg, tmp_path, progress=False)
    assert run == dict(run, played=5, kept=3)
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("agents.arena.tournament.runner", logging.INFO, f"resuming: 3 of 8 games already in {path}")]
    assert capsys.readouterr().out == ""                              # the library logs, prints nothing
    recs = read_games(path)
    assert sorted(r["game"] for r in recs) == list(range(8))
    assert {r["game"]: r["actions"] for r in recs} == {json.loads(x)["game"]: json.loads(x)["actions"]
                                                         for x in lines}
    # more games extend the same tournament; another definition is refused
    play_games(config_from_dict(cfg_dict(games=12)), tmp_path, progress=False)
    assert len(read_games(path)) == 12
    saved = (tmp_path / "config.yaml").read_text()
    with pytest.raises(TournamentError, match="another tournament"):
        play_games(config_from_dict(cfg_dict(seed=4)), tmp_path, progress=False)
    assert (tmp_path / "config.yaml").read_text() == saved and len(read_games(path)) == 12
    # a second run into the same directory while one is playing is refused
    import fcntl

    with open(tmp_path / ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(TournamentError, match="another run is playing into"):
            play_games(config_from_dict(cfg_dict(games=16)), tmp_path, progress=False)
    assert len(read_games(path)) == 12
    play_games(config_from_dict(cfg_dict(games=16)), tmp_path, progress=False)
    assert len(read_games(path)) == 16


def test_an_agent_that_kills_its_worker_forfeits_and_the_tournament_goes_on(tmp_path):
    """os._exit in act() (game 2) and SIGKILL (game 0): each game is recorded as a forfeit of that
    seat at that step, replayable, and a fresh worker plays the other games."""
    exits = {"exit": {"every": 5, "at": 5}, "kill": {"every": 7, "at": 5, "signum": int(signal.SIGKILL)}}
    cfg = config_from_dict(cfg_dict(workers=2, modules=["helpers.agent_fixtures"], agents=[
        "random", {"name": "random", "label": "r2"}, *({"name": "test_exit", "label": k, "options": o}
                                                      for k, o in exits.items())]))
    run = play_games(cfg, tmp_path, progress=False)
    assert run["played"] == 8 and run["failed"] == {}
    recs = {r["game"]: r for r in read_games(tmp_path / "games.jsonl")}
    assert sorted(recs) == list(range(8))
    forfeits = {}
    for k, r in recs.items():
        dying = [p for p, s in enumerate(r["seats"]) if s["label"] in exits and
                 s["seed"] % exits[s["label"]]["every"] == 0]
        f = r["result"]["forfeit"]
        assert (f is None) == (not dying)
        if f is not None:
            forfeits[k] = (f["label"], f["reason"])
            assert f["seat"] in dying and f["action"] is None and f["step"] == len(r["actions"]) > 0
            assert r["result"]["ranks"][f["seat"]] == 4
        assert result_differences(r, replay(r)) == []
    assert forfeits == {0: ("kill", "its worker process died while it was choosing (killed by SIGKILL)"),
                        2: ("exit", "its worker process died while it was choosing (exit code 3)")}
    rows = {r["agent"]: r for r in report(cfg, tmp_path)}
    assert rows["exit"]["forfeits"] == rows["kill"]["forfeits"] == 1


@pytest.mark.parametrize("exit, reason", [(False, "reset raised RuntimeError: test reset failure"),
                                          (True, "its worker process died in its reset() (exit code 3)")])
def test_an_agent_whose_reset_fails_forfeits_those_games_and_a_rerun_keeps_them(tmp_path, exit, reason):
    """reset() raising (or killing its worker process) forfeits the game at step 0, recorded with the
    reason, as a failing act() does; the games used to fail unrecorded, and every rerun failed again."""
    cfg = config_from_dict(cfg_dict(workers=2, modules=["helpers.agent_fixtures"], agents=[
        "random", {"name": "random", "label": "r2"}, {"name": "random", "label": "r3"},
        {"name": "test_reset_raises", "label": "bad", "options": {"every": 2, "exit": exit}}]))
    run = play_games(cfg, tmp_path, progress=False)
    assert run["played"] == 8 and run["failed"] == {}
    recs = read_games(tmp_path / "games.jsonl")
    assert sorted(r["game"] for r in recs) == list(range(8))
    forfeited = 0
    for r in recs:
        bad = next(p for p, s in enumerate(r["seats"]) if s["label"] == "bad")
        f = r["result"]["forfeit"]
        if r["seats"][bad]["seed"] % 2:
            assert f is None and r["actions"]
            continue
        forfeited += 1
        assert f == {"seat": bad, "label": "bad", "step": 0, "reason": reason, "action": None}
        assert r["actions"] == [] and r["result"]["ranks"][bad] == 4
        assert result_differences(r, replay(r)) == []
    assert 0 < forfeited < 8
    rows = {x["agent"]: x for x in report(cfg, tmp_path)}
    assert rows["bad"]["forfeits"] == forfeited
    assert play_games(cfg, tmp_path, progress=False) == dict(run, played=0, kept=8, failed={},
                                                             seconds=pytest.approx(0, abs=60))


def test_a_reset_that_raises_in_run_game_forfeits_before_the_first_move():
    from agents import make_agent
    from agents.arena.play import run_game

    agents = [make_agent("random"), make_agent("test_reset_raises", every=2)]
    specs = [{"label": "a", "agent": "random", "options": {}}, {"label": "b", "agent": "test_reset_raises",
                                                               "options": {}}]
    rec = run_game(agents, specs, num_players=2, seed=5, agent_seeds=[1, 4])
    assert rec["actions"] == [] and rec["result"]["forfeit"] == {
        "seat": 1, "label": "b", "step": 0, "reason": "reset raised RuntimeError: test reset failure", "action": None}
    assert rec["result"]["ranks"] == [1, 2] and rec["result"]["winners"] == [0]
    assert run_game(agents, specs, num_players=2, seed=5, agent_seeds=[1, 3])["result"]["forfeit"] is None


def test_a_dead_worker_is_judged_by_where_its_game_stood():
    """The record of a worker that died while a seat was choosing is the record of that seat's
    agent raising there (but the reason and timing); elsewhere the game fails (not recorded)."""
    cfg = config_from_dict(cfg_dict(modules=["helpers.agent_fixtures"], agents=[
        "random", {"name": "random", "label": "r2"}, {"name": "random", "label": "r3"},
        {"name": "test_raises", "options": {"at": 7}}]))
    job = make_job(cfg, 1)
    raised = play_job(job)
    f = raised["result"]["forfeit"]
    progress = Progress(mp.get_context("spawn"))
    progress.start(1)
    for step, a in enumerate(raised["actions"]):
        progress.on_move(None, step, None, a)
    progress.choosing(f["seat"])
    assert progress.snapshot() == (1, CHOOSING, f["seat"], raised["actions"])
    kind, rec = dead_worker_outcome(job, progress, -int(signal.SIGSEGV))
    assert kind == "done"
    assert rec["result"]["forfeit"] == dict(f, reason="its worker process died while it was choosing (killed by "
                                                      "SIGSEGV)")
    assert "timing" not in rec
    assert {k: v for k, v in rec.items() if k not in ("result", "digest")} == \
        {k: v for k, v in raised.items() if k not in ("result", "timing", "digest")}
    assert rec["digest"] == record_digest(rec)
    assert {k: v for k, v in rec["result"].items() if k != "forfeit"} == \
        {k: v for k, v in raised["result"].items() if k != "forfeit"}
    progress.start(1)                                   # building the agents
    assert progress.snapshot()[1] == BUILDING
    assert dead_worker_outcome(job, progress, 3) == ("failed", "the worker process died while building the agents "
                                                               "or the game (exit code 3)")
    progress.on_move(None, 0, None, raised["actions"][0])
    assert progress.snapshot()[1] == STEPPING
    assert dead_worker_outcome(job, progress, 3) == ("failed", "the worker process died while the engine applied "
                                                               "an action (exit code 3)")
    assert dead_worker_outcome(make_job(cfg, 2), progress, 1) == (
        "failed", "the worker process died before the game began (exit code 1)")


def test_workers_that_cannot_start_stop_the_run(tmp_path):
    """A script without the `if __name__ == "__main__":` guard: each spawned worker runs it again and
    dies while starting; the run stops at once (no worker restarted for every game)."""
    script = tmp_path / "no_guard.py"
    script.write_text("from agents.arena.tournament import config_from_dict, play_games\n"
                      f"play_games(config_from_dict({cfg_dict(workers=2)!r}), {str(tmp_path / 'out')!r}, "
                      f"progress=False)\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 1
    assert "TournamentError: a worker process died while starting (exit code 1)" in proc.stderr
    assert not (tmp_path / "out" / "games.jsonl").read_text()


def _start(cfg_path, out, env=None):
    return subprocess.Popen([str(V1919), "tournament", str(cfg_path), "--out", str(out), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
                                     **(env or {})))


def _outcome(recs):
    return {r["game"]: (r["seats"], r["actions"], r["result"]) for r in recs}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
@pytest.mark.parametrize("signals", [("SIGINT",), ("SIGINT", "SIGINT"), ("SIGTERM",)])
def test_a_signal_stops_the_run_with_no_worker_left_and_a_rerun_resumes_exactly(tmp_path, signals):
    """Ctrl-C (SIGINT to the process group, once or twice) or SIGTERM (to the main process) while the
    workers are inside games: the command ends within seconds, no worker process is left, the 5
    finished games are kept, and a rerun plays the 11 others: the records of an uninterrupted run."""
    gate = tmp_path / "gate"                    # test_gate lets exactly 5 games start, then the workers wait
    gate.mkdir()
    for k in range(5):
        (gate / f"pass{k}").touch()
    d = cfg_dict(games=16, workers=2, modules=["helpers.agent_fixtures"])
    d["agents"][3] = {"name": "test_gate", "options": {"gate": str(gate)}}
    cfg_path, out = tmp_path / "c.yaml", tmp_path / "out"
    cfg_path.write_text(yaml.safe_dump(d))
    proc = _start(cfg_path, out)
    try:
        wait_for_games(out / "games.jsonl", 5, proc)
        kids = children(proc.pid)              # the 2 workers and multiprocessing's resource tracker
        assert len(kids) >= 2
        t0 = time.monotonic()
        for name in signals:
            with contextlib.suppress(ProcessLookupError):
                if name == "SIGINT":            # the terminal sends Ctrl-C to the whole foreground group
                    os.killpg(proc.pid, signal.SIGINT)
                else:
                    os.kill(proc.pid, getattr(signal, name))
            time.sleep(0.2)
        stdout, stderr = proc.communicate(timeout=120)
        seconds = time.monotonic() - t0
        deadline = time.monotonic() + 10        # the resource tracker ends when it sees its parent gone
        while any(is_running(*k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [k for k in kids if is_running(*k)]
    finally:                                    # on a failure, leave no process of the run behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    word, code = ("terminated", 143) if signals == ("SIGTERM",) else ("interrupted", 130)
    assert proc.returncode == code, stderr
    assert f"{word}: 5 of 16 games kept in {out / 'games.jsonl'}; run the same command again to resume" in stderr
    assert seconds < 20, seconds
    assert left == []
    assert len(read_games(out / "games.jsonl")) == 5
    (gate / "open").touch()
    proc = _start(cfg_path, out)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert "played 11 games" in stdout and f"resuming: 5 of 16 games already in {out / 'games.jsonl'}" in stderr
    play_games(config_from_dict(d), tmp_path / "whole", workers=0, progress=False)
    assert _outcome(read_games(out / "games.jsonl")) == _outcome(read_games(tmp_path / "whole" / "games.jsonl"))


def test_cli_tournament_runs_and_prints_the_table(tmp_path, capsys):
    cfg_path = tmp_path / "c.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg_dict(games=4)))
    assert main(["tournament", str(cfg_path), "--out", str(tmp_path / "o"), "--workers", "0", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "played 4 games" in out and "| r2 | 4 |" in out
    assert main(["tournament", str(cfg_path), "--out", str(tmp_path / "o"), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "played 0 games" in captured.out
    assert f"resuming: 4 of 4 games already in {tmp_path / 'o' / 'games.jsonl'}" in captured.err
