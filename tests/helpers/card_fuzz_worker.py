"""Subprocess side of the card-set fuzz (tests/cards/test_cards_fuzz.py).

    python tests/helpers/card_fuzz_worker.py CASE.json [CASE.json ...]

For each mutated card set: `load_card_set` either raises CardDataError (printed as rejected) or
the set is played: one game per seat count with the readable invariant check, the observation
and the scores on every step (v1919_env.envs.conformance), then the compiled twin of the check over
every deck variant, with and without negotiation. One JSON line per case on stdout, `start`
before any work, so that a crash or a hang names the case it happened in. Any other exception
propagates (a non-zero exit), which the test reports as a failure.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))     # the tree this file belongs to, not an install
from v1919_env.cards import CardDataError, load_card_set
from v1919_env.envs.conformance import check_invariants, play_random
from v1919_env.core.invariants import MESSAGES, random_games_checked
from v1919_env.core.observe import OBS_SIZE, observe
from v1919_env.game import GAME_INFO, Game, card_tables, variant_names

MAX_DECISIONS = GAME_INFO["max_decisions"] + 5000


def _checker(g: Game, prev: Game | None) -> None:
    """Invariants, then what an agent reads at every step: an observation and (at the end) the scores."""
    check_invariants(g, prev)
    out = np.zeros(OBS_SIZE, np.float32)
    observe(g.state, g.T, max(g.current_player, 0), out)
    if not np.isfinite(out).all():
        raise AssertionError("non-finite observation")
    if g.is_over:
        g.scores()


def play_case(path: str, seed: int) -> dict:
    """Load one card set; play it if it loads. Returns the case's result record."""
    try:
        cs = load_card_set(path)
    except CardDataError as e:
        return {"result": "rejected", "error": str(e)}
    _, T = card_tables(path)
    decisions, truncated = [], 0
    for num_players in GAME_INFO["num_players"]:
        g = Game.new(num_players, seed=seed, card_set=path)
        _checker(g, None)
        decisions.append(play_random(g, np.random.default_rng(seed), _checker, MAX_DECISIONS))
        truncated += g.truncated
    out = np.zeros(2, np.int64)
    for v, name in enumerate(variant_names(cs)):
        for negotiation in (0, 1):
            for num_players in GAME_INFO["num_players"]:
                err, game, step = random_games_checked(2, num_players, T, seed + v, v, negotiation,
                                                       MAX_DECISIONS, out)
                if err:
                    raise AssertionError(f"variant {name}, negotiation {negotiation}, {num_players} players, "
                                         f"game {game} step {step}: {MESSAGES[err]}")
                decisions += [int(x) for x in out]
    return {"result": "played", "games": len(decisions), "decisions": sum(decisions), "truncated": truncated}


def main(paths: list[str]) -> int:
    for k, path in enumerate(paths):
        print(json.dumps({"case": k, "start": path}), flush=True)
        rec = play_case(path, seed=k)
        print(json.dumps({"case": k, **rec}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
