"""Adapters for RL libraries that need one call on top of the environments (docs/compat.md).

- `SelfPlayEnv`: a Gymnasium env in which one learner plays every seat (the pattern of PettingZoo's
  SB3 action-mask tutorial), and every seat's final reward reaches the learner; registered as
  `gymnasium.make("Versailles1919SelfPlay-v4", **options)` (versions.SELFPLAY_GYM_ID).
- `torchrl_env(...)`: torchrl's `PettingZooWrapper` over the AEC env with numeric infos.
- `rllib_env(config)`: RLlib's `PettingZooEnv` with the observation keys RLlib's action-masking
  RLModule reads (`observations`, `action_mask`); usable directly as an env creator.
- `TurnParallelEnv` / `parallel_env(...)`: the turn-based game as a PettingZoo ParallelEnv, for
  libraries whose multi-agent algorithms step every agent at once (AgileRL's MADDPG: the Box
  observation, masks in infos; obs_mode='dict': PettingZoo's {"observation", "action_mask"}).

The libraries are imported only inside the functions that need them (the `compat` extra).
"""
from __future__ import annotations

from collections.abc import Mapping

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils import BaseWrapper

from v1919_env.actions import NUM_ACTIONS, IllegalActionError, action_id
from v1919_env.envs.versions import PARALLEL_NAME
from v1919_env.envs.pettingzoo_env import OBS_HIGH, OBS_MODES, decision_name, end_mask, raw_env

__all__ = ["SelfPlayEnv", "RLlibObservation", "TurnParallelEnv", "parallel_env", "torchrl_env", "rllib_env",
           "decision_name"]


class SelfPlayEnv(gym.Env):
    """One learner plays every seat of one game, each decision seen from the deciding seat.

    Each step's reward is the deciding seat's own: what it earned since its previous decision
    (shaping, when on) plus its own action's. When the game ends, the episode goes on with one
    *settlement* step per other seat (seat order, from the seat after the last mover): the
    observation is that seat's final view, only action 0 is legal (any action id is accepted and
    ignored) and the reward is that seat's final reward, so every seat's result reaches the
    learner. The last settlement step ends the episode (terminated, or truncated at the safety
    cap); its observation keeps the mask of action 0 alone (end_mask). info["seat"] is the seat
    whose view the observation is, info["settlement"] marks the settlement steps. config: the
    options of `v1919_env.env` (obs_mode 'dict' or 'vector'; illegal_action defaults to 'penalize':
    an action id that is not legal ends the game with the penalty, that step's info["illegal_reason"]
    saying why). A value that is not an action id (v1919_env.actions.action_id) raises IllegalActionError
    in either mode, settlement steps included, and changes nothing.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, num_players: int = 4, obs_mode: str = "dict", illegal_action: str = "penalize",
                 render_mode: str | None = None, **config):
        if render_mode == "human":
            raise ValueError("SelfPlayEnv renders 'ansi' or 'rgb_array' (call render() yourself), got 'human'")
        self.aec = raw_env(num_players, render_mode=render_mode, obs_mode=obs_mode,
                           illegal_action=illegal_action, **config)
        self.render_mode = render_mode
        self.obs_mode = obs_mode
        self.num_players = num_players
        self.observation_space = self.aec.observation_space(self.aec.possible_agents[0])
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._settle: list[str] = []     # seats still to settle, the head being the one shown
        self._paid: dict[str, float] = {}
        self._started = False

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new game; returns the first deciding seat's `(observation, info)`."""
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(0, 2 ** 62)))
        self._settle = []
        self._paid = {a: 0.0 for a in self.aec.possible_agents}
        self._started = True
        return self._view(self.aec.agent_selection)

    def step(self, action):
        """Play `action` for the deciding seat (or ignore it in a settlement step); returns
        `(observation, reward, terminated, truncated, info)` seen from the next deciding seat."""
        if not self._started:
            raise RuntimeError("call reset() before step() (the episode has ended)")
        aec = self.aec
        if self._settle:
            action_id(action)             # any action id is ignored here; anything else is refused
            agent = self._settle.pop(0)
            reward = self._unpaid(agent)
            if self._settle:
                obs, info = self._view(self._settle[0], settlement=True)
                return obs, reward, False, False, info
            self._started = False
            obs, info = self._view(agent, settlement=True)
            trunc = bool(aec.truncations[agent])
            return obs, reward, not trunc, trunc, info
        agent = aec.agent_selection
        owed = self._owed(agent)
        aec.step(action)                  # raises here (no action id, or 'raise'): nothing changed
        self._paid[agent] = 0.0           # the AEC env restarts the mover's cumulative reward at its step
        reward = owed + self._unpaid(agent)
        if not (aec.terminations[agent] or aec.truncations[agent]):
            obs, info = self._view(aec.agent_selection)
            return obs, reward, False, False, info
        # the game is over: the other seats settle, from the seat after the last mover
        agents = aec.possible_agents
        k = agents.index(agent)
        self._settle = [agents[(k + j) % len(agents)] for j in range(1, len(agents))]
        obs, info = self._view(self._settle[0], settlement=True)
        if "illegal_reason" in aec.infos[agent]:     # this step's reward is the penalty: say why
            info["illegal_reason"] = aec.infos[agent]["illegal_reason"]
        return obs, reward, False, False, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions of the observation last returned (MaskablePPO): action 0
        alone in a settlement step and after the episode's end (end_mask), none before reset()."""
        m = np.zeros(NUM_ACTIONS, bool)
        if self._started and not self._settle:
            m[:] = self._mask(self.aec.agent_selection) != 0
        elif self.aec.game is not None:
            m[0] = True
        return m

    def render(self):
        """The text board (`render_mode='ansi'`) or the table as an RGB array (`'rgb_array'`)."""
        return self.aec.render()

    # ------------------------------------------------------------------ helpers
    def _owed(self, agent: str) -> float:
        """Reward credited to agent in the AEC env and not yet returned by step()."""
        return float(self.aec._cumulative_rewards.get(agent, 0.0)) - self._paid[agent]

    def _unpaid(self, agent: str) -> float:
        """The reward owed to agent (_owed), now counted as returned."""
        out = self._owed(agent)
        self._paid[agent] = float(self.aec._cumulative_rewards.get(agent, 0.0))
        return out

    def _mask(self, agent: str) -> np.ndarray:
        if self.obs_mode == "dict":
            return self.aec.observe(agent)["action_mask"]
        return self.aec.infos[agent]["action_mask"]

    def _view(self, agent: str, settlement: bool = False):
        obs = self.aec.observe(agent)
        info = dict(self.aec.infos[agent])
        info["seat"] = self.aec.possible_agents.index(agent)
        info["settlement"] = settlement
        if settlement:
            only0 = end_mask()
            if self.obs_mode == "dict":
                obs["action_mask"] = only0
            else:
                info["action_mask"] = only0
        return obs, info


class RLlibObservation(BaseWrapper):
    """The AEC env with observations {"observations": float32 vector, "action_mask": float32 0/1},
    the keys and types RLlib's action-masking RLModule reads."""

    def __init__(self, env: raw_env):
        if env.obs_mode != "dict":
            raise ValueError("RLlibObservation needs the env's obs_mode='dict'")
        super().__init__(env)
        size = env.unwrapped.observation_space(env.possible_agents[0])["observation"].shape
        self._space = spaces.Dict({"observations": spaces.Box(0.0, OBS_HIGH, size, np.float32),
                                   "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32)})

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        o = self.env.observe(agent)
        return {"observations": o["observation"], "action_mask": o["action_mask"].astype(np.float32)}


def torchrl_env(num_players: int = 4, seed: int | None = None, **config):
    """torchrl's PettingZooWrapper over the AEC env (numeric infos, one group per nation, the
    action mask applied to each group's action spec). Needs torchrl."""
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = raw_env(num_players, numeric_info=True, **config)
    return PettingZooWrapper(env=env, use_mask=True, categorical_actions=True, seed=seed)


def rllib_env(config: dict | None = None):
    """RLlib's PettingZooEnv over the AEC env; `config` (an RLlib env_config) holds the options of
    `v1919_env.env`. illegal_action defaults to 'penalize' (RLlib's checks step unmasked random
    actions). Use as `register_env("v1919", v1919_env.compat.rllib_env)`. Needs ray[rllib]."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    config = dict(config or {})
    config.setdefault("illegal_action", "penalize")
    if config.get("obs_mode", "dict") != "dict":
        raise ValueError("rllib_env needs obs_mode='dict' (the mask travels in the observation)")
    return PettingZooEnv(RLlibObservation(raw_env(**config)))


class TurnParallelEnv(ParallelEnv):
    """The AEC env as a PettingZoo ParallelEnv: every step, every agent observes and may send an
    action, and only the action of the agent to move is played.

    obs_mode 'vector' (the default, AgileRL's layout): the Box observation; info["action_mask"] holds
    the mover's legal actions and every other agent's holds action 0 alone (end_mask, ignored), so a
    masked policy puts all its probability there and learns nothing from its waiting steps but
    values. (No `env_defined_actions`: with them AgileRL 2.58's MADDPG stores the replaced action
    ids where its critic expects action vectors.)
    obs_mode 'dict' (PettingZoo's layout, what `pettingzoo.test.parallel_api_test` samples from):
    {"observation", "action_mask"}, the mask int8 and all zeros for the agents not to move (and
    for everyone once the game is over); infos are the AEC env's.
    Actions: the mover's must be given, the others' may be left out. Every action given must be an
    action id (v1919_env.actions.action_id; a one-element integer numpy array counts as its
    element, as AgileRL's vector envs send); anything else, or an unknown agent, raises (an
    IllegalActionError, a ValueError) and changes nothing. An illegal id of the mover raises, or
    with illegal_action='penalize' ends the game (its info: illegal_action, illegal_reason).
    Rewards are the AEC env's, every agent's at every step (final rewards at the end, for all);
    when the game ends every agent terminates (or truncates) and `agents` empties.
    config: the options of `v1919_env.env`."""

    metadata = {"name": PARALLEL_NAME, "render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, num_players: int = 4, render_mode: str | None = None, obs_mode: str = "vector", **config):
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode must be one of {OBS_MODES}, got {obs_mode!r}")
        self.obs_mode = obs_mode
        self.aec = raw_env(num_players, render_mode=render_mode, obs_mode=obs_mode, **config)
        self.render_mode = render_mode
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        return self._observe()

    def step(self, actions: dict):
        aec = self.aec
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        ids = self._action_ids(actions)
        aec.step(ids[aec.agent_selection])
        rewards = {a: float(aec.rewards[a]) for a in self.agents}
        term = {a: bool(aec.terminations[a]) for a in self.agents}
        trunc = {a: bool(aec.truncations[a]) for a in self.agents}
        obs, infos = self._observe()
        if all(term[a] or trunc[a] for a in self.agents):
            self.agents = []
        return obs, rewards, term, trunc, infos

    def _action_ids(self, actions) -> dict[str, int]:
        """The actions as ids, checked before anything is played (ValueError / IllegalActionError)."""
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict {{agent: action}}, got {type(actions).__name__}")
        unknown = sorted(set(actions) - set(self.agents), key=str)
        if unknown:
            raise ValueError(f"actions for unknown agents {unknown}; the agents are {self.agents}")
        mover = self.aec.agent_selection
        if mover not in actions:
            raise ValueError(f"{mover} is to move; got actions for {sorted(actions)}")
        ids = {}
        for agent, action in actions.items():
            if isinstance(action, np.ndarray) and action.size == 1:
                action = action.reshape(())
            try:
                ids[agent] = action_id(action)
            except IllegalActionError as e:
                raise IllegalActionError(f"{agent}: {e}") from None
        return ids

    def _observe(self):
        aec = self.aec
        obs = {a: aec.observe(a) for a in self.agents}
        if self.obs_mode == "dict":
            return obs, {a: dict(aec.infos[a]) for a in self.agents}
        over = all(aec.terminations[a] or aec.truncations[a] for a in self.possible_agents)
        mover = None if over else aec.agent_selection
        infos = {}
        for a in self.agents:
            infos[a] = {"action_mask": aec.infos[a]["action_mask"] if a == mover else end_mask()}
            if "illegal_reason" in aec.infos[a]:
                infos[a].update(illegal_action=True, illegal_reason=aec.infos[a]["illegal_reason"])
        return obs, infos

    def render(self):
        return self.aec.render()

    def close(self) -> None:
        pass


def parallel_env(num_players: int = 4, render_mode: str | None = None, **config) -> TurnParallelEnv:
    """The game as a PettingZoo ParallelEnv (`TurnParallelEnv`; obs_mode 'vector' or 'dict' in config),
    e.g. for AgileRL's multi-agent algorithms:
    `AsyncPettingZooVecEnv([lambda: v1919_env.compat.parallel_env() for _ in range(n)])`."""
    return TurnParallelEnv(num_players, render_mode=render_mode, **config)
