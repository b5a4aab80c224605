"""Golden playthroughs (OpenSpiel's habit): recorded random games that must replay identically.

Regenerate after a deliberate rules or data change with `python tests/helpers/golden.py`
and review the diff of tests/helpers/golden_playthroughs.json.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from v1919_env.game import Game

PATH = Path(__file__).with_name("golden_playthroughs.json")
CASES = [(3, 101, "standard"), (4, 202, "standard"), (4, 303, "longest"), (3, 404, "short15")]


def play(players: int, seed: int, variant: str) -> dict:
    g = Game.new(players, seed=seed, variant=variant)
    rng = np.random.default_rng(seed)
    actions, described = [], []
    while not g.is_over:
        acts = g.legal_actions()
        a = int(acts[rng.integers(len(acts))])
        if len(described) < 25:
            described.append(f"{g.seat_name(g.current_player)} [{g.decision}] {g.describe(a)}")
        actions.append(a)
        g.step(a)
    final = json.dumps(g.to_dict(), sort_keys=True)
    return {"players": players, "seed": seed, "variant": variant, "card_set": g.cards.label,
            "decisions": len(actions), "first_decisions": described,
            "actions_sha256": hashlib.sha256(json.dumps(actions).encode()).hexdigest(),
            "final_position_sha256": hashlib.sha256(final.encode()).hexdigest(),
            "scores": g.scores()}


def generate() -> list[dict]:
    return [play(*c) for c in CASES]


if __name__ == "__main__":
    PATH.write_text(json.dumps(generate(), indent=1) + "\n")
    print(f"wrote {PATH}")
