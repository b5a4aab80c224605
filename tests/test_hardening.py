"""Bad input on purpose (issue 7): what an action id is, strict positions, opponents that fail,
PettingZoo after the end. Each test failed before its fix; the subprocess probes (crashes, hangs,
tracebacks) are in test_crash_safety.py."""
import numpy as np
import pytest

import v1919_env
from v1919_env.actions import NUM_ACTIONS, IllegalActionError, action_id, action_ids
from v1919_env.core.step import init_batch, mask_batch, step_batch, step_batch_unchecked
from v1919_env.game import Game, PositionError, card_tables
from v1919_env.envs.gymnasium_env import OpponentError


# ----------------------------------------------------------------------------- what an action id is
@pytest.mark.parametrize("good", [5, np.int64(5), np.int32(5), np.uint8(5), np.array(5)])
def test_integer_action_ids_are_accepted(good):
    assert action_id(good) == 5 and type(action_id(good)) is int


@pytest.mark.parametrize("bad", [3.7, 3.0, "2", None, True, np.bool_(True), np.float32(2), [3], np.array([3]),
                                 -1, NUM_ACTIONS, 10 ** 30])
def test_anything_else_is_an_illegal_action(bad):
    with pytest.raises(IllegalActionError):
        action_id(bad)


@pytest.mark.parametrize("bad", [3.7, "2", None, 2.0, True])
def test_game_step_refuses_non_integers_and_changes_nothing(bad):
    g = Game.new(4, seed=3)
    before = g.state.copy()
    with pytest.raises(IllegalActionError, match="integer id"):
        g.step(bad)
    assert np.array_equal(g.state, before)


def test_game_new_checks_its_arguments():
    for kw, field in ((dict(num_players=4.0), "num_players"), (dict(num_players=True), "num_players"),
                      (dict(seed=-1), "seed"), (dict(seed=1.5), "seed"), (dict(negotiation="no"), "negotiation"),
                      (dict(variant=None), "variant")):
        with pytest.raises(ValueError, match=field):
            Game.new(**kw)


def test_batch_kernels_take_integer_arrays_only():
    _, T = card_tables()
    S = np.zeros((2, Game.new(4).state.size), np.int32)
    init_batch(S, T, 4, np.array([1, 2], np.int64), 0, 0)
    M = np.zeros((2, NUM_ACTIONS), np.int8)
    mask_batch(S, T, M)
    first = np.array([np.flatnonzero(M[b])[0] for b in range(2)])
    before = S.copy()
    ok = np.zeros(2, np.int8)
    for bad in (first.astype(np.float64), first[:1], first.reshape(1, 2), ["a", "b"]):
        with pytest.raises(IllegalActionError):
            step_batch(S, T, bad, ok)
        with pytest.raises(IllegalActionError):
            step_batch_unchecked(S, T, bad)
    assert np.array_equal(S, before)
    assert step_batch(S, T, first.astype(np.int32), ok) == 2 and ok.tolist() == [1, 1]
    assert action_ids([1, 2], 2).dtype == np.int64


# ----------------------------------------------------------------------------- positions
@pytest.mark.parametrize("field, value", [
    ("num_players", 4.0), ("num_players", True), ("negotiation", "no"), ("negotiation", 0),
    ("version", 1.0), ("version", True), ("version", "1"), ("format", 7), ("seed", 2.0), ("variant", 1),
    ("rng", [0, 0]), ("rng", [0.5, 1]), ("turn_state", {"political_done": "yes"}),
    ("strategies", {"draft_done": 1}), ("turn", 1.0), ("forced_dice", [3.0]),
])
def test_positions_take_exact_types(field, value):
    with pytest.raises(PositionError, match=field.split(".")[0]):
        Game.from_dict({field: value})


def test_a_zero_generator_is_rejected_but_any_other_state_loads():
    d = Game.new(4, seed=5).to_dict()
    d["rng"] = [0, 1]
    Game.from_dict(d)
    d["rng"] = [0, 0]
    with pytest.raises(PositionError, match="rng"):
        Game.from_dict(d)


# ----------------------------------------------------------------------------- Gymnasium opponents
def _first_legal(obs, info=None):
    return int(np.flatnonzero(obs["action_mask"] if isinstance(obs, dict) else obs)[0])


class _Fails:
    """An opponent that plays its first legal action `ok` times, then fails in the given way."""

    def __init__(self, how, ok=0):
        self.how, self.ok = how, ok

    def act(self, observation, action_mask):
        if self.ok > 0:
            self.ok -= 1
            return int(np.flatnonzero(action_mask)[0])
        if self.how == "raise":
            raise RuntimeError("policy crashed")
        if self.how == "float":
            return float(np.flatnonzero(action_mask)[0]) + 0.5
        return int(np.flatnonzero(action_mask == 0)[0])       # an illegal id


def _env_at_learner(how, **kw):
    """A Gym env (learner seat 0) whose other seats fail on their first move after the learner's."""
    opp = [None] + [_Fails(how) for _ in range(3)]
    env = v1919_env.gym_env(num_players=4, seat=0, opponents=opp, **kw)
    for seed in range(50):
        try:
            obs, info = env.reset(seed=seed)
        except OpponentError:
            continue                      # an opponent had to move first: try another seed
        return env, obs
    raise AssertionError("no seed starts with the learner")


@pytest.mark.parametrize("how", ["raise", "float", "illegal"])
def test_a_failing_opponent_truncates_the_episode_with_its_error(how):
    env, obs = _env_at_learner(how)
    while True:
        obs, r, term, trunc, info = env.step(_first_legal(obs))
        if "opponent_error" in info:
            break
        assert not (term or trunc)
    assert trunc and not term and r == 0.0
    err = info["opponent_error"]
    assert err["seat"] in (1, 2, 3) and err["nation"] in ("france", "usa", "italy") and err["error"]
    assert np.flatnonzero(obs["action_mask"]).tolist() == [0] == np.flatnonzero(env.action_masks()).tolist()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_an_opponent_returning_3_5_does_not_play_3():
    env, obs = _env_at_learner("float")
    while True:
        obs, r, term, trunc, info = env.step(_first_legal(obs))
        if trunc:
            assert "IllegalActionError" in info["opponent_error"]["error"]
            return


def test_with_raise_a_failing_opponent_leaves_the_game_at_the_learners_decision():
    env, obs = _env_at_learner("illegal", illegal_action="raise")
    while True:
        before = env.game.state.copy()
        a = _first_legal(obs)
        try:
            obs, r, term, trunc, info = env.step(a)
        except OpponentError as e:
            assert e.seat in (1, 2, 3) and "illegal action" in str(e)
            break
    assert np.array_equal(env.game.state, before)          # as if the learner had not moved
    assert env.game.current_player == 0 and env.action_masks()[a]


def test_opponents_of_the_agents_package_get_the_game_and_are_reseeded():
    from agents import make_agent

    class Reader:
        needs_game = True
        seen = []

        def reset(self, seed=None):
            self.seen.append(("reset", seed))

        def act(self, observation, action_mask, game=None):
            self.seen.append(game.decision)
            return int(game.legal_actions()[0])

    rd = Reader()
    env = v1919_env.gym_env(num_players=3, opponents=[None, rd, make_agent("random")])
    obs, _ = env.reset(seed=2)
    for _ in range(20):
        obs, r, term, trunc, _ = env.step(_first_legal(obs))
        if term or trunc:
            break
    assert rd.seen[0][0] == "reset" and any(isinstance(x, str) for x in rd.seen)


# ----------------------------------------------------------------------------- PettingZoo after the end
def test_pettingzoo_step_after_every_agent_is_done():
    env = v1919_env.env(num_players=3)
    env.reset(seed=4)
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        env.step(None if term or trunc else _first_legal(obs))
    assert env.agents == []
    env.step(None)                        # the finished agents' convention: changes nothing
    with pytest.raises(IllegalActionError, match="episode is over"):
        env.step(3)
    env.reset(seed=4)
    assert env.agents


@pytest.mark.parametrize("bad", [3.5, "2", True])
def test_pettingzoo_refuses_non_integer_actions(bad):
    env = v1919_env.env(num_players=4)
    env.reset(seed=0)
    before = env.game.state.copy()
    with pytest.raises(IllegalActionError, match="integer id"):
        env.step(bad)
    assert np.array_equal(env.game.state, before)
