"""Load, validate and tabulate a card set (issues, events, strategies, board).

`load_card_set()` returns the shipped set; `load_card_set(path)` a user's set (a folder of
the five JSON files, or one JSON file with the sections as keys, the shape of
`v1919 data export`). Every malformed or inconsistent file is rejected by
`CardDataError` naming the card and the field. See data/SCHEMA.md.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .vocab import CATEGORIES, COUNTER_BASE, COUNTERS, FLAGGED_COUNTERS, NATIONS, REGIONS, counter_slot

DATA_DIR = Path(__file__).parent / "data"
STANDARD_DIR = DATA_DIR / "standard"
SECTIONS = ("card_set", "board", "issues", "events", "strategies")
EXPECTED_COUNTS = {"issues": 53, "events": 46, "strategies": 10}
PROVENANCE_KINDS = ("rules", "example", "public", "estimated")
MAX_OPTIONS = 4


class CardDataError(ValueError):
    """A card-set file is malformed or inconsistent; the message names the card and field."""


# --------------------------------------------------------------------------- vocabulary of effects
WHO = ("decider", "chosen_player", "each_player", "settled_controller", "lowest_happiness", "most_issues", "all")
ORDERS = ("ending_with_decider", "starting_with_decider")
REGION_REFS = REGIONS + ("highest", "settled_issue", "random", "any", "chosen", "settled_issue_gained")

_INT, _BOOL, _REGION, _WHO, _ORDER, _COUNTER, _OPS, _BRANCHES, _CATS, _WHEN, _SIGN, _PER = range(12)
OPS: dict[str, tuple[set, dict]] = {
    # op: (required params, {param: type})
    "uprising_check": ({"region"}, {"region": _REGION, "modifier": _INT, "modifier_per_counter": _COUNTER,
                                    "otherwise_unrest": _INT, "otherwise_when": _WHEN}),
    "unrest": ({"region", "delta"}, {"region": _REGION, "delta": _INT, "sign": _SIGN, "per_counter": _COUNTER}),
    "powder_keg": ({"region", "delta"}, {"region": _REGION, "delta": _INT}),
    "happiness": ({"who", "delta"}, {"who": _WHO, "delta": _INT, "per": _PER, "order": _ORDER}),
    "exhaust_influence": ({"who", "amount"}, {"who": _WHO, "amount": _INT, "cost": _BOOL, "order": _ORDER}),
    "recover_influence": ({"who", "amount"}, {"who": _WHO, "amount": _INT, "per_counter": _COUNTER,
                                              "order": _ORDER}),
    "choose_player": (set(), {}),
    "choose_regions": ({"count"}, {"count": _INT}),
    "choice": ({"who", "branches"}, {"who": _WHO, "order": _ORDER, "branches": _BRANCHES}),
    "unsettle": ({"categories"}, {"categories": _CATS}),
    "clear_waiting_issue": (set(), {}),
    "military_to_exhausted": ({"who"}, {"who": _WHO, "order": _ORDER}),
    "military_to_available": ({"who"}, {"who": _WHO, "order": _ORDER}),
    "demobilize_action": ({"who"}, {"who": _WHO, "order": _ORDER}),
    "deploy_action": ({"who"}, {"who": _WHO}),
    "if_no_counters": ({"counter", "category", "then"}, {"counter": _COUNTER, "category": _CATS, "then": _OPS}),
}
CONDITIONS: dict[str, tuple[set, dict]] = {
    "counters": ({"counter", "vp"}, {"counter": _COUNTER, "flag": _WHO, "vp": _INT}),
    "regions_unrest": ({"compare", "vp"}, {"compare": _WHEN, "vp": _INT}),
    "military": ({"vp"}, {"vp": _INT}),
    "happiness_x2": (set(), {}),
    "treaty": ({"nations", "signs", "vp"}, {"nations": _CATS, "signs": _BOOL, "vp": _INT}),
    "issues": ({"category", "controller", "vp"}, {"category": _CATS, "controller": _WHO, "vp": _INT}),
    "issue_regions": ({"vp"}, {"vp": _INT}),
}


def _fail(where: str, msg: str):
    raise CardDataError(f"{where}: {msg}")


def _check_provenance(where: str, prov, fields) -> None:
    if not isinstance(prov, dict):
        _fail(where, "missing 'provenance' object")
    for f in fields:
        if f not in prov:
            _fail(f"{where}.provenance", f"no provenance for field '{f}'")
        _check_prov_entry(f"{where}.provenance.{f}", prov[f])


def _check_prov_entry(where: str, p) -> None:
    if not isinstance(p, dict) or p.get("kind") not in PROVENANCE_KINDS:
        _fail(where, f"provenance kind must be one of {PROVENANCE_KINDS}, got {p!r:.80}")
    need = {"rules": ("source", "quote"), "example": ("source", "quote"), "public": ("url", "quote"),
            "estimated": ("reasoning",)}[p["kind"]]
    for k in need:
        if not isinstance(p.get(k), str) or not p[k].strip():
            _fail(where, f"{p['kind']} provenance needs a non-empty '{k}'")


def _check_int(where, v, lo=-99, hi=99):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        _fail(where, f"expected an integer in {lo}..{hi}, got {v!r}")


def _check_param(where: str, kind: int, v) -> None:
    if kind == _INT:
        _check_int(where, v)
    elif kind == _BOOL:
        if not isinstance(v, bool):
            _fail(where, f"expected true/false, got {v!r}")
    elif kind == _REGION:
        ok = v in REGION_REFS or (isinstance(v, dict) and set(v) == {"one_of"} and isinstance(v["one_of"], list)
                                  and len(v["one_of"]) >= 2 and all(r in REGIONS for r in v["one_of"]))
        if not ok:
            _fail(where, f"unknown region {v!r} (expected one of {REGION_REFS} or {{'one_of': [regions]}})")
    elif kind == _WHO:
        if v not in WHO + ("self", "any") + NATIONS:
            _fail(where, f"unknown value {v!r}")
    elif kind == _ORDER:
        if v not in ORDERS:
            _fail(where, f"unknown order {v!r} (expected one of {ORDERS})")
    elif kind == _COUNTER:
        if v not in COUNTER_BASE:
            _fail(where, f"unknown counter {v!r} (expected one of {COUNTER_BASE})")
    elif kind == _OPS:
        _check_ops(where, v)
    elif kind == _BRANCHES:
        if not isinstance(v, list) or len(v) < 2:
            _fail(where, "a choice needs at least two branches")
        for i, b in enumerate(v):
            _check_ops(f"{where}[{i}]", b)
    elif kind == _CATS:
        vals = v if isinstance(v, list) else [v]
        if not vals or any(c not in CATEGORIES[:-1] + NATIONS for c in vals):
            _fail(where, f"unknown category/nation in {v!r}")
    elif kind == _WHEN:
        if v not in ("no_uprising", "no_unsettle", "le3", "ge4"):
            _fail(where, f"unknown value {v!r}")
    elif kind == _SIGN:
        if v not in ("fixed", "choose"):
            _fail(where, f"sign must be 'fixed' or 'choose', got {v!r}")
    elif kind == _PER:
        if v != "deployed_unit":
            _fail(where, f"per must be 'deployed_unit', got {v!r}")


def _check_spec(where: str, item, table: dict, key: str) -> None:
    if not isinstance(item, dict) or item.get(key) not in table:
        _fail(where, f"unknown {key} {item.get(key) if isinstance(item, dict) else item!r} "
                     f"(expected one of {sorted(table)})")
    required, params = table[item[key]]
    for p in required:
        if p not in item:
            _fail(where, f"{item[key]} needs parameter '{p}'")
    for p, v in item.items():
        if p == key:
            continue
        if p not in params:
            _fail(f"{where}.{p}", f"unknown parameter for {item[key]}")
        _check_param(f"{where}.{p}", params[p], v)


def _check_ops(where: str, ops) -> None:
    if not isinstance(ops, list) or not ops:
        _fail(where, "effects must be a non-empty list of operations")
    for i, op in enumerate(ops):
        _check_spec(f"{where}[{i}]", op, OPS, "op")


def _card_name(rec, i):
    return f"{rec.get('name', '?')!r} (#{rec.get('number', i + 1)})" if isinstance(rec, dict) else f"#{i + 1}"


def _check_numbered(section: str, records) -> None:
    if not isinstance(records, list):
        _fail(section, "must be a list of records")
    want = EXPECTED_COUNTS[section]
    if len(records) != want:
        _fail(section, f"expected {want} cards, found {len(records)}")
    seen_n, seen_id = {}, {}
    for i, r in enumerate(records):
        where = f"{section}[{i}] {_card_name(r, i)}"
        if not isinstance(r, dict):
            _fail(where, "record must be an object")
        _check_int(f"{where}.number", r.get("number"), 1, want)
        if r["number"] in seen_n:
            _fail(f"{where}.number", f"duplicate number {r['number']} (also {seen_n[r['number']]})")
        seen_n[r["number"]] = r.get("name")
        if not isinstance(r.get("name"), str) or not r["name"]:
            _fail(f"{where}.name", "missing name")
        rid = r.get("id")
        if not isinstance(rid, str) or not rid:
            _fail(f"{where}.id", "missing id")
        if rid in seen_id:
            _fail(f"{where}.id", f"duplicate id {rid!r}")
        seen_id[rid] = r["number"]


def _check_issue(where: str, r) -> None:
    if r.get("region") not in CATEGORIES:
        _fail(f"{where}.region", f"unknown region {r.get('region')!r} (expected one of {CATEGORIES})")
    _check_int(f"{where}.stars", r.get("stars"), 0, 12)
    if not isinstance(r.get("no_military"), bool):
        _fail(f"{where}.no_military", "must be true or false")
    _check_provenance(where, r.get("provenance"), ("number", "name", "region", "stars", "no_military"))
    opts = r.get("options")
    if r.get("game_end", False):
        if opts:
            _fail(f"{where}.options", "the GAME END issue has no options")
        return
    if not isinstance(opts, list) or not 2 <= len(opts) <= MAX_OPTIONS:
        _fail(f"{where}.options", f"an issue needs 2..{MAX_OPTIONS} options, found "
                                  f"{len(opts) if isinstance(opts, list) else 'none'}")
    for j, o in enumerate(opts):
        ow = f"{where}.options[{j}]"
        if not isinstance(o, dict) or not isinstance(o.get("name"), str) or not o["name"]:
            _fail(ow, "option needs a name")
        ow = f"{where}.options[{j}] {o['name']!r}"
        for reg, d in (o.get("unrest") or {}).items():
            if reg not in REGIONS:
                _fail(f"{ow}.unrest", f"unknown region {reg!r}")
            _check_int(f"{ow}.unrest.{reg}", d, -8, 8)
        for nat, d in (o.get("happiness") or {}).items():
            if nat not in NATIONS:
                _fail(f"{ow}.happiness", f"unknown nation {nat!r}")
            _check_int(f"{ow}.happiness.{nat}", d, -30, 30)
        for k, c in enumerate(o.get("counters") or []):
            cw = f"{ow}.counters[{k}]"
            if not isinstance(c, dict) or c.get("kind") not in COUNTER_BASE:
                _fail(cw, f"unknown counter {c.get('kind') if isinstance(c, dict) else c!r} "
                          f"(expected one of {COUNTER_BASE})")
            _check_int(f"{cw}.count", c.get("count"), 1, 4)
            flag = c.get("flag")
            if c["kind"] in FLAGGED_COUNTERS:
                ok = flag in NATIONS or (c["kind"] == "naval" and flag == "uk_or_usa")
                if not ok:
                    _fail(f"{cw}.flag", f"{c['kind']} counter needs a nation flag, got {flag!r}")
            elif flag is not None:
                _fail(f"{cw}.flag", f"{c['kind']} counters carry no flag")
        _check_provenance(ow, o.get("provenance"), ("name", "unrest", "happiness", "counters"))


def _check_event(where: str, r) -> None:
    if not isinstance(r.get("influence_icon"), bool):
        _fail(f"{where}.influence_icon", "must be true or false")
    for part in ("crisis", "conference"):
        p = r.get(part)
        if not isinstance(p, dict):
            _fail(f"{where}.{part}", "missing")
        if not isinstance(p.get("text"), str) or not p["text"]:
            _fail(f"{where}.{part}.text", "missing English text")
        _check_ops(f"{where}.{part}.effects", p.get("effects"))
    if not isinstance(r["conference"].get("optional"), bool):
        _fail(f"{where}.conference.optional", "must be true or false")
    _check_provenance(where, r.get("provenance"), ("number", "name", "influence_icon", "crisis", "conference"))


def _check_strategy(where: str, r) -> None:
    conds = r.get("conditions")
    if not isinstance(conds, list) or not conds:
        _fail(f"{where}.conditions", "a strategy card needs at least one condition")
    for i, c in enumerate(conds):
        _check_spec(f"{where}.conditions[{i}]", c, CONDITIONS, "kind")
    cp = r.get("condition_provenance")
    if not isinstance(cp, list) or len(cp) != len(conds):
        _fail(f"{where}.condition_provenance", "needs one provenance entry per condition")
    for i, p in enumerate(cp):
        _check_prov_entry(f"{where}.condition_provenance[{i}]", p)
    _check_provenance(where, r.get("provenance"), ("number", "name", "conditions"))


BOARD_TABLES = ("regions", "random_region_none_roll", "track_columns", "unrest_start_column", "powder_keg_start",
                "powder_keg_max_column", "uprising_thresholds", "deploy_columns", "demobilize_spaces",
                "demobilize_last_box", "happiness_min", "happiness_max", "happiness_start", "happiness_zones",
                "mutiny_box", "signing_threshold", "happiness_vp", "happiness_zero_vp", "flag_counter_vp",
                "game_end_vp", "deck_variants", "influence_per_player", "military_per_player", "table_issues",
                "waiting_issues", "waiting_issues_solo", "setup_discards", "table_events", "waiting_events",
                "strategy_cards_extra", "reclaim_max", "discard_pick_costs", "negotiation_transfer_max")


def _check_board(b) -> None:
    if not isinstance(b, dict):
        _fail("board", "must be an object")
    for t in BOARD_TABLES:
        if t not in b or not isinstance(b[t], dict) or "value" not in b[t]:
            _fail(f"board.{t}", "missing table (needs 'value' and 'provenance')")
        _check_prov_entry(f"board.{t}.provenance", b[t].get("provenance"))
    regs = [r.get("id") for r in b["regions"]["value"]]
    if regs != list(REGIONS):
        _fail("board.regions", f"regions must be {list(REGIONS)} in row order, got {regs}")
    if sorted(r.get("die") for r in b["regions"]["value"]) != [1, 2, 3, 4, 5]:
        _fail("board.regions", "die numbers must be 1..5, one per region")
    ncol = b["track_columns"]["value"]
    th = b["uprising_thresholds"]["value"]
    if [t.get("column") for t in th] != list(range(1, ncol + 1)):
        _fail("board.uprising_thresholds", f"needs one entry per column 1..{ncol}")
    for t in th:
        if t["threshold"] is not None:
            _check_int(f"board.uprising_thresholds[column {t['column']}].threshold", t["threshold"], 1, 7)
        _check_prov_entry(f"board.uprising_thresholds[column {t['column']}].provenance", t.get("provenance"))
    deploy = b["deploy_columns"]["value"]
    if [d.get("column") for d in deploy] != list(range(ncol - 3, ncol + 1)):
        _fail("board.deploy_columns", f"needs columns {ncol - 3}..{ncol}")
    for d in deploy:
        for k in ("influence_back", "happiness_lost", "bid_strength"):
            _check_int(f"board.deploy_columns[column {d['column']}].{k}", d.get(k), 0, 10)
        _check_prov_entry(f"board.deploy_columns[column {d['column']}].provenance", d.get("provenance"))
    for z in b["happiness_zones"]["value"]:
        _check_int("board.happiness_zones.units", z.get("units"), 0, 3)
    covered = sorted(h for z in b["happiness_zones"]["value"] for h in range(z["min"], z["max"] + 1))
    if covered != list(range(b["happiness_min"]["value"], b["happiness_max"]["value"] + 1)):
        _fail("board.happiness_zones", "zones must cover every happiness value exactly once")
    for n in ("1", "2", "3", "4"):
        if len(b["happiness_vp"]["value"].get(n, [])) != int(n):
            _fail(f"board.happiness_vp.{n}", f"needs {n} values")


def validate_card_set(raw: dict) -> None:
    """Raise CardDataError naming the card and field at fault; return None if the set is sound."""
    if not isinstance(raw, dict):
        _fail("card set", "must be a JSON object")
    for s in SECTIONS:
        if s not in raw:
            _fail(s, "missing section")
    cs = raw["card_set"]
    for k in ("name", "version"):
        if not isinstance(cs.get(k), str) or not cs[k]:
            _fail(f"card_set.{k}", "missing")
    _check_board(raw["board"])
    for section, check in (("issues", _check_issue), ("events", _check_event), ("strategies", _check_strategy)):
        _check_numbered(section, raw[section])
        for i, r in enumerate(raw[section]):
            check(f"{section}[{i}] {_card_name(r, i)}", r)
    ends = [r["name"] for r in raw["issues"] if r.get("game_end")]
    if len(ends) != 1:
        _fail("issues", f"exactly one issue must have game_end: true, found {len(ends)}")


def read_card_set(path: str | Path | None = None) -> dict:
    """Read the raw sections of a card set from a folder or a single JSON file (None: the shipped set)."""
    p = Path(path) if path is not None else STANDARD_DIR
    try:
        if p.is_dir():
            raw = {}
            for s in SECTIONS:
                f = p / f"{s}.json"
                if not f.exists():
                    _fail(str(f), "missing file")
                raw[s] = json.loads(f.read_text(encoding="utf-8"))
            return raw
        if not p.exists():
            _fail(str(p), "no such card-set file or folder")
        return json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise CardDataError(f"{p}: not valid JSON ({e})") from None


# --------------------------------------------------------------------------- numeric tables
@dataclass(frozen=True)
class CardSet:
    """A validated card set: the raw records plus read-only numeric tables for the core."""

    name: str
    version: str
    source: str
    raw: dict = field(repr=False)
    tables: dict = field(repr=False)

    @property
    def label(self) -> str:
        """'name@version', recorded with every result this card set produces."""
        return f"{self.name}@{self.version}"

    def issue(self, number: int) -> dict:
        return self.raw["issues_by_number"][number]

    def export(self) -> dict:
        """The card set as one JSON-able object (DESIGN.md's export shape)."""
        return {s: copy.deepcopy(self.raw[s]) for s in SECTIONS}


def _board_value(b, k):
    return b[k]["value"]


def build_tables(raw: dict) -> dict:
    """Turn validated records into read-only numpy tables indexed by card number - 1."""
    b = raw["board"]
    issues = sorted(raw["issues"], key=lambda r: r["number"])
    n_i = len(issues)
    t = {}
    t["issue_category"] = np.array([CATEGORIES.index(r["region"]) for r in issues], np.int64)
    t["issue_stars"] = np.array([r["stars"] for r in issues], np.int64)
    t["issue_no_military"] = np.array([int(r["no_military"]) for r in issues], np.int64)
    t["issue_n_options"] = np.array([len(r.get("options") or []) for r in issues], np.int64)
    t["game_end_issue"] = np.int64([i for i, r in enumerate(issues) if r.get("game_end")][0])
    unrest = np.zeros((n_i, MAX_OPTIONS, len(REGIONS)), np.int64)
    happy = np.zeros((n_i, MAX_OPTIONS, len(NATIONS)), np.int64)
    counters = np.zeros((n_i, MAX_OPTIONS, len(COUNTERS)), np.int64)
    naval_choice = np.zeros((n_i, MAX_OPTIONS), np.int64)
    for i, r in enumerate(issues):
        for o, opt in enumerate(r.get("options") or []):
            for reg, d in (opt.get("unrest") or {}).items():
                unrest[i, o, REGIONS.index(reg)] = d
            for nat, d in (opt.get("happiness") or {}).items():
                happy[i, o, NATIONS.index(nat)] = d
            for c in opt.get("counters") or []:
                if c["kind"] == "naval" and c.get("flag") == "uk_or_usa":
                    naval_choice[i, o] += c["count"]
                else:
                    counters[i, o, counter_slot(c["kind"], c.get("flag"))] += c["count"]
    t.update(option_unrest=unrest, option_happiness=happy, option_counters=counters,
             option_naval_choice=naval_choice)
    # board
    th = _board_value(b, "uprising_thresholds")
    t["uprising_threshold"] = np.array([0] + [x["threshold"] or 0 for x in th], np.int64)  # 0 = 'X'
    ncol = _board_value(b, "track_columns")
    dep = {d["column"]: d for d in _board_value(b, "deploy_columns")}
    for k in ("influence_back", "happiness_lost", "bid_strength"):
        t[f"deploy_{k}"] = np.array([dep[c][k] if c in dep else 0 for c in range(ncol + 1)], np.int64)
    t["deploy_die_modifier"] = np.array([int(dep[c]["die_modifier"]) if c in dep else 0
                                         for c in range(ncol + 1)], np.int64)
    t["first_deploy_column"] = np.int64(min(dep))
    t["region_die"] = np.array([r["die"] for r in _board_value(b, "regions")], np.int64)
    spaces = _board_value(b, "demobilize_spaces")
    t["demob_value"] = np.array([s["value"] for s in spaces], np.int64)
    t["demob_4p_only"] = np.array([int(s["four_player_only"]) for s in spaces], np.int64)
    t["demob_last_box"] = np.int64(_board_value(b, "demobilize_last_box"))
    zone = np.zeros(_board_value(b, "happiness_max") + 1, np.int64)
    for z in _board_value(b, "happiness_zones"):
        zone[z["min"]:z["max"] + 1] = z["units"]
    t["units_allowed"] = zone
    hv = np.zeros((5, 4), np.int64)
    for n, vals in _board_value(b, "happiness_vp").items():
        hv[int(n), :len(vals)] = vals
    t["happiness_vp"] = hv
    for k in ("powder_keg_max_column", "unrest_start_column", "powder_keg_start", "happiness_max", "happiness_start",
              "signing_threshold", "happiness_zero_vp", "flag_counter_vp", "game_end_vp", "influence_per_player",
              "military_per_player", "table_issues", "waiting_issues", "waiting_issues_solo", "setup_discards",
              "table_events", "waiting_events", "strategy_cards_extra", "reclaim_max", "mutiny_box",
              "negotiation_transfer_max", "random_region_none_roll", "track_columns"):
        t[k] = np.int64(_board_value(b, k))
    t["discard_pick_costs"] = np.array(_board_value(b, "discard_pick_costs"), np.int64)
    for v in t.values():
        if isinstance(v, np.ndarray):
            v.setflags(write=False)
    return t


_cache: dict[str, CardSet] = {}


def load_card_set(path: str | Path | None = None) -> CardSet:
    """Load and validate a card set (None: the shipped one). Results are cached per path."""
    key = str(Path(path).resolve()) if path is not None else "<standard>"
    if key in _cache:
        return _cache[key]
    raw = read_card_set(path)
    validate_card_set(raw)
    tables = build_tables(raw)
    raw = dict(raw)
    raw["issues_by_number"] = {r["number"]: r for r in raw["issues"]}
    cs = CardSet(raw["card_set"]["name"], raw["card_set"]["version"], key, raw, tables)
    _cache[key] = cs
    return cs


# --------------------------------------------------------------------------- provenance report
def _walk_provenance(raw: dict):
    """Yield (field path, provenance entry) for every provenance-carrying field."""
    for t, v in raw["board"].items():
        yield f"board.{t}", v["provenance"]
        if isinstance(v["value"], list):
            for x in v["value"]:
                if isinstance(x, dict) and "provenance" in x:
                    yield f"board.{t}[column {x.get('column')}]", x["provenance"]
    for r in raw["issues"]:
        for f, p in r["provenance"].items():
            yield f"issue #{r['number']} {r['name']}.{f}", p
        for o in r.get("options") or []:
            for f, p in o["provenance"].items():
                yield f"issue #{r['number']} {r['name']} / {o['name']}.{f}", p
    for r in raw["events"]:
        for f, p in r["provenance"].items():
            yield f"event #{r['number']} {r['name']}.{f}", p
    for r in raw["strategies"]:
        for f, p in r["provenance"].items():
            yield f"strategy #{r['number']} {r['name']}.{f}", p
        for i, p in enumerate(r["condition_provenance"]):
            yield f"strategy #{r['number']} {r['name']}.conditions[{i}]", p


def provenance_report(cs: CardSet, list_estimated: bool = True) -> str:
    """Counts per card type and per provenance kind, then every estimated field with its reasoning."""
    raw = cs.raw
    lines = [f"card set {cs.label} ({cs.source})",
             f"cards: {len(raw['issues'])} issues, {len(raw['events'])} events, "
             f"{len(raw['strategies'])} strategies; board tables: {len(raw['board'])}", ""]
    counts = {k: 0 for k in PROVENANCE_KINDS}
    by_section: dict[str, dict[str, int]] = {}
    estimated = []
    for path, p in _walk_provenance(raw):
        sec = path.split(" ")[0].split(".")[0]
        counts[p["kind"]] += 1
        by_section.setdefault(sec, {k: 0 for k in PROVENANCE_KINDS})[p["kind"]] += 1
        if p["kind"] == "estimated":
            estimated.append((path, p["reasoning"]))
    lines.append(f"{'fields by provenance':<22}" + "".join(f"{k:>11}" for k in PROVENANCE_KINDS) + f"{'total':>8}")
    for sec, c in by_section.items():
        lines.append(f"  {sec:<20}" + "".join(f"{c[k]:>11}" for k in PROVENANCE_KINDS) + f"{sum(c.values()):>8}")
    lines.append(f"  {'all':<20}" + "".join(f"{counts[k]:>11}" for k in PROVENANCE_KINDS)
                 + f"{sum(counts.values()):>8}")
    if list_estimated:
        lines += ["", f"estimated fields ({len(estimated)}):"]
        lines += [f"  {path}: {why}" for path, why in estimated]
    return "\n".join(lines)
