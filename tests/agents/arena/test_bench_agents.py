"""`v1919 bench`'s agent figures at real game positions (issue 21: the greedy figure came from one
position with 4 legal actions, several times faster than real play)."""
from __future__ import annotations

from agents.arena.bench import bench_agents_at_real_positions, format_real_positions, real_positions


def test_real_positions_are_spread_over_whole_rulebot_games():
    games = real_positions(3, count=30, seed=1)
    assert len(games) == 30 and not any(g.is_over for g in games)
    taken = [g.decisions_taken for g in games]
    assert len(set(taken)) > 20 and max(taken) > 150                 # early, middle and late decisions
    assert len({g.decision for g in games}) >= 2                      # more than one kind of decision


def test_every_agent_is_timed_at_the_same_positions_and_a_missing_one_is_named():
    r = bench_agents_at_real_positions(3, 0.01, positions=8, specs=("random", "greedy:samples=1",
                                                                    "learned:path=/nonexistent.zip"))
    assert r["positions"] == 8 and r["mean_legal"] > 1
    for name in ("random", "greedy:samples=1"):
        a = r["agents"][name]
        assert a["decisions"] >= 8 and a["decisions"] % 8 == 0            # whole passes over the positions
        assert a["mean_ms"] > 0 and abs(a["decisions_per_s"] * a["mean_ms"] / 1e3 - 1) < 1e-9
    assert "nonexistent" in r["agents"]["learned:path=/nonexistent.zip"]["skipped"]
    text = "\n".join(format_real_positions(r))
    assert "8 real positions" in text and "not measured" in text
