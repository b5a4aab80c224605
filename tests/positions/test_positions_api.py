"""Positions a tester can write (issue 8 section 4): the card set a position was made with (label and
content digest, from_dict(card_set=...)), counters on settled issues, the full ranking in scores(),
one index convention with names, variant ids and their aliases, the board's turn count, the
generated action docs, and positions/ apart from game.py (section 5)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from v1919_env.actions import decode, encode
from v1919_env.cards import load_card_set
from v1919_env.game import Game, PositionError
from v1919_env.rewards import ranks, tie_breaks

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- card sets
def _edited_export(tmp_path, name="mine.json", stars=None, rename=None) -> str:
    raw = load_card_set().export()
    fiume = next(r for r in raw["issues"] if r["name"] == "Fiume")
    if stars is not None:
        fiume["stars"] = stars
    if rename is not None:
        fiume["name"] = rename
    p = tmp_path / name
    p.write_text(json.dumps(raw))
    return str(p)


def test_card_set_digest_changes_with_the_content_not_the_label(tmp_path):
    shipped = load_card_set()
    same = load_card_set(_edited_export(tmp_path, "same.json"))
    edited = load_card_set(_edited_export(tmp_path, "edited.json", stars=4))
    assert same.label == edited.label == shipped.label
    assert same.digest == shipped.digest and len(shipped.digest) == 16
    assert edited.digest != shipped.digest
    d = Game.new(4, seed=1).to_dict()
    assert (d["card_set"], d["card_set_digest"]) == (shipped.label, shipped.digest)


def test_an_edited_export_that_keeps_its_label_does_not_reload_as_the_shipped_cards(tmp_path):
    path = _edited_export(tmp_path, stars=4)
    g = Game.new(4, seed=2, card_set=path)
    d = g.to_dict()
    with pytest.raises(PositionError, match="card_set_digest.*edited card set keeps its label"):
        Game.from_dict(d)
    h = Game.from_dict(d, card_set=path)
    assert h.to_dict() == d and h.cards.digest == g.cards.digest
    # a hand-written position without the digest still loads with any card set of that label
    d.pop("card_set_digest")
    for k in ("engine", "pending"):
        d.pop(k)
    assert Game.from_dict(d).cards.digest == load_card_set().digest


def test_from_dict_takes_a_card_set_whose_names_the_position_uses(tmp_path):
    path = _edited_export(tmp_path, rename="Free State of Fiume")
    pos = {"num_players": 4, "settled": [{"issue": "Free State of Fiume", "controller": "uk", "option": "Free City"}]}
    with pytest.raises(PositionError, match="unknown issue 'Free State of Fiume'"):
        Game.from_dict(pos)
    g = Game.from_dict(pos, card_set=path)
    assert g.to_dict()["settled"][0]["issue"] == "Free State of Fiume"
    assert g.issue_name(13) == "Free State of Fiume"


def test_a_card_file_edited_in_place_is_read_again(tmp_path):
    path = _edited_export(tmp_path, stars=4)
    a = Game.new(4, card_set=path).cards.digest
    raw = json.loads(Path(path).read_text())
    next(r for r in raw["issues"] if r["name"] == "Fiume")["stars"] = 3
    Path(path).write_text(json.dumps(raw))
    os.utime(path, ns=(1, 10 ** 18))            # a new modification time, whatever the clock
    b = Game.new(4, card_set=path).cards.digest
    assert a != b


# ----------------------------------------------------------------------------- counters
def _fiume(**extra):
    return {"num_players": 4, "settled": [{"issue": "Fiume", "controller": "uk", "option": "Free City", **extra}]}


def test_counters_on_settled_issues_are_written_and_read_back():
    g = Game.from_dict(_fiume(naval_uk=1))
    rec = g.to_dict()["settled"][0]
    assert rec["counters"] == {"naval_uk": 1}
    assert Game.from_dict(_fiume()).to_dict()["settled"][0]["counters"] == {"naval_usa": 1}
    # the UK-or-USA split is read from the counters when naval_uk is left out
    h = Game.from_dict(_fiume(counters={"naval_uk": 1}))
    assert h.to_dict()["settled"][0] == rec
    # counters that the option does not give are refused, naming the field
    with pytest.raises(PositionError, match=r"settled\[0\].counters.*UK-or-USA"):
        Game.from_dict(_fiume(counters={"naval_uk": 2}))
    with pytest.raises(PositionError, match=r"settled\[0\].counters"):
        Game.from_dict(_fiume(naval_uk=0, counters={"naval_uk": 1}))
    with pytest.raises(PositionError, match=r"settled\[0\].counters: unknown field"):
        Game.from_dict(_fiume(counters={"naval": 1}))
    with pytest.raises(PositionError, match=r"settled\[0\].counters.naval_usa: expected an integer"):
        Game.from_dict(_fiume(counters={"naval_usa": 1.0}))
    assert Game.from_dict(_fiume(counters={"naval_usa": 1, "naval_uk": 0})).to_dict()["settled"][0]["counters"] == \
        {"naval_usa": 1}
    with pytest.raises(PositionError, match=r"settled\[0\].naval_uk"):
        Game.from_dict(_fiume(naval_uk=2))           # one UK-or-USA counter only


def test_counters_round_trip_over_random_games():
    rng = np.random.default_rng(5)
    for seed in range(3):
        g = Game.new(4, seed=seed)
        while not g.is_over:
            g.step(int(rng.choice(g.legal_actions())))
        d = g.to_dict()
        assert any("counters" in e for e in d["settled"])
        for e in d["settled"]:
            e.pop("naval_uk", None)         # the counters alone carry the split
        for k in ("engine", "pending"):
            d.pop(k)
        back = Game.from_dict(d).to_dict()["settled"]
        assert back == g.to_dict()["settled"]


# ----------------------------------------------------------------------------- ranking
def _s(total, happy, issues):
    return {"total": total, "happiness_level": happy, "issues_controlled": issues}


def test_ranks_and_tie_breaks_follow_the_rules_order():
    sc = [_s(30, 10, 4), _s(30, 12, 2), _s(30, 12, 3), _s(25, 20, 9)]
    assert ranks(sc) == [3, 2, 1, 4]
    assert tie_breaks(sc) == ["total", "happiness_level", "issues_controlled", None]
    shared = [_s(30, 12, 3), _s(30, 12, 3), _s(20, 1, 1)]
    assert ranks(shared) == [1, 1, 3]
    assert tie_breaks(shared) == ["shared", "shared", None]


def test_scores_give_the_full_ranking_consistent_with_the_winners():
    rng = np.random.default_rng(2)
    for seed in range(4):
        g = Game.new(3 + seed % 2, seed=seed)
        while not g.is_over:
            g.step(int(rng.choice(g.legal_actions())))
        sc = g.scores()
        assert sorted(r["rank"] for r in sc)[0] == 1
        assert all(r["winner"] == (r["rank"] == 1) for r in sc)
        order = sorted(sc, key=lambda r: r["rank"])
        for a, b in zip(order, order[1:]):
            key = lambda r: (r["total"], r["happiness_level"], r["issues_controlled"])  # noqa: E731
            assert key(a) >= key(b)


# ----------------------------------------------------------------------------- names everywhere
def test_encode_takes_names_wherever_it_takes_numbers():
    assert encode("choose_issue", issue="Fiume") == encode("choose_issue", issue=13)
    assert encode("choose_issue", issue="fiume") == encode("choose_issue", issue=13)
    assert encode("draft", strategy="Global Trade") == encode("draft", strategy=3)
    assert encode("deploy", source="available", region="europe", column=6) == encode("deploy", source=0, region=0,
                                                                                      column=6)
    assert encode("deploy", source="middle east", region="Pacific", column=5) == encode("deploy", source=3,
                                                                                        region=3, column=5)
    assert encode("demobilize", source="exhausted") == encode("demobilize", source=1)
    assert encode("demobilize", source="africa") == encode("demobilize", source=6)
    assert encode("unit_to_available", source="exhausted") == encode("unit_to_available", source=0)
    assert encode("unit_to_available", source="balkans") == encode("unit_to_available", source=2)
    assert encode("unit_to_exhausted", region="balkans") == encode("unit_to_exhausted", region=1)
    assert encode("choose_region", region="africa") == encode("choose_region", region=4)
    assert encode("choose_player", seat="usa") == encode("choose_player", seat=2)
    assert encode("transfer", seat="italy", n=2) == encode("transfer", seat=3, n=2)
    assert encode("reclaim", n=1, recall=["europe", "africa"]) == encode("reclaim", n=1, recall=17)
    assert encode("naval_flag", flag="usa") == encode("naval_flag", flag=1)
    assert decode(encode("accept", yes=False)).params == {"yes": 0}
    for kind, params, msg in (("choose_issue", {"issue": "Atlantis"}, "choose_issue.issue: unknown issue"),
                              ("deploy", {"source": "exhausted", "region": 0, "column": 5}, "deploy.source"),
                              ("choose_region", {"region": "asia"}, "choose_region.region"),
                              ("place", {"slot": 1, "n": 2.0}, "place.n must be an integer")):
        with pytest.raises(ValueError, match=msg):
            encode(kind, **params)


def test_name_helpers_take_card_numbers_or_names():
    g = Game.new(4)
    assert g.issue_name(13) == g.issue_name("fiume") == "Fiume"
    assert g.strategy_name(3) == g.strategy_name("Global Trade") == "Global Trade"
    assert g.event_name(1) == g.names.event_at(0)
    assert g.option_name("Fiume", 1) == g.option_name(13, "free city") == "Free City"
    with pytest.raises(ValueError, match="issue number must be 1..53"):
        g.issue_name(0)
    # describe names the card an action takes
    assert g.describe(encode("choose_issue", issue="Fiume")) == "choose Fiume"
    assert g.describe(encode("draft", strategy="Global Trade")) == "take strategy card Global Trade"


# ----------------------------------------------------------------------------- variants
def test_variant_ids_say_what_they_are_and_old_ids_are_aliases():
    a, b = Game.new(4, seed=9, variant="longer"), Game.new(4, seed=9, variant="short15")
    assert np.array_equal(a.state, b.state)
    assert np.array_equal(Game.new(4, seed=9, variant="even_longer").state, Game.new(4, seed=9, variant="long10").state)
    assert a.to_dict()["variant"] == "longer"
    assert Game.from_dict({"num_players": 4, "variant": "long10"}).to_dict()["variant"] == "even_longer"
    with pytest.raises(ValueError, match="aliases: short15 = longer"):
        Game.new(4, variant="short")
    with pytest.raises(PositionError, match="variant: unknown variant"):
        Game.from_dict({"variant": "quick"})
    # a card set written with the earlier ids still loads
    from v1919_env.cards import validate_card_set
    raw = load_card_set().export()
    raw["board"]["deck_variants"]["value"][1]["id"] = "short15"
    validate_card_set(raw)


def test_the_cli_and_tournament_configs_take_variant_aliases(tmp_path):
    from agents.arena.tournament.config import load_config
    from v1919_env.cli import UsageError, check_variant
    check_variant("short15")
    check_variant("longer")
    with pytest.raises(UsageError, match="unknown variant"):
        check_variant("shorter")
    cfg = tmp_path / "t.yaml"
    cfg.write_text("num_players: 3\ngames: 3\nvariant: long10\nagents:\n"
                   + "".join(f"  - {{name: random, label: r{k}}}\n" for k in range(3)))
    assert load_config(str(cfg)).variant == "long10"


# ----------------------------------------------------------------------------- demo, docs, modules
def test_the_demo_board_and_log_count_turns_alike(capsys):
    from agents.arena.commands import print_game      # what `v1919 demo` and `v1919 play` print
    specs = [{"label": f"random-{k}", "agent": "random", "options": {}} for k in range(3)]
    assert print_game(specs, num_players=3, seed=1, log=True) == 0
    out = capsys.readouterr().out
    assert "| turn 1 |" in out and "-- turn 1:" in out
    assert "| turn 0 |" not in out and "-- turn 0:" not in out
    g = Game.new(3, seed=1)
    assert g.turn == 1 and "turn 1" in g.render().splitlines()[0] and "turn 1," in repr(g)


def test_generated_action_docs_are_current():
    from v1919_env.docs import actions_doc
    text = (ROOT / "docs" / "actions.md").read_text()
    assert text == actions_doc()
    for needed in ("One index convention", "printed number", "turn ends by itself", "Roll-offs", "| 14 | draft |"):
        assert needed in text


def test_position_does_not_import_game():
    code = "import sys, v1919_env.positions.write; print('v1919_env.game' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_game_records_keep_the_card_set_digest_and_refuse_edited_cards(tmp_path):
    from agents.arena.play import build_agents, run_game
    from v1919_env.records import RecordError, new_game, replay, result_differences
    path = _edited_export(tmp_path, stars=4)
    specs = [{"label": f"random-{k}", "agent": "random", "options": {}} for k in range(3)]
    rec = run_game(build_agents(specs), specs, num_players=3, seed=4, card_set=path)
    assert rec["card_set"]["digest"] == load_card_set(path).digest
    assert result_differences(rec, replay(rec)) == []
    raw = json.loads(Path(path).read_text())
    next(r for r in raw["issues"] if r["name"] == "Fiume")["stars"] = 3        # same label, other cards
    Path(path).write_text(json.dumps(raw))
    os.utime(path, ns=(1, 2 * 10 ** 18))
    with pytest.raises(RecordError, match="content digest"):
        new_game(rec)
