"""Uprising details found by a rules audit: the roll-off rerolls only the players tied for the
high roll (EN:581), and a player announcing a die modifier sees which region it is for."""
import numpy as np
import pytest

from helpers.scenario import act, events, issue_deck, regions, settle_through_step_4
from v1919_env.core.observe import O_UP_REGION, OBS_SIZE, observe
from v1919_env.game import Game
from v1919_env.core.vocab import NATIONS, REGIONS

SLOTS = ["Kurdistan", "Togo", "Tyrol", "Korea", "Vietnam"]


def _position(regs, settled=(), players=None, dice=()):
    """France (active) settles Kurdistan ('No Kurdistan': no effects); the event drawn in step 5
    (Arthur Balfour) checks the region(s) with the highest unrest."""
    d = {
        "num_players": 3, "active": "france",
        "table": [{"issue": "Kurdistan", "cubes": {"france": 2}}, {"issue": "Togo"}],
        "waiting_room": [{"issue": "Tyrol"}, {"issue": "Korea"}, {"issue": "Vietnam"}],
        "settled": list(settled), "issue_discards": [],
        "issue_deck": issue_deck(placed=SLOTS + [s["issue"] for s in settled]),
        "events": events(waiting=["Take Ionescu", "Eleutherios Venizelos"], top=["Arthur Balfour"]),
        "regions": regs, "forced_dice": list(dice),
        "strategies": {"dealt": ["14 Points", "Global Trade", "Outlawing War", "Isolationism"], "draft_done": True},
    }
    if players:
        d["players"] = players
    return Game.from_dict(d)


def _settle_until_event(g):
    settle_through_step_4(g, "france", "Kurdistan", "No Kurdistan")


@pytest.mark.parametrize("reroll, affected", [((5, 3), "uk"), ((3, 5), "france")])
def test_roll_off_rerolls_only_the_players_tied_for_the_high_roll(reroll, affected):
    # UK, France and USA each control one Middle East issue and nobody has a unit there: roll-off.
    settled = [{"issue": "Syria", "controller": "uk", "option": "Independent"},
               {"issue": "Arabia", "controller": "usa", "option": "Hejaz Independent"}]
    # uprising die 6; roll-off UK 6, France 6, USA 2: only the UK and France reroll (two dice)
    g = _position(regions(middle_east=5), settled, dice=[6, 6, 6, 2, *reroll])
    _settle_until_event(g)
    assert g.to_dict()["forced_dice"] == []            # the USA did not roll again
    assert NATIONS[g.current_player] == affected        # the affected player bids first
    assert g.decision == "bid"
    lost = {"uk": "Syria", "france": "Kurdistan"}[affected]
    assert lost not in {s["issue"] for s in g.to_dict()["settled"]}


def test_modifier_announcement_names_and_shows_its_region():
    # The UK has units in column 6 of Europe and Africa, tied for the highest unrest.
    players = {"uk": {"military": {"available": 1, "deployed": {"europe": 6, "africa": 6}}}}
    g = _position(regions(europe=5, africa=5), players=players, dice=[1, 1])
    _settle_until_event(g)
    seen = []
    while g.decision == "modifier":
        r = g.uprising_region()
        out = np.zeros(OBS_SIZE, np.float32)
        observe(g.state, g.T, g.current_player, out)
        assert out[O_UP_REGION:O_UP_REGION + 5].tolist() == [1.0 if k == r else 0.0 for k in range(5)]
        assert all(REGIONS[r].title() in g.describe(int(a)) for a in g.legal_actions())
        seen.append(REGIONS[r])
        act(g, "modifier", delta=0)
    assert seen == ["europe", "africa"]
    assert g.uprising_region() is None
