"""The training pipeline end to end at a tiny budget (no test asserts that anything is learned):
config validation, the SB3 VecEnv, neural opponents, train -> checkpoints -> evaluation -> curve ->
resume, the learned agent on the result, and the `v1919 train` command."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

from training.config import ConfigError, config_from_dict, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "train" / "smoke.yaml"


def smoke_cfg(**over) -> dict:
    raw = yaml.safe_load(SMOKE.read_text())
    raw.update(over)
    return config_from_dict(raw, "smoke")


def test_every_shipped_config_is_valid():
    ours = [p for p in (ROOT / "configs" / "train").glob("*.yaml") if not p.name.startswith("rllib_")]  # RLlib's own
    assert "smoke.yaml" in {p.name for p in ours}
    for p in ours:
        try:
            load_config(p)
        except ConfigError as e:
            if "rulebot" in str(e) and "unknown agent" in str(e) or "not a compiled agent" in str(e):
                pytest.skip("rulebot is not registered in this build")
            raise


@pytest.mark.parametrize("over, field", [
    ({"budget": {"steps": 0}}, "budget.steps"),
    ({"budget": {"steps": None, "minutes": None}}, "budget"),
    ({"opponents": {"greedy": 1.0}}, "opponents.greedy"),
    ({"opponents": {"random": -1}}, "opponents.random"),
    ({"ppo": {"gamma": 1.5}}, "ppo.gamma"),
    ({"ppo": {"learning_rat": 0.1}}, "ppo.learning_rat"),
    ({"policy": {"trunk": [0]}}, "policy.trunk"),
    ({"evaluation": {"games": 6}}, "evaluation.games"),
    ({"evaluation": {"opponents": ["nobody"]}}, "evaluation.opponents[0]"),
    ({"reward": "wins"}, "reward"),
    ({"env": {"workers": 2}}, "env.workers"),
    ({"env": {"obs_layout": "tiny"}}, "env.obs_layout"),
    ({"colour": "red"}, "colour"),
    ({"num_players": 5}, r"num_players: expected 1 \(the solitaire game\), 2, 3 or 4"),
    ({"pretrain": {"teacher": "greedy"}}, "pretrain.teacher"),
    ({"pretrain": {"teacher": "rulebot", "decisions": 0}}, "pretrain.decisions"),
    ({"pretrain": {"teacher": "rulebot", "decisions": 100, "batch_size": 512}}, "pretrain.batch_size"),
    ({"ppo": {"target_kl": -0.1}}, "ppo.target_kl"),
])
def test_config_errors_name_the_field(over, field):
    with pytest.raises(ConfigError, match=field.replace("[", r"\[").replace("]", r"\]")):
        smoke_cfg(**over)


def test_sb3_vector_env_is_a_vecenv_with_masks():
    from stable_baselines3.common.vec_env import VecEnv
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from training.envs import make_vec_env

    venv, engine = make_vec_env(smoke_cfg(), ["random"], None, seed=1)
    assert isinstance(engine, VecEnv) and is_masking_supported(venv)
    venv.seed(3)
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert obs.shape == (16, engine.observation_space.shape[0]) and masks.shape == (16, engine.action_space.n)
    assert masks.any(axis=1).all()
    obs2, rewards, dones, infos = venv.step(np.argmax(masks, axis=1))
    assert obs2.shape == obs.shape and len(infos) == 16


def test_neural_opponent_plays_legal_actions_in_one_batch():
    from sb3_contrib import MaskablePPO

    from training.envs import make_vec_env
    from training.opponents import NeuralOpponent, OpponentPool
    from training.policy import policy_kwargs

    cfg = smoke_cfg()
    venv, engine = make_vec_env(cfg, ["random"], None, seed=0)
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs=policy_kwargs(cfg), n_steps=8, batch_size=16, device="cpu")
    opp = NeuralOpponent.from_model(model, "frozen", seed=1)
    venv.seed(0)
    venv.reset()
    masks = engine.action_masks().astype(np.int8)
    obs = engine._obs[engine._buf]
    for deterministic in (False, True):
        opp.deterministic = deterministic
        acts = opp.act_batch(obs, masks)
        assert acts.shape == (16,) and masks[np.arange(16), acts].all()
    pool = OpponentPool({"random": 0.5, "self": 0.5}, pool_size=2)
    for step in (0, 10, 20):
        pool.add_snapshot(model, step)
    opps, weights = pool.entries()
    assert [getattr(o, "label", o) for o in opps] == ["random", "self@10", "self@20"]
    assert weights == [0.5, 0.25, 0.25]
    pool.apply(engine)
    venv.reset()
    for _ in range(50):
        venv.step(np.argmax(engine.action_masks(), axis=1))
    assert (engine.pol <= -2).any()          # neural opponents are seated


def test_train_evaluate_resume_and_play_the_result(tmp_path):
    from agents.base import make_agent
    from agents.arena.play import run_game, seat_spec
    from training.learner import RunError, train

    cfg = smoke_cfg()
    run = tmp_path / "run"
    summary = train(cfg, run, progress=False)
    assert summary["steps"] == 2048
    for f in ("config.yaml", "state.json", "evaluations.csv", "learning_curve.png", "summary.json",
              "checkpoints/latest.zip", "checkpoints/final.zip", "checkpoints/step_000001024.zip"):
        assert (run / f).exists(), f
    assert list((run / "tb").glob("**/events.out.tfevents.*"))
    assert yaml.safe_load((run / "config.yaml").read_text()) == cfg
    rows = list(csv.DictReader(open(run / "evaluations.csv")))
    assert {int(r["step"]) for r in rows} == {0, 1024, 2048} and all(r["opponent"] == "random" for r in rows)
    assert all(0 <= float(r["win_low"]) <= float(r["win_rate"]) <= float(r["win_high"]) <= 1 for r in rows)
    assert (run / "eval" / "000001024" / "random" / "games.jsonl").exists()
    state = json.loads((run / "state.json").read_text())
    assert [s for s, _ in state["snapshots"]] == [1024, 2048]     # step 0, 1024, 2048; pool_size 2 keeps 2
    pre = state["pretrain"]                                       # the warm start ran once, inside the budget
    assert pre["teacher"] == "rulebot" and pre["decisions"] == 3000
    assert 0 < state["pretrain_seconds"] < state["train_seconds"]
    assert pre["after"]["cross_entropy"] < pre["before"]["cross_entropy"]

    with pytest.raises(RunError, match="already holds a run"):
        train(cfg, run, progress=False)
    with pytest.raises(RunError, match="differs"):
        train(smoke_cfg(seed=1), run, resume=True, progress=False)
    # a run saved before a key joined the defaults (pretrain.workers) resumes: the key takes its default
    saved = json.loads((run / "state.json").read_text())
    del saved["config"]["pretrain"]["workers"]
    # and a run killed after a checkpoint counts its training time up to that checkpoint
    saved["train_seconds"], saved["train_seconds_at_save"] = 0.0, 1000.0
    (run / "state.json").write_text(json.dumps(saved))
    longer = smoke_cfg(budget={"steps": 3072})
    summary = train(longer, run, resume=True, progress=False)
    assert summary["steps"] == 3072
    resumed = json.loads((run / "state.json").read_text())
    assert resumed["resumes"] == 1 and resumed["pretrain"] == pre      # no second warm start
    assert resumed["train_seconds"] > 1000.0

    agent = make_agent("learned", path=str(run / "checkpoints" / "final.zip"))
    others = [make_agent("random") for _ in range(3)]
    specs = [seat_spec("learned")] + [seat_spec("random", label=f"random-{k}") for k in range(3)]
    rec = run_game([agent] + others, specs, num_players=4, seed=5)
    assert rec["result"]["forfeit"] is None


def test_v1919_train_command(tmp_path):
    cfg = yaml.safe_load(SMOKE.read_text())
    cfg.update(budget={"steps": 512}, ppo={"n_steps": 32, "batch_size": 256, "n_epochs": 1},
               evaluation={"every_steps": None, "games": 4, "final_games": 4, "opponents": ["random"]})
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg))
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "v1919_env.cli", "train", str(path), "--out", str(out),
                        "--no-progress"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["steps"] == 512
    bad = tmp_path / "bad.yaml"
    bad.write_text("budget: {steps: -5}\n")
    r = subprocess.run([sys.executable, "-m", "training", str(bad)], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    assert r.returncode == 2 and "budget.steps" in r.stderr


def test_neural_opponent_logits_match_the_policy_distribution():
    import torch
    from sb3_contrib import MaskablePPO

    from training.envs import make_vec_env
    from training.opponents import NeuralOpponent
    from training.policy import policy_kwargs

    cfg = smoke_cfg()
    venv, engine = make_vec_env(cfg, ["random"], None, seed=0)
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs=policy_kwargs(cfg), n_steps=8, batch_size=16,
                        device="cpu")
    venv.reset()
    obs, masks = engine._obs[engine._buf], engine.action_masks()
    opp = NeuralOpponent.from_model(model, "frozen")
    with torch.no_grad():
        ref = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks).distribution.probs.numpy()
    lg = opp.logits(obs, masks.astype(np.int8))
    probs = np.exp(lg - lg.max(axis=1, keepdims=True))
    np.testing.assert_allclose(probs / probs.sum(axis=1, keepdims=True), ref, atol=1e-5)


def test_evaluation_tournament_of_agent_specs(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.arena.tournament.config import ConfigError as TournamentConfigError
    from training.envs import make_vec_env
    from training.evaluate import tournament_config
    from training.policy import policy_kwargs

    cfg = smoke_cfg()
    with pytest.raises(TournamentConfigError, match="no checkpoint file"):
        tournament_config(tmp_path / "none.zip", "random", 8, cfg, seed=3)
    venv, _ = make_vec_env(cfg, ["random"], None, seed=0)
    MaskablePPO("MlpPolicy", venv, policy_kwargs=policy_kwargs(cfg), device="cpu").save(str(tmp_path / "m.zip"))
    t = tournament_config(tmp_path / "m.zip", "ismcts:iterations=20", 8, cfg, seed=3)
    assert t.labels == ["learned"] + [f"ismcts:iterations=20#{k}" for k in (1, 2, 3)]
    assert [a["options"] for a in t.agents[1:]] == [{"iterations": 20}] * 3


def test_the_shipped_weights_are_the_learned_agents_default():
    from agents.base import make_agent
    from agents.learned import DEFAULT_WEIGHTS
    from agents.arena.play import run_game, seat_spec

    assert DEFAULT_WEIGHTS.is_file() and DEFAULT_WEIGHTS.stat().st_size < 5_000_000
    agents = [make_agent("learned")] + [make_agent("rulebot") for _ in range(3)]
    specs = [seat_spec("learned")] + [seat_spec("rulebot", label=f"rulebot-{k}") for k in range(3)]
    rec = run_game(agents, specs, num_players=4, seed=2)
    assert rec["result"]["forfeit"] is None


def test_throughput_bench_trains_without_warm_start_or_evaluation(capsys):
    from training.bench import main

    assert main([str(SMOKE), "--steps", "512", "--set", "env.num_envs=8", "ppo.n_steps=32"]) == 0
    out = capsys.readouterr().out
    assert "env.num_envs=8 ppo.n_steps=32: 512 learner steps in" in out and "steps/s" in out


def test_export_drops_optimizer_and_rollout_state_and_keeps_the_policy(tmp_path):
    import zipfile

    import torch
    from sb3_contrib import MaskablePPO

    from training.envs import make_vec_env
    from training.export import export_weights
    from training.policy import policy_kwargs

    cfg = smoke_cfg()
    venv, _ = make_vec_env(cfg, ["random"], None, seed=0)
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs=policy_kwargs(cfg), device="cpu")
    model._last_obs = venv.reset()                        # what a training run leaves in the model
    model.save(str(tmp_path / "src.zip"))
    out = export_weights(tmp_path / "src.zip", tmp_path / "out.zip")
    with zipfile.ZipFile(tmp_path / "src.zip") as z:
        assert "_last_obs" in z.read("data").decode()
    with zipfile.ZipFile(out) as z:
        assert "_last_obs" not in z.read("data").decode()
    assert out.stat().st_size < (tmp_path / "src.zip").stat().st_size
    src, exp = model.policy.state_dict(), MaskablePPO.load(str(out), device="cpu").policy.state_dict()
    assert src.keys() == exp.keys() and all(torch.equal(src[k], exp[k]) for k in src)


def test_league_pool_prioritizes_the_snapshots_that_beat_the_learner():
    from training.opponents import OpponentPool

    class Frozen:                                     # stands in for a snapshot: only its label matters here
        def __init__(self, label):
            self.label = label

    pool = OpponentPool({"rulebot": 0.5, "self": 0.5}, pool_size=3, priority="pfsp", pfsp_power=2.0, num_players=4)
    pool.snapshots = [(s, None, Frozen(f"self@{s}")) for s in (0, 10, 20)]
    assert pool.snapshot_weights() == pytest.approx([1 / 3] * 3)       # no games yet: alike
    infos = ([{"opponents": ["learner", "self@0", "rulebot", "rulebot"], "winner": True}] * 9
             + [{"opponents": ["self@10", "learner", "self@10", "rulebot"], "winner": False}] * 9
             + [{"opponents": ["learner", "self@20", "rulebot", "rulebot"], "winner": k < 3} for k in range(9)]
             + [{"opponents": ["learner", "self@20", "rulebot", "rulebot"], "illegal_action": True}, {}])
    pool.record(infos)
    assert pool.results == {"self@0": [9, 9], "self@10": [0, 9], "self@20": [3, 9]}   # a game counts once
    w = pool.snapshot_weights()
    assert w[1] > w[2] > w[0] and sum(w) == pytest.approx(1.0)
    x = [(9 + 0.25) / 10, (0 + 0.25) / 10, (3 + 0.25) / 10]              # learner's win rate, one prior game
    raw = [(1 - v) ** 2 for v in x]
    assert w == pytest.approx([r / sum(raw) for r in raw])
    opps, weights = pool.entries()
    assert opps[0] == "rulebot" and weights[0] == 0.5 and sum(weights[1:]) == pytest.approx(0.5)
    pool.priority = "uniform"
    assert pool.snapshot_weights() == pytest.approx([1 / 3] * 3)


@pytest.mark.parametrize("over, field", [({"self_play": {"priority": "elo"}}, "self_play.priority"),
                                         ({"self_play": {"pfsp_power": -1}}, "self_play.pfsp_power"),
                                         ({"opponents": {"past": 1.0}}, "opponents.past")])
def test_league_config_errors_name_the_field(over, field):
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        smoke_cfg(**over)


def test_league_training_plays_snapshots_the_current_policy_and_rule_bots(tmp_path):
    """A tiny league run: pfsp over snapshots, the live policy and the rule bot all take seats, the
    league table (wins and games per snapshot) is kept in state.json and survives --resume."""
    from training.learner import train

    cfg = smoke_cfg(opponents={"rulebot": 0.3, "self": 0.4, "current": 0.3}, pretrain={"teacher": None},
                    self_play={"pool_size": 3, "snapshot_every_steps": 512, "priority": "pfsp"},
                    evaluation={"every_steps": None, "games": 4, "final_games": 4, "opponents": ["random"]},
                    budget={"steps": 2048})
    run = tmp_path / "league"
    train(cfg, run, progress=False)
    state = json.loads((run / "state.json").read_text())
    league = state["league"]
    assert [row["step"] for row in league] == [1024, 1536, 2048]
    assert sum(row["weight"] for row in league) == pytest.approx(1.0, abs=1e-3)
    assert sum(games for k, (_, games) in state["pool_results"].items() if k.startswith("self@")) > 0
    assert state["pool_results"]["current"][1] > 0          # the live policy sat in games too
    train(smoke_cfg(**{**{k: cfg[k] for k in ("opponents", "pretrain", "self_play", "evaluation")},
                       "budget": {"steps": 2560}}), run, resume=True, progress=False)
    again = json.loads((run / "state.json").read_text())
    for k, (wins, games) in state["pool_results"].items():
        assert again["pool_results"][k][1] >= games          # the counts carry over the resume


def test_init_from_widens_a_checkpoint_of_an_earlier_observation_version(tmp_path):
    """The shipped weights observe version 1 (the prefix of version 2): a run started from them plays
    as they do (the appended inputs start at weight 0)."""
    from agents.learned import V1_WEIGHTS, LearnedAgent
    from agents.seat import observe_seat
    from training.learner import Trainer
    from training.policy import InitError, init_from_checkpoint
    from v1919_env.game import Game

    shipped = LearnedAgent(path=str(V1_WEIGHTS))
    cfg = smoke_cfg(init_from=str(V1_WEIGHTS), pretrain={"teacher": None},
                    policy={"trunk": [256], "pi": [128], "vf": [128], "activation": "relu"})
    t = Trainer(cfg, tmp_path / "init", progress=False)
    assert "features_extractor.net.0.weight" in t.state["init_from"]["widened"]   # (and its pi/vf aliases)
    assert all(n.endswith("features_extractor.net.0.weight") for n in t.state["init_from"]["widened"])
    t.model.save(str(tmp_path / "widened.zip"))
    widened = LearnedAgent(path=str(tmp_path / "widened.zip"))
    assert widened.obs_size > shipped.obs_size
    for seed in range(3):
        g = Game.new(4, seed=seed)
        obs, mask = observe_seat(g, g.current_player)
        assert np.allclose(widened.action_probabilities(obs, mask), shipped.action_probabilities(obs, mask), atol=1e-6)
    with pytest.raises(ConfigError, match="init_from"):
        smoke_cfg(init_from=str(tmp_path / "missing.zip"))
    small = Trainer(smoke_cfg(pretrain={"teacher": None}), tmp_path / "small", progress=False)   # trunk [32]
    with pytest.raises(InitError, match=r"parameter features_extractor\.net\.0\.weight has shape"):
        init_from_checkpoint(small.model.policy, V1_WEIGHTS)


def test_solitaire_training_runs_on_the_vector_env_and_evaluates_the_vp(tmp_path):
    """num_players 1: PPO as the solitaire player on the compiled vector env; the evaluation plays the
    checkpoint in seeded solitaire games (VP, games won at the level); the learned agent plays it."""
    from agents.base import make_agent
    from agents.arena.play import run_game, seat_spec
    from training.learner import train

    raw = yaml.safe_load((ROOT / "configs" / "train" / "solitaire.yaml").read_text())
    raw.update(budget={"steps": 1024}, env={"num_envs": 16}, ppo={"n_steps": 32, "batch_size": 256, "n_epochs": 1},
               policy={"trunk": [32], "pi": [16], "vf": [16]},
               evaluation={"every_steps": None, "games": 3, "final_games": 3}, checkpoint_every_steps=512,
               pretrain={"teacher": "greedy", "decisions": 400, "workers": 1, "epochs": 1, "batch_size": 64})
    summary = train(config_from_dict(raw, "solitaire"), tmp_path / "solo", progress=False)
    assert summary["steps"] == 1024
    pre = summary["pretrain"]          # the warm start imitated greedy's solitaire decisions, whole games
    assert pre["teacher"] == "greedy" and pre["decisions"] >= 400 and pre["games"] >= 1
    (row,) = summary["final"]
    assert row["opponent"] == "solitaire" and row["games"] == 3 and row["mean_total"] >= 0
    agent = make_agent("learned", path=str(tmp_path / "solo" / "checkpoints" / "final.zip"))
    assert agent.solitaire and agent.needs_game
    rec = run_game([agent], [seat_spec("learned")], num_players=1, seed=4)
    assert rec["result"]["forfeit"] is None


def test_the_solitaire_teacher_records_whole_games_the_same_in_one_or_two_worker_processes():
    """training/solitaire_teacher.py: the observation with the solitaire features, the teacher's
    actions and the discounted VP still to come; the data is a function of the seed, whatever the
    number of worker processes (results are taken in submission order)."""
    from training.solitaire_teacher import solitaire_teacher_decisions
    from v1919_env.game import Game
    from v1919_env.core.observe import OBS_SIZE

    solo = {"faction": None, "target_vp": 20}
    one = solitaire_teacher_decisions("greedy", 600, "vp", 0.5, 3, solo, workers=1)
    two = solitaire_teacher_decisions("greedy", 600, "vp", 0.5, 3, solo, workers=2)
    assert len(one) >= 600 and one.games == two.games
    for k in ("obs", "masks", "actions", "returns"):
        assert np.array_equal(getattr(one, k), getattr(two, k))
    assert one.obs.shape[1] == OBS_SIZE + 11 and one.masks[np.arange(len(one)), one.actions].all()
    # the first game replays from its seed with the recorded actions, and its returns are the VP to come
    g, vps = Game.new(1, seed=3 * 1_000_003, **solo), []
    for a in one.actions:
        vps.append(g.player_vp)
        g.step(int(a))
        if g.is_over:
            break
    n = len(vps)
    gains = np.diff(np.asarray(vps + [g.player_vp], np.float64))
    want = [sum(gains[t + j] * 0.5 ** j for j in range(n - t)) for t in range(n)]
    assert np.allclose(one.returns[:n], want, atol=1e-4) and one.returns[0] >= 0
    assert g.player_vp < 20                                  # (greedy never reaches the level)
    lost = solitaire_teacher_decisions("greedy", 10, "win_loss", 0.99, 3, solo)      # a lost game: -gamma ** k
    assert np.array_equal(lost.actions[:n], one.actions[:n]) and lost.teacher_win_share == 0
    assert lost.returns[n - 1] == -1.0 and lost.returns[0] == pytest.approx(-(0.99 ** (n - 1)), rel=1e-5)


@pytest.mark.parametrize("over, field", [({"reward": "rank"}, "reward"),
                                         ({"pretrain": {"teacher": "ismcts:iterations=0"}}, "pretrain.teacher"),
                                         ({"pretrain": {"teacher": "random"}}, "pretrain.teacher"),
                                         ({"pretrain": {"workers": 0}}, "pretrain.workers"),
                                         ({"solitaire": {"faction": "italy"}}, "solitaire.faction"),
                                         ({"solitaire": {"target_vp": 0}}, "solitaire.target_vp"),
                                         ({"opponents": {"rulebot": 1.0}}, "opponents"),
                                         ({"pretrain": {"teacher": "rulebot"}}, "pretrain.teacher")])
def test_solitaire_config_errors_name_the_field(over, field):
    raw = yaml.safe_load((ROOT / "configs" / "train" / "solitaire.yaml").read_text())
    raw.update(over)
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        config_from_dict(raw, "solitaire")
