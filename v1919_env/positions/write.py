"""Readable, versioned JSON positions: `Game.to_dict()` and `Game.from_dict()`.

A position names nations, regions, issues, events and strategy cards by name (or number, see
v1919_env.cards.names); fields left out take their setup defaults, so a test can write only what a
rulebook example shows. `forced_dice` queues die results used before the random generator, so an
example replays exactly. Malformed input raises PositionError naming the field. A position records
its card set by label and content digest, its seating, and the counters on every settled issue.

A position taken in the middle of a procedure (a bid, an event, a settle) carries an `engine`
section of raw internals and a digest sealing the whole position: it loads exactly as written
(only `forced_dice` and `rng` may be changed). Its `residue` holds the state slots no section
describes (past the live part of the piles and the frame stack), so that `from_dict(to_dict(g))`
has g's state array exactly. Positions written by hand leave `engine` and `pending` out and start
at a turn decision.

Writing is here; reading is read.py, one reader per section.
"""
from __future__ import annotations

import hashlib
import json

from v1919_env.positions import read as R
from v1919_env.core import layout as L
from v1919_env.core.tables import T_STRAT_EXTRA
from v1919_env.positions.fields import Lookup, PositionError, check_keys, err
from v1919_env.positions.read import FORMAT, VERSION
from v1919_env.variants import variant_names
from v1919_env.core.vocab import NATIONS, REGIONS

__all__ = ["FORMAT", "VERSION", "PositionError", "to_dict", "from_dict"]

# engine internals (procedure registers and the frame stack) written raw for an exact round trip
ENGINE_FIELDS = ("pass_streak", "settling", "settle_gained", "drawn", "bid_issue", "bid_high", "bid_str", "bid_inf", "bid_inreg",
                 "bid_navail", "bid_passed", "bid_turn", "up_mask", "up_mod", "up_seq", "up_risen", "up_region",
                 "up_unsettled", "up_tied", "draft_order", "ev_iter", "ev_cur", "ev_reg", "ev_sign", "ev_regmask",
                 "ev_stage", "ret", "sp", "stack")
ENGINE_KEYS = set(ENGINE_FIELDS) | {"residue", "digest"}    # residue: see read.residue_to_dict
TOP_KEYS = {"format", "version", "card_set", "card_set_digest", "num_players", "variant", "negotiation", "seed",
            "seating", "first_player", "active", "turn", "decisions", "game_over", "pending", "turn_state", "rng",
            "forced_dice", "happiness", "players", "regions", "demobilize_next", "table", "waiting_room", "issue_deck",
            "issue_discards", "settled", "events", "strategies", "engine", "two_player", "solitaire"}


UNSEALED = ("forced_dice", "rng")      # fields a mid-procedure position may still change


def _position_digest(d: dict) -> str:
    """Seal of a mid-procedure position (one with an `engine` section): it loads only as `to_dict`
    wrote it, apart from UNSEALED, so edits cannot drive the kernels into states the rules never
    reach (the engine's frames refer to seats, issues and counts elsewhere in the position)."""
    body = {k: v for k, v in d.items() if k not in UNSEALED}
    body["engine"] = {k: v for k, v in d["engine"].items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


# ----------------------------------------------------------------------------- writing
def to_dict(g) -> dict:
    """The position of a game (a plain JSON-able dict; see the module docstring)."""
    s, cs, names = g.state, g.cards, g.names
    np_ = g.num_factions          # the players, and the 2-player game's USA faction
    seat = lambda p: NATIONS[p] if 0 <= p < np_ else None  # noqa: E731
    issue, event = names.issue_at, names.event_at
    players = {}
    for p in range(np_):
        dep = {REGIONS[r]: int(s[L.DEP_COL + p * L.N_REGIONS + r]) for r in range(L.N_REGIONS)
               if s[L.DEP_COL + p * L.N_REGIONS + r] > 0}
        st = int(s[L.PLAYER_STRAT + p])
        players[NATIONS[p]] = {
            "influence": {"available": int(s[L.INF_AVAIL + p]), "exhausted": int(s[L.INF_EXH + p])},
            "military": {"available": int(s[L.MIL_AVAIL + p]), "exhausted": int(s[L.MIL_EXH + p]),
                         "demobilized": int(s[L.MIL_DEMOB + p]), "deployed": dep},
            "strategy": names.strategy_at(st) if st >= 0 else None}

    def slot(sl):
        i = int(s[L.SLOT_ISSUE + sl])
        if i < 0:
            return None
        cubes = {NATIONS[p]: int(s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p]) for p in range(np_)
                 if s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p] > 0}
        return {"issue": issue(i), "cubes": cubes}

    settled = []
    for i in range(L.N_ISSUES):
        c = int(s[L.ISSUE_CTRL + i])
        if c >= 0:
            o = int(s[L.ISSUE_OPT + i])
            rec = {"issue": issue(i), "controller": seat(c),
                   "option": g.option_name(i + 1, o) if o >= 0 else None}
            if s[L.ISSUE_NAVAL_UK + i]:
                rec["naval_uk"] = int(s[L.ISSUE_NAVAL_UK + i])
            counters = R.settled_counters(g.T, i, o, int(s[L.ISSUE_NAVAL_UK + i]))
            if counters:
                rec["counters"] = counters
            settled.append(rec)
    ev_t = int(s[L.EV_TABLE])
    engine = {}
    offs = L.offsets()
    for name in ENGINE_FIELDS:
        o, n = offs[name]
        vals = [int(x) for x in s[o:o + n]]
        if name == "stack":
            vals = vals[:int(s[L.SP]) * L.FRAME_W]
        engine[name] = vals[0] if n == 1 else vals
    residue = R.residue_to_dict(s)
    if residue:
        engine["residue"] = residue
    pos = int(s[L.FORCED_POS])
    # the solitaire player decides as the faction it controls (its decisions for a bot: solitaire.pending_for)
    pending = {"decision": L.DECISION_NAMES.get(int(s[L.PENDING]), "none"),
               "player": seat(int(s[L.SOLO_FACTION] if g.solitaire else s[L.PENDING_PLAYER]))}
    turn_state = {"political_done": bool(s[L.POL_DONE]), "military_done": bool(s[L.MIL_DONE])}
    d = {
        "format": FORMAT, "version": VERSION, "card_set": cs.label, "card_set_digest": cs.digest,
        "num_players": g.num_players, "variant": variant_names(cs)[int(s[L.VARIANT])],
        "negotiation": bool(s[L.NEGOTIATION]),
        "seating": g.seating,
        "first_player": seat(int(s[L.FIRST_PLAYER])), "active": seat(int(s[L.ACTIVE])),
        "turn": int(s[L.TURN_NO]), "decisions": int(s[L.DECISIONS]), "game_over": int(s[L.GAME_OVER]),
        "pending": pending,
        "turn_state": turn_state,
        "rng": [int(s[L.RNG]), int(s[L.RNG + 1])],
        "forced_dice": [int(x) for x in s[L.FORCED + pos:L.FORCED + int(s[L.FORCED_N])]],
        "happiness": {n: int(s[L.HAPPY + k]) for k, n in enumerate(NATIONS)},
        "players": players,
        "regions": {r: {"unrest": int(s[L.UNREST + k]), "powder_keg": int(s[L.KEG + k])} for k, r in enumerate(REGIONS)},
        "demobilize_next": int(s[L.DEMOB_NEXT]),
        "table": [slot(sl) for sl in range(L.N_TABLE)],
        "waiting_room": [slot(sl) for sl in range(L.N_TABLE, L.N_SLOTS)],
        "issue_deck": [issue(x) for x in s[L.ISSUE_DECK:L.ISSUE_DECK + int(s[L.ISSUE_DECK_N])]],
        "issue_discards": [issue(x) for x in s[L.ISSUE_DISC:L.ISSUE_DISC + int(s[L.ISSUE_DISC_N])]],
        "settled": settled,
        "events": {"table": None if ev_t < 0 else {"event": event(ev_t), "cube": seat(int(s[L.EV_CUBE]))},
                   "waiting_room": [None if s[L.EV_WAIT + w] < 0 else event(s[L.EV_WAIT + w]) for w in range(2)],
                   "deck": [event(x) for x in s[L.EV_DECK:L.EV_DECK + int(s[L.EV_DECK_N])]],
                   "discards": [event(x) for x in s[L.EV_DISC:L.EV_DISC + int(s[L.EV_DISC_N])]]},
        "strategies": {"dealt": [names.strategy_at(x) for x in s[L.STRAT_DEALT:L.STRAT_DEALT + L.MAX_PLAYERS + 1]
                                 if x >= 0],
                       "draft_done": bool(s[L.DRAFT_DONE])},
        "engine": engine,
    }
    if g.two_player:
        d["two_player"] = R.two_player_to_dict(g)
    if g.solitaire:
        d["solitaire"] = R.solitaire_to_dict(g)
    engine["digest"] = _position_digest(d)
    return d


# ----------------------------------------------------------------------------- reading
def _check_engine_digest(d) -> None:
    eng = d.get("engine")
    check_keys(eng, ENGINE_KEYS, "engine")
    try:
        ok = eng.get("digest") == _position_digest(d)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        err("engine", "a position with an 'engine' section (mid-procedure internal state) loads only as "
                      f"to_dict() wrote it, apart from {list(UNSEALED)}, and it was changed; to set up a "
                      "position by hand, leave out 'engine' and 'pending' (it then starts at a turn decision)")


def from_dict(cls, d: dict, card_set=None):
    """Build a `cls` game (Game) from a position dict (see the module docstring); card_set: the
    path of the cards the position was made with (default the shipped set)."""
    check_keys(d, TOP_KEYS, "position")
    if d.get("engine") is not None:
        _check_engine_digest(d)
        R.check_engine(d["engine"], ENGINE_FIELDS)     # a re-sealed digest does not vouch for the values
    g = R.read_header(cls, d, card_set)
    s, T, np_, nf = g.state, g.T, g.num_players, g.num_factions     # nf: the 2-player game's USA too
    if g.solitaire:
        np_ = nf                  # the solitaire factions take the seats' places in the position
    default = to_dict(g)
    names = Lookup(g)
    R.read_turn(d, s, np_, nf)
    R.read_dice(d, s)
    R.read_happiness(d, s, T)
    R.read_regions(d, s, T)
    R.read_issues(d, g, names, default)
    R.read_events(d, g, names, default)
    R.read_strategies(d, s, 0 if g.solitaire else np_ + int(T[T_STRAT_EXTRA]), names)
    R.read_players(d, s, T, nf, names, g.two_player)
    R.check_tracks(s, T, nf)
    R.read_demobilize(d, s, T, nf)
    R.read_decision(d, s, np_, ENGINE_FIELDS)
    R.read_two_player(d, s, g.two_player)
    R.read_solitaire(d, g)
    R.check_unit_limits(s, T, nf)
    if g.solitaire:
        R.start_solitaire(g)
    return g
