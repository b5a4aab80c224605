"""Time controls (issue 33): per-move and per-game clocks, the time left told to the agents, overruns
forfeited or replaced by a fallback move and counted, every decision's time recorded, and a bot that
sleeps for ever does not stall a game or a tournament."""
from __future__ import annotations

import json
import time

import numpy as np
import pytest
import yaml

from agents.base import make_agent
from agents.arena.clock import SeatClock, TimeControl, TimeLeft
from agents.arena.play import run_game, seat_spec
from agents.arena.tournament import load_config, play_games
from agents.arena.tournament.config import ConfigError
from helpers.arena_bots import Sleeper
from v1919_env.game import Game


def _game(agents, specs, clocks, seed=3):
    return run_game(agents, specs, num_players=len(agents), seed=seed, clocks=clocks)


def _lineup(sleeper: Sleeper):
    agents = [sleeper] + [make_agent("random") for _ in range(3)]
    specs = [seat_spec("test_sleeper", label="sleeper")] + [seat_spec("random", label=f"r{k}") for k in range(3)]
    return agents, specs


def _replays(rec) -> bool:
    g = Game.new(rec["num_players"], seed=rec["seed"])
    for a in rec["actions"]:
        g.step(a)
    return g.is_over and [s["total"] for s in g.scores()] == [s["total"] for s in rec["result"]["scores"]]


def test_a_seat_clock_adds_the_increment_and_charges_the_time():
    c = SeatClock(TimeControl(base_ms=1000, increment_ms=100, move_ms=500))
    told = c.start()
    assert told == TimeLeft(1100, 500, 100, 500)
    assert not c.stop(300, told) and c.left_ms == 800
    told = c.start()
    assert told.game_ms == 900 and told.allowed_ms == 500
    assert c.stop(600, told) and c.left_ms == 300                # over the per-move limit
    told = c.start()
    assert told.allowed_ms == 400                                  # the game clock is the tighter limit now
    f = SeatClock(TimeControl(base_ms=100, overrun="fallback"))
    told = f.start()
    assert f.stop(250, told) and f.left_ms == 0                    # a fallback seat's clock stays at zero
    assert TimeLeft(None, 1000, 0, 1000).budget_ms() == pytest.approx(800)
    assert TimeLeft(30_100, None, 100, 30_100).budget_ms() == pytest.approx(0.8 * (30_000 / 30 + 100))
    assert TimeLeft(None, None, 0, None).budget_ms() is None
    with pytest.raises(ValueError, match="overrun"):
        TimeControl(move_ms=10, overrun="pause")
    with pytest.raises(ValueError, match="move_ms"):
        TimeControl(move_ms=0)


def test_every_decision_time_is_recorded_and_the_agent_is_told_its_clock():
    Sleeper.told = []
    agents, specs = _lineup(Sleeper(sleep_s=0.0))
    rec = _game(agents, specs, [TimeControl(base_ms=60_000, increment_ms=10, move_ms=2000)] + [None] * 3)
    t = rec["timing"]
    assert len(t["decision_ms"]) == len(rec["actions"]) == sum(t["decisions"])
    assert all(isinstance(x, float) and x >= 0 for x in t["decision_ms"])
    assert rec["result"]["forfeit"] is None and t["clock"]["overruns"] == [] and t["clock"]["hung"] is None
    told = Sleeper.told
    assert len(told) == t["decisions"][0] and all(isinstance(x, TimeLeft) for x in told)
    assert told[0].game_ms == 60_010 and told[0].allowed_ms == 2000
    assert told[-1].game_ms < told[0].game_ms + 10 * len(told)          # the time taken was charged
    assert t["clock"]["controls"][1] is None and t["clock"]["left_ms"][0] <= 60_000 + 10 * len(told)
    no_clock = _game(*_lineup(Sleeper(sleep_s=0.0)), None)
    assert "clock" not in no_clock["timing"] and len(no_clock["timing"]["decision_ms"]) == len(no_clock["actions"])


def test_an_overrun_forfeits_under_the_forfeit_policy():
    agents, specs = _lineup(Sleeper(sleep_s=0.25, at=2))
    rec = _game(agents, specs, [TimeControl(move_ms=60, grace_ms=2000)] + [None] * 3)
    f = rec["result"]["forfeit"]
    assert f is not None and f["seat"] == 0 and "overran its clock" in f["reason"] and "60 ms allowed" in f["reason"]
    ev = rec["timing"]["clock"]["overruns"]
    assert len(ev) == 1 and ev[0]["seat"] == 0 and ev[0]["ms"] > 200 and "fallback" not in ev[0]
    assert rec["timing"]["decision_ms"][-1] > 200


@pytest.mark.parametrize("fallback", ["rulebot", "random", "first"])
def test_an_overrun_plays_the_fallback_move_and_is_recorded(fallback):
    agents, specs = _lineup(Sleeper(sleep_s=0.12, at=1))
    rec = _game(agents, specs, [TimeControl(move_ms=60, overrun="fallback", fallback=fallback)] + [None] * 3)
    assert rec["result"]["forfeit"] is None
    ev = rec["timing"]["clock"]["overruns"]
    assert len(ev) == 1 and ev[0]["ms"] > 100 and ev[0]["allowed_ms"] == 60
    assert rec["actions"][ev[0]["step"]] == ev[0]["fallback"]       # the fallback was played, the record replays
    assert _replays(rec)


def test_the_game_clock_runs_out():
    agents, specs = _lineup(Sleeper(sleep_s=0.03, at=0, every=True))
    rec = _game(agents, specs, [TimeControl(base_ms=150, increment_ms=5)] + [None] * 3)
    f = rec["result"]["forfeit"]
    assert f is not None and f["seat"] == 0 and "overran its clock" in f["reason"]
    assert 3 <= rec["timing"]["decisions"][0] <= 8


def test_a_bot_that_sleeps_for_ever_forfeits_as_hung_without_stalling_the_game():
    agents, specs = _lineup(Sleeper(at=1, forever=True))
    t0 = time.perf_counter()
    rec = _game(agents, specs, [TimeControl(move_ms=50, grace_ms=150, overrun="fallback")] + [None] * 3)
    assert time.perf_counter() - t0 < 5
    f = rec["result"]["forfeit"]
    assert f["seat"] == 0 and f["reason"].endswith("hung") and rec["timing"]["clock"]["hung"] == 0


def test_a_search_with_a_time_budget_takes_its_budget_from_the_clock():
    search = make_agent("ismcts", time_ms=2000)
    g = Game.new(4, seed=5)
    make_agent("ismcts", iterations=4).act(None, g.action_mask(), g.clone())      # load the compiled search first
    agents = [search] + [make_agent("rulebot") for _ in range(3)]
    specs = [seat_spec("ismcts", {"time_ms": 2000})] + [seat_spec("rulebot")] * 3
    rec = run_game(agents, specs, num_players=4, seed=5,
                   clocks=[TimeControl(base_ms=3000, increment_ms=20, move_ms=150)] + [None] * 3)
    t = rec["timing"]
    assert rec["result"]["forfeit"] is None and t["clock"]["overruns"] == []
    mine = [ms for ms, s in zip(t["decision_ms"], _deciders(rec)) if s == 0]
    assert max(mine) < 400                      # 2000 ms asked, the clock's budget (<= 120 ms) taken


def _deciders(rec) -> list[int]:
    g, out = Game.new(rec["num_players"], seed=rec["seed"]), []
    for a in rec["actions"]:
        out.append(g.current_player)
        g.step(a)
    return out


CLOCK_CFG = {"name": "clocked", "num_players": 4, "games": 4, "seed": 1, "workers": 0,
             "modules": ["helpers.arena_bots"], "isolate": "none",
             "clock": {"move_ms": 80, "overrun": "fallback", "grace_ms": 300},
             "agents": [{"name": "test_sleeper", "label": "sleeper", "options": {"sleep_s": 0.15, "at": 1}},
                        {"name": "test_sleeper", "label": "hanger", "options": {"at": 2, "forever": True}},
                        "random", {"name": "rulebot", "clock": {"move_ms": 5000}}]}


def _write(tmp_path, cfg) -> str:
    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return str(p)


@pytest.mark.parametrize("workers", [0, 1])
def test_a_tournament_on_a_clock_counts_overruns_and_goes_on_past_a_hung_bot(tmp_path, workers):
    cfg = load_config(_write(tmp_path, CLOCK_CFG))
    assert cfg.seat_clock(cfg.agents[3])["move_ms"] == 5000 and cfg.seat_clock(cfg.agents[0])["move_ms"] == 80
    t0 = time.perf_counter()
    run = play_games(cfg, tmp_path / "out", workers=workers, progress=False)
    assert run["played"] == 4 and not run["failed"] and time.perf_counter() - t0 < 90
    recs = [json.loads(x) for x in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    for r in recs:
        hanger = [s["label"] for s in r["seats"]].index("hanger")
        f = r["result"]["forfeit"]
        assert f is not None and f["label"] in ("hanger", "sleeper")
        if f["label"] == "hanger":
            assert f["seat"] == hanger and f["reason"].endswith("hung")
        assert r["seats"][[s["label"] for s in r["seats"]].index("rulebot")]["clock"] == {"move_ms": 5000}
    from agents.arena.tournament import report
    rows = {row["agent"]: row for row in report(cfg, tmp_path / "out")}
    sleeper_overruns = sum(1 for r in recs for ev in r["timing"]["clock"]["overruns"]
                           if r["seats"][ev["seat"]]["label"] == "sleeper")
    assert rows["sleeper"]["overruns"] == sleeper_overruns >= 1
    assert rows["hanger"]["forfeits"] >= 1 and rows["random"]["overruns"] == 0
    md = (tmp_path / "out" / "results.md").read_text()
    hung = sum(1 for r in recs if r["result"]["forfeit"]["label"] == "hanger")
    assert hung >= 1
    assert "## Clocks" in md and f"| sleeper | {sleeper_overruns} | 0 | 0 |" in md and f"| hanger | 0 | 0 | {hung} |" in md
    from agents.arena.ladder import write_ladder
    write_ladder(recs, cfg, tmp_path / "ladder", bootstrap=0)
    lad = (tmp_path / "ladder" / "ladder.md").read_text()
    assert f"| sleeper | {sleeper_overruns} | 0 | 0 |" in lad and "## Forfeits" in lad and "hung" in lad


def test_the_clock_config_is_checked_field_by_field(tmp_path):
    base = {"name": "c", "num_players": 4, "games": 4, "agents": ["random", "rulebot", "greedy",
                                                                   {"name": "random", "label": "r2"}]}
    plain = load_config(_write(tmp_path, base))
    assert plain.clock is None and all(plain.seat_clock(a) is None for a in plain.agents)
    clocked = load_config(_write(tmp_path, {**base, "clock": {"base_ms": 1000}}))
    assert clocked.fingerprint() != plain.fingerprint()
    for bad, field in [({"clock": {"move_ms": -5}}, "clock.move_ms"), ({"clock": {"overrun": "pause"}}, "clock.overrun"),
                       ({"clock": {"increment": 5}}, "clock.increment"),
                       ({"agents": base["agents"][:3] + [{"name": "random", "label": "r2", "clock": {"base_ms": "1"}}]},
                        "agents[3].clock.base_ms")]:
        with pytest.raises(ConfigError, match=field.replace("[", r"\[").replace("]", r"\]")):
            load_config(_write(tmp_path, {**base, **bad}))
    assert np.isfinite(clocked.seat_clock(clocked.agents[0])["base_ms"])


def test_a_bot_hung_in_code_that_holds_the_interpreter_is_killed_with_its_worker(tmp_path):
    """A clocked choice that hangs in C code holding the interpreter lock cannot be given up by its
    thread: the parent kills the worker process past the time + grace + a margin, the seat forfeits
    as hung, a fresh worker plays on."""
    cfg = load_config(_write(tmp_path, {
        "name": "gil", "num_players": 4, "games": 4, "seed": 2, "workers": 1, "modules": ["helpers.arena_bots"], "isolate": "none",
        "agents": [{"name": "test_gil_hog", "options": {"at": 2}, "clock": {"move_ms": 100, "grace_ms": 200}},
                   "random", "rulebot",      # (unclocked: a busy machine must not make them overrun 100 ms)
                   {"name": "random", "label": "random-2"}]}))
    import threading

    done = {}
    t = threading.Thread(target=lambda: done.update(run=play_games(cfg, tmp_path / "out", progress=False)), daemon=True)
    t.start()
    t.join(90)
    assert not t.is_alive(), "the tournament stalled on the hung bot"
    assert done["run"]["played"] == 4 and not done["run"]["failed"]
    for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines():
        f = json.loads(line)["result"]["forfeit"]
        assert f["label"] == "test_gil_hog" and "could not be interrupted: hung" in f["reason"], f
        assert "killed with SIGKILL" in f["reason"]
