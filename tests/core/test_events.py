"""Every event card's crisis and conference effect, run through the engine.

Each test states the card text it checks; expected outcomes come from the text (and the rules /
rulings it relies on), not from the engine's code. Conference effects run at Settle step 2 (the
event on the table, decided by its cube owner, else the active player); crisis effects at step 5
(the top card of the event deck, decided by the active player). See tests/helpers/events.py.

Common fixture (event_helpers.position): all regions at unrest 2 (an 'X' column: no die is ever
rolled there), no powder kegs, happiness 20, Kurdistan on the table with 2 UK cubes; UK active.
Settling Kurdistan with its option "No Kurdistan" has no effect of its own except that UK's 2 cubes
go to Exhausted (UK: 13 available, 2 exhausted afterwards).

Uprising thresholds (rulings A-06): a region in column c rises on die + modifiers >= 9 - c (c >= 3).
"""
from __future__ import annotations

import re

import pytest
from helpers.events import (ALL_EVENTS, EVENTS, NATIONS, REGIONS, RIDX, SEAT, act, conference_done, controller,
                            crisis_done, forced_left, happy, infl, mil, position, regions, settle, to_conference,
                            to_crisis, unrest, walk_steps_3_4, without)

from v1919_env.actions import decode, encode
from v1919_env.game import Game

WS = "Women's Suffrage"      # a League issue (no region track); option 1 "Exclude": UK -1, France -1 happiness
WS_EXCLUDE = 1


def crisis_text(name):
    return EVENTS[name]["crisis"]["text"]


def conf_text(name):
    return EVENTS[name]["conference"]["text"]


def legal(g):
    return sorted(int(a) for a in g.legal_actions())


def kinds(g):
    return {decode(a).kind for a in g.legal_actions()}


def pass_all_bids(g):
    """Everybody passes in the bidding war now running."""
    while g.decision == "bid":
        g.step(encode("bid_pass"))


def no_event_moves(before, after):
    """The parts of a position an effect may change, without the event bookkeeping."""
    return without(before, "events", "pending", "decisions", "engine"), \
        without(after, "events", "pending", "decisions", "engine")


def test_every_event_has_both_parts_in_the_data():
    assert len(ALL_EVENTS) == 46
    for name in ALL_EVENTS:
        assert EVENTS[name]["crisis"]["effects"], name
        assert EVENTS[name]["conference"]["effects"], name


# =============================================================================================
# CRISIS EFFECTS (Settle step 5, decided by the active player)
# =============================================================================================

# ----------------------------------------------------------------- "Uprising Check" (#1 - #19)
UPRISING_CRISES = [n for n in ALL_EVENTS if crisis_text(n).startswith("Uprising Check")
                   and "Region of the Issue" not in crisis_text(n) and "If no Issue" not in crisis_text(n)]


def _crisis_modifier(name):
    t = crisis_text(name)
    assert t in ("Uprising Check.", "Uprising Check, +1 to the die roll."), t
    return 1 if "+1 to the die roll" in t else 0


def test_uprising_crisis_cards_are_the_first_nineteen():
    assert UPRISING_CRISES == ALL_EVENTS[:19]


@pytest.mark.parametrize("die", [3, 4])
@pytest.mark.parametrize("name", UPRISING_CRISES)
def test_crisis_uprising_check_on_the_highest_region(name, die):
    """'Uprising Check[, +1 to the die roll].' with no region: the region with the most unrest.
    Europe at column 5 (rises on 4+); the Pacific at 4 (rises on 5+) is not checked. Europe holds
    no issues, so an uprising only resets it: powder keg +1, unrest just right of the keg."""
    mod = _crisis_modifier(name)
    g, _ = to_crisis(position(top=name, unrest={"europe": 5, "pacific": 4}, forced_dice=[die, 6]))
    assert crisis_done(g)
    assert forced_left(g) == [6], "exactly one region (the highest) is rolled for"
    if die + mod >= 4:
        assert regions(g)["europe"] == (2, 1)
    else:
        assert regions(g)["europe"] == (5, 0)
    assert regions(g)["pacific"] == (4, 0)


@pytest.mark.parametrize("dice,risen", [([4, 1], "europe"), ([1, 4], "balkans")])
def test_crisis_uprising_check_checks_every_region_tied_for_highest(dice, risen):
    """EN:563: with a tie for the most unrest every tied region is checked (top row first)."""
    g, _ = to_crisis(position(top="Arthur Balfour", unrest={"europe": 5, "balkans": 5}, forced_dice=dice))
    assert crisis_done(g)
    assert forced_left(g) == []
    other = "balkans" if risen == "europe" else "europe"
    assert regions(g)[risen] == (2, 1)
    assert regions(g)[other] == (5, 0)


def test_crisis_uprising_unsettles_an_issue_in_the_region():
    """An uprising where a player controls an issue unsettles it; bidding starts with its controller."""
    settled = [{"issue": "Trial of the Kaiser", "controller": "france", "option": "No Trial"}]
    g, _ = to_crisis(position(top="Arthur Balfour", unrest={"europe": 5}, settled=settled, forced_dice=[4]))
    assert g.decision == "bid" and g.current_player == SEAT["france"]
    assert controller(g, "Trial of the Kaiser") is None


# ----------------------------------------------------------------- the settled issue's region
SETTLED_REGION_CRISES = ["Take Ionescu", "Jan Smuts", "John Foster Dulles"]


def _settled_region_delta(name):
    m = re.fullmatch(r"(Remove|Add) 1 Unrest (?:from|to) the Region of the Issue being Settled\.", crisis_text(name))
    assert m, crisis_text(name)
    return -1 if m.group(1) == "Remove" else 1


@pytest.mark.parametrize("name", SETTLED_REGION_CRISES)
def test_crisis_unrest_in_the_settled_issues_region(name):
    """'Remove/Add 1 Unrest from/to the Region of the Issue being Settled' (Kurdistan: Middle East)."""
    d = _settled_region_delta(name)
    g, before = to_crisis(position(top=name, unrest={"middle_east": 4, "europe": 6}))
    assert crisis_done(g)
    exp = regions(before)
    exp["middle_east"] = (4 + d, 0)
    assert regions(g) == exp


@pytest.mark.parametrize("name", SETTLED_REGION_CRISES)
def test_crisis_settled_league_issue_acts_on_europe(name):
    """A League issue has no region track of its own: its region counts as Europe (ruling P-03;
    the Manual removes Jan Smuts's Unrest from Europe after Disarmament, IT:1471)."""
    d = _settled_region_delta(name)
    pos = position(top=name, unrest={"middle_east": 4, "europe": 5},
                   table=[{"issue": WS, "cubes": {"uk": 2}}, None])
    g, before = to_crisis(pos, option=WS_EXCLUDE)
    assert crisis_done(g)
    exp = regions(before)
    exp["europe"] = (5 + d, 0)
    assert regions(g) == exp


# ----------------------------------------------------------------- happiness per deployed unit
PER_UNIT_CRISES = [n for n in ALL_EVENTS if "Happiness for each Deployed Military Unit" in crisis_text(n)]


def _per_unit_loss(name):
    m = re.fullmatch(r"Each player loses (\d) Happiness for each Deployed Military Unit\.", crisis_text(name))
    assert m, crisis_text(name)
    return int(m.group(1))


def test_per_unit_crisis_cards():
    assert PER_UNIT_CRISES == ["John Maynard Keynes", "Keith Murdoch", "Lu Zhengxiang", "Queen Marie of Romania",
                               "Saad Zaghloul", "Samuel Gompers"]


DEPLOYED = {"uk": {"military": {"deployed": {"europe": 8, "pacific": 8}}},
            "france": {"military": {"deployed": {"balkans": 7}, "exhausted": 1}},
            "usa": {"military": {"exhausted": 2}},
            "italy": {"military": {"deployed": {"europe": 7, "africa": 6, "pacific": 5}}}}


@pytest.mark.parametrize("name", PER_UNIT_CRISES)
def test_crisis_happiness_loss_per_deployed_unit(name):
    """'Each player loses N Happiness for each Deployed Military Unit' (exhausted units don't count)."""
    k = _per_unit_loss(name)
    g, before = to_crisis(position(top=name, players=DEPLOYED, happiness={"italy": 25}))
    assert crisis_done(g)
    assert happy(g) == {"uk": 20 - 2 * k, "france": 20 - k, "usa": 20, "italy": 25 - 3 * k, "japan": 20}
    assert regions(g) == regions(before)


def test_crisis_per_unit_loss_triggers_mutiny_after_the_whole_event():
    """Rulings A-10: after the event has been applied in full, a nation over its unit limit
    demobilizes one unit of its choice into box '1' (+1 happiness). Zaghloul (-2 per unit):
    UK 12 -> 8 (2-unit zone) with 3 units in play."""
    assert _per_unit_loss("Saad Zaghloul") == 2
    g, _ = to_crisis(position(top="Saad Zaghloul", players=DEPLOYED, happiness={"uk": 12}))
    assert g.decision == "mutiny" and g.current_player == SEAT["uk"]
    assert happy(g, "france") == 18, "every player's loss is applied before the mutiny"
    assert happy(g, "uk") == 8
    g.step(encode("demobilize", source=2 + RIDX["europe"]))
    assert crisis_done(g)
    assert happy(g, "uk") == 9
    assert mil(g, "uk")["demobilized"] == 1 and mil(g, "uk")["deployed"] == {"pacific": 8}
    assert g.to_dict()["demobilize_next"] == 0, "a mutiny goes to box '1', not to the next demobilize space"


# ----------------------------------------------------------------- all deployed military to exhausted
ALL_TO_EXHAUSTED = [n for n in ALL_EVENTS if crisis_text(n) == "Move all Deployed Military to Exhausted."]


def test_all_to_exhausted_cards():
    assert ALL_TO_EXHAUSTED == ["Vladimir Lenin", "W.E.B. Du Bois"]


@pytest.mark.parametrize("name", ALL_TO_EXHAUSTED)
def test_crisis_all_deployed_military_to_exhausted(name):
    g, before = to_crisis(position(top=name, players=DEPLOYED))
    assert crisis_done(g)
    for n, exh in (("uk", 2), ("france", 2), ("usa", 2), ("italy", 3)):
        m = mil(g, n)
        assert m["deployed"] == {} and m["exhausted"] == exh, n
        assert m["available"] == mil(before, n)["available"], n
    assert happy(g) == happy(before)
    assert regions(g) == regions(before)


# ----------------------------------------------------------------- military maneuvers
MANEUVERS = [n for n in ALL_EVENTS if crisis_text(n) == "Each player, ending with you, may move one Deployed or "
                                                        "Exhausted Military Unit to Available."]


def test_maneuver_cards():
    assert MANEUVERS == ["Wellington Koo", "Winston Churchill", "Bolshevik Threat"]


@pytest.mark.parametrize("name", MANEUVERS)
def test_crisis_each_player_ending_with_you_may_move_a_unit_to_available(name):
    """France active: the order is USA, Italy, UK, France. The USA has no deployed or exhausted
    unit and is skipped; each other player may move one unit (or not)."""
    players = {"uk": {"military": {"deployed": {"europe": 8}}},
               "france": {"military": {"exhausted": 1, "deployed": {"balkans": 8}}},
               "usa": {"military": {"demobilized": 1}},
               "italy": {"military": {"exhausted": 1, "deployed": {"pacific": 8}}}}
    pos = position(top=name, players=players, active="france",
                   table=[{"issue": "Kurdistan", "cubes": {"france": 2}}, None])
    g, before = to_crisis(pos)
    act(g, "to_avail", encode("unit_to_available", source=1 + RIDX["pacific"]), "italy")
    assert set(legal(g)) == {encode("accept", yes=0), encode("unit_to_available", source=1 + RIDX["europe"])}
    act(g, "to_avail", encode("accept", yes=0), "uk")
    assert set(legal(g)) == {encode("accept", yes=0), encode("unit_to_available", source=0),
                             encode("unit_to_available", source=1 + RIDX["balkans"])}
    act(g, "to_avail", encode("unit_to_available", source=0), "france")
    assert crisis_done(g)
    assert mil(g, "italy") == {"available": 2, "exhausted": 1, "demobilized": 0, "deployed": {}}
    assert mil(g, "uk") == mil(before, "uk")
    assert mil(g, "france") == {"available": 2, "exhausted": 0, "demobilized": 0, "deployed": {"balkans": 8}}
    assert mil(g, "usa") == mil(before, "usa")


# ----------------------------------------------------------------- Gandhi
def test_crisis_gandhi_no_uprising_adds_one_unrest():
    """'Uprising Check. If no Issue becomes Unsettled, add 1 Unrest.' No uprising: Europe +1."""
    g, _ = to_crisis(position(top="Mahatma Gandhi", unrest={"europe": 5}, forced_dice=[1]))
    assert crisis_done(g)
    assert regions(g)["europe"] == (6, 0)


def test_crisis_gandhi_uprising_that_unsettles_adds_nothing():
    """France's Trial of the Kaiser (Europe) is unsettled; nobody bids (A-38: discarded). An issue
    did become unsettled, so no extra unrest: Europe is just reset (keg 1, unrest 2)."""
    settled = [{"issue": "Trial of the Kaiser", "controller": "france", "option": "No Trial"}]
    g, _ = to_crisis(position(top="Mahatma Gandhi", unrest={"europe": 5}, settled=settled, forced_dice=[4]))
    assert g.decision == "bid"
    pass_all_bids(g)
    assert crisis_done(g)
    assert controller(g, "Trial of the Kaiser") is None
    assert regions(g)["europe"] == (2, 1)


def test_crisis_gandhi_uprising_without_issues_adds_one_unrest():
    """An uprising in a region where nobody controls an issue unsettles nothing: reset, then +1."""
    g, _ = to_crisis(position(top="Mahatma Gandhi", unrest={"europe": 5}, forced_dice=[4]))
    assert crisis_done(g)
    assert regions(g)["europe"] == (3, 1)


# ----------------------------------------------------------------- random regions
RANDOM_CRISES = [n for n in ALL_EVENTS if "a random Region" in crisis_text(n)]


def _random_effect(name):
    m = re.fullmatch(r"(Add|Remove) (\d) (Unrest|Powder Keg) (?:to|from) a random Region\.", crisis_text(name))
    assert m, crisis_text(name)
    sign = 1 if m.group(1) == "Add" else -1
    return m.group(3), sign * int(m.group(2))


def test_random_region_cards():
    assert RANDOM_CRISES == ["Maurice Hankey", "Millicent Fawcett", "Nikola I Petrovic-Njegos", "Nikola Pasic",
                             "Robert Borden", "T.E. Lawrence", "Tomas Masaryk"]


@pytest.mark.parametrize("die", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", RANDOM_CRISES)
def test_crisis_random_region(name, die):
    """Random Region (EN:126): die 1 Europe, 2 Balkans, 3 Middle East, 4 Pacific, 5 Africa; on a 6
    the event does not occur. Every region starts at unrest 4 with a powder keg in column 1."""
    what, delta = _random_effect(name)
    unr = {r: 4 for r in REGIONS}
    kg = {r: 1 for r in REGIONS}
    g, _ = to_crisis(position(top=name, unrest=unr, kegs=kg, forced_dice=[die]))
    assert crisis_done(g)
    assert forced_left(g) == []
    exp = {r: (4, 1) for r in REGIONS}
    if die <= 5:
        r = REGIONS[die - 1]
        exp[r] = (4 + delta, 1) if what == "Unrest" else (4, 1 + delta)
    assert regions(g) == exp


def test_crisis_powder_keg_added_onto_the_unrest_pushes_it_right():
    """EN:449: if the keg moves into the unrest counter's space, unrest moves one further right."""
    assert _random_effect("Nikola Pasic") == ("Powder Keg", 1)
    g, _ = to_crisis(position(top="Nikola Pasic", unrest={"balkans": 3}, kegs={"balkans": 2}, forced_dice=[2]))
    assert regions(g)["balkans"] == (4, 3)


@pytest.mark.parametrize("name", ["T.E. Lawrence", "Tomas Masaryk"])
def test_crisis_removing_a_powder_keg_at_its_start_is_ignored(name):
    """Rulings A-22 / EN:447: removal from the start box is ignored; unrest never moves."""
    g, _ = to_crisis(position(top=name, unrest={"africa": 5}, forced_dice=[5]))
    assert regions(g)["africa"] == (5, 0)


def test_crisis_unrest_added_stops_left_of_military():
    """EN:404: unrest never enters a space holding a military unit; the excess is ignored."""
    players = {"france": {"military": {"deployed": {"europe": 6}}}}
    g, _ = to_crisis(position(top="Maurice Hankey", unrest={"europe": 4}, players=players, forced_dice=[1]))
    assert regions(g)["europe"] == (5, 0)


# ----------------------------------------------------------------- Hymans: the settled issue's region
def test_crisis_hymans_checks_the_settled_issues_region_not_the_highest():
    """'Uprising Check in the Region of the Issue being Settled.' Kurdistan (Middle East, column 3,
    rises on 6); Europe is higher (column 7, would rise on 2). A 2 raises nothing."""
    g, _ = to_crisis(position(top="Paul Hymans", unrest={"middle_east": 3, "europe": 7}, forced_dice=[2, 2]))
    assert crisis_done(g)
    assert forced_left(g) == [2], "one die, for one region"
    assert regions(g)["europe"] == (7, 0) and regions(g)["middle_east"] == (3, 0)


def test_crisis_hymans_uprising_unsettles_the_just_settled_issue():
    g, _ = to_crisis(position(top="Paul Hymans", unrest={"middle_east": 3, "europe": 7}, forced_dice=[6]))
    assert g.decision == "bid" and g.current_player == SEAT["uk"]
    assert controller(g, "Kurdistan") is None


def test_crisis_hymans_league_issue_checks_europe():
    """Ruling P-03: a League issue's region counts as Europe, so Europe (column 7) is checked,
    not the higher Middle East; a 1 raises nothing and the second die stays unused."""
    pos = position(top="Paul Hymans", unrest={"europe": 7, "middle_east": 8}, forced_dice=[1, 6],
                   table=[{"issue": WS, "cubes": {"uk": 2}}, None])
    g, before = to_crisis(pos, option=WS_EXCLUDE)
    assert crisis_done(g)
    assert forced_left(g) == [6]
    assert regions(g) == regions(before)
    assert regions(g) == regions(before)


# ----------------------------------------------------------------- the settled issue's controller
@pytest.mark.parametrize("name,loss", [("Prince Feisal", 2), ("Stephen Pichon", 1)])
def test_crisis_controller_of_the_settled_issue_loses_happiness(name, loss):
    """'Whoever controls the Issue being Settled loses N Happiness.' UK settles Kurdistan, which
    France controls (3 cubes to 1)."""
    assert crisis_text(name) == f"Whoever controls the Issue being Settled loses {loss} Happiness."
    pos = position(top=name, table=[{"issue": "Kurdistan", "cubes": {"france": 3, "uk": 1}}, None])
    g, before = to_crisis(pos)
    assert controller(before, "Kurdistan") == "france"
    assert crisis_done(g)
    assert happy(g) == {**happy(before), "france": 20 - loss}


# ----------------------------------------------------------------- Sykes-Picot
def test_crisis_sykes_picot_most_issues_exhaust_two_all_tied():
    """'The player controlling the most Issues moves 2 Influence to Exhausted (if tied, all tied
    players).' UK: Kurdistan (just settled) + Togo = 2; France 2; USA 1. France has only 1
    Available, so it moves what it has."""
    settled = [{"issue": "Togo", "controller": "uk", "option": "UK Mandate"},
               {"issue": "Syria", "controller": "france", "option": "French Mandate"},
               {"issue": "Cilicia", "controller": "france", "option": "To Turkey"},
               {"issue": "Korea", "controller": "usa", "option": "Independence"}]
    players = {"france": {"influence": {"exhausted": 14}}}
    g, before = to_crisis(position(top="Sykes-Picot Agreement", settled=settled, players=players,
                                   discards=("Vietnam",)))
    assert crisis_done(g)
    assert infl(g, "uk") == (11, 4)
    assert infl(g, "france") == (0, 15)
    assert infl(g, "usa") == infl(before, "usa") and infl(g, "italy") == infl(before, "italy")


def test_crisis_sykes_picot_nobody_controls_an_issue():
    """Project ruling P-12: with no issue controlled by anyone, nobody 'controls the most Issues'.
    The conference (Saad Zaghloul: Uprising Check in the Middle East) unsettles the Kurdistan
    just settled, nobody bids, and then the crisis of Sykes-Picot finds no issue controlled."""
    g = Game.from_dict(position(table_event="Saad Zaghloul", top="Sykes-Picot Agreement",
                                unrest={"middle_east": 8}, forced_dice=[6]))
    settle(g)
    assert g.decision == "bid"
    pass_all_bids(g)
    assert conference_done(g) and g.to_dict()["settled"] == []
    walk_steps_3_4(g)
    before = g.to_dict()
    g.step(encode("add_issue", source=0))
    assert crisis_done(g)
    for n in ("uk", "france", "usa", "italy"):
        assert infl(g, n) == infl(before, n)


# ----------------------------------------------------------------- Orlando
def test_crisis_orlando_each_player_recovers_four():
    """'Each player recovers 4 Influence from Exhausted' (as many as they have)."""
    players = {"uk": {"influence": {"exhausted": 6}}, "france": {"influence": {"exhausted": 3}},
               "italy": {"influence": {"exhausted": 5}}}
    g, before = to_crisis(position(top="Vittorio Orlando", players=players))
    assert crisis_done(g)
    assert infl(before, "uk") == (7, 8)
    assert infl(g, "uk") == (11, 4)
    assert infl(g, "france") == (15, 0)
    assert infl(g, "usa") == (15, 0)
    assert infl(g, "italy") == (14, 1)


# =============================================================================================
# CONFERENCE EFFECTS (Settle step 2)
# =============================================================================================

# ----------------------------------------------------------------- optional effects with a fixed outcome
def _fixed_optional(name):
    """(region, unrest delta, keg delta) from an 'Optional: ...' text with one fixed region effect."""
    t = conf_text(name)
    region_of = {"Middle East": "middle_east", "Europe": "europe", "Pacific": "pacific", "Balkans": "balkans"}
    m = re.fullmatch(r"Optional: (Reduce|Add) (?:Unrest in )?(?:(\d) Unrest in )?(?:the )?([A-Za-z ]+?)"
                     r"(?: by (\d))?\.", t)
    if t == "Optional: Add a Powder Keg to the Pacific.":
        return "pacific", 0, 1
    assert m, t
    n = int(m.group(2) or m.group(4))
    return region_of[m.group(3)], (-n if m.group(1) == "Reduce" else n), 0


FIXED_OPTIONALS = ["Gertrude Bell", "Herbert Hoover", "Ho Chi Minh", "Keith Murdoch", "Nikola I Petrovic-Njegos",
                   "Nikola Pasic", "Paul Hymans"]


def test_fixed_optional_texts_parse():
    assert {n: _fixed_optional(n) for n in FIXED_OPTIONALS} == {
        "Gertrude Bell": ("middle_east", -3, 0), "Herbert Hoover": ("europe", -3, 0),
        "Ho Chi Minh": ("pacific", 0, 1), "Keith Murdoch": ("pacific", 2, 0),
        "Nikola I Petrovic-Njegos": ("balkans", 1, 0), "Nikola Pasic": ("balkans", 2, 0),
        "Paul Hymans": ("europe", 2, 0)}
    for n in FIXED_OPTIONALS:
        assert EVENTS[n]["conference"]["optional"] is True


@pytest.mark.parametrize("accept", [1, 0])
@pytest.mark.parametrize("name", FIXED_OPTIONALS)
def test_conference_fixed_optional(name, accept):
    """Accepting applies the effect; declining leaves everything as it was except that the
    event leaves the table for the discards (EN:329)."""
    region, du, dk = _fixed_optional(name)
    g = to_conference(position(table_event=name, unrest={r: 5 for r in REGIONS}))
    assert g.decision == "optional" and g.current_player == SEAT["uk"]
    before = g.to_dict()
    act(g, "optional", encode("accept", yes=accept))
    assert conference_done(g)
    after = g.to_dict()
    assert after["events"]["table"] is None and after["events"]["discards"] == [name]
    if not accept:
        b, a = no_event_moves(before, after)
        assert a == b
        return
    exp = regions(before)
    exp[region] = (5 + du, dk)
    assert regions(after) == exp
    assert happy(after) == happy(before)


def test_conference_optional_decided_by_the_cube_owner():
    """EN:331: a player cube on the event decides it; the cube then goes to Exhausted."""
    pos = position(table_event="Herbert Hoover", cube="france", unrest={"europe": 6})
    assert pos["events"]["table"]["cube"] == "france"
    g = to_conference(pos)
    assert g.decision == "optional" and g.current_player == SEAT["france"]
    act(g, "optional", encode("accept", yes=1), "france")
    assert conference_done(g)
    assert unrest(g, "europe") == 3
    assert infl(g, "france") == (14, 1)


def test_conference_hoover_cannot_remove_past_the_powder_keg():
    """EN:404: unrest never moves into the powder keg's space; the excess is ignored."""
    g = to_conference(position(table_event="Herbert Hoover", unrest={"europe": 4}, kegs={"europe": 2}))
    act(g, "optional", encode("accept", yes=1))
    assert regions(g)["europe"] == (3, 2)


def test_conference_ho_chi_minh_keg_displaces_unrest():
    """EN:337 (the rulebook's example): the keg advances and displaces the unrest one space right."""
    g = to_conference(position(table_event="Ho Chi Minh", cube="usa", unrest={"pacific": 3}, kegs={"pacific": 2}))
    act(g, "optional", encode("accept", yes=1), "usa")
    assert regions(g)["pacific"] == (4, 3)
    assert infl(g, "usa") == (14, 1)


# ----------------------------------------------------------------- Tarbell
def test_conference_tarbell_adds_one_to_each_region_that_gained():
    """'Optional: Add 1 more Unrest to each Region that gained Unrest from the Issue that was
    Settled.' Silesia 'To Czechoslovakia': Europe +1, Balkans +1."""
    pos = position(table_event="Ida Tarbell", table=[{"issue": "Silesia", "cubes": {"uk": 2}}, None])
    g = to_conference(pos, option=2)
    before = g.to_dict()
    assert regions(before)["europe"] == (3, 0) and regions(before)["balkans"] == (3, 0)
    act(g, "optional", encode("accept", yes=1))
    assert conference_done(g)
    exp = regions(before)
    exp["europe"] = (4, 0)
    exp["balkans"] = (4, 0)
    assert regions(g) == exp


def test_conference_tarbell_nothing_when_no_region_gained():
    """Military Intervention 'Withdraw' removes Europe unrest: no region gained, nothing to add."""
    pos = position(table_event="Ida Tarbell", unrest={"europe": 4},
                   table=[{"issue": "Military Intervention", "cubes": {"uk": 2}}, None])
    g = to_conference(pos, option=1)
    before = g.to_dict()
    act(g, "optional", encode("accept", yes=1))
    assert conference_done(g)
    assert regions(g) == regions(before)
    assert unrest(g, "europe") == 3


# ----------------------------------------------------------------- add or remove (decider picks)
SIGN_CHOICES = ["Abdul Aziz 'Ibn' Saud", "Lu Zhengxiang", "Prince Feisal", "T.E. Lawrence"]


def _sign_effect(name):
    m = re.fullmatch(r"Add or remove (\d) Unrest in the (Middle East|Pacific)\.", conf_text(name))
    assert m, conf_text(name)
    return {"Middle East": "middle_east", "Pacific": "pacific"}[m.group(2)], int(m.group(1))


@pytest.mark.parametrize("add", [1, 0])
@pytest.mark.parametrize("name", SIGN_CHOICES)
def test_conference_add_or_remove_unrest(name, add):
    """'Add or remove N Unrest in R': the decider (here Italy, by its cube) picks the direction."""
    region, n = _sign_effect(name)
    g = to_conference(position(table_event=name, cube="italy", unrest={region: 4}))
    assert g.decision == "sign" and g.current_player == SEAT["italy"]
    before = g.to_dict()
    act(g, "sign", encode("sign", add=add), "italy")
    assert conference_done(g)
    exp = regions(before)
    exp[region] = (4 + n if add else 4 - n, 0)
    assert regions(g) == exp


# ----------------------------------------------------------------- uprising checks in a named region
# settle Women's Suffrage (League) so that the checked regions hold no issue
def _ws_table(cubes=None):
    return [{"issue": WS, "cubes": cubes or {"uk": 2}}, None]


CHECK_OTHERWISE = ["Chaim Weizmann", "Eleutherios Venizelos", "Ignace Paderewski", "Take Ionescu"]


def _check_otherwise(name):
    m = re.fullmatch(r"Uprising Check in the (Middle East|Balkans)\. If there is no Uprising, "
                     r"(reduce Unrest by 1|add 1 Unrest|subtract 1 Unrest)\.", conf_text(name))
    assert m, conf_text(name)
    return {"Middle East": "middle_east", "Balkans": "balkans"}[m.group(1)], (1 if m.group(2) == "add 1 Unrest"
                                                                              else -1)


@pytest.mark.parametrize("die", [1, 4])
@pytest.mark.parametrize("name", CHECK_OTHERWISE)
def test_conference_uprising_check_with_unrest_change_if_no_uprising(name, die):
    """The named region at column 5 (rises on 4+); Europe is higher but is not checked."""
    region, d = _check_otherwise(name)
    g = to_conference(position(table_event=name, unrest={region: 5, "europe": 7}, table=_ws_table(),
                               forced_dice=[die, 6]), option=WS_EXCLUDE)
    assert conference_done(g)
    assert forced_left(g) == [6]
    if die >= 4:
        assert regions(g)[region] == (2, 1), "uprising: reset, no extra change"
    else:
        assert regions(g)[region] == (5 + d, 0)
    assert regions(g)["europe"] == (7, 0)


@pytest.mark.parametrize("name,region,mod", [("Saad Zaghloul", "middle_east", 0), ("Bolshevik Threat", "europe", 1)])
@pytest.mark.parametrize("die", [2, 3, 4])
def test_conference_uprising_check_in_a_named_region(name, region, mod, die):
    """Zaghloul: 'Uprising Check in the Middle East.' Bolshevik Threat: 'Uprising Check in Europe,
    +1 to the die roll.' The region at column 5 (4+); the Africa track is higher but unchecked."""
    assert conf_text(name) == {"Saad Zaghloul": "Uprising Check in the Middle East.",
                               "Bolshevik Threat": "Uprising Check in Europe, +1 to the die roll."}[name]
    g = to_conference(position(table_event=name, unrest={region: 5, "africa": 7}, table=_ws_table(),
                               forced_dice=[die, 6]), option=WS_EXCLUDE)
    assert conference_done(g)
    assert forced_left(g) == [6]
    assert regions(g)[region] == ((2, 1) if die + mod >= 4 else (5, 0))
    assert regions(g)["africa"] == (7, 0)


@pytest.mark.parametrize("die", [4, 5])
def test_conference_ataturk_keg_then_check(die):
    """'Add 1 Powder Keg in the Middle East, then make an Uprising Check there.' ME 4 (rises on 5+)."""
    g = to_conference(position(table_event="Mustafa Kemal Ataturk", unrest={"middle_east": 4}, table=_ws_table(),
                               forced_dice=[die]), option=WS_EXCLUDE)
    assert conference_done(g)
    assert forced_left(g) == []
    assert regions(g)["middle_east"] == ((3, 2) if die >= 5 else (4, 1))


def test_conference_ataturk_keg_pushes_unrest_before_the_check():
    """Keg into the unrest's column 2 pushes it to 3 (rises on 6); a 6 then raises it."""
    g = to_conference(position(table_event="Mustafa Kemal Ataturk", unrest={"middle_east": 2},
                               kegs={"middle_east": 1}, table=_ws_table(), forced_dice=[6]), option=WS_EXCLUDE)
    assert conference_done(g)
    assert regions(g)["middle_east"] == (4, 3)


# ----------------------------------------------------------------- Bela Kun
BOLSHEVIK_2 = [{"issue": "Negotiations with Russia", "controller": "france", "option": "Don't Offer"}]


@pytest.mark.parametrize("add,risen", [(1, True), (0, False)])
def test_conference_bela_kun_modifier_per_bolshevik_counter(add, risen):
    """'Uprising Check in the Balkans. Add or subtract 1 to/from the die roll for each Bolshevik
    strategy counter on a Settled Issue.' Two counters; the cube owner (France) picks. Balkans at
    column 5 (4+), die 3: +2 -> 5 rises, -2 -> 1 does not."""
    g = to_conference(position(table_event="Bela Kun", cube="france", unrest={"balkans": 5}, table=_ws_table(),
                               settled=BOLSHEVIK_2, forced_dice=[3]), option=WS_EXCLUDE)
    assert g.decision == "sign" and g.current_player == SEAT["france"]
    act(g, "sign", encode("sign", add=add), "france")
    assert conference_done(g)
    assert forced_left(g) == []
    assert regions(g)["balkans"] == ((2, 1) if risen else (5, 0))


def test_conference_bela_kun_without_counters_is_a_plain_check():
    g = to_conference(position(table_event="Bela Kun", unrest={"balkans": 5}, table=_ws_table(),
                               forced_dice=[3, 4]), option=WS_EXCLUDE)
    assert conference_done(g), "no counters: nothing to add or subtract"
    assert forced_left(g) == [4]
    assert regions(g)["balkans"] == (5, 0)


# ----------------------------------------------------------------- Gandhi
def test_conference_gandhi_checks_middle_east_without_sd_counters_there():
    """'If there are no Self-Determination strategy counters on Middle East Issues, make an
    Uprising Check in the Middle East.' An SD counter in Europe (Silesia plebiscite) does not stop it."""
    settled = [{"issue": "Silesia", "controller": "france", "option": "Plebiscite"}]
    g = to_conference(position(table_event="Mahatma Gandhi", unrest={"middle_east": 5}, table=_ws_table(),
                               settled=settled, forced_dice=[4]), option=WS_EXCLUDE)
    assert conference_done(g)
    assert forced_left(g) == []
    assert regions(g)["middle_east"] == (2, 1)


def test_conference_gandhi_sd_counter_in_the_middle_east_prevents_the_check():
    settled = [{"issue": "Syria", "controller": "france", "option": "Independent"}]
    g = to_conference(position(table_event="Mahatma Gandhi", unrest={"middle_east": 5}, table=_ws_table(),
                               settled=settled, forced_dice=[4]), option=WS_EXCLUDE)
    assert conference_done(g)
    assert forced_left(g) == [4]
    assert regions(g)["middle_east"] == (5, 0)


# ----------------------------------------------------------------- Dulles, Nansen (per counter)
def test_conference_dulles_europe_per_german_reparations_counter():
    """'Increase Unrest in Europe by 1 for each German Reparations (Economy) strategy counter on a
    Settled Issue.' Reconstruction 'High' has 2, Indemnity 'Yes' 1: +3."""
    settled = [{"issue": "Reconstruction", "controller": "france", "option": "High"},
               {"issue": "Indemnity", "controller": "usa", "option": "Yes"}]
    g = to_conference(position(table_event="John Foster Dulles", settled=settled))
    assert conference_done(g)
    assert regions(g) == {**{r: (2, 0) for r in REGIONS}, "europe": (5, 0)}


def test_conference_dulles_without_counters_does_nothing():
    g = to_conference(position(table_event="John Foster Dulles"))
    assert conference_done(g)
    assert regions(g) == {r: (2, 0) for r in REGIONS}


NANSEN_SETTLED = BOLSHEVIK_2 + [{"issue": "Transylvania", "controller": "uk", "option": "To Romania"}]


@pytest.mark.parametrize("cube", [None, "france"])
def test_conference_nansen_recovers_two_per_bolshevik_counter(cube):
    """'Recover 2 Exhausted Influence for each Bolshevik strategy counter on a Settled Issue.'
    Three counters: the decider recovers 6 (UK by default, France with its cube)."""
    players = {"uk": {"influence": {"exhausted": 8}}, "france": {"influence": {"exhausted": 8}}}
    g = to_conference(position(table_event="Fridtjof Nansen", cube=cube, settled=NANSEN_SETTLED, players=players))
    assert conference_done(g)
    if cube is None:
        assert infl(g, "uk") == (5 + 6, 10 - 6)
        assert infl(g, "france") == (7, 8)
    else:
        assert infl(g, "uk") == (5, 10)
        assert infl(g, "france") == (6 + 6, 8 - 6 + 1), "the cube then goes to Exhausted"


def test_conference_nansen_without_counters_recovers_nothing():
    players = {"uk": {"influence": {"exhausted": 8}}}
    g = to_conference(position(table_event="Fridtjof Nansen", players=players))
    assert conference_done(g)
    assert infl(g, "uk") == (5, 10)


# ----------------------------------------------------------------- Cottin
def test_conference_cottin_lowest_happiness_all_tied_exhaust_six():
    """'The player with the lowest Happiness (all players if tied) sends 6 Influence to
    Exhausted.' France and the USA tie at 12 (Japan, not a player, is lower); the USA has only 4."""
    players = {"usa": {"influence": {"exhausted": 11}}}
    g = to_conference(position(table_event="Emile Cottin", happiness={"france": 12, "usa": 12, "japan": 3},
                               players=players))
    assert conference_done(g)
    assert infl(g, "france") == (9, 6)
    assert infl(g, "usa") == (0, 15)
    assert infl(g, "uk") == (13, 2) and infl(g, "italy") == (15, 0)


# ----------------------------------------------------------------- Edward House
WAITING = [{"issue": "Tyrol", "cubes": {"uk": 3, "france": 2}}, {"issue": "Fiume", "cubes": {"italy": 4}}, None]


@pytest.mark.parametrize("cube", [None, "italy"])
def test_conference_house_returns_all_influence_on_a_waiting_issue(cube):
    """'Return all Influence of every player on one Issue in the Waiting Room to their Available
    pools.' The decider picks among the waiting issues only."""
    g = to_conference(position(table_event="Edward House", cube=cube, waiting_room=WAITING))
    who = cube or "uk"
    assert g.decision == "waiting_issue" and g.current_player == SEAT[who]
    tyrol, fiume = 10, 13
    assert legal(g) == sorted([encode("choose_issue", issue=tyrol), encode("choose_issue", issue=fiume)])
    before = g.to_dict()
    act(g, "waiting_issue", encode("choose_issue", issue=tyrol), who)
    assert conference_done(g)
    d = g.to_dict()
    assert d["waiting_room"][0] == {"issue": "Tyrol", "cubes": {}}
    assert d["waiting_room"][1] == {"issue": "Fiume", "cubes": {"italy": 4}}
    assert infl(d, "uk") == (infl(before, "uk")[0] + 3, infl(before, "uk")[1])
    assert infl(d, "france") == (infl(before, "france")[0] + 2, infl(before, "france")[1])


def test_conference_house_with_an_empty_waiting_room_does_nothing():
    g = to_conference(position(table_event="Edward House"))
    assert conference_done(g)


# ----------------------------------------------------------------- Lodge
@pytest.mark.parametrize("active,order", [("uk", ["france", "italy", "uk"]), ("usa", ["italy", "uk", "france"])])
def test_conference_lodge_each_player_ending_with_you_exhausts_a_deployed_unit(active, order):
    """'Each player, ending with you, moves one Deployed Military Unit to Exhausted (if any).'
    The USA has no deployed unit; France picks which of its two goes."""
    players = {"uk": {"military": {"deployed": {"pacific": 8}}},
               "france": {"military": {"deployed": {"europe": 8, "balkans": 8}}},
               "italy": {"military": {"deployed": {"africa": 7}}}}
    pos = position(table_event="Henry Cabot Lodge", players=players, active=active,
                   table=[{"issue": "Kurdistan", "cubes": {active: 2}}, None])
    g = to_conference(pos)
    for who in order:
        assert g.decision == "to_exh" and g.current_player == SEAT[who]
        if who == "france":
            assert legal(g) == sorted([encode("unit_to_exhausted", region=RIDX["europe"]),
                                       encode("unit_to_exhausted", region=RIDX["balkans"])])
            g.step(encode("unit_to_exhausted", region=RIDX["balkans"]))
        else:
            g.step(g.legal_actions()[0])
    assert conference_done(g)
    assert mil(g, "france")["deployed"] == {"europe": 8} and mil(g, "france")["exhausted"] == 1
    assert mil(g, "uk")["deployed"] == {} and mil(g, "uk")["exhausted"] == 1
    assert mil(g, "italy")["deployed"] == {} and mil(g, "italy")["exhausted"] == 1
    assert mil(g, "usa")["exhausted"] == 0


# ----------------------------------------------------------------- choose a player, who picks a branch
CHOOSE_PLAYER_EITHER = [("Billy Hughes", 2, "pacific", 2), ("Jan Smuts", 2, "africa", 2)]


@pytest.mark.parametrize("branch", [0, 1])
@pytest.mark.parametrize("name,loss,region,add", CHOOSE_PLAYER_EITHER)
def test_conference_choose_a_player_who_loses_happiness_or_adds_unrest(name, loss, region, add, branch):
    """'Choose a player. They either decrease Happiness by N or add 2 Unrest in R.' France (cube)
    chooses the USA; the USA picks the alternative."""
    reg_name = {"pacific": "Pacific", "africa": "Africa"}[region]
    assert re.search(rf"(decrease|reduce) Happiness by {loss} or add {add} Unrest in (the )?{reg_name}\.$", conf_text(name))
    g = to_conference(position(table_event=name, cube="france", unrest={region: 4}))
    act(g, "choose_player", encode("choose_player", seat=SEAT["usa"]), "france")
    assert g.decision == "branch" and g.current_player == SEAT["usa"]
    before = g.to_dict()
    act(g, "branch", encode("branch", branch=branch), "usa")
    assert conference_done(g)
    if branch == 0:
        assert happy(g) == {**happy(before), "usa": 20 - loss}
        assert regions(g) == regions(before)
    else:
        assert happy(g) == happy(before)
        assert regions(g) == {**regions(before), region: (4 + add, 0)}


def test_conference_billy_hughes_decider_may_choose_themselves():
    g = to_conference(position(table_event="Billy Hughes"))
    assert set(legal(g)) == {encode("choose_player", seat=s) for s in range(4)}
    act(g, "choose_player", encode("choose_player", seat=SEAT["uk"]), "uk")
    act(g, "branch", encode("branch", branch=0), "uk")
    assert happy(g, "uk") == 18


@pytest.mark.parametrize("branch", [0, 1])
def test_conference_foch_demobilize_or_lose_two(branch):
    """'Choose a player. They either demobilize a Military Unit or lose 2 Happiness.' A Demobilize
    action takes the next demobilize space (+5 for the first, rulings A-24)."""
    g = to_conference(position(table_event="Ferdinand Foch", cube="italy"))
    act(g, "choose_player", encode("choose_player", seat=SEAT["usa"]), "italy")
    act(g, "branch", encode("branch", branch=branch), "usa")
    if branch == 0:
        assert g.decision == "demob" and g.current_player == SEAT["usa"]
        g.step(encode("demobilize", source=0))
        assert conference_done(g)
        assert mil(g, "usa")["demobilized"] == 1 and mil(g, "usa")["available"] == 2
        assert happy(g, "usa") == 25
    else:
        assert conference_done(g)
        assert mil(g, "usa")["demobilized"] == 0
        assert happy(g, "usa") == 18


def test_conference_foch_player_without_units_must_lose_happiness():
    """A branch that cannot be performed is not offered: no units, so -2 happiness, no choice."""
    players = {"usa": {"military": {"demobilized": 3}}}
    g = to_conference(position(table_event="Ferdinand Foch", players=players, happiness={"usa": 15}))
    act(g, "choose_player", encode("choose_player", seat=SEAT["usa"]), "uk")
    assert conference_done(g)
    assert happy(g, "usa") == 13


@pytest.mark.parametrize("branch", [0, 1])
def test_conference_orlando_player_and_two_regions(branch):
    """'Choose a player and two Regions. They either send 4 Influence to Exhausted OR add 1 Unrest
    in each of the two Regions.' UK chooses France, then Balkans and Africa (two different)."""
    g = to_conference(position(table_event="Vittorio Orlando"))
    act(g, "choose_player", encode("choose_player", seat=SEAT["france"]), "uk")
    assert g.decision == "choose_region" and g.current_player == SEAT["uk"]
    assert len(g.legal_actions()) == 5
    act(g, "choose_region", encode("choose_region", region=RIDX["balkans"]), "uk")
    assert encode("choose_region", region=RIDX["balkans"]) not in set(legal(g))
    act(g, "choose_region", encode("choose_region", region=RIDX["africa"]), "uk")
    act(g, "branch", encode("branch", branch=branch), "france")
    assert conference_done(g)
    if branch == 0:
        assert infl(g, "france") == (11, 4)
        assert regions(g) == {r: (2, 0) for r in REGIONS}
    else:
        assert infl(g, "france") == (15, 0)
        assert regions(g) == {**{r: (2, 0) for r in REGIONS}, "balkans": (3, 0), "africa": (3, 0)}


def test_conference_orlando_unaffordable_branch_not_offered():
    players = {"france": {"influence": {"exhausted": 12}}}
    g = to_conference(position(table_event="Vittorio Orlando", players=players))
    act(g, "choose_player", encode("choose_player", seat=SEAT["france"]), "uk")
    act(g, "choose_region", encode("choose_region", region=RIDX["europe"]), "uk")
    act(g, "choose_region", encode("choose_region", region=RIDX["pacific"]), "uk")
    assert conference_done(g), "France cannot pay 4: the unrest is added without a choice"
    assert infl(g, "france") == (3, 12)
    assert regions(g) == {**{r: (2, 0) for r in REGIONS}, "europe": (3, 0), "pacific": (3, 0)}


# ----------------------------------------------------------------- each player picks a branch
def _each_player_order(decider, starting):
    k = SEAT[decider]
    seats = [(k + i) % 4 for i in range(4)] if starting else [(k + 1 + i) % 4 for i in range(4)]
    return [NATIONS[s] for s in seats]


@pytest.mark.parametrize("active", ["uk", "usa"])
def test_conference_keynes_each_player_ending_with_you(active):
    """'Ending with you, each player either recovers 4 Influence from Exhausted or increases
    Happiness by 2.' Branch 0 = recover, 1 = happiness; the first two players recover."""
    assert conf_text("John Maynard Keynes").startswith("Ending with you, each player either recovers 4")
    players = {n: {"influence": {"exhausted": 5}} for n in NATIONS}
    pos = position(table_event="John Maynard Keynes", players=players, active=active,
                   table=[{"issue": "Kurdistan", "cubes": {active: 2}}, None])
    g = to_conference(pos)
    order = _each_player_order(active, starting=False)
    assert order[-1] == active
    before = g.to_dict()
    for k, who in enumerate(order):
        act(g, "branch", encode("branch", branch=0 if k < 2 else 1), who)
    assert conference_done(g)
    for k, who in enumerate(order):
        a0, e0 = infl(before, who)
        if k < 2:
            assert infl(g, who) == (a0 + 4, e0 - 4), who
            assert happy(g, who) == 20, who
        else:
            assert infl(g, who) == (a0, e0), who
            assert happy(g, who) == 22, who


@pytest.mark.parametrize("active", ["uk", "italy"])
def test_conference_lenin_each_player_starting_with_you(active):
    """'Starting with you, each player either performs a Demobilize action or reduces Happiness by
    2.' The first demobilizer gets the first space (+5), the second the next (+4). The USA has no
    unit left, so it cannot demobilize and loses 2 without a choice."""
    players = {"usa": {"military": {"demobilized": 3}}}
    pos = position(table_event="Vladimir Lenin", players=players, active=active, happiness={"usa": 14},
                   table=[{"issue": "Kurdistan", "cubes": {active: 2}}, None])
    pos["demobilize_next"] = 0      # the USA's units went to box '1' by mutinies, taking no space
    g = to_conference(pos)
    order = [n for n in _each_player_order(active, starting=True) if n != "usa"]
    assert order[0] == active
    gains = iter([5, 4])
    expected = {"usa": 12}
    for k, who in enumerate(order):
        act(g, "branch", encode("branch", branch=0 if k < 2 else 1), who)
        if k < 2:
            act(g, "demob", encode("demobilize", source=0), who)
            expected[who] = 20 + next(gains)
        else:
            expected[who] = 18
    assert conference_done(g)
    assert {n: happy(g, n) for n in NATIONS} == expected


@pytest.mark.parametrize("name,cost", [("Millicent Fawcett", 4), ("Samuel Gompers", 3)])
def test_conference_each_player_exhausts_or_loses_two(name, cost):
    """'Ending with you, each player spends (exhausts) 4 Influence or loses 2 Happiness' (Fawcett);
    '... either sends 3 Influence to Exhausted or loses 2 Happiness' (Gompers). Italy has too
    little Available to pay, so it loses 2 without a choice. France pays, USA and UK lose 2."""
    assert f"{cost} Influence" in conf_text(name) and conf_text(name).startswith("Ending with you, each player")
    players = {"italy": {"influence": {"exhausted": 15 - (cost - 1)}}}
    g = to_conference(position(table_event=name, players=players))
    act(g, "branch", encode("branch", branch=0), "france")
    act(g, "branch", encode("branch", branch=1), "usa")
    act(g, "branch", encode("branch", branch=1), "uk")
    assert conference_done(g)
    assert infl(g, "france") == (15 - cost, cost)
    assert infl(g, "italy") == (cost - 1, 15 - (cost - 1))
    assert happy(g) == {"uk": 18, "france": 20, "usa": 18, "italy": 18, "japan": 20}


# ----------------------------------------------------------------- optional effects with a cost
COST_OPTIONALS = {
    # name: (cost, happiness gain, {region: (unrest delta, keg delta)})
    "Arthur Balfour": (2, 2, {"middle_east": (2, 0)}),
    "Sykes-Picot Agreement": (1, 0, {"middle_east": (0, 1)}),
    "Tomas Masaryk": (2, 0, {"europe": (-2, 0)}),
    "W.E.B. Du Bois": (3, 2, {}),
    "Wellington Koo": (2, 0, {"pacific": (-2, 0)}),
}


def test_cost_optional_texts():
    assert conf_text("Arthur Balfour") == ("Optional: send 2 Influence to Exhausted, gain 2 Happiness, and add 2 "
                                           "Unrest in the Middle East.")
    assert conf_text("Sykes-Picot Agreement") == "Optional: Spend 1 Influence to add 1 Powder Keg in the Middle East."
    assert conf_text("Tomas Masaryk") == "Optional: Send 2 Influence to Exhausted to reduce Unrest in Europe by 2."
    assert conf_text("W.E.B. Du Bois") == "Optional: Send 3 Influence to Exhausted to increase Happiness by 2."
    assert conf_text("Wellington Koo") == ("Optional: Send 2 Influence to Exhausted to reduce Unrest in the Pacific "
                                           "by 2.")


@pytest.mark.parametrize("accept", [1, 0])
@pytest.mark.parametrize("name", sorted(COST_OPTIONALS))
def test_conference_cost_optional(name, accept):
    """The decider (France, by its cube) pays the influence and gets the effect, or declines."""
    cost, dh, eff = COST_OPTIONALS[name]
    g = to_conference(position(table_event=name, cube="france", unrest={r: 5 for r in REGIONS}))
    assert g.decision == "optional" and g.current_player == SEAT["france"]
    before = g.to_dict()
    assert infl(before, "france") == (14, 0)
    act(g, "optional", encode("accept", yes=accept), "france")
    assert conference_done(g)
    after = g.to_dict()
    if not accept:
        b, a = no_event_moves(before, after)
        b["players"]["france"]["influence"] = {"available": 14, "exhausted": 1}   # the cube goes to Exhausted
        assert a == b
        return
    assert infl(after, "france") == (14 - cost, cost + 1)
    assert happy(after) == {**happy(before), "france": 20 + dh}
    exp = regions(before)
    for r, (du, dk) in eff.items():
        exp[r] = (5 + du, dk)
    assert regions(after) == exp


@pytest.mark.parametrize("name", sorted(COST_OPTIONALS) + ["Robert Borden"])
def test_conference_unaffordable_optional_is_skipped(name):
    """A cost that cannot be paid in full makes the optional effect unavailable: no decision,
    nothing happens (SCHEMA 'cost')."""
    cost = COST_OPTIONALS.get(name, (2,))[0]
    players = {"uk": {"influence": {"exhausted": 15 - 2 - (cost - 1)}}}
    pos = position(table_event=name, players=players, unrest={r: 5 for r in REGIONS}, kegs={"balkans": 2})
    g = to_conference(pos)
    assert conference_done(g)
    assert infl(g, "uk") == (cost - 1, 16 - cost)
    assert happy(g, "uk") == 20
    assert regions(g) == {**{r: (5, 0) for r in REGIONS}, "balkans": (5, 2)}


def test_conference_borden_exhaust_two_to_remove_a_keg_anywhere():
    """'Optional: Exhaust 2 Influence to remove 1 Powder Keg from any Region.'"""
    g = to_conference(position(table_event="Robert Borden", unrest={"balkans": 4, "africa": 3},
                               kegs={"balkans": 2, "africa": 1}))
    act(g, "optional", encode("accept", yes=1), "uk")
    # only regions with a keg to remove are offered (project ruling P-01)
    assert g.decision == "choose_region"
    assert sorted(g.legal_actions()) == [encode("choose_region", region=RIDX[r]) for r in ("balkans", "africa")]
    act(g, "choose_region", encode("choose_region", region=RIDX["balkans"]), "uk")
    assert conference_done(g)
    assert infl(g, "uk") == (11, 4)
    assert regions(g)["balkans"] == (4, 1), "removing a keg does not move unrest"
    assert regions(g)["africa"] == (3, 1)


def test_conference_keg_effect_that_cannot_happen_is_not_offered():
    """Project ruling P-01: Borden with no powder keg anywhere, Sykes-Picot with the Middle East keg
    at its limit: the optional effect could only cost influence, so it is skipped."""
    g = to_conference(position(table_event="Robert Borden", unrest={"balkans": 4}))
    assert conference_done(g)
    assert infl(g, "uk") == (13, 2)            # only the settle's own cubes moved
    g = to_conference(position(table_event="Sykes-Picot Agreement", cube="france", unrest={"middle_east": 5},
                               kegs={"middle_east": 3}))
    assert conference_done(g)
    assert infl(g, "france") == (14, 1)        # the event cube went to Exhausted, nothing paid
    assert regions(g)["middle_east"] == (5, 3)


def test_conference_borden_decline():
    g = to_conference(position(table_event="Robert Borden", unrest={"balkans": 4}, kegs={"balkans": 2}))
    before = g.to_dict()
    act(g, "optional", encode("accept", yes=0), "uk")
    b, a = no_event_moves(before, g.to_dict())
    assert a == b


# ----------------------------------------------------------------- Queen Marie
def test_conference_queen_marie_exhaust_one():
    """'Optional: Exhaust 1 Influence or add 1 Unrest to the Balkans or Europe.'"""
    g = to_conference(position(table_event="Queen Marie of Romania", cube="italy"))
    act(g, "optional", encode("accept", yes=1), "italy")
    act(g, "branch", encode("branch", branch=0), "italy")
    assert conference_done(g)
    assert infl(g, "italy") == (13, 2)
    assert regions(g) == {r: (2, 0) for r in REGIONS}


@pytest.mark.parametrize("region", ["balkans", "europe"])
def test_conference_queen_marie_unrest_in_balkans_or_europe(region):
    g = to_conference(position(table_event="Queen Marie of Romania", cube="italy"))
    act(g, "optional", encode("accept", yes=1), "italy")
    act(g, "branch", encode("branch", branch=1), "italy")
    assert g.decision == "choose_region"
    assert legal(g) == sorted([encode("choose_region", region=RIDX["balkans"]),
                               encode("choose_region", region=RIDX["europe"])])
    act(g, "choose_region", encode("choose_region", region=RIDX[region]), "italy")
    assert conference_done(g)
    assert infl(g, "italy") == (14, 1)
    assert regions(g) == {**{r: (2, 0) for r in REGIONS}, region: (3, 0)}


def test_conference_queen_marie_decline_and_unpayable_branch():
    g = to_conference(position(table_event="Queen Marie of Romania"))
    before = g.to_dict()
    act(g, "optional", encode("accept", yes=0), "uk")
    b, a = no_event_moves(before, g.to_dict())
    assert a == b
    # with nothing Available the exhaust alternative is not offered: straight to the region choice
    players = {"uk": {"influence": {"exhausted": 13}}}
    g = to_conference(position(table_event="Queen Marie of Romania", players=players))
    act(g, "optional", encode("accept", yes=1), "uk")
    assert g.decision == "choose_region"


# ----------------------------------------------------------------- Churchill
@pytest.mark.parametrize("column,net", [(8, 1), (6, -1)])
def test_conference_churchill_deploy_then_gain_one(column, net):
    """'Optional: Perform a Deploy action and then gain 1 Happiness.' Column 8 costs nothing;
    column 6 costs 2 happiness and returns 3 influence (EN:497), then +1."""
    players = {"uk": {"influence": {"exhausted": 4}}}
    g = to_conference(position(table_event="Winston Churchill", players=players, unrest={"europe": 3}))
    act(g, "optional", encode("accept", yes=1), "uk")
    assert g.decision == "deploy" and g.current_player == SEAT["uk"]
    act(g, "deploy", encode("deploy", source=0, region=RIDX["europe"], column=column), "uk")
    assert conference_done(g)
    assert happy(g, "uk") == 20 + net
    assert mil(g, "uk")["deployed"] == {"europe": column}
    assert infl(g, "uk") == ((9, 6) if column == 8 else (12, 3))


def test_conference_churchill_without_a_deployable_unit_is_skipped():
    """Nothing can deploy: the optional effect is unavailable, and no happiness is gained."""
    players = {"uk": {"military": {"demobilized": 3}}}
    g = to_conference(position(table_event="Winston Churchill", players=players, happiness={"uk": 14}))
    assert conference_done(g)
    assert happy(g, "uk") == 14


def test_conference_churchill_decline():
    g = to_conference(position(table_event="Winston Churchill"))
    before = g.to_dict()
    act(g, "optional", encode("accept", yes=0), "uk")
    b, a = no_event_moves(before, g.to_dict())
    assert a == b


# ----------------------------------------------------------------- unsettle events
UNSETTLE = {"Henri Mordacq": {"Reconstruction"}, "Henry White": {WS},
            "Maurice Hankey": {"Reconstruction", WS}, "Stephen Pichon": {WS}}
UNSETTLE_SETTLED = [{"issue": "Reconstruction", "controller": "france", "option": "Medium"},
                    {"issue": WS, "controller": "usa", "option": "Include"},
                    {"issue": "Trial of the Kaiser", "controller": "italy", "option": "Try the Kaiser"},
                    {"issue": "Kiel Canal", "controller": "uk", "option": "Destroy"}]
ISSUE_NO = {"Reconstruction": 51, WS: 42}


def test_unsettle_texts():
    assert conf_text("Henri Mordacq") == "Optional: Unsettle the Reparations Issue of your choice."
    assert conf_text("Henry White") == "Optional: Unsettle the League Issue of your choice."
    assert conf_text("Maurice Hankey") == "Optional: Unsettle a League or Reparations Issue."
    assert conf_text("Stephen Pichon") == "Optional: Unsettle a League Issue."


def _unsettle_pos(name, **kw):
    return position(table_event=name, settled=UNSETTLE_SETTLED, draft_done=False,
                    unrest={r: 4 for r in REGIONS}, kegs={r: 1 for r in REGIONS}, **kw)


@pytest.mark.parametrize("name", sorted(UNSETTLE))
def test_conference_unsettle_offers_only_issues_of_its_categories(name):
    g = to_conference(_unsettle_pos(name))
    act(g, "optional", encode("accept", yes=1), "uk")
    assert g.decision == "unsettle" and g.current_player == SEAT["uk"]
    assert legal(g) == sorted(encode("choose_issue", issue=ISSUE_NO[i]) for i in UNSETTLE[name])


@pytest.mark.parametrize("name", ["Henri Mordacq", "Maurice Hankey"])
def test_conference_unsettle_reparations_bid_then_option(name):
    """Rulings A-07(b): bidding (from the old controller, France), then the winner picks an option;
    no powder keg, no unrest reset, no strategy draft. The USA outbids France with 2 influence and
    picks 'High' (Europe +2, USA -2)."""
    g = to_conference(_unsettle_pos(name))
    before = g.to_dict()
    act(g, "optional", encode("accept", yes=1), "uk")
    act(g, "unsettle", encode("choose_issue", issue=ISSUE_NO["Reconstruction"]), "uk")
    assert controller(g, "Reconstruction") is None
    act(g, "bid", encode("bid", in_region=0, available=0, influence=1), "france")
    act(g, "bid", encode("bid", in_region=0, available=0, influence=2), "usa")
    act(g, "bid", encode("bid_pass"), "italy")
    act(g, "bid", encode("bid_pass"), "uk")
    act(g, "bid", encode("bid_pass"), "france")
    act(g, "option", encode("option", option=2), "usa")
    assert conference_done(g), "no strategy draft after an event unsettle"
    d = g.to_dict()
    assert controller(d, "Reconstruction") == "usa"
    assert [r["option"] for r in d["settled"] if r["issue"] == "Reconstruction"] == ["High"]
    assert infl(d, "usa") == (13, 2)
    assert infl(d, "france") == infl(before, "france"), "a losing bid costs nothing"
    assert happy(d) == {**happy(before), "usa": 18}
    assert regions(d) == {**regions(before), "europe": (6, 1)}, "only the option's unrest; no keg moves"
    assert d["strategies"]["draft_done"] is False
    assert all(p["strategy"] is None for p in d["players"].values())


@pytest.mark.parametrize("name", ["Henry White", "Maurice Hankey", "Stephen Pichon"])
def test_conference_unsettle_league_old_controller_keeps_it(name):
    """Women's Suffrage (USA, 'Include'): the USA bids first and wins alone; it re-picks 'Exclude'
    (UK -1, France -1)."""
    g = to_conference(_unsettle_pos(name))
    before = g.to_dict()
    act(g, "optional", encode("accept", yes=1), "uk")
    act(g, "unsettle", encode("choose_issue", issue=ISSUE_NO[WS]), "uk")
    assert g.decision == "bid" and g.current_player == SEAT["usa"]
    act(g, "bid", encode("bid", in_region=0, available=0, influence=1), "usa")
    pass_all_bids(g)
    act(g, "option", encode("option", option=1), "usa")
    assert conference_done(g)
    d = g.to_dict()
    assert controller(d, WS) == "usa"
    assert [r["option"] for r in d["settled"] if r["issue"] == WS] == ["Exclude"]
    assert happy(d) == {**happy(before), "uk": 19, "france": 19}
    assert regions(d) == regions(before)
    assert infl(d, "usa") == (14, 1)
    assert d["strategies"]["draft_done"] is False


def test_no_military_issue_takes_influence_bids_only():
    """EN:609: an issue with the 'No Military' symbol (Women's Suffrage in our data) may be bid for
    with Influence only, even by a player with available units."""
    g = to_conference(_unsettle_pos("Stephen Pichon"))
    act(g, "optional", encode("accept", yes=1), "uk")
    act(g, "unsettle", encode("choose_issue", issue=ISSUE_NO[WS]), "uk")
    assert g.decision == "bid" and g.to_dict()["players"]["usa"]["military"]["available"] > 0
    bids = [decode(a) for a in g.legal_actions() if decode(a).kind == "bid"]
    assert bids and all(b.params["available"] == 0 and b.params["in_region"] == 0 for b in bids)


def test_conference_unsettle_nobody_bids_goes_to_the_discards():
    """Rulings A-38: an unsettled issue nobody bids on goes on top of the discard pile."""
    g = to_conference(_unsettle_pos("Henri Mordacq"))
    act(g, "optional", encode("accept", yes=1), "uk")
    act(g, "unsettle", encode("choose_issue", issue=ISSUE_NO["Reconstruction"]), "uk")
    pass_all_bids(g)
    assert conference_done(g)
    d = g.to_dict()
    assert controller(d, "Reconstruction") is None
    assert d["issue_discards"][-1] == "Reconstruction"


@pytest.mark.parametrize("name", sorted(UNSETTLE))
def test_conference_unsettle_decline(name):
    g = to_conference(_unsettle_pos(name))
    before = g.to_dict()
    act(g, "optional", encode("accept", yes=0), "uk")
    assert conference_done(g)
    b, a = no_event_moves(before, g.to_dict())
    assert a == b


@pytest.mark.parametrize("name", sorted(UNSETTLE))
def test_conference_unsettle_without_a_candidate_is_skipped(name):
    """No settled issue of the card's categories: nothing to do, no decision."""
    settled = [r for r in UNSETTLE_SETTLED if r["issue"] not in UNSETTLE[name]]
    g = to_conference(position(table_event=name, settled=settled))
    assert conference_done(g)


# =============================================================================================
# Interactions with mutiny (rulings A-10) and the strategy draft (A-07a, A-08)
# =============================================================================================
def test_crisis_mutinies_of_several_nations_go_clockwise_from_the_active_player():
    """A-10: 'Several nations: clockwise from the active player.' France is active; Zaghloul
    (-2 per deployed unit) drops UK 12 -> 8 and France 11 -> 9: France mutinies first, then UK."""
    players = {"uk": {"military": {"deployed": {"europe": 8, "pacific": 8}}},
               "france": {"military": {"deployed": {"balkans": 7}}}}
    pos = position(top="Saad Zaghloul", players=players, active="france", happiness={"uk": 12, "france": 11},
                   table=[{"issue": "Kurdistan", "cubes": {"france": 2}}, None])
    g, _ = to_crisis(pos)
    act(g, "mutiny", encode("demobilize", source=0), "france")
    act(g, "mutiny", encode("demobilize", source=0), "uk")
    assert crisis_done(g)
    assert happy(g, "france") == 10 and happy(g, "uk") == 9


def test_conference_lenin_mutiny_waits_for_the_whole_event():
    """A-10: the mutiny check comes after the effect 'has been applied in full (... one event ...)'.
    Lenin: UK and France (both at 11 with 3 units) take -2 -> 9; every player chooses first, then
    UK and France mutiny (clockwise from the active UK)."""
    g = to_conference(position(table_event="Vladimir Lenin", happiness={"uk": 11, "france": 11}))
    act(g, "branch", encode("branch", branch=1), "uk")
    act(g, "branch", encode("branch", branch=1), "france")
    act(g, "branch", encode("branch", branch=1), "usa")
    act(g, "branch", encode("branch", branch=1), "italy")
    act(g, "mutiny", encode("demobilize", source=0), "uk")
    act(g, "mutiny", encode("demobilize", source=0), "france")
    assert conference_done(g)
    assert happy(g) == {"uk": 10, "france": 10, "usa": 18, "italy": 18, "japan": 20}


def test_conference_first_uprising_from_an_event_starts_the_strategy_draft():
    """EN:585/682 and A-08: the first uprising triggers the strategy draft, also when an event's
    check causes it (here Bolshevik Threat: Europe at column 5, die 3 + 1 = 4). France controls
    Women's Suffrage (4 stars); the others hold none and tie at 0, so the active UK picks first
    (EN:682-690: lowest star total first, ties clockwise from the active player)."""
    pos = position(table_event="Bolshevik Threat", unrest={"europe": 5}, forced_dice=[3], draft_done=False,
                   table=[{"issue": WS, "cubes": {"france": 3, "uk": 1}}, None])
    g = to_conference(pos, option=WS_EXCLUDE)
    assert g.decision == "draft" and g.current_player == SEAT["uk"]
    assert regions(g)["europe"] == (2, 1)


# =============================================================================================
# Further checks
# =============================================================================================
def test_optional_flag_matches_the_card_text():
    """EN:329: a conference event is optional exactly when its text says 'Optional'."""
    for name in ALL_EVENTS:
        assert EVENTS[name]["conference"].get("optional", False) == conf_text(name).startswith("Optional"), name


def test_conference_each_player_order_with_three_players():
    """Rulings A-40 with 3 players (UK, France, USA): Gompers ending with the UK = France, USA, UK."""
    pos = position(table_event="Samuel Gompers", num_players=3)
    g = to_conference(pos)
    act(g, "branch", encode("branch", branch=1), "france")
    act(g, "branch", encode("branch", branch=0), "usa")
    act(g, "branch", encode("branch", branch=1), "uk")
    assert conference_done(g)
    assert infl(g, "usa") == (12, 3)
    assert happy(g) == {"uk": 18, "france": 18, "usa": 20, "italy": 20, "japan": 20}


@pytest.mark.parametrize("delta,risen", [(1, True), (0, False), (-1, False)])
def test_conference_event_check_takes_player_die_modifiers(delta, risen):
    """EN:569: players with a unit in columns 5-7 of the checked region announce +1/-1 before the
    roll, also for an event's check. Zaghloul checks the Middle East (column 5, 4+); France's unit
    is in column 6; the die is 3."""
    players = {"france": {"military": {"deployed": {"middle_east": 6}}}}
    g = to_conference(position(table_event="Saad Zaghloul", unrest={"middle_east": 5}, players=players,
                               table=_ws_table(), forced_dice=[3]), option=WS_EXCLUDE)
    act(g, "modifier", encode("modifier", delta=delta), "france")
    assert conference_done(g)
    assert regions(g)["middle_east"] == ((2, 1) if risen else (5, 0))


def test_conference_unaffordable_optional_still_returns_the_cube_to_exhausted():
    """EN:332 (step 2d): after the conference event, a cube on it goes to Exhausted, also when the
    decider (France) could not pay the optional cost (Masaryk: 2) and nothing happened."""
    players = {"france": {"influence": {"exhausted": 13}}}
    g = to_conference(position(table_event="Tomas Masaryk", cube="france", players=players, unrest={"europe": 5}))
    assert conference_done(g)
    assert infl(g, "france") == (1, 14)
    assert regions(g)["europe"] == (5, 0)
