"""Expert iteration round after round (training.exit_rounds) on tiny games: each round's teacher searches
the network the round before made, the fit reads the window's buffers, a stopped run resumes without
replaying, the curve counts games and CPU, and the plot is drawn; bad configs name the field."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training import exit_rounds, selfplay, shards  # noqa: E402

TINY = {"name": "tiny", "seed": 5, "rounds": 2, "games": 2, "window": 2, "variant": "short15",
        "teacher": {"games_per_shard": 1, "holdout_every": 2, "explore_decisions": 1,
                    "seats": {"teacher": 0.5, "rulebot": 0.25, "network": 0.25},
                    "search": {"iterations": 4, "batch_size": 4, "rollout_mix": 1.0, "root": "gumbel",
                               "considered": 4}},
        "search_by_round": [{}, {"rollout_mix": 0.5}],
        "fit": {"target": "best", "epochs": 1, "value_coef": 0.0},
        "evaluation": {"games": 4, "previous_games": 4}}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("rounds") / "tiny"
    rows = exit_rounds.run(exit_rounds.load_config(raw=TINY), out, workers=1)
    return out, rows


def test_each_round_searches_the_network_of_the_round_before(run_dir):
    out, rows = run_dir
    assert [r["round"] for r in rows] == [0, 1, 2]
    m1, m2 = (shards.read_meta(out / f"round_{r}" / "selfplay")["config"] for r in (1, 2))
    assert m1["path"] is None                                   # round 1: the shipped weights
    assert m2["path"] == str(out / "round_1" / "fit" / "checkpoints" / "net.zip")
    assert m1["search"]["rollout_mix"] == 1.0 and m2["search"]["rollout_mix"] == 0.5   # search_by_round
    assert m1["seed"] != m2["seed"]                             # other deals each round
    fit2 = json.loads((out / "round_2" / "fit" / "fit.json").read_text())
    assert fit2["config"]["data"] == [str(out / f"round_{r}" / "selfplay") for r in (1, 2)]   # the window
    assert fit2["init"] == m2["path"]


def test_the_curve_counts_teacher_games_and_cpu_and_holds_both_evaluations(run_dir):
    out, rows = run_dir
    assert rows[0]["teacher_games"] == 0 and "previous" not in rows[0]
    assert [r["teacher_games"] for r in rows] == [0, 2, 4]
    assert 0 < rows[1]["cpu_hours"] < rows[2]["cpu_hours"]
    for r in rows[1:]:
        for k in ("rulebot", "previous"):
            lo, hi = r[k]["ci95"]
            assert r[k]["games"] == 4 and lo <= r[k]["win_rate"] <= hi
        assert math.isfinite(r["brier"])
    assert [json.loads(x) for x in (out / "curve.jsonl").read_text().splitlines()] == rows
    figs = exit_rounds.buffer_figures(out / "round_1" / "selfplay")
    assert figs["games"] == 2 and figs["searched"] > 0 and figs["cpu_seconds"] > 0


def test_a_stopped_run_resumes_without_replaying(run_dir, tmp_path):
    out, rows = run_dir
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file() and p.name != "curve.jsonl"
              and p.name != "config.json"}
    assert exit_rounds.run(exit_rounds.load_config(raw=TINY), out, workers=1) == rows
    assert all(p.stat().st_mtime_ns == t for p, t in stamps.items())
    # a round stopped among its teacher games: the lost shard is played again, identically
    lost = shards.shard_path(out / "round_2" / "selfplay", 1)
    before = dict(np.load(lost))
    lost.unlink()
    (out / "round_2" / "selfplay.json").unlink()
    exit_rounds.run(exit_rounds.load_config(raw=TINY), out, workers=1)
    after = dict(np.load(lost))
    assert all(np.array_equal(before[k], after[k]) for k in before if k != "cpu_seconds")


def test_a_run_directory_of_another_config_is_refused_but_may_gain_rounds(run_dir):
    out, rows = run_dir
    with pytest.raises(selfplay.ConfigError, match="another config \\(games, window differ\\)"):
        exit_rounds.run(exit_rounds.load_config(raw={**TINY, "games": 4, "window": 1}), out, workers=1)
    assert json.loads((out / "config.json").read_text())["games"] == 2           # left as it was
    rows = exit_rounds.curve(out)      # (an earlier test may have replayed a shard: its CPU time differs)
    assert exit_rounds.run(exit_rounds.load_config(raw={**TINY, "rounds": 1}), out, workers=1) == rows
    assert len(rows) == 3


def test_the_plot_draws_every_run(run_dir, tmp_path):
    out, _ = run_dir
    png = exit_rounds.plot([out], tmp_path / "curve.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no finished round"):
        exit_rounds.plot([tmp_path / "empty"], tmp_path / "x.png")


@pytest.mark.parametrize("raw, field", [
    ({"rounds": 0}, "rounds"),
    ({"window": 0}, "window"),
    ({"teacher": {"seed": 3}}, "teacher: seed"),
    ({"teacher": {"search": {"iterations": 4, "nope": 1}}}, "teacher \\(round 1\\): search"),
    ({"fit": {"data": ["x"]}}, "fit: data"),
    ({"fit": {"target": "nope"}}, "fit \\(round 1\\): target"),
    ({"evaluation": {"games": -1}}, "evaluation.games"),
    ({"evaluation": {"games": 6}}, "evaluation.games: a multiple of the player count 4"),
])
def test_bad_configs_are_refused_naming_the_field(raw, field):
    with pytest.raises(selfplay.ConfigError, match=rf"^{field}"):
        exit_rounds.load_config(raw={**TINY, **raw})


def test_the_command_line_gives_one_line_errors(tmp_path, capsys):
    with pytest.raises(SystemExit, match="^error: config: "):
        exit_rounds.main([])
    with pytest.raises(SystemExit, match="^error: --plot: "):
        exit_rounds.main(["--plot", str(tmp_path / "x.png")])
    with pytest.raises(SystemExit, match="^error: .*no_such.yaml"):
        exit_rounds.main([str(tmp_path / "no_such.yaml")])


def test_the_reliability_plot_of_a_fits_value_head(run_dir, tmp_path):
    from training import plots

    out, _ = run_dir
    fit_json = out / "round_1" / "fit" / "fit.json"
    png = tmp_path / "rel.png"
    assert plots.main(["reliability", str(fit_json), str(png), "--key", "win_prediction_before"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SystemExit, match="^error: .*no win_prediction"):
        plots.main(["reliability", str(tmp_path / "none.json"), str(png)])
