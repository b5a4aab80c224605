"""Read and load a card set: the raw sections from a folder or one JSON file, validated
(validate.py) and tabulated into the read-only numpy tables the core's `T` vector is built from.
`load_card_set()` returns the shipped set, `load_card_set(path)` a user's set.
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from v1919_env.cards.validate import SECTIONS, CardDataError, _fail, validate_card_set
from v1919_env.core.tables import MAX_OPTIONS
from v1919_env.core.vocab import CATEGORIES, COUNTERS, NATIONS, REGIONS, counter_slot

DATA_DIR = Path(__file__).parent / "data"
STANDARD_DIR = DATA_DIR / "standard"


def read_card_set(path: str | Path | None = None) -> dict:
    """Read the raw sections of a card set from a folder or a single JSON file (None: the shipped set)."""
    p = Path(path) if path is not None else STANDARD_DIR
    f = p
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
    except CardDataError:
        raise
    except (ValueError, RecursionError) as e:         # bad JSON, bad UTF-8, a 5000-digit number, deep nesting
        raise CardDataError(f"{f}: not valid JSON ({type(e).__name__}: {str(e)[:200]})") from None
    except OSError as e:
        raise CardDataError(f"{f}: cannot read ({e.strerror or e})") from None


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

    @cached_property
    def digest(self) -> str:
        """The content's identity: recorded beside the label, it changes with any edit of the cards
        (an edited export that keeps its label is still another card set)."""
        return content_digest(self.raw)

    def issue(self, number: int) -> dict:
        return self.raw["issues_by_number"][number]

    def export(self) -> dict:
        """The card set as one JSON-able object (DESIGN.md's export shape)."""
        return {s: copy.deepcopy(self.raw[s]) for s in SECTIONS}


def content_digest(raw: dict) -> str:
    """16 hex digits of SHA-256 over the card set's sections as canonical JSON."""
    body = json.dumps({s: raw[s] for s in SECTIONS}, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


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
    """Load and validate a card set (None: the shipped one). Results are cached per path and file
    state, so a file edited in place is read again."""
    key = str(Path(path).resolve()) if path is not None else "<standard>"
    ckey = key + file_state(path)
    if ckey in _cache:
        return _cache[ckey]
    raw = read_card_set(path)
    validate_card_set(raw)
    tables = build_tables(raw)
    raw = dict(raw)
    raw["issues_by_number"] = {r["number"]: r for r in raw["issues"]}
    cs = CardSet(raw["card_set"]["name"], raw["card_set"]["version"], key, raw, tables)
    _cache[ckey] = cs
    return cs


def file_state(path) -> str:
    """Modification times and sizes of a card-set file or folder ('' for the shipped set)."""
    if path is None:
        return ""
    p = Path(path)
    files = [p / f"{s}.json" for s in SECTIONS] if p.is_dir() else [p]
    out = []
    for f in files:
        try:
            st = f.stat()
            out.append(f"{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            out.append("-")
    return "|" + ",".join(out)


