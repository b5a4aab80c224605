"""The card and board data: counts, values the rules' examples state, the validator, user card sets."""
from __future__ import annotations

import copy
import json

import pytest

from v1919_env.cards import CardDataError, load_card_set, provenance_report, read_card_set, validate_card_set
from v1919_env.cli import main as cli_main


@pytest.fixture(scope="module")
def cs():
    return load_card_set()


@pytest.fixture()
def raw():
    return copy.deepcopy(read_card_set())


def issue(cs, name):
    return next(r for r in cs.raw["issues"] if r["name"].lower() == name.lower())


def option(cs, issue_name, opt):
    return next(o for o in issue(cs, issue_name)["options"] if o["name"].lower() == opt.lower())


def test_counts(cs):
    assert len(cs.raw["issues"]) == 53
    assert len(cs.raw["events"]) == 46
    assert len(cs.raw["strategies"]) == 10
    assert sorted(r["number"] for r in cs.raw["issues"]) == list(range(1, 54))
    assert sorted(r["number"] for r in cs.raw["events"]) == list(range(1, 47))


def test_card_set_has_name_and_version(cs):
    assert cs.name == "versailles1919-standard"
    assert cs.version
    assert cs.label == f"{cs.name}@{cs.version}"


@pytest.mark.parametrize("name,stars", [
    ("Rheinland", 6),                 # EN:852
    ("Constantinople", 6),            # EN:648
    ("Armenia", 4), ("Arabia", 3), ("Ethiopia", 3), ("Anschluss", 4),
    ("Negotiations with Russia", 4),  # IT 4-player example
    ("Kurdistan", 3), ("Palestine", 4), ("Prussia", 5), ("Slovenia & Croatia", 5),  # public sources
])
def test_star_values_stated_in_the_texts(cs, name, stars):
    r = issue(cs, name)
    assert r["stars"] == stars
    assert r["provenance"]["stars"]["kind"] in ("rules", "example", "public")


def test_game_end_card(cs):
    ge = [r for r in cs.raw["issues"] if r.get("game_end")]
    assert len(ge) == 1 and ge[0]["stars"] == 7 and not ge[0].get("options")


@pytest.mark.parametrize("name,number", [
    ("Prussia", 2), ("Disarmament", 7), ("Inter-Allied Debt", 8), ("Slovenia & Croatia", 11), ("Anschluss", 12),
    ("Thrace", 16), ("Macedonia", 17), ("Bessarabia", 20), ("Dobruja", 23), ("Negotiations with Russia", 26),
    ("Byelorussia", 27), ("South West Africa", 29), ("Military Intervention", 38), ("Korea", 46), ("Vietnam", 49),
    ("Indemnity", 50), ("Reconstruction", 51), ("Widows' Pensions", 52),
])
def test_card_numbers_cited_by_the_solitaire_example(cs, name, number):
    assert issue(cs, name)["number"] == number


def test_option_effects_used_in_the_examples(cs):
    # EN:320-322 SMYRNA's middle option is "To Greece"; the chosen UK-happiness / naval option in the example
    assert [o["name"] for o in issue(cs, "Smyrna")["options"]][1].lower() == "to greece"
    # EN:655-660 Constantinople: Open City carries a UK naval counter; To Turkey adds Balkans unrest
    open_city = option(cs, "Constantinople", "Open City")
    assert any(c["kind"] == "naval" and c.get("flag") == "uk" for c in open_city["counters"])
    assert option(cs, "Constantinople", "To Turkey")["unrest"].get("balkans") == 1
    # IT:1417 French Occupation adds one European unrest
    assert option(cs, "Rheinland", "French Occupation")["unrest"].get("europe") == 1
    # IT:1517-1518 Slovenia & Croatia both independent: Italy +1, two self-determination counters
    both = issue(cs, "Slovenia & Croatia")["options"][0]
    assert both["happiness"].get("italy") == 1
    assert sum(c["count"] for c in both["counters"] if c["kind"] == "self_determination") == 2
    # public: Prussia / Poland = +2 German containment, Europe +2, USA -1
    pol = option(cs, "Prussia", "Poland")
    assert pol["unrest"] == {"europe": 2} and pol["happiness"] == {"usa": -1}
    assert pol["counters"] == [{"kind": "german_containment", "count": 2}]


def test_board_tables_from_the_rules(cs):
    t = cs.tables
    assert list(t["uprising_threshold"][1:]) == [0, 0, 6, 5, 4, 3, 2, 1]     # 0 = 'X'
    assert [t["deploy_influence_back"][c] for c in (5, 6, 7, 8)] == [3, 3, 2, 0]
    assert [t["deploy_happiness_lost"][c] for c in (5, 6, 7, 8)] == [4, 2, 1, 0]
    assert list(t["demob_value"][:3]) == [5, 4, 3]
    assert t["units_allowed"][11] == 3 and t["units_allowed"][10] == 2 and t["units_allowed"][4] == 1
    assert list(t["happiness_vp"][4]) == [6, 4, 2, 0] and list(t["happiness_vp"][3][:3]) == [6, 3, 0]
    assert int(t["signing_threshold"]) == 15 and int(t["game_end_vp"]) == 7


def test_every_event_has_executable_effects(cs):
    from v1919_env.core.tables import build
    build(cs)     # compiles every effect list to bytecode; raises on anything it cannot run
    for ev in cs.raw["events"]:
        assert ev["crisis"]["effects"] and ev["conference"]["effects"], ev["name"]


def test_every_field_has_provenance(cs):
    rep = provenance_report(cs)
    assert "estimated fields" in rep
    for r in cs.raw["issues"]:
        assert set(r["provenance"]) >= {"number", "name", "region", "stars", "no_military"}


# ------------------------------------------------------------------ the validator rejects broken files
def _rejects(raw, *fragments):
    with pytest.raises(CardDataError) as e:
        validate_card_set(raw)
    for f in fragments:
        assert f in str(e.value), str(e.value)


def test_rejects_unknown_region(raw):
    raw["issues"][0]["region"] = "asia"
    _rejects(raw, "issues[0]", ".region", "asia")


def test_rejects_unknown_unrest_region(raw):
    i = next(k for k, r in enumerate(raw["issues"]) if r.get("options"))
    raw["issues"][i]["options"][0]["unrest"] = {"atlantis": 1}
    _rejects(raw, f"issues[{i}]", "options[0]", "atlantis")


def test_rejects_unknown_counter(raw):
    i = next(k for k, r in enumerate(raw["issues"]) if r.get("options"))
    raw["issues"][i]["options"][0]["counters"] = [{"kind": "space_program", "count": 1}]
    _rejects(raw, "counters[0]", "space_program")


def test_rejects_naval_without_flag(raw):
    i = next(k for k, r in enumerate(raw["issues"]) if r.get("options"))
    raw["issues"][i]["options"][0]["counters"] = [{"kind": "naval", "count": 1}]
    _rejects(raw, ".flag")


def test_rejects_issue_without_options(raw):
    i = next(k for k, r in enumerate(raw["issues"]) if r.get("options"))
    raw["issues"][i]["options"] = []
    _rejects(raw, f"issues[{i}]", "options")


def test_rejects_wrong_count(raw):
    raw["events"].pop()
    _rejects(raw, "events", "expected 46")


def test_rejects_duplicate_number(raw):
    raw["strategies"][1]["number"] = raw["strategies"][0]["number"]
    _rejects(raw, "strategies[1]", "duplicate number")


def test_rejects_missing_provenance(raw):
    del raw["issues"][3]["provenance"]["stars"]
    _rejects(raw, "issues[3]", "provenance", "stars")


def test_rejects_bad_provenance_kind(raw):
    raw["events"][0]["provenance"]["name"] = {"kind": "hearsay"}
    _rejects(raw, "events[0]", "provenance")


def test_rejects_unknown_effect_op(raw):
    raw["events"][5]["crisis"]["effects"] = [{"op": "teleport"}]
    _rejects(raw, "events[5]", "crisis.effects[0]", "teleport")


def test_rejects_bad_effect_parameter(raw):
    raw["events"][5]["crisis"]["effects"] = [{"op": "unrest", "region": "mars", "delta": 1}]
    _rejects(raw, "events[5]", "region", "mars")


def test_rejects_unknown_strategy_condition(raw):
    raw["strategies"][0]["conditions"][0] = {"kind": "moon_landing", "vp": 1}
    _rejects(raw, "strategies[0]", "conditions[0]", "moon_landing")


def test_rejects_broken_board_table(raw):
    raw["board"]["happiness_zones"]["value"] = raw["board"]["happiness_zones"]["value"][:2]
    _rejects(raw, "board.happiness_zones")


def test_rejects_missing_section(raw):
    del raw["board"]
    _rejects(raw, "board", "missing")


def test_rejects_two_game_end_cards(raw):
    i = next(k for k, r in enumerate(raw["issues"]) if r.get("options"))
    raw["issues"][i]["game_end"] = True
    raw["issues"][i]["options"] = []
    _rejects(raw, "game_end")


# ------------------------------------------------------------------ user card sets
def test_user_card_file_round_trip(tmp_path, cs):
    exported = cs.export()
    exported["card_set"]["name"] = "my-printed-cards"
    i = next(k for k, r in enumerate(exported["issues"]) if r["name"] == "Arabia")
    exported["issues"][i]["stars"] = 4
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(exported))
    mine = load_card_set(path)
    assert mine.label == "my-printed-cards@1.0.0"
    assert issue(mine, "Arabia")["stars"] == 4
    from v1919_env.game import Game
    g = Game.new(4, seed=1, card_set=str(path))
    assert g.cards.label == "my-printed-cards@1.0.0"
    assert g.to_dict()["card_set"] == "my-printed-cards@1.0.0"


def test_user_card_file_rejected_with_field(tmp_path, cs):
    exported = cs.export()
    exported["issues"][0]["stars"] = "many"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(exported))
    with pytest.raises(CardDataError, match=r"issues\[0\].*stars"):
        load_card_set(path)


def test_cli_report_and_export(capsys):
    assert cli_main(["data", "report"]) == 0
    out = capsys.readouterr().out
    assert "53 issues, 46 events, 10 strategies" in out and "estimated fields" in out
    assert cli_main(["data", "export"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["card_set"]["name"] == "versailles1919-standard"
    iss = d["issues"][0]
    assert {"number", "name", "region", "stars", "no_military", "options", "provenance"} <= set(iss)


def test_cli_validate_rejects(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    assert cli_main(["data", "validate", "--cards", str(path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
