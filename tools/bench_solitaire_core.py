"""Random-play speed of the solitaire and 2-player games in the compiled core beside the 4-player game.

    PYTHONPATH=. python tools/bench_solitaire_core.py [--seconds 3] [--batch 256]

Plays batches of games to the end with uniformly random legal actions (core/step.py
random_playout_batch, one compiled call per batch) and prints, per mode: the player's decisions per
second (what an agent steps through), all decisions per second (the solitaire bots' own decisions,
taken inside the kernel, included), games per second and decisions per game. Best of the rounds. The
issue's goal: the solitaire game's all decisions per second at least half the 4-player game's.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from v1919_env.core import layout as L
from v1919_env.core.step import init_batch, random_playout_batch
from v1919_env.game import card_tables


def rate(T, num_players: int, batch: int, seconds: float) -> dict:
    best = None
    deadline = time.perf_counter() + seconds
    r = 0
    while r < 2 or time.perf_counter() < deadline:
        S = np.zeros((batch, L.STATE_SIZE), L.STATE_DTYPE)
        t = time.perf_counter()
        init_batch(S, T, num_players, np.arange(batch, dtype=np.int64) + r * batch, 0, 0)
        player = random_playout_batch(S, T, r, 1 << 30)
        dt = time.perf_counter() - t
        allk = int(S[:, L.DECISIONS].sum())
        row = {"players": num_players, "player_decisions_per_s": player / dt, "all_decisions_per_s": allk / dt,
               "games_per_s": batch / dt, "player_decisions_per_game": player / batch,
               "all_decisions_per_game": allk / batch}
        if best is None or row["player_decisions_per_s"] > best["player_decisions_per_s"]:
            best = row
        r += 1
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--batch", type=int, default=256)
    a = ap.parse_args()
    _, T = card_tables()
    rate(T, 1, 8, 0.0)                    # compile / warm up
    rate(T, 2, 8, 0.0)
    rate(T, 4, 8, 0.0)
    rows = [rate(T, n, a.batch, a.seconds) for n in (1, 2, 4)]
    print(f"{'mode':<11} {'player dec/s':>13} {'all dec/s':>11} {'games/s':>9} {'player dec/game':>16} "
          f"{'all dec/game':>13}")
    for w in rows:
        mode = "solitaire" if w["players"] == 1 else f"{w['players']}-player"
        print(f"{mode:<11} {w['player_decisions_per_s']:>13,.0f} "
              f"{w['all_decisions_per_s']:>11,.0f} {w['games_per_s']:>9,.1f} {w['player_decisions_per_game']:>16.1f} "
              f"{w['all_decisions_per_game']:>13.1f}")
    four = rows[-1]["all_decisions_per_s"]
    print(f"solitaire / 4-player decisions per second: all {rows[0]['all_decisions_per_s'] / four:.2f}, "
          f"player {rows[0]['player_decisions_per_s'] / four:.2f}; "
          f"2-player / 4-player: {rows[1]['all_decisions_per_s'] / four:.2f}")


if __name__ == "__main__":
    main()
