"""The solitaire bots' rules (EN:888-947), one scenario per rule, each built with Game.from_dict.

In every scenario the bot (France unless said otherwise) starts its turn and the player controls
the next faction clockwise (the USA), so Game.from_dict lets the bot play its turn inside the
kernel and stops at the player's first decision: either the player's own turn or a choice the bot
rules leave to the player (then `acting_for` is the bot)."""
from __future__ import annotations

from v1919_env.actions import encode
from v1919_env.core import layout as L
from v1919_env.game import Game
from helpers.scenario import RBIT, is_legal, legal
from helpers.solitaire import FRANCE, UK, USA, cubes, kinds, settled, slot_issue, solo_game, solo_position

ALL_IN = {"influence": {"available": 15, "exhausted": 0}}


def at_players_turn(g, faction=USA):
    return g.decision == "turn" and g.acting_for == faction == g.solo_faction and g.active_player == faction


# ----------------------------------------------------------------------------- political priorities
def test_bot_settles_the_issue_it_wins_with_the_highest_piv():
    """EN:905 and EN:916: France wins Trade with Germany (PIV 5 for France) and Prussia (Poland: two
    German Containment counters, PIV 7): it settles Prussia and picks Poland; it then advances the
    waiting issue with no influence (EN:918) and leaves the event to the player (EN:919)."""
    g = solo_game(table=[("Trade with Germany", {"france": 2}), ("Prussia", {"france": 3, "uk": 1})],
                  waiting=[("Silesia", {"uk": 1}), "Kiel Canal"])
    assert settled(g)["Prussia"] == ("france", "Poland")
    assert slot_issue(g, 1) == "Kiel Canal" and slot_issue(g, 2) == "Silesia" and slot_issue(g, 3) is None
    assert g.decision == "adv_event" and g.acting_for == FRANCE and g.current_player == 0
    players = g.to_dict()["players"]
    assert players["france"]["influence"] == {"available": 10, "exhausted": 3}    # its 3 cubes exhausted
    assert players["uk"]["influence"] == {"available": 14, "exhausted": 0}        # half of 1 (rounded down)


def test_bot_settle_tie_on_piv_is_the_players_choice():
    """EN:905: Anschluss and Sudetenland are both worth 5 to France: the player picks."""
    g = solo_game(table=[("Anschluss", {"france": 2}), ("Sudetenland", {"france": 1})],
                  waiting=["Silesia", "Kiel Canal"])
    assert g.decision == "turn" and g.acting_for == FRANCE
    assert sorted(int(a) for a in g.legal_actions()) == [encode("settle", slot=0), encode("settle", slot=1)]


def test_bot_places_the_minimum_on_the_two_issues_the_player_selects():
    """EN:906: every first placement is the minimum to lead, on an issue with an affordable partner;
    the second likewise; then the turn ends (no military priority holds)."""
    g = solo_game(table=[("Kiel Canal", {"uk": 2}), ("Prussia", {"usa": 1})],
                  waiting=["Silesia", ("Tyrol", {"uk": 3})])
    assert g.decision == "turn" and g.acting_for == FRANCE
    want = {encode("place", slot=0, n=3), encode("place", slot=1, n=2), encode("place", slot=2, n=1),
            encode("place", slot=3, n=4)}
    assert set(int(a) for a in g.legal_actions()) == want
    g.step(encode("place", slot=1, n=2))
    assert g.decision == "place2" and g.acting_for == FRANCE
    assert set(int(a) for a in g.legal_actions()) == {encode("place", slot=0, n=3), encode("place", slot=2, n=1),
                                                      encode("place", slot=3, n=4)}
    g.step(encode("place", slot=2, n=1))
    assert at_players_turn(g)
    assert cubes(g, 1) == {"usa": 1, "france": 2} and cubes(g, 2) == {"france": 1}


def test_bot_place_needs_a_partner_it_can_afford():
    """EN:906: with 4 cubes France can lead Silesia (1) and Kiel Canal (3), never Tyrol (4) with anything."""
    g = solo_game(table=[("Kiel Canal", {"uk": 2}), ("Prussia", {"usa": 5})],
                  waiting=["Silesia", ("Tyrol", {"uk": 3})],
                  players={"france": {"influence": {"available": 4, "exhausted": 11}}})
    assert set(int(a) for a in g.legal_actions()) == {encode("place", slot=0, n=3), encode("place", slot=2, n=1)}


def test_bot_reclaims_six_and_its_exhausted_units_but_not_deployed_ones():
    """EN:906-907, rulings A-16: France cannot lead two issues: it takes back six cubes and its
    exhausted unit; its deployed unit stays."""
    g = solo_game(table=[("Kiel Canal", {"uk": 5}), ("Prussia", {"uk": 5})],
                  waiting=[("Silesia", {"usa": 4}), ("Tyrol", {"usa": 4})],
                  players={"france": {"influence": {"available": 2, "exhausted": 13},
                                      "military": {"available": 1, "exhausted": 1, "deployed": {"africa": 8}}}})
    assert at_players_turn(g)
    fr = g.to_dict()["players"]["france"]
    assert fr["influence"] == {"available": 8, "exhausted": 7}
    assert fr["military"]["available"] == 2 and fr["military"]["exhausted"] == 0
    assert fr["military"]["deployed"] == {"africa": 8}


def test_bot_with_nothing_else_settles_the_other_bots_issue():
    """EN:908: France can neither settle, place nor reclaim: it settles Kiel Canal, which the UK bot
    wins; the UK takes its best option (Open to Commerce, its naval flag: PIV 4, EN:916)."""
    g = solo_game(table=[("Kiel Canal", {"uk": 1}), ("Prussia", {"usa": 1})],
                  waiting=[("Silesia", {"france": 15}), "Tyrol"])
    assert settled(g)["Kiel Canal"] == ("uk", "Open to Commerce")
    assert g.to_dict()["settled"][0].get("naval_uk") == 1


def test_bot_never_settles_the_players_issue_and_passes():
    """EN:908: the only table issues are the player's: France takes no political action."""
    before = solo_position(table=[("Kiel Canal", {"usa": 1}), ("Prussia", {"usa": 2})],
                           waiting=[("Silesia", {"france": 15}), "Tyrol"])
    g = Game.from_dict(before)
    assert at_players_turn(g)
    assert g.to_dict()["settled"] == [] and cubes(g, 0) == {"usa": 1}
    assert int(g.state[L.PASS_STREAK]) == 1


# ----------------------------------------------------------------------------- settling
def test_bot_option_least_unhappiness_breaks_a_piv_tie():
    """EN:916: High Seas Fleet is worth 5 to France by Divide and by Scuttle; Divide costs France no
    happiness, Scuttle 1: Divide."""
    g = solo_game(table=[("High Seas Fleet", {"france": 1}), "Kiel Canal"], waiting=["Silesia", "Tyrol"])
    assert settled(g)["High Seas Fleet"] == ("france", "Divide Among Allies")


def test_bot_option_still_tied_is_the_players_choice():
    """EN:916: Silesia To Poland and To Czechoslovakia are worth 6 to France and cost it nothing."""
    g = solo_game(table=[("Silesia", {"france": 1}), "Kiel Canal"], waiting=["Prussia", "Tyrol"])
    assert g.decision == "option" and g.acting_for == FRANCE
    assert set(int(a) for a in g.legal_actions()) == {encode("option", option=1), encode("option", option=2)}


def test_bot_advances_an_issue_it_wins_else_the_players_choice():
    """EN:918: France wins waiting Tyrol: it advances it. With two issues it wins, the player picks."""
    g = solo_game(table=[("Anschluss", {"france": 1}), "Kiel Canal"], waiting=[("Silesia", {"uk": 1}),
                                                                             ("Tyrol", {"france": 1})])
    assert slot_issue(g, 0) == "Tyrol"
    g = solo_game(table=[("Anschluss", {"france": 1}), "Kiel Canal"], waiting=[("Silesia", {"france": 2}),
                                                                             ("Tyrol", {"france": 1})])
    assert g.decision == "adv_issue" and g.acting_for == FRANCE and len(g.legal_actions()) == 2
    g = solo_game(table=[("Anschluss", {"france": 1}), "Kiel Canal"], waiting=[("Silesia", {"uk": 2}),
                                                                             ("Tyrol", {"usa": 1})])
    assert g.decision == "adv_issue" and len(g.legal_actions()) == 2


def test_bot_draws_the_top_issue_and_discards_the_next():
    """EN:920: the bot never takes from the discards: the top card (Vietnam) goes to the waiting
    room, the next (Korea) to the discards."""
    g = solo_game(table=[("Anschluss", {"france": 1}), "Kiel Canal"], waiting=[("Silesia", {"uk": 1}), "Tyrol"],
                  issue_deck_top=["Korea", "Vietnam"], issue_discards=["Thrace"])
    g.step(encode("advance_event", slot=0))             # the player's choice for the bot (EN:919)
    d = g.to_dict()
    assert [e and e["issue"] for e in d["waiting_room"]] == ["Silesia", "Vietnam", None]
    assert d["issue_discards"] == ["Thrace", "Korea"]


def test_bot_draw_keeps_game_end_when_it_would_be_discarded():
    """EN:920 play note: GAME END drawn as the discard swaps with the card just added."""
    ge = "GAME END (Rush to the Finish)"
    g = solo_game(table=[("Anschluss", {"france": 1}), "Kiel Canal"], waiting=[("Silesia", {"uk": 1}), "Tyrol"],
                  issue_deck_top=[ge, "Vietnam"])
    g.step(encode("advance_event", slot=0))
    d = g.to_dict()
    assert [e and e["issue"] for e in d["waiting_room"]] == ["Silesia", ge, None]
    assert d["issue_discards"][-1] == "Vietnam"


def test_bot_optional_event_is_performed_the_players_stays_optional():
    """EN:917, rulings A-29: Keith Murdoch ("Optional: Add 2 Unrest in the Pacific") is on the table
    when the France bot settles: it is performed. When the player's faction settles it may decline."""
    g = solo_game(table=[("Anschluss", {"france": 1}), "Kiel Canal"], waiting=[("Silesia", {"uk": 1}), "Tyrol"],
                  event_table="Keith Murdoch")
    assert g.to_dict()["regions"]["pacific"]["unrest"] == 3
    assert g.decision == "adv_event" and g.acting_for == FRANCE
    g = solo_game(active="usa", table=[("Anschluss", {"usa": 1}), "Kiel Canal"],
                  waiting=[("Silesia", {"uk": 1}), "Tyrol"], event_table="Keith Murdoch")
    g.step(encode("settle", slot=0))
    g.step(encode("option", option=0))
    assert g.decision == "optional" and g.acting_for == USA and len(g.legal_actions()) == 2


# ----------------------------------------------------------------------------- military priorities
def _exposed_france(**kw):
    # France controls Prussia and Silesia (Europe), the USA Tyrol: France has the most issues there
    return dict(settled=[("Prussia", "france", "Germany"), ("Silesia", "france", "Plebiscite"),
                         ("Tyrol", "usa", "Divided")],
                table=[("Kiel Canal", {"uk": 1}), ("Anschluss", {"usa": 1})],
                waiting=["Thrace", "Fiume"], **kw)


def test_bot_deploys_to_the_7_column_where_an_uprising_threatens_it():
    """EN:896: unrest on the 4 column in Europe, France has the most issues there: a unit to column 7
    before its political action (+2 cubes back, -1 happiness)."""
    g = solo_game(**_exposed_france(regions={"europe": {"unrest": 4}},
                                    players={"france": {"influence": {"available": 13, "exhausted": 2}}}))
    fr = g.to_dict()["players"]["france"]
    assert fr["military"]["deployed"] == {"europe": 7}
    assert g.to_dict()["happiness"]["france"] == 19


def test_bot_deploys_to_the_8_column_when_7_is_taken_or_would_force_a_demobilization():
    g = solo_game(**_exposed_france(regions={"europe": {"unrest": 4}},
                                    players={"uk": {"military": {"available": 2, "deployed": {"europe": 7}}}}))
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {"europe": 8}
    # at happiness 11 (3 units allowed) the 7 column's -1 would force a demobilization
    g = solo_game(**_exposed_france(regions={"europe": {"unrest": 4}}, happiness={"france": 11}))
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {"europe": 8}
    # both taken: no unit
    g = solo_game(**_exposed_france(regions={"europe": {"unrest": 4}},
                                    players={"uk": {"military": {"available": 2, "deployed": {"europe": 7}}},
                                             "usa": {"military": {"available": 2, "deployed": {"europe": 8}}}}))
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {}


def test_bot_does_not_deploy_below_the_4_column_or_where_it_is_not_exposed():
    g = solo_game(**_exposed_france(regions={"europe": {"unrest": 3}}))
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {}
    g = solo_game(**_exposed_france(regions={"balkans": {"unrest": 5}}))
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {}


def test_bot_region_tie_break_most_issues_then_highest_star():
    """EN:898: Europe and the Middle East both qualify; France has two issues in Europe, one in the
    Middle East: Europe."""
    kw = _exposed_france(regions={"europe": {"unrest": 4}, "middle_east": {"unrest": 5}})
    kw["settled"] = kw["settled"] + [("Syria", "france", "French Mandate")]
    g = solo_game(**kw)
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {"europe": 7}


def test_bot_region_tie_left_by_the_rules_goes_to_the_games_die():
    """EN:898: Europe and the Middle East qualify, France has two issues in each, the best a 5 star:
    a die for each region (the game's dice, queued here): the higher roll wins."""
    kw = _exposed_france(regions={"europe": {"unrest": 4}, "middle_east": {"unrest": 4}})
    kw["settled"] = kw["settled"] + [("Syria", "france", "French Mandate"), ("Arabia", "france", "UK Protectorate")]
    g = solo_game(forced_dice=[2, 5], **kw)
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {"middle_east": 7}
    g = solo_game(forced_dice=[5, 2], **kw)
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {"europe": 7}
    g = solo_game(forced_dice=[3, 3, 1, 4], **kw)          # a tie rolls again
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {"middle_east": 7}


def test_bot_military_check_comes_again_after_the_political_action():
    """EN:899: Europe is on the 2 column at the start of France's turn; France settles Anschluss
    ("No": Europe +2), so after its political action Europe is on the 4 column where France has the
    most issues: it deploys then, once."""
    g = solo_game(settled=[("Prussia", "france", "Germany"), ("Silesia", "france", "Plebiscite")],
                  table=[("Anschluss", {"france": 1}), "Kiel Canal"], waiting=[("Thrace", {"uk": 1}), "Fiume"],
                  regions={"europe": {"unrest": 2}})
    assert g.decision == "adv_event" and g.to_dict()["players"]["france"]["military"]["deployed"] == {}
    assert g.to_dict()["regions"]["europe"]["unrest"] == 4
    g.step(encode("advance_event", slot=0))
    assert at_players_turn(g)
    assert g.to_dict()["players"]["france"]["military"]["deployed"] == {"europe": 7}


def test_bot_demobilizes_when_one_or_two_from_a_forced_demobilization():
    """EN:897: at happiness 12 (3 units allowed down to 11) France is 2 from a forced demobilization and
    the first demobilize space gives 2+: it demobilizes (the player picks which unit)."""
    g = solo_game(table=[("Kiel Canal", {"uk": 1}), ("Anschluss", {"usa": 1})], waiting=["Thrace", "Fiume"],
                  happiness={"france": 12},
                  players={"france": {"military": {"available": 2, "exhausted": 1}}})
    assert g.decision == "turn" and g.acting_for == FRANCE
    assert kinds(g) == {"demobilize"} and len(g.legal_actions()) == 2
    g = solo_game(table=[("Kiel Canal", {"uk": 1}), ("Anschluss", {"usa": 1})], waiting=["Thrace", "Fiume"],
                  happiness={"france": 15})
    assert g.decision == "turn" and g.acting_for == FRANCE and "demobilize" not in kinds(g)


# ----------------------------------------------------------------------------- uprisings and bids
def _uprising(dice, **kw):
    """The France bot settles Anschluss; the crisis (Arthur Balfour) checks the region of most unrest."""
    base = dict(table=[("Anschluss", {"france": 1}), "Kiel Canal"], waiting=[("Silesia", {"uk": 1}), "Tyrol"],
                crisis="Arthur Balfour", waiting_events=("Bela Kun", "Billy Hughes"), forced_dice=dice)
    base.update(kw)
    g = solo_game(**base)
    if g.decision == "adv_event":
        g.step(encode("advance_event", slot=0))
    return g


def test_bot_die_modifier_minus_one_when_it_would_be_affected_else_plus_one():
    """EN:926, rulings A-15: the USA bot's unit sits in the Pacific's 6 column; the Pacific is on the 4
    column (uprising on 5+). When the USA controls the only Pacific issue it subtracts 1 and a 5
    raises nothing; when France controls it the USA adds 1 and a 4 is an uprising."""
    dep = {"usa": {"military": {"available": 2, "deployed": {"pacific": 6}}},
           "france": {"military": {"available": 0, "exhausted": 3}}}      # France cannot deploy itself
    g = _uprising([5], faction="uk", regions={"pacific": {"unrest": 4}}, players=dep,
                  settled=[("Korea", "usa", "Independence")])
    assert settled(g)["Korea"] == ("usa", "Independence") and at_players_turn(g, USA) is False
    assert int(g.state[L.UP_MOD + 3]) == -1
    g = _uprising([4], faction="uk", regions={"pacific": {"unrest": 4}}, players=dep,
                  settled=[("Korea", "france", "Independence")])
    assert int(g.state[L.UP_MOD + 3]) == 1 and int(g.state[L.UP_RISEN]) == 1 << 3
    # the switch comes first (rulings A-33): UK 0 = USA 0 < France 8, the player's choice
    assert g.decision == "choose_faction" and settled(g)["Korea"][0] == "france"


def test_uprising_switches_the_player_to_the_weakest_faction_before_the_bid():
    """EN:949-953, rulings A-33: an uprising unsettles the USA's Korea; strengths (counting Korea)
    UK 5 (Syria), France 4+1 (Anschluss No) = 5 after its settle, USA 3: the player takes the USA."""
    g = _uprising([6], faction="uk", regions={"pacific": {"unrest": 4}},
                  settled=[("Korea", "usa", "Independence"), ("Thrace", "uk", "To Turkey")])
    assert g.solo_faction == USA
    assert g.decision == "bid" and g.acting_for == USA


def test_switch_tie_is_the_players_choice():
    g = _uprising([6], faction="usa", regions={"pacific": {"unrest": 4}},
                  settled=[("Korea", "usa", "Independence"), ("Dobruja", "uk", "To Bulgaria")])
    # UK 3, France 5 (Anschluss + German Reparations), USA 3: UK or USA
    assert g.decision == "choose_faction"
    assert set(int(a) for a in g.legal_actions()) == {encode("choose_player", seat=UK),
                                                      encode("choose_player", seat=USA)}
    g.step(encode("choose_player", seat=UK))
    assert g.solo_faction == UK and g.decision == "bid" and g.acting_for == UK


def test_bot_bids_units_by_the_chart_and_piv_influence_and_the_player_may_pass():
    """EN:930-947: France (3 units: bids 2, PIV of Korea 3 for France) and the UK (1 unit left: bids
    1; 3 cubes) bid; France's offer (2, 3) is the best; the player passes and France pays."""
    g = _uprising([6], faction="uk", regions={"pacific": {"unrest": 4}},
                  settled=[("Korea", "usa", "Independence"), ("Thrace", "uk", "To Turkey")],
                  players={"uk": {"military": {"available": 1, "demobilized": 2}}})
    assert g.solo_faction == USA and g.decision == "bid"
    assert (int(g.state[L.BID_HIGH]), int(g.state[L.BID_STR]), int(g.state[L.BID_INF])) == (FRANCE, 2, 3)
    legal = [int(a) for a in g.legal_actions()]
    assert encode("bid_pass") in legal and encode("bid", in_region=0, available=2, influence=3) not in legal
    assert encode("bid", in_region=0, available=2, influence=4) in legal
    fr = g.to_dict()["players"]["france"]
    g.step(encode("bid_pass"))
    # France won; Korea's two options are worth 3 to France and cost it nothing: the player's choice
    assert settled(g)["Korea"] == ("france", None) and g.decision == "option" and g.acting_for == FRANCE
    after = g.to_dict()["players"]["france"]
    assert after["military"]["exhausted"] == fr["military"]["exhausted"] + 2
    assert after["influence"]["exhausted"] == fr["influence"]["exhausted"] + 3


def test_bot_bid_uses_its_in_region_unit_first():
    """EN:940: France's unit in the Pacific (strength 2) plus one available unit: strength 3."""
    g = _uprising([6], faction="uk", regions={"pacific": {"unrest": 4}},
                  settled=[("Korea", "usa", "Independence"), ("Thrace", "uk", "To Turkey")],
                  players={"france": {"military": {"available": 2, "deployed": {"pacific": 8}}}})
    assert g.decision == "bid" and int(g.state[L.BID_HIGH]) == FRANCE
    assert int(g.state[L.BID_STR]) == 3 and int(g.state[L.BID_INREG]) == 1 and int(g.state[L.BID_NAVAIL]) == 1


def test_equal_bot_bids_the_richer_bot_adds_one_else_the_player_picks():
    """EN:945-947: Armenia (the player's USA, Middle East) is unsettled; France and the UK both offer
    2 units and its PIV, 4 cubes. With more available influence France bids 5. With equal influence
    the offers stay equal and, if the player passes, the player picks the winner."""
    base = dict(faction="uk", regions={"middle_east": {"unrest": 4}},
                settled=[("Armenia", "usa", "Turkey"), ("Rheinland", "uk", "French Occupation")])
    g = _uprising([6], players={"uk": {"influence": {"available": 12, "exhausted": 2}}}, **base)
    assert g.solo_faction == USA and g.decision == "bid"         # strengths UK 6, France 5, USA 4
    assert (int(g.state[L.BID_HIGH]), int(g.state[L.BID_STR]), int(g.state[L.BID_INF])) == (FRANCE, 2, 5)
    g = _uprising([6], **base)
    assert (int(g.state[L.BID_STR]), int(g.state[L.BID_INF])) == (2, 4)
    g.step(encode("bid_pass"))
    assert g.decision == "choose_faction" and g.acting_for == USA
    assert set(int(a) for a in g.legal_actions()) == {encode("choose_player", seat=UK),
                                                      encode("choose_player", seat=FRANCE)}
    uk = g.to_dict()["players"]["uk"]
    g.step(encode("choose_player", seat=UK))
    assert settled(g)["Armenia"] == ("uk", "US Mandate")      # PIV 4 three ways; the only one gaining happiness
    after = g.to_dict()["players"]["uk"]
    assert after["influence"]["exhausted"] == uk["influence"]["exhausted"] + 4
    assert after["military"]["exhausted"] == uk["military"]["exhausted"] + 2


# ----------------------------------------------------------------------------- the player's rules
def test_player_scores_a_vp_when_sole_strongest_and_everybody_controls_an_issue():
    """EN:877-881: France passes; the USA's turn begins: USA 6 (Rheinland) > UK 3, France 4: +1 VP.
    Not when tied, not when a faction controls nothing."""
    common = dict(table=[("Kiel Canal", {"usa": 1}), ("Prussia", {"usa": 2})],
                  waiting=[("Silesia", {"france": 14}), "Fiume"], vp=3)
    g = solo_game(settled=[("Dobruja", "uk", "To Bulgaria"), ("Tyrol", "france", "Divided"),
                           ("Rheinland", "usa", "French Occupation")], **common)
    assert at_players_turn(g) and g.player_vp == 4
    g = solo_game(settled=[("Dobruja", "uk", "To Bulgaria"), ("Constantinople", "france", "To Turkey"),
                           ("Rheinland", "usa", "French Occupation")], **common)
    assert at_players_turn(g) and g.player_vp == 3               # France 6 = USA 6: not the sole strongest
    g = solo_game(settled=[("Tyrol", "france", "Divided"), ("Rheinland", "usa", "French Occupation")], **common)
    assert at_players_turn(g) and g.player_vp == 3               # the UK controls nothing


def test_player_must_settle_when_leading_both_table_issues():
    """EN:884."""
    g = solo_game(active="usa", faction="usa", table=[("Kiel Canal", {"usa": 1}), ("Prussia", {"usa": 2})],
                  waiting=["Silesia", "Tyrol"])
    assert at_players_turn(g)
    assert "place" not in kinds(g) and "reclaim" not in kinds(g)
    assert {encode("settle", slot=0), encode("settle", slot=1)} <= set(int(a) for a in g.legal_actions())
    g = solo_game(active="usa", faction="usa", table=[("Kiel Canal", {"usa": 1}), ("Prussia", {"uk": 2})],
                  waiting=["Silesia", "Tyrol"])
    assert "place" in kinds(g)


def test_player_reclaim_must_take_something_from_the_exhausted_box():
    """Ruling P-31 (EN:274-280): in the solitaire game a deployed unit alone is no Reclaim, so the player
    cannot hold the game still by deploying and recalling a unit every turn; with an exhausted cube
    (or unit) it may recall the deployed unit with it. The normal game keeps the recall alone."""
    deployed = {"military": {"available": 2, "exhausted": 0, "deployed": {"africa": 8}}}
    g = solo_game(active="usa", faction="usa", table=[("Kiel Canal", {"uk": 1}), ("Prussia", {"uk": 2})],
                  waiting=["Silesia", "Tyrol"], players={"usa": {"influence": {"available": 15, "exhausted": 0},
                                                                  **deployed}})
    assert at_players_turn(g)
    assert "reclaim" not in kinds(g) and "place" in kinds(g)
    g = solo_game(active="usa", faction="usa", table=[("Kiel Canal", {"uk": 1}), ("Prussia", {"uk": 2})],
                  waiting=["Silesia", "Tyrol"], players={"usa": {"influence": {"available": 14, "exhausted": 1},
                                                                  **deployed}})
    recl = sorted((a.params["n"], a.params["recall"]) for a in legal(g) if a.kind == "reclaim")
    assert recl == [(1, 0), (1, RBIT["africa"])]
    four = Game.from_dict({"num_players": 4, "active": "usa", "strategies": {"draft_done": True},
                           "players": {"usa": deployed}})
    assert is_legal(four, "reclaim", n=0, recall=RBIT["africa"])


def test_event_unsettle_switches_the_player_before_the_bid():
    """EN:951 and EN:917: Henri Mordacq's optional conference event is performed for the France bot;
    the only Reparations issue (the USA's Widows' Pensions) is unsettled, and the player, then the
    USA, switches to the weakest faction, France (UK 6, France 5, USA 5 + Industry 1), to bid."""
    g = solo_game(table=[("Anschluss", {"france": 1}), "Kiel Canal"], waiting=[("Silesia", {"uk": 1}), "Tyrol"],
                  event_table="Henri Mordacq",
                  settled=[("Widows' Pensions", "usa", "No"), ("Rheinland", "uk", "French Occupation")])
    assert g.solo_faction == FRANCE
    assert g.decision == "bid" and g.acting_for == FRANCE
    assert "Widows' Pensions" not in settled(g)
