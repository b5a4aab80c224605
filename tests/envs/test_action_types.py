"""Issue 20: what an env does with an action. A value that is not an action id (v1919_env.actions.action_id)
is the caller's bug: IllegalActionError in every env and in both illegal_action modes, the env unchanged.
An action id that is not legal now is a move: 'raise' raises, 'penalize' ends the episode with the
reason in info["illegal_reason"]."""
from __future__ import annotations

import numpy as np
import pytest

import v1919_env
from v1919_env.actions import NUM_ACTIONS, IllegalActionError
from v1919_env.compat import SelfPlayEnv, parallel_env
from v1919_env.envs.solitaire_gym import SolitaireEnv

NOT_IDS = [2.0, 3.5, None, "3", True, np.bool_(True), [3], (3,), np.float32(2), np.array([1, 2]), -1, NUM_ACTIONS]
MODES = ["raise", "penalize"]


class AEC:
    """Adapters: make the env, step it, tell its legal ids, and snapshot everything a step may change."""

    @staticmethod
    def make(mode):
        env = v1919_env.env(3, illegal_action=mode, shaping=True)
        env.reset(seed=5)
        return env

    step = staticmethod(lambda env, a: env.step(a))
    mask = staticmethod(lambda env: env.observe(env.agent_selection)["action_mask"] != 0)

    @staticmethod
    def snapshot(env):
        return (env.game.state.tobytes(), env.agent_selection, dict(env.rewards), dict(env._cumulative_rewards),
                dict(env.terminations), repr(env.infos))

    @staticmethod
    def reason(env, offender):
        return env.infos[offender]["illegal_reason"]


class Gym:
    make = staticmethod(lambda mode: _reset(v1919_env.gym_env(num_players=3, illegal_action=mode)))
    step = staticmethod(lambda env, a: env.step(a))
    mask = staticmethod(lambda env: env.action_masks())
    snapshot = staticmethod(lambda env: (env.game.state.tobytes(), env._ended))
    reason = staticmethod(lambda out, offender: out[4]["illegal_reason"])


class Solitaire(Gym):
    make = staticmethod(lambda mode: _reset(SolitaireEnv(illegal_action=mode)))
    snapshot = staticmethod(lambda env: (env.game.state.tobytes(), env._ended, env._vp))


class SelfPlay(Gym):
    make = staticmethod(lambda mode: _reset(SelfPlayEnv(num_players=3, illegal_action=mode, shaping=True)))
    snapshot = staticmethod(lambda env: (AEC.snapshot(env.aec), dict(env._paid), list(env._settle), env._started))


class Parallel:
    @staticmethod
    def make(mode, obs_mode="vector"):
        env = parallel_env(3, illegal_action=mode, obs_mode=obs_mode)
        env.reset(seed=5)
        return env

    step = staticmethod(lambda env, a: env.step({x: a if x == env.aec.agent_selection else 0 for x in env.agents}))
    mask = staticmethod(lambda env: env.aec.game.action_mask() != 0)
    snapshot = staticmethod(lambda env: (AEC.snapshot(env.aec), list(env.agents)))
    reason = staticmethod(lambda out, offender: out[4][offender]["illegal_reason"])


def _reset(env):
    env.reset(seed=5)
    return env


ENVS = {"aec": AEC, "gym": Gym, "solitaire": Solitaire, "self_play": SelfPlay, "parallel": Parallel}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ENVS)
def test_a_value_that_is_not_an_action_id_raises_in_every_env_and_mode_and_changes_nothing(kind, mode):
    E = ENVS[kind]
    env = E.make(mode)
    legal = int(np.flatnonzero(E.mask(env))[0])
    E.step(env, legal)                         # mid-game, with shaped rewards owed where the env has them
    before = E.snapshot(env)
    for bad in NOT_IDS:
        with pytest.raises(IllegalActionError):
            E.step(env, bad)
        assert E.snapshot(env) == before, f"{kind} changed on {bad!r}"
    E.step(env, int(np.flatnonzero(E.mask(env))[0]))   # still playable


@pytest.mark.parametrize("kind", ENVS)
def test_a_penalized_illegal_id_says_why(kind):
    E = ENVS[kind]
    env = E.make("penalize")
    offender = env.agent_selection if kind == "aec" else env.aec.agent_selection if kind == "parallel" else None
    illegal = int(np.flatnonzero(~E.mask(env))[0])
    out = E.step(env, illegal)
    reason = E.reason(env if kind == "aec" else out, offender)
    assert reason.startswith(f"action {illegal} (") and "is not legal in phase '" in reason
    assert "legal actions:" in reason


@pytest.mark.parametrize("good", [np.int64(4), np.uint16(4), np.array(4), np.array([4]), np.array([[4]], np.int32)])
def test_the_parallel_env_takes_integer_ids_and_one_element_integer_arrays(good):
    """AgileRL's vector envs send each agent's action as a one-element array."""
    env = parallel_env(3)
    obs, info = env.reset(seed=5)
    mover = env.aec.agent_selection
    legal = np.flatnonzero(info[mover]["action_mask"])
    want = parallel_env(3)
    want.reset(seed=5)
    a = int(legal[0])
    want.step({x: a if x == mover else 0 for x in want.agents})
    env.step({x: (good - 4 + a) if x == mover else good for x in env.agents})
    assert np.array_equal(env.aec.game.state, want.aec.game.state)


def test_the_parallel_env_refuses_waiting_agents_bad_values_and_unknown_agents():
    env = parallel_env(3)
    env.reset(seed=5)
    mover = env.aec.agent_selection
    other = next(a for a in env.agents if a != mover)
    a = int(np.flatnonzero(Parallel.mask(env))[0])
    before = Parallel.snapshot(env)
    with pytest.raises(IllegalActionError, match=other):
        env.step({mover: a, other: 1.5})
    with pytest.raises(ValueError, match="unknown agents.*germany"):
        env.step({mover: a, "germany": 0})
    with pytest.raises(ValueError, match="dict"):
        env.step([a, 0, 0])
    assert Parallel.snapshot(env) == before


def test_self_play_settlement_steps_refuse_what_is_not_an_action_id():
    env = SelfPlayEnv(num_players=3)
    _, info = env.reset(seed=2)
    env.step(int(np.flatnonzero(~env.action_masks())[0]))       # penalized: the settlement begins
    before = SelfPlay.snapshot(env)
    for bad in (None, 0.0, "0", [0]):
        with pytest.raises(IllegalActionError):
            env.step(bad)
        assert SelfPlay.snapshot(env) == before
    env.step(5)                                                   # any action id is ignored there


def test_the_pettingzoo_none_convention_for_finished_agents_stays():
    env = v1919_env.env(3, illegal_action="penalize")
    env.reset(seed=5)
    with pytest.raises(IllegalActionError, match="None is only for finished agents"):
        env.step(None)
    env.step(int(np.flatnonzero(~AEC.mask(env))[0]))
    for _ in env.agent_iter():
        env.step(None)
    assert env.agents == []
