"""tools/nation_drivers.py (issue 21): each counterfactual card set changes the table fields it
names and nothing else, never touches the shipped files, and the command runs on a few games."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from v1919_env.cards.load import STANDARD_DIR
from v1919_env.core.bots import play_games
from v1919_env.core.vocab import NATIONS
from v1919_env.game import card_tables

ROOT = Path(__file__).resolve().parents[2]
# loaded as `nation_drivers`, the name its compiled loop is cached under (see the tool's __main__)
_SPEC = importlib.util.spec_from_file_location("nation_drivers", ROOT / "tools" / "nation_drivers.py")
nd = importlib.util.module_from_spec(_SPEC)
sys.modules.setdefault("nation_drivers", nd)
_SPEC.loader.exec_module(nd)

T0 = nd.variant_tables(None)


def test_the_baseline_is_the_shipped_table():
    assert np.array_equal(T0, card_tables(None)[1])


@pytest.mark.parametrize("vid", [v.id for v in nd.VARIANTS])
def test_a_variant_changes_its_fields_and_nothing_else(vid):
    v = nd.BY_ID[vid]
    diff = nd.table_diff(T0, nd.variant_tables(vid))
    assert set(diff) == set(v.touches), f"{vid} changed {sorted(diff)}, declared {sorted(v.touches)}"
    if "option_happiness" in diff:
        # flat index (issue * 4 + option) * nations + nation: only the declared nations' columns
        changed = {NATIONS[k % len(NATIONS)] for k in diff["option_happiness"]}
        assert changed <= set(v.nations), f"{vid} changed the happiness of {sorted(changed)}"


def test_the_variants_change_what_they_say():
    """Spot checks against the raw records: provenance respected, values as described."""
    base = nd.variant_raw(None)
    opts = {(r["number"], o["name"]): o for r in base["issues"] for o in r.get("options") or []}

    def opt(raw, number, name):
        return next(o for r in raw["issues"] if r["number"] == number for o in r["options"] if o["name"] == name)

    fiume = opts[(13, "To Italy")]                       # estimated: Italy +2, USA -2, Italy's Empire
    assert fiume["happiness"] == {"italy": 2, "usa": -2}
    assert opt(nd.variant_raw("est_italy_gains_off"), 13, "To Italy")["happiness"] == {"usa": -2}
    assert opt(nd.variant_raw("est_usa_happiness_off"), 13, "To Italy")["happiness"] == {"italy": 2}
    assert opt(nd.variant_raw("est_happiness_swap_italy_usa"), 13, "To Italy")["happiness"] == {"usa": 2, "italy": -2}
    assert opt(nd.variant_raw("est_italy_empire_off"), 13, "To Italy")["counters"] == []
    assert opt(nd.variant_raw("mirror_italy_usa"), 13, "To Italy")["counters"] == [
        {"kind": "empire", "count": 1, "flag": "usa"}]
    # a stated entry survives every estimated-only variant: Armenia 'Turkey' USA -2 is an example's
    assert opts[(36, "Turkey")]["provenance"]["happiness"]["kind"] == "example"
    for vid in ("est_happiness_off", "est_usa_happiness_off", "est_losses_off"):
        assert opt(nd.variant_raw(vid), 36, "Turkey")["happiness"] == {"usa": -2}
    assert opt(nd.variant_raw("cert_happiness_off"), 36, "Turkey")["happiness"] == {}
    # the USA's split: a mandate (Empire) loss and a punitive (no Empire) loss
    emp, oth = nd.variant_raw("est_usa_losses_empire_off"), nd.variant_raw("est_usa_losses_other_off")
    assert opt(emp, 34, "UK Mandate")["happiness"] == {} and opt(oth, 34, "UK Mandate")["happiness"] == {"usa": -1}
    assert opt(emp, 1, "Destroy")["happiness"] == {"usa": -1} and opt(oth, 1, "Destroy")["happiness"] == {}
    # combined ids apply both
    both = nd.variant_tables("est_italy_gains_off+est_italy_empire_off")
    assert set(nd.table_diff(T0, both)) == {"option_happiness", "option_counters"}


def test_the_shipped_files_are_not_written():
    before = {p.name: p.read_bytes() for p in STANDARD_DIR.glob("*.json")}
    for v in nd.VARIANTS:
        nd.variant_raw(v.id)
    assert {p.name: p.read_bytes() for p in STANDARD_DIR.glob("*.json")} == before
    assert nd.variant_raw(None) == json.loads(json.dumps(nd.variant_raw(None)))   # a plain copy


def test_the_seated_loop_plays_play_games_games():
    """The default seating plays exactly the games of core.bots.play_games (same seeds)."""
    g = 30
    scores, win, dec = np.zeros((g, 4), np.int64), np.zeros(g, np.int64), np.zeros(g, np.int64)
    play_games(g, 4, T0, np.full(4, 1, np.int64), 7, 0, 0, scores, win, dec)
    r = nd.play(T0, 4, "rulebot", g, 7)
    assert np.array_equal(sum(r["win"][:, p] << p for p in range(4)), win)
    assert np.array_equal(r["scores"][:, :, 4], scores)
    assert np.array_equal(r["decisions"], dec)
    assert r["scores"][:, :, :4].sum(axis=2).tolist() == scores.tolist()     # the breakdown adds up


def test_the_paired_interval():
    m, lo, hi = nd.mean_interval(np.array([1.0, 0.0, 0.0, -1.0] * 25))
    assert m == 0.0 and lo < 0 < hi
    assert nd.wilson(0, 10)[0] == pytest.approx(0.0, abs=1e-12) and nd.wilson(10, 10)[1] == pytest.approx(1.0)
    assert nd.wilson(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)


def test_main_runs_on_a_few_games(tmp_path, capsys):
    out = tmp_path / "r.json"
    r = nd.main(["--games", "12", "--players", "4", "3", "--agents", "rulebot", "random",
                 "--variants", "est_italy_gains_off", "mirror_italy_usa+flag_vp_off", "--seatings", "--stakes",
                 "--json", str(out)])
    text = capsys.readouterr().out
    assert "italy - usa gap" in text and "uk - usa gap" in text and "place 0" in text and "Italian claims" in text
    assert set(r["results"]) == {"4p/rulebot", "4p/random", "3p/rulebot", "3p/random"}
    res = r["results"]["4p/rulebot"]
    assert set(res) == {"baseline", "est_italy_gains_off", "mirror_italy_usa+flag_vp_off"}
    assert sum(x["wins"] for x in res["baseline"]["rows"]) >= 12
    claims = res["baseline"]["italian_claims"]
    assert 0 <= claims["italian_option_by_italy"] <= claims["italy_controls"] <= claims["settled"] <= 7
    assert len(nd.italian_options()) == 7
    assert len(r["seatings"]["4p/rulebot"]["seatings"]) == 6 and len(r["seatings"]["3p/rulebot"]["seatings"]) == 2
    assert json.loads(out.read_text())["games"] == 12
