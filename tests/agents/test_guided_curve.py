"""tools/guided_curve.py: the curve of a search agent's win rate against its time per decision."""
from __future__ import annotations

import json

import pytest
from helpers.tools import load_tool


@pytest.fixture(scope="module")
def curve():
    return load_tool("guided_curve")


def test_a_curve_is_an_agent_with_every_option_but_the_budget(curve):
    spec = "guided:iterations=8,rollout_mix=1,bot_prior=0.5"
    assert curve.family(spec) == "guided (rollout_mix=1,bot_prior=0.5)"
    assert curve.budget(spec) == "iterations=8"
    assert curve.family("guided:iterations=64") == "guided" and curve.budget("guided:time_ms=2") == "time_ms=2"
    assert curve.family("learned") == "learned" and curve.budget("learned") == ""


def test_games_are_recorded_resumed_paired_and_plotted(curve, tmp_path, capsys):
    out, png = tmp_path / "curve.jsonl", tmp_path / "curve.png"
    args = ["--games", "2", "--agents", "learned", "guided:iterations=2", "guided:iterations=2,bot_prior=0.5",
            "--opponents", "rulebot", "--out", str(out), "--plot", str(png)]
    assert curve.main(args) == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((r["agent"], r["game"]) for r in recs) == sorted(
        (a, g) for a in ("learned", "guided:iterations=2", "guided:iterations=2,bot_prior=0.5") for g in (0, 1))
    assert {(r["game"], r["seat"]) for r in recs} == {(0, 0), (1, 1)}          # the tested seat rotates
    assert all(0.0 <= r["share"] <= 1.0 and r["search_cpu_seconds"] for r in recs)
    text = capsys.readouterr().out
    assert "guided:iterations=2 - learned, vs 3x rulebot, same 2 deals and seats" in text
    assert png.stat().st_size > 10_000
    assert curve.main(args) == 0                                               # resumes: nothing new to play
    assert len(out.read_text().splitlines()) == 6
