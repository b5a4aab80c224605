"""`v1919 benchmark AGENT_SPEC` (issue 35, agents/arena/benchmark.py): the agent against the standard lineups on
duplicate deals, end to end on a tiny budget (cheap lineups, a few games in this process), the table's rows
and numbers, resuming, a lineup that cannot be built, and the one-line errors of bad input."""
from __future__ import annotations

import json

import pytest

from agents.arena import benchmark
from agents.arena.benchmark import DEFAULT_GAMES, LINEUPS, check_agent, lineup_config
from v1919_env.cli import build_parser, main
from helpers.cli import one_line_error as _one_line_error


def _run(tmp_path, *extra: str, agent: str = "greedy", players: int = 3, games: int = 6,
         lineups: str | None = "rulebot,greedy") -> list[str]:
    argv = ["benchmark", agent, "--players", str(players), "--games", str(games), "--workers", "0",
            "--out", str(tmp_path / "bm"), "--no-progress", *extra]
    return argv + (["--lineups", lineups] if lineups else [])


def _check_row(row: dict, num_players: int) -> None:
    assert 0.0 <= row["win_low"] <= row["win_rate"] <= row["win_high"] <= 1.0
    assert 0.0 <= row["deals_low"] <= row["win_rate"] <= row["deals_high"] <= 1.0
    assert row["wins"] == pytest.approx(row["win_rate"] * row["games"])
    assert 1.0 <= row["mean_rank"] <= num_players
    assert row["ms_per_decision"] > 0
    assert sum(n["games"] for n in row["nations"].values()) == row["games"]
    for n in row["nations"].values():       # seats rotated: every nation played equally
        assert n["games"] == row["games"] // num_players and 0.0 <= n["win_rate"] <= 1.0


def test_end_to_end_three_players(tmp_path, capsys):
    assert main(_run(tmp_path)) == 0
    out, err = capsys.readouterr()
    result = json.loads((tmp_path / "bm" / "benchmark.json").read_text())
    assert result["agent"] == "greedy" and result["num_players"] == 3 and result["games_per_lineup"] == 6
    assert [r["lineup"] for r in result["lineups"]] == ["rulebot", "greedy"]
    assert [r["opponent"] for r in result["lineups"]] == ["rulebot", "greedy"]
    assert result["skipped"] == {} and result["failed"] == {} and result["deals"] == "seeded"
    for r in result["lineups"]:
        assert r["games"] == 6
        _check_row(r, 3)
    overall = result["overall"]
    _check_row(overall, 3)
    assert overall["games"] == sum(r["games"] for r in result["lineups"]) == 12
    assert overall["wins"] == pytest.approx(sum(r["wins"] for r in result["lineups"]))
    assert overall["mean_rank"] == pytest.approx(sum(r["mean_rank"] * r["games"] for r in result["lineups"]) / 12)
    # the lineup tournaments: the agent and two copies of the opponent, 2 deals played in each seat rotation
    games = [json.loads(x) for x in (tmp_path / "bm" / "rulebot" / "games.jsonl").read_text().splitlines()]
    assert len(games) == 6 and len({g["seed"] for g in games}) == 2
    assert all(sorted(s["label"] for s in g["seats"]) == ["greedy", "rulebot-1", "rulebot-2"] for g in games)
    assert sorted(next(p for p, s in enumerate(g["seats"]) if s["label"] == "greedy") for g in games) == [0, 0, 1, 1,
                                                                                                          2, 2]
    # the table, printed and in benchmark.md: a row per lineup and one for all of them
    md = (tmp_path / "bm" / "benchmark.md").read_text()
    for text in (out, md):
        rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| lineup")]
        assert [r.split(" | ")[0] for r in rows] == ["| rulebot", "| greedy", "| all"]
        assert "| as UK | as France | as USA |" in text
    assert "v1919 benchmark greedy --players 3 --games 6 --lineups rulebot,greedy" in md and "base seed 0." in md
    assert "lineup 1/2 rulebot" in err and "Traceback" not in err


def test_resume_plays_nothing_again(tmp_path, capsys):
    assert main(_run(tmp_path, agent="random", players=2, games=2, lineups="rulebot")) == 0
    first = json.loads((tmp_path / "bm" / "benchmark.json").read_text())
    capsys.readouterr()
    assert main(_run(tmp_path, agent="random", players=2, games=2, lineups="rulebot")) == 0
    again = json.loads((tmp_path / "bm" / "benchmark.json").read_text())
    assert again["lineups"] == first["lineups"]
    assert len((tmp_path / "bm" / "rulebot" / "games.jsonl").read_text().splitlines()) == 2


def test_lineups_come_from_the_one_list(tmp_path, capsys, monkeypatch):
    """The command plays what LINEUPS says (all of it without --lineups), and skips a lineup whose
    opponent cannot be built (here: as without torch), saying why."""
    real = benchmark.make_agent

    def no_torch(name, **opts):
        if name == "guided":
            raise ModuleNotFoundError("No module named 'torch'", name="torch")
        return real(name, **opts)

    monkeypatch.setattr(benchmark, "LINEUPS", {"cheap": "random", "strong": "guided:iterations=8"})
    monkeypatch.setattr(benchmark, "make_agent", no_torch)
    assert main(_run(tmp_path, agent="rulebot", players=2, games=2, lineups=None)) == 0
    out, err = capsys.readouterr()
    result = json.loads((tmp_path / "bm" / "benchmark.json").read_text())
    assert [r["lineup"] for r in result["lineups"]] == ["cheap"]
    assert "torch" in result["skipped"]["strong"]
    assert "skipping lineup strong: guided:iterations=8: needs torch" in err
    assert "Skipped: strong" in (tmp_path / "bm" / "benchmark.md").read_text()
    # the benchmarked agent itself needing torch is an error
    assert main(_run(tmp_path, agent="guided", players=2, games=2, lineups=None)) == 2
    _one_line_error(capsys, "agent 'guided'", "needs torch")


def test_the_standard_lineups():
    assert LINEUPS == {"rulebot": "rulebot", "greedy": "greedy", "ismcts": "ismcts",
                       "strongest": "guided:iterations=256,rollout_mix=1,bot_prior=0.5"}
    for spec in ("rulebot", "greedy", "ismcts"):
        check_agent(spec)
    for n in (2, 3, 4):
        cfg = lineup_config("ismcts:iterations=50", "rulebot", "rulebot", n, 2 * n, 0, 0)
        assert cfg.labels == ["ismcts:iterations=50"] + [f"rulebot-{k}" for k in range(1, n)]
        assert cfg.duplicate and cfg.num_players == n
    cfg = lineup_config("greedy", "greedy", "greedy", 4, 4, 0, 0)
    assert len(set(cfg.labels)) == 4
    assert DEFAULT_GAMES % 12 == 0
    assert build_parser().parse_args(["benchmark", "rulebot"]).games is None     # DEFAULT_GAMES then


@pytest.mark.parametrize("argv, says", [
    (["nosuch"], ["unknown agent 'nosuch'", "agents: "]),
    (["rulebot:depth=3"], ["agent 'rulebot:depth=3'", "no option 'depth'"]),
    (["rulebot:depth"], ["is not key=value"]),
    (["human"], ["needs a person"]),
    (["rulebot", "--players", "5"], ["--players: 2, 3 or 4, got 5"]),
    (["rulebot", "--players", "1"], ["--players: 2, 3 or 4, got 1"]),
    (["rulebot", "--games", "10"], ["--games: a positive multiple of 4", "got 10", "use 8 or 12"]),
    (["rulebot", "--players", "3", "--games", "2"], ["--games: a positive multiple of 3", "got 2", "use 3"]),
    (["rulebot", "--games", "0"], ["--games: a positive multiple of 4", "got 0"]),
    (["rulebot", "--games", "-8"], ["--games: a positive multiple of 4", "got -8"]),
    (["rulebot", "--lineups", "rulebot,nosuch"], ["--lineups", "nosuch"]),
    (["rulebot", "--workers", "-1"], ["--workers: 0 or more"]),
])
def test_bad_input_is_one_line(tmp_path, capsys, argv, says):
    out = tmp_path / "bm"
    assert main(["benchmark", *argv, "--out", str(out), "--no-progress"]) == 2
    _one_line_error(capsys, *says)
    assert not out.exists()


def test_out_that_is_a_file(tmp_path, capsys):
    f = tmp_path / "f"
    f.write_text("x")
    assert main(["benchmark", "rulebot", "--out", str(f), "--no-progress"]) == 2
    _one_line_error(capsys, str(f), "is a file")
    assert f.read_text() == "x"


def test_wilson_interval_holds_the_rate_at_the_ends():
    """0 wins of 6 games gave a lower end of 3e-17 (rounding), above the rate of 0 the table shows."""
    from agents.arena.tournament.stats import wilson_interval

    for n in range(1, 200):
        for wins in (0, n / 3, n / 2, n):
            lo, hi = wilson_interval(wins, n)
            assert 0.0 <= lo <= wins / n <= hi <= 1.0, (wins, n, lo, hi)
    assert wilson_interval(0, 6)[0] == 0.0 and wilson_interval(6, 6)[1] == 1.0


def test_the_strongest_lineup_builds():
    """guided with rule-bot rollouts on the shipped weights of every player count (needs torch)."""
    pytest.importorskip("torch")
    from agents.guided import SHIPPED_WEIGHTS

    check_agent(LINEUPS["strongest"])
    assert all(SHIPPED_WEIGHTS[n].is_file() for n in (2, 3, 4))


def test_an_agent_of_your_own_module(tmp_path, capsys, monkeypatch):
    """--module imports the module that registers the agent first, here and in the tournament."""
    (tmp_path / "bm_own_agent.py").write_text(
        "import numpy as np\n"
        "from agents.base import Agent, register\n\n\n"
        "@register('bm_first_legal')\n"
        "class FirstLegal(Agent):\n"
        "    def act(self, observation, action_mask, game=None):\n"
        "        return int(np.flatnonzero(action_mask)[0])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))         # for a bot process, should the agent run as one
    assert main(_run(tmp_path, "--module", "bm_own_agent", agent="bm_first_legal", players=2, games=2,
                     lineups="rulebot")) == 0
    result = json.loads((tmp_path / "bm" / "benchmark.json").read_text())
    assert result["lineups"][0]["games"] == 2 and result["agent"] == "bm_first_legal"
    assert "--module bm_own_agent" in result["command"]
    # it plays as a bot process, so the deals are secret and the report says a new run deals other games
    assert result["deals"] == "secret" and "secret deals" in (tmp_path / "bm" / "benchmark.md").read_text()
    assert "secret deals: a bot process plays" in capsys.readouterr().out
    assert main(_run(tmp_path, "--module", "bm_no_such_module", agent="rulebot", players=2, games=2)) == 2
    _one_line_error(capsys, "--module: cannot import 'bm_no_such_module'")


def test_workers_and_ray_reach_every_lineup_tournament(tmp_path, capsys, monkeypatch):
    """--ray and --workers go to play_games for each lineup (here recorded, then played in this process)."""
    import agents.arena.tournament as tournament

    real, seen = tournament.play_games, []

    def recording(cfg, out, workers=None, progress=True, ray=None):
        seen.append((cfg.name, workers, ray, progress))
        return real(cfg, out, workers=0, progress=False, ray=None)

    monkeypatch.setattr(tournament, "play_games", recording)
    argv = ["benchmark", "random", "--players", "2", "--games", "2", "--lineups", "rulebot,greedy", "--workers", "3",
            "--ray", "auto", "--out", str(tmp_path / "bm")]
    assert main(argv) == 0
    assert seen == [("benchmark_rulebot", 3, "auto", True), ("benchmark_greedy", 3, "auto", True)]


def test_another_benchmark_into_the_same_directory_is_refused(tmp_path, capsys):
    assert main(_run(tmp_path, agent="random", players=2, games=2, lineups="rulebot")) == 0
    capsys.readouterr()
    assert main(_run(tmp_path, "--seed", "7", agent="random", players=2, games=2, lineups="rulebot")) == 2
    _one_line_error(capsys, "holds games of another tournament", "choose another --out directory")
    # more games extend it: the first two are kept
    assert main(_run(tmp_path, agent="random", players=2, games=4, lineups="rulebot")) == 0
    assert json.loads((tmp_path / "bm" / "benchmark.json").read_text())["lineups"][0]["games"] == 4


def test_the_strongest_lineup_is_the_ladders_top_agent():
    """The strongest lineup is the ladder's guided-rollout-bot (configs/ladder/ladder_4p.yaml, docs/ladder.md)."""
    from pathlib import Path

    import yaml

    from agents.base import parse_agent_spec

    ladder = yaml.safe_load((Path(__file__).resolve().parents[3] / "configs/ladder/ladder_4p.yaml").read_text())
    top = next(a for a in ladder["agents"] if isinstance(a, dict) and a.get("label") == "guided-rollout-bot")
    assert parse_agent_spec(LINEUPS["strongest"]) == (top["name"], top["options"])


def test_ctrl_c_reports_the_games_so_far(tmp_path, capsys, monkeypatch):
    """Ctrl-C in the second lineup: exit 130, the first lineup's table printed and written, the same
    command resumes; SIGTERM: exit 143 without a report."""
    import signal

    import agents.arena.tournament as tournament
    from agents.arena.tournament import TournamentInterrupted

    real, calls = tournament.play_games, []

    def stopped_in_greedy(cfg, out, workers=None, progress=True, ray=None):
        calls.append(cfg.name)
        if cfg.name == "benchmark_greedy":
            raise TournamentInterrupted("interrupted: 0 of 2 games kept; run the same command again to resume",
                                        signal.SIGINT)
        return real(cfg, out, workers=workers, progress=progress, ray=ray)

    monkeypatch.setattr(tournament, "play_games", stopped_in_greedy)
    argv = _run(tmp_path, agent="random", players=2, games=2, lineups="rulebot,greedy,ismcts")
    assert main(argv) == 130
    out, err = capsys.readouterr()
    assert calls == ["benchmark_rulebot", "benchmark_greedy"]         # ismcts not started
    assert "| rulebot |" in out and "| greedy |" not in out and "interrupted: 0 of 2 games kept" in err
    result = json.loads((tmp_path / "bm" / "benchmark.json").read_text())
    assert [r["lineup"] for r in result["lineups"]] == ["rulebot"] and result["interrupted"]
    assert "Interrupted" in (tmp_path / "bm" / "benchmark.md").read_text()
    monkeypatch.setattr(tournament, "play_games", real)
    assert main(argv) == 0                                              # resumed: every lineup
    assert [r["lineup"] for r in json.loads((tmp_path / "bm" / "benchmark.json").read_text())["lineups"]] == [
        "rulebot", "greedy", "ismcts"]

    def terminated(cfg, out, workers=None, progress=True, ray=None):
        raise TournamentInterrupted("terminated", signal.SIGTERM)

    monkeypatch.setattr(tournament, "play_games", terminated)
    capsys.readouterr()
    assert main(_run(tmp_path / "other", agent="random", players=2, games=2, lineups="rulebot")) == 143
    assert not (tmp_path / "other" / "bm" / "benchmark.json").exists()
