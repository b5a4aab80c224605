"""The solitaire example of play ("Sauron va a Parigi", IT:1789-2085) as a machine-usable script.

The Player's Manual plays 27 faction turns of a solitaire game (turn order UK, France, USA; the
player starts as the USA, IT:1860-1862) and cites cards by number ("Legenda: (#) = numero di
carta", IT:1871). This module holds:

- the setup: `setup_position()` in `Game.from_dict` vocabulary (START_*, the deck orders
  ISSUE_DRAWS and EVENT_DRAWS, how each is known in SETUP_NOTES), card names of the shipped card
  set; `CITED_NUMBERS` maps every number the text cites to the name used here, checked against
  the card data by tests/examples/test_solitaire_example.py;
- `TURNS`: every faction turn in order: who plays it (bot or player), each decision as a `Step`
  and the state the text states after it (`expect`);
- `replay_steps()`: the steps flattened in order, for a replay driver.

Every `Step` says how it is determined (`basis`):

- RULE: the solitaire rules force it (a bot's priority, its minimum placement, its option, a
  forced draw): the engine must do it by itself; a replay only checks it.
- TEXT: a choice the rules leave to the player (for its own faction, or "player's choice" for a
  bot, EN:910) that the text states: a replay makes it.
- INFERRED: a choice the text does not state but its figures fix (named in `why`).
- FREE: a choice or die the text leaves open; any value in `why` fits the text: a replay picks it.
- SLIP: the text states something the rules (or the text's own figures) rule out; `why` says
  what and what the rules give. A replay follows the rules, checks the engine does, and (where
  the text goes on from its slip) continues from an amended position: `amend` names the edit.

State figures (`expect`) are what the text prints (strengths "UK 6, France 5, US 3", the
player's VP, happiness, unrest columns) plus the cube counts its placements fix. Happiness and
influence follow the shipped card data (whose option effects were fitted to this example). A
turn's `expect` holds when the replay next waits for the player after the turn's steps: the bot
turns that follow and ask the player nothing have run by then (turn 13's figures include France's
settle of turn 14, the text's "US 9, Francia 9, ed UK 8" of IT:1999).

`replay()` plays the script in the engine (`start()` builds the setup with `Game.from_dict`):
it takes the player's decisions (TEXT, INFERRED, FREE steps; `play_step`), queues each turn's
dice, applies the three amendments the text's slips need (`AMENDMENTS`) and checks every turn's
`expect` (`check`); it raises `Divergence` naming the turn, the step and its citation at the first
difference.
"""
from __future__ import annotations

from dataclasses import dataclass, field

RULE, TEXT, INFERRED, FREE, SLIP = "rule", "text", "inferred", "free", "slip"
BASES = (RULE, TEXT, INFERRED, FREE, SLIP)

GE = "GAME END (Rush to the Finish)"

# ------------------------------------------------------------------------------ the cards cited
CITED_NUMBERS = {
    "issues": {
        11: "Slovenia & Croatia", 29: "South West Africa", 12: "Anschluss", 46: "Korea",
        52: "Widows' Pensions", 38: "Military Intervention", 26: "Negotiations with Russia", 16: "Thrace",
        20: "Bessarabia", 8: "Inter-Allied Debt", 17: "Macedonia", 7: "Disarmament", 49: "Vietnam",
        51: "Reconstruction", 50: "Indemnity", 27: "Byelorussia", 2: "Prussia", 23: "Dobruja",
    },
    "events": {
        13: "Henry Cabot Lodge", 16: "Ho Chi Minh", 37: "Samuel Gompers", 40: "T.E. Lawrence",
        44: "Wellington Koo", 45: "Winston Churchill", 11: "Henri Mordacq", 33: "Prince Feisal",
    },
}
"""Card numbers as the text cites them (IT:1875-2064) -> the card data's names."""

UNNUMBERED = {"issues": ["Arabia", "Somalia"], "events": ["Mustafa Kemal Ataturk", "Millicent Fawcett"]}
"""Cards the text names without a number ("Arabia" IT:2027, "Somalia" IT:2064, "Attaturk" IT:1996,
"Millicent Fawcett" IT:2066)."""

# ------------------------------------------------------------------------------ the setup
ISSUE_DRAWS = [
    "Widows' Pensions", "Military Intervention",      # turn 5, France's settle (IT:1912-1913)
    "Negotiations with Russia", "Thrace",             # turn 6, the player draws two (IT:1927)
    "Bessarabia", "Inter-Allied Debt",                # turn 7, UK's settle (IT:1955)
    "Macedonia", "Disarmament",                       # turn 12, the player draws two (IT:1976)
    "Vietnam", "Reconstruction",                      # turn 14, France's settle (IT:1994)
    "Indemnity", "Arabia",                            # turn 19, the player draws two (IT:2027)
    "Byelorussia", "Prussia",                         # turn 22, the player draws two (IT:2043)
    "Somalia", "Dobruja",                             # turn 24, the USA's settle (IT:2064)
]
"""The issue deck from the top, in the order the text draws it. The order inside a pair the
player draws (and keeps one of) is not stated: the first named is put first."""

EVENT_DRAWS = ["Ho Chi Minh", "T.E. Lawrence", "Wellington Koo", "Winston Churchill", "Mustafa Kemal Ataturk",
               "Henri Mordacq", "Prince Feisal", "Millicent Fawcett"]
"""The event deck from the top: the crisis of each settle in turn (IT:1915, 1929, 1957, 1977,
1996, 2029, 2045, 2066)."""

START_TABLE = ["South West Africa", "Anschluss"]
START_WAITING = ["Slovenia & Croatia", "Korea"]
START_EVENT = "Vladimir Lenin"
START_EVENT_WAITING = ["Henry Cabot Lodge", "Samuel Gompers"]
SETUP_DISCARD = "Kiel Canal"

SETUP_NOTES = {
    "table": "INFERRED: France settles Anschluss on turn 5 and the UK settles South West Africa on turn 7; "
             "neither is ever moved to the table (the moves are listed: IT:1909, 1925, 1953, 1975, 1992, 2025, "
             "2041, 2062), so both start there",
    "waiting_room": "INFERRED: Slovenia & Croatia and Korea get cubes on turns 1-3 and come to the table later "
                    "(IT:1909, 1992): they start in the two waiting-room spaces (EN:864); their order is FREE",
    "event": "INFERRED: the table event's conference makes 'all factions reduce their happiness by two' "
             "(IT:1907), a choice each faction makes; of the cards not otherwise in the example only "
             "Vladimir Lenin (25: 'each player either performs a Demobilize action or reduces Happiness by 2') "
             "fits",
    "event_waiting": "INFERRED: Henry Cabot Lodge (13) is moved to the table on turn 5 (IT:1909) and Samuel "
                     "Gompers (37) on turn 6 (IT:1925) without being drawn: both start waiting",
    "discard": "FREE: the 3-player setup deals one issue to the discards (EN:170); the text never names it. "
               "With it, 27 issues lie above GAME END and 11 remain after the example's 16 draws, the text's "
               "'circa 11' (IT:2079)",
    "seating": "TEXT: turn order UK, France, USA; the player starts as the last faction, the USA (IT:1860-1862)",
}


def issue_deck(all_issues: list[str]) -> list[str]:
    """The full issue deck, bottom first (the from_dict order): 20 issues under GAME END
    (EN:862), GAME END, the issues the example never draws, then ISSUE_DRAWS (top last)."""
    used = set(START_TABLE) | set(START_WAITING) | set(ISSUE_DRAWS) | {SETUP_DISCARD, GE}
    rest = [i for i in all_issues if i not in used]
    below, above = rest[:20], rest[20:]
    return below + [GE] + above + list(reversed(ISSUE_DRAWS))


def event_deck(all_events: list[str]) -> list[str]:
    """The full event deck, bottom first, EVENT_DRAWS on top."""
    used = {START_EVENT, *START_EVENT_WAITING, *EVENT_DRAWS}
    return [e for e in all_events if e not in used] + list(reversed(EVENT_DRAWS))


def setup_position(all_issues: list[str], all_events: list[str]) -> dict:
    """The starting position in from_dict vocabulary, without the solitaire section (whose field
    names the core defines): three factions UK, France, USA at happiness 20, 15 cubes and 3 units
    each, unrest in column 1 everywhere (EN:168-206, 860-872)."""
    return {
        "seating": ["uk", "france", "usa"], "first_player": "uk", "active": "uk",
        "table": [{"issue": i} for i in START_TABLE],
        "waiting_room": [{"issue": i} for i in START_WAITING],
        "issue_discards": [SETUP_DISCARD],
        "issue_deck": issue_deck(all_issues),
        "events": {"table": {"event": START_EVENT, "cube": None}, "waiting_room": list(START_EVENT_WAITING),
                   "deck": event_deck(all_events), "discards": []},
    }


# ------------------------------------------------------------------------------ the steps
@dataclass(frozen=True)
class Step:
    """One decision or engine action. kind: vp (start-of-turn VP check; gained=bool), place
    (cubes: {issue: n}, n the cubes placed), settle (issue), option (issue, option), conference
    (event, choice), advance_issue (issue), advance_event (event), draw (keep, discard; a bot's
    draw: top card to the waiting room, next to the discards), reclaim, end_turn (no military
    action), crisis (event, effect), uprising (region, unsettled or None), switch (faction),
    unsettle (issue), bid (faction, units, influence), mutiny (faction), deploy (faction, region,
    column), demobilize (faction, source), military (a bot's military check; see `why`).
    Optional params: text_says (what the text prints where it differs), rule_gives (what the rules
    give at a SLIP), amend (the position edit a replay makes to go on as the text does)."""

    kind: str
    basis: str
    cite: str
    params: dict = field(default_factory=dict)
    why: str = ""

    def __post_init__(self):
        if self.basis not in BASES:
            raise ValueError(f"basis must be one of {BASES}, got {self.basis!r}")


def S(kind, basis, cite, why="", **params) -> Step:
    return Step(kind, basis, cite, params, why)


@dataclass(frozen=True)
class Turn:
    """One faction turn: n counts from 1; by is 'bot' or 'player'."""

    n: int
    faction: str
    by: str
    steps: tuple
    expect: dict = field(default_factory=dict)


T = Turn
TURNS: list[Turn] = [
    # ---------------------------------------------------------------- round 1 (IT:1864-1884)
    T(1, "uk", "bot", (
        S("place", TEXT, "IT:1865-1869, 1875", "no military or settle applies (EN:896-908); the player picks "
          "the two issues, the bot places the minimum to lead: 1 on an empty issue",
          cubes={"Slovenia & Croatia": 1, "South West Africa": 1}),
    ), {"cubes": {"Slovenia & Croatia": {"uk": 1}, "South West Africa": {"uk": 1}}}),
    T(2, "france", "bot", (
        S("place", TEXT, "IT:1876", "issues: the player's pick; amounts: the minimum to lead (2 over the UK's 1)",
          cubes={"Slovenia & Croatia": 2, "Anschluss": 1}),
    ), {"cubes": {"Slovenia & Croatia": {"uk": 1, "france": 2}, "Anschluss": {"france": 1}}}),
    T(3, "usa", "player", (
        S("vp", RULE, "IT:1881", "no faction controls an issue yet (EN:882)", gained=False),
        S("place", TEXT, "IT:1883", cubes={"Korea": 1, "South West Africa": 2}),
        S("end_turn", FREE, "IT:1883", "the text names no military action"),
    ), {"cubes": {"Korea": {"usa": 1}, "South West Africa": {"uk": 1, "usa": 2}},
        "influence": {"uk": (13, 0), "france": (12, 0), "usa": (12, 0)}}),
    # ---------------------------------------------------------------- round 2 (IT:1885-1931)
    T(4, "uk", "bot", (
        S("place", TEXT, "IT:1887", "the UK leads nothing on the table; the minimum to lead is 2 on each (3 > 2)",
          cubes={"South West Africa": 2, "Slovenia & Croatia": 2}),
    ), {"cubes": {"South West Africa": {"uk": 3, "usa": 2}, "Slovenia & Croatia": {"uk": 3, "france": 2}}}),
    T(5, "france", "bot", (
        S("settle", RULE, "IT:1889-1891", "France leads Anschluss on the table (EN:905)", issue="Anschluss"),
        S("option", RULE, "IT:1901-1903", "highest PIV for France: No puts a German Reparations (German economy) "
          "counter, 5 against 4 (EN:916)", issue="Anschluss", option="No"),
        S("conference", TEXT, "IT:1906-1907", "the player decides every faction's choice (EN:917): each loses 2 "
          "happiness", event="Vladimir Lenin", choice="lose 2 happiness (every faction)"),
        S("advance_issue", TEXT, "IT:1909", "France leads no waiting issue and none is empty: player's choice "
          "(EN:918)", issue="Korea"),
        S("advance_event", TEXT, "IT:1909", "the player chooses (EN:919)", event="Henry Cabot Lodge"),
        S("draw", RULE, "IT:1911-1913", "a bot's draw: top to the waiting room, next to the discards (EN:920)",
          keep="Widows' Pensions", discard="Military Intervention"),
        S("crisis", FREE, "IT:1915", "uprising check +1 in Europe (unrest column 3): no uprising; any die 1-5",
          event="Ho Chi Minh", effect="no uprising", dice=[1]),
    ), {"settled": {"Anschluss": ("france", "No")}, "unrest": {"europe": 3},
        "happiness": {"uk": 18, "france": 18, "usa": 18}}),
    T(6, "usa", "player", (
        S("vp", RULE, "IT:1917", "the UK and the USA control no issue (EN:882)", gained=False),
        S("settle", TEXT, "IT:1917-1918", issue="Korea"),
        S("option", TEXT, "IT:1920-1921", "Japan's happiness is not tracked in solitaire (EN:866)",
          issue="Korea", option="Independence"),
        S("conference", RULE, "IT:1923", "no unit is deployed: nothing to move", event="Henry Cabot Lodge",
          choice="no effect"),
        S("advance_issue", TEXT, "IT:1925", issue="Widows' Pensions"),
        S("advance_event", TEXT, "IT:1925", event="Samuel Gompers"),
        S("draw", TEXT, "IT:1927", "the player draws two and keeps one (EN:368)",
          keep="Negotiations with Russia", discard="Thrace"),
        S("crisis", FREE, "IT:1929", "remove a powder keg from a random region: there is none; any die",
          event="T.E. Lawrence", effect="no effect", dice=[1]),
        S("end_turn", FREE, "IT:1917-1929", "the text names no military action"),
    ), {"settled": {"Korea": ("usa", "Independence")}, "unrest": {"pacific": 4}}),
    # ---------------------------------------------------------------- round 3 (IT:1933-1968)
    T(7, "uk", "bot", (
        S("settle", RULE, "IT:1939", "the UK leads South West Africa on the table", issue="South West Africa"),
        S("option", TEXT, "IT:1941-1943", "both Mandate and Annexation put a UK empire counter (PIV 6 against 5) and "
          "cost the UK no happiness: player's choice (EN:916)", issue="South West Africa",
          option="Annexation to South Africa"),
        S("conference", TEXT, "IT:1951", "every faction sends 3 cubes to Exhausted rather than lose 2 happiness",
          event="Samuel Gompers", choice="send 3 influence (every faction)"),
        S("advance_issue", SLIP, "IT:1953", "the text brings Negotiations with Russia (no cubes) to the table, but "
          "the UK bot leads Slovenia & Croatia in the waiting room (UK 3, France 2) and must bring that one "
          "(EN:918); the text goes on with Russia on the table and Slovenia & Croatia waiting (France places on "
          "it there on turns 8 and 11, France's settle brings it down on turn 14)",
          issue="Negotiations with Russia", rule_gives="Slovenia & Croatia",
          amend="swap Slovenia & Croatia (table) and Negotiations with Russia (waiting room), cubes with them"),
        S("advance_event", TEXT, "IT:1953", event="T.E. Lawrence"),
        S("draw", RULE, "IT:1955", keep="Bessarabia", discard="Inter-Allied Debt"),
        S("crisis", RULE, "IT:1957", "no unit is deployed or exhausted: nothing to move", event="Wellington Koo",
          effect="no effect"),
    ), {"settled": {"South West Africa": ("uk", "Annexation to South Africa")},
        "table": ["Slovenia & Croatia", "Widows' Pensions"],                # the rule's, before the amendment
        "strength": {"uk": 6, "france": 5, "usa": 3},                       # Diagram 3, IT:1959
        "happiness": {"uk": 18, "france": 18, "usa": 16},
        "influence": {"uk": (6, 6), "france": (9, 4), "usa": (10, 5)}}),
    T(8, "france", "bot", (
        S("place", TEXT, "IT:1961", "France leads nothing on the table; minimum: 2 over the UK's 3 on Slovenia & "
          "Croatia makes 4, 1 on the empty Russia", cubes={"Slovenia & Croatia": 2, "Negotiations with Russia": 1}),
    ), {"cubes": {"Slovenia & Croatia": {"uk": 3, "france": 4}, "Negotiations with Russia": {"france": 1}}}),
    T(9, "usa", "player", (
        S("vp", RULE, "IT:1965-1967", "every faction controls an issue but the USA (3) is not the strongest",
          gained=False),
        S("place", TEXT, "IT:1967", cubes={"Widows' Pensions": 3, "Negotiations with Russia": 2}),
        S("end_turn", FREE, "IT:1967", "the text names no military action"),
    ), {"cubes": {"Widows' Pensions": {"usa": 3}, "Negotiations with Russia": {"france": 1, "usa": 2}},
        "vp": 0}),
    # ---------------------------------------------------------------- round 4 (IT:1970-1977)
    T(10, "uk", "bot", (
        S("place", SLIP, "IT:1970", "the text places 2 on Russia, where the USA has 2: the minimum to lead is 3 "
          "(ruling A-31; France's +3 to 4 on turn 11 and the UK's forced reclaim on turn 13 need the 3)",
          cubes={"Slovenia & Croatia": 2, "Negotiations with Russia": 3}, text_says={"Negotiations with Russia": 2}),
    ), {"cubes": {"Slovenia & Croatia": {"uk": 5, "france": 4},
                  "Negotiations with Russia": {"uk": 3, "france": 1, "usa": 2}},
        "influence": {"uk": (1, 6)}}),
    T(11, "france", "bot", (
        S("place", TEXT, "IT:1971", "minimum: 6 over 5, 4 over 3",
          cubes={"Slovenia & Croatia": 2, "Negotiations with Russia": 3}),
    ), {"cubes": {"Slovenia & Croatia": {"uk": 5, "france": 6},
                  "Negotiations with Russia": {"uk": 3, "france": 4, "usa": 2}},
        "influence": {"france": (1, 4)}}),
    T(12, "usa", "player", (
        S("vp", RULE, "IT:1972", "UK 6 is the strongest", gained=False),
        S("settle", TEXT, "IT:1972", issue="Widows' Pensions"),
        S("option", TEXT, "IT:1973", "No puts an Industrial Growth (industry) counter: +1 for the USA",
          issue="Widows' Pensions", option="No"),
        S("conference", TEXT, "IT:1974", event="T.E. Lawrence", choice="add 1 unrest in the Middle East"),
        S("advance_issue", TEXT, "IT:1975", issue="Bessarabia"),
        S("advance_event", TEXT, "IT:1975", event="Ho Chi Minh"),
        S("draw", TEXT, "IT:1976", keep="Disarmament", discard="Macedonia"),
        S("crisis", RULE, "IT:1977", "no unit is deployed or exhausted", event="Winston Churchill",
          effect="no effect"),
        S("end_turn", FREE, "IT:1972-1977", "the text names no military action"),
    ), {"settled": {"Widows' Pensions": ("usa", "No")}, "unrest": {"middle_east": 2}}),
    # ---------------------------------------------------------------- round 5 (IT:1980-2013)
    T(13, "uk", "bot", (
        S("reclaim", RULE, "IT:1980-1982", "the UK leads no table issue and its 1 cube cannot lead two issues "
          "(EN:906): it recovers 6 (EN:907)"),
    ), {"influence": {"uk": (9, 1)}, "strength": {"usa": 9, "france": 9, "uk": 8},
        "happiness": {"uk": 16, "france": 17, "usa": 15}}),
    T(14, "france", "bot", (
        S("settle", RULE, "IT:1984", "France leads Russia (4 against 3 and 2)", issue="Negotiations with Russia"),
        S("option", RULE, "IT:1986-1987", "PIV 4 for France either way; Don't Offer costs France no happiness, Offer "
          "costs 1 (EN:916's second criterion; the text calls it the player's tie choice)",
          issue="Negotiations with Russia", option="Don't Offer"),
        S("conference", RULE, "IT:1989-1990", "an optional event is performed when a bot settles (EN:917, ruling "
          "A-29): a powder keg in the Pacific (the text's 'unrest marker to column two' cannot be: the Pacific "
          "unrest is in column 4 since Korea, and ties Europe's 4 at the next check, IT:1996)",
          event="Ho Chi Minh", choice="add a powder keg to the Pacific"),
        S("advance_issue", RULE, "IT:1992", "France leads Slovenia & Croatia (6 against 5) in the waiting room "
          "(EN:918)", issue="Slovenia & Croatia"),
        S("advance_event", TEXT, "IT:1992", event="Winston Churchill"),
        S("draw", RULE, "IT:1994", keep="Vietnam", discard="Reconstruction"),
        S("crisis", TEXT, "IT:1996-1998", "uprising check in Europe and the Pacific (tied at unrest 4): the Pacific "
          "stays quiet (die 1-5), Europe rises (die 6)", event="Mustafa Kemal Ataturk",
          effect="uprising in Europe", dice={"europe": 6, "pacific": 1}),
        S("switch", RULE, "IT:1998-1999", "strengths USA 9, France 9, UK 8: the player takes the sole weakest "
          "(EN:951), before the issue is chosen (ruling A-33)", faction="uk", strength={"usa": 9, "france": 9, "uk": 8}),
        S("unsettle", TEXT, "IT:2000-2004", "France, the only faction with European issues, loses its highest-star "
          "one: Anschluss and Russia both have 4 stars, the player (now the UK) chooses",
          issue="Negotiations with Russia"),
        S("bid", RULE, "IT:2004-2005", "France's bot bid: 3 units -> 2 units (EN:936-941), cubes = PIV 4 capped by "
          "its 1 Available (EN:943); the text names only the units", faction="france", units=2, influence=1),
        S("bid", RULE, "IT:2005", "the USA's bot bid: 2 units, cubes = PIV 5 (Offer's industry counter) with 6 "
          "Available; the text's '2 and 1 cube' gives no influence figure (ruling A-31)",
          faction="usa", units=2, influence=5),
        S("bid", TEXT, "IT:2005-2006", "3 units beat 2 whatever the cubes (military first, influence breaks ties: "
          "EN:600)", faction="uk", units=3, influence=0),
        S("option", TEXT, "IT:2006-2007", issue="Negotiations with Russia", option="Don't Offer"),
    ), {"settled": {"Negotiations with Russia": ("uk", "Don't Offer")},
        "strength": {"uk": 12, "usa": 9, "france": 5}, "faction": "uk",
        "happiness": {"uk": 12, "france": 17, "usa": 13}, "military": {"uk": {"exhausted": 3}},
        "unrest": {"europe": 3, "pacific": 4}, "powder_keg": {"europe": 1, "pacific": 1}}),
    T(15, "usa", "bot", (
        S("deploy", RULE, "IT:2073-2075", "the Pacific has been in column 4 since Korea (turn 6) and the USA holds its "
          "only issue: the bot's first military priority (EN:896), taken before the political action (EN:899): a "
          "unit to column 7, -1 happiness, 2 cubes back from Exhausted. The text reports this deployment only on "
          "turn 27 ('now that the Pacific has entered column 4'); its own figures fit it here: the USA has "
          "'2 Militari' to bid on turn 24 (IT:2059) and the cubes it places on turn 21 (IT:2033)",
          faction="usa", region="pacific", column=7),
        S("place", TEXT, "IT:2009", "the USA leads no table issue; 1 on each empty issue",
          cubes={"Disarmament": 1, "Bessarabia": 1}),
    ), {"cubes": {"Disarmament": {"usa": 1}, "Bessarabia": {"usa": 1}}, "happiness": {"usa": 13},
        "deployed": {"usa": {"pacific": 7}}, "influence": {"usa": (6, 7)}}),
    T(16, "uk", "player", (
        S("vp", RULE, "IT:2011", "UK 12 is the sole strongest and every faction controls an issue", gained=True),
        S("place", TEXT, "IT:2011-2013", cubes={"Slovenia & Croatia": 2, "Bessarabia": 2}),
        S("end_turn", FREE, "IT:2011-2013", "the UK has no Available unit"),
    ), {"vp": 1, "cubes": {"Slovenia & Croatia": {"uk": 7, "france": 6}, "Bessarabia": {"uk": 2, "usa": 1}},
        "influence": {"uk": (5, 1)}}),
    # ---------------------------------------------------------------- round 6 (IT:2015-2033)
    T(17, "france", "bot", (
        S("reclaim", RULE, "IT:2015", "France leads no table issue; its 1 cube cannot lead two issues"),
    ), {"influence": {"france": (7, 2)}}),
    T(18, "usa", "bot", (
        S("place", TEXT, "IT:2017", "1 more where it already leads (2 in all), 1 on the empty Vietnam",
          cubes={"Disarmament": 1, "Vietnam": 1}),
    ), {"cubes": {"Disarmament": {"usa": 2}, "Vietnam": {"usa": 1}}, "influence": {"usa": (4, 7)}}),
    T(19, "uk", "player", (
        S("vp", RULE, "IT:2019", gained=True),
        S("settle", RULE, "IT:2019", "the player leads both table issues (Slovenia & Croatia 7-6, Bessarabia 2-1) "
          "and must settle one (EN:886); which one is the player's: the text settles Slovenia & Croatia",
          issue="Slovenia & Croatia"),
        S("option", TEXT, "IT:2021", "'entrambe' with one Self-Determination counter: Both in Yugoslavia (the "
          "card data's reading)", issue="Slovenia & Croatia", option="Both in Yugoslavia"),
        S("conference", RULE, "IT:2023", "the UK has no Available unit to deploy", event="Winston Churchill",
          choice="no effect"),
        S("advance_issue", TEXT, "IT:2025", issue="Disarmament"),
        S("advance_event", TEXT, "IT:2025", event="Mustafa Kemal Ataturk"),
        S("draw", TEXT, "IT:2027", keep="Indemnity", discard="Arabia"),
        S("crisis", FREE, "IT:2029", "uprising check +1 in the Pacific (unrest 4, the highest): no uprising; "
          "any die 1-4 (the USA bot's -1 from its Pacific unit, EN:926, leaves 1-5)", event="Henri Mordacq", effect="no uprising", dice=[1]),
        S("end_turn", FREE, "IT:2019-2029", "the UK has no Available unit"),
    ), {"vp": 2, "settled": {"Slovenia & Croatia": ("uk", "Both in Yugoslavia")},
        "strength": {"uk": 17, "usa": 10, "france": 5}}),
    T(20, "france", "bot", (
        S("place", TEXT, "IT:2031", "minimum: 3 over the USA's 2 on Disarmament, 2 over its 1 on Vietnam",
          cubes={"Disarmament": 3, "Vietnam": 2}),
    ), {"cubes": {"Disarmament": {"france": 3, "usa": 2}, "Vietnam": {"france": 2, "usa": 1}},
        "influence": {"france": (5, 5)}}),
    T(21, "usa", "bot", (
        S("place", TEXT, "IT:2033", "1 on the empty Indemnity; on Vietnam the minimum to lead France's 2 is 2 more, "
          "3 in all (the text's '3 su Vietnam' read as the total)", cubes={"Indemnity": 1, "Vietnam": 2}),
    ), {"cubes": {"Indemnity": {"usa": 1}, "Vietnam": {"france": 2, "usa": 3}}, "influence": {"usa": (1, 7)}}),
    # ---------------------------------------------------------------- round 7 (IT:2035-2067)
    T(22, "uk", "player", (
        S("vp", RULE, "IT:2035", gained=True),
        S("settle", TEXT, "IT:2035", issue="Bessarabia"),
        S("option", TEXT, "IT:2037", issue="Bessarabia", option="Romania"),
        S("conference", RULE, "IT:2039", "a powder keg in the Middle East, then a check there: no uprising (unrest "
          "column 2 has no threshold, ruling A-06: no die)", event="Mustafa Kemal Ataturk", choice="no uprising"),
        S("advance_issue", TEXT, "IT:2041", issue="Vietnam"),
        S("advance_event", TEXT, "IT:2041", event="Henri Mordacq"),
        S("draw", TEXT, "IT:2043", keep="Byelorussia", discard="Prussia"),
        S("crisis", RULE, "IT:2045", "the controller of the issue being settled (the UK) loses 2", event="Prince Feisal",
          effect="UK happiness 12 -> 10"),
        S("mutiny", RULE, "IT:2045-2049", "at 10 the UK may keep 2 units (EN:533, 543-547): one exhausted unit goes to "
          "demobilization box 1, happiness +1 to 11", faction="uk"),
        S("end_turn", FREE, "IT:2035-2049", "the UK has no Available unit"),
    ), {"vp": 3, "settled": {"Bessarabia": ("uk", "Romania")}, "strength": {"uk": 22, "usa": 10, "france": 5},
        "happiness": {"uk": 11}, "military": {"uk": {"exhausted": 2, "demobilized": 1}},
        "powder_keg": {"middle_east": 1}}),
    T(23, "france", "bot", (
        S("reclaim", SLIP, "IT:2051", "the text reclaims, but France leads Disarmament on the table (3 against 2) "
          "and settles first (EN:905)", rule_gives="settle Disarmament",
          amend="France reclaims (its 5 exhausted cubes); the USA's turn begins"),
    ), {}),
    T(24, "usa", "bot", (
        S("demobilize", RULE, "IT:2053", "the USA is at 12 with 3 units, 2 away from the forced demobilization at 10 "
          "(EN:897): a demobilization gains 5 (the first space), so the bot demobilizes, before its political "
          "action (EN:899); which unit is the player's (EN:910): the Available one. The text omits it: its US "
          "happiness 11 (IT:2075) and '2 Militari' (IT:2059) assume none", faction="usa", source="available",
          text_says="no military action"),
        S("settle", RULE, "IT:2053", "the USA leads Vietnam (3 against 2)", issue="Vietnam"),
        S("option", RULE, "IT:2055", "PIV 3 either way for the USA (French Mandate's counter is France's); "
          "Independence costs the USA nothing, French Mandate 1", issue="Vietnam", option="Independence"),
        S("conference", TEXT, "IT:2057-2059", "mandatory for a bot's settle (EN:917); Widows' Pensions is the only "
          "settled Reparations issue", event="Henri Mordacq", choice="unsettle Widows' Pensions"),
        S("switch", RULE, "IT:2057-2058", "the player takes France, the sole weakest; the text's 'US 10' leaves out "
          "Vietnam, just settled: the USA has 13 (Korea 3, Widows' Pensions 5 + industry 1, the Slovenia & Croatia "
          "self-determination counter 1, Vietnam 3), and 13 - 6 is the text's final 7", faction="france",
          strength={"uk": 22, "usa": 13, "france": 5}, text_says={"usa": 10}),
        S("unsettle", RULE, "IT:2058-2059", issue="Widows' Pensions"),
        S("bid", RULE, "IT:2059", "the USA: 2 units left (one Available, one in the Pacific) -> 1 unit; cubes = PIV "
          "6 capped by its 2 Available", faction="usa", units=1, influence=2),
        S("bid", RULE, "IT:2059", "the UK: no unit left to bid ('il UK non ne ha'); cubes = PIV 5 with 5 Available",
          faction="uk", units=0, influence=5),
        S("bid", TEXT, "IT:2059-2060", faction="france", units=3, influence=0),
        S("option", INFERRED, "IT:2060", "France 11 = 5 + 5 + 1 needs the German Reparations counter of Yes "
          "(No's industry counter would give the USA 8)", issue="Widows' Pensions", option="Yes"),
        S("advance_issue", SLIP, "IT:2062", "the text brings Byelorussia (no cubes), but the USA bot leads Indemnity "
          "(1 cube) in the waiting room and must bring that one (EN:918); the UK places on Byelorussia and Somalia "
          "next turn", issue="Byelorussia", rule_gives="Indemnity",
          amend="swap Indemnity (table) and Byelorussia (waiting room)"),
        S("advance_event", TEXT, "IT:2062", event="Prince Feisal"),
        S("draw", RULE, "IT:2064", keep="Somalia", discard="Dobruja"),
        S("crisis", TEXT, "IT:2066-2067", "2 unrest in a random region: die 5, Africa (ruling A-26)",
          event="Millicent Fawcett", effect="Africa +2 to column 4", dice=[5]),
    ), {"settled": {"Vietnam": ("usa", "Independence"), "Widows' Pensions": ("france", "Yes")},
        "strength": {"uk": 22, "france": 11, "usa": 7},                     # Diagram 7, IT:2085
        "table": ["Disarmament", "Indemnity"],                              # the rule's, before the amendment
        "faction": "france", "unrest": {"africa": 4}, "happiness": {"usa": 16, "france": 12},
        "military": {"usa": {"demobilized": 1}}}),
    # ---------------------------------------------------------------- round 8 (IT:2069-2075)
    T(25, "uk", "bot", (
        S("place", TEXT, "IT:2069", "the UK leads nothing on the table; 1 on each empty issue; no military: Africa "
          "is in column 4 with the UK's only African issue but the UK has no Available unit",
          cubes={"Byelorussia": 1, "Somalia": 1}),
    ), {"cubes": {"Byelorussia": {"uk": 1}, "Somalia": {"uk": 1}}}),
    T(26, "france", "player", (
        S("vp", RULE, "IT:2071", "UK 22 is the strongest", gained=False),
        S("reclaim", FREE, "IT:2071", "the text names no action for France's turn; a reclaim (its exhausted cube "
          "and the 3 units of its bid) changes nothing the USA bot's military check reads"),
        S("end_turn", FREE, "IT:2071", ""),
    ), {"vp": 3}),
    T(27, "usa", "bot", (
        S("military", SLIP, "IT:2073-2075", "the text deploys a USA unit to the Pacific's column 7 here; under the "
          "rules it went there on turn 15 (see there) and the bot has no military priority now: it has a unit in "
          "the Pacific (one per region, EN:474) and is far from a forced demobilization",
          rule_gives="no military action", text_says="deploy to the Pacific, column 7"),
    ), {"deployed": {"usa": {"pacific": 7}}, "vp": 3}),
]
"""The example, turn by turn. The text ends here (IT:2078)."""


def replay_steps():
    """(turn, step) pairs in play order."""
    return [(t, s) for t in TURNS for s in t.steps]


def slips() -> list[tuple[Turn, Step]]:
    """The steps where the text departs from the rules."""
    return [(t, s) for t, s in replay_steps() if s.basis == SLIP]


# ------------------------------------------------------------------------------ the replay
class Divergence(AssertionError):
    """The engine left the script: names the turn, the step and its citation."""


def start(card_set=None):
    """The example's setup as a Game (the player is the USA, turn order UK, France, USA)."""
    from helpers.scenario import ALL_EVENTS, ALL_ISSUES
    from v1919_env.game import Game

    d = setup_position(ALL_ISSUES, ALL_EVENTS)
    d.update({"num_players": 1, "solitaire": {"faction": "usa", "target_vp": 20}})
    return Game.from_dict(d, card_set=card_set)


def _slot(g, issue: str) -> int:
    d = g.to_dict()
    for k, e in enumerate(d["table"] + d["waiting_room"]):
        if e and e["issue"] == issue:
            return k
    raise KeyError(f"{issue} is neither on the table nor in the waiting room")


def _edit(g, fn):
    """The same game with fn applied to its position dict (an amendment, or forced dice)."""
    from v1919_env.game import Game

    d = g.to_dict()
    fn(d)
    return Game.from_dict(d)


def _restart_turn(d: dict) -> None:
    """Drop the mid-procedure sections of a position: it then loads at the start of the active
    faction's turn (used only where that turn has done nothing yet, or is replaced)."""
    for k in ("engine", "pending", "turn_state"):
        d.pop(k)
    d["solitaire"].pop("pending_for", None)


def _swap(a: str, b: str):
    """An amendment at the start of a bot's turn: issues a and b (with their cubes) trade places
    (table / waiting room)."""
    def fn(d):
        rows = d["table"] + d["waiting_room"]
        ia = next(k for k, e in enumerate(rows) if e and e["issue"] == a)
        ib = next(k for k, e in enumerate(rows) if e and e["issue"] == b)
        rows[ia], rows[ib] = rows[ib], rows[ia]
        d["table"], d["waiting_room"] = rows[:len(d["table"])], rows[len(d["table"]):]
        _restart_turn(d)
    return fn


def _reclaim_then(faction: str, nxt: str, turn: int):
    """An amendment at the end of a turn: `faction` reclaims (up to 6 exhausted cubes and its
    exhausted units, EN:907) in its turn, then `nxt`'s turn (number `turn`) begins."""
    def fn(d):
        p = d["players"][faction]
        n = min(6, p["influence"]["exhausted"])
        p["influence"]["exhausted"] -= n
        p["influence"]["available"] += n
        p["military"]["available"] += p["military"]["exhausted"]
        p["military"]["exhausted"] = 0
        _restart_turn(d)
        d["active"] = nxt
        d["turn"] = turn - 1
    return fn


CONFERENCE_ANSWERS = {
    # event: the actions the player takes for the conference choice the text states, in order
    "Vladimir Lenin": [("branch", {"branch": 1})] * 3,        # each faction: lose 2 happiness, not demobilize
    "Samuel Gompers": [("branch", {"branch": 0})] * 3,        # each faction: send 3 cubes to Exhausted
    "T.E. Lawrence": [("sign", {"add": 1})],                  # add (not remove) 1 unrest in the Middle East
}


def _act(g, turn: Turn, step: Step, kind: str, **params) -> None:
    from v1919_env.actions import encode

    a = encode(kind, **params)
    if a not in set(int(x) for x in g.legal_actions()):
        raise Divergence(f"turn {turn.n} ({turn.faction}), {step.kind} {step.params} [{step.cite}]: {kind} {params} "
                         f"is not legal at '{g.decision}' for {g.seat_name(g.acting_for)}; legal: "
                         f"{[g.describe(x) for x in g.legal_actions()][:12]}")
    g.step(a)


def _ensure(cond: bool, turn: Turn, step: Step | None, what: str) -> None:
    if not cond:
        where = f"{step.kind} {step.params} [{step.cite}]" if step else "expect"
        raise Divergence(f"turn {turn.n} ({turn.faction}), {where}: {what}")


def play_step(g, turn: Turn, step: Step):
    """Take the player's decision of a TEXT/INFERRED/FREE step (RULE and SLIP steps the engine
    takes by itself: they are checked by `check`); returns the game (a new one after an edit)."""
    k, p = step.kind, step.params
    if k == "vp":                      # scored at the start of the turn, before its first decision
        want = sum(1 for t in TURNS if t.n <= turn.n for s in t.steps if s.kind == "vp" and s.params["gained"])
        _ensure(g.player_vp == want, turn, step, f"player VP {g.player_vp}, expected {want}")
        return g
    if k == "switch":
        _ensure(g.seat_name(g.solo_faction).lower() == p["faction"], turn, step,
                f"the player controls {g.seat_name(g.solo_faction)}")
        return g
    if step.basis in (RULE, SLIP) and k not in ("settle", "demobilize", "place", "mutiny"):
        return g
    if k == "place":
        if step.basis == RULE:
            return g
        (a, na), (b, nb) = p["cubes"].items()
        _act(g, turn, step, "place", slot=_slot(g, a), n=na)
        _act(g, turn, step, "place", slot=_slot(g, b), n=nb)
    elif k == "settle":
        if g.decision == "turn" and g.acting_for == g.solo_faction:
            _act(g, turn, step, "settle", slot=_slot(g, p["issue"]))
    elif k == "demobilize":
        if g.decision in ("turn", "demob") and g.acting_for != g.solo_faction:
            _act(g, turn, step, "demobilize", source=p["source"])
    elif k == "mutiny":
        if g.decision == "mutiny":         # the player's own faction: which unit (all are exhausted here)
            _act(g, turn, step, "demobilize", source="exhausted")
    elif k == "option":
        from helpers.scenario import option_index
        _act(g, turn, step, "option", option=option_index(p["issue"], p["option"]))
    elif k == "conference":
        for kind, params in CONFERENCE_ANSWERS.get(p["event"], []):
            _act(g, turn, step, kind, **params)
    elif k == "advance_issue":
        _act(g, turn, step, "advance_issue", slot=_slot(g, p["issue"]) - 2)
    elif k == "advance_event":
        _act(g, turn, step, "advance_event", slot=g.to_dict()["events"]["waiting_room"].index(p["event"]))
    elif k == "draw":
        pair = ISSUE_DRAWS[ISSUE_DRAWS.index(p["keep"]) // 2 * 2:][:2]
        _act(g, turn, step, "add_issue", source=3)
        _act(g, turn, step, "keep", which=pair.index(p["keep"]))
    elif k == "end_turn":
        if g.decision == "turn" and not g.is_over:
            _act(g, turn, step, "end_turn")
    elif k == "reclaim":
        from v1919_env.actions import decode
        best = max((a for a in g.legal_actions() if decode(int(a)).kind == "reclaim"),
                   key=lambda a: (decode(int(a)).params["n"], -decode(int(a)).params["recall"]))
        g.step(best)
    elif k == "unsettle":
        _act(g, turn, step, "choose_issue", issue=p["issue"])
    elif k == "bid":
        bots = [s.params for s in turn.steps if s.kind == "bid" and s.basis == RULE]
        best = max(bots, key=lambda b: (b["units"], b["influence"]))
        e = g.to_dict()["engine"]
        _ensure((g.seat_name(e["bid_high"]).lower(), e["bid_str"], e["bid_inf"]) ==
                (best["faction"], best["units"], best["influence"]), turn, step,
                f"the highest bot bid is {best}, the engine's {e['bid_high'], e['bid_str'], e['bid_inf']}")
        _act(g, turn, step, "bid", in_region=0, available=p["units"], influence=p["influence"])
    return g


AMENDMENTS = {
    # turn: (when, edit); 'start': at the turn's first decision, 'end': before its last step
    8: ("start", _swap("Slovenia & Croatia", "Negotiations with Russia")),
    22: ("end", _reclaim_then("france", "usa", 24)),
    25: ("start", _swap("Indemnity", "Byelorussia")),
}
"""The position edits of the SLIP steps that the text goes on from (turns 7, 23, 24): each is
applied where the engine, following the rules, has just done otherwise (checked by `check`)."""


def _dice(turn: Turn) -> list[int]:
    out = []
    for s in turn.steps:
        dice = s.params.get("dice")
        if isinstance(dice, dict):       # several regions: the engine rolls them in board order
            out += [dice[r] for r in ("europe", "balkans", "middle_east", "pacific", "africa") if r in dice]
        elif dice:
            out += list(dice)
    return out


def replay(until: int | None = None, on_turn=None):
    """Replay the example turn by turn up to turn `until` (default: all); on_turn(game, turn,
    moment) is called with moment 'start' (the first decision of the turn, its dice queued),
    'amend' (just before an amendment) and 'end' (after `check`). Returns the game.
    Raises Divergence at the first step the engine does not take as the script says."""
    g = start()
    for turn in TURNS:
        if until is not None and turn.n > until:
            break
        if g.turn == turn.n:
            dice = _dice(turn)
            if dice:
                g = _edit(g, lambda d: d.update(forced_dice=dice))
            when, fn = AMENDMENTS.get(turn.n, (None, None))
            if when == "start":
                if on_turn:
                    on_turn(g, turn, "amend")
                g = _edit(g, fn)
            if on_turn:
                on_turn(g, turn, "start")
            steps = turn.steps[:-1] if when == "end" else turn.steps
            for step in steps:
                g = play_step(g, turn, step)
            if when == "end":
                if on_turn:
                    on_turn(g, turn, "amend")
                g = _edit(g, fn)
        check(g, turn)
        if on_turn:
            on_turn(g, turn, "end")
    return g


def check(g, turn: Turn) -> None:
    """Check a turn's `expect` (see the module docstring) and that its forced dice were all used."""
    d = g.to_dict()
    e = turn.expect
    _ensure(not d["forced_dice"], turn, None, f"dice left unused: {d['forced_dice']}")
    rows = {r["issue"]: r["cubes"] for r in d["table"] + d["waiting_room"] if r}
    for issue, cubes in e.get("cubes", {}).items():
        _ensure(rows.get(issue) == cubes, turn, None, f"cubes on {issue}: {rows.get(issue)}, expected {cubes}")
    settled = {r["issue"]: (r["controller"], r["option"]) for r in d["settled"]}
    for issue, want in e.get("settled", {}).items():
        _ensure(settled.get(issue) == want, turn, None, f"{issue} settled as {settled.get(issue)}, expected {want}")
    if "table" in e:
        table = [r["issue"] for r in d["table"] if r]
        _ensure(table == e["table"], turn, None, f"table {table}, expected {e['table']}")
    strength = dict(zip(("uk", "france", "usa"), g.faction_strengths()))
    for f, v in e.get("strength", {}).items():
        _ensure(strength[f] == v, turn, None, f"strengths {strength}, expected {e['strength']}")
    if "vp" in e:
        _ensure(g.player_vp == e["vp"], turn, None, f"player VP {g.player_vp}, expected {e['vp']}")
    if "faction" in e:
        _ensure(g.seat_name(g.solo_faction).lower() == e["faction"], turn, None,
                f"the player controls {g.seat_name(g.solo_faction)}, expected {e['faction']}")
    for f, v in e.get("happiness", {}).items():
        _ensure(d["happiness"][f] == v, turn, None, f"{f} happiness {d['happiness'][f]}, expected {v}")
    for f, (avail, exh) in e.get("influence", {}).items():
        inf = d["players"][f]["influence"]
        _ensure((inf["available"], inf["exhausted"]) == (avail, exh), turn, None,
                f"{f} cubes (available, exhausted) {inf['available'], inf['exhausted']}, expected {avail, exh}")
    for f, fields in e.get("military", {}).items():
        for k, v in fields.items():
            got = d["players"][f]["military"][k]
            _ensure(got == v, turn, None, f"{f} units {k} {got}, expected {v}")
    for f, where in e.get("deployed", {}).items():
        got = d["players"][f]["military"]["deployed"]
        _ensure(got == where, turn, None, f"{f} deployed {got}, expected {where}")
    for r, v in e.get("unrest", {}).items():
        _ensure(d["regions"][r]["unrest"] == v, turn, None, f"{r} unrest {d['regions'][r]['unrest']}, expected {v}")
    for r, v in e.get("powder_keg", {}).items():
        got = d["regions"][r]["powder_keg"]
        _ensure(got == v, turn, None, f"{r} powder keg {got}, expected {v}")
