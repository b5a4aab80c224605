"""Fits the estimated card fields to the rulebooks' worked examples: which values make every stated figure hold?

Search over the estimated card fields (and the two rules readings) that the worked examples
constrain: which values make every stated figure hold? (issue 8, section 1)

Each *component* is a few fields linked by the figures the examples state; components share no
field, so each is searched exhaustively on its own (the largest has 5 fields, a few thousand
assignments). An assignment is ranked by

1. the weighted count of the stated lines it leaves unmet (a rules or card line weighs 2, an
   example line 1: rules text > worked example, shared rulings' precedence);
2. the number of fields it changes from the shipped data;
3. the total size of those changes;
4. the order of the domains (deterministic tie-break).

Domains encode the estimation rules of `v1919_env/cards/data/README.md` (E3/E4): e.g. the USA never
loses Happiness on an independence option. Run it to print, per component, the shipped values, the
best assignment and the lines it leaves unmet:

    .venv/bin/python tools/estimate_search.py          # exits 1 if the shipped data is not a best
    .venv/bin/python tools/estimate_search.py --json

Lines are IT:line of /work/shared/rules/000_d4f6b35e6dd1bfef.txt (the Player's Manual example
IT:1250-1787 and the solitaire example IT:1789-2085). tests/examples/test_examples_figures.py checks that
the shipped data is a best assignment of every component and replays the figures in the engine.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

DATA = Path(__file__).resolve().parents[1] / "v1919_env" / "cards" / "data" / "standard"


def load_data(folder: Path = DATA) -> dict:
    """The card set's issues, events and strategies by name."""
    return {sec: {r["name"]: r for r in json.loads((folder / f"{sec}.json").read_text())}
            for sec in ("issues", "events", "strategies")}


def option_field(issue: str, option: str, kind: str, key: str):
    """Reader of one number of an issue option: kind 'happiness' (key a nation) or 'unrest'
    (key a region); a missing key is 0."""
    def read(d):
        opt = next(o for o in d["issues"][issue]["options"] if o["name"] == option)
        return opt[kind].get(key, 0)
    return read


def nikola_reading(d):
    """The Civil War of Nikola I Petrovic-Njegos as data: 'unrest+N' or 'keg'."""
    (eff,) = d["events"]["Nikola I Petrovic-Njegos"]["crisis"]["effects"]
    return "keg" if eff["op"] == "powder_keg" else f"unrest+{eff['delta']}"


def league_region_reading(_d):
    """Ruling P-03 as the engine implements it (v1919_env/core/board.py settled_issue_region)."""
    return "europe"


def regions_reading(d):
    """Which strategy scores the regions at <=3 Unrest: 'H1' Global Trade, 'H2' Outlawing War."""
    ow = [c for c in d["strategies"]["Outlawing War"]["conditions"] if c["kind"] == "regions_unrest"][0]
    return "H2" if ow["compare"] == "le3" else "H1"


@dataclass(frozen=True)
class Field:
    name: str
    domain: tuple
    read: Callable          # data -> shipped value
    why: str                # where the domain comes from


@dataclass(frozen=True)
class Line:
    source: str             # IT:line
    text: str
    holds: Callable         # (values: dict, fixed: dict) -> bool
    weight: int = 1         # 2 for a rules/card line, 1 for an example line


@dataclass(frozen=True)
class Component:
    name: str
    fields: tuple
    fixed: dict             # name -> reader of a stated (non-estimated) value the lines use
    lines: tuple


H = range(-2, 2)            # E4: an option moves a nation's Happiness by -2..+1 (-3 only a core claim)
NOT_NEG = range(0, 2)
NOT_POS = range(-2, 1)

# ------------------------------------------------------------------ the solitaire example (IT:1789-2085)
# The faction's Happiness, in the order of the text: Anschluss's conference -2 for all (IT:1923);
# Korea 'Independence' (IT:1918); South West Africa 'Annexation' (IT:1939); Widows' Pensions 'No'
# (IT:1976); Negotiations 'Don't Offer' (IT:1988); the UK wins the unsettled Negotiations with 3
# units, -3 (IT:2008-2010), and picks 'Don't Offer' again (IT:2010); Slovenia & Croatia 'Both'
# (IT:2024); Bessarabia 'Romania' (IT:2038); Feisal's crisis, UK -2, mutiny at 10 (IT:2045-2047).
# USA: Vietnam 'Independence' (IT:2052); France re-takes Widows' Pensions and picks 'Yes'
# (USA -1; IT:2057-2060 France 11 = 5 + WP 5 + its German Reparations counter); the USA deploys
# in column 7, -1, "ora a 11" (IT:2073).
SOLO = {
    "K": ("Korea", "Independence"), "SWA": ("South West Africa", "Annexation to South Africa"),
    "WPN": ("Widows' Pensions", "No"), "NDO": ("Negotiations with Russia", "Don't Offer"),
    "SCB": ("Slovenia & Croatia", "Both Independent"), "BR": ("Bessarabia", "Romania"),
    "VI": ("Vietnam", "Independence"), "WPY": ("Widows' Pensions", "Yes"),
}


def _h(key, nation, domain, why):
    return Field(f"{SOLO[key][0]} / {SOLO[key][1]} / happiness {nation}", tuple(domain),
                 option_field(*SOLO[key], "happiness", nation), why)


def _uk_path(v, f):
    """UK Happiness after each step of the solitaire example, up to Feisal's crisis."""
    g = lambda k: v.get(f"{SOLO[k][0]} / {SOLO[k][1]} / happiness uk", f.get(k))  # noqa: E731
    steps = [-2, g("K"), g("SWA"), g("WPN"), g("NDO"), -3, g("NDO"), g("SCB"), g("BR"), -2]
    out, h = [], 20
    for d in steps:
        h = min(20, h + d)
        out.append(h)
    return out


def _usa_path(v, f):
    g = lambda k: v.get(f"{SOLO[k][0]} / {SOLO[k][1]} / happiness usa", f.get(k))  # noqa: E731
    steps = [-2, g("K"), g("SWA"), g("WPN"), g("NDO"), g("NDO"), g("SCB"), g("BR"), g("VI"), g("WPY"), -1]
    out, h = [], 20
    for d in steps:
        h = min(20, h + d)
        out.append(h)
    return out


SOLO_UK = Component(
    "solitaire_uk_happiness",
    (_h("K", "uk", H, "E4"), _h("SWA", "uk", range(0, 3), "E4: the UK's dominion claim, it never loses"),
     _h("WPN", "uk", H, "E4"), _h("NDO", "uk", H, "E4"), _h("BR", "uk", H, "E4")),
    {"SCB": option_field(*SOLO["SCB"], "happiness", "uk")},
    (Line("IT:2045-2047", "Feisal's -2 brings the UK to 10: a mutiny", lambda v, f: _uk_path(v, f)[-1] == 10),
     Line("IT:1789-2045", "no UK mutiny (Happiness 10 or less) before Feisal's crisis",
          lambda v, f: min(_uk_path(v, f)[:-1]) > 10)),
)

SOLO_USA = Component(
    "solitaire_usa_happiness",
    (_h("K", "usa", NOT_NEG, "E4: the USA never loses on an independence option"),
     _h("SWA", "usa", NOT_POS, "E4: annexation costs the USA"),
     _h("WPN", "usa", NOT_NEG, "E4: the creditor loses nothing on lower reparations"),
     _h("NDO", "usa", H, "E4"), _h("BR", "usa", NOT_POS, "E4: a transfer of land costs the USA 0..2")),
    {"SCB": option_field(*SOLO["SCB"], "happiness", "usa"), "VI": option_field(*SOLO["VI"], "happiness", "usa"),
     "WPY": option_field(*SOLO["WPY"], "happiness", "usa")},
    (Line("IT:2073", "the USA deploys in column 7: -1, 'ora a 11', no mutiny", lambda v, f: _usa_path(v, f)[-1] == 11),
     Line("IT:1789-2073", "no USA mutiny (10 or less) on the way",
          lambda v, f: min(_usa_path(v, f)) > 10)),
)


def _solo_tracks(v, f):
    """(Europe, Pacific, the others' highest) at Ataturk's check (IT:1996), and (Pacific, the
    others' highest) at Mordacq's (IT:2029), from unrest 1 everywhere (EN:206)."""
    pac = 1 + v["Korea / Independence / unrest pacific"]
    pac_marker_before_keg = pac
    pac = max(pac, 2)                                   # Ho Chi Minh's keg to column 1 (IT:1989)
    dont_offer = v["Negotiations with Russia / Don't Offer / unrest europe"]
    eu = 1 + f["anschluss_no_eu"] + v["Widows' Pensions / No / unrest europe"] + dont_offer
    others = max(1 + f["lawrence_me"], 1 + f["swa_annex_af"], 1)
    eu_after = 2 + dont_offer                 # the uprising's reset, then 'Don't Offer' again
    return pac_marker_before_keg, eu, pac, others, eu_after


def _u(issue, option, region, domain, why):
    return Field(f"{issue} / {option} / unrest {region}", tuple(domain),
                 option_field(issue, option, "unrest", region), why)


SOLO_UNREST = Component(
    "solitaire_unrest",
    (_u("Korea", "Independence", "pacific", range(0, 4), "E3: a new state +0..3"),
     _u("Widows' Pensions", "No", "europe", range(0, 3), "E3"),
     _u("Negotiations with Russia", "Don't Offer", "europe", range(0, 3), "E3")),
    {"anschluss_no_eu": option_field("Anschluss", "No", "unrest", "europe"),
     "swa_annex_af": option_field("South West Africa", "Annexation to South Africa", "unrest", "africa"),
     "lawrence_me": lambda d: 1},                        # T.E. Lawrence's conference, ME +1 (IT:1981)
    (Line("IT:1920", "Korea 'Independence': 'nessun effetto al malcontento'",
          lambda v, f: v["Korea / Independence / unrest pacific"] == 0),
     Line("IT:1989-1990", "Ho Chi Minh's keg moves the Pacific Unrest into column two",
          lambda v, f: _solo_tracks(v, f)[0] == 1),
     Line("IT:1996", "Ataturk: Europe and the Pacific tie for the highest Unrest",
          lambda v, f: (lambda t: t[1] == t[2] > t[3])(_solo_tracks(v, f))),
     Line("IT:2029", "Mordacq checks the Pacific (the highest)",
          lambda v, f: (lambda t: t[2] > max(t[4], t[3]))(_solo_tracks(v, f))),
     Line("IT:2073", "the Pacific has entered column 4", lambda v, f: _solo_tracks(v, f)[2] == 4)),
)

# ------------------------------------------------------------------ the Player's Manual (IT:1250-1787)
# Europe from column 1: French Occupation +1 (IT:1417); Jan Smuts's crisis after Disarmament (a
# League issue; IT:1471); Petrovic-Njegos's Civil War, die 1 = Europe (IT:1520-1522); Banat 'To
# Romania' +1 (IT:1634); Hymans's conference +2 (IT:1634-1635). Pacific: Murdoch +2 (IT:1441),
# Billy Hughes +2 (IT:1518-1519) = 5.


def _europe(v):
    eu = 1 + 1
    before_smuts = eu
    if v["P-03 region of a League issue"] == "europe":
        eu -= 1
    after_smuts, before = eu, eu
    nik = v["Nikola I Petrovic-Njegos crisis"]
    eu = max(eu, 2) if nik == "keg" else eu + int(nik[-1])
    return before_smuts, after_smuts, before, eu, eu + 1 + 2


MANUAL_EUROPE = Component(
    "europe_r4_r11",
    (Field("P-03 region of a League issue", ("nothing", "europe"), league_region_reading, "ruling P-03"),
     Field("Nikola I Petrovic-Njegos crisis", ("unrest+1", "unrest+2", "keg"), nikola_reading,
           "IT:2736 (card, garbled) v IT:1520 (example)")),
    {},
    (Line("IT:1471", "Jan Smuts removes 1 Unrest in Europe", lambda v, f: (lambda e: e[1] == e[0] - 1)(_europe(v))),
     Line("IT:1520-1521", "the Civil War adds a Powder Keg",
          lambda v, f: v["Nikola I Petrovic-Njegos crisis"] == "keg"),
     Line("IT:1522", "which moves the Unrest counter one space right",
          lambda v, f: (lambda e: e[3] == e[2] + 1)(_europe(v))),
     Line("IT:1635; IT:1656", "Europe ties the Pacific (5) for Edward House's check", lambda v, f: _europe(v)[4] == 5),
     Line("IT:2734-2736", "card: 'Aggiungere ? Malcontento ad una Regione a caso'",
          lambda v, f: v["Nikola I Petrovic-Njegos crisis"] != "keg", weight=2)),
)


def _final_regions(v):
    """Final Unrest (card-inventory Appendix A, every step stated) with Africa from Ethiopia."""
    u = v["Ethiopia / UK Mandate / unrest africa"]
    return {"europe": 6, "balkans": 3, "middle_east": 4, "pacific": 3, "africa": 2 + u}


def _region_vp(v, card):
    reading = v["regions strategy reading"]
    le3 = (card == "Global Trade") == (reading == "H1")
    vp = 1 if card == "Global Trade" else 2
    n = sum(1 for x in _final_regions(v).values() if (x <= 3 if le3 else x >= 4))
    return vp * n


SCORING_REGIONS = Component(
    "scoring_regions",
    (Field("regions strategy reading", ("H1", "H2"), regions_reading,
           "H1: Global Trade <=3 @1, Outlawing War >=4 @2; H2 the other way round"),
     _u("Ethiopia", "UK Mandate", "africa", range(0, 4), "E3: a mandate +1..2")),
    {},
    (Line("IT:1762", "Italy (Global Trade): '3 VP (3 regioni)'", lambda v, f: _region_vp(v, "Global Trade") == 3),
     Line("IT:1784", "France (Outlawing War): '4 VP (2 Regioni)'", lambda v, f: _region_vp(v, "Outlawing War") == 4),
     Line("IT:1570-1574", "Hymans's check in Africa (column 3 + Ethiopia) raises an Uprising on some roll",
          lambda v, f: 3 + v["Ethiopia / UK Mandate / unrest africa"] >= 3),
     Line("IT:1581-1583", "Nansen: the Pacific (5) is the highest",
          lambda v, f: 2 + v["Ethiopia / UK Mandate / unrest africa"] < 5),
     Line("IT:1656", "Edward House: Europe and the Pacific (5) tie for the highest",
          lambda v, f: 2 + v["Ethiopia / UK Mandate / unrest africa"] < 5),
     Line("IT:3015-3019", "scan: 'Per Regione <=3' follows the Outlawing War (Kellogg-Briand) text, as each "
          "card's fragments follow its description (Reparations, National Growth, Regional Dominance)",
          lambda v, f: v["regions strategy reading"] == "H2")),
)


def _mh(issue, option, nation):
    return Field(f"{issue} / {option} / happiness {nation}", tuple(range(-3, 1)),
                 option_field(issue, option, "happiness", nation), "E4/E7: a loss of 0..3")


MANUAL_EARLY_HAPPINESS = Component(
    "manual_r2_r6_happiness",
    (_mh("Rheinland", "French Occupation", "uk"), _mh("Women's Suffrage", "Exclude", "uk"),
     _mh("Disarmament", "Limited", "uk"), _mh("Women's Suffrage", "Exclude", "france"),
     _mh("Disarmament", "Limited", "france"), _mh("Disarmament", "Limited", "italy"),
     _mh("Women's Suffrage", "Exclude", "italy")),
    {"ct_uk": option_field("Constantinople", "To Turkey", "happiness", "uk"),
     "fo_fr": option_field("Rheinland", "French Occupation", "happiness", "france"),
     "fo_it": option_field("Rheinland", "French Occupation", "happiness", "italy")},
    (Line("IT:1381; IT:1511", "UK 18 after the Armenia bid, 14 before demobilizing in R6",
          lambda v, f: 18 + v["Rheinland / French Occupation / happiness uk"]
          + v["Women's Suffrage / Exclude / happiness uk"] + v["Disarmament / Limited / happiness uk"] + f["ct_uk"] == 14),
     Line("IT:1481; IT:1487", "France 17 before deploying in R4 (-4, then 'da 13 a 15')",
          lambda v, f: 20 + f["fo_fr"] + v["Women's Suffrage / Exclude / happiness france"]
          + v["Disarmament / Limited / happiness france"] == 17),
     Line("IT:1465", "Disarmament 'Limited' 'causa Infelicita agli altri tre giocatori'",
          lambda v, f: all(v[f"Disarmament / Limited / happiness {n}"] < 0 for n in ("uk", "france", "italy"))),
     Line("IT:1518", "Italy 19 before Slovenia & Croatia ('da 19 a 20')",
          lambda v, f: 20 + f["fo_it"] + v["Disarmament / Limited / happiness italy"]
          + v["Women's Suffrage / Exclude / happiness italy"] == 19)),
)

# ------------------------------------------------------------------ the solitaire Issue Values (EN:838-854)
# Faction strategy tokens (EN:844-848): France Containment, German Economy, French Empire; UK Fleet,
# Anti-Bolshevik, UK Empire; USA Self-Determination, Industry, USA Fleet. 'German Economy' is the
# German Reparations counter (the bot's Anschluss 'No', IT:1900-1902).
FACTION_TOKENS = {"france": {"german_containment", "german_reparations", "empire:france"},
                  "uk": {"bolshevik_containment", "empire:uk", "naval:uk"},
                  "usa": {"self_determination", "industrial_growth", "naval:usa"}}
ONE_COUNTER = ("none", "german_containment", "german_reparations", "industrial_growth", "self_determination",
               "bolshevik_containment", "empire:uk", "empire:france")


def counters_field(issue: str, option: str):
    """Reader of an option's counters as one token name ('none', 'kind' or 'kind:flag')."""
    def read(d):
        opt = next(o for o in d["issues"][issue]["options"] if o["name"] == option)
        if not opt["counters"]:
            return "none"
        (c,) = opt["counters"]
        assert c["count"] == 1, "one counter"
        return f"{c['kind']}:{c['flag']}" if c["kind"] in ("empire", "naval") else c["kind"]
    return read


def _rheinland_piv(v, f):
    """Potential Issue Value of the Rheinland (6 stars) for each faction: its best option."""
    opts = [f["occupation"], v["Rheinland / Rhenish Republic / counters"], v["Rheinland / Remains German / counters"]]
    return {n: 6 + max(int(o in toks) for o in opts) for n, toks in FACTION_TOKENS.items()}


RHEINLAND_PIV = Component(
    "rheinland_piv",
    (Field("Rheinland / Rhenish Republic / counters", ONE_COUNTER, counters_field("Rheinland", "Rhenish Republic"),
           "E5: one counter or none"),
     Field("Rheinland / Remains German / counters", ONE_COUNTER, counters_field("Rheinland", "Remains German"),
           "E5: one counter or none")),
    {"occupation": counters_field("Rheinland", "French Occupation")},   # none: the end census (IT:1734-1784)
    (Line("EN:854", "the RHEINLAND has a PIV of 7 for the USA and France, and 6 for the UK",
          lambda v, f: _rheinland_piv(v, f) == {"france": 7, "uk": 6, "usa": 7}),),
)

COMPONENTS = (SOLO_UK, SOLO_USA, SOLO_UNREST, MANUAL_EUROPE, SCORING_REGIONS, MANUAL_EARLY_HAPPINESS, RHEINLAND_PIV)


# ------------------------------------------------------------------ the search
def _distance(a, b) -> int:
    return abs(a - b) if isinstance(a, int) and isinstance(b, int) else int(a != b)


def evaluate(comp: Component, values: dict, fixed: dict) -> list:
    """The lines of `comp` that `values` leave unmet."""
    return [ln for ln in comp.lines if not ln.holds(values, fixed)]


def search(comp: Component, data: dict | None = None) -> dict:
    """Exhaustive search of one component: the shipped values, the best assignment and both's
    unmet lines."""
    data = load_data() if data is None else data
    shipped = {f.name: f.read(data) for f in comp.fields}
    fixed = {k: r(data) for k, r in comp.fixed.items()}
    best, best_key = None, None
    for combo in itertools.product(*(f.domain for f in comp.fields)):
        v = dict(zip((f.name for f in comp.fields), combo))
        unmet = evaluate(comp, v, fixed)
        changed = [n for n in v if v[n] != shipped[n]]
        key = (sum(ln.weight for ln in unmet), len(changed), sum(_distance(v[n], shipped[n]) for n in changed))
        if best_key is None or key < best_key:
            best, best_key = v, key
    return {"component": comp.name, "shipped": shipped, "best": best,
            "best_unmet": [(ln.source, ln.text) for ln in evaluate(comp, best, fixed)],
            "shipped_unmet": [(ln.source, ln.text) for ln in evaluate(comp, shipped, fixed)],
            "shipped_is_best": best == shipped}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    data = load_data()
    results = [search(c, data) for c in COMPONENTS]
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            print(f"== {r['component']}: shipped {'is' if r['shipped_is_best'] else 'is NOT'} a best assignment")
            for name, val in r["best"].items():
                mark = "" if val == r["shipped"][name] else f"   (shipped {r['shipped'][name]})"
                print(f"   {name} = {val}{mark}")
            for src, text in r["best_unmet"]:
                print(f"   unmet: {src} {text}")
    return 0 if all(r["shipped_is_best"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
