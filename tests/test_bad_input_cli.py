"""Issue 20, "Bad input that still escapes": record files, configs and options that used to end in a
traceback (or to be accepted) are one-line errors naming the field, exit code 2."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from v1919_env.cli import main
from helpers.cli import one_line_error

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> dict:
    """A 3-player game's record, as `v1919 play --record` writes it."""
    path = tmp_path_factory.mktemp("rec") / "game.jsonl"
    assert main(["play", "--agents", "random,random,random", "--seed", "1", "--record", str(path), "--no-log"]) == 0
    return json.loads(path.read_text().splitlines()[0])


def _record_file(tmp_path, record, **fields) -> str:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(dict(record, **fields)) + "\n")
    return str(path)


def _one_line_error(capsys, says: str) -> str:
    return one_line_error(capsys, says, prefixed=False)


BAD_RECORDS = [
    ({"seed": -1}, "seed must be an integer in 0..2**63-1, got -1"),
    ({"seed": "x"}, "seed must be an integer in 0..2**63-1, got 'x'"),
    ({"num_players": 9}, "num_players must be the integer 1 (solitaire), 2, 3 or 4, got 9"),
    ({"variant": "bogus"}, "variant must be one of standard, longer, even_longer, longest"),
    ({"negotiation": "no"}, "negotiation must be true or false, got 'no'"),
    ({"actions": None}, "actions must be a list of action ids, got None"),
    ({"actions": [0, "x"]}, "actions[1] must be an action id"),
    ({"result": None}, "result must be an object"),
    ({"card_set": "x"}, "card_set must be an object (fields: label, path), got 'x'"),
    ({"card_set": {"label": "x", "path": 7}}, "card_set.path must be a card-set path or null"),
    ({"game": -2}, "game must be an integer in 0.., got -2"),
    ({"seats": [{"label": "a"}]}, "seats must be a list of 3 (one per seat)"),
    ({"solitaire": {"faction": "uk", "target_vp": 20}}, "solitaire.faction is a solitaire setting"),
]


@pytest.mark.parametrize("fields, says", BAD_RECORDS, ids=[next(iter(f)) for f, _ in BAD_RECORDS])
def test_replay_of_a_bad_record_names_the_field(tmp_path, capsys, record, fields, says):
    assert main(["replay", _record_file(tmp_path, record, **fields), "--quiet"]) == 2
    assert "bad.jsonl, line 1: " + says in _one_line_error(capsys, says)


@pytest.mark.parametrize("fields, says", [
    ({"result": None}, "result must be an object"),
    ({"result": {"scores": [], "ranks": [], "winners": [], "forfeit": None, "truncated": False, "decisions": 1}},
     "result.scores must be a list of 3"),
    ({"card_set": "x"}, "card_set must be an object"),
    ({"actions": None}, "actions must be a list of action ids"),
])
def test_replay_html_of_a_bad_record_names_the_field(tmp_path, capsys, record, fields, says):
    out = tmp_path / "game.html"
    assert main(["replay", _record_file(tmp_path, record, **fields), "--html", str(out)]) == 2
    _one_line_error(capsys, says)
    assert not out.exists()


@pytest.mark.parametrize("forfeit, says", [
    ({"seat": 5, "label": "x", "step": 0, "reason": "r"}, "result.forfeit.seat must be an integer in 0..2"),
    ({"seat": 0}, "missing field(s) result.forfeit.label"),
    ("yes", "result.forfeit must be an object"),
])
def test_replay_of_a_bad_forfeit_names_the_field(tmp_path, capsys, record, forfeit, says):
    result = dict(record["result"], forfeit=forfeit)
    assert main(["replay", _record_file(tmp_path, record, result=result), "--quiet"]) == 2
    _one_line_error(capsys, says)


def test_the_record_still_replays(tmp_path, capsys, record):
    assert main(["replay", _record_file(tmp_path, record), "--quiet"]) == 0
    assert "ok: the replay reproduces" in capsys.readouterr().out


def test_replay_of_a_bad_record_in_a_real_process(tmp_path, record):
    p = subprocess.run([sys.executable, "-m", "v1919_env.cli", "replay", _record_file(tmp_path, record, seed=-1)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().endswith("seed must be an integer in 0..2**63-1, got -1"), p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("seconds", ["-1", "0", "nan", "inf"])
def test_bench_refuses_a_time_that_is_not_positive(capsys, seconds):
    assert main(["bench", "--no-cold", f"--seconds={seconds}"]) == 2
    _one_line_error(capsys, "--seconds: a positive number of seconds")


def test_bench_vector_needs_two_players(capsys):
    assert main(["bench", "--vector", "--players", "1"]) == 2
    _one_line_error(capsys, "--vector: the vector env has 2 to 4 players")


def test_tournament_refuses_a_negative_seed(tmp_path, capsys):
    cfg = tmp_path / "t.yaml"
    cfg.write_text("num_players: 4\ngames: 4\nseed: -1\nagents: [random, {name: random, label: r2}, "
                   "{name: random, label: r3}, {name: random, label: r4}]\n")
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    _one_line_error(capsys, "seed: must be at least 0, got -1")
    assert not (tmp_path / "out").exists()


TINY_TRAIN = ("budget: {steps: 64}\nenv: {num_envs: 4}\nppo: {n_steps: 16, batch_size: 64, n_epochs: 1}\n"
              "evaluation: {every_steps: null, games: 4, final_games: 0, opponents: [random]}\n")


@pytest.mark.parametrize("text, says", [
    ("", "the config is empty; a training config is a mapping of the keys name, seed,"),
    ("{}\n", "the config is empty"),
    ("variant: bogus\n" + TINY_TRAIN, "variant: unknown variant 'bogus'"),
    (f"seed: {10 ** 30}\n" + TINY_TRAIN, f"seed: must be at most 4294967295, got {10 ** 30}"),
])
def test_train_refuses_an_empty_or_bad_config(tmp_path, capsys, text, says):
    cfg = tmp_path / "train.yaml"
    cfg.write_text(text)
    assert main(["train", str(cfg), "--out", str(tmp_path / "run"), "--no-progress"]) == 2
    _one_line_error(capsys, says)
    assert not (tmp_path / "run").exists()


def test_an_empty_tournament_config_is_refused_too(tmp_path, capsys):
    cfg = tmp_path / "empty.yaml"
    cfg.write_text("")
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "out")]) == 2
    _one_line_error(capsys, "the config must be a mapping")
