"""Reading a position (`Game.from_dict`): one reader per section of the position.

Each reader checks its section (PositionError naming the field) and writes it into the state of a
freshly set-up game; sections left out keep the setup's values (`default`: that game's to_dict).
"""
from __future__ import annotations

from v1919_env.core import layout as L
from v1919_env.core.tables import (EV_LEN, T_DEMOB_N, T_FIRST_DEP_COL, T_GAME_END, T_HAPPY_MAX, T_INFLUENCE,
                                   T_KEG_MAX, T_MILITARY, T_OPT_CTR, T_OPT_NAVAL, T_TRACK_COLS)
from v1919_env.positions.fields import PositionError, as_bool, as_int, as_list, check_keys, err, seat
from v1919_env.seating import parse_seating
from v1919_env.variants import variant_index
from v1919_env.core.vocab import COUNTERS, NATIONS, REGIONS

FORMAT = "v1919-position"
VERSION = 1
NAVAL_UK, NAVAL_USA = COUNTERS.index("naval_uk"), COUNTERS.index("naval_usa")


# ----------------------------------------------------------------------------- the game itself
def read_header(cls, d: dict, card_set=None):
    """format, version, num_players, variant, negotiation, seed, seating and the card set: a new game."""
    fmt = d.get("format", FORMAT)
    if not isinstance(fmt, str) or fmt != FORMAT:
        err("format", f"expected {FORMAT!r}, got {fmt!r}")
    ver = d.get("version", VERSION)
    if type(ver) is not int or ver != VERSION:       # exactly the integer: not 1.0, not true
        err("version", f"this build reads position version {VERSION} (an integer), got {ver!r}")
    np_ = as_int(d.get("num_players", 4), "num_players", 1, 4)
    negotiation = as_bool(d.get("negotiation", False), "negotiation")
    seed = as_int(d.get("seed", 0), "seed", 0, 2 ** 62)
    try:
        seating = parse_seating(d.get("seating"), L.SOLO_FACTIONS if np_ == 1 else np_)
    except ValueError as e:
        raise PositionError(str(e)) from None

    def setup(variant):
        # the solitaire game stops before its first decision: the bots must not play the default setup
        try:
            return cls._setup(np_, seed, variant, negotiation, card_set, seating, None, L.SOLO_DEFAULT_TARGET,
                              run=np_ != 1)
        except ValueError as e:
            raise PositionError(str(e)) from None

    g = setup("standard")
    try:
        vi = variant_index(g.cards, d.get("variant", "standard"))
    except ValueError as e:
        err("variant", str(e))
    if vi:
        g = setup(d["variant"])
    _check_card_set(d, g.cards)
    return g


def _check_card_set(d: dict, cards) -> None:
    """The position's card set is this game's: same label and, when recorded, the same content."""
    hint = "pass the cards it was made with: Game.from_dict(position, card_set=PATH)"
    if "card_set" in d and d["card_set"] != cards.label:
        err("card_set", f"the position was made with {d['card_set']!r}, this game uses {cards.label!r}; {hint}")
    if "card_set_digest" in d and d["card_set_digest"] != cards.digest:
        err("card_set_digest", f"the position was made with cards whose content digest is {d['card_set_digest']!r}; "
                               f"this game's {cards.label} has {cards.digest!r} (an edited card set keeps its "
                               f"label, not its digest); {hint}")


def read_turn(d: dict, s, np_: int, nf: int) -> None:
    """first_player, active (the 2-player game's USA faction may be active), turn, decisions,
    game_over, turn_state."""
    for key, off in (("first_player", L.FIRST_PLAYER), ("active", L.ACTIVE)):
        if key in d:
            s[off] = seat(d[key], nf if key == "active" else np_, key)
    if "active" in d and "first_player" not in d:
        s[L.FIRST_PLAYER] = s[L.ACTIVE]
    s[L.TURN_NO] = as_int(d.get("turn", 0), "turn", 0, 10 ** 6)
    s[L.DECISIONS] = as_int(d.get("decisions", 0), "decisions", 0, 10 ** 6)
    s[L.GAME_OVER] = as_int(d.get("game_over", 0), "game_over", 0, 3)
    ts = d.get("turn_state", {})
    check_keys(ts, {"political_done", "military_done"}, "turn_state")
    s[L.POL_DONE] = int(as_bool(ts.get("political_done", False), "turn_state.political_done"))
    s[L.MIL_DONE] = int(as_bool(ts.get("military_done", False), "turn_state.military_done"))


def read_dice(d: dict, s) -> None:
    """rng (the generator state) and forced_dice (used before it)."""
    if "rng" in d:
        r = d["rng"]
        if not (isinstance(r, list) and len(r) == 2):
            err("rng", "expected two 32-bit integers")
        s[L.RNG] = as_int(r[0], "rng[0]", -2 ** 31, 2 ** 31 - 1)
        s[L.RNG + 1] = as_int(r[1], "rng[1]", -2 ** 31, 2 ** 31 - 1)
        if s[L.RNG] == 0 and s[L.RNG + 1] == 0:
            # xorshift never leaves the zero state: every die would be a 1 (ruling P-14)
            err("rng", "the generator state [0, 0] is not allowed (it would roll 1 forever)")
    fd = d.get("forced_dice", [])
    if not isinstance(fd, list) or len(fd) > L.MAX_FORCED:
        err("forced_dice", f"expected a list of at most {L.MAX_FORCED} die results")
    for k, v in enumerate(fd):
        s[L.FORCED + k] = as_int(v, f"forced_dice[{k}]", 1, 6)
    s[L.FORCED_N] = len(fd)
    s[L.FORCED_POS] = 0


def read_happiness(d: dict, s, T) -> None:
    hp = d.get("happiness", {})
    check_keys(hp, NATIONS, "happiness")
    for n, v in hp.items():
        s[L.HAPPY + NATIONS.index(n)] = as_int(v, f"happiness.{n}", 0, int(T[T_HAPPY_MAX]))


def read_regions(d: dict, s, T) -> None:
    rg = d.get("regions", {})
    check_keys(rg, REGIONS, "regions")
    for r, v in rg.items():
        check_keys(v, {"unrest", "powder_keg"}, f"regions.{r}")
        k = REGIONS.index(r)
        if "powder_keg" in v:
            s[L.KEG + k] = as_int(v["powder_keg"], f"regions.{r}.powder_keg", 0, int(T[T_KEG_MAX]))
        if "unrest" in v:
            s[L.UNREST + k] = as_int(v["unrest"], f"regions.{r}.unrest", 1, int(T[T_TRACK_COLS]))


# ----------------------------------------------------------------------------- issues
ZONES = (("table", 0, L.N_TABLE), ("waiting_room", L.N_TABLE, L.N_SLOTS - L.N_TABLE))
PILES = (("issue_deck", L.ISSUE_DECK, L.ISSUE_DECK_N), ("issue_discards", L.ISSUE_DISC, L.ISSUE_DISC_N))


class _Places:
    """Where each card has been placed so far (a card is in exactly one place)."""

    def __init__(self, name_of):
        self.where: dict[int, str] = {}
        self.name_of = name_of

    def put(self, i: int, field: str) -> None:
        if i in self.where:
            err(field, f"{self.name_of(i)} is already placed at {self.where[i]}")
        self.where[i] = field

    def __contains__(self, i) -> bool:
        return i in self.where


def read_issues(d: dict, g, names, default: dict) -> None:
    """table, waiting_room, settled, issue_deck, issue_discards: zones given are exact; zones left
    out keep their setup cards minus those placed elsewhere; cards placed nowhere go under the deck."""
    np_ = g.num_factions
    placed = _Places(g.names.issue_at)
    slots = _read_slots(d, np_, names, placed)
    settled = _read_settled(d, g, names, placed)
    piles = {zone: [_put(placed, names.issue(v, f"{zone}[{k}]"), f"{zone}[{k}]")
                    for k, v in enumerate(as_list(d[zone], zone))] for zone in ("issue_discards", "issue_deck")
             if zone in d}
    for zone, base, n in ZONES:
        if zone not in d:
            for k, e in enumerate(default[zone]):
                i = names.issue(e["issue"], zone) if e else None
                slots[base + k] = None if i is None or i in placed else (_put(placed, i, f"{zone}[{k}] (default)"), {})
    for zone in ("issue_discards", "issue_deck"):
        if zone not in d:
            piles[zone] = [_put(placed, i, f"{zone} (default)") for i in
                           (names.issue(v, zone) for v in default[zone]) if i not in placed]
    for i in _limbo_issues(d):
        placed.put(i, "in play (engine state)")
    missing = [i for i in range(L.N_ISSUES) if i not in placed]
    if missing:
        if "issue_deck" in d:
            err("issue_deck", f"issues placed nowhere: {[g.names.issue_at(i) for i in missing]}")
        piles["issue_deck"] = missing + piles["issue_deck"]
    _write_issues(g.state, slots, settled, piles)


def _put(placed: _Places, i: int, field: str) -> int:
    placed.put(i, field)
    return i


def _read_slots(d: dict, np_: int, names, placed: _Places) -> dict:
    """slot -> (issue, {seat: cubes}) or None, for the zones the position gives."""
    slots = {}
    for zone, base, n in ZONES:
        if zone not in d:
            continue
        z = d[zone]
        if not isinstance(z, list) or len(z) > n:
            err(zone, f"expected a list of at most {n} entries (issue objects or null)")
        for k in range(n):
            e = z[k] if k < len(z) else None
            if e is None:
                slots[base + k] = None
                continue
            if isinstance(e, (str, int)):
                e = {"issue": e}
            check_keys(e, {"issue", "cubes"}, f"{zone}[{k}]")
            i = _put(placed, names.issue(e.get("issue"), f"{zone}[{k}].issue"), f"{zone}[{k}]")
            cubes = e.get("cubes", {})
            check_keys(cubes, NATIONS[:np_], f"{zone}[{k}].cubes")
            cubes = {NATIONS.index(nat): as_int(c, f"{zone}[{k}].cubes.{nat}", 0, 15) for nat, c in cubes.items()}
            top = sorted(cubes.values(), reverse=True)
            if len(top) > 1 and top[0] == top[1] and top[0] > 0:
                err(f"{zone}[{k}].cubes",
                    "two players tie for the most cubes, which play cannot produce (rulings A-27)")
            slots[base + k] = (i, cubes)
    return slots


def _read_settled(d: dict, g, names, placed: _Places) -> list[tuple[int, int, int, int]]:
    """(issue, controller, option, naval_uk) per settled issue; counters, when given, are checked."""
    T, np_ = g.T, g.num_factions
    option_pending = _option_pending_issues(d)
    out = []
    for k, e in enumerate(as_list(d.get("settled", []), "settled")):
        f = f"settled[{k}]"
        if isinstance(e, (str, int)):
            err(f, "expected an object with issue and controller")
        check_keys(e, {"issue", "controller", "option", "naval_uk", "counters"}, f)
        i = _put(placed, names.issue(e.get("issue"), f"{f}.issue"), f)
        c = seat(e.get("controller"), np_, f"{f}.controller")
        o = names.option(i, e["option"], f"{f}.option") if e.get("option") is not None else -1
        if o < 0 and i != int(T[T_GAME_END]) and i not in option_pending:
            err(f"{f}.option", "a settled issue needs its chosen option")
        choice = int(T[T_OPT_NAVAL + i * 4 + o]) if o >= 0 else 0
        # with the option still to be chosen the engine keeps the earlier split until it applies one
        nuk = as_int(e["naval_uk"], f"{f}.naval_uk", 0, choice if o >= 0 else 4) if "naval_uk" in e else None
        if "counters" in e:
            nuk = _read_counters(e["counters"], f"{f}.counters", T, i, o, choice, nuk)
        out.append((i, c, o, nuk or 0))
    return out


def settled_counters(T, i: int, o: int, naval_uk: int) -> dict[str, int]:
    """Counters on settled issue i with option o (vocab.COUNTERS names, zero counts left out): the
    option's counters, its UK-or-USA naval counters split naval_uk / the rest (core/board.issue_counter)."""
    if o < 0:
        return {}
    out = {}
    for k, name in enumerate(COUNTERS):
        n = int(T[T_OPT_CTR + (i * 4 + o) * len(COUNTERS) + k])
        if k == NAVAL_UK:
            n += naval_uk
        elif k == NAVAL_USA:
            n += int(T[T_OPT_NAVAL + i * 4 + o]) - naval_uk
        if n:
            out[name] = n
    return out


def _read_counters(v, field, T, i, o, choice, nuk):
    """The counters follow from the option (and the UK-or-USA naval split): check them, and read
    the split from them when naval_uk is not given."""
    check_keys(v, COUNTERS, field)
    given = {name: as_int(n, f"{field}.{name}", 0, 99) for name, n in v.items()}
    given = {name: n for name, n in given.items() if n}
    splits = [nuk] if nuk is not None else range(choice + 1)
    for x in splits:
        if settled_counters(T, i, o, x) == given:
            return x
    want = settled_counters(T, i, o, splits[0])
    err(field, f"{given} do not match the chosen option's counters {want}" +
        (f" (its {choice} UK-or-USA naval counter(s) may be split between naval_uk and naval_usa)" if choice else ""))


def _write_issues(s, slots: dict, settled: list, piles: dict) -> None:
    s[L.SLOT_ISSUE:L.SLOT_ISSUE + L.N_SLOTS] = -1
    s[L.SLOT_CUBES:L.SLOT_CUBES + L.N_SLOTS * L.MAX_PLAYERS] = 0
    for sl, v in slots.items():
        if v is not None:
            s[L.SLOT_ISSUE + sl] = v[0]
            for p, c in v[1].items():
                s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p] = c
    for zone, off, noff in PILES:
        s[off:off + L.N_ISSUES] = 0
        s[off:off + len(piles[zone])] = piles[zone]
        s[noff] = len(piles[zone])
    s[L.ISSUE_CTRL:L.ISSUE_CTRL + L.N_ISSUES] = -1
    s[L.ISSUE_OPT:L.ISSUE_OPT + L.N_ISSUES] = -1
    s[L.ISSUE_NAVAL_UK:L.ISSUE_NAVAL_UK + L.N_ISSUES] = 0
    for i, c, o, nuk in settled:
        s[L.ISSUE_CTRL + i] = c
        s[L.ISSUE_OPT + i] = o
        s[L.ISSUE_NAVAL_UK + i] = nuk


def _engine_frames(d: dict):
    eng = d.get("engine")
    st = eng.get("stack", []) if isinstance(eng, dict) else []
    return [st[k:k + L.FRAME_W] for k in range(0, len(st) - L.FRAME_W + 1, L.FRAME_W)]


def _limbo_issues(d: dict) -> list[int]:
    """Issues between places in a mid-procedure position: the two drawn cards awaiting 'keep',
    an issue being bid for."""
    eng = d.get("engine")
    if not isinstance(eng, dict):
        return []
    out = []
    if (d.get("pending") or {}).get("decision") == "keep" and not d.get("game_over"):
        out += list(eng.get("drawn", []))
    out += [fr[L.F_A0] for fr in _engine_frames(d) if fr[L.F_PROC] == L.P_BID]
    return [int(i) for i in out]


def _option_pending_issues(d: dict) -> set[int]:
    """Issues won in a bid whose option is still to be chosen (a mutiny caused by the bid's
    happiness loss is resolved first, rulings A-10): controlled, with no option yet. They are named
    by the bidding, option and uprising frames and by an event's unsettle stage."""
    eng = d.get("engine")
    if not isinstance(eng, dict):
        return set()
    out = set()
    for fr in _engine_frames(d):
        if fr[L.F_PROC] in (L.P_BID, L.P_OPTION):
            out.add(int(fr[L.F_A0]))
        elif fr[L.F_PROC] == L.P_UPRISING:
            out.add(int(fr[L.F_A0 + 7]))
    if eng.get("ev_stage") == 2 and isinstance(eng.get("ev_reg"), int) and 0 <= eng["ev_reg"] < L.N_ISSUES:
        out.add(eng["ev_reg"])      # an event's unsettle, back from the bidding (core/events.py)
    return out


# ----------------------------------------------------------------------------- events
EV_PILES = (("deck", L.EV_DECK, L.EV_DECK_N), ("discards", L.EV_DISC, L.EV_DISC_N))


def read_events(d: dict, g, names, default: dict) -> None:
    """events: table (with its cube), waiting_room, deck, discards; same rules as the issues."""
    ev = d.get("events", {})
    check_keys(ev, {"table", "waiting_room", "deck", "discards"}, "events")
    placed = _Places(g.names.event_at)
    ev_table, ev_cube = None, -1
    src = ev if "table" in ev else default["events"]
    if src.get("table") is not None:
        t = src["table"]
        if isinstance(t, (str, int)):
            t = {"event": t}
        check_keys(t, {"event", "cube"}, "events.table")
        ev_table = _put(placed, names.event(t.get("event"), "events.table.event"), "events.table")
        ev_cube = seat(t.get("cube"), g.num_factions, "events.table.cube", allow_none=True)
    ev_wait = [-1, -1]
    if "waiting_room" in ev:
        w = ev["waiting_room"]
        if not isinstance(w, list) or len(w) > 2:
            err("events.waiting_room", "expected a list of at most 2 events")
        for k, v in enumerate(w):
            if v is not None:
                ev_wait[k] = _put(placed, names.event(v, f"events.waiting_room[{k}]"), f"events.waiting_room[{k}]")
    piles = {zone: [_put(placed, names.event(v, f"events.{zone}[{k}]"), f"events.{zone}[{k}]")
                    for k, v in enumerate(as_list(ev[zone], f"events.{zone}"))]
             for zone, _, _ in EV_PILES if zone in ev}
    if "waiting_room" not in ev:
        for k, v in enumerate(default["events"]["waiting_room"]):
            e = names.event(v, "events.waiting_room")
            if e not in placed:
                ev_wait[k] = _put(placed, e, "events.waiting_room (default)")
    for zone in ("discards", "deck"):
        if zone not in ev:
            piles[zone] = [_put(placed, e, f"events.{zone} (default)") for e in
                           (names.event(v, zone) for v in default["events"][zone]) if e not in placed]
    missing = [e for e in range(L.N_EVENTS) if e not in placed]
    if missing:
        if "deck" in ev:
            err("events.deck", f"events placed nowhere: {[g.names.event_at(e) for e in missing]}")
        piles["deck"] = missing + piles["deck"]
    s = g.state
    s[L.EV_TABLE] = -1 if ev_table is None else ev_table
    s[L.EV_CUBE] = ev_cube
    s[L.EV_WAIT] = ev_wait[0]
    s[L.EV_WAIT + 1] = ev_wait[1]
    for zone, off, noff in EV_PILES:
        s[off:off + L.N_EVENTS] = 0
        s[off:off + len(piles[zone])] = piles[zone]
        s[noff] = len(piles[zone])


# ----------------------------------------------------------------------------- strategies, players
def read_strategies(d: dict, s, n_dealt: int, names) -> None:
    """strategies: the n_dealt cards dealt face up (the players plus the board's strategy_cards_extra,
    one in the rules, EN:202; none in solitaire)."""
    stg = d.get("strategies", {})
    check_keys(stg, {"dealt", "draft_done"}, "strategies")
    if "dealt" in stg:
        dealt = [names.strategy(v, f"strategies.dealt[{k}]")
                 for k, v in enumerate(as_list(stg["dealt"], "strategies.dealt"))]
        if len(dealt) != n_dealt or len(set(dealt)) != len(dealt):
            err("strategies.dealt", f"expected {n_dealt} different strategy cards")
        s[L.STRAT_DEALT:L.STRAT_DEALT + L.MAX_PLAYERS + 1] = -1
        s[L.STRAT_DEALT:L.STRAT_DEALT + len(dealt)] = dealt
    s[L.DRAFT_DONE] = int(as_bool(stg.get("draft_done", False), "strategies.draft_done"))


def read_players(d: dict, s, T, np_: int, names, two_player: bool = False) -> None:
    """players.<nation> (np_: the factions): influence, military (deployed units by region) and
    strategy card. Cubes and units left out make up the totals (15 cubes, 3 units; the 2-player
    game's USA has influence only, EN:779); given counts must add up."""
    pl = d.get("players", {})
    check_keys(pl, NATIONS[:np_], "players")
    for p in range(np_):
        nat = NATIONS[p]
        e = pl.get(nat, {})
        check_keys(e, {"influence", "military", "strategy"}, f"players.{nat}")
        _read_influence(e.get("influence", {}), f"players.{nat}.influence", s, T, p)
        units = 0 if (two_player and p == L.USA_FACTION) else int(T[T_MILITARY])
        _read_military(e.get("military", {}), f"players.{nat}.military", s, T, p, units)
        s[L.PLAYER_STRAT + p] = -1 if e.get("strategy") is None else names.strategy(e["strategy"],
                                                                                   f"players.{nat}.strategy")


def _read_influence(inf, field, s, T, p) -> None:
    check_keys(inf, {"available", "exhausted"}, field)
    on_issues = sum(int(s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p]) for sl in range(L.N_SLOTS))
    cube = 1 if s[L.EV_CUBE] == p else 0
    total = int(T[T_INFLUENCE])
    exh = as_int(inf.get("exhausted", 0), f"{field}.exhausted", 0, 15)
    avail = as_int(inf.get("available", total - exh - on_issues - cube), f"{field}.available", -99, 99)
    if avail + exh + on_issues + cube != total or avail < 0:
        err(field, f"{avail + exh + on_issues + cube} cubes in all (available {avail} + exhausted {exh} + on issues "
                   f"{on_issues} + on the event {cube}), expected {total}")
    s[L.INF_AVAIL + p] = avail
    s[L.INF_EXH + p] = exh


def _read_military(mil, field, s, T, p, mtot) -> None:
    check_keys(mil, {"available", "exhausted", "demobilized", "deployed"}, field)
    dep = mil.get("deployed", {})
    check_keys(dep, REGIONS, f"{field}.deployed")
    s[L.DEP_COL + p * L.N_REGIONS:L.DEP_COL + (p + 1) * L.N_REGIONS] = 0
    for r, c in dep.items():
        s[L.DEP_COL + p * L.N_REGIONS + REGIONS.index(r)] = as_int(
            c, f"{field}.deployed.{r}", int(T[T_FIRST_DEP_COL]), int(T[T_TRACK_COLS]))
    mx = as_int(mil.get("exhausted", 0), f"{field}.exhausted", 0, mtot)
    md = as_int(mil.get("demobilized", 0), f"{field}.demobilized", 0, mtot)
    ma = as_int(mil.get("available", mtot - mx - md - len(dep)), f"{field}.available", -9, 9)
    if ma + mx + md + len(dep) != mtot or ma < 0:
        err(field, f"{ma + mx + md + len(dep)} units in all, expected {mtot}")
    s[L.MIL_AVAIL + p] = ma
    s[L.MIL_EXH + p] = mx
    s[L.MIL_DEMOB + p] = md


def check_tracks(s, T, np_: int) -> None:
    """Units never share a space; unrest sits right of the powder keg and left of any unit (EN:484)."""
    for r in range(L.N_REGIONS):
        cols = [int(s[L.DEP_COL + p * L.N_REGIONS + r]) for p in range(np_) if s[L.DEP_COL + p * L.N_REGIONS + r]]
        if len(cols) != len(set(cols)):
            err(f"players.*.military.deployed.{REGIONS[r]}", "two units share a space")
        cap = min(cols) - 1 if cols else int(T[T_TRACK_COLS])
        if not s[L.KEG + r] < s[L.UNREST + r] <= cap:
            err(f"regions.{REGIONS[r]}", f"unrest {int(s[L.UNREST + r])} must be right of the powder keg "
                                         f"({int(s[L.KEG + r])}) and left of any military (column {cap + 1})")


def read_demobilize(d: dict, s, T, np_: int) -> None:
    total_demob = sum(int(s[L.MIL_DEMOB + p]) for p in range(np_))
    n = int(T[T_DEMOB_N + np_])
    s[L.DEMOB_NEXT] = as_int(d.get("demobilize_next", min(total_demob, n)), "demobilize_next", 0, n)


# ----------------------------------------------------------------------------- decision and engine
def read_decision(d: dict, s, np_: int, engine_fields) -> None:
    """pending and engine: a mid-procedure position (sealed, see position.py) or a turn decision."""
    pend = d.get("pending")
    eng = d.get("engine")
    if eng is not None:
        offs = L.offsets()
        for name in engine_fields:
            if name in eng:
                o, n = offs[name]
                v = eng[name] if isinstance(eng[name], list) else [eng[name]]
                if len(v) > n:
                    err(f"engine.{name}", f"at most {n} values")
                s[o:o + len(v)] = v
        read_residue(eng.get("residue", {}), s)
        if pend is None:
            err("pending", "a position with engine state needs its pending decision")
    else:
        # a position at the start of the active player's turn (or mid-turn per turn_state)
        from v1919_env.core.board import push
        s[L.SP] = 0
        push(s, L.P_TURN, -1, 0)
        s[L.SETTLING] = -1
        s[L.BID_HIGH] = -1
    if pend is None:
        s[L.PENDING] = L.D_TURN
        s[L.PENDING_PLAYER] = s[L.ACTIVE]
        return
    check_keys(pend, {"decision", "player"}, "pending")
    kinds = {v: k for k, v in L.DECISION_NAMES.items()}
    if pend.get("decision") not in kinds:
        err("pending.decision", f"unknown decision {pend.get('decision')!r}")
    s[L.PENDING] = kinds[pend["decision"]]
    s[L.PENDING_PLAYER] = seat(pend.get("player"), np_, "pending.player", allow_none=True)
    if eng is None and s[L.PENDING] != L.D_TURN:
        err("pending.decision", "without engine state a position can only be at a 'turn' decision")


# ----------------------------------------------------------------------------- engine section
INT32 = (-2 ** 31, 2 ** 31 - 1)
PROCEDURES = {L.P_TURN: "turn", L.P_SETTLE: "settle", L.P_UPRISING: "uprising", L.P_BID: "bid",
              L.P_DRAFT: "draft", L.P_EVENT: "event", L.P_MUTINY: "mutiny", L.P_OPTION: "option",
              L.P_SWITCH: "switch"}


def check_engine(eng: dict, fields) -> None:
    """The values of an `engine` section (read before any other section uses them): integers, no
    more than each register holds, and a frame stack the driver can run: engine.sp frames
    (1..MAX_FRAMES) in engine.stack, the turn at the bottom, known procedures, and the issue or
    event a bid, option or event frame works on within the card set (the kernels index by them)."""
    offs = L.offsets()
    for name in fields:
        if name not in eng:
            continue
        n = offs[name][1]
        if n == 1:
            as_int(eng[name], f"engine.{name}", *INT32)
            continue
        v = as_list(eng[name], f"engine.{name}")
        if len(v) > n:
            err(f"engine.{name}", f"at most {n} values, got {len(v)}")
        for k, x in enumerate(v):
            as_int(x, f"engine.{name}[{k}]", *INT32)
    for name in ("sp", "stack"):
        if name not in eng:
            err(f"engine.{name}", "missing (the frame stack of a mid-procedure position)")
    sp = as_int(eng["sp"], "engine.sp", 1, L.MAX_FRAMES)
    st = eng["stack"]
    if len(st) != sp * L.FRAME_W:
        err("engine.stack", f"engine.sp says {sp} frame(s) of {L.FRAME_W} values, got {len(st)} values")
    for k in range(sp):
        _check_frame(st[k * L.FRAME_W:(k + 1) * L.FRAME_W], k)


def _check_frame(fr: list, k: int) -> None:
    at = k * L.FRAME_W
    proc = fr[L.F_PROC]
    if proc not in PROCEDURES:
        err(f"engine.stack[{at}]", f"frame {k}: unknown procedure {proc} (known: {PROCEDURES})")
    if (k == 0) != (proc == L.P_TURN):
        err(f"engine.stack[{at}]", f"frame {k}: the turn procedure ({L.P_TURN}) is the bottom frame and only it, "
                                   f"got {PROCEDURES[proc]} ({proc})")
    a0 = at + L.F_A0
    if proc in (L.P_BID, L.P_OPTION):
        as_int(fr[L.F_A0], f"engine.stack[{a0}]", 0, L.N_ISSUES - 1)
    elif proc == L.P_EVENT:
        as_int(fr[L.F_A0], f"engine.stack[{a0}]", 0, L.N_EVENTS - 1)
        as_int(fr[L.F_A0 + 1], f"engine.stack[{a0 + 1}]", 0, 1)         # crisis or conference
        as_int(fr[L.F_A0 + 2], f"engine.stack[{a0 + 2}]", 0, EV_LEN - 1)  # the effect row being run


# state slots that no readable section describes and the core leaves as they were: what lies past
# the live part of the decks, the discard piles and the frame stack (name, offset, count field,
# slots, slot width). They are written raw (trailing zeros left out) so that from_dict(to_dict(g))
# has exactly g's state array.
PAST_LIVE = (("issue_deck", L.ISSUE_DECK, L.ISSUE_DECK_N, L.N_ISSUES, 1),
             ("issue_discards", L.ISSUE_DISC, L.ISSUE_DISC_N, L.N_ISSUES, 1),
             ("events.deck", L.EV_DECK, L.EV_DECK_N, L.N_EVENTS, 1),
             ("events.discards", L.EV_DISC, L.EV_DISC_N, L.N_EVENTS, 1),
             ("stack", L.STACK, L.SP, L.MAX_FRAMES, L.FRAME_W))
RESIDUE_KEYS = tuple(p[0] for p in PAST_LIVE) + ("naval_uk",)


def _residue_spans(s):
    """name -> (first slot past the live part, end of the field)."""
    return {name: (off + int(s[noff]) * w, off + n * w) for name, off, noff, n, w in PAST_LIVE}


def _trimmed(vals) -> list[int]:
    vals = [int(x) for x in vals]
    while vals and vals[-1] == 0:
        vals.pop()
    return vals


def residue_to_dict(s) -> dict:
    """engine.residue: the slots PAST_LIVE names, and the UK-or-USA naval split an unsettled issue
    keeps from when it was settled (settled issues give theirs in `settled`)."""
    out = {name: _trimmed(s[a:b]) for name, (a, b) in _residue_spans(s).items()}
    out["naval_uk"] = _trimmed(0 if s[L.ISSUE_CTRL + i] >= 0 else s[L.ISSUE_NAVAL_UK + i] for i in range(L.N_ISSUES))
    return {k: v for k, v in out.items() if v}


def read_residue(res, s) -> None:
    """engine.residue (see residue_to_dict), once the decks, piles, settled issues and stack are in place."""
    check_keys(res, RESIDUE_KEYS, "engine.residue")
    spans = _residue_spans(s)
    for name, (a, b) in spans.items():
        s[a:b] = 0
    for name, v in res.items():
        field = f"engine.residue.{name}"
        a, b = spans.get(name, (L.ISSUE_NAVAL_UK, L.ISSUE_NAVAL_UK + L.N_ISSUES))
        if len(as_list(v, field)) > b - a:
            err(field, f"at most {b - a} values, got {len(v)}")
        vals = [as_int(x, f"{field}[{k}]", *INT32) for k, x in enumerate(v)]
        if name == "naval_uk":
            _read_naval_residue(vals, s, field)
        else:
            s[a:a + len(vals)] = vals


def _read_naval_residue(vals: list[int], s, field: str) -> None:
    for i, x in enumerate(vals):
        if s[L.ISSUE_CTRL + i] < 0:
            s[L.ISSUE_NAVAL_UK + i] = as_int(x, f"{field}[{i}]", 0, 4)
        elif x:
            err(f"{field}[{i}]", "a settled issue gives its split in settled[].naval_uk")


def two_player_to_dict(g) -> dict:
    """The 2-player game's own state (EN:771-830): whose turn it is (that player runs the USA
    faction, which is `active` during its political action) and whom the pending decision is for
    (once the game is over: the last one's, which the state keeps)."""
    s = g.state
    return {"turn_owner": NATIONS[int(s[L.TURN_OWNER])], "pending_for": NATIONS[int(s[L.PENDING_FACTION])]}


def read_two_player(d: dict, s, two_player: bool) -> None:
    """The `two_player` section (absent: the turn is the active player's, decisions for themselves)."""
    if not two_player:
        if "two_player" in d:
            err("two_player", "only a 2-player position has this section")
        s[L.PENDING_FACTION] = s[L.PENDING_PLAYER]
        return
    tp = d.get("two_player", {})
    check_keys(tp, {"turn_owner", "pending_for"}, "two_player")
    act = int(s[L.ACTIVE])
    owner = seat(tp["turn_owner"], 2, "two_player.turn_owner") if "turn_owner" in tp else (
        act if act < 2 else err("two_player.turn_owner", "needed when the USA faction is active"))
    s[L.TURN_OWNER] = owner
    if act == L.USA_FACTION and d.get("engine") is None:
        s[L.MIL_DONE] = 1           # the USA's part of the turn is its political action alone (EN:787)
    if act < 2 and act != owner:
        err("two_player.turn_owner", f"{NATIONS[owner]} owns the turn but {NATIONS[act]} is active")
    pf = tp.get("pending_for")
    if pf is not None:
        s[L.PENDING_FACTION] = seat(pf, 3, "two_player.pending_for")
    else:       # a hand-written turn decision is the active faction's; else the deciding seat's own
        s[L.PENDING_FACTION] = act if d.get("pending") is None else s[L.PENDING_PLAYER]
    if d.get("pending") is None:
        s[L.PENDING_PLAYER] = owner if s[L.PENDING_FACTION] == L.USA_FACTION else s[L.PENDING_FACTION]
    want = owner if s[L.PENDING_FACTION] == L.USA_FACTION else s[L.PENDING_FACTION]
    if not s[L.GAME_OVER] and s[L.PENDING_PLAYER] != want:
        err("two_player.pending_for", f"a decision for {NATIONS[int(s[L.PENDING_FACTION])]} is taken by "
                                      f"{NATIONS[want]}, not {NATIONS[int(s[L.PENDING_PLAYER])]}")


def solitaire_to_dict(g) -> dict:
    """The solitaire game's own state (EN:832-966): the faction the player controls, its VP, the
    level, the factions' strengths (derived: checked when read) and whom the pending decision is for
    (the player's faction, or a bot whose choice the rules leave to the player; once the game is
    over, the last decision's)."""
    s = g.state
    return {"faction": NATIONS[int(s[L.SOLO_FACTION])], "vp": int(s[L.SOLO_VP]), "target_vp": int(s[L.SOLO_TARGET]),
            "strengths": dict(zip(NATIONS, g.faction_strengths())), "pending_for": NATIONS[int(s[L.PENDING_FACTION])]}


def read_solitaire(d: dict, g) -> None:
    """The `solitaire` section (absent: the setup's faction, 0 VP, level 20) and what the solitaire
    setup fixes: no strategy cards, no Italian or Japanese happiness, two waiting-room issues, no
    cube on an event (EN:860-875, EN:919)."""
    s = g.state
    if not g.solitaire:
        if "solitaire" in d:
            err("solitaire", "only a solitaire position (num_players 1) has this section")
        return
    sp = d.get("solitaire", {})
    check_keys(sp, {"faction", "vp", "target_vp", "strengths", "pending_for"}, "solitaire")
    if "faction" in sp:
        s[L.SOLO_FACTION] = seat(sp["faction"], L.SOLO_FACTIONS, "solitaire.faction")
    s[L.SOLO_VP] = as_int(sp.get("vp", 0), "solitaire.vp", 0, 10 ** 4)
    s[L.SOLO_TARGET] = as_int(sp.get("target_vp", L.SOLO_DEFAULT_TARGET), "solitaire.target_vp", 1, 999)
    for k, n in enumerate(NATIONS[L.SOLO_FACTIONS:], L.SOLO_FACTIONS):
        if s[L.HAPPY + k]:
            err(f"happiness.{n}", f"{n}'s happiness is out of play in the solitaire game (0), "
                                  f"got {int(s[L.HAPPY + k])}")
    for p in range(L.SOLO_FACTIONS):
        if s[L.PLAYER_STRAT + p] >= 0:
            err(f"players.{NATIONS[p]}.strategy", "the solitaire game has no strategy cards (EN:866)")
    if s[L.SLOT_ISSUE + L.N_SLOTS - 1] >= 0:
        err("waiting_room[2]", "the solitaire game uses two waiting-room issue spaces (EN:864)")
    if s[L.EV_CUBE] >= 0:
        err("events.table.cube", "no influence is placed on events in the solitaire game (EN:919)")
    if "strengths" in sp:
        check_keys(sp["strengths"], NATIONS[:L.SOLO_FACTIONS], "solitaire.strengths")
        for n, v in sp["strengths"].items():
            want = g.faction_strengths()[NATIONS.index(n)]
            if as_int(v, f"solitaire.strengths.{n}", 0, 999) != want:
                err(f"solitaire.strengths.{n}", f"{v} given, but the issues and counters of the position give {want} "
                                                "(Faction Strength is derived, EN:856)")
    pf = sp.get("pending_for")
    if pf is not None:
        s[L.PENDING_FACTION] = seat(pf, L.SOLO_FACTIONS, "solitaire.pending_for")
    elif d.get("pending") is None or d.get("engine") is None:
        s[L.PENDING_FACTION] = s[L.ACTIVE] if s[L.PENDING] == L.D_TURN else s[L.SOLO_FACTION]
    elif not s[L.GAME_OVER]:
        err("solitaire.pending_for", "a mid-procedure solitaire position needs it")
    s[L.PENDING_PLAYER] = 0


def start_solitaire(g) -> None:
    """Let the bots play up to the player's first decision of a position that starts at a bot's
    decision the bot rules settle (a position to_dict wrote is already at the player's)."""
    from v1919_env.core.step import run
    if not g.is_over and g.state[L.PENDING] != 0:
        run(g.state, g.T, 0, -1)


def check_unit_limits(s, T, np_: int) -> None:
    """Units in play never exceed what the happiness zone allows (EN:533), except while a mutiny
    is under way or an event is being applied: it checks for mutiny once applied in full (project
    ruling P-11), so a happiness loss early in the event (a branch one player chose, before the
    next chooses at the same effect) may leave a player over the limit until then. Only a sealed
    position (its `engine` section) has such frames: a hand-written one starts at a turn."""
    from v1919_env.core.board import over_unit_limit
    frames = [L.STACK + k * L.FRAME_W for k in range(int(s[L.SP]))]
    if s[L.GAME_OVER] or s[L.PENDING] == L.D_MUTINY or any(
            s[f + L.F_PROC] in (L.P_MUTINY, L.P_EVENT) for f in frames):
        return
    for p in range(np_):
        if over_unit_limit(s, T, p):
            err(f"players.{NATIONS[p]}.military", f"more units in play than happiness {int(s[L.HAPPY + p])} "
                                                  "allows (a mutiny would be due)")
