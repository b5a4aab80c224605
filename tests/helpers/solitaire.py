"""Hand-written solitaire positions for the bot-rule scenario tests (Game.from_dict)."""
from __future__ import annotations

from v1919_env.core import layout as L
from v1919_env.game import Game

UK, FRANCE, USA = 0, 1, 2
HARMLESS_CRISIS = "John Maynard Keynes"     # crisis: -1 happiness per deployed unit (none deployed: nothing)


def _names():
    g = Game.new(1, seed=0)
    return g, [g.names.issue_at(i) for i in range(L.N_ISSUES)], [g.names.event_at(e) for e in range(L.N_EVENTS)]


_G, ISSUES, EVENTS = _names()


def solo_position(active="france", faction="usa", table=(), waiting=(), settled=(), players=None, regions=None,
                  event_table=None, waiting_events=("Arthur Balfour", "Mustafa Kemal Ataturk"), crisis=HARMLESS_CRISIS,
                  issue_deck_top=(), issue_discards=(), happiness=None, forced_dice=(), vp=0, **extra) -> dict:
    """A solitaire position at the start of `active`'s turn. table/waiting: (issue, {nation: cubes})
    pairs (or None for an empty space); settled: (issue, controller, option) triples; the event
    deck's top card is `crisis`; issue_deck_top: the top issues of the draw deck, top last."""
    def slot(x):
        if x is None:
            return None
        name, cubes = x if isinstance(x, tuple) else (x, {})
        return {"issue": name, "cubes": cubes}

    used = {x[0] if isinstance(x, tuple) else x for x in (*table, *waiting) if x is not None}
    used |= {s[0] for s in settled} | set(issue_discards)
    deck = [i for i in ISSUES if i not in used and i not in issue_deck_top] + list(issue_deck_top)
    evs = {e for e in waiting_events if e} | ({event_table} if event_table else set())
    ev_deck = [e for e in EVENTS if e not in evs and e != crisis] + [crisis]
    d = {"num_players": 1, "active": active,
         "table": [slot(x) for x in table], "waiting_room": [slot(x) for x in waiting] + [None] * (3 - len(waiting)),
         "settled": [{"issue": i, "controller": c, "option": o} for i, c, o in settled],
         "issue_deck": deck, "issue_discards": list(issue_discards),
         "events": {"table": event_table, "waiting_room": list(waiting_events), "deck": ev_deck, "discards": []},
         "solitaire": {"faction": faction, "vp": vp},
         "forced_dice": list(forced_dice)}
    if players:
        d["players"] = players
    if regions:
        d["regions"] = regions
    if happiness:
        d["happiness"] = happiness
    d.update(extra)
    return d


def solo_game(**kw) -> Game:
    """Game.from_dict of solo_position(**kw): the bots play up to the player's first decision."""
    return Game.from_dict(solo_position(**kw))


def slot_issue(g, sl):
    i = g.slot_issue(sl)
    return None if i is None else g.names.issue_at(i)


def settled(g) -> dict:
    """issue name -> (controller nation, option name)."""
    return {e["issue"]: (e["controller"], e["option"]) for e in g.to_dict()["settled"]}


def cubes(g, sl) -> dict:
    e = (g.to_dict()["table"] + g.to_dict()["waiting_room"])[sl]
    return {} if e is None else e["cubes"]


def kinds(g) -> set[str]:
    from v1919_env.actions import decode
    return {decode(int(a)).kind for a in g.legal_actions()}
