"""Helpers for the worked-example scenario tests (tests/test_examples_rulebook.py and
tests/test_examples_manual.py).

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

DATA = Path(__file__).resolve().parents[1] / "v1919_env" / "data" / "standard"
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
