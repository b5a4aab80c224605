"""Expert iteration (training/expert_iteration.py): the config checks, the self-play records (visit
distributions, discounted value targets), the distillation lowering the KL to the visit targets,
and a whole smoke run whose checkpoint `guided` and `learned` load."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training.expert_iteration import ExItConfigError, distill, fit_figures, load_config, play_games, run  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "expert_iteration" / "exit_smoke.yaml"


def test_shipped_configs_are_valid_and_bad_fields_are_named():
    for p in (ROOT / "configs" / "expert_iteration").glob("*.yaml"):
        load_config(p)
    for raw, msg in (({"rounds": 0}, "rounds: must be at least 1, got 0"), ({"games": 1.5}, "games: expected a number"),
                     ({"fit": {"holdout": 2}}, "fit.holdout"), ({"fit": 3}, "fit: expected a mapping"),
                     ({"search": {"iterations": 0}}, "search: .*iterations must be an integer >= 1"),
                     ({"search": {"iters": 3}}, "search: .*no option 'iters'"),
                     ({"init": "/no/such.zip"}, "init: no checkpoint file"), ({"num_players": 5}, "num_players"),
                     ({"search": {"temperature": 1.0}}, "search: temperature are set by the run"),
                     ({"rounds_": 1}, "rounds_: unknown key")):
        with pytest.raises(ExItConfigError, match=msg):
            load_config(raw=raw)


def test_self_play_records_visit_distributions_and_discounted_outcomes():
    cfg = load_config(SMOKE)
    rec, info = play_games(cfg, None, 1)
    d = rec.arrays()
    n = len(rec)
    assert n == info["searched_decisions"] > 0 and info["games"] == 2
    assert np.allclose(d["targets"].sum(1), 1.0, atol=1e-5)
    assert not (d["targets"] * ~d["masks"]).any()                 # visits only on legal actions
    assert set(np.unique(d["games"])) == {0, 1}
    # within a game and seat the targets are gamma^k x one final reward: |value| grows towards the end
    for gi in (0, 1):
        for p in range(4):
            v = d["values"][(d["games"] == gi) & (d["seats"] == p)]
            assert len(v) and (np.all(np.diff(np.abs(v)) >= -1e-6))
            assert np.all(np.sign(v) == np.sign(v[-1]))


def test_distillation_lowers_the_kl_to_the_visit_targets():
    from agents.learned import LearnedAgent
    cfg = load_config(SMOKE)
    rec, _ = play_games(cfg, None, 2)
    d = rec.arrays()
    idx = np.arange(len(rec))
    net = LearnedAgent()
    fit = distill(net.model.policy, d, idx, idx, {"epochs": 3, "batch_size": 64, "learning_rate": 1e-3,
                                                   "value_coef": 0.5}, seed=0)
    assert fit["after"]["kl"] < fit["before"]["kl"]
    assert fit["after"]["value_mse"] < fit["before"]["value_mse"]
    assert fit_figures(net.model.policy, d, idx)["kl"] == pytest.approx(fit["after"]["kl"], rel=1e-5)


def test_a_smoke_run_writes_a_checkpoint_that_the_agents_load(tmp_path):
    from agents import make_agent
    s = run(load_config(SMOKE), tmp_path / "run")
    ck = tmp_path / "run" / "checkpoints" / "round_1.zip"
    assert ck.is_file() and json.loads((tmp_path / "run" / "summary.json").read_text())["rounds"][0]["to"] == str(ck)
    from agents.learned import DEFAULT_WEIGHTS
    assert [(e["agent"], e["opponent"]) for e in s["evaluation"]] == [
        (f"learned:path={ck}", f"learned:path={DEFAULT_WEIGHTS}"), (f"learned:path={ck}", "rulebot"),
        (f"learned:path={DEFAULT_WEIGHTS}", "rulebot")]
    assert len(s["evaluation"]) == 3 and all(0 <= e["win_rate"] <= 1 for e in s["evaluation"])
    g = make_agent("guided", path=str(ck), iterations=2)
    assert g.players == 4 and g.reward == {"win_loss": 1.0, "score_margin": 0.2}   # from the run's config.yaml
    make_agent("learned", path=str(ck))
