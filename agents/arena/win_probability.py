"""The shipped network's win probability per seat along a game (the web app's analysis plot).

The value head of a shipped `learned` network estimates a seat's training return from the seat's own
observation (never the hidden decks). It becomes a win probability through a logistic calibration
per player count, P(win) = sigmoid(a v + b), fitted on the positions of games between the shipped
network and the rule bots (`python -m agents.arena.win_probability`, which writes `CALIBRATION` with the
fit's Brier score on held-out games beside a baseline that knows only each seat's nation); the
seats' probabilities at a position are then scaled to sum to 1.

Needs torch and sb3-contrib (the `train` extra), imported when a `WinProbability` is built.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from v1919_env.game import Game

from ..calibration import platt
from ..learned import SHIPPED_WEIGHTS, LearnedAgent
from .play import observe_seat

CALIBRATION = Path(__file__).resolve().parents[1] / "weights" / "win_calibration.json"


def positions(game: Game, actions: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every seat's observation and mask at every position of the game that `actions` play from
    `game` (its start, not modified): arrays [len(actions) + 1, num_players, ...]."""
    g, n = game.clone(), game.num_players
    obs, masks = [], []
    for k in range(len(actions) + 1):
        seen = [observe_seat(g, p) for p in range(n)]
        obs.append([o for o, _ in seen])
        masks.append([m for _, m in seen])
        if k < len(actions):
            g.step(int(actions[k]))
    return np.asarray(obs, np.float32), np.asarray(masks)


class WinProbability:
    """The calibrated win probability of every seat of an n-player game (2-4 players)."""

    def __init__(self, num_players: int, calibration: Path = CALIBRATION):
        if num_players not in (2, 3, 4):
            raise ValueError(f"no network win probability for the {num_players}-player game (2-4 players)")
        table = json.loads(Path(calibration).read_text())
        entry = table.get(str(num_players))
        if entry is None:
            raise ValueError(f"{calibration}: no calibration for {num_players} players "
                             f"(python -m agents.arena.win_probability --players {num_players})")
        self.a, self.b = entry["a"], entry["b"]
        self.net = LearnedAgent(path=str(SHIPPED_WEIGHTS[num_players]))
        self.num_players = num_players

    def values(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The value head's estimate for each row [..., OBS_SIZE] (rows of every seat's own view)."""
        shape = obs.shape[:-1]
        _, v = self.net.evaluate_batch(obs.reshape(-1, obs.shape[-1]), masks.reshape(-1, masks.shape[-1]))
        return v.reshape(shape).astype(np.float64)

    def probabilities(self, values: np.ndarray) -> np.ndarray:
        """[..., num_players] values -> win probabilities summing to 1 over the seats."""
        p = 1.0 / (1.0 + np.exp(-(self.a * values + self.b)))
        return p / p.sum(axis=-1, keepdims=True)

    def curve(self, game: Game, actions: list[int]) -> np.ndarray:
        """[len(actions) + 1, num_players]: each seat's win probability before each move and at the end."""
        obs, masks = positions(game, actions)
        return self.probabilities(self.values(obs, masks))

    def close(self) -> None:
        self.net.close()


def _games(num_players: int, games: int, seed: int):
    """(Game at its start, actions, win share per seat) of `games` games: the shipped network in one
    seat (rotated) against rule bots, and four rule bots in every fourth game."""
    from ..base import make_agent
    from .play import run_game, seat_spec

    for i in range(games):
        seats = ["rulebot"] * num_players
        if i % 4:
            seats[i % num_players] = "learned"
        agents = [make_agent(s) for s in seats]
        start = Game.new(num_players, seed=seed + i)
        played = run_game(agents, [seat_spec(s, {}, s) for s in seats], num_players=num_players, seed=seed + i)
        winners = played["result"]["winners"]
        win = np.array([1.0 / len(winners) if p in winners else 0.0 for p in range(num_players)])
        yield start, played["actions"], win


def calibrate(num_players: int, games: int, seed: int, every: int = 4) -> dict:
    """Fit (a, b) on the positions (every `every`-th) of half of the games, measure on the other half
    (alternate blocks of four games, so each half holds every seating of the network)."""
    wp = WinProbability.__new__(WinProbability)
    wp.net, wp.num_players = LearnedAgent(path=str(SHIPPED_WEIGHTS[num_players])), num_players
    rows = []
    for k, (start, actions, win) in enumerate(_games(num_players, games, seed)):
        obs, masks = positions(start, actions)
        v = wp.values(obs[::every], masks[::every])
        for row in v:
            rows.append((k, row, win))
    odd = np.array([(k // 4) % 2 for k, _, _ in rows]) == 1
    v = np.stack([r for _, r, _ in rows])
    y = np.stack([w for _, _, w in rows])
    a, b = platt(v[~odd].ravel(), y[~odd].ravel())
    wp.a, wp.b = a, b
    p = wp.probabilities(v[odd])
    base = np.broadcast_to(y[~odd].mean(axis=0), p.shape)       # each seat's (nation's) win rate
    return {"a": a, "b": b, "games": games, "positions": len(rows), "seed": seed,
            "brier_held_out": float(np.mean((p - y[odd]) ** 2)),
            "brier_nation_baseline": float(np.mean((base - y[odd]) ** 2))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.arena.win_probability", description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7_400_000)
    ap.add_argument("--out", default=str(CALIBRATION))
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    out = Path(args.out)
    table = json.loads(out.read_text()) if out.is_file() else {}
    table["_about"] = ("P(win) = sigmoid(a v + b) of the shipped network's value v, per player count, "
                       "written by: python -m agents.arena.win_probability " + " ".join(argv))
    for n in args.players:
        table[str(n)] = calibrate(n, args.games, args.seed)
        print(n, json.dumps(table[str(n)]))
    out.write_text(json.dumps(table, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
