"""Validate a card set: every field's type, every number against what the compiled core can hold
(`kernel_limits`: table sizes, action segments, observation slices), and the fields that must agree
with each other. Anything else is rejected by `CardDataError` naming the section, the card (number
and name) and the field path. See data/SCHEMA.md.
"""
from __future__ import annotations

from functools import lru_cache

from v1919_env.core import layout as L
from v1919_env.core.actions import SEGMENTS
from v1919_env.core import tables as TB
from v1919_env.core.tables import MAX_OPTIONS
from v1919_env.core.vocab import (CATEGORIES, COUNTER_BASE, COUNTERS, FLAGGED_COUNTERS, NATIONS, REGIONS, VARIANT_ALIASES,
                                  VARIANTS)

SECTIONS = ("card_set", "board", "issues", "events", "strategies")
EXPECTED_COUNTS = {"issues": L.N_ISSUES, "events": L.N_EVENTS, "strategies": L.N_STRATEGIES}
PROVENANCE_KINDS = ("rules", "example", "public", "estimated")
PROVENANCE_TEXTS = ("source", "quote", "url", "reasoning", "note")
_SEGMENT_PARAMS = {name: dict(params) for name, params in SEGMENTS}
MAX_BRANCHES = _SEGMENT_PARAMS["branch"]["branch"]         # the branch action segment (4)
VP = (-99, 99)                  # any victory-point figure; sums stay far inside int32


class CardDataError(ValueError):
    """A card-set file is malformed or inconsistent; the message names the card and field."""


@lru_cache(maxsize=None)
def kernel_limits() -> dict:
    """What the compiled core can hold, derived from its table, state, action and observation layouts."""
    from v1919_env.core.observe import obs_slices     # imported when first asked: it loads the rule kernels

    tl, sl, obs = dict(TB.T_LAYOUT), dict(L.LAYOUT), obs_slices()
    cols = min(tl["uprising_threshold"] - 1, obs["unrest"][1] // L.N_REGIONS)    # columns 1..8
    deploy = _SEGMENT_PARAMS["deploy"]["column"]                                   # the last 4 columns
    return {
        "track_columns": cols,
        "deploy_columns": deploy,
        "first_deploy_column": cols - deploy + 1,
        "powder_keg_max": obs["powder_keg"][1] // L.N_REGIONS - 1,                 # keg 0..3 one-hot
        "die_faces": tl["region_of_die"] - 1,
        "happiness_max": tl["units_allowed"] - 1,
        "demobilize_spaces": TB.MAX_DEMOB,
        "variant_names": VARIANTS[:tl["variant_below_game_end"]],
        "reclaim_max": _SEGMENT_PARAMS["reclaim"]["n"] - 1,
        "transfer_max": _SEGMENT_PARAMS["transfer"]["n"],
        "strategy_cards_extra": sl["strat_dealt"] - L.MAX_PLAYERS,
        "military": _SEGMENT_PARAMS["bid"]["available"] - 1,
        "influence": min(_SEGMENT_PARAMS["place"]["n"], _SEGMENT_PARAMS["bid"]["influence"] - 1),
        "discard_picks": TB.N_DISC_PICKS,
        "effect_rows": TB.EV_LEN,
        "conditions": TB.MAX_COND,
    }


# --------------------------------------------------------------------------- typed field checks
def _fail(where: str, msg: str):
    raise CardDataError(f"{where}: {msg}")


def _show(v) -> str:
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 64:
        return f"a {v.bit_length()}-bit integer"
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def _kind(v) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "an object", type(None): "null"}.get(type(v), type(v).__name__)


def _int(where: str, v, lo: int, hi: int, why: str = "") -> int:
    """A JSON integer (not a boolean, not a float) in lo..hi."""
    if isinstance(v, bool) or not isinstance(v, int):
        _fail(where, f"expected an integer, got {_kind(v)} {_show(v)}")
    if not lo <= v <= hi:
        _fail(where, f"{_show(v)} is out of range {lo}..{hi}" + (f" ({why})" if why else ""))
    return v


def _bool(where: str, v) -> bool:
    if not isinstance(v, bool):
        _fail(where, f"expected true or false, got {_kind(v)} {_show(v)}")
    return v


def _text(where: str, v) -> str:
    if not isinstance(v, str) or not v.strip():
        _fail(where, f"expected a non-empty string, got {_kind(v)} {_show(v)}")
    return v


def _enum(where: str, v, choices, what: str = "value"):
    if not isinstance(v, str) or v not in choices:
        _fail(where, f"unknown {what} {_show(v)} (expected one of {', '.join(map(str, choices))})")
    return v


def _list(where: str, v, lo: int, hi: int, what: str = "entries") -> list:
    if not isinstance(v, list):
        _fail(where, f"expected a list, got {_kind(v)} {_show(v)}")
    if not lo <= len(v) <= hi:
        _fail(where, f"needs {lo if lo == hi else f'{lo}..{hi}'} {what}, found {len(v)}")
    return v


def _obj(where: str, v, required, optional=()) -> dict:
    """A JSON object with every required key and no key outside required + optional."""
    if not isinstance(v, dict):
        _fail(where, f"expected an object, got {_kind(v)} {_show(v)}")
    for k in required:
        if k not in v:
            _fail(f"{where}.{k}", "missing")
    extra = sorted((k for k in v if k not in required and k not in optional), key=str)
    if extra:
        _fail(f"{where}.{extra[0]}", f"unknown field (expected {', '.join(list(required) + list(optional))})")
    return v


def _check_provenance(where: str, prov, fields) -> None:
    if not isinstance(prov, dict):
        _fail(where, "missing 'provenance' object")
    for f in fields:
        if f not in prov:
            _fail(f"{where}.provenance", f"no provenance for field '{f}'")
    _obj(f"{where}.provenance", prov, fields)
    for f in fields:
        _check_prov_entry(f"{where}.provenance.{f}", prov[f])


def _check_prov_entry(where: str, p) -> None:
    if not isinstance(p, dict) or p.get("kind") not in PROVENANCE_KINDS:
        _fail(where, f"provenance kind must be one of {PROVENANCE_KINDS}, got {_show(p)}")
    need = {"rules": ("source", "quote"), "example": ("source", "quote"), "public": ("url", "quote"),
            "estimated": ("reasoning",)}[p["kind"]]
    _obj(where, p, ("kind",) + need, PROVENANCE_TEXTS)
    for k in need:
        if not isinstance(p[k], str) or not p[k].strip():
            _fail(where, f"{p['kind']} provenance needs a non-empty '{k}'")
    for k in PROVENANCE_TEXTS:
        if k in p and not isinstance(p[k], str):
            _fail(f"{where}.{k}", f"expected a string, got {_kind(p[k])}")


# --------------------------------------------------------------------------- vocabulary of effects
WHO = ("decider", "chosen_player", "each_player", "settled_controller", "lowest_happiness", "most_issues", "all")
ORDERS = ("ending_with_decider", "starting_with_decider")
REGION_REFS = REGIONS + ("highest", "settled_issue", "random", "any", "chosen", "settled_issue_gained")
# which `who` and region references the event interpreter (core/events.py) runs for each op
_SEATS = ("decider", "chosen_player", "each_player")          # a choice or a unit action: one seat at a time
_MOVE_REGIONS = REGIONS + ("settled_issue", "random", "any", "chosen", "settled_issue_gained")
_CHECK_REGIONS = REGIONS + ("highest", "settled_issue")        # core/uprising.py check_regions


def _R(lo: int, hi: int) -> tuple:
    return ("int", lo, hi)


def _E(*choices) -> tuple:
    return ("enum", choices)


_BOOL, _COUNTER, _CATS, _NATION_LIST, _OPS, _BRANCHES = ("bool",), ("counter",), ("cats",), ("nations",), \
    ("ops",), ("branches",)
_MOVE, _CHECK = ("region", _MOVE_REGIONS, True), ("region", _CHECK_REGIONS, False)
# magnitudes: a whole track (8), the happiness scale (30), a die (6), a player's influence (30)
OPS: dict[str, tuple[set, dict]] = {
    # op: (required params, {param: type})
    "uprising_check": ({"region"}, {"region": _CHECK, "modifier": _R(-6, 6), "modifier_per_counter": _COUNTER,
                                    "otherwise_unrest": _R(-8, 8), "otherwise_when": _E("no_uprising", "no_unsettle")}),
    "unrest": ({"region", "delta"}, {"region": _MOVE, "delta": _R(-8, 8), "sign": _E("fixed", "choose"),
                                     "per_counter": _COUNTER}),
    "powder_keg": ({"region", "delta"}, {"region": _MOVE, "delta": ("sign",)}),
    "happiness": ({"who", "delta"}, {"who": _E(*WHO), "delta": _R(-30, 30), "per": _E("deployed_unit"),
                                     "order": _E(*ORDERS)}),
    "exhaust_influence": ({"who", "amount"}, {"who": _E(*WHO), "amount": _R(0, 30), "cost": _BOOL,
                                              "order": _E(*ORDERS)}),
    "recover_influence": ({"who", "amount"}, {"who": _E(*WHO), "amount": _R(0, 30), "per_counter": _COUNTER,
                                              "order": _E(*ORDERS)}),
    "choose_player": (set(), {}),
    "choose_regions": ({"count"}, {"count": _R(1, L.N_REGIONS)}),
    "choice": ({"who", "branches"}, {"who": _E(*_SEATS), "order": _E(*ORDERS), "branches": _BRANCHES}),
    "unsettle": ({"categories"}, {"categories": _CATS}),
    "clear_waiting_issue": (set(), {}),
    "military_to_exhausted": ({"who"}, {"who": _E(*_SEATS, "all"), "order": _E(*ORDERS)}),
    "military_to_available": ({"who"}, {"who": _E(*_SEATS), "order": _E(*ORDERS)}),
    "demobilize_action": ({"who"}, {"who": _E(*_SEATS), "order": _E(*ORDERS)}),
    "deploy_action": ({"who"}, {"who": _E("decider")}),
    "if_no_counters": ({"counter", "category", "then"}, {"counter": _COUNTER, "category": _CATS, "then": _OPS}),
}
CONDITIONS: dict[str, tuple[set, dict]] = {
    "counters": ({"counter", "vp"}, {"counter": _COUNTER, "flag": _E(*NATIONS, "any"), "vp": _R(*VP)}),
    "regions_unrest": ({"compare", "vp"}, {"compare": _E("le3", "ge4"), "vp": _R(*VP)}),
    "military": ({"vp"}, {"vp": _R(*VP)}),
    "happiness_x2": (set(), {}),
    "treaty": ({"nations", "signs", "vp"}, {"nations": _NATION_LIST, "signs": _BOOL, "vp": _R(*VP)}),
    "issues": ({"category", "controller", "vp"}, {"category": _CATS, "controller": _E("self", "any"),
                                                  "vp": _R(*VP)}),
    "issue_regions": ({"vp"}, {"vp": _R(*VP)}),
}


def _check_param(where: str, kind: tuple, v) -> None:
    tag = kind[0]
    if tag == "int":
        _int(where, v, kind[1], kind[2])
    elif tag == "enum":
        _enum(where, v, kind[1])
    elif tag == "bool":
        _bool(where, v)
    elif tag == "sign":
        if isinstance(v, bool) or v not in (-1, 1):
            _fail(where, f"expected +1 or -1, got {_show(v)}")
    elif tag == "counter":
        _enum(where, v, COUNTER_BASE, "counter")
    elif tag == "region":
        if isinstance(v, dict) and kind[2]:
            _obj(where, v, ("one_of",))
            regs = _list(f"{where}.one_of", v["one_of"], 2, L.N_REGIONS, "regions")
            for k, r in enumerate(regs):
                _enum(f"{where}.one_of[{k}]", r, REGIONS, "region")
            if len(set(regs)) != len(regs):
                _fail(f"{where}.one_of", "names a region twice")
        else:
            _enum(where, v, kind[1] + (("{'one_of': [regions]}",) if kind[2] else ()), "region")
    elif tag in ("cats", "nations"):
        names = CATEGORIES[:-1] if tag == "cats" else NATIONS
        vals = v if isinstance(v, list) else [v]
        _list(where, vals, 1, len(names), "names")
        for k, c in enumerate(vals):
            _enum(where if vals is not v else f"{where}[{k}]", c, names,
                  "issue category" if tag == "cats" else "nation")
    elif tag in ("ops", "branches"):
        pass        # walked by _check_ops with its context


def _check_spec(where: str, item, table: dict, key: str) -> str:
    if not isinstance(item, dict):
        _fail(where, f"expected an object with '{key}', got {_kind(item)} {_show(item)}")
    name = item.get(key)
    if not isinstance(name, str) or name not in table:
        _fail(where, f"unknown {key} {_show(name)} (expected one of {sorted(table)})")
    required, params = table[name]
    for p in sorted(required):
        if p not in item:
            _fail(where, f"{name} needs parameter '{p}'")
    for p, v in item.items():
        if p == key:
            continue
        if p not in params:
            _fail(f"{where}.{p}", f"unknown parameter for {name} (expected {sorted(params)})")
        _check_param(f"{where}.{p}", params[p], v)
    return name


def _check_ops(where: str, ops, ctx: dict) -> None:
    """An effect list, in program order. ctx: what earlier ops chose (a player, regions), whether
    this list is a choice branch, and the nesting depth."""
    rows = kernel_limits()["effect_rows"]
    if ctx["depth"] > rows:
        _fail(where, f"effects nested deeper than the {rows} bytecode rows an event part holds")
    _list(where, ops, 1, rows, "operations (effects must be a non-empty list)")
    for i, op in enumerate(ops):
        w = f"{where}[{i}]"
        name = _check_spec(w, op, OPS, "op")
        if op.get("who") == "chosen_player" and not ctx["player"]:
            _fail(f"{w}.who", "'chosen_player' needs an earlier choose_player op in this effect list")
        if op.get("region") == "chosen" and not ctx["regions"]:
            _fail(f"{w}.region", "'chosen' needs an earlier choose_regions op in this effect list")
        if name == "choose_player":
            ctx["player"] = True
        elif name == "choose_regions":
            ctx["regions"] = True
        elif name == "choice":
            if ctx["branch"]:
                _fail(w, "a choice inside a choice branch (the event interpreter holds one choice at a time)")
            branches = _list(f"{w}.branches", op["branches"], 2, MAX_BRANCHES, "branches")
            for k, b in enumerate(branches):
                _check_ops(f"{w}.branches[{k}]", b, dict(ctx, branch=True, depth=ctx["depth"] + 1))
        elif name == "if_no_counters":
            _check_ops(f"{w}.then", op["then"], dict(ctx, depth=ctx["depth"] + 1))


def _check_effects(where: str, effects) -> None:
    """A crisis or conference effect list, then its compiled length against the table's space."""
    _check_ops(where, effects, {"player": False, "regions": False, "branch": False, "depth": 0})
    try:
        TB.compile_effects(effects, where)
    except ValueError as e:
        _fail(where, f"does not fit the event table: {e}")


# --------------------------------------------------------------------------- cards
def _card_name(rec, i):
    if not isinstance(rec, dict):
        return f"#{i + 1}"
    return f"{_show(rec.get('name', '?'))} (#{_show(rec.get('number', i + 1))})"


def _check_numbered(section: str, records) -> None:
    if not isinstance(records, list):
        _fail(section, f"must be a list of records, got {_kind(records)}")
    want = EXPECTED_COUNTS[section]
    if len(records) != want:
        _fail(section, f"expected {want} cards, found {len(records)}")
    seen_n, seen_id, seen_key = {}, {}, {}
    for i, r in enumerate(records):
        where = f"{section}[{i}] {_card_name(r, i)}"
        if not isinstance(r, dict):
            _fail(where, f"record must be an object, got {_kind(r)}")
        _int(f"{where}.number", r.get("number"), 1, want)
        if r["number"] in seen_n:
            _fail(f"{where}.number", f"duplicate number {r['number']} (also {seen_n[r['number']]})")
        seen_n[r["number"]] = r.get("name")
        for k in ("name", "id"):
            if k not in r:
                _fail(f"{where}.{k}", f"missing {k}")
            _text(f"{where}.{k}", r[k])
        rid = r["id"]
        if rid in seen_id:
            _fail(f"{where}.id", f"duplicate id {rid!r}")
        seen_id[rid] = r["number"]
        _check_unique_name(where, r, seen_key)


def _check_unique_name(where: str, r: dict, seen: dict) -> None:
    """Positions, actions and Game's helpers name a card by its name or id in any case
    (cards/names.py): no two cards of a section may answer to one word."""
    for k in ("name", "id"):
        key = r[k].lower()
        other = seen.get(key)
        if other is not None and other[0] != r["number"]:
            _fail(f"{where}.{k}", f"{r[k]!r} is also the {other[1]} of card #{other[0]} (cards are named by "
                                  "name or id, in any case, so each must name one card)")
        seen.setdefault(key, (r["number"], k))


ISSUE_FIELDS = ("number", "id", "name", "region", "stars", "no_military", "provenance")
OPTION_FIELDS = ("name", "unrest", "happiness", "counters")


def _check_issue(where: str, r) -> None:
    _obj(where, r, ISSUE_FIELDS, ("game_end", "options"))
    _enum(f"{where}.region", r["region"], CATEGORIES, "region")
    _int(f"{where}.stars", r["stars"], 0, 12)
    _bool(f"{where}.no_military", r["no_military"])
    _check_provenance(where, r["provenance"], ("number", "name", "region", "stars", "no_military"))
    if _bool(f"{where}.game_end", r.get("game_end", False)):
        if r.get("options") not in (None, []):
            _fail(f"{where}.options", "the GAME END issue has no options")
        return
    opts = r.get("options")
    if not isinstance(opts, list) or not 2 <= len(opts) <= MAX_OPTIONS:
        _fail(f"{where}.options", f"an issue needs 2..{MAX_OPTIONS} options, found "
                                  f"{len(opts) if isinstance(opts, list) else _kind(opts)}")
    names = {}
    for j, o in enumerate(opts):
        ow = f"{where}.options[{j}]"
        _obj(ow, o, ("name", "provenance"), OPTION_FIELDS[1:])
        name = _text(f"{ow}.name", o["name"])
        if name.lower() in names:
            # positions and actions name an option by name, in any case: the second would never be found
            _fail(f"{ow}.name", f"{name!r} is also the name of options[{names[name.lower()]}] of this issue "
                                "(option names must differ, ignoring case)")
        names[name.lower()] = j
        ow = f"{ow} {_show(name)}"
        for reg, d in _obj(f"{ow}.unrest", o.get("unrest", {}), (), REGIONS).items():
            _int(f"{ow}.unrest.{reg}", d, -8, 8)
        for nat, d in _obj(f"{ow}.happiness", o.get("happiness", {}), (), NATIONS).items():
            _int(f"{ow}.happiness.{nat}", d, -30, 30)
        for k, c in enumerate(_list(f"{ow}.counters", o.get("counters", []), 0, len(COUNTERS), "counters")):
            cw = f"{ow}.counters[{k}]"
            _obj(cw, c, ("kind", "count"), ("flag",))
            _enum(f"{cw}.kind", c["kind"], COUNTER_BASE, "counter")
            _int(f"{cw}.count", c["count"], 1, 4)
            flag = c.get("flag")
            if c["kind"] in FLAGGED_COUNTERS:
                ok = isinstance(flag, str) and (flag in NATIONS or (c["kind"] == "naval" and flag == "uk_or_usa"))
                if not ok:
                    _fail(f"{cw}.flag", f"{c['kind']} counter needs a nation flag, got {_show(flag)}")
            elif "flag" in c:
                _fail(f"{cw}.flag", f"{c['kind']} counters carry no flag")
        _check_provenance(ow, o["provenance"], OPTION_FIELDS)


def _check_event(where: str, r) -> None:
    _obj(where, r, ("number", "id", "name", "influence_icon", "crisis", "conference", "provenance"))
    _bool(f"{where}.influence_icon", r["influence_icon"])
    for part, optional in (("crisis", ("type",)), ("conference", ())):
        req = ("text", "effects") + (("optional",) if part == "conference" else ())
        p = _obj(f"{where}.{part}", r[part], req, optional)
        if not isinstance(p["text"], str) or not p["text"]:
            _fail(f"{where}.{part}.text", "missing English text")
        if "type" in p:
            _text(f"{where}.{part}.type", p["type"])
        _check_effects(f"{where}.{part}.effects", p["effects"])
    _bool(f"{where}.conference.optional", r["conference"]["optional"])
    _check_provenance(where, r["provenance"], ("number", "name", "influence_icon", "crisis", "conference"))


def _check_strategy(where: str, r) -> None:
    _obj(where, r, ("number", "id", "name", "conditions", "provenance", "condition_provenance"))
    conds = r["conditions"]
    if not isinstance(conds, list) or not conds:
        _fail(f"{where}.conditions", "a strategy card needs at least one condition")
    _list(f"{where}.conditions", conds, 1, kernel_limits()["conditions"], "conditions")
    for i, c in enumerate(conds):
        cw = f"{where}.conditions[{i}]"
        _check_spec(cw, c, CONDITIONS, "kind")
        if "flag" in c and c["counter"] not in FLAGGED_COUNTERS:
            _fail(f"{cw}.flag", f"{c['counter']} counters carry no flag")
    cp = r["condition_provenance"]
    if not isinstance(cp, list) or len(cp) != len(conds):
        _fail(f"{where}.condition_provenance", "needs one provenance entry per condition")
    for i, p in enumerate(cp):
        _check_prov_entry(f"{where}.condition_provenance[{i}]", p)
    _check_provenance(where, r["provenance"], ("number", "name", "conditions"))


# --------------------------------------------------------------------------- the board
BOARD_TABLES = ("regions", "random_region_none_roll", "track_columns", "unrest_start_column", "powder_keg_start",
                "powder_keg_max_column", "uprising_thresholds", "deploy_columns", "demobilize_spaces",
                "demobilize_last_box", "happiness_min", "happiness_max", "happiness_start", "happiness_zones",
                "mutiny_box", "signing_threshold", "happiness_vp", "happiness_zero_vp", "flag_counter_vp",
                "game_end_vp", "deck_variants", "influence_per_player", "military_per_player", "table_issues",
                "waiting_issues", "waiting_issues_solo", "setup_discards", "table_events", "waiting_events",
                "strategy_cards_extra", "reclaim_max", "discard_pick_costs", "negotiation_transfer_max")


def _check_board(b) -> None:
    lim = kernel_limits()
    _obj("board", b, BOARD_TABLES)
    for t in BOARD_TABLES:
        if not isinstance(b[t], dict) or "value" not in b[t]:
            _fail(f"board.{t}", "missing table (needs 'value' and 'provenance')")
        _obj(f"board.{t}", b[t], ("value", "provenance"))
        _check_prov_entry(f"board.{t}.provenance", b[t]["provenance"])
    val = {t: b[t]["value"] for t in BOARD_TABLES}

    def num(t, lo, hi, why=""):
        return _int(f"board.{t}.value", val[t], lo, hi, why)

    def rows(t, lo, hi, required, what="entries"):
        out = _list(f"board.{t}.value", val[t], lo, hi, what)
        for k, x in enumerate(out):
            _obj(f"board.{t}.value[{k}]", x, required)
        return out

    # the track: 8 columns, powder kegs left of the 4 deploy columns, unrest right of the kegs
    regs = rows("regions", L.N_REGIONS, L.N_REGIONS, ("id", "name", "die"), "regions")
    if [r["id"] for r in regs] != list(REGIONS):
        _fail("board.regions", f"regions must be {list(REGIONS)} in row order, got {[r['id'] for r in regs]}")
    for k, r in enumerate(regs):
        _text(f"board.regions.value[{k}].name", r["name"])
        _int(f"board.regions.value[{k}].die", r["die"], 1, L.N_REGIONS)
    if sorted(r["die"] for r in regs) != list(range(1, L.N_REGIONS + 1)):
        _fail("board.regions", f"die numbers must be 1..{L.N_REGIONS}, one per region")
    num("random_region_none_roll", lim["die_faces"], lim["die_faces"],
        f"a d{lim['die_faces']}: faces 1..{L.N_REGIONS} name the regions, the last nothing")
    ncol = num("track_columns", lim["track_columns"], lim["track_columns"],
               f"the core's region tracks have {lim['track_columns']} columns")
    c0 = lim["first_deploy_column"]
    keg_max = num("powder_keg_max_column", 0, min(lim["powder_keg_max"], c0 - 2),
                  "powder kegs and the unrest right of them stay left of the deploy columns")
    keg0 = num("powder_keg_start", 0, keg_max, "at most powder_keg_max_column")
    num("unrest_start_column", keg0 + 1, ncol, "right of the starting powder keg")
    th = rows("uprising_thresholds", ncol, ncol, ("column", "threshold", "provenance"), "columns")
    for k, t in enumerate(th):
        tw = f"board.uprising_thresholds.value[{k}]"
        _int(f"{tw}.column", t["column"], k + 1, k + 1, "one entry per column, in order")
        if t["threshold"] is not None:
            _int(f"{tw}.threshold", t["threshold"], 1, 7)
        _check_prov_entry(f"board.uprising_thresholds[column {k + 1}].provenance", t["provenance"])
    # happiness: 0..30, 0 the permanent box
    num("happiness_min", 0, 0, "0 is the permanent zero box")
    hmax = num("happiness_max", 1, lim["happiness_max"])
    num("happiness_start", 0, hmax)
    num("signing_threshold", 1, hmax)
    inf = num("influence_per_player", 1, lim["influence"],
              "a placement and a bid carry at most 15 cubes (the place and bid action segments)")
    mil = num("military_per_player", 0, lim["military"], "bids offer 0..3 available units")
    dep = rows("deploy_columns", lim["deploy_columns"], lim["deploy_columns"],
               ("column", "influence_back", "happiness_lost", "die_modifier", "bid_strength", "provenance"), "columns")
    for k, d in enumerate(dep):
        dw = f"board.deploy_columns.value[{k}]"
        _int(f"{dw}.column", d["column"], c0 + k, c0 + k, f"the deploy columns are {c0}..{ncol} in order")
        for f, hi in (("influence_back", 99), ("happiness_lost", hmax), ("bid_strength", 10)):
            _int(f"{dw}.{f}", d[f], 0, hi)
        _bool(f"{dw}.die_modifier", d["die_modifier"])
        _check_prov_entry(f"board.deploy_columns[column {c0 + k}].provenance", d["provenance"])
    spaces = rows("demobilize_spaces", 0, lim["demobilize_spaces"], ("value", "four_player_only"), "spaces")
    for k, sp in enumerate(spaces):
        _int(f"board.demobilize_spaces.value[{k}].value", sp["value"], 0, hmax)
        _bool(f"board.demobilize_spaces.value[{k}].four_player_only", sp["four_player_only"])
    last = num("demobilize_last_box", 0, hmax)
    num("mutiny_box", last, last, "the core sends mutinies to the demobilize_last_box")
    zones = rows("happiness_zones", 1, hmax + 1, ("min", "max", "units"), "zones")
    for k, z in enumerate(zones):
        zw = f"board.happiness_zones.value[{k}]"
        _int(f"{zw}.min", z["min"], 0, hmax)
        _int(f"{zw}.max", z["max"], z["min"], hmax)
        _int(f"{zw}.units", z["units"], 0, lim["military"])
    covered = sorted(h for z in zones for h in range(z["min"], z["max"] + 1))
    if covered != list(range(0, hmax + 1)):
        _fail("board.happiness_zones", "zones must cover every happiness value exactly once")
    units = {h: z["units"] for z in zones for h in range(z["min"], z["max"] + 1)}
    hvp = _obj("board.happiness_vp.value", val["happiness_vp"], [str(n) for n in range(1, L.MAX_PLAYERS + 1)])
    for n, vals in hvp.items():
        _list(f"board.happiness_vp.{n}", vals, int(n), int(n), "values")
        for k, x in enumerate(vals):
            _int(f"board.happiness_vp.value.{n}[{k}]", x, *VP)
    for t in ("happiness_zero_vp", "flag_counter_vp", "game_end_vp"):
        num(t, *VP)
    # cards dealt at setup
    num("table_issues", L.N_TABLE, L.N_TABLE, f"the core has {L.N_TABLE} table slots")
    wait = num("waiting_issues", 0, L.N_SLOTS - L.N_TABLE, f"the core has {L.N_SLOTS - L.N_TABLE} waiting slots")
    num("waiting_issues_solo", 0, L.N_SLOTS - L.N_TABLE, f"the core has {L.N_SLOTS - L.N_TABLE} waiting slots")
    pool = L.N_ISSUES - 1 - L.N_TABLE - wait            # issues left for the deck after table and waiting room
    disc = num("setup_discards", 0, pool, "issues left after the table and waiting room")
    num("table_events", 1, 1, "the core deals one event to the table")
    num("waiting_events", L.N_EV_WAIT, L.N_EV_WAIT, f"the core has {L.N_EV_WAIT} waiting event slots")
    num("strategy_cards_extra", 0, lim["strategy_cards_extra"],
        f"the core deals at most {L.MAX_PLAYERS + lim['strategy_cards_extra']} strategy cards")
    num("reclaim_max", 0, lim["reclaim_max"], "the reclaim action segment")
    num("negotiation_transfer_max", 0, lim["transfer_max"], "the transfer action segment")
    costs = _list("board.discard_pick_costs.value", val["discard_pick_costs"], lim["discard_picks"],
                  lim["discard_picks"], "costs")
    for k, c in enumerate(costs):
        _int(f"board.discard_pick_costs.value[{k}]", c, 0, inf)
    names = lim["variant_names"]
    variants = rows("deck_variants", len(names), len(names),
                    ("id", "below_game_end", "shuffle_game_end_with", "player_happiness"), "variants")
    for k, v in enumerate(variants):
        vw = f"board.deck_variants.value[{k}]"
        if VARIANT_ALIASES.get(v["id"], v["id"]) != names[k]:
            _fail(f"{vw}.id", f"must be {names[k]!r} (the game's variants are {', '.join(names)}, in this order; "
                              f"earlier ids {VARIANT_ALIASES} still read), got {_show(v['id'])}")
        _int(f"{vw}.below_game_end", v["below_game_end"], 0, pool - disc, "issues left for the deck")
        _int(f"{vw}.shuffle_game_end_with", v["shuffle_game_end_with"], 0, pool - disc, "issues left for the deck")
        ph = _int(f"{vw}.player_happiness", v["player_happiness"], 0, hmax)
        if units[ph] < mil:
            _fail(f"{vw}.player_happiness", f"{ph} allows {units[ph]} units, fewer than the "
                                            f"{mil} military_per_player each player starts with")


def validate_card_set(raw: dict) -> None:
    """Raise CardDataError naming the card and field at fault; return None if the set is sound."""
    if not isinstance(raw, dict):
        _fail("card set", "must be a JSON object")
    for s in SECTIONS:
        if s not in raw:
            _fail(s, "missing section")
    _obj("card set", raw, SECTIONS)
    cs = _obj("card_set", raw["card_set"], ("name", "version"), ("schema", "description"))
    for k in ("name", "version"):
        _text(f"card_set.{k}", cs[k])
    if "schema" in cs:
        _int("card_set.schema", cs["schema"], 1, 1, "this is schema 1")
    if "description" in cs and not isinstance(cs["description"], str):
        _fail("card_set.description", f"expected a string, got {_kind(cs['description'])}")
    _check_board(raw["board"])
    for section, check in (("issues", _check_issue), ("events", _check_event), ("strategies", _check_strategy)):
        _check_numbered(section, raw[section])
        for i, r in enumerate(raw[section]):
            check(f"{section}[{i}] {_card_name(r, i)}", r)
    ends = [r for r in raw["issues"] if r.get("game_end")]
    if len(ends) != 1:
        _fail("issues", f"exactly one issue must have game_end: true, found {len(ends)}")
    vp, stars = raw["board"]["game_end_vp"]["value"], ends[0]["stars"]
    if vp != stars:
        _fail("board.game_end_vp.value", f"{vp} differs from the {stars} stars of the GAME END card "
                                         f"{ends[0]['name']!r} (the core scores GAME END by its stars)")


