"""Equal agents, equal results (issue 33): copies of one agent in a seat-rotated tournament win equal
shares, whatever the arena does (the schedule, the seeds, the worker processes that keep their
copies between games, the information-set copies handed to them); the check has the power to see an
unequal agent. The chi-square is Pearson's (expected counts), whose reported 14.0 for the search's
copies (docs/agents.md) was the sum of squared binomial z-scores, 4/3 of it."""
from __future__ import annotations

import pytest
from scipy.stats import chi2

from agents.arena.tournament import config_from_dict, finished_games, play_games, report
from agents.arena.tournament.stats import chi2_sf_3, equal_shares_test

LABELS = [f"c{k}" for k in range(4)]


def _copies(tmp_path, entries, games: int, workers: int, seed: int = 33) -> dict:
    cfg = config_from_dict({"name": "equal", "num_players": 4, "games": games, "seed": seed, "workers": workers,
                            "agents": [dict(e, label=lab) for e, lab in zip(entries, LABELS)]})
    play_games(cfg, tmp_path / "out", progress=False)
    recs = finished_games(cfg, tmp_path / "out")
    assert len(recs) == games
    t = equal_shares_test(recs, LABELS)
    report(cfg, tmp_path / "out")
    md = (tmp_path / "out" / "results.md").read_text()
    copies = all(e == entries[0] for e in entries)
    assert ("## Copies of one agent" in md) == copies
    if copies:
        assert f"p = {t['p']:.3g}" in md
    return t


def _record(winners, labels):
    return {"seats": [{"label": lab} for lab in labels], "result": {"winners": winners}}


def test_the_chi_square_of_equal_shares():
    for x in (0.1, 2.0, 7.81, 10.38, 14.0, 30.0):
        assert chi2_sf_3(x) == pytest.approx(chi2.sf(x, 3), rel=1e-9)
    # 240 games: 56, 45.5, 80 and 58.5 wins (23.3, 19.0, 33.3 and 24.4%), a win shared by two split
    recs = ([_record([0], LABELS)] * 56 + [_record([1], LABELS)] * 45 + [_record([2], LABELS)] * 80
            + [_record([3], LABELS)] * 58 + [_record([1, 3], LABELS)])
    t = equal_shares_test(recs, LABELS)
    assert t["wins"] == {"c0": 56, "c1": 45.5, "c2": 80, "c3": 58.5} and t["games"]["c0"] == 240
    assert t["chi2"] == pytest.approx(((56 - 60) ** 2 + 14.5 ** 2 + 20 ** 2 + 1.5 ** 2) / 60)
    assert t["chi2"] == pytest.approx(10.475) and t["p"] == pytest.approx(0.0149, abs=0.0001)
    even = equal_shares_test([_record([k % 4], LABELS) for k in range(400)], LABELS)
    assert even["chi2"] == 0 and even["p"] == 1.0


def test_copies_of_a_cheap_agent_win_equal_shares_in_this_process(tmp_path):
    t = _copies(tmp_path, [{"name": "rulebot"}] * 4, games=960, workers=0)
    assert t["p"] > 0.001, t
    assert all(0.21 < s < 0.29 for s in t["shares"].values()), t


def test_copies_in_worker_processes_keeping_their_state_win_equal_shares(tmp_path):
    """greedy reads the game (the arena's copies) and keeps its generator between games; two worker
    processes each hold their own copies, and the games go to whichever worker is free."""
    t = _copies(tmp_path, [{"name": "greedy"}] * 4, games=480, workers=2)
    assert t["p"] > 0.001, t


def test_the_check_sees_an_agent_that_is_not_a_copy(tmp_path):
    """The control: one of the four is another agent (random among rule bots); the same check on as
    many games calls the shares unequal."""
    t = _copies(tmp_path, [{"name": "rulebot"}] * 3 + [{"name": "random"}], games=480, workers=0)
    assert t["p"] < 1e-6 and t["shares"]["c3"] < 0.15, t
