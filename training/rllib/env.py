"""The multi-agent env `v1919 train-rllib` trains on: one game per episode, every seat given a role.

At each reset one seat is the learner's; each other seat draws a role from the config's
`opponents` ratios:
- `learner`: the current policy again (its moves are trained on too: pure self-play);
- `self`: a frozen past version of the learner, one of the `pool_size` snapshot slots
  (`past0`, `past1`, ...), drawn uniformly;
- a baseline agent name (`random`, `rulebot`, `greedy`, ...): played inside the env, so its
  moves never reach RLlib.
The seats RLlib plays are the agents `"<nation>/<module>"` (e.g. `"france/past1"`);
`module_of` (the policy mapping function) reads the module from the id, so the mapping is fixed
and the draw is the env's own, seeded and reproducible. Observations are RLlib's action-masking
layout: `{"observations": float32 vector, "action_mask": float32 0/1}`. Rewards are terminal: when
the game ends every seat RLlib played gets its final reward (the weighted reward kinds of
v1919_env.rewards, as in the SB3 pipeline) and the episode ends for all.

Needs ray[rllib] (the class derives from its MultiAgentEnv); the rules are the compiled core.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core.observe import OBS_SIZE, observe_and_mask
from v1919_env.core import layout as L
from v1919_env.game import Game
from v1919_env.envs.pettingzoo_env import OBS_HIGH
from v1919_env.rewards import terminal_rewards
from v1919_env.envs.vector_env import reward_weights
from v1919_env.core.vocab import PLAYER_NATIONS

LEARNER = "learner"          # the module being trained
SELF = "self"                # the opponents' key of the frozen snapshots
ENV_NAME = "v1919_selfplay"  # the name the backend registers make_env under


def snapshot_modules(pool_size: int) -> list[str]:
    """Module ids of the frozen snapshot slots."""
    return [f"past{k}" for k in range(pool_size)]


def module_of(agent_id: str, episode=None, **kwargs) -> str:
    """The policy mapping function: the module named in the agent id `"<nation>/<module>"`."""
    return agent_id.split("/", 1)[1]


def observation_space() -> spaces.Dict:
    return spaces.Dict({"observations": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
                        "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32)})


class SelfPlayRLlibEnv(MultiAgentEnv):
    """See the module docstring. config (an RLlib env_config): num_players, variant, reward (a kind
    or {kind: weight}), opponents ({role: ratio}), pool_size, seed."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        from agents import make_agent

        c = dict(config or {})
        self.num_players = int(c.get("num_players", 4))
        self.variant = c.get("variant", "standard")
        self.weights = reward_weights(c.get("reward", "win_loss"))
        self.pool = snapshot_modules(int(c.get("pool_size", 1)))
        ratios = {k: float(v) for k, v in dict(c.get("opponents", {LEARNER: 1.0})).items() if v > 0}
        if not ratios:
            raise ValueError(f"opponents: no role with a positive ratio in {c.get('opponents')!r}")
        self.roles = list(ratios)
        self.role_p = np.array([ratios[r] for r in self.roles]) / sum(ratios.values())
        self.baselines = {r: make_agent(r) for r in self.roles if r not in (LEARNER, SELF)}
        self.nations = list(PLAYER_NATIONS[self.num_players])
        modules = [LEARNER] + self.pool
        self.possible_agents = [f"{n}/{m}" for n in self.nations for m in modules]
        self.agents = []
        space = observation_space()
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.rng = np.random.default_rng(c.get("seed"))
        self.game: Game | None = None
        self.seat_role: list[str] = []        # per seat: an agent id, or a baseline name
        self._buf = np.empty(L.MAX_LEGAL, np.int64)

    # ------------------------------------------------------------------ episode
    def draw_roles(self) -> list[str]:
        """Per seat: the RLlib agent id ("<nation>/<module>") or the baseline agent's name."""
        learner_seat = int(self.rng.integers(self.num_players))
        out = []
        for seat, nation in enumerate(self.nations):
            role = LEARNER if seat == learner_seat else self.roles[self.rng.choice(len(self.roles), p=self.role_p)]
            if role == SELF:
                role = self.pool[int(self.rng.integers(len(self.pool)))]
            out.append(role if role in self.baselines else f"{nation}/{role}")
        return out

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.seat_role = self.draw_roles()
        self.game = Game.new(self.num_players, seed=int(self.rng.integers(2 ** 62)), variant=self.variant)
        for k, name in enumerate(self.baselines):
            self.baselines[name].reset(seed=int(self.rng.integers(2 ** 62)) + k)
        self.agents = [r for r in self.seat_role if "/" in r]
        return self._advance(), {}

    def step(self, action_dict: dict):
        g = self.game
        if g is None or g.is_over:
            raise RuntimeError("call reset() before step() (the episode has ended)")
        agent = self.seat_role[g.current_player]
        if set(action_dict) != {agent}:
            raise ValueError(f"{agent} is to move; got actions for {sorted(action_dict)}")
        g.step(int(action_dict[agent]))          # an illegal id raises IllegalActionError, naming it
        obs = self._advance()
        if not g.is_over:      # RLlib wants a reward with every observation of an agent that acted before
            return obs, {a: 0.0 for a in obs}, {"__all__": False}, {"__all__": False}, {}
        rew = self.final_rewards()
        rewards = {a: rew[seat] for seat, a in enumerate(self.seat_role) if "/" in a}
        done = {a: True for a in rewards}
        trunc = g.truncated
        return ({}, rewards, {**({} if trunc else done), "__all__": not trunc},
                {**(done if trunc else {}), "__all__": trunc}, {})

    def final_rewards(self) -> list[float]:
        """Each seat's terminal reward: the config's reward kinds, weighted, from the final scores."""
        scores = self.game.scores()
        per_kind = {k: terminal_rewards(scores, k) for k in self.weights}
        return [sum(w * per_kind[k][seat] for k, w in self.weights.items()) for seat in range(self.num_players)]

    def _advance(self) -> dict:
        """Let the baseline seats play until an RLlib seat must decide; its observation (or {} at
        the end of the game)."""
        g = self.game
        while not g.is_over:
            seat = g.current_player
            obs = np.empty(OBS_SIZE, np.float32)
            mask = np.empty(NUM_ACTIONS, np.int8)
            observe_and_mask(g.state, g.T, seat, obs, mask, self._buf)
            role = self.seat_role[seat]
            if "/" in role:
                return {role: {"observations": obs, "action_mask": mask.astype(np.float32)}}
            g.step(self.baselines[role].act(obs, mask, game=g.clone()))
        return {}


def make_env(config: dict | None = None) -> SelfPlayRLlibEnv:
    """The env creator registered with Ray (one torch thread in the env runner that builds it)."""
    import sys

    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    return SelfPlayRLlibEnv(config)
