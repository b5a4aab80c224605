"""The shipped network's calibrated win probability (the web app's analysis plot)."""
import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.arena.win_probability import CALIBRATION, WinProbability, calibrate, main  # noqa: E402
from v1919_env.game import Game  # noqa: E402


def test_the_curve_has_a_row_per_position_summing_to_one_and_follows_the_game():
    g = Game.new(3, seed=11)
    rng = np.random.default_rng(0)
    start, actions = g.clone(), []
    for _ in range(30):
        a = int(rng.choice(g.legal_actions()))
        actions.append(a)
        g.step(a)
    wp = WinProbability(3)
    curve = wp.curve(start, actions)
    assert curve.shape == (31, 3) and np.allclose(curve.sum(axis=1), 1) and (curve > 0).all()
    assert np.allclose(wp.curve(start, actions[:10]), curve[:11])      # a position's value needs only its past
    wp.close()


def test_the_shipped_calibration_beats_a_baseline_that_knows_only_the_seat():
    table = json.loads(CALIBRATION.read_text())
    for n in ("2", "3", "4"):
        assert table[n]["games"] >= 400 and table[n]["brier_held_out"] < table[n]["brier_nation_baseline"]


def test_calibrating_plays_games_and_writes_the_table(tmp_path):
    entry = calibrate(2, 8, seed=5)
    assert entry["positions"] > 50 and entry["a"] > 0
    out = tmp_path / "cal.json"
    assert main(["--players", "2", "--games", "4", "--out", str(out)]) == 0
    assert "--games 4" in json.loads(out.read_text())["_about"]


@pytest.mark.parametrize("n", [1, 5])
def test_only_two_to_four_players_have_a_win_probability(n):
    with pytest.raises(ValueError, match="2-4 players"):
        WinProbability(n)
