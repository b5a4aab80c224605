"""`human`: a person at the terminal picks every action of their seat.

Each decision shows the board (`game.render()`), the pending decision and the legal actions
numbered from 1 with their descriptions (`game.describe`). The answer is a number; `b` shows the
board again; `q` (or the end of the input) ends the game: the agent raises `QuitGame`, which the
play loop (agents/arena/play.py) catches and reports. Anything else (text, a number out of range, an
empty line) gets a message and the question again. `input`/`output` default to the terminal;
tests pass their own streams.
"""
from __future__ import annotations

import sys

import numpy as np

from v1919_env.decisions import decision_text

from .base import Agent, register


class QuitGame(Exception):
    """The human player asked to end the game (`q` or end of input)."""


@register("human")
class HumanAgent(Agent):
    """Reads the chosen action from `input` after printing the board and the numbered choices."""

    needs_game = True
    interactive = True          # needs a person: tournaments refuse it

    def __init__(self, input=None, output=None, show_board: bool = True):
        self.input = input
        self.output = output
        self.show_board = bool(show_board)

    def _write(self, text: str) -> None:
        out = self.output if self.output is not None else sys.stdout
        out.write(text)
        out.flush()

    def _read(self) -> str:
        line = (self.input if self.input is not None else sys.stdin).readline()
        if line == "":
            raise QuitGame("the input ended")
        return line.strip()

    def act(self, observation, action_mask, game=None) -> int:
        if game is None:
            raise ValueError("the human agent needs the game to show the board and describe the actions")
        legal_ids = np.flatnonzero(action_mask)
        if len(legal_ids) == 0:
            raise ValueError("no legal action in the mask")
        if self.show_board:
            self._write("\n" + game.render() + "\n")
        seat = game.seat_name(game.current_player)
        for_usa = (f" for the {game.seat_name(game.acting_for)}" if game.two_player
                   and game.acting_for != game.current_player else "")        # the 2-player USA faction
        if game.solitaire:                           # the player's faction; a bot's choice left to the player
            seat = game.seat_name(game.solo_faction)
            for_usa = f" for the {game.seat_name(game.acting_for)} bot" if game.acting_for != game.solo_faction else ""
        said = decision_text(game)               # names the deciding nation (and the faction or bot decided for)
        if game.two_player and for_usa:
            said = f"{seat} decides{for_usa}: {said}"
        lines = [f"\n{said} ({len(legal_ids)} legal actions)"]
        lines += [f"{k:>4}. {game.describe(a)}" for k, a in enumerate(legal_ids, 1)]
        self._write("\n".join(lines) + "\n")
        while True:
            self._write(f"{seat}, your choice (1-{len(legal_ids)}, b = board, q = quit): ")
            answer = self._read().lower()
            if answer in ("q", "quit", "exit"):
                raise QuitGame(f"{seat} quit")
            if answer == "b":
                self._write(game.render() + "\n")
                continue
            if answer == "":
                self._write("please type the number of an action\n")
                continue
            try:
                k = int(answer)
            except ValueError:
                self._write(f"{answer!r} is not a number; type 1 to {len(legal_ids)}, b or q\n")
                continue
            if not 1 <= k <= len(legal_ids):
                self._write(f"{k} is out of range; type 1 to {len(legal_ids)}\n")
                continue
            return int(legal_ids[k - 1])
