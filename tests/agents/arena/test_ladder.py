"""The ladder's figures on records whose outcomes are known (agents/arena/ladder.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from agents.arena.ladder import (cluster_interval, head_to_head, ladder_rows, luce_ratings, luce_strengths, nation_table,
                           write_ladder)
from agents.arena.tournament import config_from_dict, seating

SCORE = {"total": 0, "issues": 0, "flags": 0, "strategy": 0, "happiness": 0}


def record(game: int, seed: int, labels: list[str], winner: int, n: int = 4) -> dict:
    """A finished game's record: the seats' labels in seat order, one winner, the others ranked after it."""
    ranks = [1 if p == winner else 2 + (p - winner - 1) % n for p in range(n)]
    return {"game": game, "seed": seed, "num_players": n, "seats": [{"label": lab} for lab in labels],
            "result": {"winners": [winner], "ranks": ranks, "forfeit": None, "truncated": False,
                       "scores": [dict(SCORE, total=10 - r) for r in ranks]},
            "timing": {"decisions": [10] * n, "seconds": [0.01] * n, "cpu_seconds": [0.01] * n}}


def schedule(labels: list[str], games: int, duplicate: bool, winner_of, n: int = 4, seed: int = 0) -> list[dict]:
    """Seat-rotated games (the tournament schedule); winner_of(seat labels, deal rng) -> winning seat."""
    recs = []
    for k in range(games):
        deal = k // n if duplicate else k
        rng = np.random.default_rng([seed, deal])
        seat_labels = [labels[i] for i in seating(k, len(labels), n)]
        recs.append(record(k, 1000 + deal, seat_labels, winner_of(seat_labels, rng, np.random.default_rng([seed, k]))))
    return recs


def skill_winner(skill: dict):
    def pick(seat_labels, deal_rng, game_rng):
        w = np.array([skill[lab] for lab in seat_labels])
        return int(game_rng.choice(len(w), p=w / w.sum()))
    return pick


LABELS = ["a", "b", "c", "d", "e"]


def test_luce_recovers_the_strengths_and_orders_like_the_win_rates():
    skill = {"a": 4.0, "b": 2.0, "c": 1.0, "d": 1.0, "e": 0.5}
    recs = schedule(LABELS, 20 * 400, duplicate=False, winner_of=skill_winner(skill))
    s = luce_strengths(recs, LABELS)
    # log-strength differences recover the true ones
    assert s["a"] - s["b"] == pytest.approx(math.log(2), abs=0.15)
    assert s["c"] - s["e"] == pytest.approx(math.log(2), abs=0.15)
    rows = ladder_rows(recs, LABELS, bootstrap=20)
    by_rating = [r["agent"] for r in rows]
    by_wins = [r["agent"] for r in sorted(rows, key=lambda r: -r["win_rate"])]
    assert by_rating == by_wins
    assert all(r["rating_low"] <= r["rating"] <= r["rating_high"] for r in rows)


def test_an_agent_without_a_win_keeps_a_finite_rating():
    recs = schedule(LABELS[:4], 40, duplicate=False, winner_of=lambda s, d, g: s.index("a") if "a" in s else 0)
    ratings = luce_ratings(recs, LABELS[:4], bootstrap=10)
    assert all(math.isfinite(r[0]) for r in ratings.values())
    assert ratings["a"][0] > ratings["b"][0]


def test_duplicate_deals_cancel_the_luck_of_the_seat():
    """The seat wins, whoever sits in it (a deal luck that every rotation shares): on duplicate deals
    every agent wins exactly 1 of its 4 games per deal, so its win rate has no variance left; on
    independent deals the interval is the binomial one."""
    labels = LABELS[:4]
    lucky_seat = lambda s, deal_rng, game_rng: int(deal_rng.integers(4))     # noqa: E731
    dup = schedule(labels, 400, duplicate=True, winner_of=lucky_seat)
    for lab in labels:
        p, lo, hi, se = cluster_interval(dup, lab)
        assert p == 0.25 and se == 0.0 and lo == hi == 0.25
    ind = schedule(labels, 400, duplicate=False, winner_of=lucky_seat)
    rows = {r["agent"]: r for r in ladder_rows(ind, labels, bootstrap=10)}
    for lab in labels:
        assert rows[lab]["shrink"] == pytest.approx(1.0, abs=0.2)     # each game its own deal: nothing shrinks
    rows = {r["agent"]: r for r in ladder_rows(dup, labels, bootstrap=10)}
    assert all(rows[lab]["shrink"] == 0.0 for lab in labels)


def test_head_to_head_and_nations():
    recs = schedule(LABELS[:4], 48, duplicate=True, winner_of=lambda s, d, g: s.index("a"))
    share, games = head_to_head(recs, LABELS[:4])
    assert np.all(share[0, 1:] == 1.0) and np.all(share[1:, 0] == 0.0)
    off = ~np.eye(4, dtype=bool)
    assert np.allclose((share + share.T)[off], 1.0) and np.all(games[off] == 48)
    nat = nation_table(recs, LABELS[:4])
    assert all(nat["a"][n] == (1.0, 12) for n in ("uk", "france", "usa", "italy"))
    assert all(nat["b"][n][0] == 0.0 for n in ("uk", "france", "usa", "italy"))


def test_write_ladder_files(tmp_path):
    cfg = config_from_dict({"name": "t", "num_players": 4, "games": 20, "workers": 0,
                            "agents": [{"name": "random", "label": lab} for lab in LABELS]})
    recs = schedule(LABELS, 20, duplicate=True, winner_of=skill_winner({k: 1.0 for k in LABELS}))
    rows = write_ladder(recs, cfg, tmp_path / "out", doc=tmp_path / "docs" / "ladder.md", command="v1919 ladder x")
    assert len(rows) == 5
    for f in ("ladder.md", "ladder.csv", "head_to_head.png"):
        assert (tmp_path / "out" / f).stat().st_size > 0
    text = (tmp_path / "docs" / "ladder.md").read_text()
    assert "images/ladder_head_to_head.png" in text and (tmp_path / "docs" / "images" / "ladder_head_to_head.png").exists()
    assert "v1919 ladder x" in text and "| agent | games | win rate" in text


def test_duplicate_deals_share_the_game_seed_within_a_schedule_block():
    from agents.arena.tournament.worker import game_seeds

    n = 4
    dup = [game_seeds(7, k, n, duplicate=True) for k in range(12)]
    ind = [game_seeds(7, k, n) for k in range(12)]
    for k in range(12):
        assert dup[k][0] == dup[k - k % n][0]                   # one deal per block of n rotations
        assert dup[k][1] == ind[k][1]                           # the agents' own seeds stay per game
    assert len({d[0] for d in dup}) == 3 and len({s for s, _ in ind}) == 12
    assert [s for s, _ in ind] == [game_seeds(7, k, n)[0] for k in range(12)]   # independent deals unchanged


def test_v1919_ladder_end_to_end(tmp_path, capsys):
    """The command: a duplicate-deal tournament of compiled bots in this process, the report and the doc."""
    import yaml

    from agents.arena.tournament import load_config
    from v1919_env.cli import main

    cfg_path = tmp_path / "lad.yaml"
    cfg_path.write_text(yaml.safe_dump({
        "name": "lad", "num_players": 4, "games": 20, "seed": 3, "duplicate": True, "workers": 0,
        "agents": ["random", "rulebot", {"name": "random", "label": "random-2"},
                   {"name": "rulebot", "label": "rulebot-2"}, {"name": "random", "label": "random-3"}]}))
    out, doc = tmp_path / "out", tmp_path / "docs" / "ladder.md"
    code = main(["ladder", str(cfg_path), "--out", str(out), "--doc", str(doc), "--no-progress", "--bootstrap", "5"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "ladder lad: 20 games" in printed and "rulebot" in printed
    from agents.arena.tournament.runner import finished_games
    recs = finished_games(load_config(cfg_path), out, repair=False)
    seeds = {}
    for r in recs:
        seeds.setdefault(r["game"] // 4, set()).add(r["seed"])
    assert len(recs) == 20 and all(len(s) == 1 for s in seeds.values()) and len(seeds) == 5
    text = doc.read_text()
    assert "duplicate deals" in text and "v1919 ladder" in text and (doc.parent / "images" / "ladder_head_to_head.png").exists()
    rows = {r["agent"]: r for r in ladder_rows(recs, load_config(cfg_path).labels, bootstrap=5)}
    assert rows["rulebot"]["win_rate"] > rows["random"]["win_rate"]
    # again: nothing to play, the report is rewritten from games.jsonl
    assert main(["ladder", str(cfg_path), "--out", str(out), "--report-only", "--bootstrap", "5"]) == 0
