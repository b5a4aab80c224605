"""`v1919 nation-balance --records` (the nations' win rates in game records) and tools/fingerprint_core.py --ends."""
from __future__ import annotations

import json

import pytest
from helpers.tools import load_tool


@pytest.fixture(scope="module")
def tool():
    import agents.arena.nation_balance

    return agents.arena.nation_balance


def record(winners, totals, agent="learned", options=None, forfeit=None):
    """A valid game record (v1919_env.records) with these winners and final totals."""
    n = len(totals)
    seats = [{"label": f"x-{i}", "agent": agent, "options": options or {}, "seed": i} for i in range(n)]
    rows = [{"seat": i, "nation": ("uk", "france", "usa", "italy")[i], "issues": t, "flags": 0, "strategy": 0,
             "happiness": 0, "total": t} for i, t in enumerate(totals)]
    return {"format": "v1919-game-record", "version": 1, "game": 0, "seed": 7, "num_players": n,
            "variant": "standard", "negotiation": False, "card_set": {"label": "versailles1919-standard@1.0.0",
                                                                        "path": None},
            "seats": seats, "actions": [],
            "result": {"winners": winners, "forfeit": forfeit, "decisions": 300, "scores": rows,
                       "ranks": [1] * n, "truncated": False},
            "timing": {"cpu_seconds": [0.5] * n}}


def write(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_every_winner_counts_and_forfeits_are_left_out(tool, tmp_path):
    recs = [record([3], [30, 31, 32, 40]), record([0, 3], [40, 20, 20, 40]), record([1], [10, 50, 20, 30]),
            record([2], [0, 0, 99, 0], forfeit={"seat": 0, "step": 3, "label": "x-0", "reason": "crashed"})]
    r = tool.nation_balance_of_records(write(tmp_path / "g.jsonl", recs))
    assert r["games"] == 3 and r["ties"] == 1 and r["agent"] == "learned"
    by = {x["nation"]: x for x in r["rows"]}
    assert [by[n]["wins"] for n in ("uk", "france", "usa", "italy")] == [1, 1, 0, 2]
    assert by["italy"]["win_rate"] == pytest.approx(2 / 3) and by["usa"]["mean_score"] == pytest.approx(24.0)
    assert by["italy"]["win_low"] < 2 / 3 < by["italy"]["win_high"]
    assert "| italy | 2 | 66.7% |" in tool.format_table(r)


def test_records_of_mixed_agents_are_refused_naming_what_differs(tool, tmp_path):
    mixed = [record([0], [40, 30, 20, 10]), record([0], [40, 30, 20, 10], agent="guided", options={"iterations": 8})]
    with pytest.raises(ValueError, match="one agent in one player count"):
        tool.nation_balance_of_records(write(tmp_path / "m.jsonl", mixed))
    with pytest.raises(ValueError, match="no finished game records"):
        tool.nation_balance_of_records(write(tmp_path / "e.jsonl", []))


def test_a_file_that_is_not_game_records_is_a_clear_error(tmp_path, capsys):
    from v1919_env.cli import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(record([0], [40, 30, 20, 10])) + "\nnot json\n")
    for path, words in ((bad, "line 2: not JSON"), (tmp_path / "missing.jsonl", "cannot read")):
        assert main(["nation-balance", "--records", str(path)]) == 2
        err = capsys.readouterr().err
        assert words in err and err.startswith("error: ") and "Traceback" not in err


def test_the_command_prints_a_table_per_player_count_and_refuses_an_agent_it_cannot_run(capsys):
    from v1919_env.cli import main

    assert main(["nation-balance", "--games", "40", "--players", "3", "--agents", "rulebot"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 players, rulebot in every seat, 40 games") and "| usa |" in out
    assert main(["nation-balance", "--agents", "guided"]) == 2
    assert "--records" in capsys.readouterr().err


def test_the_core_fingerprint_counts_how_rule_bot_games_end():
    """tools/fingerprint_core.py --ends: rules / safety cap / deadlock counts (rulings P-10's figures)."""
    fp = load_tool("fingerprint_core")
    ends: dict = {}
    digest = fp.fingerprint(2, 20, True, ends)
    assert sum(ends.values()) == 20 and set(ends) <= set(fp.ENDS.values())
    assert digest == fp.fingerprint(2, 20, True)                 # counting does not change the games
