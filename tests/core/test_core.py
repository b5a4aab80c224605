"""The rules core as a whole: invariants over many random games, determinism, bad input, the codec,
positions, clones and determinization."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest

from v1919_env import actions as codec
from v1919_env.envs.conformance import check_invariants, random_games
from v1919_env.core import layout as L
from v1919_env.core.invariants import MESSAGES, random_games_checked
from v1919_env.game import Game, IllegalActionError, card_tables
from v1919_env.positions.write import PositionError

VARIANTS = ("standard", "short15", "long10", "longest")


def _variant_index(v):
    return VARIANTS.index(v)


# ------------------------------------------------------------------ invariants on every step
@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("variant", VARIANTS)
def test_invariants_every_step_of_random_games(players, variant):
    """2,000 games in all (8 x 250): every invariant after every step; every game ends."""
    _, T = card_tables(None)
    out = np.zeros(250, np.int64)
    err, game, step = random_games_checked(250, players, T, 17 + players, _variant_index(variant), 0, 20000, out)
    assert err == 0, f"{MESSAGES[err]} in game {game} at step {step}"
    assert out.min() > 50


def test_invariants_with_negotiation_variant():
    _, T = card_tables(None)
    out = np.zeros(100, np.int64)
    err, game, step = random_games_checked(100, 4, T, 5, 0, 1, 20000, out)
    assert err == 0, f"{MESSAGES[err]} in game {game} at step {step}"


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
def test_invariants_long_run(players):
    _, T = card_tables(None)
    for v in range(4):
        out = np.zeros(5000, np.int64)
        err, game, step = random_games_checked(5000, players, T, 1000 + v, v, v % 2, 20000, out)
        assert err == 0, f"{MESSAGES[err]} in game {game} at step {step} (variant {v})"


@pytest.mark.parametrize("players", [3, 4])
def test_readable_conformance_check(players):
    """The Python twin of the invariant check (detailed messages, per-step comparison)."""
    lengths = random_games(6, players, check_invariants, seed=players)
    assert all(n > 50 for n in lengths)


# ------------------------------------------------------------------ determinism
def _play(seed, policy_seed, steps=None):
    g = Game.new(4, seed=seed)
    rng = np.random.default_rng(policy_seed)
    trace = []
    while not g.is_over and (steps is None or len(trace) < steps):
        acts = g.legal_actions()
        a = int(acts[rng.integers(len(acts))])
        trace.append(a)
        g.step(a)
    return g, trace


def _digest(g):
    return hashlib.sha256(g.state.tobytes()).hexdigest()


def test_same_seed_same_game_in_process():
    g1, t1 = _play(11, 3)
    # global RNGs must not matter (RLCard's check)
    np.random.seed(123)
    import random
    random.seed(5)
    g2, t2 = _play(11, 3)
    assert t1 == t2 and _digest(g1) == _digest(g2)


def test_different_seeds_different_games():
    a = Game.new(4, seed=1).to_dict()
    b = Game.new(4, seed=2).to_dict()
    assert (a["issue_deck"], a["events"]["deck"]) != (b["issue_deck"], b["events"]["deck"])


def test_same_seed_same_game_across_processes():
    g, trace = _play(21, 4)
    code = ("import sys, json, hashlib, numpy as np\n"
            "from v1919_env.game import Game\n"
            "g = Game.new(4, seed=21)\n"
            "for a in json.loads(sys.stdin.read()): g.step(a)\n"
            "print(hashlib.sha256(g.state.tobytes()).hexdigest())")
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(trace), capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == _digest(g)


def test_batch_kernel_matches_facade():
    from v1919_env.core.step import init_batch, mask_batch, step_batch, step_batch_unchecked
    _, T = card_tables(None)
    g, trace = _play(9, 9, steps=300)
    S = np.zeros((3, L.STATE_SIZE), np.int32)
    init_batch(S, T, 4, np.array([9, 9, 9]), 0, 0)
    M = np.zeros((3, codec.NUM_ACTIONS), np.int8)
    ok = np.zeros(3, np.int8)
    for a in trace:
        mask_batch(S, T, M)
        assert (M[:, a] == 1).all()
        bad = int(np.flatnonzero(M[2] == 0)[0])
        before = S[2].copy()
        # game 2 first gets an illegal action: refused, unchanged; then the real one, unchecked
        assert step_batch(S, T, np.array([a, a, bad]), ok) == 2 and ok.tolist() == [1, 1, 0]
        assert np.array_equal(S[2], before)
        step_batch_unchecked(S[2:], T, np.array([a]))
    for b in range(3):
        assert np.array_equal(S[b], g.state)


# ------------------------------------------------------------------ bad input
def test_illegal_action_raises_and_changes_nothing():
    g, _ = _play(4, 4, steps=40)
    before = g.state.tobytes()
    legal = set(int(a) for a in g.legal_actions())
    bad = next(a for a in range(codec.NUM_ACTIONS) if a not in legal)
    with pytest.raises(IllegalActionError) as e:
        g.step(bad)
    msg = str(e.value)
    assert f"phase '{g.decision}'" in msg and "legal actions:" in msg
    assert g.state.tobytes() == before
    with pytest.raises(IllegalActionError):
        g.step(-5)
    with pytest.raises(IllegalActionError):
        g.step(codec.NUM_ACTIONS + 3)
    assert g.state.tobytes() == before


def test_stepping_a_finished_game_raises():
    g, _ = _play(6, 6)
    assert g.is_over and len(g.legal_actions()) == 0
    with pytest.raises(IllegalActionError, match="over"):
        g.step(0)


@pytest.mark.parametrize("pos,field", [
    ({"num_players": 5}, "num_players"),
    ({"active": "germany"}, "active"),
    ({"happiness": {"uk": 31}}, "happiness.uk"),
    ({"regions": {"europe": {"unrest": 9}}}, "regions.europe.unrest"),
    ({"regions": {"asia": {"unrest": 2}}}, "regions"),
    ({"table": [{"issue": "Atlantis"}]}, "table[0].issue"),
    ({"table": [{"issue": "Smyrna", "cubes": {"uk": 3, "france": 3}}]}, "table[0].cubes"),
    ({"players": {"uk": {"influence": {"exhausted": 16}}}}, "players.uk.influence"),
    ({"players": {"uk": {"influence": {"available": 15, "exhausted": 2}}}}, "players.uk.influence"),
    ({"players": {"uk": {"military": {"deployed": {"europe": 4}}}}}, "players.uk.military.deployed.europe"),
    ({"settled": [{"issue": "Arabia", "controller": "uk", "option": "Nope"}]}, "settled[0].option"),
    ({"table": [{"issue": "Arabia"}], "waiting_room": [{"issue": "Arabia"}]}, "waiting_room[0]"),
    ({"forced_dice": [7]}, "forced_dice[0]"),
    ({"bogus": 1}, "position"),
    ({"regions": {"europe": {"unrest": 1, "powder_keg": 2}}}, "regions.europe"),
])
def test_malformed_positions_name_the_field(pos, field):
    with pytest.raises(PositionError) as e:
        Game.from_dict(pos)
    assert str(e.value).startswith(field), str(e.value)


# ------------------------------------------------------------------ the action codec
def test_every_action_id_decodes_and_reencodes():
    g = Game.new(4, seed=0)
    for a in range(codec.NUM_ACTIONS):
        kind, params = codec.decode(a)
        assert codec.encode(kind, **params) == a
        assert codec.describe(a, g)


def test_codec_rejects_bad_parameters():
    with pytest.raises(ValueError, match="place.n"):
        codec.encode("place", slot=0, n=16)
    with pytest.raises(ValueError, match="unknown action kind"):
        codec.encode("fly")
    assert "| place |" in codec.segment_table()


# ------------------------------------------------------------------ positions, clones, determinize
def test_position_round_trip_and_same_future():
    g, _ = _play(13, 2, steps=250)
    d = json.loads(json.dumps(g.to_dict()))
    h = Game.from_dict(d)
    assert h.to_dict() == d
    rng = np.random.default_rng(1)
    while not g.is_over:
        a = int(g.legal_actions()[rng.integers(len(g.legal_actions()))])
        g.step(a)
        h.step(a)
    assert g.to_dict() == h.to_dict()


@pytest.mark.parametrize("players, seed", [(3, 31), (4, 41), (4, 42), (3, 7005)])
def test_position_round_trip_at_every_decision(players, seed):
    """to_dict -> from_dict at every decision of whole random games (every decision kind, mid-
    procedure included) gives the same position and the same legal actions."""
    g = Game.new(players, seed=seed)
    rng = np.random.default_rng(seed)
    kinds = set()
    while not g.is_over:
        d = g.to_dict()
        h = Game.from_dict(json.loads(json.dumps(d)))
        assert h.to_dict() == d, g.decision
        acts = g.legal_actions()
        assert np.array_equal(np.sort(h.legal_actions()), np.sort(acts)), g.decision
        kinds.add(g.decision)
        g.step(int(acts[rng.integers(len(acts))]))
    assert {"turn", "place2", "option", "bid", "add_issue"} <= kinds


def test_position_with_a_mutiny_before_the_won_issues_option():
    """A bid paid with units can cause a mutiny before the winner chooses the issue's option
    (rulings A-10): the issue is controlled with no option yet, and the position still loads."""
    found = 0
    for seed in range(7000, 7060):
        g = Game.new(3 + seed % 2, seed=seed)
        rng = np.random.default_rng(seed)
        while not g.is_over:
            if g.decision == "mutiny":
                d = g.to_dict()
                if any(e.get("option") is None and e["issue"] != "GAME END (Rush to the Finish)"
                       for e in d["settled"]):
                    found += 1
                    assert Game.from_dict(d).to_dict() == d
            acts = g.legal_actions()
            g.step(int(acts[rng.integers(len(acts))]))
    assert found > 0


def test_mid_procedure_positions_are_sealed():
    """A position with engine internals loads only as written (forced dice and the generator
    state aside); the error says how to set up a position by hand."""
    g = Game.new(4, seed=3)
    rng = np.random.default_rng(3)
    while g.decision != "bid":
        acts = g.legal_actions()
        g.step(int(acts[rng.integers(len(acts))]))
    d = g.to_dict()
    for edit in (lambda x: x.update(active="italy"), lambda x: x["happiness"].update(uk=3),
                 lambda x: x["engine"]["stack"].__setitem__(1, 99), lambda x: x["engine"].pop("digest")):
        bad = json.loads(json.dumps(d))
        edit(bad)
        with pytest.raises(PositionError, match="^engine: .*leave out 'engine' and 'pending'"):
            Game.from_dict(bad)
    ok = json.loads(json.dumps(d))
    ok["forced_dice"] = [6, 6]
    assert Game.from_dict(ok).to_dict()["forced_dice"] == [6, 6]


def test_clone_is_independent():
    g, _ = _play(3, 3, steps=30)
    c = g.clone()
    c.step(int(c.legal_actions()[0]))
    assert not np.array_equal(c.state, g.state)


def test_determinize_keeps_the_visible_game():
    g, _ = _play(8, 1, steps=100)
    d1 = g.determinize(1).to_dict()
    d0 = g.to_dict()
    for k in ("table", "waiting_room", "settled", "players", "regions", "happiness", "issue_discards"):
        assert d1[k] == d0[k]
    assert sorted(d1["issue_deck"]) == sorted(d0["issue_deck"])
    assert d1["issue_deck"] != d0["issue_deck"] or d1["events"]["deck"] != d0["events"]["deck"]


def test_render_shows_the_board():
    text = Game.new(3, seed=2).render()
    for word in ("europe", "Waiting room", "On the table", "Happiness", "uk"):
        assert word in text


# ------------------------------------------------------------------ rules with no worked example
def test_pass_when_no_political_action_is_possible():
    """Rulings A-28: every cube on waiting-room issues, nothing to reclaim, nothing to settle."""
    g = Game.from_dict({
        "num_players": 3, "active": "uk",
        "table": [{"issue": "Arabia"}, {"issue": "Syria"}],
        "waiting_room": [{"issue": "Korea", "cubes": {"uk": 7}}, {"issue": "Vietnam", "cubes": {"uk": 8}},
                         {"issue": "Somalia"}],
        "players": {"uk": {"military": {"demobilized": 3}}},
    })
    kinds = {codec.decode(a).kind for a in g.legal_actions()}
    assert kinds == {"pass_political"}


def test_negotiation_transfer():
    g = Game.from_dict({"negotiation": True, "active": "uk",
                        "players": {"france": {"influence": {"exhausted": 5}}}})
    a = codec.encode("transfer", seat=1, n=4)
    assert a in g.legal_actions()
    g.step(a)
    d = g.to_dict()["players"]
    assert d["uk"]["influence"] == {"available": 11, "exhausted": 4}
    assert d["france"]["influence"] == {"available": 14, "exhausted": 1}
    assert not any(codec.decode(x).kind == "transfer" for x in g.legal_actions())   # once per turn


def test_deadlock_ends_the_game():
    """Project ruling P-10: a whole round of players with no political action ends the game. France and
    the USA hold one cube each, too few to lead two issues, so the cube check at the start of France's
    turn finds the same dead end first; the round of passes is checked on its own by setting the count
    of passes a round would have made."""
    def position():
        return Game.from_dict({
            "num_players": 3, "active": "uk",
            "table": [{"issue": "Arabia"}, {"issue": "Syria"}],
            "waiting_room": [{"issue": "Korea", "cubes": {"uk": 15}}, {"issue": "Vietnam", "cubes": {"france": 14}},
                             {"issue": "Somalia", "cubes": {"usa": 14}}],
            "players": {p: {"military": {"demobilized": 3}} for p in ("uk", "france", "usa")},
        })

    g = position()
    g.step(codec.encode("pass_political"))
    assert not g.is_over
    g.step(codec.encode("end_turn"))
    assert g.is_over and g.deadlocked and not g.truncated
    assert len(g.scores()) == 3
    g = position()
    g.state[L.PASS_STREAK] = 2                        # France and the USA passed before the UK
    g.step(codec.encode("pass_political"))
    assert g.is_over and g.deadlocked and not g.truncated


def test_frozen_cubes_end_the_game_though_units_can_still_move():
    """P-10, second paragraph: no Available or Exhausted influence anywhere and no cube on the Table:
    reclaiming and redeploying units could go on forever, so the game ends at the next turn. Before,
    three rule bots played this position to the 20,000-decision safety cap."""
    def position(uk_available):
        return Game.from_dict({
            "num_players": 3, "active": "uk",
            "table": [{"issue": "Arabia"}, {"issue": "Syria"}],
            "waiting_room": [{"issue": "Korea", "cubes": {"uk": 15 - uk_available}},
                             {"issue": "Vietnam", "cubes": {"france": 15}}, {"issue": "Somalia", "cubes": {"usa": 15}}],
            "players": {"uk": {"military": {"available": 1, "demobilized": 1, "deployed": {"balkans": 7}}},
                        "france": {"military": {"available": 0, "demobilized": 3}},
                        "usa": {"military": {"available": 1, "demobilized": 1, "deployed": {"middle_east": 8}}}},
        })

    g = position(0)
    reclaim = [a for a in g.legal_actions() if codec.decode(a).kind == "reclaim"]
    assert reclaim and not any(codec.decode(a).kind in ("place", "settle") for a in g.legal_actions())
    g.step(reclaim[0])                                   # recall units: no influence comes back
    assert not g.is_over
    g.step(codec.encode("end_turn"))
    assert g.is_over and g.deadlocked and not g.truncated
    assert len(g.scores()) == 3
    # two Available cubes place one on each empty Table issue, so the game goes on
    g = position(2)
    assert any(codec.decode(a).kind == "place" for a in g.legal_actions())
    g.step([a for a in g.legal_actions() if codec.decode(a).kind == "reclaim"][0])
    g.step(codec.encode("end_turn"))
    assert not g.is_over and g.decision == "turn"


def test_a_cube_too_few_to_place_is_frozen_too():
    """P-10: Place Influence needs exactly two issues led (EN:252-256), so a faction whose Available
    and Exhausted cubes together are fewer than the cheapest such pair can never place. With the
    Table empty the game ends, though that faction still holds a cube. Before, a 2-player game of a
    search agent against the rule bot deployed and recalled a unit every turn, a political action
    each time, so the round of passes never came (tournament goals_2p_botprior_rulebot.yaml game 24)."""
    def position(uk_available, uk_exhausted=0):
        return Game.from_dict({
            "num_players": 3, "active": "uk",
            "table": [{"issue": "Arabia"}, {"issue": "Syria"}],
            "waiting_room": [{"issue": "Korea", "cubes": {"uk": 15 - uk_available - uk_exhausted}},
                             {"issue": "Vietnam", "cubes": {"france": 15}}, {"issue": "Somalia", "cubes": {"usa": 15}}],
            "players": {"uk": {"influence": {"available": uk_available, "exhausted": uk_exhausted},
                               "military": {"available": 1, "demobilized": 1, "deployed": {"balkans": 7}}},
                        "france": {"military": {"available": 0, "demobilized": 3}},
                        "usa": {"military": {"available": 1, "demobilized": 1, "deployed": {"middle_east": 8}}}},
        })

    g = position(1)
    assert not any(codec.decode(a).kind == "place" for a in g.legal_actions())
    g.step([a for a in g.legal_actions() if codec.decode(a).kind == "reclaim"][0])
    g.step(codec.encode("end_turn"))
    assert g.is_over and g.deadlocked and not g.truncated
    # one Available and one Exhausted: a reclaim makes two, enough for the two empty Table issues
    g = position(1, 1)
    g.step([a for a in g.legal_actions() if codec.decode(a).kind == "reclaim"][0])
    g.step(codec.encode("end_turn"))
    assert not g.is_over and g.decision == "turn"


def test_declared_game_info():
    from v1919_env.core.step import MAX_DECISIONS
    from v1919_env.game import GAME_INFO
    assert GAME_INFO["num_actions"] == codec.NUM_ACTIONS and GAME_INFO["max_decisions"] == MAX_DECISIONS
    lengths = random_games(3, 4, None, seed=77)
    assert max(lengths) < GAME_INFO["max_decisions"]


def test_determinize_longest_variant_keeps_game_end_at_the_bottom():
    from v1919_env.core.tables import T_GAME_END
    g = Game.new(4, seed=3, variant="longest")
    ge = int(g.T[T_GAME_END])
    for k in range(5):
        d = g.determinize(k)
        deck = list(d.state[L.ISSUE_DECK:L.ISSUE_DECK + int(d.state[L.ISSUE_DECK_N])])
        assert ge in deck[:6]


def test_the_canonical_shuffle_and_the_policy_draw_are_exact():
    """The determinization's sort by counting gives the insertion sort's order (values beyond
    SORT_RANGE take that path), whatever order it replaces; a policy draw's 32-bit remainder is the
    64-bit one."""
    from v1919_env.core.board import _policy_index
    from v1919_env.core.tree import SORT_RANGE, canonical_shuffle

    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 17, 46, 53):
        cards = rng.permutation(SORT_RANGE)[:n]
        small = np.concatenate([[7], cards, [9]]).astype(np.int32)
        reordered = small.copy()
        reordered[1:1 + n] = cards[::-1]
        big = small.copy()
        big[1:1 + n] += 1000
        for a in (small, reordered, big):
            canonical_shuffle(a, 1, n, np.array([12345], np.uint64))
        assert small.tolist() == reordered.tolist() and (small[0], small[-1]) == (7, 9)
        assert (big[1:1 + n] - 1000).tolist() == small[1:1 + n].tolist()
    for x, m in zip(rng.integers(0, 2 ** 63, 2000, dtype=np.uint64) * np.uint64(2) + np.uint64(1),
                    rng.integers(1, 2 ** 31, 2000)):
        assert _policy_index(x, m) == (int(x) >> 33) % int(m)


def test_legal_actions_are_the_mask_in_the_engines_order():
    """Game.legal_actions() is the mask's ids exactly, each once, in the engine's deterministic order,
    which is not always ascending (the docstring says so; OpenSpiel's adapter sorts)."""
    import numpy as np

    from v1919_env.game import Game

    unsorted = 0
    for seed in range(6):
        g, rng = Game.new(4, seed=seed), np.random.default_rng(seed)
        while len(ids := g.legal_actions()):
            assert len(set(ids.tolist())) == len(ids) and np.array_equal(np.sort(ids), np.flatnonzero(g.action_mask()))
            assert np.array_equal(ids, g.legal_actions())
            unsorted += bool((np.diff(ids) < 0).any())
            g.step(int(rng.choice(ids)))
    assert unsorted > 0
