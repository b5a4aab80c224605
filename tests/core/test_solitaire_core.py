"""The solitaire game in the core (EN 'Solitaire Rules', EN:832-966): setup, configuration, the
player's faction and VP, the faction switch, forced settle, positions, invariants, determinism.
The bots' own rules are tested one by one in tests/core/test_solitaire_bots.py."""
from __future__ import annotations

import json

import numpy as np
import pytest

from v1919_env.actions import IllegalActionError
from v1919_env.core import layout as L
from v1919_env.game import Game
from v1919_env.positions.write import PositionError

UK, FRANCE, USA = 0, 1, 2


def play_random(g, seed, check=None, limit=100000):
    rng = np.random.default_rng(seed)
    k = 0
    while not g.is_over and k < limit:
        if check:
            check(g)
        acts = g.legal_actions()
        g.step(int(acts[rng.integers(len(acts))]))
        k += 1
    return k


# ----------------------------------------------------------------------------- setup and configuration
def test_solitaire_setup_three_factions_two_waiting_issues_no_strategy_cards():
    """EN:860-875: set up for three, two waiting-room issues, no strategy cards, no Italian or
    Japanese happiness, VP and strengths at zero, the player the faction that goes last."""
    for seed in range(5):
        g = Game.new(1, seed=seed)
        d = g.to_dict()
        assert g.solitaire and g.num_players == 1 and g.num_factions == 3
        assert [e is not None for e in d["waiting_room"]] == [True, True, False]
        assert d["strategies"]["dealt"] == []
        assert d["happiness"]["italy"] == 0 and d["happiness"]["japan"] == 0
        assert all(d["happiness"][n] == 20 for n in ("uk", "france", "usa"))
        assert set(d["players"]) == {"uk", "france", "usa"}
        assert all(p["military"]["available"] == 3 for p in d["players"].values())
        assert d["solitaire"]["vp"] == 0 and d["solitaire"]["target_vp"] == 20
        # the player goes last: the first player is the faction after it clockwise
        first = int(g.state[L.FIRST_PLAYER])
        assert (first + 2) % 3 == int(g.state[L.SOLO_FACTION])
        assert g.current_player == 0


@pytest.mark.parametrize("faction", ["uk", "france", "usa"])
def test_chosen_faction_goes_last(faction):
    g = Game.new(1, seed=4, faction=faction)
    f = ["uk", "france", "usa"].index(faction)
    assert g.solo_faction == f
    assert int(g.state[L.FIRST_PLAYER]) == (f + 1) % 3
    d = g.to_dict()
    assert d["first_player"] == ["uk", "france", "usa"][(f + 1) % 3] and d["solitaire"]["faction"] == faction


def test_bad_solitaire_config_is_rejected_naming_the_field():
    for bad in ("italy", "UKK", 0, ""):
        with pytest.raises(ValueError, match="faction must be one of"):
            Game.new(1, faction=bad)
    for bad in (0, -5, 2.5, "20", True, 1000):
        with pytest.raises(ValueError, match="target_vp"):
            Game.new(1, target_vp=bad)
    with pytest.raises(ValueError, match="negotiation"):
        Game.new(1, negotiation=True)
    with pytest.raises(ValueError, match="faction is a solitaire setting"):
        Game.new(3, faction="uk")
    with pytest.raises(ValueError, match="target_vp is a solitaire setting"):
        Game.new(4, target_vp=25)
    assert Game.new(1, faction="USA", target_vp=25).target_vp == 25


def test_seating_orders_the_three_factions():
    g = Game.new(1, seed=2, seating=["uk", "usa", "france"], faction="usa")
    assert g.seating == ["uk", "usa", "france"]
    assert int(g.state[L.FIRST_PLAYER]) == FRANCE          # after the USA clockwise


# ----------------------------------------------------------------------------- random play
def test_random_games_end_and_every_decision_is_the_players():
    """The bots' own decisions never reach the player; every decision is seat 0's, for its own
    faction or for a bot where the rules leave the choice to the player."""
    for seed in range(6):
        g = Game.new(1, seed=seed, variant=["standard", "longer", "even_longer", "longest"][seed % 4])

        def check(g):
            assert g.current_player == 0
            assert 0 <= g.acting_for < 3 and 0 <= g.solo_faction < 3
            assert g.decision not in ("draft", "event_cube")
        play_random(g, seed, check)
        assert g.is_over and not g.truncated
        sc = g.scores()
        assert len(sc) == 1 and sc[0]["total"] == g.player_vp and sc[0]["winner"] == (g.player_vp >= 20)


def test_same_seed_same_actions_same_game():
    a, b = Game.new(1, seed=11), Game.new(1, seed=11)
    rng = np.random.default_rng(0)
    while not a.is_over:
        assert a == b
        acts = a.legal_actions()
        x = int(acts[rng.integers(len(acts))])
        a.step(x)
        b.step(x)
    assert a == b and a.to_dict() == b.to_dict()


def test_illegal_action_changes_nothing_and_names_the_bot():
    g = Game.new(1, seed=0)
    rng = np.random.default_rng(1)
    seen_bot = False
    for _ in range(300):
        if g.is_over:
            break
        legal = set(int(x) for x in g.legal_actions())
        bad = next(a for a in range(2000) if a not in legal)
        before = g.state.copy()
        with pytest.raises(IllegalActionError) as e:
            g.step(bad)
        assert np.array_equal(before, g.state)
        assert "the player (controlling" in str(e.value)
        if g.acting_for != g.solo_faction:
            seen_bot = True
            assert "bot (solitaire bot rules" in str(e.value)
        acts = g.legal_actions()
        g.step(int(acts[rng.integers(len(acts))]))
    assert seen_bot


# ----------------------------------------------------------------------------- positions
def test_positions_round_trip_at_every_decision():
    for seed in range(2):
        g = Game.new(1, seed=seed, faction="france", target_vp=17)
        rng = np.random.default_rng(seed)
        while not g.is_over:
            d = g.to_dict()
            h = Game.from_dict(json.loads(json.dumps(d)))
            assert h.to_dict() == d
            acts = g.legal_actions()
            x = int(acts[rng.integers(len(acts))])
            g.step(x)
            h.step(x)
            assert h.to_dict() == g.to_dict()
        d = g.to_dict()                         # the final position too
        h = Game.from_dict(json.loads(json.dumps(d)))
        assert h.is_over and h.to_dict() == d and h.scores() == g.scores()


def test_position_solitaire_section_is_checked():
    d = Game.new(1, seed=1).to_dict()
    assert set(d["solitaire"]) == {"faction", "vp", "target_vp", "strengths", "pending_for"}
    for k in ("engine", "pending"):     # a hand-edited position (the engine section is sealed)
        del d[k]
    del d["solitaire"]["pending_for"]
    for key, val, field in (("faction", "italy", "solitaire.faction"), ("vp", -1, "solitaire.vp"),
                            ("target_vp", 0, "solitaire.target_vp"),
                            ("strengths", {"uk": 3, "france": 0, "usa": 0}, "solitaire.strengths.uk")):
        bad = json.loads(json.dumps(d))
        bad["solitaire"][key] = val
        with pytest.raises(PositionError, match=field.replace(".", r"\.")):
            Game.from_dict(bad)
    bad = json.loads(json.dumps(d))
    bad["happiness"]["japan"] = 20
    with pytest.raises(PositionError, match="happiness.japan"):
        Game.from_dict(bad)
    three = {"num_players": 3, "solitaire": {"vp": 1}}
    with pytest.raises(PositionError, match="solitaire"):
        Game.from_dict(three)


def test_hand_written_position_carries_vp_level_and_faction():
    g = Game.from_dict({"num_players": 1, "active": "usa", "solitaire": {"faction": "usa", "vp": 7, "target_vp": 9}})
    assert (g.solo_faction, g.player_vp, g.target_vp) == (USA, 7, 9)
    assert g.acting_for == USA and g.decision == "turn"


# ----------------------------------------------------------------------------- compiled checks and batches
@pytest.mark.parametrize("variant", range(4))
def test_invariants_hold_on_every_step_of_random_solitaire_games(variant):
    """core/invariants.py (with its solitaire checks: setup, the player's seat, no bot decision
    left to the player that the bot rules settle) after every decision of random games."""
    from v1919_env.core.invariants import MESSAGES, random_games_checked
    from v1919_env.game import card_tables
    _, T = card_tables()
    out = np.zeros(60, np.int64)
    code, game, step = random_games_checked(60, 1, T, 40 + variant, variant, 0, 20000, out)
    assert code == 0, f"variant {variant}: {MESSAGES[code]} in game {game} at step {step}"
    assert out.min() > 50


def test_solo_invariant_check_can_fail():
    from v1919_env.core.invariants import BAD_SOLO, BOT_LEFT, check
    g = Game.new(1, seed=3)
    prev = np.ones(L.N_NATIONS, np.int64)
    assert check(g.state, g.T, prev) == 0
    s = g.state.copy()
    s[L.HAPPY + 4] = 20                       # Japan's marker back in play
    assert check(s, g.T, prev) == BAD_SOLO
    s = g.state.copy()
    s[L.PENDING_PLAYER] = 1
    assert check(s, g.T, prev) == BAD_SOLO
    # a bot decision with a single action left pending (the kernel takes those itself)
    g = Game.from_dict({"num_players": 1, "active": "france", "solitaire": {"faction": "usa"}})
    s = g.state.copy()
    s[L.ACTIVE] = s[L.PENDING_FACTION] = 1
    s[L.PENDING] = L.D_ADD_ISSUE            # the bot only draws (EN:920)
    assert check(s, g.T, prev) == BOT_LEFT


def test_batch_kernels_play_solitaire_like_the_facade():
    from v1919_env.core.step import init_batch, mask_batch, step_batch
    from v1919_env.game import card_tables
    from v1919_env.actions import NUM_ACTIONS
    _, T = card_tables()
    seeds = np.arange(5, dtype=np.int64)
    S = np.zeros((5, L.STATE_SIZE), np.int32)
    init_batch(S, T, 1, seeds, 0, 0)
    games = [Game.new(1, seed=int(x)) for x in seeds]
    rng = np.random.default_rng(2)
    M = np.zeros((5, NUM_ACTIONS), np.int8)
    ok = np.zeros(5, np.int64)
    for _ in range(120):
        for b, g in enumerate(games):
            assert np.array_equal(S[b], g.state)
        mask_batch(S, T, M)
        acts = np.array([rng.choice(np.flatnonzero(M[b])) if M[b].any() else 0 for b in range(5)], np.int64)
        step_batch(S, T, acts, ok)
        for b, g in enumerate(games):
            if not g.is_over:
                g.step(int(acts[b]))
