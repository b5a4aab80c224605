"""Observation version 2: the nation at each relative seat, and the solitaire game seen from the
faction the player controls now (docs/observation.md, docs/versioning.md)."""
from __future__ import annotations

import numpy as np
import pytest

from v1919_env.core import layout as L
from v1919_env.core.observe import OBS_SIZE, obs_slices, observe
from v1919_env.game import Game

SEAT_NATION = obs_slices()["seat_nation"]
MY_NATION = obs_slices()["my_nation"]
PRESENT = obs_slices()["players_present"]


def _obs(g: Game, seat: int) -> np.ndarray:
    out = np.empty(OBS_SIZE, np.float32)
    observe(g.state, g.T, seat, out)
    return out


def _seat_nations(o: np.ndarray) -> list[int]:
    """The nation one-hot of every relative seat in play (-1 where the seat is empty)."""
    off, n, _ = SEAT_NATION
    block = o[off:off + n].reshape(L.MAX_PLAYERS, L.N_NATIONS)
    return [int(np.argmax(row)) if row.sum() else -1 for row in block]


def test_seat_nation_is_the_last_slice_so_version_1_is_a_prefix():
    off, n, _ = SEAT_NATION
    assert off + n == OBS_SIZE
    assert max(o + k for o, k, _ in obs_slices().values() if o < off) == off


@pytest.mark.parametrize("seating", [None, ["uk", "usa", "italy", "france"], ["italy", "france", "usa", "uk"]])
def test_seat_nation_follows_the_seating_clockwise(seating):
    g = Game.new(4, seed=3, seating=seating)
    order = [g.state[L.SEATING + k] for k in range(4)]          # nations clockwise around the table
    for seat in range(4):
        o = _obs(g, seat)
        me = order.index(seat)
        assert _seat_nations(o) == [order[(me + k) % 4] for k in range(4)]
        assert _seat_nations(o)[0] == int(np.argmax(o[MY_NATION[0]:MY_NATION[0] + MY_NATION[1]]))


@pytest.mark.parametrize("players", [2, 3])
def test_seat_nation_marks_only_seats_in_play(players):
    g = Game.new(players, seed=1)
    nations = _seat_nations(_obs(g, 0))
    n = int(g.state[L.NUM_PLAYERS])
    assert nations[:n] == [int(g.state[L.SEATING + k]) for k in range(n)]
    assert nations[n:] == [-1] * (L.MAX_PLAYERS - n)
    off, size, _ = PRESENT
    assert _obs(g, 0)[off:off + size].sum() == n


def test_solitaire_observation_is_centred_on_the_controlled_faction():
    """The faction switch (EN:949-953) moves the point of view: my_nation and relative seat 0 are
    the faction the player controls, whichever seat the caller names."""
    seen = set()
    for seed in range(40):
        g = Game.new(1, seed=seed)
        rng = np.random.default_rng(seed)
        while not g.is_over and len(seen) < 3:
            f = g.solo_faction
            o = _obs(g, 0)
            assert np.array_equal(o, _obs(g, 1))                # any seat asked: the player's view
            assert o[MY_NATION[0] + f] == 1.0 and o[MY_NATION[0]:MY_NATION[0] + MY_NATION[1]].sum() == 1.0
            assert _seat_nations(o)[0] == f
            seen.add(f)
            acts = g.legal_actions()
            g.step(int(acts[rng.integers(len(acts))]))
        if len(seen) == 3:
            break
    assert seen == {0, 1, 2}, f"random play never controlled every faction: {seen}"


def test_solitaire_env_observation_follows_the_faction():
    import v1919_env

    env = v1919_env.solitaire_env(faction="france")
    obs, info = env.reset(seed=0)
    assert info["faction"] == "france"
    o = obs["observation"]
    assert o[MY_NATION[0] + 1] == 1.0 and _seat_nations(o)[0] == 1
