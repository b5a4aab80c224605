"""Helpers for the worked-example scenario tests (tests/examples/test_examples_rulebook.py and
tests/examples/test_examples_manual.py).

A scenario builds a position with `Game.from_dict` (names as in the card data), then drives the
engine with `act(g, kind, **params)`, which checks that the pending decision and the deciding
seat are the expected ones before stepping, so a test fails at the first divergence from the
worked example rather than somewhere later.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from v1919_env.actions import decode, encode
from v1919_env.game import Game, IllegalActionError

DATA = Path(__file__).resolve().parents[2] / "v1919_env" / "cards" / "data" / "standard"
ISSUE_RECORDS = json.loads((DATA / "issues.json").read_text())
EVENT_RECORDS = json.loads((DATA / "events.json").read_text())
STRATEGY_RECORDS = json.loads((DATA / "strategies.json").read_text())
ALL_ISSUES = [r["name"] for r in ISSUE_RECORDS]
ALL_EVENTS = [r["name"] for r in EVENT_RECORDS]
ISSUE = {r["name"]: r for r in ISSUE_RECORDS}
STRATEGY_NUMBER = {r["name"]: r["number"] for r in STRATEGY_RECORDS}

NATIONS = ["uk", "france", "usa", "italy"]
SEAT = {n: k for k, n in enumerate(NATIONS)}
REGIONS = ["europe", "balkans", "middle_east", "pacific", "africa"]
RIDX = {r: k for k, r in enumerate(REGIONS)}
RBIT = {r: 1 << k for k, r in enumerate(REGIONS)}


def option_index(issue: str, option: str) -> int:
    """Index of an option of an issue (by the data's names)."""
    names = [o["name"] for o in ISSUE[issue]["options"]]
    return names.index(option)


def issue_number(issue: str) -> int:
    return ISSUE[issue]["number"]


def issue_deck(top=(), placed=()):
    """A complete issue deck, bottom first: every issue not in `placed` or `top` (GAME END at the
    very bottom), then `top` so that top[0] is the top card (the first drawn)."""
    used = set(placed) | set(top)
    rest = [i for i in ALL_ISSUES if i not in used]
    # GAME END at the bottom, so that no scenario draws it by accident
    rest.sort(key=lambda i: not ISSUE[i]["game_end"])
    return rest + list(reversed(list(top)))


def events(table=None, cube=None, waiting=(), top=(), discards=()):
    """An `events` entry: `top[0]` is the top card of the event deck (drawn first)."""
    used = {x for x in (table, *waiting, *top, *discards) if x is not None}
    deck = [e for e in ALL_EVENTS if e not in used] + list(reversed(list(top)))
    return {"table": None if table is None else {"event": table, "cube": cube},
            "waiting_room": list(waiting), "deck": deck, "discards": list(discards)}


def regions(**spec):
    """regions(middle_east=(5, 1), europe=5): unrest or (unrest, powder keg); others at unrest 1."""
    out = {r: {"unrest": 1, "powder_keg": 0} for r in REGIONS}
    for r, v in spec.items():
        if isinstance(v, tuple):
            out[r] = {"unrest": v[0], "powder_keg": v[1]}
        else:
            out[r] = {"unrest": v, "powder_keg": 0}
    return out


def happiness(**kw):
    h = {"uk": 20, "france": 20, "usa": 20, "italy": 20, "japan": 20}
    h.update(kw)
    return h


def position(**kw):
    """A deep copy of a position dict (tests mutate copies freely)."""
    return copy.deepcopy(kw)


# ----------------------------------------------------------------------------- driving the engine
def act(g: Game, kind: str, *, decision: str | None = None, by: str | None = None, **params) -> int:
    """Step one action, first checking the pending decision and the deciding nation."""
    if decision is not None:
        assert g.decision == decision, f"expected decision {decision!r}, engine is at {g.decision!r}"
    if by is not None:
        assert g.current_player == SEAT[by], (
            f"expected {by} to decide, engine asks {NATIONS[g.current_player] if g.current_player >= 0 else None}")
    a = encode(kind, **params)
    g.step(a)
    return a


def settle_through_step_4(g: Game, by: str, issue: str, option: str, *, slot: int = 0, naval: tuple = (),
                          keep: int = 0) -> None:
    """`by` settles table `slot` (`issue`, whose controller picks `option`, then any naval flags),
    advances the first waiting issue and event and draws two issues, keeping `keep`: the event
    drawn next (step 5) resolves its crisis."""
    act(g, "settle", decision="turn", by=by, slot=slot)
    act(g, "option", decision="option", option=option_index(issue, option))
    for flag in naval:
        act(g, "naval_flag", decision="naval", flag=flag)
    act(g, "advance_issue", decision="adv_issue", by=by, slot=0)
    act(g, "advance_event", decision="adv_event", by=by, slot=0)
    act(g, "add_issue", decision="add_issue", by=by, source=3)
    act(g, "keep", decision="keep", by=by, which=keep)


def next_turn(g: Game, nation: str, dice=None) -> Game:
    """The same position at the start of `nation`'s turn: the Manual seats UK, USA, Italy, France
    (IT:1263), the engine UK, France, USA, Italy. `dice` replaces the forced dice."""
    d = g.to_dict()
    assert d["pending"]["decision"] == "turn" and not d["turn_state"]["political_done"]
    for k in ("engine", "pending", "turn_state"):
        d.pop(k)
    d["active"] = nation
    if dice is not None:
        d["forced_dice"] = list(dice)
    return Game.from_dict(d)


def legal(g: Game) -> list:
    """The legal actions as decoded (kind, params) pairs."""
    return [decode(int(a)) for a in g.legal_actions()]


def is_legal(g: Game, kind: str, **params) -> bool:
    return encode(kind, **params) in set(int(a) for a in g.legal_actions())


def min_place(g: Game, slot: int) -> int | None:
    """Smallest first placement on a slot that the engine allows now (None: none allowed)."""
    ns = [a.params["n"] for a in legal(g) if a.kind == "place" and a.params["slot"] == slot]
    return min(ns) if ns else None


def assert_illegal(g: Game, kind: str, **params) -> None:
    """The action raises IllegalActionError and leaves the position exactly unchanged."""
    before = g.to_dict()
    state = g.state.copy()
    with pytest.raises(IllegalActionError):
        g.step(encode(kind, **params))
    assert g.to_dict() == before
    assert (g.state == state).all()


def player(g: Game, nation: str) -> dict:
    return g.to_dict()["players"][nation]


def settled_map(g: Game) -> dict:
    return {e["issue"]: e for e in g.to_dict()["settled"]}


def score_of(g: Game, nation: str) -> dict:
    return g.scores()[SEAT[nation]]


# ============================================================================ the rulebook's uprising example
def uprising_example_position(dice, france_extra_me_issue=False):
    """EN:626-676. France settles SMYRNA (France 5 v UK 3); the top event is BELA KUN (Crisis:
    Uprising Check). Europe and the Middle East tie for the highest Unrest, column 5 ('4 or
    higher'); the UK has a unit in the Middle East in column 6 (so ME unrest is capped at 5), one
    in the Pacific and one Exhausted; the UK controls Constantinople (Open City, UK naval
    counter) and Arabia; the ME powder keg is in column 1.
    Bid resources (EN:654-660): UK 6 Influence available (3 on Smyrna: 2 come back, so 4 before);
    France 2 units and 10 Influence available, 1 unit Exhausted; USA 3 units and - deviating from
    the example's "5", which cannot pay its own later bid of 6 - 6 Influence available."""
    settled = [{"issue": "Constantinople", "controller": "uk", "option": "Open City"},
               {"issue": "Arabia", "controller": "uk", "option": "Hejaz Independent"}]
    if france_extra_me_issue:
        settled.append({"issue": "Syria", "controller": "france", "option": "French Mandate"})
    slots = ["Smyrna", "Togo", "Tyrol", "Korea", "Vietnam"]
    return {
        "num_players": 3, "active": "france",
        "table": [{"issue": "Smyrna", "cubes": {"france": 5, "uk": 3}}, {"issue": "Togo"}],
        "waiting_room": [{"issue": "Tyrol"}, {"issue": "Korea"}, {"issue": "Vietnam"}],
        "settled": settled,
        "issue_discards": [],
        "issue_deck": issue_deck(top=["Women's Suffrage", "Disarmament"],
                                 placed=slots + [s["issue"] for s in settled]),
        "events": events(waiting=["Take Ionescu", "Eleutherios Venizelos"], top=["Bela Kun"]),
        "regions": regions(europe=5, middle_east=(5, 1)),
        "players": {
            "uk": {"influence": {"available": 4, "exhausted": 8},
                   "military": {"available": 0, "exhausted": 1, "deployed": {"middle_east": 6, "pacific": 7}}},
            "france": {"influence": {"available": 10, "exhausted": 0}, "military": {"available": 2, "exhausted": 1}},
            "usa": {"influence": {"available": 6, "exhausted": 9}, "military": {"available": 3}},
        },
        "forced_dice": list(dice),
        "strategies": {"dealt": ["14 Points", "Global Trade", "Outlawing War", "Isolationism"],
                       "draft_done": True},
    }


def settle_smyrna_to_bela_kun(g):
    """France settles SMYRNA through step 4; BELA KUN waits on top of the events (EN:626-676)."""
    settle_through_step_4(g, "france", "Smyrna", "To Greece", naval=(1,), keep=1)
    assert g.to_dict()["events"]["waiting_room"][0] == "Bela Kun"
