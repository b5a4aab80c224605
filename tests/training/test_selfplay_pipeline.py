"""Expert iteration at scale, end to end on tiny games (training.selfplay, training.shards,
training.fit): teacher games go to shards, a resumed run skips them, a fit of one epoch writes a
checkpoint that `learned` and `guided` load; bad configs are refused naming the field."""
from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training import fit as fitmod  # noqa: E402
from training import selfplay, shards  # noqa: E402

TINY = {"name": "tiny", "seed": 3, "games": 2, "games_per_shard": 1, "holdout_every": 2, "variant": "short15",
        "explore_decisions": 1, "seats": {"teacher": 0.5, "rulebot": 0.25, "network": 0.25},
        "search": {"iterations": 4, "batch_size": 4, "rollout_mix": 1.0, "bot_prior": 0.5}}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sp") / "data"
    s = selfplay.generate(selfplay.load_config(raw=TINY), out, workers=1, progress=False)
    assert s["games"] == 2 and s["shards"] == 2 and s["skipped_shards"] == 0 and s["searched"] > 0
    return out


def test_shards_hold_whole_games_with_consistent_targets(data_dir):
    assert shards.shard_indices(data_dir) == [0, 1]
    d = shards.load(data_dir, "all")
    hold, train = shards.load(data_dir, "holdout"), shards.load(data_dir, "train")
    assert set(hold["game"]) == {0} and set(train["game"]) == {1}          # shard 0 held out, whole games
    assert len(hold["seat"]) + len(train["seat"]) == len(d["seat"])
    assert not (d["visits"] * ~d["mask"]).any() and (d["visits"].sum(1) == 3).all()   # 4 simulations: root + 3
    assert d["mask"][np.arange(len(d["action"])), d["action"]].all()
    with np.load(shards.shard_path(data_dir, 1)) as z:
        kinds = z["game_kinds"][0]
    assert set(d["seat"][d["game"] == 1]) == {i for i, k in enumerate(kinds) if k == "teacher"}
    for g in (0, 1):
        for p in set(d["seat"][d["game"] == g]):
            sel = (d["game"] == g) & (d["seat"] == p)
            assert len(set(d["outcome"][sel])) == 1 and (np.diff(d["left"][sel]) < 0).all() and d["left"][sel][-1] >= 0
            v = shards.value_targets({k: x[sel] for k, x in d.items()}, 0.99)
            assert np.all(np.abs(np.diff(np.abs(v))) >= 0) and np.all(np.sign(v) == np.sign(d["outcome"][sel]))
    assert np.allclose(shards.visit_targets(d).sum(1), 1.0)
    newest = shards.load(data_dir, "all", max_records=5, keys=("visits", "game"))   # any subset of the arrays
    assert set(newest) == {"visits", "game"} and (newest["visits"] == d["visits"][-5:]).all()


def test_a_resumed_run_skips_finished_shards_and_refuses_another_config(data_dir):
    mtimes = [shards.shard_path(data_dir, i).stat().st_mtime_ns for i in (0, 1)]
    s = selfplay.generate(selfplay.load_config(raw=TINY), data_dir, workers=1, progress=False)
    assert s["games"] == 0 and s["skipped_shards"] == 2
    assert mtimes == [shards.shard_path(data_dir, i).stat().st_mtime_ns for i in (0, 1)]
    shards.shard_path(data_dir, 1).unlink()                                 # a lost shard is played again, identically
    s = selfplay.generate(selfplay.load_config(raw=TINY), data_dir, workers=1, progress=False)
    assert s["games"] == 1 and s["skipped_shards"] == 1
    with pytest.raises(selfplay.ConfigError, match="another config"):
        selfplay.generate(selfplay.load_config(raw={**TINY, "seed": 4}), data_dir, workers=1, progress=False)


def test_one_fit_epoch_writes_a_checkpoint_the_agents_load(data_dir, tmp_path):
    from agents import make_agent
    from agents.seat import observe_seat
    from v1919_env.game import Game

    cfg = fitmod.load_config(raw={"data": [str(data_dir)], "epochs": 1, "batch_size": 32, "learning_rate": 1e-3})
    res = fitmod.fit(cfg, tmp_path / "fit", progress=False)
    assert res["records"]["train"] > 0 and res["records"]["holdout"] > 0
    assert res["after"]["cross_entropy"] != res["before"]["cross_entropy"]
    ck = str(tmp_path / "fit" / "checkpoints" / "net.zip")
    net = make_agent("learned", path=ck)
    g = Game.new(4, seed=5)
    obs, mask = observe_seat(g, g.current_player)
    assert mask[net.act(obs, mask, g)]
    guided = make_agent("guided", path=ck, iterations=2)
    assert guided.players == 4 and guided.reward == {"win_loss": 1.0, "score_margin": 0.2}
    wp = res["win_prediction"]
    assert 0 <= wp["brier"] <= 1 and 0 <= wp["brier_nation_baseline"] <= 1 and wp["records"] == res["records"]["holdout"]
    assert sum(r["records"] for r in wp["reliability"]) == wp["records"]
    ev = fitmod.evaluate(ck, 4, progress=False)
    assert ev["games"] == 4 and 0 <= ev["ci95"][0] <= ev["win_rate"] <= ev["ci95"][1] <= 1


def test_a_fit_with_a_new_residual_body_learns(data_dir, tmp_path):
    cfg = fitmod.load_config(raw={"data": [str(data_dir)], "epochs": 3, "batch_size": 32, "learning_rate": 3e-3,
                                  "arch": {"body": "residual", "width": 32, "blocks": 1, "pi": [], "vf": [16]}})
    train = fitmod.load_data(cfg.data, "train")
    res = fitmod.fit(cfg.model_copy(update={"data": cfg.data}), tmp_path / "res", progress=False)
    from sb3_contrib import MaskablePPO
    m = MaskablePPO.load(res["checkpoint"], device="cpu")
    pi, vt = fitmod.targets(train, "visits"), shards.value_targets(train, cfg.gamma)
    before = fitmod.figures(fitmod.make_model(cfg, 4)[0].policy, train, pi, vt, 2032)
    after = fitmod.figures(m.policy, train, pi, vt, 2032)
    assert after["cross_entropy"] < before["cross_entropy"]                 # it fits its training data


@pytest.mark.parametrize("raw, field", [
    ({"variant": "bogus"}, "variant"), ({"variant": 1.5}, "variant"), ({"name": []}, "name"),
    ({"name": 1.5}, "name"), ({"name": math.nan}, "name"), ({"games": 0}, "games"), ({"games": 1.5}, "games"),
    ({"games_per_shard": True}, "games_per_shard"), ({"seats": {"teacher": 0.5}}, "seats"),
    ({"seats": {"teacher": math.nan, "rulebot": 1.0}}, "seats.teacher"), ({"search": {"iterations": 0}}, "search"),
    ({"search": {"temperature": 1}}, "search"), ({"bogus": 1}, "bogus"), ({"path": "/no/such.zip"}, "path")])
def test_bad_selfplay_configs_are_refused_naming_the_field(raw, field):
    with pytest.raises(selfplay.ConfigError, match=rf"^{field}: "):
        selfplay.load_config(raw={**TINY, **raw})


def test_bad_fit_configs_are_refused_naming_the_field():
    for raw, field in (({"epochs": 0}, "epochs"), ({"learning_rate": math.inf}, "learning_rate"),
                       ({"target": "x"}, "target"), ({"arch": {"body": "cnn"}}, "arch.body"), ({"nope": 1}, "nope"),
                       ({"obs_layout": "compact"}, "obs_layout"),
                       ({"arch": {"trunk": [8]}, "obs_layout": "tiny"}, "obs_layout")):
        with pytest.raises(selfplay.ConfigError, match=rf"^{field}: "):
            fitmod.load_config(raw=raw)


def test_policy_targets_are_made_batch_by_batch_from_the_visits(data_dir):
    d = fitmod.load_data([str(data_dir)], "all", keys=fitmod.fit_keys("best"))
    assert "prior" not in d and "q" in d and "q" not in fitmod.fit_keys("visits")
    vis, best = fitmod.targets(d, "visits"), fitmod.targets(d, "best")
    assert len(vis) == len(best) == len(d["visits"])
    sl = np.arange(len(vis))
    pv, pb = vis[sl], best[sl]
    assert pv.dtype == np.float32 and np.allclose(pv.sum(1), 1.0) and not (pv * ~d["mask"]).any()
    assert np.allclose(pv * d["visits"].sum(1, keepdims=True), d["visits"])
    assert (pb.sum(1) == 1).all() and d["mask"][sl, pb.argmax(1)].all()
    assert (d["visits"][sl, pb.argmax(1)] == d["visits"].max(1)).all()     # the most visited move
    with pytest.raises(ValueError, match="target"):
        fitmod.targets(d, "played")


def test_the_action_target_is_the_move_the_teacher_played(data_dir):
    d = fitmod.load_data([str(data_dir)], "all", keys=fitmod.fit_keys("action"))
    t = fitmod.targets(d, "action")[np.arange(len(d["action"]))]
    assert (t.sum(1) == 1).all() and (t.argmax(1) == d["action"]).all() and d["mask"][np.arange(len(t)), t.argmax(1)].all()


def test_head_to_head_plays_whole_deals_only():
    from training.head_to_head import measure

    for games in (0, 6):
        with pytest.raises(ValueError, match="multiple of the player count 4"):
            measure("random", "random", games, 4)
    res = measure("random", "random", 3, 3, seed=11)
    assert res["games"] == 3 and res["players"] == 3 and 0 <= res["win_rate"] <= 1


def test_platt_scaling_turns_a_score_into_a_calibrated_win_probability():
    rng = np.random.default_rng(0)
    x = rng.normal(size=20000)
    p_true = 1 / (1 + np.exp(-(2.0 * x - 1.0)))
    y = (rng.random(x.size) < p_true).astype(float)
    a, b = fitmod.platt(x, y)
    assert abs(a - 2.0) < 0.15 and abs(b + 1.0) < 0.1
    p = 1 / (1 + np.exp(-(a * x + b)))
    assert np.mean((p - y) ** 2) < np.mean((y.mean() - y) ** 2) - 0.05      # beats the base rate


def test_the_network_prior_is_recovered_from_the_search_priors():
    rng = np.random.default_rng(1)
    mask = rng.random((50, 12)) < 0.6
    mask[:, 0] = mask[:, 1] = True
    net = rng.random((50, 12)) ** 3 * mask
    net /= net.sum(1, keepdims=True)
    for b, t in ((0.5, 1.0), (0.0, 2.0), (0.25, 2.0)):
        p = net ** (1 / t) * mask
        p /= p.sum(1, keepdims=True)
        bot = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        p = (1 - b) * p
        p[np.arange(50), bot] += b
        got = fitmod.network_prior(p, mask, np.full(50, b), np.full(50, t))
        ok = p.argmax(1) == bot if b > 0 else np.ones(50, bool)       # the bot's move is the highest prior
        assert np.allclose(got[ok], net[ok], atol=1e-9)


def test_the_improved_policy_keeps_the_prior_where_the_search_saw_nothing():
    mask = np.array([[True, True, True, False]])
    prior = np.array([[0.5, 0.3, 0.2, 0.0]])
    data = {"mask": mask, "prior": prior, "bot_prior": np.zeros(1), "prior_temperature": np.ones(1),
            "visits": np.array([[10, 0, 0, 0]], np.uint16), "q": np.array([[0.4, 0, 0, 0]])}
    same = fitmod.improved_policy(data, slice(0, 1))                    # one visited move: its q is the mean
    assert np.allclose(same, prior, atol=1e-6)
    data["visits"] = np.array([[10, 10, 0, 0]], np.uint16)
    data["q"] = np.array([[0.0, 0.5, 0, 0]])                              # the search prefers move 1
    imp = fitmod.improved_policy(data, slice(0, 1), scale=0.1)
    assert imp[0, 3] == 0 and np.isclose(imp.sum(), 1) and imp[0, 1] > prior[0, 1] and imp[0, 0] < prior[0, 0]
    assert imp.argmax() == 1 and fitmod.improved_policy(data, slice(0, 1), scale=1e-6).argmax() == 0
    own = fitmod.improved_policy(data, slice(0, 1), prior_fn=lambda sl: np.array([[0.1, 0.1, 0.8, 0.0]]))
    assert own.argmax() == 2                                             # the given prior, not the recorded one


def test_a_fit_to_improved_targets_starts_at_the_network_itself(data_dir, tmp_path):
    cfg = fitmod.load_config(raw={"data": [str(data_dir)], "epochs": 1, "batch_size": 64, "target": "improved",
                                  "improved_scale": 1e-6, "value_coef": 0.0})
    res = fitmod.fit(cfg, tmp_path / "imp", progress=False)
    assert res["before"]["kl"] < 1e-3 and res["before"]["top1"] > 0.99      # the target is its own policy
    with pytest.raises(selfplay.ConfigError, match="improved_prior"):
        fitmod.fit(cfg.model_copy(update={"arch": fitmod.Arch(body="residual", width=16, blocks=0)}), tmp_path / "x",
                   progress=False)


# ----------------------------------------------------------------------------- the Gumbel root (round 3)
GUMBEL = {**TINY, "name": "tiny_gumbel", "games": 1, "seats": {"teacher": 1.0},
          "search": {"iterations": 12, "batch_size": 4, "rollout_mix": 1.0, "root": "gumbel", "considered": 4}}


def test_a_gumbel_teacher_records_its_root_value_and_visits_the_considered_moves(tmp_path):
    out = tmp_path / "g"
    s = selfplay.generate(selfplay.load_config(raw=GUMBEL), out, workers=1, progress=False)
    assert s["games"] == 1 and not s["stopped_by_time"]
    d = shards.load(out, "all", keys=shards.RECORD_KEYS + ("root_value",))
    assert np.isfinite(d["root_value"]).all() and (np.abs(d["root_value"]) <= 2).all()
    visited = (d["visits"] > 0).sum(1)
    assert (visited == np.minimum(4, d["mask"].sum(1))).all()              # every considered move, no other
    assert (d["visits"].sum(1) == 11).all()
    assert d["mask"][np.arange(len(d["action"])), d["action"]].all()
    assert (d["visits"][np.arange(len(d["action"])), d["action"]] == d["visits"].max(1)).all()
    from training.visit_stats import visit_stats

    vs = visit_stats(out)
    assert vs["records"] == len(d["action"]) and vs["mean_visited"] == visited.mean()


def test_older_shards_read_their_root_value_as_missing(data_dir, tmp_path):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(data_dir, old)
    with np.load(shards.shard_path(old, 1)) as z:
        arrays = {k: z[k] for k in z.files if k != "root_value"}
    shards.write_shard(old, 1, arrays)
    d = shards.load(old, "train", keys=("action", "root_value"))
    assert np.isnan(d["root_value"]).all() and len(d["root_value"]) == len(d["action"])


def test_the_completed_q_uses_the_roots_own_value_where_recorded():
    mask = np.array([[True, True, True]] * 2)
    prior = np.array([[0.5, 0.3, 0.2]] * 2)
    data = {"mask": mask, "prior": prior, "bot_prior": np.zeros(2), "prior_temperature": np.ones(2),
            "visits": np.array([[4, 0, 0]] * 2, np.uint16), "q": np.array([[0.2, 0, 0]] * 2),
            "root_value": np.array([np.nan, -0.8], np.float32)}
    imp = fitmod.improved_policy(data, slice(0, 2), scale=0.1)
    assert np.allclose(imp[0], prior[0], atol=1e-6)      # no root value: unvisited moves at the visited mean
    v_mix = (-0.8 + 4 / 0.5 * 0.5 * 0.2) / 5             # Danihelka et al.: (v + N / sum p x sum p q) / (1 + N)
    z = np.log(prior[1]) + (50 + 4) * 0.1 * np.array([0.2, v_mix, v_mix])
    assert np.allclose(imp[1], np.exp(z) / np.exp(z).sum(), atol=1e-6)


def test_a_time_limit_starts_no_more_shards_and_the_run_resumes(tmp_path):
    out = tmp_path / "t"
    s = selfplay.generate(selfplay.load_config(raw=TINY), out, workers=1, progress=False, minutes=0.0)
    assert s["games"] == 0 and s["stopped_by_time"] and shards.shard_indices(out) == []
    s = selfplay.generate(selfplay.load_config(raw=TINY), out, workers=1, progress=False, minutes=10.0)
    assert s["games"] == 2 and not s["stopped_by_time"]
    with pytest.raises(SystemExit, match="--minutes"):
        selfplay.main(["x.yaml", "--minutes", "-1"])


def test_head_to_head_on_workers_plays_the_same_games():
    from training.head_to_head import measure

    one = measure("greedy", "random", 8, 4, seed=5)
    two = measure("greedy", "random", 8, 4, seed=5, workers=2)
    assert one["win_rate"] == two["win_rate"] and two["workers"] == 2
    g = measure("guided:iterations=6,batch_size=3,root=gumbel,considered=3", "random", 4, 4, seed=5)
    assert g["search"]["decisions"] > 0 and 1 < g["search"]["mean_visited"] <= 3
    with pytest.raises(ValueError, match="workers"):
        measure("random", "random", 4, 4, workers=0)


def test_game_ids_stay_unique_across_data_directories(data_dir):
    one = fitmod.load_data([str(data_dir)], "all", keys=("game", "action"))
    two = fitmod.load_data([str(data_dir), str(data_dir)], "all", keys=("game", "action"))
    assert len(two["game"]) == 2 * len(one["game"])
    assert len(np.unique(two["game"])) == 2 * len(np.unique(one["game"]))     # the same games, counted twice
    assert (two["game"] % 2 == np.concatenate([one["game"], one["game"]]) % 2).all()   # the 2-fold split kept


def test_a_games_records_do_not_depend_on_the_games_played_beside_it():
    """Games are searched in lockstep (agents/lockstep.py): game 1 played among three gives the same
    records, bit for bit, as game 1 alone; each record keeps its position and every seat's outcome."""
    cfg = selfplay.load_config(raw={**TINY, "games": 3})
    players = selfplay._Players(cfg)
    together, facts = selfplay.play_games(cfg, players, [0, 1, 2])
    alone, _ = selfplay.play_games(cfg, players, [1])
    mine = [r for r in together if r["game"] == 1]
    assert len(mine) == len(alone) > 0 and [f["game"] for f in facts] == [0, 1, 2]
    for a, b in zip(mine, alone):
        for k in ("obs", "mask", "actions", "visits", "prior", "q", "state", "outcomes"):
            assert np.array_equal(np.asarray(a[k]), np.asarray(b[k])), k
        assert (a["action"], a["seat"], a["root_value"], a["outcome"]) == (b["action"], b["seat"], b["root_value"],
                                                                           b["outcome"])
        assert a["outcomes"][0] == a["outcome"]                 # the decider's own outcome first


def test_a_value_head_per_seat_is_fitted_with_the_policy_kept(data_dir, tmp_path):
    """fit with seat_values and train: value: the checkpoint values every seat from the decider's row
    (the search reads one row a leaf), its policy is the starting network's."""
    from agents import make_agent
    from agents.learned import LearnedAgent
    from agents.seat import observe_seat
    from v1919_env.game import Game

    cfg = fitmod.load_config(raw={"data": [str(data_dir)], "epochs": 1, "batch_size": 32, "learning_rate": 1e-3,
                                  "seat_values": True, "train": "value"})
    res = fitmod.fit(cfg, tmp_path / "fit", progress=False)
    assert res["after"]["cross_entropy"] == res["before"]["cross_entropy"]           # the policy untouched
    assert res["after"]["value_mse"] != res["before"]["value_mse"]
    ck = str(tmp_path / "fit" / "checkpoints" / "net.zip")
    net = LearnedAgent(path=ck)
    assert net.seat_values and net.compiled_policy() is not None
    g = Game.new(4, seed=5, variant="short15")
    obs, mask = observe_seat(g, g.current_player)
    assert np.allclose(net.action_probabilities(obs, mask), LearnedAgent().action_probabilities(obs, mask))
    _, v = net.evaluate_batch(obs[None], mask[None])
    assert v.shape == (1, 4)
    guided = make_agent("guided", path=ck, iterations=8, batch_size=4)
    assert mask[guided.act(obs, mask, g.clone())] and guided.engine(4).rows == 1
    d = shards.load(data_dir, "all", keys=("outcome", "outcomes", "left"))
    assert np.array_equal(shards.value_targets(d, 0.9, seats=True)[:, 0], shards.value_targets(d, 0.9))


@pytest.mark.xdist_group("ray")
@pytest.mark.parametrize("ray_address", [None, "local"])
def test_worker_processes_and_ray_write_the_same_shards(data_dir, tmp_path, ray_address):
    """Two worker processes (or two Ray tasks) each searching their own games in lockstep write the
    shards one process writes, array for array (the CPU time aside)."""
    if ray_address is not None:
        pytest.importorskip("ray")
    out = tmp_path / "w2"
    s = selfplay.generate(selfplay.load_config(raw=TINY), out, workers=2, ray_address=ray_address, progress=False)
    assert s["games"] == 2 and s["shards"] == 2
    for i in (0, 1):
        with np.load(shards.shard_path(out, i)) as a, np.load(shards.shard_path(data_dir, i)) as b:
            assert set(a.files) == set(b.files)
            for k in a.files:
                if k != "cpu_seconds":
                    assert np.array_equal(a[k], b[k]), k


def test_a_local_ray_instance_is_the_runs_own_never_another_cluster_on_the_machine(tmp_path, monkeypatch):
    """`--ray` without an address starts a Ray instance for the run (address "local"): ray.init() with
    no address would join any cluster running on this machine (another command's, another test's)."""
    ray = pytest.importorskip("ray")
    calls = []

    def fake_init(*args, **kwargs):
        calls.append((args, kwargs))
        raise RuntimeError("stop here")

    monkeypatch.setattr(ray, "init", fake_init)
    with pytest.raises(RuntimeError, match="stop here"):
        selfplay.generate(selfplay.load_config(raw=TINY), tmp_path / "out", workers=2, ray_address="local",
                          progress=False)
    assert calls == [((), {"address": "local", "ignore_reinit_error": True, "num_cpus": 2,
                           "include_dashboard": False})]


def test_tasks_hold_about_lockstep_games_and_keep_every_worker_busy():
    cfg = selfplay.load_config(raw={**TINY, "games": 160, "games_per_shard": 8, "lockstep_games": 64})
    todo = list(range(20))
    assert selfplay.task_groups(cfg, todo, 1) == [todo[0:8], todo[8:16], todo[16:20]]    # 64 games a task
    assert selfplay.task_groups(cfg, todo, 4) == [todo[k:k + 5] for k in range(0, 20, 5)]  # 4 workers, 4 tasks
    assert selfplay.task_groups(cfg, [3], 8) == [[3]]
    with pytest.raises(selfplay.ConfigError, match="lockstep_games"):
        selfplay.load_config(raw={**TINY, "lockstep_games": 0})


def test_a_value_head_per_seat_on_older_shards_is_refused_naming_the_array(data_dir, tmp_path):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(data_dir, old)
    for i in (0, 1):
        with np.load(shards.shard_path(old, i)) as z:
            arrays = {k: z[k] for k in z.files if k != "outcomes"}
        shards.write_shard(old, i, arrays)
    cfg = fitmod.load_config(raw={"data": [str(old)], "epochs": 1, "seat_values": True, "train": "value"})
    with pytest.raises(shards.MissingArray, match="has no outcomes: it was written before that was recorded"):
        fitmod.fit(cfg, tmp_path / "fit", progress=False)
    with pytest.raises(selfplay.ConfigError, match="train"):
        fitmod.load_config(raw={"data": [str(old)], "train": "policy"})


def test_records_observed_again_give_the_recorded_observations(data_dir):
    """The positions a shard keeps give its recorded observations again (float16), so a network of
    another layout (the compact one) is fitted on the same decisions."""
    d = shards.load(data_dir, "all", keys=("obs", "state", "seat"))
    assert np.array_equal(shards.observe_again(d, "full"), d["obs"])
    compact = shards.observe_again(d, "compact")
    assert compact.shape == (len(d["obs"]), 1596) and compact.dtype == np.float16
    # loaded in a layout: observed shard by shard, the positions dropped unless asked for
    for split in ("all", "train"):
        c = shards.load(data_dir, split, keys=("obs", "seat", "game"), obs_layout="compact")
        assert set(c) == {"obs", "seat", "game"}
        ref = shards.load(data_dir, split, keys=("state", "seat", "game"))
        assert np.array_equal(c["obs"], shards.observe_again(ref, "compact"))
        assert np.array_equal(c["game"], ref["game"])
    kept = shards.load(data_dir, "all", keys=("obs", "state", "seat"), obs_layout="compact")
    assert np.array_equal(kept["state"], d["state"]) and np.array_equal(kept["obs"], compact)
    last = shards.load(data_dir, "all", keys=("obs", "seat"), obs_layout="compact", max_records=7)
    assert np.array_equal(last["obs"], compact[-7:])


def test_a_new_body_on_the_compact_observation_is_fitted_from_scratch(data_dir, tmp_path):
    """`arch` with `obs_layout: compact`: a new body over the compact observation, fitted to the
    teacher's recorded prior improved by the root's values; `learned` plays it on the compact layout."""
    from sb3_contrib import MaskablePPO

    from agents.learned import LearnedAgent

    cfg = fitmod.load_config(raw={"data": [str(data_dir)], "epochs": 3, "batch_size": 32, "learning_rate": 3e-3,
                                  "arch": {"trunk": [32], "pi": [16], "vf": [16]}, "obs_layout": "compact",
                                  "target": "improved", "improved_prior": "recorded", "seat_values": True})
    res = fitmod.fit(cfg, tmp_path / "fit", progress=False)
    assert res["after"]["cross_entropy"] < res["before"]["cross_entropy"]
    m = MaskablePPO.load(res["checkpoint"], device="cpu")
    assert m.observation_space.shape == (1596,)
    net = LearnedAgent(path=res["checkpoint"])
    assert net.obs_layout == "compact" and net.seat_values


def test_a_compact_network_is_fitted_loaded_searched_and_played(data_dir, tmp_path):
    """A MaskablePPO network on the compact layout: fit (value per seat, rows observed again from the
    shards' positions), then `learned` plays it in an arena game (it observes the game itself) and
    `guided` searches with it (one compact row a leaf)."""
    from sb3_contrib import MaskablePPO

    from agents import make_agent
    from agents.arena.play import run_game, seat_spec
    from agents.learned import LearnedAgent
    from agents.seat import observe_seat
    from training.envs import SB3VectorEnv
    from v1919_env.game import Game

    env = SB3VectorEnv(num_envs=2, num_players=4, obs_layout="compact", seed=0)
    init = tmp_path / "compact_init.zip"
    MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=16, policy_kwargs={"net_arch": [32]}, device="cpu",
                seed=0).save(str(init))
    cfg = fitmod.load_config(raw={"data": [str(data_dir)], "init": str(init), "epochs": 1, "batch_size": 32,
                                  "learning_rate": 1e-3, "seat_values": True})
    res = fitmod.fit(cfg, tmp_path / "fit", progress=False)
    assert res["after"]["cross_entropy"] < res["before"]["cross_entropy"]
    ck = str(tmp_path / "fit" / "checkpoints" / "net.zip")
    net = LearnedAgent(path=ck)
    assert net.obs_layout == "compact" and net.seat_values and net.needs_game
    g = Game.new(4, seed=5, variant="short15")
    full, mask = observe_seat(g, g.current_player)
    compact, _ = observe_seat(g, g.current_player, obs_layout="compact")
    assert net.act(full, mask, g.clone()) == net.act(compact, mask)
    assert net.evaluate_batch(compact[None], mask[None])[1].shape == (1, 4)
    record = run_game([make_agent("learned", path=ck), *(make_agent("random") for _ in range(3))],
                      [seat_spec("learned"), *(seat_spec("random") for _ in range(3))], num_players=4, seed=3,
                      variant="short15")
    assert record["result"]["winners"] and not record["result"].get("forfeit")
    guided = make_agent("guided", path=ck, iterations=8, batch_size=4)
    assert mask[guided.act(full, mask, g.clone())]
    eng = guided.engine(4)
    assert eng.rows == 1 and eng.width == 1596 and eng.compiled is not None
    from agents.batch_search import search            # the compiled pass (a plain MlpPolicy, Tanh) is torch's
    c = search([g], path=ck, iterations=12, batch_size=4, forward="compiled", seeds=[1])[0]
    t = search([g], path=ck, iterations=12, batch_size=4, forward="torch", seeds=[1])[0]
    assert np.array_equal(c.visits, t.visits) and c.root_value == pytest.approx(t.root_value, abs=2e-5)
    assert np.allclose(c.priors, t.priors, atol=2e-6)
