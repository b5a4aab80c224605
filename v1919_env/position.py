"""Readable, versioned JSON positions: `Game.to_dict()` and `Game.from_dict()`.

A position names nations, regions, issues, events and strategy cards by name (or number);
fields left out take their setup defaults, so a test can write only what a rulebook example
shows. `forced_dice` queues die results used before the random generator, so an example
replays exactly. Malformed input raises PositionError naming the field.

A position taken in the middle of a procedure (a bid, an event, a settle) carries an `engine`
section of raw internals and a digest sealing the whole position: it loads exactly as written
(only `forced_dice` and `rng` may be changed). Positions written by hand leave `engine` and
`pending` out and start at a turn decision.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from .core import layout as L
from .core.tables import (T_DEMOB_N, T_FIRST_DEP_COL, T_GAME_END, T_HAPPY_MAX, T_INFLUENCE, T_KEG_MAX, T_MILITARY,
                          T_TRACK_COLS)
from .seating import parse_seating
from .vocab import NATIONS, REGIONS

FORMAT = "v1919-position"
VERSION = 1
# engine internals (procedure registers and the frame stack) written raw for an exact round trip
ENGINE_FIELDS = ("pass_streak", "settling", "settle_gained", "drawn", "bid_issue", "bid_high", "bid_str", "bid_inf", "bid_inreg",
                 "bid_navail", "bid_passed", "bid_turn", "up_mask", "up_mod", "up_seq", "up_risen", "up_region",
                 "up_unsettled", "up_tied", "draft_order", "ev_iter", "ev_cur", "ev_reg", "ev_sign", "ev_regmask",
                 "ev_stage", "ret", "sp", "stack")
TOP_KEYS = {"format", "version", "card_set", "num_players", "variant", "negotiation", "seed", "seating", "first_player",
            "active",
            "turn", "decisions", "game_over", "pending", "turn_state", "rng", "forced_dice", "happiness", "players",
            "regions", "demobilize_next", "table", "waiting_room", "issue_deck", "issue_discards", "settled", "events",
            "strategies", "engine", "two_player"}


UNSEALED = ("forced_dice", "rng")      # fields a mid-procedure position may still change


def _position_digest(d: dict) -> str:
    """Seal of a mid-procedure position (one with an `engine` section): it loads only as `to_dict`
    wrote it, apart from UNSEALED, so edits cannot drive the kernels into states the rules never
    reach (the engine's frames refer to seats, issues and counts elsewhere in the position)."""
    body = {k: v for k, v in d.items() if k not in UNSEALED}
    body["engine"] = {k: v for k, v in d["engine"].items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


class PositionError(ValueError):
    """A malformed position; the message names the field at fault."""


def _err(field, msg):
    raise PositionError(f"{field}: {msg}")


def _off(name):
    return L.offsets()[name]


# ----------------------------------------------------------------------------- writing
def to_dict(g) -> dict:
    s, cs = g.state, g.cards
    np_ = g.num_factions          # the players, and the 2-player game's USA faction
    seat = lambda p: NATIONS[p] if 0 <= p < np_ else None  # noqa: E731
    issue = lambda i: g.issue_name(int(i))  # noqa: E731
    event = lambda e: g.event_name(int(e))  # noqa: E731
    from .game import variant_names
    players = {}
    for p in range(np_):
        dep = {REGIONS[r]: int(s[L.DEP_COL + p * L.N_REGIONS + r]) for r in range(L.N_REGIONS)
               if s[L.DEP_COL + p * L.N_REGIONS + r] > 0}
        st = int(s[L.PLAYER_STRAT + p])
        players[NATIONS[p]] = {
            "influence": {"available": int(s[L.INF_AVAIL + p]), "exhausted": int(s[L.INF_EXH + p])},
            "military": {"available": int(s[L.MIL_AVAIL + p]), "exhausted": int(s[L.MIL_EXH + p]),
                         "demobilized": int(s[L.MIL_DEMOB + p]), "deployed": dep},
            "strategy": g.strategy_name(st) if st >= 0 else None}

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
                   "option": g.option_name(i, o) if o >= 0 else None}
            if s[L.ISSUE_NAVAL_UK + i]:
                rec["naval_uk"] = int(s[L.ISSUE_NAVAL_UK + i])
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
    pos = int(s[L.FORCED_POS])
    pending = {"decision": L.DECISION_NAMES.get(int(s[L.PENDING]), "none"), "player": seat(int(s[L.PENDING_PLAYER]))}
    turn_state = {"political_done": bool(s[L.POL_DONE]), "military_done": bool(s[L.MIL_DONE])}
    d = {
        "format": FORMAT, "version": VERSION, "card_set": cs.label,
        "num_players": g.num_players, "variant": variant_names(cs)[int(s[L.VARIANT])],
        "negotiation": bool(s[L.NEGOTIATION]), "seating": g.seating,
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
        "strategies": {"dealt": [g.strategy_name(int(x)) for x in s[L.STRAT_DEALT:L.STRAT_DEALT + L.MAX_PLAYERS + 1]
                                 if x >= 0],
                       "draft_done": bool(s[L.DRAFT_DONE])},
        "engine": engine,
    }
    if g.two_player:
        d["two_player"] = _two_player_to_dict(g)
    engine["digest"] = _position_digest(d)
    return d


def _two_player_to_dict(g) -> dict:
    """The 2-player game's own state (EN:771-830): whose turn it is (that player runs the USA
    faction, which is `active` during its political action) and whom the pending decision is for."""
    s = g.state
    return {"turn_owner": NATIONS[int(s[L.TURN_OWNER])],
            "pending_for": NATIONS[int(s[L.PENDING_FACTION])] if not g.is_over else None}


def _two_player_from_dict(s, d) -> None:
    """Read the `two_player` section (absent: the turn is the active player's, decisions for themselves)."""
    tp = d.get("two_player", {})
    _check_keys(tp, {"turn_owner", "pending_for"}, "two_player")
    act = int(s[L.ACTIVE])
    owner = _seat(tp["turn_owner"], 2, "two_player.turn_owner") if "turn_owner" in tp else (
        act if act < 2 else _err("two_player.turn_owner", "needed when the USA faction is active"))
    s[L.TURN_OWNER] = owner
    if act == L.USA_FACTION and d.get("engine") is None:
        s[L.MIL_DONE] = 1           # the USA's part of the turn is its political action alone (EN:787)
    if act < 2 and act != owner:
        _err("two_player.turn_owner", f"{NATIONS[owner]} owns the turn but {NATIONS[act]} is active")
    pf = tp.get("pending_for")
    if pf is not None:
        s[L.PENDING_FACTION] = _seat(pf, 3, "two_player.pending_for")
    else:       # a hand-written turn decision is the active faction's; else the deciding seat's own
        s[L.PENDING_FACTION] = act if d.get("pending") is None else s[L.PENDING_PLAYER]
    if d.get("pending") is None:
        s[L.PENDING_PLAYER] = owner if s[L.PENDING_FACTION] == L.USA_FACTION else s[L.PENDING_FACTION]
    want = owner if s[L.PENDING_FACTION] == L.USA_FACTION else s[L.PENDING_FACTION]
    if not s[L.GAME_OVER] and s[L.PENDING_PLAYER] != want:
        _err("two_player.pending_for", f"a decision for {NATIONS[int(s[L.PENDING_FACTION])]} is taken by "
                                       f"{NATIONS[want]}, not {NATIONS[int(s[L.PENDING_PLAYER])]}")


# ----------------------------------------------------------------------------- reading
class _Names:
    def __init__(self, g):
        cs = g.cards
        self.issues = {}
        for r in cs.raw["issues"]:
            self.issues[r["name"].lower()] = r["number"] - 1
            self.issues[r["id"].lower()] = r["number"] - 1
        self.events = {}
        for r in cs.raw["events"]:
            self.events[r["name"].lower()] = r["number"] - 1
            self.events[r["id"].lower()] = r["number"] - 1
        self.strats = {}
        for r in cs.raw["strategies"]:
            self.strats[r["name"].lower()] = r["number"] - 1
            self.strats[r["id"].lower()] = r["number"] - 1
        self.g = g

    def _lookup(self, table, v, field, what, n):
        if isinstance(v, bool):
            _err(field, f"expected a {what} name or number, got {v!r}")
        if isinstance(v, int):
            if 1 <= v <= n:
                return v - 1
            _err(field, f"{what} number must be 1..{n}, got {v}")
        if isinstance(v, str) and v.lower() in table:
            return table[v.lower()]
        _err(field, f"unknown {what} {v!r}")

    def issue(self, v, field):
        return self._lookup(self.issues, v, field, "issue", L.N_ISSUES)

    def event(self, v, field):
        return self._lookup(self.events, v, field, "event", L.N_EVENTS)

    def strategy(self, v, field):
        return self._lookup(self.strats, v, field, "strategy card", L.N_STRATEGIES)

    def option(self, i, v, field):
        opts = self.g.cards.issue(i + 1).get("options") or []
        if isinstance(v, int) and not isinstance(v, bool):
            if 0 <= v < len(opts):
                return v
            _err(field, f"option index must be 0..{len(opts) - 1}")
        for k, o in enumerate(opts):
            if isinstance(v, str) and o["name"].lower() == v.lower():
                return k
        _err(field, f"unknown option {v!r} of {self.g.issue_name(i)}; options: {[o['name'] for o in opts]}")


def _seat(v, np_, field, allow_none=False):
    if v is None and allow_none:
        return -1
    if isinstance(v, str) and v.lower() in NATIONS[:np_]:
        return NATIONS.index(v.lower())
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < np_:
        return v
    _err(field, f"expected one of {list(NATIONS[:np_])}, got {v!r}")


def _int(v, field, lo, hi):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        _err(field, f"expected an integer in {lo}..{hi}, got {v!r}")
    return int(v)


def _bool(v, field):
    if not isinstance(v, (bool, np.bool_)):
        _err(field, f"expected true or false, got {v!r}")
    return bool(v)


def _list(v, field: str) -> list:
    if not isinstance(v, list):
        _err(field, f"expected a list, got {type(v).__name__}")
    return v


def _check_keys(d, allowed, field):
    if not isinstance(d, dict):
        _err(field, f"expected an object, got {type(d).__name__}")
    extra = set(d) - set(allowed)
    if extra:
        _err(field, f"unknown field(s) {sorted(extra)}; allowed: {sorted(allowed)}")


def _limbo_issues(d) -> list[int]:
    """Issues between places in a mid-procedure position: the two drawn cards awaiting 'keep',
    an issue being bid for."""
    eng = d.get("engine")
    if not isinstance(eng, dict):
        return []
    out = []
    if (d.get("pending") or {}).get("decision") == "keep" and not d.get("game_over"):
        out += list(eng.get("drawn", []))
    st = eng.get("stack", [])
    for k in range(0, len(st) - L.FRAME_W + 1, L.FRAME_W):
        if st[k + L.F_PROC] == L.P_BID:
            out.append(st[k + L.F_A0])
    return [int(i) for i in out]


def _option_pending_issues(d) -> set[int]:
    """Issues won in a bid whose option is still to be chosen (a mutiny caused by the bid's
    happiness loss is resolved first, rulings A-10): controlled, with no option yet. They are named
    by the bidding, option and uprising frames and by an event's unsettle stage."""
    eng = d.get("engine")
    if not isinstance(eng, dict):
        return set()
    st = eng.get("stack", [])
    out = set()
    for k in range(0, len(st) - L.FRAME_W + 1, L.FRAME_W):
        if st[k + L.F_PROC] in (L.P_BID, L.P_OPTION):
            out.add(int(st[k + L.F_A0]))
        elif st[k + L.F_PROC] == L.P_UPRISING:
            out.add(int(st[k + L.F_A0 + 7]))
    if eng.get("ev_stage") == 2 and isinstance(eng.get("ev_reg"), int) and 0 <= eng["ev_reg"] < L.N_ISSUES:
        out.add(eng["ev_reg"])      # an event's unsettle, back from the bidding (core/events.py)
    return out


def _check_engine_digest(d) -> None:
    eng = d.get("engine")
    _check_keys(eng, set(ENGINE_FIELDS) | {"digest"}, "engine")
    try:
        ok = eng.get("digest") == _position_digest(d)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        _err("engine", "a position with an 'engine' section (mid-procedure internal state) loads only as "
                       f"to_dict() wrote it, apart from {list(UNSEALED)}, and it was changed; to set up a "
                       "position by hand, leave out 'engine' and 'pending' (it then starts at a turn decision)")


def from_dict(cls, d: dict):
    """Build a Game from a position dict (see the module docstring)."""
    from .game import Game, variant_names
    _check_keys(d, TOP_KEYS, "position")
    if d.get("engine") is not None:
        _check_engine_digest(d)
    fmt = d.get("format", FORMAT)
    if not isinstance(fmt, str) or fmt != FORMAT:
        _err("format", f"expected {FORMAT!r}, got {fmt!r}")
    ver = d.get("version", VERSION)
    if type(ver) is not int or ver != VERSION:       # exactly the integer: not 1.0, not true
        _err("version", f"this build reads position version {VERSION} (an integer), got {ver!r}")
    np_ = _int(d.get("num_players", 4), "num_players", 2, 4)
    nf = 3 if np_ == 2 else np_       # factions: the players, and the 2-player game's USA
    variant = d.get("variant", "standard")
    negotiation = _bool(d.get("negotiation", False), "negotiation")
    seed = _int(d.get("seed", 0), "seed", 0, 2 ** 62)
    try:
        seating = parse_seating(d.get("seating"), np_)
    except ValueError as e:
        raise PositionError(str(e)) from None
    g = Game.new(np_, seed=seed, negotiation=negotiation)
    if not isinstance(variant, str) or variant not in variant_names(g.cards):
        _err("variant", f"unknown variant {variant!r}; choose one of {variant_names(g.cards)}")
    g = Game.new(np_, seed=seed, variant=variant, negotiation=negotiation, seating=seating)
    if "card_set" in d and d["card_set"] != g.cards.label:
        _err("card_set", f"position was made with {d['card_set']!r}, this game uses {g.cards.label!r}")
    s = g.state
    T = g.T
    names = _Names(g)
    default = g.to_dict()
    # --- seats and turn
    for key, off in (("first_player", L.FIRST_PLAYER), ("active", L.ACTIVE)):
        if key in d:
            s[off] = _seat(d[key], nf if key == "active" else np_, key)
    if "active" in d and "first_player" not in d:
        s[L.FIRST_PLAYER] = s[L.ACTIVE]
    s[L.TURN_NO] = _int(d.get("turn", 0), "turn", 0, 10 ** 6)
    s[L.DECISIONS] = _int(d.get("decisions", 0), "decisions", 0, 10 ** 6)
    s[L.GAME_OVER] = _int(d.get("game_over", 0), "game_over", 0, 3)
    ts = d.get("turn_state", {})
    _check_keys(ts, {"political_done", "military_done"}, "turn_state")
    s[L.POL_DONE] = int(_bool(ts.get("political_done", False), "turn_state.political_done"))
    s[L.MIL_DONE] = int(_bool(ts.get("military_done", False), "turn_state.military_done"))
    if "rng" in d:
        r = d["rng"]
        if not (isinstance(r, list) and len(r) == 2):
            _err("rng", "expected two 32-bit integers")
        s[L.RNG] = _int(r[0], "rng[0]", -2 ** 31, 2 ** 31 - 1)
        s[L.RNG + 1] = _int(r[1], "rng[1]", -2 ** 31, 2 ** 31 - 1)
        if s[L.RNG] == 0 and s[L.RNG + 1] == 0:
            # xorshift never leaves the zero state: every die would be a 1 (ruling P-14)
            _err("rng", "the generator state [0, 0] is not allowed (it would roll 1 forever)")
    fd = d.get("forced_dice", [])
    if not isinstance(fd, list) or len(fd) > L.MAX_FORCED:
        _err("forced_dice", f"expected a list of at most {L.MAX_FORCED} die results")
    for k, v in enumerate(fd):
        s[L.FORCED + k] = _int(v, f"forced_dice[{k}]", 1, 6)
    s[L.FORCED_N] = len(fd)
    s[L.FORCED_POS] = 0
    # --- happiness, regions
    hp = d.get("happiness", {})
    _check_keys(hp, NATIONS, "happiness")
    for n, v in hp.items():
        s[L.HAPPY + NATIONS.index(n)] = _int(v, f"happiness.{n}", 0, int(T[T_HAPPY_MAX]))
    rg = d.get("regions", {})
    _check_keys(rg, REGIONS, "regions")
    for r, v in rg.items():
        _check_keys(v, {"unrest", "powder_keg"}, f"regions.{r}")
        k = REGIONS.index(r)
        if "powder_keg" in v:
            s[L.KEG + k] = _int(v["powder_keg"], f"regions.{r}.powder_keg", 0, int(T[T_KEG_MAX]))
        if "unrest" in v:
            s[L.UNREST + k] = _int(v["unrest"], f"regions.{r}.unrest", 1, int(T[T_TRACK_COLS]))
    # --- issues: zones given are exact; other zones keep their defaults minus cards placed elsewhere
    placed: dict[int, str] = {}

    def place(i, field):
        if i in placed:
            _err(field, f"{g.issue_name(i)} is already placed at {placed[i]}")
        placed[i] = field

    slot_vals = {}
    for zone, base, n in (("table", 0, L.N_TABLE), ("waiting_room", L.N_TABLE, L.N_SLOTS - L.N_TABLE)):
        if zone in d:
            z = d[zone]
            if not isinstance(z, list) or len(z) > n:
                _err(zone, f"expected a list of at most {n} entries (issue objects or null)")
            for k in range(n):
                e = z[k] if k < len(z) else None
                if e is None:
                    slot_vals[base + k] = None
                    continue
                if isinstance(e, (str, int)):
                    e = {"issue": e}
                _check_keys(e, {"issue", "cubes"}, f"{zone}[{k}]")
                i = names.issue(e.get("issue"), f"{zone}[{k}].issue")
                place(i, f"{zone}[{k}]")
                cubes = e.get("cubes", {})
                _check_keys(cubes, NATIONS[:nf], f"{zone}[{k}].cubes")
                slot_vals[base + k] = (i, {NATIONS.index(nat): _int(c, f"{zone}[{k}].cubes.{nat}", 0, 15)
                                           for nat, c in cubes.items()})
    settled_vals = []
    option_pending = _option_pending_issues(d)
    for k, e in enumerate(_list(d.get("settled", []), "settled")):
        if isinstance(e, (str, int)):
            _err(f"settled[{k}]", "expected an object with issue and controller")
        _check_keys(e, {"issue", "controller", "option", "naval_uk"}, f"settled[{k}]")
        i = names.issue(e.get("issue"), f"settled[{k}].issue")
        place(i, f"settled[{k}]")
        c = _seat(e.get("controller"), nf, f"settled[{k}].controller")
        o = names.option(i, e["option"], f"settled[{k}].option") if e.get("option") is not None else -1
        if o < 0 and i != int(T[T_GAME_END]) and i not in option_pending:
            _err(f"settled[{k}].option", "a settled issue needs its chosen option")
        settled_vals.append((i, c, o, _int(e.get("naval_uk", 0), f"settled[{k}].naval_uk", 0, 4)))
    lists = {}
    for zone in ("issue_discards", "issue_deck"):
        if zone in d:
            if not isinstance(d[zone], list):
                _err(zone, "expected a list of issues, bottom card first")
            lists[zone] = []
            for k, v in enumerate(d[zone]):
                i = names.issue(v, f"{zone}[{k}]")
                place(i, f"{zone}[{k}]")
                lists[zone].append(i)
    # defaults for zones not given
    for zone, base, n in (("table", 0, L.N_TABLE), ("waiting_room", L.N_TABLE, L.N_SLOTS - L.N_TABLE)):
        if zone not in d:
            for k, e in enumerate(default[zone]):
                sl = base + k
                i = names.issue(e["issue"], zone) if e else None
                if i is None or i in placed:
                    slot_vals[sl] = None
                else:
                    place(i, f"{zone}[{k}] (default)")
                    slot_vals[sl] = (i, {})
    if "issue_discards" not in d:
        lists["issue_discards"] = [names.issue(v, "issue_discards") for v in default["issue_discards"]
                                   if names.issue(v, "issue_discards") not in placed]
        for i in lists["issue_discards"]:
            place(i, "issue_discards (default)")
    if "issue_deck" not in d:
        lists["issue_deck"] = [names.issue(v, "issue_deck") for v in default["issue_deck"]
                               if names.issue(v, "issue_deck") not in placed]
        for i in lists["issue_deck"]:
            place(i, "issue_deck (default)")
    for i in _limbo_issues(d):
        place(i, "in play (engine state)")
    missing = [g.issue_name(i) for i in range(L.N_ISSUES) if i not in placed]
    if missing:
        if "issue_deck" in d:
            _err("issue_deck", f"issues placed nowhere: {missing}")
        lists["issue_deck"] = [i for i in range(L.N_ISSUES) if i not in placed] + lists["issue_deck"]
    s[L.SLOT_ISSUE:L.SLOT_ISSUE + L.N_SLOTS] = -1
    s[L.SLOT_CUBES:L.SLOT_CUBES + L.N_SLOTS * L.MAX_PLAYERS] = 0
    for sl, v in slot_vals.items():
        if v is None:
            continue
        i, cubes = v
        s[L.SLOT_ISSUE + sl] = i
        for p, c in cubes.items():
            s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p] = c
        vals = sorted(cubes.values(), reverse=True)
        if len(vals) > 1 and vals[0] == vals[1] and vals[0] > 0:
            zone = "table" if sl < L.N_TABLE else "waiting_room"
            _err(f"{zone}[{sl if sl < L.N_TABLE else sl - L.N_TABLE}].cubes",
                 "two players tie for the most cubes, which play cannot produce (rulings A-27)")
    for zone, off, noff in (("issue_deck", L.ISSUE_DECK, L.ISSUE_DECK_N), ("issue_discards", L.ISSUE_DISC,
                                                                            L.ISSUE_DISC_N)):
        s[off:off + L.N_ISSUES] = 0
        s[off:off + len(lists[zone])] = lists[zone]
        s[noff] = len(lists[zone])
    s[L.ISSUE_CTRL:L.ISSUE_CTRL + L.N_ISSUES] = -1
    s[L.ISSUE_OPT:L.ISSUE_OPT + L.N_ISSUES] = -1
    s[L.ISSUE_NAVAL_UK:L.ISSUE_NAVAL_UK + L.N_ISSUES] = 0
    for i, c, o, nuk in settled_vals:
        s[L.ISSUE_CTRL + i] = c
        s[L.ISSUE_OPT + i] = o
        s[L.ISSUE_NAVAL_UK + i] = nuk
    # --- events
    ev = d.get("events", {})
    _check_keys(ev, {"table", "waiting_room", "deck", "discards"}, "events")
    eplaced: dict[int, str] = {}

    def eplace(e, field):
        if e in eplaced:
            _err(field, f"{g.event_name(e)} is already placed at {eplaced[e]}")
        eplaced[e] = field

    ev_table, ev_cube = None, -1
    src = ev if "table" in ev else default["events"]
    if src.get("table") is not None:
        t = src["table"]
        if isinstance(t, (str, int)):
            t = {"event": t}
        _check_keys(t, {"event", "cube"}, "events.table")
        ev_table = names.event(t.get("event"), "events.table.event")
        eplace(ev_table, "events.table")
        ev_cube = _seat(t.get("cube"), nf, "events.table.cube", allow_none=True)
    ev_wait = [-1, -1]
    if "waiting_room" in ev:
        w = ev["waiting_room"]
        if not isinstance(w, list) or len(w) > 2:
            _err("events.waiting_room", "expected a list of at most 2 events")
        for k, v in enumerate(w):
            if v is not None:
                ev_wait[k] = names.event(v, f"events.waiting_room[{k}]")
                eplace(ev_wait[k], f"events.waiting_room[{k}]")
    elists = {}
    for zone in ("deck", "discards"):
        if zone in ev:
            elists[zone] = []
            for k, v in enumerate(_list(ev[zone], f"events.{zone}")):
                e = names.event(v, f"events.{zone}[{k}]")
                eplace(e, f"events.{zone}[{k}]")
                elists[zone].append(e)
    if "waiting_room" not in ev:
        for k, v in enumerate(default["events"]["waiting_room"]):
            e = names.event(v, "events.waiting_room")
            if e not in eplaced:
                ev_wait[k] = e
                eplace(e, "events.waiting_room (default)")
    for zone in ("discards", "deck"):
        if zone not in ev:
            elists[zone] = [names.event(v, zone) for v in default["events"][zone]
                            if names.event(v, zone) not in eplaced]
            for e in elists[zone]:
                eplace(e, f"events.{zone} (default)")
    emissing = [e for e in range(L.N_EVENTS) if e not in eplaced]
    if emissing:
        if "deck" in ev:
            _err("events.deck", f"events placed nowhere: {[g.event_name(e) for e in emissing]}")
        elists["deck"] = emissing + elists["deck"]
    s[L.EV_TABLE] = -1 if ev_table is None else ev_table
    s[L.EV_CUBE] = ev_cube
    s[L.EV_WAIT] = ev_wait[0]
    s[L.EV_WAIT + 1] = ev_wait[1]
    for zone, off, noff in (("deck", L.EV_DECK, L.EV_DECK_N), ("discards", L.EV_DISC, L.EV_DISC_N)):
        s[off:off + L.N_EVENTS] = 0
        s[off:off + len(elists[zone])] = elists[zone]
        s[noff] = len(elists[zone])
    # --- strategies
    stg = d.get("strategies", {})
    _check_keys(stg, {"dealt", "draft_done"}, "strategies")
    if "dealt" in stg:
        dealt = [names.strategy(v, f"strategies.dealt[{k}]")
                 for k, v in enumerate(_list(stg["dealt"], "strategies.dealt"))]
        if len(dealt) != np_ + 1 or len(set(dealt)) != len(dealt):
            _err("strategies.dealt", f"expected {np_ + 1} different strategy cards")
        s[L.STRAT_DEALT:L.STRAT_DEALT + L.MAX_PLAYERS + 1] = -1
        s[L.STRAT_DEALT:L.STRAT_DEALT + len(dealt)] = dealt
    s[L.DRAFT_DONE] = int(_bool(stg.get("draft_done", False), "strategies.draft_done"))
    # --- players
    pl = d.get("players", {})
    _check_keys(pl, NATIONS[:nf], "players")
    on_issues = {p: sum(int(s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p]) for sl in range(L.N_SLOTS)) for p in range(nf)}
    for p in range(nf):
        nat = NATIONS[p]
        e = pl.get(nat, {})
        _check_keys(e, {"influence", "military", "strategy"}, f"players.{nat}")
        inf = e.get("influence", {})
        _check_keys(inf, {"available", "exhausted"}, f"players.{nat}.influence")
        exh = _int(inf.get("exhausted", 0), f"players.{nat}.influence.exhausted", 0, 15)
        cube = 1 if ev_cube == p else 0
        total = int(T[T_INFLUENCE])
        avail = _int(inf.get("available", total - exh - on_issues[p] - cube), f"players.{nat}.influence.available",
                     -99, 99)
        if avail + exh + on_issues[p] + cube != total or avail < 0:
            _err(f"players.{nat}.influence", f"{avail + exh + on_issues[p] + cube} cubes in all (available {avail} "
                                              f"+ exhausted {exh} + on issues {on_issues[p]} + on the event {cube}), "
                                              f"expected {total}")
        s[L.INF_AVAIL + p] = avail
        s[L.INF_EXH + p] = exh
        mil = e.get("military", {})
        _check_keys(mil, {"available", "exhausted", "demobilized", "deployed"}, f"players.{nat}.military")
        dep = mil.get("deployed", {})
        _check_keys(dep, REGIONS, f"players.{nat}.military.deployed")
        for r in range(L.N_REGIONS):
            s[L.DEP_COL + p * L.N_REGIONS + r] = 0
        for r, c in dep.items():
            s[L.DEP_COL + p * L.N_REGIONS + REGIONS.index(r)] = _int(
                c, f"players.{nat}.military.deployed.{r}", int(T[T_FIRST_DEP_COL]), int(T[T_TRACK_COLS]))
        mtot = 0 if (np_ == 2 and p == L.USA_FACTION) else int(T[T_MILITARY])   # influence only (EN:779)
        mx = _int(mil.get("exhausted", 0), f"players.{nat}.military.exhausted", 0, mtot)
        md = _int(mil.get("demobilized", 0), f"players.{nat}.military.demobilized", 0, mtot)
        ma = _int(mil.get("available", mtot - mx - md - len(dep)), f"players.{nat}.military.available", -9, 9)
        if ma + mx + md + len(dep) != mtot or ma < 0:
            _err(f"players.{nat}.military", f"{ma + mx + md + len(dep)} units in all, expected {mtot}")
        s[L.MIL_AVAIL + p] = ma
        s[L.MIL_EXH + p] = mx
        s[L.MIL_DEMOB + p] = md
        s[L.PLAYER_STRAT + p] = -1 if e.get("strategy") is None else names.strategy(e["strategy"],
                                                                                     f"players.{nat}.strategy")
    for r in range(L.N_REGIONS):
        cols = [int(s[L.DEP_COL + p * L.N_REGIONS + r]) for p in range(nf) if s[L.DEP_COL + p * L.N_REGIONS + r]]
        if len(cols) != len(set(cols)):
            _err(f"players.*.military.deployed.{REGIONS[r]}", "two units share a space")
        cap = min(cols) - 1 if cols else int(T[T_TRACK_COLS])
        if not s[L.KEG + r] < s[L.UNREST + r] <= cap:
            _err(f"regions.{REGIONS[r]}", f"unrest {int(s[L.UNREST + r])} must be right of the powder keg "
                                          f"({int(s[L.KEG + r])}) and left of any military (column {cap + 1})")
    total_demob = sum(int(s[L.MIL_DEMOB + p]) for p in range(nf))
    s[L.DEMOB_NEXT] = _int(d.get("demobilize_next", min(total_demob, int(T[T_DEMOB_N + nf]))), "demobilize_next",
                           0, int(T[T_DEMOB_N + nf]))
    # --- decision and engine state
    pend = d.get("pending")
    eng = d.get("engine")
    if eng is not None:
        offs = L.offsets()
        _check_engine_digest(d)
        for name in ENGINE_FIELDS:
            if name in eng:
                o, n = offs[name]
                v = eng[name] if isinstance(eng[name], list) else [eng[name]]
                if len(v) > n:
                    _err(f"engine.{name}", f"at most {n} values")
                s[o:o + len(v)] = v
        if pend is None:
            _err("pending", "a position with engine state needs its pending decision")
    else:
        # a position at the start of the active player's turn (or mid-turn per turn_state)
        s[L.SP] = 0
        from .core.board import push
        push(s, L.P_TURN, -1, 0)
        s[L.SETTLING] = -1
        s[L.BID_HIGH] = -1
    if pend is not None:
        _check_keys(pend, {"decision", "player"}, "pending")
        kinds = {v: k for k, v in L.DECISION_NAMES.items()}
        if pend.get("decision") not in kinds:
            _err("pending.decision", f"unknown decision {pend.get('decision')!r}")
        s[L.PENDING] = kinds[pend["decision"]]
        s[L.PENDING_PLAYER] = _seat(pend.get("player"), np_, "pending.player", allow_none=True)
        if eng is None and s[L.PENDING] != L.D_TURN:
            _err("pending.decision", "without engine state a position can only be at a 'turn' decision")
    else:
        s[L.PENDING] = L.D_TURN
        s[L.PENDING_PLAYER] = s[L.ACTIVE]
    if np_ == 2:
        _two_player_from_dict(s, d)
    else:
        if "two_player" in d:
            _err("two_player", "only a 2-player position has this section")
        s[L.PENDING_FACTION] = s[L.PENDING_PLAYER]
    _check_unit_limits(s, T, nf)
    return g


def _check_unit_limits(s, T, np_) -> None:
    """Units in play never exceed what the happiness zone allows (EN:533), except while a mutiny
    is under way or an event has begun applying its effects (it checks for mutiny once applied in
    full, project ruling P-11)."""
    from .core.board import over_unit_limit
    frames = [L.STACK + k * L.FRAME_W for k in range(int(s[L.SP]))]
    if s[L.GAME_OVER] or s[L.PENDING] == L.D_MUTINY or any(
            s[f + L.F_PROC] == L.P_MUTINY or (s[f + L.F_PROC] == L.P_EVENT and s[f + L.F_A0 + 2] > 0)
            for f in frames):
        return
    for p in range(np_):
        if over_unit_limit(s, T, p):
            _err(f"players.{NATIONS[p]}.military", f"more units in play than happiness {int(s[L.HAPPY + p])} "
                                                   "allows (a mutiny would be due)")

