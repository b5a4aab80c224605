"""Behaviour fingerprint of the compiled core: a hash of random games' legal lists, actions and final states.

    PYTHONPATH=. python tools/fingerprint_core.py [--games 300] [--bots]
    PYTHONPATH=. python tools/fingerprint_core.py --ends 2000     # how rule-bot games end

For the solitaire game (every variant, every starting faction and the default), the 2-player game and
(--bots) rulebot games of 3 and 4 players, it plays games with fixed seeds, hashes every decision's
legal list (the solitaire bots' narrowed lists included), the action taken and the final state, and
prints one digest per mode. A speed change of the core must leave every digest unchanged.
"""
from __future__ import annotations

import argparse
import hashlib

import numpy as np

from v1919_env.core import layout as L
from v1919_env.core.board import _policy_next
from v1919_env.core.bots import bot_action
from v1919_env.core.step import apply_action, legal
from v1919_env.game import Game, card_tables, variant_names

FACTIONS = (None, "uk", "france", "usa")


def play(g: Game, h, r: int, bots: bool) -> int:
    """Play g to the end (uniform random, or the rulebot for every seat), feeding h; returns the generator."""
    s, T = g.state, g.T
    buf = np.empty(L.MAX_LEGAL, np.int64)
    rng = np.array([r], np.uint64)
    while s[L.GAME_OVER] == 0:
        n = legal(s, T, buf)
        h.update(buf[:n].tobytes())
        if bots:
            a = bot_action(s, T, buf, rng)
        else:
            r = int(_policy_next(np.uint64(r)))
            a = int(buf[(r >> 33) % n])
        h.update(np.int64(a).tobytes())
        apply_action(s, T, a)
    h.update(s.tobytes())
    return r


ENDS = {1: "rules", 2: "safety cap", 3: "deadlock"}      # the values of layout.GAME_OVER


def fingerprint(num_players: int, games: int, bots: bool, ends: dict | None = None) -> str:
    """The digest of `games` games; `ends`, if given, counts how they ended (ENDS' names)."""
    cs, _ = card_tables()
    variants = variant_names(cs)
    h = hashlib.sha256()
    for k in range(games):
        kw = {"faction": FACTIONS[k % 4]} if num_players == 1 else {}
        g = Game.new(num_players=num_players, seed=1000 + k, variant=variants[(k // 4) % len(variants)], **kw)
        play(g, h, 77 + k, bots)
        if ends is not None:
            e = ENDS[int(g.state[L.GAME_OVER])]
            ends[e] = ends.get(e, 0) + 1
    return h.hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--bots", action="store_true", help="also rulebot games of 2, 3 and 4 players")
    ap.add_argument("--ends", type=int, default=None, metavar="N",
                    help="instead: how N rulebot games of 2, 3 and 4 players end (rules, safety cap, deadlock)")
    a = ap.parse_args()
    if a.ends:
        for n in (2, 3, 4):
            ends: dict = {}
            fingerprint(n, a.ends, True, ends)
            print(f"{n}-player  rulebot {a.ends}: " + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())))
        return
    print(f"solitaire random {a.games}: {fingerprint(1, a.games, False)}")
    print(f"2-player  random {a.games}: {fingerprint(2, a.games, False)}")
    if a.bots:
        for n in (2, 3, 4):
            print(f"{n}-player  rulebot {a.games // 3}: {fingerprint(n, a.games // 3, True)}")


if __name__ == "__main__":
    main()
