"""The compact observation (docs/observation.md): every float of it follows from the full observation
of the same seat by the mapping its layout describes, at every step of random games of every player
count; its layout, bounds and sparsity."""
from __future__ import annotations

import numpy as np
import pytest

from v1919_env.core import layout as L
from v1919_env.core.observe import OBS_SIZE, R, obs_slices, observe
from v1919_env.core.observe_compact import (COMPACT_SIZE, COMPACT_SLICES, EW, IW, RW, SW, compact_slices,
                                            observe_compact)
from v1919_env.game import Game

F = {k: (o, n) for k, (o, n, _) in obs_slices().items()}
C = {k: (o, n) for k, (o, n, _) in compact_slices().items()}
COPIED = ("decision", "decider", "active_seat", "turn", "deck_sizes", "draft_done", "event_cube", "nation_happiness",
          "nation_signs", "strategy_dealt", "slot_cubes", "counters_in_play")


def _f(full: np.ndarray, name: str) -> np.ndarray:
    o, n = F[name]
    return full[o:o + n]


def compact_from_full(full: np.ndarray) -> np.ndarray:
    """The compact observation, derived from the full one slice by slice (the layout's words in numpy)."""
    out = np.zeros(COMPACT_SIZE, np.float32)

    def put(name, values):
        o, n = C[name]
        out[o:o + n] = np.asarray(values, np.float32).reshape(n)

    for name in COPIED:
        put(name, _f(full, name))
    put("bid", _f(full, "bid")[:3 + R])
    seats = np.zeros((L.MAX_PLAYERS, SW), np.float32)
    for j, name in enumerate(("players_present", "influence_available", "influence_exhausted", "military_available",
                              "military_exhausted", "military_demobilized", "player_happiness",
                              "issues_controlled_stars")):
        seats[:, j] = _f(full, name)
    seats[:, 8:8 + L.N_NATIONS] = _f(full, "seat_nation").reshape(L.MAX_PLAYERS, L.N_NATIONS)
    seats[:, 8 + L.N_NATIONS:] = _f(full, "player_strategy").reshape(L.MAX_PLAYERS, L.N_STRATEGIES)
    put("seats", seats)
    regions = np.zeros((L.N_REGIONS, RW), np.float32)
    regions[:, :8] = _f(full, "unrest").reshape(L.N_REGIONS, 8)
    regions[:, 8:12] = _f(full, "powder_keg").reshape(L.N_REGIONS, 4)
    deployed = _f(full, "deployed").reshape(L.MAX_PLAYERS, L.N_REGIONS, 4)     # column 5..8 one-hot
    regions[:, 12:16] = (deployed * (np.arange(1, 5) / 4.0)).sum(axis=2).T
    regions[:, 16] = _f(full, "uprising_region")
    put("regions", regions)
    issues = np.zeros((L.N_ISSUES, IW), np.float32)
    slot_issue = _f(full, "slot_issue").reshape(L.N_SLOTS, L.N_ISSUES)
    cubes = _f(full, "slot_cubes").reshape(L.N_SLOTS, L.MAX_PLAYERS)
    for sl in range(L.N_SLOTS):
        for i in np.flatnonzero(slot_issue[sl]):
            issues[i, sl] = 1.0                                   # which slot: 0-1 table, 2-4 waiting room
            issues[i, 18:22] = cubes[sl]                         # cubes per relative seat
    issues[:, 5] = (_f(full, "discard_top3").reshape(3, L.N_ISSUES) * np.array([[1.0], [2 / 3], [1 / 3]])).sum(0)
    issues[:, 6:10] = _f(full, "settled_controller").reshape(L.N_ISSUES, R)[:, :L.MAX_PLAYERS]
    issues[:, 10:14] = _f(full, "settled_option").reshape(L.N_ISSUES, 4)
    issues[:, 14] = _f(full, "settled_naval_uk")
    issues[:, 15:17] = _f(full, "drawn_issues").reshape(2, L.N_ISSUES).T      # drawn first, second
    at_stake = _f(full, "bid")[3 + R:]
    issues[:, 17] = np.minimum(1.0, _f(full, "settling_issue") + at_stake)
    put("issues", issues)
    events = np.zeros((L.N_EVENTS, EW), np.float32)
    events[:, 0] = _f(full, "event_table")
    events[:, 1:3] = _f(full, "event_waiting").reshape(2, L.N_EVENTS).T          # waiting slot 0, 1
    put("events", events)
    return out


def test_the_layout_is_contiguous_and_its_rows_are_described():
    assert sum(n for _, n, _ in COMPACT_SLICES) == COMPACT_SIZE == 1596
    offs = list(compact_slices().values())
    assert all(a[0] + a[1] == b[0] for a, b in zip(offs, offs[1:]))
    assert C["seats"][1] == L.MAX_PLAYERS * SW and C["issues"][1] == L.N_ISSUES * IW
    assert C["regions"][1] == L.N_REGIONS * RW and C["events"][1] == L.N_EVENTS * EW
    assert COMPACT_SIZE < 0.8 * OBS_SIZE


@pytest.mark.parametrize("players,negotiation", [(1, False), (2, False), (3, False), (4, False), (4, True)])
def test_every_float_follows_from_the_full_observation_at_every_step(players, negotiation):
    full = np.empty(OBS_SIZE, np.float32)
    compact = np.empty(COMPACT_SIZE, np.float32)
    nonzeros = []
    for seed in range(3):
        g = Game.new(num_players=players, seed=100 + seed, negotiation=negotiation)
        rng = np.random.default_rng(seed)
        seen = set()
        while True:
            for seat in range(players):
                observe(g.state, g.T, seat, full)
                observe_compact(g.state, g.T, seat, compact)
                want = compact_from_full(full)
                bad = np.flatnonzero(np.abs(compact - want) > 1e-6)
                assert not len(bad), (f"{players} players, seed {100 + seed}, seat {seat}, decision {g.decision}: "
                                      f"floats {bad[:8]} differ ({compact[bad[:8]]} vs {want[bad[:8]]})")
                assert 0.0 <= compact.min() and compact.max() <= 10.0       # the envs' Box bounds
                nonzeros.append(np.count_nonzero(compact))
            seen.add(g.decision)
            if g.is_over:
                break
            g.step(int(rng.choice(g.legal_actions())))
        assert len(seen) > 5
    assert np.mean(nonzeros) < 125          # (the full observation has about 160)


def test_the_two_player_usa_faction_and_the_solitaire_point_of_view():
    """Seat rows follow the full observation's seats: in the 2-player game the USA faction, in the
    solitaire game the faction the player controls now (relative seat 0)."""
    compact = np.empty(COMPACT_SIZE, np.float32)
    for players in (1, 2):
        g = Game.new(num_players=players, seed=5)
        observe_compact(g.state, g.T, 0, compact)
        seats = compact[C["seats"][0]:C["seats"][0] + C["seats"][1]].reshape(L.MAX_PLAYERS, SW)
        n = int(g.state[L.NUM_PLAYERS])
        assert seats[:, 0].sum() == n
        me = int(g.state[L.SOLO_FACTION]) if players == 1 else 0
        assert int(np.argmax(seats[0, 8:8 + L.N_NATIONS])) == me


def _compact_digest() -> str:
    """sha256 of the compact observation of every seat at every step of seeded random games (1 to 4
    players)."""
    import hashlib

    h = hashlib.sha256()
    out = np.empty(COMPACT_SIZE, np.float32)
    for players in (1, 2, 3, 4):
        g = Game.new(num_players=players, seed=7)
        rng = np.random.default_rng(players)
        while not g.is_over:
            for seat in range(players):
                observe_compact(g.state, g.T, seat, out)
                h.update(out.tobytes())
            legal = g.legal_actions()
            g.step(int(legal[rng.integers(len(legal))]))
    return h.hexdigest()[:16]


def test_the_fingerprint_of_compact_observation_version_2():
    """A changed encoding changes this digest: then COMPACT_OBSERVATION_VERSION goes up
    (docs/versioning.md) and the digest here with it."""
    from v1919_env.envs.versions import COMPACT_OBSERVATION_VERSION

    assert COMPACT_OBSERVATION_VERSION == 2
    assert _compact_digest() == "5173b93d09d06974"
