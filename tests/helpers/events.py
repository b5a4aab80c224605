"""Helpers for the event-card tests (tests/core/test_events.py).

A test builds a position with `position(...)` (only what it needs; the rest is a quiet default:
every region at unrest 2 with no powder keg, so no uprising check can roll; all happiness 20;
Kurdistan on the table with 2 UK cubes; no waiting-room issues or events; the strategy draft
already done), then drives one Settle action through the engine:

* `to_conference(pos)` settles table slot 0 (option "No Kurdistan", which has no effect of its
  own) and stops where the conference event on the table needs its first decision, or where the
  settle has moved on to steps 3-4 (the conference effect is then complete).
* `to_crisis(pos)` settles, walks steps 3-4 with fixed choices and returns just after step 5 has
  drawn the top event card and started its crisis, with the snapshot taken just before step 5.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

from v1919_env.actions import encode
from v1919_env.game import Game

DATA = Path(__file__).resolve().parents[2] / "v1919_env" / "cards" / "data" / "standard" / "events.json"
EVENT_RECORDS = json.loads(DATA.read_text())
EVENTS = {e["name"]: e for e in EVENT_RECORDS}
ALL_EVENTS = [e["name"] for e in EVENT_RECORDS]

NATIONS = ["uk", "france", "usa", "italy"]
SEAT = {n: k for k, n in enumerate(NATIONS)}
REGIONS = ["europe", "balkans", "middle_east", "pacific", "africa"]
RIDX = {r: k for k, r in enumerate(REGIONS)}

# the neutral issue used for settling: Kurdistan (Middle East), option 3 "No Kurdistan" has no
# unrest, no happiness and no counters
NEUTRAL_ISSUE = "Kurdistan"
NEUTRAL_OPTION = 3

# steps 3-4 of a settle (everything between the conference and the crisis)
STEP_3_4 = ("adv_issue", "adv_event", "event_cube", "add_issue", "keep")


def events_block(table=None, cube=None, top=None, waiting=(), discards=()):
    """An `events` position entry: `table` on the table (cube owner `cube`), `top` on top of the
    event deck (the deck holds every other event below it)."""
    placed = {x for x in (table, top, *waiting, *discards) if x is not None}
    deck = [e for e in ALL_EVENTS if e not in placed]
    if top is not None:
        deck.append(top)
    return {"table": None if table is None else {"event": table, "cube": cube},
            "waiting_room": list(waiting), "deck": deck, "discards": list(discards)}


def position(*, table_event=None, cube=None, top=None, waiting_events=(), unrest=None, kegs=None,
             happiness=None, players=None, settled=(), table=None, waiting_room=(), discards=("Togo",),
             active="uk", forced_dice=(), draft_done=True, num_players=4):
    """A position dict (see the module docstring for the defaults)."""
    regs = {r: {"unrest": 2, "powder_keg": 0} for r in REGIONS}
    for r, u in (unrest or {}).items():
        regs[r]["unrest"] = u
    for r, k in (kegs or {}).items():
        regs[r]["powder_keg"] = k
    hp = {"uk": 20, "france": 20, "usa": 20, "italy": 20, "japan": 20}
    hp.update(happiness or {})
    if table is None:
        table = [{"issue": NEUTRAL_ISSUE, "cubes": {active: 2}}, None]
    return {
        "num_players": num_players,
        "active": active,
        "happiness": hp,
        "regions": regs,
        "players": copy.deepcopy(players or {}),
        "table": table,
        "waiting_room": list(waiting_room),
        "issue_discards": list(discards),
        "settled": list(settled),
        "events": events_block(table_event, cube, top, waiting_events),
        "strategies": {"draft_done": draft_done},
        "forced_dice": list(forced_dice),
    }


def act(g: Game, decision: str, action: int, player: str | None = None) -> None:
    """Take `action` at the pending `decision` (checked), optionally checking who decides."""
    assert g.decision == decision, f"expected a '{decision}' decision, the game asks for '{g.decision}'"
    if player is not None:
        assert g.current_player == SEAT[player], \
            f"expected {player} to decide '{decision}', it is seat {g.current_player}"
    g.step(action)


def legal_kinds(g: Game):
    from v1919_env.actions import decode
    return [decode(a) for a in g.legal_actions()]


def settle(g: Game, slot=0, option=NEUTRAL_OPTION) -> None:
    act(g, "turn", encode("settle", slot=slot))
    act(g, "option", encode("option", option=option))


def to_conference(pos: dict, option=NEUTRAL_OPTION) -> Game:
    g = Game.from_dict(pos)
    settle(g, option=option)
    return g


def conference_done(g: Game) -> bool:
    """True once the settle has moved past step 2 (the conference event is complete)."""
    return g.decision in STEP_3_4


def walk_steps_3_4(g: Game) -> None:
    """Steps 3-4 with fixed choices: advance waiting slot 0, no event cube, take discard #1 (free).
    Stops just before the add-issue action, which triggers step 5."""
    while g.decision in ("adv_issue", "adv_event", "event_cube"):
        if g.decision == "adv_issue":
            g.step(encode("advance_issue", slot=_first_slot(g, "advance_issue")))
        elif g.decision == "adv_event":
            g.step(encode("advance_event", slot=_first_slot(g, "advance_event")))
        else:
            g.step(encode("accept", yes=0))
    assert g.decision == "add_issue", g.decision


def _first_slot(g, kind):
    from v1919_env.actions import decode
    for a in g.legal_actions():
        d = decode(a)
        if d.kind == kind:
            return d.params["slot"]
    raise AssertionError(f"no {kind} action")


def to_crisis(pos: dict, option=NEUTRAL_OPTION, slot=0):
    """Settle, walk steps 3-4, start step 5. Returns (game, snapshot before step 5)."""
    g = Game.from_dict(pos)
    settle(g, slot=slot, option=option)
    assert conference_done(g), g.decision
    walk_steps_3_4(g)
    before = g.to_dict()
    g.step(encode("add_issue", source=0))
    return g, before


def crisis_done(g: Game) -> bool:
    """The settle (and with it the crisis) is over: back to the active player's turn."""
    return g.decision == "turn"


# ----------------------------------------------------------------------------- readers
def unrest(g_or_d, r):
    d = g_or_d if isinstance(g_or_d, dict) else g_or_d.to_dict()
    return d["regions"][r]["unrest"]


def keg(g_or_d, r):
    d = g_or_d if isinstance(g_or_d, dict) else g_or_d.to_dict()
    return d["regions"][r]["powder_keg"]


def regions(g_or_d):
    d = g_or_d if isinstance(g_or_d, dict) else g_or_d.to_dict()
    return {r: (v["unrest"], v["powder_keg"]) for r, v in d["regions"].items()}


def happy(g_or_d, n=None):
    d = g_or_d if isinstance(g_or_d, dict) else g_or_d.to_dict()
    return d["happiness"] if n is None else d["happiness"][n]


def infl(g_or_d, n):
    d = g_or_d if isinstance(g_or_d, dict) else g_or_d.to_dict()
    i = d["players"][n]["influence"]
    return i["available"], i["exhausted"]


def mil(g_or_d, n):
    d = g_or_d if isinstance(g_or_d, dict) else g_or_d.to_dict()
    return d["players"][n]["military"]


def controller(g_or_d, issue):
    d = g_or_d if isinstance(g_or_d, dict) else g_or_d.to_dict()
    for rec in d["settled"]:
        if rec["issue"] == issue:
            return rec["controller"]
    return None


def forced_left(g_or_d):
    d = g_or_d if isinstance(g_or_d, dict) else g_or_d.to_dict()
    return d["forced_dice"]


def without(d: dict, *keys) -> dict:
    """A deep copy of a position dict without some top-level keys (for 'nothing else changed')."""
    out = copy.deepcopy(d)
    for k in keys:
        out.pop(k, None)
    return out
