"""The agents in the solitaire game: greedy plays the player's objective (agents/solitaire_eval.py)."""
from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.arena.play import run_game, seat_spec
from agents.solitaire_eval import (W_SOLO_CTRL, W_SOLO_VP, faction_estimates, play_to_next_turn,
                                   solitaire_evaluate)
from v1919_env.core import layout as L
from v1919_env.core.bots import seed_policy_rng
from v1919_env.game import Game


def _mid_game(seed: int, steps: int) -> Game:
    g = Game.new(1, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.step(int(rng.choice(g.legal_actions())))
    return g


def test_evaluation_counts_vp_margin_and_control():
    g = _mid_game(3, 60)
    s = g.state.copy()
    base = solitaire_evaluate(s, g.T)
    s[L.SOLO_VP] += 2
    assert solitaire_evaluate(s, g.T) == pytest.approx(base + 2 * W_SOLO_VP)
    est = faction_estimates(g.state, g.T)
    f = g.solo_faction
    ctrl = sum(1 for q in range(3) if (g.state[L.ISSUE_CTRL:L.ISSUE_CTRL + L.N_ISSUES] == q).any())
    margin = est[f] - max(est[q] for q in range(3) if q != f)
    assert base == pytest.approx(W_SOLO_VP * g.player_vp + margin + W_SOLO_CTRL * ctrl)
    assert all(e >= v for e, v in zip(est, g.faction_strengths()))      # strength plus the leads


def test_play_to_next_turn_stops_at_a_turn_decision_or_the_end():
    g = _mid_game(5, 10)
    s = g.state.copy()
    buf = np.empty(L.MAX_LEGAL, np.int64)
    play_to_next_turn(s, g.T, buf, seed_policy_rng(1))
    assert s[L.GAME_OVER] == 1 or s[L.PENDING] == L.D_TURN


def _vp(agent: str, seeds) -> list[int]:
    out = []
    for seed in seeds:
        spec = seat_spec(agent)
        rec = run_game([make_agent(agent)], [spec], num_players=1, seed=seed)
        assert rec["result"]["forfeit"] is None
        out.append(rec["result"]["scores"][0]["total"])
    return out


def test_greedy_is_deterministic_and_legal_in_solitaire():
    spec = seat_spec("greedy")
    a = run_game([make_agent("greedy")], [spec], num_players=1, seed=8)
    b = run_game([make_agent("greedy")], [spec], num_players=1, seed=8)
    assert a["actions"] == b["actions"] and a["result"]["forfeit"] is None


def test_greedy_plays_for_the_players_vp():
    """Over the same 12 games the solitaire greedy scores more VP than the rule bot (which plays the
    designers' bot priorities for whatever faction it holds): 10 games' means were 4.9 and 1.0."""
    seeds = range(100, 112)
    assert sum(_vp("greedy", seeds)) > 2 * sum(_vp("rulebot", seeds))


def test_solitaire_agents_tool_reports_plots_keeps_and_merges_figures(tmp_path):
    """tools/solitaire_agents.py: the table, the VP histograms, the figures as JSON, and the curve of
    mean VP against time per decision with an earlier run's agents included."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    tool = [sys.executable, str(root / "tools" / "solitaire_agents.py"), "--games", "2"]
    env = {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}
    first = subprocess.run(tool + ["--agents", "rulebot", "--json", str(tmp_path / "a.json")], capture_output=True,
                           text=True, cwd=root, env=env, timeout=600)
    assert first.returncode == 0, first.stderr
    second = subprocess.run(tool + ["--agents", "random,greedy", "--plot", str(tmp_path / "h.png"), "--json",
                                    str(tmp_path / "b.json"), "--curve", str(tmp_path / "c.png"), "--include",
                                    str(tmp_path / "a.json")], capture_output=True, text=True, cwd=root, env=env,
                            timeout=600)
    assert second.returncode == 0, second.stderr
    rows = json.loads((tmp_path / "b.json").read_text())
    assert [r["agent"] for r in rows] == ["random", "greedy"] and all(len(r["vp"]) == 2 for r in rows)
    assert all(r["ms_per_decision"] > 0 and set(r["wins"]) == {"20", "25"} for r in rows)
    assert (tmp_path / "h.png").stat().st_size > 0 and (tmp_path / "c.png").stat().st_size > 0
    assert "greedy" in second.stdout and "VP against time per decision" in second.stdout
    (tmp_path / "bad.json").write_text('{"agent": "x"}')
    for include, says in ((tmp_path / "missing.json", "cannot read it (No such file"), (tmp_path / "bad.json", "not a list"),
                          (tmp_path / "h.png", "")):
        bad = subprocess.run(tool + ["--agents", "random", "--curve", str(tmp_path / "d.png"), "--include",
                                     str(include)], capture_output=True, text=True, cwd=root, env=env, timeout=600)
        assert bad.returncode == 2 and f"--include {include}: {says}" in bad.stderr and "Traceback" not in bad.stderr
