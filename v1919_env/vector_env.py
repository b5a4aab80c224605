"""The vector environment: N games stepped at once by the compiled kernels (v1919_env.vector_kernels),
one learning seat per game, the other seats played inside the environment.

    venv = VectorEnv(num_envs=256, opponents=["random"], seed=0)
    obs = venv.reset()                              # (N, OBS_SIZE) float32
    obs, rewards, dones, infos = venv.step(actions)  # SB3 VecEnv protocol, auto-reset
    masks = venv.action_masks()                     # (N, NUM_ACTIONS) bool, for MaskablePPO

`VectorEnv` speaks Stable-Baselines3's `VecEnv` protocol (reset/step_async/step_wait/step,
`action_masks()`, get_attr/set_attr/env_method, seed); `training.envs.sb3_vec_env` makes it a
real `VecEnv` subclass (SB3 imports torch, this module must not). `GymVectorEnv` is the same
engine as a `gymnasium.vector.VectorEnv` with dict observations (observation + action_mask, the
PettingZoo layout) and same-step auto-reset (`infos["final_obs"]`, `infos["final_info"]`).

Episodes (one per game): the learner's seat is `seat` or, with `seat=None`, drawn uniformly for
every episode; each other seat draws its opponent from `opponents` with `opponent_weights`.
An opponent is the name of a compiled agent (`COMPILED_POLICIES`: played inside the kernels) or
an external batch policy: an object with `act_batch(observations, masks) -> actions` (a neural
network: one call per step covers every game waiting on it, one batched forward pass).

Rewards, illegal actions and truncation follow the single Gymnasium env (v1919_env.gymnasium_env):
0 until the episode ends, then the learner's terminal reward (v1919_env.rewards; `reward` may be a
kind name or a mapping {kind: weight} for a weighted sum, e.g. win_loss plus a score-margin
shaping term); an illegal learner action ends the episode with `illegal_penalty` and
`info["illegal_action"]`, the game untouched; a game stopped by the engine's safety cap is
truncated (`TimeLimit.truncated` for SB3). An external opponent that returns an illegal action
raises `OpponentError` (a bug in the opponent, not in the learner's episode).

Seeding: `seed(s)` (or `reset(seed=s)` in the Gymnasium view) fixes every game seed, seat and
opponent draw; the same seed and the same actions replay the same games bit for bit.
Observations are written into two alternating preallocated buffers: the arrays a step returns
stay valid through the next step (what SB3's rollout collection needs); copy them to keep them
longer (the Gymnasium view copies unless `copy=False`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from .actions import NUM_ACTIONS
from .core import layout as L
from .core.observe import OBS_SIZE
from .game import Game, card_tables
from .variants import variant_index
from .gymnasium_env import OpponentError
from .pettingzoo_env import OBS_HIGH, observation_space
from .rewards import REWARD_KINDS, terminal_rewards
from .vector_kernels import (COMPILED_POLICIES, LEARNER, act_and_advance, external_code, observe_rows,
                             reset_games, step_observe)


def reward_weights(reward) -> dict[str, float]:
    """A reward spec (a kind name, or a mapping {kind: weight}) as {kind: weight}; ValueError names
    what is wrong."""
    if isinstance(reward, str):
        reward = {reward: 1.0}
    if not isinstance(reward, Mapping) or not reward:
        raise ValueError(f"reward must be one of {REWARD_KINDS} or a mapping {{kind: weight}}, got {reward!r}")
    out = {}
    for k, w in reward.items():
        if k not in REWARD_KINDS:
            raise ValueError(f"reward kind {k!r} is unknown; kinds: {', '.join(REWARD_KINDS)}")
        if isinstance(w, bool) or not isinstance(w, (int, float)):
            raise ValueError(f"reward weight of {k!r} must be a number, got {w!r}")
        out[k] = float(w)
    return out


class VectorEnv:
    """N games of Versailles 1919, one learning seat each (see the module docstring)."""

    metadata = {"render_modes": []}
    render_mode = None

    def __init__(self, num_envs: int = 256, num_players: int = 4, opponents: Sequence = ("random",),
                 opponent_weights: Sequence[float] | None = None, seat: int | None = None, reward="win_loss",
                 seed: int | None = None, variant: str = "standard", negotiation: bool = False,
                 card_set: str | None = None, illegal_penalty: float = -1.0):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if num_players not in (2, 3, 4):
            raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if seat is not None and not (isinstance(seat, (int, np.integer)) and 0 <= seat < num_players):
            raise ValueError(f"seat must be None (drawn per episode) or in 0..{num_players - 1}, got {seat!r}")
        self.reward_weights = reward_weights(reward)
        self.cards, self.T = card_tables(card_set)
        variant_idx = variant_index(self.cards, variant)
        self.num_envs = int(num_envs)
        self.num_players = int(num_players)
        self.seat = seat
        self.variant, self.negotiation, self.card_set = variant, bool(negotiation), card_set
        self._variant_index = variant_idx
        self.illegal_penalty = float(illegal_penalty)
        self.observation_space = spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        n = self.num_envs
        self.S = np.zeros((n, L.STATE_SIZE), L.STATE_DTYPE)
        self.pol = np.full((n, L.MAX_PLAYERS), LEARNER, np.int64)
        self.rng = np.ones(n, np.uint64)
        self.seats = np.zeros(n, np.int64)
        self.game_seeds = np.zeros(n, np.int64)     # seed of each game's current episode
        self.who = np.full(n, -1, np.int64)
        self._ok = np.zeros(n, np.int8)
        self._rows = np.arange(n, dtype=np.int64)
        self._obs = [np.zeros((n, OBS_SIZE), np.float32) for _ in range(2)]
        self._masks = [np.zeros((n, NUM_ACTIONS), np.int8) for _ in range(2)]
        self._buf = 0
        self._ep_return = np.zeros(n, np.float64)
        self._ep_len = np.zeros(n, np.int64)
        self._labels = [[""] * L.MAX_PLAYERS for _ in range(n)]
        self._actions = None
        self._np_rng = np.random.default_rng(seed)
        self._next_seed = seed
        self._started = False
        self._externals: dict[int, object] = {}      # seat code -> external batch policy
        self._ext_codes: dict[int, int] = {}         # id(policy) -> its seat code
        self.set_opponents(opponents, opponent_weights)

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents: Sequence, weights: Sequence[float] | None = None) -> None:
        """Opponent pool for the episodes that start from now on: compiled agent names and external
        batch policies (objects with act_batch), drawn per seat with `weights` (default: uniform)."""
        opponents = list(opponents)
        if not opponents:
            raise ValueError("opponents: give at least one opponent (a compiled agent name or a batch policy)")
        codes, labels = [], []
        for k, o in enumerate(opponents):
            if isinstance(o, str):
                if o not in COMPILED_POLICIES:
                    raise ValueError(f"opponents[{k}]: {o!r} is not a compiled agent; compiled agents: "
                                     f"{', '.join(COMPILED_POLICIES)} (other agents: pass a batch policy)")
                codes.append(COMPILED_POLICIES[o])
                labels.append(o)
            elif callable(getattr(o, "act_batch", None)):
                if id(o) not in self._ext_codes:        # a code per policy object, stable across pools
                    self._ext_codes[id(o)] = external_code(len(self._ext_codes))
                code = self._ext_codes[id(o)]
                codes.append(code)
                self._externals[code] = o
                labels.append(str(getattr(o, "label", f"external{-2 - code}")))
            else:
                raise ValueError(f"opponents[{k}]: expected a compiled agent name or an object with "
                                 f"act_batch(observations, masks), got {o!r}")
        if weights is None:
            w = np.full(len(opponents), 1.0 / len(opponents))
        else:
            w = np.asarray(list(weights), np.float64)
            if w.shape != (len(opponents),) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
                raise ValueError(f"opponent_weights: {len(opponents)} non-negative numbers with a positive sum, "
                                 f"got {list(weights)!r}")
            w = w / w.sum()
        self._opp_codes = np.asarray(codes, np.int64)
        self._opp_labels = labels
        self._opp_weights = w
        self._prune_externals()

    def _prune_externals(self) -> None:
        """Forget external policies that are neither in the pool nor seated in a running game."""
        keep = set(self._opp_codes.tolist()) | set(np.unique(self.pol).tolist())
        for code in [c for c in self._externals if c not in keep]:
            obj = self._externals.pop(code)
            self._ext_codes.pop(id(obj), None)

    # ------------------------------------------------------------------ episodes
    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the next reset(): game seeds, seats and opponent draws all derive from it."""
        self._next_seed = seed
        return [seed] * self.num_envs

    def _start(self, rows: np.ndarray) -> None:
        """New episodes in games `rows`: seed, seat and opponents drawn, compiled seats played."""
        if len(rows) == 0:
            return
        n, g = self.num_players, self._np_rng
        seeds = g.integers(0, 2 ** 62, size=len(rows), dtype=np.int64)
        seats = g.integers(0, n, size=len(rows)) if self.seat is None else np.full(len(rows), self.seat)
        draws = g.choice(len(self._opp_codes), size=(len(rows), n), p=self._opp_weights)
        for k, b in enumerate(rows):
            self.pol[b, :] = LEARNER
            self.pol[b, :n] = self._opp_codes[draws[k]]
            self.pol[b, seats[k]] = LEARNER
            self._labels[b] = [self._opp_labels[d] for d in draws[k]]
            self._labels[b][seats[k]] = "learner"
        self.seats[rows] = seats
        self.game_seeds[rows] = seeds
        self.rng[rows] = (seeds.astype(np.uint64) * np.uint64(2) + np.uint64(1))
        self._ep_return[rows] = 0.0
        self._ep_len[rows] = 0
        reset_games(self.S, self.T, rows, n, seeds, self._variant_index, int(self.negotiation), self.pol,
                    self.rng, self.who)
        if self._externals:
            self._prune_externals()
            self._play_externals(rows)

    def _play_externals(self, rows: np.ndarray) -> None:
        """Play the external seats of games `rows` (one batched call per policy and round) until each
        game waits on its learner or is over."""
        while True:
            w = self.who[rows]
            live = w >= 0
            codes = np.full(len(rows), LEARNER, np.int64)
            codes[live] = self.pol[rows[live], w[live]]
            waiting = codes <= -2
            if not waiting.any():
                return
            for code in np.unique(codes[waiting]):
                sel = rows[codes == code]
                obs = np.empty((len(sel), OBS_SIZE), np.float32)
                masks = np.empty((len(sel), NUM_ACTIONS), np.int8)
                observe_rows(self.S, self.T, sel, self.who[sel], obs, masks)
                policy = self._externals[int(code)]
                actions = np.asarray(policy.act_batch(obs, masks), np.int64).reshape(-1)
                if actions.shape != (len(sel),):
                    raise OpponentError(int(self.who[sel[0]]), "?", f"act_batch returned {actions.shape[0]} "
                                        f"actions for {len(sel)} games")
                ok = np.zeros(len(sel), np.int8)
                seats_before = self.who[sel].copy()
                act_and_advance(self.S, self.T, sel, actions, self.pol, self.rng, ok, self.who)
                if not ok.all():
                    k = int(np.flatnonzero(ok == 0)[0])
                    p = int(seats_before[k])
                    raise OpponentError(p, Game(self.S[sel[k]], self.cards, self.T).seat_name(p).lower(),
                                        f"{getattr(policy, 'label', policy)!s} chose illegal action {int(actions[k])}")

    def _observe_all(self) -> tuple[np.ndarray, np.ndarray]:
        self._buf ^= 1
        obs, masks = self._obs[self._buf], self._masks[self._buf]
        observe_rows(self.S, self.T, self._rows, self.seats, obs, masks)
        return obs, masks

    def _observe_into(self, rows: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> None:
        o = np.empty((len(rows), OBS_SIZE), np.float32)
        m = np.empty((len(rows), NUM_ACTIONS), np.int8)
        observe_rows(self.S, self.T, rows, self.seats[rows], o, m)
        obs[rows], masks[rows] = o, m

    def _episode_reward(self, b: int) -> tuple[float, dict]:
        scores = Game(self.S[b], self.cards, self.T).scores()
        seat = int(self.seats[b])
        r = sum(w * terminal_rewards(scores, kind)[seat] for kind, w in self.reward_weights.items())
        return float(r), {"scores": scores, "winner": bool(scores[seat]["winner"])}

    def reset_all(self) -> tuple[np.ndarray, np.ndarray]:
        """Start an episode in every game; (observations, masks)."""
        if self._next_seed is not None:
            self._np_rng = np.random.default_rng(self._next_seed)
            self._next_seed = None
        self.pol[:] = LEARNER
        self._start(self._rows)
        self._started = True
        return self._observe_all()

    def step_all(self, actions):
        """One learner action per game; returns (obs, masks, rewards, terminated, truncated, finals)
        with finals = {game: (final_obs, final_mask, info)} for the episodes that ended (those games
        already restarted: obs holds their new episode's first observation)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.dtype.kind not in "iu" or a.shape != (self.num_envs,):
            raise ValueError(f"actions must be {self.num_envs} integer action ids (one per game), got dtype "
                             f"{a.dtype} with shape {a.shape}")
        a = a.astype(np.int64, copy=False)
        self._buf ^= 1
        obs, masks = self._obs[self._buf], self._masks[self._buf]
        step_observe(self.S, self.T, self._rows, a, self.pol, self.rng, self.seats, self._ok, self.who, obs,
                     masks)
        self._ep_len += 1
        if self._externals:
            ext = np.flatnonzero((self._ok == 1) & (self.who >= 0) & (self.who != self.seats))
            if len(ext):
                self._play_externals(ext)
                self._observe_into(ext, obs, masks)
        rewards = np.zeros(self.num_envs, np.float32)
        terminated = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        ended = np.flatnonzero((self._ok == 0) | (self.who < 0))
        finals = {}
        for b in ended:
            b = int(b)
            info = {"seat": int(self.seats[b]), "game_seed": int(self.game_seeds[b]),
                    "opponents": list(self._labels[b][:self.num_players])}
            if self._ok[b] == 0:
                r = self.illegal_penalty
                info["illegal_action"] = True
                terminated[b] = True
            else:
                r, more = self._episode_reward(b)
                info.update(more)
                truncated[b] = self.S[b, L.GAME_OVER] == 2
                terminated[b] = not truncated[b]
            rewards[b] = r
            self._ep_return[b] += r
            info["episode"] = {"r": float(self._ep_return[b]), "l": int(self._ep_len[b])}
            fo = obs[b].copy()
            fm = np.zeros(NUM_ACTIONS, np.int8)
            finals[b] = (fo, fm, info)
        if len(ended):
            self._start(ended)
            self._observe_into(ended, obs, masks)
        return obs, masks, rewards, terminated, truncated, finals

    # ------------------------------------------------------------------ SB3 VecEnv protocol
    def reset(self):
        """SB3: start every game (seeded by the last seed() call); returns the observations."""
        return self.reset_all()[0]

    def step_async(self, actions) -> None:
        self._actions = actions

    def step_wait(self):
        obs, _, rewards, terminated, truncated, finals = self.step_all(self._actions)
        infos = [{} for _ in range(self.num_envs)]
        for b, (fo, _fm, info) in finals.items():
            info["terminal_observation"] = fo
            info["TimeLimit.truncated"] = bool(truncated[b])
            infos[b] = info
        return obs, rewards, terminated | truncated, infos

    def step(self, actions):
        self.step_async(actions)
        return self.step_wait()

    def action_masks(self) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: each game's legal learner actions now."""
        return self._masks[self._buf].view(bool)

    def close(self) -> None:
        self._externals.clear()
        self._ext_codes.clear()

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        if method_name == "action_masks":
            return list(self.action_masks()[self._indices(indices)])
        res = getattr(self, method_name)(*args, **kwargs)
        return [res] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def get_images(self):
        return [None] * self.num_envs

    def render(self, mode=None):
        return None

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return list(indices)


class GymVectorEnv(gymnasium.vector.VectorEnv):
    """The vector env as a `gymnasium.vector.VectorEnv`: dict observations (observation +
    action_mask per game), same-step auto-reset (infos['final_obs'], infos['final_info'])."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 8, copy: bool = True, **kwargs):
        self.engine = VectorEnv(num_envs=num_envs, **kwargs)
        self.copy = copy
        self.num_envs = self.engine.num_envs
        self.single_observation_space = observation_space()
        self.single_action_space = self.engine.action_space
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)

    def _dict(self, obs, masks):
        if self.copy:
            obs, masks = obs.copy(), masks.copy()
        return {"observation": obs, "action_mask": masks}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.engine.seed(seed)
        obs, masks = self.engine.reset_all()
        return self._dict(obs, masks), {}

    def step(self, actions):
        obs, masks, rewards, terminated, truncated, finals = self.engine.step_all(actions)
        infos: dict = {}
        for b, (fo, fm, info) in finals.items():
            infos = self._add_info(infos, {"final_obs": {"observation": fo, "action_mask": fm},
                                           "final_info": info}, b)
        return self._dict(obs, masks), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        return self.engine.action_masks()

    def close_extras(self, **kwargs):
        self.engine.close()
