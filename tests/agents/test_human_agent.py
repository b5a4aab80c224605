"""The human agent: scripted input streams, and `v1919 play` with a human seat through a real
subprocess with piped input."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.human import QuitGame
from agents.arena.play import run_game, seat_spec
from v1919_env.core.observe import OBS_SIZE
from v1919_env.game import Game

V1919 = Path(sys.executable).with_name("v1919")


def ask(answers: str, seed: int = 0):
    """The human agent's choice at the first decision of a game, and what it printed."""
    g = Game.new(4, seed=seed)
    out = io.StringIO()
    agent = make_agent("human", input=io.StringIO(answers), output=out)
    a = agent.act(np.zeros(OBS_SIZE, np.float32), g.action_mask(), g)
    return g, a, out.getvalue()


def test_numbered_choices_and_bad_input():
    g, a, out = ask("abc\n\n0\n99999\n2\n")
    legal = g.legal_actions()
    assert a == legal[1]
    assert g.render() in out
    assert f"   1. {g.describe(legal[0])}" in out and f"   2. {g.describe(legal[1])}" in out
    assert "'abc' is not a number" in out
    assert "please type the number of an action" in out
    assert "0 is out of range" in out and "99999 is out of range" in out
    assert out.count("your choice") == 5


def test_board_on_request():
    g, a, out = ask("b\n1\n")
    assert a == g.legal_actions()[0] and out.count(g.render()) == 2


@pytest.mark.parametrize("answers", ["q\n", "x\nquit\n", ""])
def test_quit_and_end_of_input_end_the_game(answers):
    with pytest.raises(QuitGame):
        ask(answers)


def test_quit_reaches_the_play_loop_with_the_game():
    specs = [seat_spec("random"), seat_spec("human", {"input": io.StringIO("1\n1\nq\n"),
                                                       "output": io.StringIO()}),
             seat_spec("random"), seat_spec("random")]
    agents = [make_agent(s["agent"], **s["options"]) for s in specs]
    with pytest.raises(QuitGame) as e:
        run_game(agents, specs, num_players=4, seed=1)
    assert isinstance(e.value.game, Game) and not e.value.game.is_over


def _v1919(args, stdin_text):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return subprocess.run([str(V1919), *args], input=stdin_text, capture_output=True, text=True, timeout=300,
                          env=env)


def test_v1919_play_with_a_human_through_a_pipe():
    # a whole game: the human always takes the first choice, after one bad answer
    r = _v1919(["play", "--agents", "human,random,random", "--seed", "5"], "nope\n" + "1\n" * 5000)
    assert r.returncode == 0, r.stderr
    assert "'nope' is not a number" in r.stdout
    assert "UK, your choice" in r.stdout and "winner" in r.stdout and "rank" in r.stdout
    # the 2-player game: the human is told when it decides for the USA faction
    r = _v1919(["play", "--agents", "random,human", "--seed", "5"], "1\n" * 5000)
    assert r.returncode == 0, r.stderr
    assert "FRANCE decides for the USA: USA to play: a political action" in r.stdout and "FRANCE, your choice" in r.stdout
    assert "usa" in r.stdout and "winner" in r.stdout
    # quitting ends the game cleanly, and the exit status says it was not played out (issue 32)
    r = _v1919(["play", "--agents", "random,random,human,random", "--seed", "5"], "1\nq\n")
    assert r.returncode == 1, r.stderr
    assert "game ended: USA quit" in r.stdout and "Traceback" not in r.stderr
