"""Mutated positions (hypothesis): `Game.from_dict` either loads a sound game (every invariant
holds, a legal action can be taken) or raises PositionError naming the field; never another
exception, a crash or a hang in the kernels."""
from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from v1919_env.envs.conformance import check_invariants
from v1919_env.game import Game
from v1919_env.positions.write import PositionError


def _positions():
    """Positions of random games, every 41st decision, as JSON, with the game's state array."""
    out = []
    for seed in range(6):
        g = Game.new(3 + seed % 2, seed=seed)
        rng = np.random.default_rng(seed)
        k = 0
        while not g.is_over:
            if k % 41 == 0:
                out.append((json.dumps(g.to_dict()), g.state.copy()))
            acts = g.legal_actions()
            g.step(int(acts[rng.integers(len(acts))]))
            k += 1
    return out


POSITIONS, STATES = zip(*_positions())
JUNK = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 20, 10 ** 20), st.integers(-3, 60),
                 st.floats(allow_nan=False), st.text(max_size=12), st.sampled_from(["uk", "europe", "Smyrna", "turn"]),
                 st.lists(st.integers(-2, 60), max_size=3),
                 st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))


def _paths(x, path=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield path + (k,)
            yield from _paths(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield path + (i,)
            yield from _paths(v, path + (i,))


def test_the_unmutated_positions_load_their_games_whole_state():
    """Every slot of the state array, the unused ones included (issue 20)."""
    for d, state in zip(POSITIONS, STATES):
        g = Game.from_dict(json.loads(d))
        assert np.array_equal(g.state, state), np.nonzero(g.state != state)[0]


@settings(max_examples=1500, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_positions_load_soundly_or_name_the_field(data):
    d = json.loads(data.draw(st.sampled_from(POSITIONS)))
    if data.draw(st.booleans()):
        for k in ("engine", "pending", "turn_state"):          # a hand-made position
            d.pop(k, None)
    for _ in range(data.draw(st.integers(1, 2))):
        path = data.draw(st.sampled_from(sorted(_paths(d), key=repr)))
        parent = d
        for q in path[:-1]:
            parent = parent[q]
        how = data.draw(st.sampled_from(["junk", "nudge", "drop"]))
        cur = parent[path[-1]]
        if how == "drop":
            del parent[path[-1]]
        elif how == "nudge" and isinstance(cur, int) and not isinstance(cur, bool):
            parent[path[-1]] = cur + data.draw(st.sampled_from([-2, -1, 1, 2]))
        else:
            parent[path[-1]] = data.draw(JUNK)
    try:
        g = Game.from_dict(d)
    except PositionError:
        return
    check_invariants(g)
    acts = g.legal_actions()
    assert g.is_over or len(acts) > 0
    if len(acts):
        g.step(int(acts[0]))
        check_invariants(g)
