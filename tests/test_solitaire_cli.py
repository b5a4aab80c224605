"""The command line with the solitaire game (and the 2-player game): demo, play with a human, records
and replay, and the solitaire rows of `v1919 bench`."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

from v1919_env.cli import main
from v1919_env.game import Game, card_tables


def test_demo_players_1_prints_a_whole_game(capsys):
    assert main(["demo", "--players", "1", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Versailles 1919 | solitaire | turn 1")
    assert "player: ismcts:iterations=200 (the solitaire bots play the other two factions)" in out
    assert "for the" in out and " bot [" in out           # decisions the bot rules leave to the player
    assert "Final: the player has" in out
    last = out.strip().splitlines()
    assert "VP of 20 ->" in last[-2] and "faction strength UK" in last[-2]
    assert "decisions; game over;" in last[-1]
    g = Game.new(1, seed=3)
    assert f"the player controls {g.seat_name(g.solo_faction)}" in out


def test_demo_players_2_prints_a_whole_game(capsys):
    assert main(["demo", "--players", "2", "--seed", "1", "--no-log"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Versailles 1919 | 2 players")
    rows = [line for line in out.splitlines() if line.startswith(("uk ", "france "))]
    assert len(rows) == 2 and "game over" in out


def test_demo_rejects_agents_that_do_not_match_players(capsys):
    assert main(["demo", "--players", "1", "--agents", "random,random"]) == 2
    assert "name 1 agents" in capsys.readouterr().err


def _human_input(monkeypatch, text):
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def test_play_human_solitaire(monkeypatch, capsys):
    _human_input(monkeypatch, "1\n" * 2000)
    assert main(["play", "--agents", "human", "--seed", "4", "--no-log"]) == 0
    out = capsys.readouterr().out
    assert "player: human" in out
    assert "\nUSA (for the UK bot) to play: a political action" in out          # seed 4: the player starts as the USA
    assert "VP of 20 ->" in out


def test_play_human_quits(monkeypatch, capsys):
    _human_input(monkeypatch, "q\n")
    assert main(["play", "--agents", "human", "--seed", "4"]) == 1         # quit: no result
    assert "nothing is scored" in capsys.readouterr().out


def test_play_two_humans_in_the_two_player_game(monkeypatch, capsys):
    _human_input(monkeypatch, "1\n" * 3000)
    assert main(["play", "--agents", "human,human", "--seed", "2", "--no-log"]) == 0
    out = capsys.readouterr().out
    assert "for the USA" in out and "game over" in out


def test_solitaire_record_replays(tmp_path, capsys):
    f = tmp_path / "games.jsonl"
    assert main(["play", "--agents", "random", "--seed", "9", "--no-log", "--record", str(f)]) == 0
    rec = json.loads(f.read_text().splitlines()[0])
    assert rec["num_players"] == 1 and rec["result"]["scores"][0]["target_vp"] == 20
    capsys.readouterr()
    assert main(["replay", str(f), "--quiet"]) == 0
    assert "reproduces" in capsys.readouterr().out


def test_bench_solitaire_batch_is_set_up_like_game_new():
    """The bench's solitaire batches (core init_batch) start exactly as Game.new(1, seed) does."""
    from v1919_env.core.layout import STATE_SIZE
    from v1919_env.core.step import init_batch
    _, T = card_tables(None)
    S = np.zeros((3, STATE_SIZE), np.int32)
    init_batch(S, T, 1, np.array([5, 6, 7]), 0, 0)
    for b, seed in enumerate((5, 6, 7)):
        assert np.array_equal(S[b], Game.new(1, seed=seed).state)


def test_bench_counts_the_bots_decisions_apart():
    from v1919_env.bench import bench_batched
    _, T = card_tables(None)
    r = bench_batched(T, 1, 4, 0.0)
    assert r["games"] == 20 and 0 < r["decisions_per_game"] < r["all_decisions_per_game"]
    four = bench_batched(T, 4, 4, 0.0)
    assert four["decisions_per_game"] == pytest.approx(four["all_decisions_per_game"])


# ---------------------------------------------------------------- --faction and --target-vp

def test_demo_faction_and_target_vp(capsys):
    assert Game.new(1, seed=3).seat_name(Game.new(1, seed=3).solo_faction) != "USA"      # seed 3's default
    assert main(["demo", "--players", "1", "--seed", "3", "--faction", "Usa", "--target-vp", "5", "--no-log"]) == 0
    out = capsys.readouterr().out
    assert "the player controls USA" in out
    assert "VP of 5 ->" in out


@pytest.mark.parametrize("argv, option", [
    (["demo", "--players", "1", "--faction", "italy"], "--faction"),
    (["demo", "--players", "1", "--target-vp", "0"], "--target-vp"),
    (["demo", "--players", "1", "--target-vp", "ten"], "--target-vp"),
    (["play", "--agents", "random", "--target-vp", "1000"], "--target-vp"),
    (["play", "--agents", "random,random", "--faction", "uk"], "--faction"),
    (["demo", "--players", "3", "--target-vp", "12"], "--target-vp"),
])
def test_bad_solitaire_options_are_one_line_naming_the_option(argv, option, capsys):
    assert main(argv) == 2
    cap = capsys.readouterr()
    err = cap.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"v1919: error: {option}:"), cap.err
    assert "Versailles 1919" not in cap.out          # rejected before any game is played


def test_solitaire_record_keeps_faction_and_level(tmp_path, capsys):
    f = tmp_path / "games.jsonl"
    assert main(["play", "--agents", "random", "--seed", "9", "--no-log", "--record", str(f),
                 "--faction", "usa", "--target-vp", "3"]) == 0
    rec = json.loads(f.read_text().splitlines()[0])
    assert rec["solitaire"] == {"faction": "usa", "target_vp": 3}
    assert rec["result"]["scores"][0]["target_vp"] == 3
    capsys.readouterr()
    assert main(["replay", str(f), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "reproduces" in out and "solitaire faction usa, target 3 VP" in out
    # the same actions under the default settings are another game: the settings are what replays it
    from v1919_env.records import replay, result_differences, RecordError
    old = {k: v for k, v in rec.items() if k != "solitaire"}
    try:
        diffs = result_differences(old, replay(old))
    except RecordError:
        diffs = ["does not replay"]
    assert diffs


def test_old_solitaire_record_without_settings_replays(tmp_path, capsys):
    """Records written before the solitaire field (faction None, target 20) still load and replay."""
    f = tmp_path / "games.jsonl"
    assert main(["play", "--agents", "random", "--seed", "9", "--no-log", "--record", str(f)]) == 0
    rec = json.loads(f.read_text().splitlines()[0])
    rec.pop("solitaire", None)
    rec.pop("digest")                 # records of then had no digest either
    f.write_text(json.dumps(rec) + "\n")
    capsys.readouterr()
    assert main(["replay", str(f), "--quiet"]) == 0
    assert "reproduces" in capsys.readouterr().out
