"""Compiling before play (agents/arena/precompile.py) and one compiled version per kernel
(v1919_env/core/__init__.py): issue 20's first-run item."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from numba import njit

import agents.arena.precompile as P
from helpers import agent_fixtures  # noqa: F401  (registers the test agents)
from agents.arena.play import DEMO_LINEUP, parse_agents_arg

ROOT = Path(__file__).resolve().parents[3]

# In a new process: precompile the demo's 4 seats, note how many versions of each project kernel are
# loaded, play the demo's game, and report every kernel that needed a version it did not have yet.
_AFTER_PRECOMPILE = """
import gc, json
from numba.core.registry import CPUDispatcher
from agents.arena.play import DEMO_LINEUP, build_agents, parse_agents_arg, run_game
from agents.arena.precompile import precompile
specs = parse_agents_arg(",".join(DEMO_LINEUP))
precompile(specs, 4)
def loaded():
    return {d.py_func.__module__ + "." + d.py_func.__qualname__: len(d.overloads) for d in gc.get_objects()
            if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith(("v1919_env", "agents", "training"))}
before = loaded()
rec = run_game(build_agents(specs), specs, num_players=4, seed=1)
after = loaded()
print(json.dumps({"decisions": len(rec["actions"]), "new": sorted(k for k, n in after.items() if n > before.get(k, 0))}))
"""


def test_after_precompile_the_demo_game_needs_no_kernel_it_has_not_loaded():
    r = subprocess.run([sys.executable, "-c", _AFTER_PRECOMPILE], cwd=ROOT, capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["decisions"] > 100
    assert out["new"] == []


def test_stages_are_the_rules_core_then_each_distinct_agent_without_the_human():
    specs = parse_agents_arg("rulebot,human,rulebot,ismcts:iterations=5")
    assert [t for t, _ in P.stages(specs, 4)] == ["the rules core", "agent rulebot", "agent ismcts:iterations=5"]
    assert len(P.stages(parse_agents_arg(",".join(DEMO_LINEUP)), 4)) == 1 + len(set(DEMO_LINEUP))


def test_stages_take_agents_whose_options_nest_a_mapping():
    # guided's reward option is a mapping {kind: weight}; it made the stage key unhashable
    spec = {"agent": "guided", "label": "g", "options": {"reward": {"win_loss": 1.0}, "iterations": 4}}
    same = {"agent": "guided", "label": "h", "options": {"iterations": 4, "reward": {"win_loss": 1.0}}}
    assert [t for t, _ in P.stages([spec, same], 4)] == ["the rules core", "agent g"]


def test_a_stage_that_compiles_logs_a_line_when_it_starts_and_its_time_when_done(monkeypatch, caplog):
    @njit
    def fresh(x):                   # never compiled before: its first call compiles
        return x + 1

    monkeypatch.setattr(P, "stages", lambda *a, **k: [("a fresh kernel", lambda: fresh(np.int64(1))),
                                                       ("nothing new", lambda: fresh(np.int64(2)))])
    with caplog.at_level(logging.INFO, logger="agents.arena.precompile"):
        out = P.precompile([], 4)
    assert [m.getMessage() for m in caplog.records][0] == "compiling a fresh kernel (stage 1 of 2) ..."
    assert caplog.records[1].getMessage().startswith("  a fresh kernel: 1 kernels compiled in ")
    assert len(caplog.records) == 2                        # the cached stage says nothing
    assert [(s["stage"], s["compiled"]) for s in out] == [("a fresh kernel", 1), ("nothing new", 0)]


def test_an_agent_that_fails_while_compiling_is_logged_and_compiling_goes_on(caplog):
    specs = parse_agents_arg("test_raises:at=0,random")
    with caplog.at_level(logging.WARNING, logger="agents.arena.precompile"):
        out = P.precompile(specs, 2)
    assert [s["stage"] for s in out] == ["the rules core", "agent test_raises:at=0", "agent random"]
    assert any("failed on a first decision while compiling" in r.getMessage() for r in caplog.records)


# ----------------------------------------------------------------------------- one version per kernel
_PROBE = """
import json, numpy as np
from numba import njit
import v1919_env.core  # noqa: F401  (installs the dispatch rule)
def callee(a, b):
    return a + b
callee.__module__ = "v1919_env.probe"          # a project kernel
callee = njit(callee)
@njit
def caller(s):
    return callee(s[0], 3) + callee(s[1], np.int64(4)) + callee(7, s[2])
print(json.dumps({"value": int(caller(np.array([1, 2, 3], np.int32))), "signatures": [str(x) for x in callee.signatures]}))
"""


def _probe(literal_dispatch: str) -> dict:
    env = dict(os.environ, V1919_LITERAL_DISPATCH=literal_dispatch)
    r = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_calls_from_compiled_code_compile_one_int64_version_of_a_project_kernel():
    ours, numbas = _probe(""), _probe("1")
    assert ours["value"] == numbas["value"] == 1 + 3 + 2 + 4 + 7 + 3
    assert ours["signatures"] == ["(int64, int64)"]
    assert len(numbas["signatures"]) == 3           # int32 and Literal[int](3), int32 and int64, Literal[int](7) and int32


def test_builtin_only_skips_the_agents_a_users_module_registers():
    specs = parse_agents_arg("rulebot,test_exit,random")
    titles = [t for t, _ in P.stages(specs, 3, builtin_only=True)]
    assert titles == ["the rules core", "agent rulebot", "agent random"]
    assert "agent test_exit" in [t for t, _ in P.stages(specs, 3)]


# ----------------------------------------------------------------------------- the first move first
def _record_stages(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = P._run_stages

    def run_stages(todo, first=1, total=None):
        calls.append([t for t, _ in todo])
        return real(todo, first, total)

    monkeypatch.setattr(P, "_run_stages", run_stages)
    return calls


def test_a_game_compiles_the_first_movers_agent_here_and_the_others_in_a_background_process(monkeypatch):
    specs = parse_agents_arg("random,rulebot,random,greedy")
    assert P._first_mover(4, 0, "standard", None) == 1                  # seed 0: the rule bot's seat moves first
    calls = _record_stages(monkeypatch)
    monkeypatch.setattr(P, "cores", lambda: 2)
    monkeypatch.setattr(P, "is_compiled", lambda: False)              # as on a first run
    bg = P.precompile_game(specs, 4, seed=0)
    try:
        assert calls == [["the rules core"], ["agent rulebot"]]
        assert bg.seats == {0, 2, 3} and bg.titles == ["agent random", "agent greedy"]
        assert bg.process is not None and bg.process.name == "v1919-precompile"
        bg.wait()
        assert bg.process.exitcode == 0
        wrapped = P.after_compile(["a0", "a1", "a2", "a3"], bg)
        assert [isinstance(a, P._AfterCompile) for a in wrapped] == [True, False, True, True]
    finally:
        bg.close()
    assert bg.process is None


def test_on_one_core_a_game_compiles_everything_here_the_first_movers_agent_first(monkeypatch):
    calls = _record_stages(monkeypatch)
    monkeypatch.setattr(P, "cores", lambda: 1)
    bg = P.precompile_game(parse_agents_arg("random,rulebot,greedy,rulebot"), 4, seed=0)
    assert calls == [["the rules core"], ["agent rulebot", "agent random", "agent greedy", "the rest of the rules core"]]
    assert bg.process is None and bg.seats == set()
    bg.wait()


def test_an_agent_waits_for_the_background_compile_before_its_first_decision():
    order = []

    class Fake:
        exitcode = None

        def join(self):
            order.append("joined")
            self.exitcode = 0

    class Agent:
        needs_game = False

        def act(self, obs, mask, game=None):
            order.append("act")
            return 3

    bg = P.Background(Fake(), ["agent x"], {0})
    a = P.after_compile([Agent()], bg)[0]
    assert a.needs_game is False                       # everything else is the agent's
    assert a.act(None, None) == 3 and a.act(None, None) == 3
    assert order == ["joined", "act", "act"]


def test_one_agent_in_every_seat_needs_no_background_process(monkeypatch):
    calls = _record_stages(monkeypatch)
    monkeypatch.setattr(P, "cores", lambda: 2)
    monkeypatch.setattr(P, "is_compiled", lambda: False)
    bg = P.precompile_game(parse_agents_arg("random,random,random"), 3, seed=0)
    assert calls == [["the rules core"], ["agent random", "the rest of the rules core"]] and bg.process is None


def test_a_warm_cache_needs_no_background_process(monkeypatch):
    calls = _record_stages(monkeypatch)
    monkeypatch.setattr(P, "cores", lambda: 2)
    monkeypatch.setattr(P, "is_compiled", lambda: True)
    bg = P.precompile_game(parse_agents_arg("random,rulebot,greedy,rulebot"), 4, seed=0)
    assert calls == [["the rules core"], ["agent rulebot", "agent random", "agent greedy", "the rest of the rules core"]]
    assert bg.process is None
