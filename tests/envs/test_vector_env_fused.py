"""The fused vector step (v1919_env.envs.vector_kernels.vector_step): compiled rewards equal to
v1919_env.rewards, long random runs equal to Game-by-Game stepping, replay from a seed, seating,
infos without the Python scoring, and learner actions out of range."""
from __future__ import annotations

import numpy as np
import pytest

from v1919_env.actions import IllegalActionError

from v1919_env.core import layout as L
from v1919_env.rewards import terminal_rewards
from v1919_env.envs.vector_env import VectorEnv
from helpers.vector_env import MANUAL_SEATING, HashedBatchPolicy, ReplayedGame, random_actions


def run_random(env: VectorEnv, steps: int, seed: int):
    """Step env with random legal learner actions; yields (obs, masks, rewards, dones, infos, actions)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        acts = random_actions(env.action_masks(), rng)
        obs, rewards, dones, infos = env.step(acts)
        yield obs, env.action_masks(), rewards, dones, infos, acts


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("reward", ["rank", "score_margin", {"win_loss": 1.0, "score_margin": 0.5, "rank": -0.25}])
def test_compiled_rewards_equal_the_python_rewards_of_the_final_scores(num_players, reward):
    env = VectorEnv(num_envs=24, num_players=num_players, seed=num_players, reward=reward,
                    opponents=["random", "rulebot"])
    env.reset()
    weights = {reward: 1.0} if isinstance(reward, str) else reward
    ended = 0
    for _, _, rewards, dones, infos, _ in run_random(env, 260, 0):
        for b in np.flatnonzero(dones):
            info = infos[b]
            want = sum(w * terminal_rewards(info["scores"], k)[info["seat"]] for k, w in weights.items())
            assert rewards[b] == np.float32(want)
            assert info["winner"] == info["scores"][info["seat"]]["winner"]
            assert info["episode"]["r"] == rewards[b]
            ended += 1
    assert ended >= 10


def test_many_random_steps_equal_game_by_game_stepping():
    env = VectorEnv(num_envs=32, seed=21, opponents=["random", "rulebot"], opponent_weights=[2, 1],
                    reward={"win_loss": 1.0, "rank": 0.5})
    obs = env.reset().copy()
    masks = env.action_masks().copy()
    refs = [ReplayedGame(int(env.game_seeds[b]), int(env.seats[b]), 4, env.pol[b].copy()) for b in range(32)]
    ended = 0
    for obs2, masks2, rewards, dones, infos, acts in run_random(env, 1200, 1):
        for b, ref in enumerate(refs):
            o, m = ref.observe()
            assert np.array_equal(obs[b], o) and np.array_equal(masks[b], m.astype(bool))
            ref.step(int(acts[b]))
            if dones[b]:
                sc = ref.game.scores()
                want = terminal_rewards(sc, "win_loss")[ref.seat] + 0.5 * terminal_rewards(sc, "rank")[ref.seat]
                assert ref.game.is_over and rewards[b] == np.float32(want)
                assert infos[b]["scores"] == sc          # the kernel's score table, as Game.scores() gives it
                np.testing.assert_array_equal(infos[b]["terminal_observation"], ref.observe()[0])
                refs[b] = ReplayedGame(int(env.game_seeds[b]), int(env.seats[b]), 4, env.pol[b].copy())
                ended += 1
            else:
                assert not ref.game.is_over and rewards[b] == 0.0
        obs, masks = obs2.copy(), masks2.copy()
    assert ended >= 100


def test_games_with_an_external_policy_equal_game_by_game_stepping():
    ext = HashedBatchPolicy()
    env = VectorEnv(num_envs=16, seed=2, opponents=["random", "rulebot", ext])
    obs = env.reset().copy()
    refs = [ReplayedGame(int(env.game_seeds[b]), int(env.seats[b]), 4, env.pol[b].copy()) for b in range(16)]
    ended = 0
    for obs2, _, rewards, dones, infos, acts in run_random(env, 500, 3):
        for b, ref in enumerate(refs):
            assert np.array_equal(obs[b], ref.observe()[0])
            ref.step(int(acts[b]))
            if dones[b]:
                assert ref.game.is_over and rewards[b] == np.float32(terminal_rewards(ref.game.scores(), "win_loss")[ref.seat])
                refs[b] = ReplayedGame(int(env.game_seeds[b]), int(env.seats[b]), 4, env.pol[b].copy())
                ended += 1
        obs = obs2.copy()
    assert ended >= 20 and max(ext.calls) > 1 and (env.pol <= -2).any()


def trajectory(seed, **kw):
    env = VectorEnv(num_envs=8, seed=None, **kw)
    env.seed(seed)
    out = [env.reset().copy()]
    for obs, masks, rewards, dones, infos, acts in run_random(env, 300, 4):
        out += [obs.copy(), masks.copy(), rewards.copy(), dones.copy(), acts]
        out += [(b, infos[b]["game_seed"], infos[b]["seat"], infos[b]["opponents"]) for b in np.flatnonzero(dones)]
    return out, env.S.copy()


@pytest.mark.parametrize("kw", [{"opponents": ["random", "rulebot"]},
                                {"opponents": ["rulebot"], "num_players": 3, "seating": ["uk", "usa", "france"]}])
def test_a_seed_replays_every_array_and_info_bit_for_bit(kw):
    (a, sa), (b, sb) = trajectory(5, **kw), trajectory(5, **kw)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y)
        else:
            assert x == y
    np.testing.assert_array_equal(sa, sb)
    c, sc = trajectory(6, **kw)
    assert not np.array_equal(sa, sc)


def test_seating_sits_every_episode_and_bad_seating_is_a_clear_error():
    env = VectorEnv(num_envs=4, seed=1, seating=MANUAL_SEATING)
    assert env.seating == MANUAL_SEATING
    env.reset()
    for _ in run_random(env, 200, 2):
        pass
    assert (env.S[:, L.SEATING:L.SEATING + 4] == [0, 2, 3, 1]).all()
    assert (VectorEnv(num_envs=2).seating == ["uk", "france", "usa", "italy"])
    with pytest.raises(ValueError, match="seating"):
        VectorEnv(num_envs=2, seating=["uk", "uk", "usa", "italy"])
    with pytest.raises(ValueError, match="seating"):
        VectorEnv(num_envs=2, seating="uk")


def test_without_score_info_the_same_games_and_infos_without_scores():
    def run(score_info):
        env = VectorEnv(num_envs=8, seed=3, score_info=score_info)
        env.reset()
        return [(o.copy(), r.copy(), d.copy(), [infos[b] for b in np.flatnonzero(d)])
                for o, _, r, d, infos, _ in run_random(env, 300, 6)]

    with_scores, without = run(True), run(False)
    ended = 0
    for (o1, r1, d1, i1), (o2, r2, d2, i2) in zip(with_scores, without):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(d1, d2)
        for x, y in zip(i1, i2):
            assert "scores" in x and "scores" not in y and set(x) - {"scores"} == set(y)
            np.testing.assert_array_equal(x.pop("terminal_observation"), y.pop("terminal_observation"))
            x.pop("scores")
            assert x == y
            ended += 1
    assert ended > 0


@pytest.mark.parametrize("bad", [-1, 694, 10 ** 9, -(2 ** 40), 2 ** 62])
def test_an_out_of_range_learner_action_raises_and_steps_no_game(bad):
    """The README's action rule: an id outside 0..693 is not an action id, in the vector env too."""
    env = VectorEnv(num_envs=3, seed=8)
    env.reset()
    before = env.S.copy()
    acts = np.argmax(env.action_masks(), axis=1)
    acts[1] = bad
    with pytest.raises(IllegalActionError, match=f"game 1: action id {bad} is out of range 0..693"):
        env.step(acts)
    assert np.array_equal(env.S, before)              # no game stepped, none restarted
    _, rewards, dones, _ = env.step(np.argmax(env.action_masks(), axis=1))   # the env goes on
    assert not dones.any()


def test_a_legal_id_that_is_illegal_now_still_ends_the_episode_with_the_penalty():
    env = VectorEnv(num_envs=2, seed=8)
    env.reset()
    masks = env.action_masks()
    acts = np.argmax(masks, axis=1)
    acts[0] = int(np.flatnonzero(~masks[0])[0])
    _, rewards, dones, infos = env.step(acts)
    assert dones.tolist() == [True, False] and rewards[0] == -1.0 and infos[0]["illegal_action"] is True


def test_the_vector_bench_prints_a_row_per_opponent_and_size():
    from v1919_env.bench import bench_vector_env, format_vector

    rows = bench_vector_env(4, 0.01, sizes=(2, 4), opponents=("random", "rulebot"))
    assert [(r["opponent"], r["num_envs"]) for r in rows] == [("random", 2), ("random", 4), ("rulebot", 2),
                                                              ("rulebot", 4)]
    assert all(r["steps_per_s"] > 0 and r["no_score_info_steps_per_s"] > 0 for r in rows)
    lines = format_vector(rows)
    assert len(lines) == 2 + len(rows) and lines[-1].split()[:3] == ["full", "rulebot", "4"]
    compact = bench_vector_env(4, 0.01, sizes=(2,), opponents=("random",), layouts=("full", "compact"))
    assert [r["obs_layout"] for r in compact] == ["full", "compact"]
    assert format_vector(compact)[-1].split()[:3] == ["compact", "random", "2"]


def test_the_vector_bench_splits_a_learner_step_into_its_kernels():
    from v1919_env.bench import bench_vector_parts, format_vector_parts

    r = bench_vector_parts(4, num_envs=8)
    for k in ("legal_and_mask_ns", "transition_ns", "observe_full_ns", "observe_compact_ns",
              "random_game_decision_ns", "vector_step_kernel_ns", "env_step_ns"):
        assert 0 < r[k] < 1e6, k
    assert 3.0 < r["decisions_per_learner_step"] < 6.0       # 4 players: about one decision a seat
    assert r["floor_ns"] == pytest.approx(r["decisions_per_learner_step"] * r["random_game_decision_ns"]
                                          + r["observe_compact_ns"] + r["legal_and_mask_ns"])
    lines = format_vector_parts(r)
    assert len(lines) == 4 and "8 games against random" in lines[0] and "learner steps/s" in lines[-1]


class IllegalOnce(HashedBatchPolicy):
    """Chooses illegal actions in its `when`-th call, else plays hashed_choice."""

    def __init__(self, when: int):
        super().__init__()
        self.when = when

    def act_batch(self, obs, masks):
        acts = super().act_batch(obs, masks)
        if len(self.calls) == self.when:
            acts[:] = np.argmin(masks, axis=1)
        return acts


def test_stepping_on_after_an_opponent_error_never_applies_the_learner_action_to_another_seat():
    from v1919_env.envs.gymnasium_env import OpponentError

    env = VectorEnv(num_envs=6, seed=6, opponents=[IllegalOnce(when=12)])
    env.reset()
    with pytest.raises(OpponentError, match="illegal action"):
        for _ in range(12):
            env.step(np.argmax(env.action_masks(), axis=1))
    waiting = np.flatnonzero(env.who != env.seats)
    assert len(waiting) > 0
    states = env.S[waiting].copy()
    stale = env._legal[:, 0].astype(np.int64)     # legal at each game's last learner decision
    _, rewards, dones, infos = env.step(stale)
    for k, b in enumerate(waiting):       # the episode ends as an illegal step; the old game was not played on
        assert dones[b] and infos[b]["illegal_action"] is True and rewards[b] == -1.0
        assert not np.array_equal(env.S[b], states[k])
    assert (env.who == env.seats).all() and env.action_masks().any(axis=1).all()
