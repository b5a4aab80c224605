"""Issue 32, "Small things a user trips on": the version, a quit game's exit code, the games a record
file holds, an empty --agents, bench options that contradict each other, an unwritable --record."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from v1919_env import __version__
from v1919_env.cli import main
from v1919_env.envs.versions import ENV_VERSION
from v1919_env.records import index_ranges
from helpers.cli import one_line_error


def _one_line_error(capsys, says: str) -> str:
    return one_line_error(capsys, says, prefixed=False)


def test_version_names_the_package_and_the_environments_version():
    out = subprocess.run([sys.executable, "-m", "v1919_env.cli", "--version"], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == f"v1919 {__version__} (environments v{ENV_VERSION}, observation v2)"


@pytest.mark.parametrize("typed", ["q\n", ""])                 # q, or the end of the input
def test_a_game_quit_at_a_human_seat_exits_nonzero(monkeypatch, capsys, typed):
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    assert main(["play", "--agents", "human,random,random", "--seed", "4"]) == 1
    assert "nothing is scored" in capsys.readouterr().out


def test_replay_names_the_games_a_file_holds(tmp_path, capsys):
    assert index_ranges([0]) == "0" and index_ranges([0, 1, 2, 5, 7, 8]) == "0-2, 5, 7-8"
    path = tmp_path / "g.jsonl"
    assert main(["play", "--agents", "random,random", "--seed", "3", "--record", str(path), "--no-log"]) == 0
    capsys.readouterr()
    assert main(["replay", str(path), "--game", "99"]) == 2
    _one_line_error(capsys, "no game 99 in the file (1 game: 0)")
    rec = json.loads(path.read_text())
    path.write_text("".join(json.dumps(dict(rec, game=k)) + "\n" for k in (0, 1, 4)))
    assert main(["replay", str(path), "--game", "3"]) == 2
    _one_line_error(capsys, "no game 3 in the file (3 games: 0-1, 4)")


def test_an_empty_agents_list_is_refused_not_replaced_by_the_default_lineup(capsys):
    assert main(["demo", "--agents", ""]) == 2
    _one_line_error(capsys, "empty agent name")


@pytest.mark.parametrize("argv, says", [
    (["--vector", "--compile"], "--vector and --compile each measure one thing alone"),
    (["--compile", "--env"], "--env: an option of the full bench, not of --compile"),
    (["--vector", "--no-cold"], "--no-cold: an option of the full bench, not of --vector"),
])
def test_bench_refuses_options_that_contradict_each_other(capsys, argv, says):
    assert main(["bench", *argv]) == 2
    _one_line_error(capsys, says)


@pytest.mark.parametrize("target, says", [("/proc/version", "--record /proc/version: "),
                                          ("{tmp}", "is a directory"),
                                          ("{tmp}/no/such/dir/g.jsonl", "does not exist")])
def test_an_unwritable_record_file_is_refused_before_the_game(tmp_path, capsys, target, says):
    target = target.format(tmp=tmp_path)
    assert main(["play", "--agents", "random,random,random", "--record", target]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "seats:" not in err
