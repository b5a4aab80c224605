"""The card-set validation layer (issue 7, item 1): every field's type and range against what the
rules core can hold, and the fields that must agree; errors name the section, the card and the
field. The reported crashes run in subprocesses (before the fix they segfaulted or aborted)."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from v1919_env.cards import CardDataError, load_card_set, read_card_set, validate_card_set
from v1919_env.core import layout as L
from v1919_env.core import tables as TB
from v1919_env.core.actions import SEGMENT_SIZE

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 300


@pytest.fixture()
def raw():
    return copy.deepcopy(read_card_set())


def _rejects(raw, *fragments):
    with pytest.raises(CardDataError) as e:
        validate_card_set(raw)
    for f in fragments:
        assert f in str(e.value), str(e.value)
    return str(e.value)


def _event(raw, name):
    return next(e for e in raw["events"] if e["name"] == name)


def _write(tmp_path, raw, name="cards.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(raw))
    return str(p)


# ------------------------------------------------------------------ the reported failures, end to end
REPORTED = [
    (("board", "table_issues", "value"), 1000000, "board.table_issues.value: 1000000 is out of range 2..2"),
    (("board", "strategy_cards_extra", "value"), 1000000, "board.strategy_cards_extra.value: 1000000 is out of range"),
    (("board", "track_columns", "value"), "x", "board.track_columns.value: expected an integer, got a string 'x'"),
]


@pytest.mark.parametrize("path,value,message", REPORTED, ids=[r[0][1] for r in REPORTED])
def test_reported_card_sets_are_rejected_by_validate_and_by_game_new(tmp_path, raw, path, value, message):
    raw[path[0]][path[1]][path[2]] = value
    f = _write(tmp_path, raw)
    cli = subprocess.run([sys.executable, "-m", "v1919_env.cli", "data", "validate", "--cards", f], cwd=ROOT,
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert cli.returncode == 2 and message in cli.stderr and "Traceback" not in cli.stderr, cli.stderr
    code = ("from v1919_env.game import Game\nfrom v1919_env.cards import CardDataError\n"
            f"try:\n    Game.new(4, seed=0, card_set={f!r})\nexcept CardDataError as e:\n    print('REJECTED', e)")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, f"exit {p.returncode}: {p.stderr[-2000:]}"
    assert p.stdout.startswith("REJECTED") and message in p.stdout, p.stdout + p.stderr


def test_the_shipped_set_passes():
    validate_card_set(read_card_set())
    assert load_card_set().label == "versailles1919-standard@1.0.0"


# ------------------------------------------------------------------ strict types
@pytest.mark.parametrize("value,kind", [(True, "a boolean"), (4.0, "a number"), ("4", "a string"), (None, "null"),
                                        ([4], "a list")])
def test_an_integer_field_takes_only_an_integer(raw, value, kind):
    raw["issues"][0]["stars"] = value
    _rejects(raw, "issues[0] 'Kiel Canal' (#1).stars: expected an integer, got " + kind)


@pytest.mark.parametrize("field,value", [("no_military", 1), ("no_military", "no"), ("game_end", "no"),
                                         ("game_end", 0)])
def test_a_boolean_field_takes_only_true_or_false(raw, field, value):
    raw["issues"][0][field] = value
    _rejects(raw, f"issues[0] 'Kiel Canal' (#1).{field}: expected true or false")


def test_a_name_must_be_a_string(raw):
    raw["events"][2]["name"] = 7
    _rejects(raw, "events[2]", ".name: expected a non-empty string, got an integer 7")


UNKNOWN_FIELD_AT = {
    "board.track_columns": lambda r: r["board"]["track_columns"],
    "issues[0] 'Kiel Canal' (#1)": lambda r: r["issues"][0],
    "(#1).options[0]": lambda r: r["issues"][0]["options"][0],
    "events[0] ": lambda r: r["events"][0]["crisis"],
    "conditions[0]": lambda r: r["strategies"][0]["conditions"][0],
    "card_set": lambda r: r["card_set"],
    "card set": lambda r: r,
}


@pytest.mark.parametrize("where", list(UNKNOWN_FIELD_AT))
def test_unknown_fields_are_rejected_at_every_level(raw, where):
    UNKNOWN_FIELD_AT[where](raw)["colour"] = "red"
    _rejects(raw, where, ".colour: unknown")


# ------------------------------------------------------------------ board numbers against what the core holds
BOARD_RANGES = [            # (table, a value just outside, the range the message states)
    ("track_columns", 9, "8..8"), ("track_columns", 7, "8..8"),
    ("table_issues", 1, "2..2"), ("table_issues", 3, "2..2"),
    ("waiting_issues", 4, "0..3"), ("waiting_issues", -1, "0..3"),
    ("waiting_issues_solo", 4, "0..3"),
    ("setup_discards", 53, "0..47"),
    ("table_events", 2, "1..1"), ("waiting_events", 3, "2..2"),
    ("strategy_cards_extra", 2, "0..1"), ("strategy_cards_extra", -1, "0..1"),
    ("reclaim_max", 7, "0..6"), ("negotiation_transfer_max", 7, "0..6"),
    ("powder_keg_max_column", 4, "0..3"), ("powder_keg_start", 4, "0..3"),
    ("unrest_start_column", 0, "1..8"), ("unrest_start_column", 9, "1..8"),
    ("happiness_max", 31, "1..30"), ("happiness_min", 1, "0..0"), ("happiness_start", 31, "0..30"),
    ("signing_threshold", 0, "1..30"),
    ("influence_per_player", 0, "1..15"), ("influence_per_player", 16, "1..15"), ("military_per_player", 4, "0..3"),
    ("random_region_none_roll", 5, "6..6"), ("demobilize_last_box", 31, "0..30"),
    ("mutiny_box", 2, "1..1"), ("happiness_zero_vp", 100, "-99..99"), ("flag_counter_vp", -100, "-99..99"),
]


@pytest.mark.parametrize("table,value,rng", BOARD_RANGES, ids=[f"{t}={v}" for t, v, _ in BOARD_RANGES])
def test_board_numbers_outside_what_the_core_holds_are_rejected(raw, table, value, rng):
    raw["board"][table]["value"] = value
    _rejects(raw, f"board.{table}.value: {value} is out of range {rng}")


def test_the_limits_come_from_the_core_layouts():
    from v1919_env.cards import kernel_limits
    lim, tl = kernel_limits(), dict(TB.T_LAYOUT)
    assert lim["track_columns"] == tl["uprising_threshold"] - 1 == 8
    assert lim["first_deploy_column"] + lim["deploy_columns"] - 1 == lim["track_columns"]
    assert lim["deploy_columns"] * L.N_REGIONS * 6 == SEGMENT_SIZE["deploy"]
    assert lim["happiness_max"] == tl["units_allowed"] - 1
    assert lim["reclaim_max"] + 1 == SEGMENT_SIZE["reclaim"] // 32
    assert lim["transfer_max"] * L.MAX_PLAYERS == SEGMENT_SIZE["transfer"]
    assert L.MAX_PLAYERS + lim["strategy_cards_extra"] == dict(L.LAYOUT)["strat_dealt"]
    assert lim["effect_rows"] == TB.EV_LEN and lim["conditions"] == TB.MAX_COND
    assert len(lim["variant_names"]) == tl["variant_below_game_end"]


@pytest.mark.parametrize("value", [1000000, 10 ** 30, -1, 2 ** 63])
def test_extreme_numbers_are_named_not_crashed_on(raw, value):
    raw["board"]["table_issues"]["value"] = value
    msg = _rejects(raw, "board.table_issues.value", "out of range")
    assert len(msg) < 200


def test_a_5000_digit_number_is_a_card_data_error(tmp_path):
    p = tmp_path / "big.json"
    r = read_card_set()
    r["board"]["track_columns"]["value"] = "@"
    p.write_text(json.dumps(r).replace('"@"', "9" * 5000))
    with pytest.raises(CardDataError, match="not valid JSON"):
        load_card_set(p)


def test_deeply_nested_json_is_a_card_data_error(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(CardDataError, match="not valid JSON"):
        load_card_set(p)


def test_a_file_that_is_not_utf8_is_a_card_data_error(tmp_path):
    p = tmp_path / "latin1.json"
    p.write_bytes(b'{"card_set": "\xe9"}')
    with pytest.raises(CardDataError, match="not valid JSON"):
        load_card_set(p)


# ------------------------------------------------------------------ board tables and cross-field consistency
def test_deploy_die_modifier_must_be_a_boolean(raw):
    raw["board"]["deploy_columns"]["value"][0]["die_modifier"] = "x"
    _rejects(raw, "board.deploy_columns.value[0].die_modifier: expected true or false")


def test_deploy_columns_are_the_last_four_in_order(raw):
    raw["board"]["deploy_columns"]["value"][0]["column"] = 4
    _rejects(raw, "board.deploy_columns.value[0].column: 4 is out of range 5..5")


def test_too_many_demobilize_spaces(raw):
    sp = raw["board"]["demobilize_spaces"]["value"]
    sp += [dict(sp[-1]) for _ in range(TB.MAX_DEMOB + 1 - len(sp))]
    _rejects(raw, "board.demobilize_spaces.value: needs 0..12 spaces, found 13")


def test_happiness_zones_with_bad_bounds(raw):
    raw["board"]["happiness_zones"]["value"][0]["max"] = 40
    _rejects(raw, "board.happiness_zones.value[0].max: 40 is out of range 11..30")


def test_happiness_vp_needs_each_player_count(raw):
    raw["board"]["happiness_vp"]["value"]["5"] = [1, 2, 3, 4, 5]
    _rejects(raw, "board.happiness_vp.value.5: unknown field")


def test_mutiny_box_must_be_the_last_demobilize_box(raw):
    raw["board"]["mutiny_box"]["value"] = 2
    _rejects(raw, "board.mutiny_box.value", "demobilize_last_box")


def test_game_end_vp_must_match_the_game_end_card(raw):
    raw["board"]["game_end_vp"]["value"] = 8
    _rejects(raw, "board.game_end_vp.value: 8 differs from the 7 stars of the GAME END card")


def test_unrest_must_start_right_of_the_powder_keg(raw):
    raw["board"]["powder_keg_start"]["value"] = 1
    raw["board"]["unrest_start_column"]["value"] = 1
    _rejects(raw, "board.unrest_start_column.value: 1 is out of range 2..8")


def test_players_must_start_within_their_unit_limit(raw):
    raw["board"]["deck_variants"]["value"][2]["player_happiness"] = 8
    _rejects(raw, "board.deck_variants.value[2].player_happiness: 8 allows 2 units, fewer than the 3")


def test_deck_variants_are_the_games_variants(raw):
    raw["board"]["deck_variants"]["value"][0]["id"] = "quick"
    _rejects(raw, "board.deck_variants.value[0].id: must be 'standard'", "got 'quick'")
    del raw["board"]["deck_variants"]["value"][0]
    _rejects(raw, "board.deck_variants.value: needs 4 variants, found 3")


def test_deck_variants_must_fit_the_issue_deck(raw):
    raw["board"]["deck_variants"]["value"][3]["shuffle_game_end_with"] = 47
    _rejects(raw, "board.deck_variants.value[3].shuffle_game_end_with: 47 is out of range 0..46")


def test_uprising_thresholds_one_per_column(raw):
    raw["board"]["uprising_thresholds"]["value"].pop()
    _rejects(raw, "board.uprising_thresholds.value: needs 8 columns, found 7")


# ------------------------------------------------------------------ names positions and actions look up (issue 20)
def test_option_names_differ_on_an_issue(raw):
    """A position names a settled issue's option by name, in any case (cards/names.py): with two
    options of one name, from_dict(to_dict(g)) would give the issue the first one's effects."""
    opts = raw["issues"][12]["options"]              # Fiume: To Italy, Free City, To Yugoslavia
    opts[2]["name"] = "free city"
    _rejects(raw, "issues[12] 'Fiume' (#13).options[2].name: 'free city' is also the name of options[1]")


@pytest.mark.parametrize("section,k,field,value,message", [
    ("issues", 12, "name", "Anschluss", "issues[12] 'Anschluss' (#13).name: 'Anschluss' is also the name of card #12"),
    ("issues", 12, "name", "KIEL_CANAL", "issues[12] 'KIEL_CANAL' (#13).name: 'KIEL_CANAL' is also the id of card #1"),
    ("issues", 0, "id", "FIUME", "issues[12] 'Fiume' (#13).name: 'Fiume' is also the id of card #1"),
    ("events", 2, "name", "arthur balfour", "events[2] 'arthur balfour' (#3).name: 'arthur balfour' is also the name"),
    ("strategies", 2, "id", "14 points",
     "strategies[2] 'Global Trade' (#3).id: '14 points' is also the name of card #1"),
], ids=["issue name", "issue name = id", "issue id = name", "event name", "strategy id = name"])
def test_card_names_and_ids_name_one_card(raw, section, k, field, value, message):
    """Cards are looked up by name or id in any case (cards/names.py): no word may name two cards
    of a section, or a position naming one would load the other."""
    raw[section][k][field] = value
    _rejects(raw, message)


# ------------------------------------------------------------------ issues and strategies
def test_issue_options_at_most_the_option_segment(raw):
    i = next(k for k, r in enumerate(raw["issues"]) if len(r["options"]) == 4)
    raw["issues"][i]["options"].append(copy.deepcopy(raw["issues"][i]["options"][0]))
    _rejects(raw, f"issues[{i}]", ".options: an issue needs 2..4 options, found 5")


def test_counter_count_and_flag(raw):
    i = next(k for k, r in enumerate(raw["issues"]) if r["options"] and r["options"][0]["counters"])
    raw["issues"][i]["options"][0]["counters"][0]["count"] = 0
    _rejects(raw, "counters[0].count: 0 is out of range 1..4")


def test_strategy_condition_count_fits_the_table(raw):
    conds = raw["strategies"][0]["conditions"]
    conds += [copy.deepcopy(conds[0]) for _ in range(TB.MAX_COND + 1 - len(conds))]
    raw["strategies"][0]["condition_provenance"] += [copy.deepcopy(raw["strategies"][0]["condition_provenance"][0])
                                                     for _ in range(TB.MAX_COND + 1 - 4)]
    _rejects(raw, "strategies[0] '14 Points' (#1).conditions: needs 1..6 conditions, found 7")


def test_treaty_names_nations_and_issues_name_categories(raw):
    s = raw["strategies"][0]
    s["conditions"][0] = {"kind": "treaty", "nations": ["europe"], "signs": True, "vp": 2}
    _rejects(raw, "conditions[0].nations", "unknown nation 'europe'")
    s["conditions"][0] = {"kind": "issues", "category": "uk", "controller": "self", "vp": 2}
    _rejects(raw, "conditions[0].category", "unknown issue category 'uk'")
    s["conditions"][0] = {"kind": "issues", "category": "league", "controller": "decider", "vp": 2}
    _rejects(raw, "conditions[0].controller", "unknown value 'decider'")


def test_a_counter_flag_only_on_flagged_counters(raw):
    raw["strategies"][0]["conditions"][0] = {"kind": "counters", "counter": "self_determination", "flag": "uk",
                                             "vp": 1}
    _rejects(raw, "conditions[0].flag", "self_determination counters carry no flag")


# ------------------------------------------------------------------ event effects against the interpreter
def _effects(raw, ops, part="crisis"):
    raw["events"][0][part]["effects"] = ops


@pytest.mark.parametrize("ops,fragment", [
    ([{"op": ["unrest"]}], "unknown op ['unrest']"),
    ([{"op": "unrest", "region": "highest", "delta": 1}], "unknown region 'highest'"),
    ([{"op": "uprising_check", "region": "random"}], "unknown region 'random'"),
    ([{"op": "powder_keg", "region": "europe", "delta": 2}], "expected +1 or -1, got 2"),
    ([{"op": "powder_keg", "region": "europe", "delta": True}], "expected +1 or -1, got True"),
    ([{"op": "exhaust_influence", "who": "decider", "amount": -2}], "-2 is out of range 0..30"),
    ([{"op": "choose_regions", "count": 6}], "6 is out of range 1..5"),
    ([{"op": "unrest", "region": {"one_of": ["europe", "europe"]}, "delta": 1}], "names a region twice"),
    ([{"op": "happiness", "who": "uk", "delta": 1}], "unknown value 'uk'"),
    ([{"op": "deploy_action", "who": "each_player"}], "unknown value 'each_player'"),
    ([{"op": "choice", "who": "settled_controller", "branches": [[{"op": "clear_waiting_issue"}]] * 2}],
     "unknown value 'settled_controller'"),
    ([{"op": "military_to_available", "who": "all"}], "unknown value 'all'"),
    ([{"op": "unsettle", "categories": ["uk"]}], "unknown issue category 'uk'"),
    ([{"op": "happiness", "who": "chosen_player", "delta": 1}], "needs an earlier choose_player"),
    ([{"op": "unrest", "region": "chosen", "delta": 1}], "needs an earlier choose_regions"),
    ([{"op": "choice", "who": "decider", "branches": [[{"op": "choice", "who": "decider", "branches": [
        [{"op": "clear_waiting_issue"}]] * 2}]] * 2}], "a choice inside a choice branch"),
    ([{"op": "choice", "who": "decider", "branches": [[{"op": "clear_waiting_issue"}]] * 5}],
     "needs 2..4 branches, found 5"),
    ([{"op": "clear_waiting_issue"}] * 48, "does not fit the event table"),
    ([], "effects must be a non-empty list"),
])
def test_effects_the_interpreter_cannot_run_are_rejected(raw, ops, fragment):
    _effects(raw, ops)
    _rejects(raw, "events[0]", "crisis.effects", fragment)


def test_effects_nested_without_end_are_rejected(raw):
    op = {"op": "clear_waiting_issue"}
    for _ in range(5000):
        op = {"op": "if_no_counters", "counter": "naval", "category": "europe", "then": [op]}
    _effects(raw, [op])
    _rejects(raw, "events[0]", "nested deeper than the 48 bytecode rows")


def test_the_longest_effect_that_fits_loads(raw):
    _effects(raw, [{"op": "clear_waiting_issue"}] * (TB.EV_LEN - 1))       # + the end row
    validate_card_set(raw)


def test_chosen_player_after_choose_player_loads(raw):
    _effects(raw, [{"op": "choose_player"}, {"op": "happiness", "who": "chosen_player", "delta": -1}])
    validate_card_set(raw)


# ------------------------------------------------------------------ values at the edge of the ranges play soundly
EDGES = {
    "strategy_cards_extra=1 reclaim 6 transfer 6": {"strategy_cards_extra": 1, "reclaim_max": 6,
                                                    "negotiation_transfer_max": 6},
    "no waiting issues, most setup discards": {"waiting_issues": 0, "setup_discards": 30},
    "kegs at 3 from the start": {"powder_keg_start": 3, "unrest_start_column": 8},
    "influence 1": {"influence_per_player": 1, "discard_pick_costs": [0, 1, 1]},
    "influence 15, no units, no extra strategy": {"influence_per_player": 15, "military_per_player": 0,
                                                  "strategy_cards_extra": 0},
    "twelve demobilize spaces": {"demobilize_spaces": [{"value": 30, "four_player_only": k % 2 == 1}
                                                       for k in range(12)]},
}


def test_values_at_the_edge_of_the_ranges_load_and_play_soundly(tmp_path):
    """Every limit is what the core holds, not less: sets at the edges play random games with the
    invariants checked on every step (in a subprocess: a wrong limit would corrupt memory)."""
    files = []
    for k, (name, values) in enumerate(EDGES.items()):
        r = read_card_set()
        for t, v in values.items():
            r["board"][t]["value"] = v
        validate_card_set(r)
        files.append(_write(tmp_path, r, f"edge{k}.json"))
    p = subprocess.run([sys.executable, str(ROOT / "tests" / "helpers" / "card_fuzz_worker.py")] + files, cwd=ROOT,
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr[-3000:]
    done = [json.loads(x) for x in p.stdout.splitlines() if '"result"' in x]
    assert [d["result"] for d in done] == ["played"] * len(EDGES), done
