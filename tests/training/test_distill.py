"""training.distill: a network distilled into a new body on the compact observation, on the positions
the student reaches itself; tiny runs on short games (the figures of a real run: docs/expert_iteration.md)."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training import distill  # noqa: E402
from training.selfplay import ConfigError  # noqa: E402

TINY = {"name": "tiny", "seed": 1, "games": 6, "decisions": 1800, "buffer": 1500, "batch_size": 64,
        "arch": {"trunk": [32], "pi": [16], "vf": [16]}, "log_every": 600, "checkpoint_every": 900,
        "variant": "short15"}


def _rows(out):
    with open(out / "progress.csv") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("distill") / "run"
    res = distill.distill(distill.load_config(raw=TINY), out, progress=False)
    return out, res


def test_a_run_writes_a_compact_student_that_learned_plays_and_guided_searches(run):
    from agents import make_agent
    from agents.arena.play import run_game, seat_spec
    from agents.learned import LearnedAgent

    out, res = run
    assert res["decisions"] >= TINY["decisions"] and res["steps"] * TINY["games"] == res["decisions"]
    rows = _rows(out)
    assert [int(r["decisions"]) for r in rows] == [600, 1200, 1800]
    for r in rows:
        assert 0.0 <= float(r["agreement"]) <= 1.0 and float(r["kl"]) >= 0.0
    assert float(rows[-1]["learning_rate"]) == 0.0                  # the rate decayed to 0 over `decisions`
    net = LearnedAgent(path=res["checkpoint"])
    assert net.obs_layout == "compact" and net.seat_values
    ck = res["checkpoint"]
    record = run_game([make_agent("learned", path=ck), *(make_agent("random") for _ in range(3))],
                      [seat_spec("learned"), *(seat_spec("random") for _ in range(3))], num_players=4, seed=3,
                      variant="short15")
    assert record["result"]["winners"] and not record["result"].get("forfeit")
    from v1919_env.game import Game
    from agents.seat import observe_seat

    g = Game.new(4, seed=5, variant="short15")
    full, mask = observe_seat(g, g.current_player)
    assert mask[make_agent("guided", path=ck, iterations=8, batch_size=4).act(full, mask, g.clone())]


def test_the_same_config_gives_the_same_run(run, tmp_path):
    out, res = run
    again = distill.distill(distill.load_config(raw=TINY), tmp_path / "again", progress=False)
    keys = ("decisions", "games", "agreement", "kl", "value_mse")
    assert [[r[k] for k in keys] for r in _rows(out)] == [[r[k] for k in keys] for r in _rows(tmp_path / "again")]
    assert again["games_started"] == res["games_started"]


def test_a_finished_games_decisions_get_every_seats_discounted_outcome():
    """The value targets: the decider's outcome first, then clockwise, times gamma ** (the decider's
    decisions still to come); a slot another game reused keeps that game's target."""
    from v1919_env.game import Game, card_tables
    from v1919_env.rewards import terminal_rewards
    from v1919_env.variants import variant_index

    cfg = distill.load_config(raw={**TINY, "games": 1})
    cards, T = card_tables(None)
    games = distill._Games(cfg, T, variant_index(cards, "short15"), 0)
    buf = distill.Buffer(64, 4)
    rng = np.random.default_rng(0)
    while not Game(games.S[0].copy(), cards, T).is_over:
        g = Game(games.S[0].copy(), cards, T)
        legal = g.legal_actions()
        p = g.current_player
        if len(legal) > 1 and len(games.recs[0]) < 40:
            idx = buf.add(np.zeros((1, 4)), np.zeros((1, 694), bool), np.zeros((1, 694)), games.game[:1])
            games.recs[0].append((int(idx[0]), p, int(games.made[0, p])))
        distill.play(games.S, T, np.array([int(rng.choice(legal))]), np.array([p]), games.made)
    buf.owner[games.recs[0][-1][0]] = 99                 # as if a later game had taken the slot
    distill.finish(games, 0, buf, cards, {"win_loss": 1.0}, 0.9)
    scores = Game(games.S[0].copy(), cards, T).scores()
    final = terminal_rewards(scores, "win_loss")
    order = [int(x) for x in games.S[0][distill.SEATING:distill.SEATING + 4]]
    for idx, p, before in games.recs[0][:-1]:
        me = order.index(p)
        want = [final[order[(me + k) % 4]] * 0.9 ** (games.made[0, p] - before) for k in range(4)]
        assert buf.known[idx] and np.allclose(buf.values[idx], want)
    assert not buf.known[games.recs[0][-1][0]]


def test_a_stopped_run_resumes_and_a_changed_config_or_a_second_start_is_refused(tmp_path):
    cfg = distill.load_config(raw=TINY)
    out = tmp_path / "run"
    first = distill.distill(cfg, out, minutes=1e-6, progress=False)         # stops after its first step
    assert 0 < first["decisions"] < TINY["decisions"]
    assert json.loads((out / "state.json").read_text())["decisions"] == first["decisions"]
    with pytest.raises(ConfigError, match="holds a run already"):
        distill.distill(cfg, out, progress=False)
    with pytest.raises(ConfigError, match="config differs"):
        distill.distill(distill.load_config(raw={**TINY, "seed": 2}), out, resume=True, progress=False)
    with pytest.raises(ConfigError, match="no run to resume"):
        distill.distill(cfg, tmp_path / "none", resume=True, progress=False)
    done = distill.distill(cfg, out, resume=True, progress=False)
    assert done["decisions"] >= TINY["decisions"] and done["games_started"] > first["games_started"]


@pytest.mark.parametrize("patch, field", [
    ({"games": 0}, "games"), ({"student_share": 1.5}, "student_share"), ({"obs_layout": "tiny"}, "obs_layout"),
    ({"teacher": "/no/such.zip"}, "teacher"), ({"variant": "bogus"}, "variant"), ({"num_players": 1}, "num_players"),
    ({"arch": {"trunk": [0]}}, "arch.trunk"), ({"teacher_temperature": 0}, "teacher_temperature"),
    ({"bogus": 1}, "bogus")])
def test_bad_configs_are_refused_naming_the_field(patch, field):
    with pytest.raises(ConfigError, match=rf"^{field}"):
        distill.load_config(raw={**TINY, **patch})


def test_the_command_refuses_a_bad_evaluation_count_in_one_line(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(json.dumps(TINY))
    with pytest.raises(SystemExit, match="--evaluate: a multiple of the player count 4"):
        distill.main([str(cfg), "--out", str(tmp_path / "o"), "--evaluate", "3"])
