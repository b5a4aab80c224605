"""Nation drivers: which card fields make identical agents win unequally by nation (issue 21).

    PYTHONPATH=. .venv/bin/python tools/nation_drivers.py [--games 10000] [--players 4 3]
        [--agents rulebot random] [--variants ID ...] [--seatings] [--stakes] [--json OUT]

`v1919 nation-balance` shows that four rule bots win very unequally by nation. This tool asks why.
Each *variant* is a counterfactual card set built in memory from the shipped one (the files under
v1919_env/cards/data/ are never written): one field or field group is neutralized (set to zero,
removed, or mirrored between two nations), the result goes through the project's validator and
table builder (`validate_card_set`, `build_tables`, `core.tables.build`), and the compiled agents
play the same seeds on it as on the shipped set. Estimated fields (provenance `estimated`, see
`v1919 data report` and data/README.md 'How unknown issue values were estimated') come first, then
certain fields that plausibly favour one nation.

For every variant and player count the tool prints each nation's win rate (winners of a tied game
each count, as nation_balance does) with its Wilson 95% interval, and the change of the largest
gap (Italy - USA in 4 players, UK - USA in 3) against the shipped set with a 95% interval. Game g
uses seed + g in every variant (common random numbers: the same deck order, strategy offer and
first player, and the same agent generator seed), so the change is estimated per seed: the mean
of the paired per-game differences with a normal interval on them.

`--seatings` separates seat from nation: every distinct seating (who sits next to whom; rotations
are the same table) is played with the shipped cards, and every game's first player (random, EN:155)
gives each nation's win rate by its place in the turn order. `--stakes` prints, per nation, how
many options change its happiness or carry its flag, split by provenance.

`--list` names the variants. `Variant.apply` edits a deep copy of the raw card set and
`Variant.touches` names the core tables it must change (tests/cards/test_nation_drivers.py checks
that it changes those and nothing else); `variant_raw(ids)` and `variant_tables(ids)` give the raw
card set and the core's table vector of a variant (ids joined with '+' combine); `main(argv)` is
the command line. Results: docs/nation_balance.md.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.arena.tournament.stats import Z95, wilson_interval
from v1919_env.cards.load import CardSet, build_tables, read_card_set
from v1919_env.cards.validate import validate_card_set
from v1919_env.core import tables as TB
from v1919_env.core.bots import POLICY_NAMES, rollout, seed_policy_rng
from v1919_env.core.layout import (FIRST_PLAYER, HAPPY, ISSUE_CTRL, ISSUE_OPT, MAX_LEGAL, MAX_PLAYERS, N_ISSUES,
                                   SEATING, STATE_SIZE)
from v1919_env.core.scoring import N_SCORE_COLS, final_scores, winners
from v1919_env.core.setup import new_game
from v1919_env.core.step import run
from v1919_env.core.vocab import PLAYER_NATIONS, REGIONS
from v1919_env.seating import parse_seating

PLAYERS = ("uk", "france", "usa", "italy")
GAP = {4: ("italy", "usa"), 3: ("uk", "usa")}
"""The largest gap of the shipped set per player count (`v1919 nation-balance`, rulebot)."""


# ----------------------------------------------------------------------------- statistics
wilson = wilson_interval           # Wilson 95% interval of k successes in n (agents.arena.tournament.stats)


def mean_interval(x: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the mean of x with a normal 95% interval (x: per-game values or paired
    per-game differences)."""
    n = len(x)
    m = float(x.mean())
    h = Z95 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
    return m, m - h, m + h


# ----------------------------------------------------------------------------- the compiled loop
@njit(cache=True)
def play_seated(num_games, num_players, T, policies, seed, seating, scores, happy, win, first, decisions,
                ctrl, opt):
    """play_games (core/bots.py) with a seating: game g from seed + g, the agents' generator from
    seed * 7919 + g (so the default seating plays exactly play_games's games); fills scores[g, p, :]
    (the final_scores breakdown: issues, flags, strategy, happiness VP, total), happy[g, p] (final
    happiness), win[g] (winners bit mask), first[g] (the first player), decisions[g], and per issue
    i its final controller ctrl[g, i] and option opt[g, i] (-1: not settled)."""
    s = np.zeros(STATE_SIZE, np.int32)
    buf = np.empty(MAX_LEGAL, np.int64)
    out = np.zeros((MAX_PLAYERS, N_SCORE_COLS), np.int64)
    for g in range(num_games):
        new_game(s, T, num_players, seed + g, 0, 0)
        for i in range(num_players):
            s[SEATING + i] = seating[i]
        run(s, T, 0, -1)
        rng = seed_policy_rng(seed * 7919 + g)
        decisions[g] = rollout(s, T, policies, buf, rng, 1 << 30)
        final_scores(s, T, out)
        for p in range(num_players):
            for c in range(N_SCORE_COLS):
                scores[g, p, c] = out[p, c]
            happy[g, p] = s[HAPPY + p]
        win[g] = winners(s, T, out)
        first[g] = s[FIRST_PLAYER]
        for i in range(N_ISSUES):
            ctrl[g, i] = s[ISSUE_CTRL + i]
            opt[g, i] = s[ISSUE_OPT + i]


def play(T: np.ndarray, num_players: int, agent: str, games: int, seed: int = 0, seating=None) -> dict:
    """Per-game arrays of `games` games with `agent` in every seat: win (games, n) 0/1, scores
    (games, n, 5), happy (games, n), first (games,), decisions (games,), ctrl and opt (games, 53),
    plus the seconds taken."""
    order = np.array(parse_seating(seating, num_players), np.int64)
    pol = np.full(MAX_PLAYERS, POLICY_NAMES.index(agent), np.int64)
    scores = np.zeros((games, MAX_PLAYERS, N_SCORE_COLS), np.int64)
    happy = np.zeros((games, MAX_PLAYERS), np.int64)
    win, first, dec = (np.zeros(games, np.int64) for _ in range(3))
    ctrl, opt = np.zeros((games, N_ISSUES), np.int64), np.zeros((games, N_ISSUES), np.int64)
    t0 = time.perf_counter()
    play_seated(games, num_players, T, pol, seed, order, scores, happy, win, first, dec, ctrl, opt)
    dt = time.perf_counter() - t0
    wins = np.stack([(win >> p) & 1 for p in range(num_players)], axis=1)
    return {"win": wins, "scores": scores[:, :num_players], "happy": happy[:, :num_players], "first": first,
            "decisions": dec, "ctrl": ctrl, "opt": opt, "seconds": dt}


# ----------------------------------------------------------------------------- card-set walking
def _options(raw):
    for r in raw["issues"]:
        for o in r.get("options") or []:
            yield r, o


def _estimated(p: dict) -> bool:
    return p["kind"] == "estimated"


def _edit_happiness(raw, keep: Callable[[str, int, bool, dict], int]) -> None:
    """Replace every option happiness delta d of nation n by keep(n, d, estimated, option)."""
    for _, o in _options(raw):
        est = _estimated(o["provenance"]["happiness"])
        new = {n: keep(n, d, est, o) for n, d in o["happiness"].items()}
        o["happiness"] = {n: d for n, d in new.items() if d != 0}


def _happiness_off(nations=None, provenance="estimated", sign=0, empire=None):
    """Happiness deltas of `nations` (None: all) with that provenance ('estimated', 'certain', 'any')
    set to 0; sign > 0 only gains, sign < 0 only losses; empire True / False: only on options that
    place / place no Empire counter (None: any option)."""
    def keep(n, d, est, o):
        hit = (nations is None or n in nations) and (provenance == "any" or est == (provenance == "estimated"))
        hit = hit and (sign == 0 or d * sign > 0)
        hit = hit and (empire is None or empire == any(c["kind"] == "empire" for c in o["counters"]))
        return 0 if hit else d
    return lambda raw: _edit_happiness(raw, keep)


def _happiness_swap(a, b, provenance="estimated"):
    def apply(raw):
        for _, o in _options(raw):
            est = _estimated(o["provenance"]["happiness"])
            if provenance == "any" or est == (provenance == "estimated"):
                h = o["happiness"]
                da, db = h.pop(a, 0), h.pop(b, 0)
                if db:
                    h[a] = db
                if da:
                    h[b] = da
    return apply


def _drop_counters(pred: Callable[[dict], bool], provenance="estimated"):
    """Remove the counters c with pred(c) from options whose counters field has that provenance."""
    def apply(raw):
        for _, o in _options(raw):
            est = _estimated(o["provenance"]["counters"])
            if provenance == "any" or est == (provenance == "estimated"):
                o["counters"] = [c for c in o["counters"] if not pred(c)]
    return apply


def _is_flag(c):
    return c["kind"] in ("naval", "empire")


def _mirror(a, b):
    """Swap nations a and b in every nation-specific card field: option happiness (any provenance),
    empire and naval flags (a UK-or-USA naval counter stays as it is) and the treaty lines."""
    def apply(raw):
        _happiness_swap(a, b, "any")(raw)
        for _, o in _options(raw):
            for c in o["counters"]:
                if c.get("flag") in (a, b):
                    c["flag"] = b if c["flag"] == a else a
        for st in raw["strategies"]:
            for c in st["conditions"]:
                if c["kind"] == "treaty":
                    c["nations"] = [b if n == a else a if n == b else n for n in c["nations"]]
    return apply


def _stars_flat(raw):
    for r in raw["issues"]:
        if not r.get("game_end") and _estimated(r["provenance"]["stars"]):
            r["stars"] = 4


def _unrest_off(raw):
    for _, o in _options(raw):
        if _estimated(o["provenance"]["unrest"]):
            o["unrest"] = {}


def _regions_permuted(raw):
    """The estimated regions of the track issues (not League, Reparations) permuted among those
    cards: sorted by region and shifted by the largest region's count, so the same number of issues
    per region, most of them moved to another region."""
    est = [r for r in sorted(raw["issues"], key=lambda r: (r["region"], r["number"]))
           if r["region"] in REGIONS and _estimated(r["provenance"]["region"])]
    regs = [r["region"] for r in est]
    k = max(regs.count(x) for x in set(regs))
    for r, reg in zip(est, regs[k:] + regs[:k]):
        r["region"] = reg


def _treaty_off(estimated_only):
    def apply(raw):
        for st in raw["strategies"]:
            for c, p in zip(st["conditions"], st["condition_provenance"]):
                if c["kind"] == "treaty" and (not estimated_only or _estimated(p)):
                    c["vp"] = 0
    return apply


def _strategy_lines_off(raw):
    """Every estimated strategy condition scores nothing: vp 0, an estimated Happiness x2 line removed."""
    for st in raw["strategies"]:
        keep_c, keep_p = [], []
        for c, p in zip(st["conditions"], st["condition_provenance"]):
            if _estimated(p):
                if c["kind"] == "happiness_x2":
                    continue
                c["vp"] = 0
            keep_c.append(c)
            keep_p.append(p)
        st["conditions"], st["condition_provenance"] = keep_c, keep_p


def _event_icons_off(raw):
    for e in raw["events"]:
        if _estimated(e["provenance"]["influence_icon"]):
            e["influence_icon"] = False


def _board(key, edit):
    def apply(raw):
        edit(raw["board"][key]["value"])
    return apply


def _threshold_col5(v):
    for x in v:
        if x["column"] == 5:
            x["threshold"] = 5


def _die_swap(v):
    for x in v:
        if x["id"] in ("balkans", "pacific"):
            x["die"] = 6 - x["die"]


def _demob_grey_off(v):
    for x in v:
        x["four_player_only"] = False
    v[:] = [x for i, x in enumerate(v) if i not in (3, 5)]


def _set_board(key, value):
    def apply(raw):
        raw["board"][key]["value"] = value
    return apply


def _happiness_vp_off(raw):
    raw["board"]["happiness_vp"]["value"] = {k: [0] * len(v) for k, v in raw["board"]["happiness_vp"]["value"].items()}


# ----------------------------------------------------------------------------- the variants
@dataclass(frozen=True)
class Variant:
    id: str
    field: str                  # the card field or field group
    provenance: str             # estimated / certain, with its citation
    change: str                 # what the counterfactual does
    apply: Callable[[dict], None] = field(repr=False)
    touches: frozenset = frozenset()        # core.tables.T_LAYOUT names it must change (and only those)
    nations: tuple = ()                     # option_happiness: the nation columns it may change


def _v(id, field, provenance, change, apply, touches, nations=()):
    return Variant(id, field, provenance, change, apply, frozenset(touches), tuple(nations))


E4 = "estimated (E4)"
E5 = "estimated (E5)"
HAPPY_T = {"option_happiness"}
VARIANTS = [
    # estimated issue fields
    _v("est_happiness_off", "option happiness, all estimated entries", E4,
       "every estimated happiness delta set to 0", _happiness_off(), HAPPY_T, PLAYERS + ("japan",)),
    _v("est_gains_off", "option happiness, estimated gains", E4 + ": 'the beneficiary sometimes gains +1 or +2'",
       "every estimated positive delta set to 0", _happiness_off(sign=1), HAPPY_T, PLAYERS + ("japan",)),
    _v("est_losses_off", "option happiness, estimated losses",
       E4 + ": 'the nation whose interest is denied loses 1 or 2'",
       "every estimated negative delta set to 0", _happiness_off(sign=-1), HAPPY_T, PLAYERS + ("japan",)),
    _v("est_italy_happiness_off", "option happiness, Italy's estimated column", E4,
       "Italy's estimated deltas set to 0", _happiness_off({"italy"}), HAPPY_T, ("italy",)),
    _v("est_italy_gains_off", "option happiness, Italy's estimated gains",
       E4 + " (Italy: Adriatic, Tyrol, Fiume, colonies, Smyrna)",
       "Italy's estimated +1/+2 set to 0", _happiness_off({"italy"}, sign=1), HAPPY_T, ("italy",)),
    _v("est_usa_happiness_off", "option happiness, the USA's estimated column",
       E4 + " (USA: -1 per mandate, -2 per annexation)",
       "the USA's estimated deltas set to 0", _happiness_off({"usa"}), HAPPY_T, ("usa",)),
    _v("est_usa_losses_empire_off", "option happiness, the USA's estimated losses on Empire options",
       E4 + " (USA: -1 per mandate, -2 per annexation; from Syria, Kurdistan)",
       "the USA's estimated losses on options placing an Empire counter set to 0",
       _happiness_off({"usa"}, sign=-1, empire=True), HAPPY_T, ("usa",)),
    _v("est_usa_losses_other_off", "option happiness, the USA's other estimated losses",
       E4 + " (USA: punitive options on Germany, Russia's neighbours, reparations; from Prussia 'Poland')",
       "the USA's estimated losses on options placing no Empire counter set to 0",
       _happiness_off({"usa"}, sign=-1, empire=False), HAPPY_T, ("usa",)),
    _v("est_uk_happiness_off", "option happiness, the UK's estimated column", E4,
       "the UK's estimated deltas set to 0", _happiness_off({"uk"}), HAPPY_T, ("uk",)),
    _v("est_france_happiness_off", "option happiness, France's estimated column", E4,
       "France's estimated deltas set to 0", _happiness_off({"france"}), HAPPY_T, ("france",)),
    _v("est_happiness_swap_italy_usa", "option happiness, Italy's and the USA's estimated columns", E4,
       "Italy's and the USA's estimated deltas exchanged", _happiness_swap("italy", "usa"), HAPPY_T, ("italy", "usa")),
    _v("est_flags_off", "option counters, estimated empire and naval counters",
       E5 + ": mandate/annexation -> Empire; straits, Greek gains -> Naval",
       "removed (other counters kept)", _drop_counters(_is_flag), {"option_counters", "option_naval_choice"}),
    _v("est_italy_empire_off", "option counters, Italy's Empire counters (all estimated)", E5,
       "removed", _drop_counters(lambda c: c["kind"] == "empire" and c["flag"] == "italy"), {"option_counters"}),
    _v("est_uk_empire_off", "option counters, the UK's estimated Empire counters", E5,
       "removed", _drop_counters(lambda c: c["kind"] == "empire" and c["flag"] == "uk"), {"option_counters"}),
    _v("est_france_empire_off", "option counters, France's estimated Empire counters", E5,
       "removed", _drop_counters(lambda c: c["kind"] == "empire" and c["flag"] == "france"), {"option_counters"}),
    _v("est_naval_choice_off", "option counters, estimated UK-or-USA naval counters", E5,
       "removed", _drop_counters(lambda c: c["kind"] == "naval" and c["flag"] == "uk_or_usa"), {"option_naval_choice"}),
    _v("est_stars_flat", "issue stars, estimated", "estimated (E1)",
       "every estimated star value set to 4 (the known cards' mean is 4.2)", _stars_flat, {"issue_stars"}),
    _v("est_unrest_off", "option unrest, estimated", "estimated (E3)",
       "every estimated unrest entry removed", _unrest_off, {"option_unrest"}),
    _v("est_regions_permuted", "issue regions, estimated (track regions)", "estimated (E9)",
       "the 15 estimated track regions permuted among their cards (same count per region; 12 cards move)",
       _regions_permuted, {"issue_cat"}),
    _v("est_strategy_lines_off", "strategy conditions, estimated",
       "estimated (S2; Isolationism's treaty line, Reparations' x2)",
       "every estimated condition scores 0 (an estimated Happiness x2 line removed)", _strategy_lines_off,
       {"strategy_conditions", "strategy_n_conditions"}),
    _v("est_treaty_off", "Isolationism's treaty line (Japan and Italy refuse: 6 VP)", "estimated (IT:1739 reading)",
       "vp 0", _treaty_off(True), {"strategy_conditions"}),
    _v("est_event_icons_off", "event influence icons, estimated", "estimated (I1)",
       "every estimated icon set to no", _event_icons_off, {"event_influence_icon"}),
    _v("est_uprising_col5", "uprising threshold, column 5", "estimated (rulings A-06: 4 or 5, IT:1656-1658)",
       "4 -> 5 (the other reading the example allows)", _board("uprising_thresholds", _threshold_col5),
       {"uprising_threshold"}),
    _v("est_region_die_swap", "random-region die 2 and 4", "estimated (rulings A-26)",
       "Balkans 4, Pacific 2", _board("regions", _die_swap), {"region_of_die"}),
    _v("est_demob_grey_off", "demobilize track, the grey 4-player spaces", "estimated (rulings A-24)",
       "removed (the 3-player track: 5, 4, 3, 2)", _board("demobilize_spaces", _demob_grey_off),
       {"demob_n", "demob_val"}),
    # certain fields that may favour a nation
    _v("cert_italy_happiness_off", "option happiness, Italy's stated column",
       "certain (example/public: Slovenia & Croatia x2, Ethiopia, Reconstruction)",
       "Italy's stated deltas set to 0", _happiness_off({"italy"}, "certain"), HAPPY_T, ("italy",)),
    _v("cert_happiness_off", "option happiness, all stated entries", "certain (example/rules/public)",
       "every stated happiness delta set to 0", _happiness_off(None, "certain"), HAPPY_T, PLAYERS + ("japan",)),
    _v("happiness_all_off", "option happiness, all entries", "mixed (E4 + stated)",
       "every option happiness delta set to 0", _happiness_off(None, "any"), HAPPY_T, PLAYERS + ("japan",)),
    _v("flag_vp_off", "flag counter VP (board)", "certain (EN:735)",
       "1 -> 0 VP per own-flag counter", _set_board("flag_counter_vp", 0), {"flag_counter_vp"}),
    _v("happiness_vp_off", "happiness VP by rank (board)", "certain (EN:755-757)",
       "6/4/2/0 (4p), 6/3/0 (3p) -> 0", _happiness_vp_off, {"happiness_vp"}),
    _v("treaty_off", "treaty lines (14 Points: Japan and Italy sign; Isolationism: refuse)",
       "certain (14 Points, IT:1739) + estimated (Isolationism)",
       "vp 0", _treaty_off(False), {"strategy_conditions"}),
    _v("mirror_italy_usa", "every nation-specific card field, Italy <-> USA", "mixed",
       "Italy's and the USA's happiness columns, Empire/Naval flags and treaty-line places exchanged",
       _mirror("italy", "usa"), {"option_happiness", "option_counters", "strategy_conditions"}, ("italy", "usa")),
    _v("mirror_uk_usa", "every nation-specific card field, UK <-> USA", "mixed",
       "the UK's and the USA's happiness columns and Empire/Naval flags exchanged (UK-or-USA counters stay)",
       _mirror("uk", "usa"), {"option_happiness", "option_counters"}, ("uk", "usa")),
]
BY_ID = {v.id: v for v in VARIANTS}
COMBOS = ["est_italy_gains_off+est_italy_empire_off",
          "est_usa_happiness_off+est_italy_gains_off+est_italy_empire_off"]
"""Combined variants the default run plays after the single ones."""


def variant_raw(ids: str | None) -> dict:
    """The raw shipped card set with the variants `ids` ('a+b' combines; None or 'baseline': none) applied."""
    raw = copy.deepcopy(_shipped_raw())
    if ids and ids != "baseline":
        for i in ids.split("+"):
            if i not in BY_ID:
                raise SystemExit(f"unknown variant {i!r}; known: {', '.join(BY_ID)}")
            BY_ID[i].apply(raw)
        raw["card_set"]["name"] = f"{raw['card_set']['name']}+{ids}"
    return raw


@lru_cache(maxsize=1)
def _shipped_raw() -> dict:
    return read_card_set(None)


def tables_of(raw: dict) -> np.ndarray:
    """The core's table vector of a raw card set, through the project's validator and builders."""
    validate_card_set(raw)
    t = build_tables(raw)
    raw = dict(raw)
    raw["issues_by_number"] = {r["number"]: r for r in raw["issues"]}
    cs = CardSet(raw["card_set"]["name"], raw["card_set"]["version"], "<in memory>", raw, t)
    return TB.build(cs)


@lru_cache(maxsize=64)
def variant_tables(ids: str | None) -> np.ndarray:
    return tables_of(variant_raw(ids))


def table_diff(T0: np.ndarray, T1: np.ndarray) -> dict[str, np.ndarray]:
    """T_LAYOUT name -> the indices (within that table) where T1 differs from T0."""
    out, off = {}, 0
    for name, n in TB.T_LAYOUT:
        d = np.nonzero(T0[off:off + n] != T1[off:off + n])[0]
        if len(d):
            out[name] = d
        off += n
    return out


# ----------------------------------------------------------------------------- results
def nation_rows(res: dict, num_players: int) -> list[dict]:
    g = len(res["win"])
    rows = []
    for p, nation in enumerate(PLAYER_NATIONS[num_players]):
        w = int(res["win"][:, p].sum())
        lo, hi = wilson(w, g)
        sc = res["scores"][:, p]
        rows.append({"nation": nation, "wins": w, "win_rate": w / g, "win_low": lo, "win_high": hi,
                     "mean_score": float(sc[:, 4].mean()), "issues": float(sc[:, 0].mean()),
                     "flags": float(sc[:, 1].mean()), "strategy": float(sc[:, 2].mean()),
                     "happiness_vp": float(sc[:, 3].mean()), "happiness": float(res["happy"][:, p].mean())})
    return rows


def gap_series(res: dict, num_players: int) -> np.ndarray:
    a, b = (PLAYER_NATIONS[num_players].index(x) for x in GAP[num_players])
    return (res["win"][:, a] - res["win"][:, b]).astype(np.float64)


def compare(base: dict, var: dict, num_players: int) -> dict:
    """Per nation: the change of the win rate (paired by seed); the gap and its change."""
    d = {}
    for p, nation in enumerate(PLAYER_NATIONS[num_players]):
        d[nation] = mean_interval((var["win"][:, p] - base["win"][:, p]).astype(np.float64))
    g0, g1 = gap_series(base, num_players), gap_series(var, num_players)
    return {"nation_change": d, "gap": mean_interval(g1), "gap_change": mean_interval(g1 - g0)}


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def signed(x: float) -> str:
    return f"{100 * x:+.1f}"


ITALY = PLAYERS.index("italy")


@lru_cache(maxsize=1)
def italian_options() -> tuple[tuple[int, int, str], ...]:
    """(issue index, option index, 'issue / option') of the shipped options placing an Italian Empire
    counter: the Italian claims ("To Italy", "Italian Protectorate")."""
    return tuple((r["number"] - 1, k, f"{r['name']} / {o['name']}")
                 for r in sorted(_shipped_raw()["issues"], key=lambda r: r["number"])
                 for k, o in enumerate(r.get("options") or [])
                 if any(c["kind"] == "empire" and c.get("flag") == "italy" for c in o["counters"]))


def italian_claims(res: dict) -> dict:
    """Over the issues of the Italian claims, per game: how many were settled, controlled by Italy,
    settled at the Italian option, and settled at it by Italy (4 players; Italy is seat 3)."""
    g = len(res["ctrl"])
    out = {"settled": 0, "italy_controls": 0, "italian_option": 0, "italian_option_by_italy": 0}
    for i, k, _ in italian_options():
        c, o = res["ctrl"][:, i], res["opt"][:, i]
        out["settled"] += int((c >= 0).sum())
        out["italy_controls"] += int((c == ITALY).sum())
        out["italian_option"] += int(((c >= 0) & (o == k)).sum())
        out["italian_option_by_italy"] += int(((c == ITALY) & (o == k)).sum())
    return {k: v / g for k, v in out.items()}


def run_variants(ids: list[str], players: list[int], agents: list[str], games: int, seed: int,
                 log=print) -> dict:
    """Every variant (and the baseline) for every player count and agent: rows and comparisons."""
    out = {"games": games, "seed": seed, "results": {}}
    play(variant_tables(None), players[0], agents[0], 1, seed)       # compile (or load) the loop before timing
    for n in players:
        for agent in agents:
            key = f"{n}p/{agent}"
            base = play(variant_tables(None), n, agent, games, seed)
            res = {"baseline": {"rows": nation_rows(base, n), "gap": mean_interval(gap_series(base, n)),
                                "seconds": base["seconds"], "decisions": float(base["decisions"].mean()),
                                "italian_claims": italian_claims(base)}}
            log(f"{key} baseline: {games / base['seconds']:,.0f} games/s")
            for vid in ids:
                var = play(variant_tables(vid), n, agent, games, seed)
                res[vid] = {"rows": nation_rows(var, n), **compare(base, var, n), "seconds": var["seconds"],
                            "decisions": float(var["decisions"].mean()), "italian_claims": italian_claims(var)}
            out["results"][key] = res
    return out


def format_variants(out: dict) -> str:
    lines = []
    for key, res in out["results"].items():
        n = int(key[0])
        nations = PLAYER_NATIONS[n]
        a, b = GAP[n]
        b0 = res["baseline"]
        last = out["seed"] + out["games"] - 1
        lines += ["", f"{key}, {out['games']:,} games per variant, seeds {out['seed']}..{last}:", "",
                  "| variant | " + " | ".join(nations) + f" | {a} - {b} gap | change of the gap [95%] |",
                  "|---|" + "---|" * (len(nations) + 2)]
        g = b0["gap"]
        lines.append("| baseline | " + " | ".join(f"{pct(r['win_rate'])} [{pct(r['win_low'])}, {pct(r['win_high'])}]"
                                                 for r in b0["rows"])
                     + f" | {signed(g[0])} [{signed(g[1])}, {signed(g[2])}] | |")
        order = sorted((k for k in res if k != "baseline"), key=lambda k: res[k]["gap_change"][0])
        for k in order:
            r = res[k]
            cells = [f"{pct(x['win_rate'])} ({signed(r['nation_change'][x['nation']][0])})" for x in r["rows"]]
            gc = r["gap_change"]
            lines.append(f"| {k} | " + " | ".join(cells) + f" | {signed(r['gap'][0])} | "
                         f"{signed(gc[0])} [{signed(gc[1])}, {signed(gc[2])}] |")
        lines += ["", ("baseline score breakdown (means): nation, total, issue stars, own flags, strategy, "
                       "happiness VP, final happiness")]
        for r in b0["rows"]:
            lines.append(f"  {r['nation']:<7} {r['mean_score']:5.1f} {r['issues']:5.1f} {r['flags']:5.2f} "
                         f"{r['strategy']:5.1f} {r['happiness_vp']:5.2f} {r['happiness']:5.1f}")
        if n == 4:
            lines += ["", (f"the {len(italian_options())} Italian claims (shipped options with an Italian Empire "
                           "counter), per game: settled, controlled by Italy, settled at the Italian option, by Italy:")]
            for k in ["baseline"] + [k for k in res if "italy" in k]:
                c = res[k]["italian_claims"]
                lines.append(f"  {k:<66} {c['settled']:.2f} {c['italy_controls']:.2f} {c['italian_option']:.2f} "
                             f"{c['italian_option_by_italy']:.2f}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- seating and turn order
def seatings(num_players: int) -> list[tuple[str, ...]]:
    """Every distinct seating (clockwise from the UK; rotations are the same table)."""
    rest = PLAYER_NATIONS[num_players][1:]
    return [("uk",) + p for p in permutations(rest)]


def run_seatings(players: list[int], agent: str, games: int, seed: int) -> dict:
    """Per seating: nation win rates; pooled over seatings: win rate by turn-order place (0 = the
    first player) per nation."""
    T = variant_tables(None)
    out = {}
    for n in players:
        nations = PLAYER_NATIONS[n]
        per, place_w, place_n = {}, np.zeros((n, n)), np.zeros((n, n))
        for st in seatings(n):
            r = play(T, n, agent, games, seed, list(st))
            per["-".join(st)] = nation_rows(r, n)
            order = list(parse_seating(list(st), n))
            pos = {p: order.index(p) for p in range(n)}
            for p in range(n):
                place = (pos[p] - np.array([pos[int(f)] for f in r["first"]])) % n
                for k in range(n):
                    m = place == k
                    place_n[p, k] += m.sum()
                    place_w[p, k] += r["win"][m, p].sum()
        out[f"{n}p/{agent}"] = {"seatings": per, "place_wins": place_w.tolist(), "place_games": place_n.tolist(),
                                "nations": list(nations)}
    return out


def format_seatings(out: dict, games: int) -> str:
    lines = []
    for key, r in out.items():
        nations = r["nations"]
        n = len(nations)
        lines += ["", f"{key}: every seating, {games:,} games each (win rate %, Wilson 95%):", "",
                  "| seating (clockwise) | " + " | ".join(nations) + " |", "|---|" + "---|" * n]
        for st, rows in r["seatings"].items():
            lines.append(f"| {st} | " + " | ".join(f"{pct(x['win_rate'])} [{pct(x['win_low'])}, {pct(x['win_high'])}]"
                                                  for x in rows) + " |")
        w, g = np.array(r["place_wins"]), np.array(r["place_games"])
        lines += ["", f"{key}: win rate % by place in the turn order (0 = the first player), all seatings pooled:", "",
                  "| nation | " + " | ".join(f"place {k}" for k in range(n)) + " |", "|---|" + "---|" * n]
        for p, nat in enumerate(nations):
            cells = []
            for k in range(n):
                lo, hi = wilson(w[p, k], int(g[p, k]))
                cells.append(f"{pct(w[p, k] / g[p, k])} [{pct(lo)}, {pct(hi)}]")
            lines.append(f"| {nat} | " + " | ".join(cells) + " |")
        tw, tg = w.sum(0), g.sum(0)
        lines.append("| all | " + " | ".join(f"{pct(tw[k] / tg[k])} (of {int(tg[k]):,})" for k in range(n)) + " |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- stakes
def stakes(raw: dict | None = None) -> list[dict]:
    """Per nation: options that change its happiness (losses, gains, their sums) and options that
    carry its flag, estimated and stated separately; plus its mean happiness change per option
    summed over the issues (an issue settled at a random option)."""
    raw = raw or _shipped_raw()
    rows = []
    for nat in PLAYERS + ("japan",):
        r = {"nation": nat}
        for kind in ("estimated", "certain"):
            loss = [d for _, o in _options(raw) for n, d in o["happiness"].items()
                    if n == nat and d < 0 and _estimated(o["provenance"]["happiness"]) == (kind == "estimated")]
            gain = [d for _, o in _options(raw) for n, d in o["happiness"].items()
                    if n == nat and d > 0 and _estimated(o["provenance"]["happiness"]) == (kind == "estimated")]
            flags = sum(c["count"] for _, o in _options(raw) for c in o["counters"]
                        if c.get("flag") == nat and _estimated(o["provenance"]["counters"]) == (kind == "estimated"))
            r[kind] = {"losses": len(loss), "loss_sum": sum(loss), "gains": len(gain), "gain_sum": sum(gain),
                       "flags": flags}
        r["issues_with_stake"] = sum(1 for i in raw["issues"]
                                     if any(nat in o["happiness"] for o in i.get("options") or []))
        r["mean_per_option_sum"] = sum(sum(o["happiness"].get(nat, 0) for o in i["options"]) / len(i["options"])
                                       for i in raw["issues"] if i.get("options"))
        rows.append(r)
    return rows


def format_stakes(rows: list[dict]) -> str:
    lines = [("| nation | issues with a stake | estimated: losses (sum) | estimated: gains (sum) | "
              "stated: losses (sum) | stated: gains (sum) | own-flag counters est. / stated | "
              "mean happiness change of a random option, summed over issues |"),
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        e, c = r["estimated"], r["certain"]
        lines.append(f"| {r['nation']} | {r['issues_with_stake']} | {e['losses']} ({e['loss_sum']}) | {e['gains']} "
                     f"(+{e['gain_sum']}) | {c['losses']} ({c['loss_sum']}) | {c['gains']} (+{c['gain_sum']}) | "
                     f"{e['flags']} / {c['flags']} | {r['mean_per_option_sum']:+.1f} |")
    lines.append("\n(UK-or-USA naval counters: "
                 + str(sum(c['count'] for _, o in _options(_shipped_raw()) for c in o['counters']
                           if c.get('flag') == 'uk_or_usa')) + ", the chooser's flag)")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- command line
def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--players", type=int, nargs="+", default=[4, 3], choices=(3, 4))
    ap.add_argument("--agents", nargs="+", default=["rulebot"], choices=POLICY_NAMES)
    ap.add_argument("--variants", nargs="*", default=None,
                    help="variant ids ('a+b' combines); default every variant; none: only the baseline")
    ap.add_argument("--seatings", action="store_true", help="also play every seating (shipped cards, first agent)")
    ap.add_argument("--stakes", action="store_true", help="also print each nation's stakes in the card data")
    ap.add_argument("--list", action="store_true", help="list the variants and exit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="write every figure to this JSON file")
    args = ap.parse_args(argv)
    if args.list:
        for v in VARIANTS:
            print(f"{v.id:<30} {v.provenance:<40} {v.field}: {v.change}")
        return {}
    ids = [v.id for v in VARIANTS] + COMBOS if args.variants is None else args.variants
    t0 = time.perf_counter()
    result = {"argv": sys.argv[1:] if argv is None else list(argv)}
    if args.stakes:
        result["stakes"] = stakes()
        print(format_stakes(result["stakes"]))
    out = run_variants(ids, args.players, args.agents, args.games, args.seed)
    result.update(out)
    print(format_variants(out))
    if args.seatings:
        result["seatings"] = run_seatings(args.players, args.agents[0], args.games, args.seed)
        print(format_seatings(result["seatings"], args.games))
    result["seconds"] = time.perf_counter() - t0
    print(f"\n({result['seconds']:.0f} s in all)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    # numba's cache of play_seated names its module: run the code as `nation_drivers` (the tests
    # load it under that name too), never as __main__
    import nation_drivers
    nation_drivers.main()
