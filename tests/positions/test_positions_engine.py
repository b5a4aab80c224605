"""Positions the engine reaches load exactly, and sealed engine sections are checked (issue 20): a
player over the unit limit inside an event, the slots past the live part of the decks and the frame
stack, the pending faction of a finished 2-player or solitaire game, a card set that deals no extra
strategy card, and re-sealed `engine` sections with a bad stack pointer or frames."""
from __future__ import annotations

import json

import numpy as np
import pytest

from v1919_env.cards import load_card_set
from v1919_env.core import layout as L
from v1919_env.game import Game
from v1919_env.positions.write import PositionError, _position_digest


def _pick(g: Game, rng) -> int:
    """The random legal action, chosen as tests/positions/test_positions_fuzz.py chooses it."""
    acts = g.legal_actions()
    return int(acts[rng.integers(len(acts))])


def _round_trip(g: Game, card_set=None) -> Game:
    d = g.to_dict()
    h = Game.from_dict(json.loads(json.dumps(d)), card_set=card_set)
    assert np.array_equal(h.state, g.state), [n for n, (o, k) in L.offsets().items()
                                              if not np.array_equal(h.state[o:o + k], g.state[o:o + k])]
    assert h.to_dict() == d
    return h


def _resealed(d: dict) -> dict:
    """d with its engine digest recomputed, as someone editing a sealed position on purpose would."""
    d = json.loads(json.dumps(d))
    d["engine"]["digest"] = _position_digest(d)
    return d


# ----------------------------------------------------------------------------- over the unit limit in an event
def test_a_player_over_the_unit_limit_inside_an_event_round_trips():
    """The issue's game: at decision 115 UK's happiness has dropped to 3 in the middle of an event
    (each player chooses a branch in turn; the mutiny waits for the event's end, ruling P-11)."""
    g = Game.new(3, seed=3, variant="longest")
    rng = np.random.default_rng(3)
    for _ in range(115):
        g.step(_pick(g, rng))
    assert g.decision == "branch" and g.to_dict()["happiness"]["uk"] == 3
    h = _round_trip(g)
    assert np.array_equal(np.sort(h.legal_actions()), np.sort(g.legal_actions()))


def test_a_hand_written_position_over_the_unit_limit_is_still_refused():
    with pytest.raises(PositionError, match=r"players.uk.military: more units in play than happiness 3"):
        Game.from_dict({"num_players": 3, "happiness": {"uk": 3}})
    d = Game.new(3, seed=3).to_dict()
    for k in ("engine", "pending"):
        d.pop(k)
    d["happiness"]["uk"] = 3
    with pytest.raises(PositionError, match=r"players.uk.military"):
        Game.from_dict(d)


# ----------------------------------------------------------------------------- the whole state array
@pytest.mark.parametrize("players,variant,seed", [(1, "standard", 0), (2, "longer", 1), (3, "longest", 3),
                                                  (4, "even_longer", 2)])
def test_every_position_of_a_random_game_round_trips_the_whole_state(players, variant, seed):
    """Deck and discard slots past their live part, popped frames and the naval split an unsettled
    issue keeps are written (engine.residue), and the last decision's faction once a 2-player or
    solitaire game is over: from_dict(to_dict(g)) has g's state array, at every decision."""
    g = Game.new(players, seed=seed, variant=variant)
    rng = np.random.default_rng(seed)
    while not g.is_over:
        _round_trip(g)
        g.step(_pick(g, rng))
    _round_trip(g)


def test_the_residue_is_checked():
    g = Game.new(4, seed=1)
    rng = np.random.default_rng(1)
    s = g.state
    while not s[L.STACK + s[L.SP] * L.FRAME_W:L.STACK + L.MAX_FRAMES * L.FRAME_W].any():    # a popped frame
        g.step(_pick(g, rng))
    d = g.to_dict()
    for edit, match in ((lambda e: e["residue"].update(ballot=[1]), r"engine.residue: unknown field"),
                        (lambda e: e["residue"].update(stack=["x"]), r"engine.residue.stack\[0\]: expected an integer"),
                        (lambda e: e["residue"].update(stack=[1] * 241), r"engine.residue.stack: at most"),
                        (lambda e: e["residue"].update(naval_uk=[9]), r"engine.residue.naval_uk\[0\]")):
        bad = json.loads(json.dumps(d))
        edit(bad["engine"])
        with pytest.raises(PositionError, match=match):
            Game.from_dict(_resealed(bad))


# ----------------------------------------------------------------------------- no extra strategy card
def test_a_card_set_dealing_no_extra_strategy_card_round_trips(tmp_path):
    """strategy_cards_extra 0 (the board table allows 0..1) deals one card per player; the deal and
    the draft play it, and positions expect as many cards as the card set deals."""
    raw = load_card_set().export()
    raw["board"]["strategy_cards_extra"]["value"] = 0
    path = tmp_path / "no_extra.json"
    path.write_text(json.dumps(raw))
    for players in (2, 3, 4):
        g = Game.new(players, seed=players, card_set=str(path))
        assert len(g.to_dict()["strategies"]["dealt"]) == players
        rng = np.random.default_rng(players)
        while not g.is_over:
            if g.decision == "draft" or g.decisions_taken % 10 == 0:
                _round_trip(g, card_set=str(path))
            g.step(_pick(g, rng))
        hand = g.to_dict()
        for k in ("engine", "pending"):
            hand.pop(k)
        hand["strategies"]["dealt"].append(next(s["name"] for s in raw["strategies"]
                                                if s["name"] not in hand["strategies"]["dealt"]))
        with pytest.raises(PositionError, match=f"strategies.dealt: expected {players} different"):
            Game.from_dict(hand, card_set=str(path))


# ----------------------------------------------------------------------------- re-sealed engine sections
@pytest.fixture(scope="module")
def mid_event():
    """A position three frames deep (turn, settle, event), with a bid frame's position beside it."""
    g = Game.new(3, seed=3, variant="longest")
    rng = np.random.default_rng(3)
    for _ in range(115):
        g.step(_pick(g, rng))
    assert g.to_dict()["engine"]["sp"] == 3
    return g.to_dict()


def _stack(d, k, v):
    d["engine"]["stack"][k] = v


W = L.FRAME_W
BAD_ENGINES = [
    ("sp 0", lambda d: d["engine"].update(sp=0, stack=[]), r"engine.sp: expected an integer in 1..24, got 0"),
    ("sp past the stack", lambda d: d["engine"].update(sp=25),
     r"engine.sp: expected an integer in 1..24, got 25"),
    ("sp a string", lambda d: d["engine"].update(sp="3"), r"engine.sp: expected an integer"),
    ("sp without its frames", lambda d: d["engine"].update(sp=4), r"engine.stack: engine.sp says 4 frame\(s\)"),
    ("frames without sp", lambda d: d["engine"].update(sp=2), r"engine.stack: engine.sp says 2 frame\(s\)"),
    ("a partial frame", lambda d: d["engine"]["stack"].pop(), r"engine.stack: engine.sp says 3 frame\(s\) of 10"),
    ("no stack", lambda d: d["engine"].pop("stack"), r"engine.stack: missing"),
    ("no sp", lambda d: d["engine"].pop("sp"), r"engine.sp: missing"),
    ("a stack too long", lambda d: d["engine"].update(stack=[1] * 250), r"engine.stack: at most 240 values"),
    ("an unknown procedure", lambda d: _stack(d, 2 * W, 99),
     rf"engine.stack\[{2 * W}\]: frame 2: unknown procedure 99"),
    ("procedure 0", lambda d: _stack(d, W, 0), rf"engine.stack\[{W}\]: frame 1: unknown procedure 0"),
    ("no turn at the bottom", lambda d: _stack(d, 0, L.P_SETTLE), r"engine.stack\[0\]: frame 0: the turn procedure"),
    ("a second turn", lambda d: _stack(d, W, L.P_TURN), rf"engine.stack\[{W}\]: frame 1: the turn procedure"),
    ("a value not an integer", lambda d: _stack(d, 3, "x"), r"engine.stack\[3\]: expected an integer"),
    ("a boolean", lambda d: _stack(d, 3, True), r"engine.stack\[3\]: expected an integer"),
    ("a huge value", lambda d: _stack(d, 3, 2 ** 40), r"engine.stack\[3\]: expected an integer"),
    ("an event past the card set", lambda d: _stack(d, 2 * W + 2, 46), rf"engine.stack\[{2 * W + 2}\]: .* 0..45"),
    ("an event part", lambda d: _stack(d, 2 * W + 3, 2), rf"engine.stack\[{2 * W + 3}\]: .* 0..1"),
    ("an effect row", lambda d: _stack(d, 2 * W + 4, 48), rf"engine.stack\[{2 * W + 4}\]: .* 0..47"),
    ("a bid on no issue", lambda d: _stack(d, 2 * W, L.P_BID) or _stack(d, 2 * W + 2, 53),
     rf"engine.stack\[{2 * W + 2}\]: .* 0..52"),
    ("a register not an integer", lambda d: d["engine"].update(settling=[1]), r"engine.settling: expected an integer"),
    ("a list register", lambda d: d["engine"].update(drawn=5), r"engine.drawn: expected a list"),
    ("a list register's value", lambda d: d["engine"].update(drawn=[1, None]), r"engine.drawn\[1\]: expected an int"),
]


@pytest.mark.parametrize("edit,match", [b[1:] for b in BAD_ENGINES], ids=[b[0] for b in BAD_ENGINES])
def test_a_resealed_engine_section_is_checked(mid_event, edit, match):
    d = json.loads(json.dumps(mid_event))
    edit(d)
    with pytest.raises(PositionError, match=match):
        Game.from_dict(_resealed(d))


def test_a_resealed_unchanged_engine_section_loads(mid_event):
    g = Game.from_dict(_resealed(mid_event))
    assert g.to_dict() == mid_event
