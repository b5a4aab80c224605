"""Where a legal action has its place on the board picture: the SVG element(s) a click chooses it by.

A place is the class and `data-` attributes of elements of the project's SVG scene
(`v1919_env/view/scene.py`): an issue card by its slot, a region track's cell by region and column,
a region's row, a nation's panel, an event card. Actions without a place (reclaim, bids, drafting a
strategy, ...) are chosen from the list only. The browser marks every element that matches a legal
action's place; a click on it plays the action, or offers the choice when several actions share the
place (`place 1..n influence` on one issue, say).
"""
from __future__ import annotations

from v1919_env.actions import decode
from v1919_env.core.vocab import REGIONS

ISSUE_SLOTS_ON_TABLE = 2        # slots 0-1 are the table, 2-4 the waiting room (the scene's numbering)


def _issue_slot(slot: int) -> dict:
    return {"class": "issue", "slot": str(slot)}


def _region(r: int, column: int | None = None) -> dict:
    place = {"class": "cell", "region": REGIONS[r]}
    if column is not None:
        place["column"] = str(column)
    return place


def action_place(game, action: int) -> dict | None:
    """The place of `action` on `game`'s board ({"class": ..., data attribute: value, ...}), or None
    when it has none. Values are strings, as the SVG's attributes hold them. The place may not be
    drawn (an issue in a discard pile): `drawn_places` keeps those that are."""
    kind, p = decode(action)
    if kind in ("place", "settle"):
        return _issue_slot(p["slot"])
    if kind == "advance_issue":
        return _issue_slot(ISSUE_SLOTS_ON_TABLE + p["slot"])
    if kind == "deploy":
        return _region(p["region"], p["column"])
    if kind in ("choose_region", "unit_to_exhausted"):
        return _region(p["region"])
    if kind == "demobilize" and p["source"] >= 2:          # a unit deployed in region source-2
        return _region(p["source"] - 2)
    if kind == "unit_to_available" and p["source"] >= 1:   # a unit deployed in region source-1
        return _region(p["source"] - 1)
    if kind == "choose_player":          # the panels are the nations of to_dict()["players"], in seat order
        seats = list(game.to_dict()["players"])
        return {"class": "player", "seat": seats[p["seat"]]} if p["seat"] < len(seats) else None
    if kind == "choose_issue":
        name = next((c["name"] for c in game.cards.raw["issues"] if c["number"] == p["issue"]), None)
        return {"issue": name} if name else None
    if kind == "option":           # the card of the issue whose option is chosen, where it is drawn
        i = game.option_issue()
        return {"class": "issue", "issue": game.names.issue_at(i)} if i is not None else None
    if kind == "advance_event":
        return {"class": "event", "where": f"waiting{p['slot']}"}
    return None


def drawn_places(game, scene, actions) -> dict[int, dict]:
    """{action: place} for the actions of `actions` whose place is drawn in `scene` (the game's
    `board_scene`): an element has the place's class and every data attribute it names."""
    drawn = [(set((item.cls or "").split()), {k: str(v) for k, v in item.data})
             for item in scene.items if getattr(item, "data", None)]
    out = {}
    for a in actions:
        place = action_place(game, int(a))
        if place is None:
            continue
        cls = place.get("class")
        want = [(k, v) for k, v in place.items() if k != "class"]
        if any((cls is None or cls in c) and all(d.get(k) == v for k, v in want) for c, d in drawn):
            out[int(a)] = place
    return out
