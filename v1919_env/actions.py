"""Encode, decode and describe action ids of the flat action space (core/actions.py has the table).

>>> from v1919_env import actions
>>> a = actions.encode("place", slot=1, n=4)
>>> actions.decode(a)
Action(kind='place', params={'slot': 1, 'n': 4})
>>> actions.encode("draft", strategy="Global Trade") == actions.encode("draft", strategy=3)
True

The index convention (v1919_env.cards.names): cards by printed number (1-based) or name, regions,
seats and unit sources by name or by their 0-based number. `decode` returns the numbers.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from v1919_env.cards.names import CardNames, names_of, region_index, seat_index
from v1919_env.core import layout as L
from v1919_env.core.actions import (NUM_ACTIONS, SEGMENT_BASE, SEGMENT_SIZE, SEGMENTS, IllegalActionError, action_id,
                                    action_ids)
from v1919_env.core.vocab import NATIONS, REGIONS

__all__ = ["Action", "IllegalActionError", "action_id", "action_ids", "encode", "decode", "describe", "NUM_ACTIONS",
           "SEGMENTS", "segment_table"]


# parameters whose values are not 0-based counters
_OFFSETS = {("place", "n"): 1, ("deploy", "column"): 5, ("modifier", "delta"): -1, ("transfer", "n"): 1,
            ("choose_issue", "issue"): 1, ("draft", "strategy"): 1}
_PARAMS = dict(SEGMENTS)


# unit sources: the numbers of each segment, by name (a region name means a unit deployed there)
SOURCES = {"deploy": ("available",) + REGIONS, "demobilize": ("available", "exhausted") + REGIONS,
           "unit_to_available": ("exhausted",) + REGIONS}


def _source(kind):
    names = SOURCES[kind]

    def read(v, cards):
        if isinstance(v, str):
            key = v.lower().replace(" ", "_")
            if key in names:
                return names.index(key)
            raise ValueError(f"{kind}.source: expected one of {list(names)} or 0..{len(names) - 1}, got {v!r}")
        return v
    return read


def _recall(v, cards):
    """A recall mask, or a list of region names / numbers."""
    if isinstance(v, (list, tuple, set, frozenset)):
        m = 0
        for r in v:
            m |= 1 << region_index(r, "reclaim.recall")
        return m
    return v


def _named_region(field):
    return lambda v, cards: region_index(v, field) if isinstance(v, str) else v


def _named_seat(field):
    return lambda v, cards: seat_index(v, 4, field) if isinstance(v, str) else v


def _card(kind):
    def read(v, cards):
        if not isinstance(v, str):
            return v
        return getattr(_names(cards), kind)(v, "choose_issue.issue" if kind == "issue" else "draft.strategy") + 1
    return read


_NAMED = {("deploy", "source"): _source("deploy"), ("demobilize", "source"): _source("demobilize"),
          ("unit_to_available", "source"): _source("unit_to_available"), ("reclaim", "recall"): _recall,
          ("deploy", "region"): _named_region("deploy.region"),
          ("choose_region", "region"): _named_region("choose_region.region"),
          ("unit_to_exhausted", "region"): _named_region("unit_to_exhausted.region"),
          ("choose_player", "seat"): _named_seat("choose_player.seat"),
          ("transfer", "seat"): _named_seat("transfer.seat"),
          ("naval_flag", "flag"): lambda v, cards: ("uk", "usa").index(v.lower()) if isinstance(v, str)
          and v.lower() in ("uk", "usa") else v,
          ("choose_issue", "issue"): _card("issue"), ("draft", "strategy"): _card("strategy")}
"""Parameters that also take names (the index convention of v1919_env.cards.names)."""

def _names(cards) -> CardNames:
    if cards is None:
        from .cards import load_card_set
        cards = load_card_set()
    return names_of(cards)


class Action(NamedTuple):
    kind: str
    params: dict


def encode(kind: str, cards=None, **params) -> int:
    """Action id of a segment and its parameters (e.g. encode('bid', in_region=1, available=0, influence=2)).

    Names work wherever a number is taken: encode('deploy', source='available', region='europe',
    column=6), encode('choose_issue', issue='Fiume'), encode('draft', strategy='Global Trade'),
    encode('reclaim', n=2, recall=['europe']). Card names are those of `cards` (a CardSet; default
    the shipped set)."""
    if kind not in _PARAMS:
        raise ValueError(f"unknown action kind {kind!r}; kinds: {', '.join(SEGMENT_BASE)}")
    spec = _PARAMS[kind]
    names = [p for p, _ in spec]
    extra = set(params) - set(names)
    missing = set(names) - set(params)
    if extra or missing:
        raise ValueError(f"{kind} takes parameters {names}; got {sorted(params)}")
    off = 0
    for p, size in spec:
        raw = params[p]
        if (kind, p) in _NAMED:
            raw = _NAMED[(kind, p)](raw, cards)
        if isinstance(raw, bool):
            raw = int(raw)
        if not isinstance(raw, (int, np.integer)):
            raise ValueError(f"{kind}.{p} must be an integer{' or a name' if (kind, p) in _NAMED else ''}, got {raw!r}")
        v = int(raw) - _OFFSETS.get((kind, p), 0)
        if not 0 <= v < size:
            lo = _OFFSETS.get((kind, p), 0)
            raise ValueError(f"{kind}.{p} must be in {lo}..{lo + size - 1}, got {params[p]}")
        off = off * size + v
    return SEGMENT_BASE[kind] + off


def decode(action: int) -> Action:
    """The (kind, params) of an action id."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action id {a} out of range 0..{NUM_ACTIONS - 1}")
    for kind, spec in SEGMENTS:
        base = SEGMENT_BASE[kind]
        if base <= a < base + SEGMENT_SIZE[kind]:
            off = a - base
            vals = {}
            for p, size in reversed(spec):
                vals[p] = off % size + _OFFSETS.get((kind, p), 0)
                off //= size
            return Action(kind, {p: vals[p] for p, _ in spec})
    raise AssertionError("unreachable")


def _region(r):
    return REGIONS[r].replace("_", " ").title()


def describe(action: int, game=None) -> str:
    """A human-readable sentence for an action id (names issues and slots when a game is given)."""
    kind, p = decode(action)

    def slot_name(sl):
        where = "table" if sl < 2 else "waiting room"
        if game is not None:
            i = game.slot_issue(sl)
            if i is not None:
                return f"{game.names.issue_at(i)} ({where})"
        return f"{where} slot {sl}"

    if kind == "end_turn":
        return "end the turn (no military action)"
    if kind == "pass_political":
        return "pass: no political action is possible"
    if kind == "place":
        return f"place {p['n']} influence on {slot_name(p['slot'])}"
    if kind == "settle":
        return f"settle {slot_name(p['slot'])}"
    if kind == "reclaim" and game is not None and game.acting_for == L.USA_FACTION and game.two_player:
        # the 2-player USA's reclaim: n is what its controller takes back beside it (EN:818-823)
        return (f"USA reclaims {min(6, game.exhausted_influence(L.USA_FACTION))} influence; "
                f"{game.seat_name(game.current_player)} reclaims {p['n']} of its own")
    if kind == "reclaim":
        regs = [_region(r) for r in range(5) if (p["recall"] >> r) & 1]
        mil = ""
        if game is None or game.exhausted_military(game.current_player) > 0:
            mil = " and all exhausted military"
        s = f"reclaim {p['n']} influence{mil}"
        return s + (f", recall units from {', '.join(regs)}" if regs else "")
    if kind == "deploy":
        src = "available" if p["source"] == 0 else f"{_region(p['source'] - 1)}"
        return f"deploy a unit from {src} to {_region(p['region'])} column {p['column']}"
    if kind == "demobilize":
        src = ("available", "exhausted")[p["source"]] if p["source"] < 2 else _region(p["source"] - 2)
        return f"demobilize a unit from {src}"
    if kind == "option":
        if game is not None and game.option_issue() is not None:
            return f"choose option '{game.option_name(game.option_issue() + 1, p['option'])}'"
        return f"choose option {p['option'] + 1}"
    if kind == "naval_flag":
        return f"place the naval counter with the {('UK', 'USA')[p['flag']]} flag"
    if kind == "accept":
        if game is not None:
            from .decisions import accept_words

            return accept_words(game, bool(p["yes"]))
        return "accept" if p["yes"] else "decline"
    if kind == "advance_issue":
        return f"move {slot_name(2 + p['slot'])} to the table"
    if kind == "advance_event":
        name = f"waiting event {p['slot']}"
        if game is not None:
            e = game.waiting_event(p["slot"])
            if e is not None:
                name = game.names.event_at(e)
        return f"move {name} to the table"
    if kind == "add_issue":
        if p["source"] == 3:
            return "draw two issues and keep one"
        return f"take discard #{p['source'] + 1} into the waiting room (cost {p['source']})"
    if kind == "keep":
        from .decisions import drawn_issues

        d = drawn_issues(game) if game is not None else None
        if d is not None:
            return (f"keep {game.names.issue_at(d[p['which']])} (discard "
                    f"{game.names.issue_at(d[1 - p['which']])})")
        return f"keep the {('first', 'second')[p['which']]} drawn issue"
    if kind == "modifier":
        r = game.uprising_region() if game is not None else None
        where = f" in {_region(r)}" if r is not None else ""
        return {-1: f"subtract 1 from the uprising roll{where}", 0: f"do not modify the uprising roll{where}",
                1: f"add 1 to the uprising roll{where}"}[p["delta"]]
    if kind == "choose_player":
        return f"choose {_seat_name(game, p['seat'])}"
    if kind == "choose_region":
        return f"choose {_region(p['region'])}"
    if kind == "choose_issue":
        return f"choose {game.issue_name(p['issue']) if game is not None else 'issue #%d' % p['issue']}"
    if kind == "bid_pass":
        return "pass (out of the bidding)"
    if kind == "bid":
        return (f"bid {p['in_region']} in-region unit(s), {p['available']} available unit(s) and "
                f"{p['influence']} influence")
    if kind == "draft":
        name = game.strategy_name(p["strategy"]) if game is not None else f"#{p['strategy']}"
        return f"take strategy card {name}"
    if kind == "branch":
        which = ("first", "second", "third", "fourth")[p["branch"]] if p["branch"] < 4 else f"#{p['branch'] + 1}"
        from .decisions import event_in_play

        ev = event_in_play(game) if game is not None else None
        return f"the {which} alternative" + (f" of {game.names.event_at(ev[0])}" if ev is not None else " on the card")
    if kind == "sign":
        return ("subtract: Unrest goes down", "add: Unrest goes up")[p["add"]]
    if kind == "unit_to_available":
        src = "exhausted" if p["source"] == 0 else _region(p["source"] - 1)
        return f"move a unit from {src} to available"
    if kind == "unit_to_exhausted":
        return f"move the unit in {_region(p['region'])} to exhausted"
    if kind == "transfer":
        return f"negotiate: exhaust {p['n']} of your influence so {_seat_name(game, p['seat'])} reclaims {p['n']}"
    return kind


def _seat_name(game, seat):
    return NATIONS[seat].upper() if game is None or seat < game.num_factions else f"seat {seat}"


def segment_table() -> str:
    """The segment table as Markdown (first id, size, parameters)."""
    rows = ["| segment | first id | size | parameters |", "|---|---|---|---|"]
    for kind, spec in SEGMENTS:
        params = ", ".join(f"{p} {_OFFSETS.get((kind, p), 0)}..{_OFFSETS.get((kind, p), 0) + n - 1}"
                           for p, n in spec) or "-"
        rows.append(f"| {kind} | {SEGMENT_BASE[kind]} | {SEGMENT_SIZE[kind]} | {params} |")
    return "\n".join(rows)
