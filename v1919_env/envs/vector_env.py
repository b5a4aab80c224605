"""The vector environment: N games stepped at once by the compiled kernels (v1919_env.envs.vector_kernels),
one learning seat per game, the other seats played inside the environment.

    venv = VectorEnv(num_envs=256, opponents=["random"], seed=0)
    obs = venv.reset()                              # (N, 2032) float32 (obs_layout='compact': 1,596)
    obs, rewards, dones, infos = venv.step(actions)  # SB3 VecEnv protocol, auto-reset
    masks = venv.action_masks()                     # (N, NUM_ACTIONS) bool, for MaskablePPO

`VectorEnv` speaks Stable-Baselines3's `VecEnv` protocol (reset/step_async/step_wait/step,
`action_masks()`, get_attr/set_attr/env_method, seed); `training.envs.SB3VectorEnv` makes it a
real `VecEnv` subclass (SB3 imports torch, this module must not). `GymVectorEnv` is the same
engine as a `gymnasium.vector.VectorEnv` with dict observations (observation + action_mask, the
PettingZoo layout) and same-step auto-reset (`infos["final_obs"]`, `infos["final_info"]`); a final
observation's action_mask marks action 0 alone (`end_mask`: nothing is played from it, and a policy
that masks its logits with -inf, e.g. to bootstrap a truncated episode's value, stays defined).

One `step` is one compiled call over the N games (v1919_env.envs.vector_kernels.vector_step): the
learner's actions, the compiled opponents, scoring, rewards, auto-reset, observations and masks;
Python only builds the infos of the episodes that ended, and, when external opponents sit in some
games, runs their batched forward passes between compiled calls.

Episodes (one per game): the learner's seat is `seat` or, with `seat=None`, drawn uniformly for
every episode; each other seat draws its opponent from `opponents` with `opponent_weights`;
`seating` sits the nations around the table as in `Game.new(seating=...)` (v1919_env.seating).
An opponent is the name of a compiled agent (`COMPILED_POLICIES`: played inside the kernels) or
an external batch policy: an object with `act_batch(observations, masks) -> actions` (a neural
network: one call per step covers every game waiting on it, one batched forward pass).
`obs_layout='compact'` gives the compact observation (1,596 floats, docs/observation.md) to the
learner and to external opponents alike.

Rewards, illegal actions and truncation follow the single Gymnasium env (v1919_env.envs.gymnasium_env):
0 until the episode ends, then the learner's terminal reward (v1919_env.rewards; `reward` may be a
kind name or a mapping {kind: weight} for a weighted sum, e.g. win_loss plus a score-margin
shaping term); an illegal learner action ends the episode with `illegal_penalty` and
`info["illegal_action"]`, the game untouched (an id outside 0..693, or actions that are not one integer
id per game, raise IllegalActionError before any game is stepped, as in `Game.step` and the single
env); a game stopped by the engine's safety cap is
truncated (`TimeLimit.truncated` for SB3). The info of an ended episode has its seat, game seed,
opponents, `winner`, `episode` (return and length) and, unless `score_info=False` (faster: no
Python scoring per ended game), `scores` (Game.scores() of the final position). An external
opponent that returns an illegal action raises `OpponentError` (a bug in the opponent, not in
the learner's episode).

Episode statistics: `infos["final_info"]["episode"]` is right for every episode; Gymnasium 1.2.2's
`wrappers.vector.RecordEpisodeStatistics` reports each episode after a game's first one step short on
a same-step auto-reset env like this one (fixed upstream, Gymnasium PR #1624; docs/training.md).

Seeding: `seed(s)` (or `reset(seed=s)` in the Gymnasium view) fixes every game seed, seat and
opponent draw (all drawn inside the kernels from one generator seeded by s); the same seed and the
same actions replay the same games bit for bit.
Observations are written into two alternating preallocated buffers: the arrays a step returns
stay valid through the next step (what SB3's rollout collection needs); copy them to keep them
longer (the Gymnasium view copies unless `copy=False`).
"""
from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from v1919_env.actions import NUM_ACTIONS, IllegalActionError
from v1919_env.core import layout as L
from v1919_env.core.observations import layout_of
from v1919_env.core.scoring import SCORE_TABLE_COLS
from v1919_env.game import Game, card_tables, score_rows, solo_config
from v1919_env.variants import variant_index
from v1919_env.envs.gymnasium_env import OpponentError
from v1919_env.envs.pettingzoo_env import OBS_HIGH, end_mask, observation_space
from v1919_env.envs.solitaire_features import SOLO_FEATURES, SOLO_HIGH, SOLO_REWARDS
from v1919_env.rewards import REWARD_KINDS, reward_weights  # noqa: F401  (reward_weights: re-exported)
from v1919_env.envs import vector_kernels as K
from v1919_env.seating import parse_seating, seating_names
from v1919_env.envs.opponents import compiled_code, pool_cumulative
from v1919_env.envs.vector_kernels import (LEARNER, external_code, first_out_of_range, observe_rows, vector_continue,
                                           vector_reset, vector_step)


class VectorEnv:
    """N games of Versailles 1919, one learning seat each (see the module docstring)."""

    metadata = {"render_modes": []}
    render_mode = None

    def __init__(self, num_envs: int = 256, num_players: int = 4, opponents: Sequence = ("random",),
                 opponent_weights: Sequence[float] | None = None, seat: int | None = None, reward="win_loss",
                 seed: int | None = None, variant: str = "standard", negotiation: bool = False,
                 card_set: str | None = None, illegal_penalty: float = -1.0, seating=None,
                 score_info: bool = True, faction: str | None = None, target_vp: int = L.SOLO_DEFAULT_TARGET,
                 obs_layout: str = "full"):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if num_players not in (1, 2, 3, 4):
            raise ValueError(f"num_players must be 1 (the solitaire game), 2, 3 or 4, got {num_players!r}")
        if seat is not None and not (isinstance(seat, (int, np.integer)) and 0 <= seat < num_players):
            raise ValueError(f"seat must be None (drawn per episode) or in 0..{num_players - 1}, got {seat!r}")
        self.solitaire = num_players == 1
        if self.solitaire:
            if reward not in SOLO_REWARDS:
                raise ValueError(f"reward: the solitaire game pays one of {SOLO_REWARDS}, got {reward!r}")
            self.reward_weights = {reward: 1.0}
            fi, target = solo_config(True, faction, target_vp, negotiation)
        else:
            if faction is not None or target_vp != L.SOLO_DEFAULT_TARGET:
                raise ValueError("faction and target_vp are options of the solitaire game (num_players=1)")
            self.reward_weights = reward_weights(reward)
        self.cards, self.T = card_tables(card_set)
        self.num_envs = int(num_envs)
        self.num_players = int(num_players)
        self.seat = seat
        self.variant, self.negotiation, self.card_set = variant, bool(negotiation), card_set
        factions = L.SOLO_FACTIONS if self.solitaire else self.num_players
        self.seating = seating_names(parse_seating(seating, factions))
        self.illegal_penalty = float(illegal_penalty)
        self.score_info = bool(score_info)
        # a solitaire row: the core observation, then the solitaire features (SOLO_FEATURES)
        self._layout, self._core_size = layout_of(obs_layout)
        self.obs_layout = obs_layout
        self.obs_size = self._core_size + (len(SOLO_FEATURES) if self.solitaire else 0)
        self.observation_space = spaces.Box(0.0, max(OBS_HIGH, SOLO_HIGH) if self.solitaire else OBS_HIGH,
                                            (self.obs_size,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._cfg = np.full(K.CFG_SIZE, -1, np.int64)
        self._cfg[[K.CFG_PLAYERS, K.CFG_VARIANT, K.CFG_NEGOTIATION]] = (self.num_players,
                                                                          variant_index(self.cards, variant),
                                                                          int(self.negotiation))
        self._cfg[K.CFG_SEAT] = -1 if seat is None else int(seat)
        self._cfg[K.CFG_LAYOUT] = self._layout
        if seating is not None:
            order = parse_seating(seating, factions)
            self._cfg[K.CFG_SEATING:K.CFG_SEATING + len(order)] = order
        if self.solitaire:
            self._cfg[K.CFG_SEAT] = 0
            self._cfg[[K.CFG_SOLO_FACTION, K.CFG_SOLO_TARGET]] = fi, target
            self._cfg[K.CFG_SOLO_REWARD] = K.SOLO_REWARD_VP if reward == "vp" else K.SOLO_REWARD_WIN_LOSS
            self.target_vp = target
            self._kinds = np.zeros(0, np.int64)
            self._weights = np.zeros(0, np.float64)
        else:
            self._kinds = np.asarray([REWARD_KINDS.index(k) for k in self.reward_weights], np.int64)
            self._weights = np.asarray(list(self.reward_weights.values()), np.float64)
        n = self.num_envs
        self.S = np.zeros((n, L.STATE_SIZE), L.STATE_DTYPE)
        self.pol = np.full((n, L.MAX_PLAYERS), LEARNER, np.int64)
        self.rng = np.ones(n, np.uint64)
        self.G = np.zeros((n, K.G_COLS), np.int64)
        self.seats = self.G[:, K.G_SEAT]              # views of the per-game table
        self.game_seeds = self.G[:, K.G_SEED]         # seed of each game's current episode
        self.who = self.G[:, K.G_WHO]                 # the seat that decides next (-1: over)
        self._ended = np.zeros(n, np.int8)               # how the last call ended each episode (K.RUNNING ...)
        self._rewards = np.zeros(n, np.float32)
        self._fin_obs = np.zeros((n, self.obs_size), np.float32)
        self._fin_pol = np.zeros((n, L.MAX_PLAYERS), np.int64)
        self._fin_scores = np.zeros((n, L.MAX_PLAYERS, SCORE_TABLE_COLS), np.int64)
        self._legal = np.zeros((n, NUM_ACTIONS), np.int16)   # the learner's legal actions (kernels only)
        self._obs = [np.zeros((n, self.obs_size), np.float32) for _ in range(2)]
        self._masks = [np.zeros((n, NUM_ACTIONS), np.int8) for _ in range(2)]
        self._buf = 0
        self._actions = None
        self._ep_rng = np.ones(1, np.uint64)
        self._next_seed = seed
        self._started = False
        self._externals: dict[int, object] = {}      # seat code -> external batch policy
        self._ext_codes: dict[int, int] = {}         # id(policy) -> its seat code
        self._ext_count = 0                          # external codes handed out (never reused)
        self._code_labels = {LEARNER: "learner"}     # seat code -> label in infos
        self.set_opponents(opponents, opponent_weights)     # (the solitaire game seats none of them)

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents: Sequence, weights: Sequence[float] | None = None) -> None:
        """Opponent pool for the episodes that start from now on: compiled agent names and external
        batch policies (objects with act_batch), drawn per seat with `weights` (default: uniform)."""
        opponents = list(opponents)
        if not opponents:
            raise ValueError("opponents: give at least one opponent (a compiled agent name or a batch policy)")
        codes = []
        for k, o in enumerate(opponents):
            if isinstance(o, str):
                codes.append(compiled_code(o, f"opponents[{k}]", "pass a batch policy"))
                self._code_labels[codes[-1]] = o
            elif callable(getattr(o, "act_batch", None)):
                if id(o) not in self._ext_codes:        # a code per policy object, stable across pools
                    self._ext_codes[id(o)] = external_code(self._ext_count)
                    self._ext_count += 1
                code = self._ext_codes[id(o)]
                codes.append(code)
                self._externals[code] = o
                self._code_labels[code] = str(getattr(o, "label", f"external{-2 - code}"))
            else:
                raise ValueError(f"opponents[{k}]: expected a compiled agent name or an object with "
                                 f"act_batch(observations, masks), got {o!r}")
        self._opp_codes = np.asarray(codes, np.int64)
        self._opp_cum = pool_cumulative(weights, len(opponents))
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

    def _kernel_args(self, obs, masks) -> tuple:
        """The arguments every kernel call shares after its own (see v1919_env.envs.vector_kernels)."""
        return (self._cfg, self._opp_codes, self._opp_cum, self._ep_rng, self._kinds, self._weights,
                self.illegal_penalty, self.pol, self.rng, self.G, obs, masks, self._rewards, self._ended,
                self._fin_obs, self._fin_pol, self._fin_scores, self._legal)

    def _play_externals(self, obs: np.ndarray, masks: np.ndarray) -> None:
        """Play the external seats (one batched call per policy and round) until every game waits
        on its learner; the kernels go on with each game as in a step."""
        args = self._kernel_args(obs, masks)
        waiting = 1
        while waiting:
            w = self.who
            ext = np.flatnonzero((w >= 0) & (w != self.seats))
            codes = self.pol[ext, w[ext]]
            waiting = 0
            for code in np.unique(codes):
                sel = ext[codes == code]
                o = np.empty((len(sel), self._core_size), np.float32)
                m = np.empty((len(sel), NUM_ACTIONS), np.int8)
                observe_rows(self.S, self.T, sel, w[sel], o, m, self._layout)
                policy = self._externals[int(code)]
                actions = np.asarray(policy.act_batch(o, m), np.int64).reshape(-1)
                if actions.shape != (len(sel),):
                    raise OpponentError(int(w[sel[0]]), "?", f"act_batch returned {actions.shape[0]} "
                                        f"actions for {len(sel)} games")
                seats_before = w[sel].copy()
                bad = np.zeros(len(sel), np.int8)
                waiting += vector_continue(self.S, self.T, sel, actions, bad, *args)
                if bad.any():
                    k = int(np.flatnonzero(bad)[0])
                    p = int(seats_before[k])
                    raise OpponentError(p, Game(self.S[sel[k]], self.cards, self.T).seat_name(p).lower(),
                                        f"{getattr(policy, 'label', policy)!s} chose illegal action {int(actions[k])}")

    def _next_buffers(self) -> tuple[np.ndarray, np.ndarray]:
        self._buf ^= 1
        return self._obs[self._buf], self._masks[self._buf]

    def _info(self, b: int) -> dict:
        """Info of the episode game b ended in the last step."""
        g = self.G[b].tolist()
        info = {"seat": g[K.G_FIN_SEAT], "game_seed": g[K.G_FIN_SEED],
                "opponents": [self._code_labels[c] for c in self._fin_pol[b, :self.num_players].tolist()]}
        if self.solitaire:
            info.update(opponents=[], player_vp=g[K.G_FIN_VP], target_vp=self.target_vp)
        if self._ended[b] == K.ILLEGAL:
            info["illegal_action"] = True
        elif self.solitaire:
            info["winner"] = bool(g[K.G_FIN_WIN])
        else:
            if self.score_info:
                info["scores"] = score_rows(self._fin_scores[b], self.num_players)
            info["winner"] = bool(g[K.G_FIN_WIN])
        info["episode"] = {"r": float(self._rewards[b]), "l": g[K.G_FIN_LEN]}
        return info

    def reset_all(self) -> tuple[np.ndarray, np.ndarray]:
        """Start an episode in every game; (observations, masks)."""
        if self._next_seed is not None or not self._started:
            self._ep_rng[0] = np.random.default_rng(self._next_seed).integers(1, 2 ** 63, dtype=np.int64)
            self._next_seed = None
        obs, masks = self._next_buffers()
        waiting = vector_reset(self.S, self.T, *self._kernel_args(obs, masks))
        self._started = True
        if waiting:
            self._play_externals(obs, masks)
        self._prune_externals()
        return obs, masks

    def step_all(self, actions):
        """One learner action per game; returns (obs, masks, rewards, terminated, truncated, finals)
        with finals = {game: (final_obs, final_mask, info)} for the episodes that ended (those games
        already restarted: obs holds their new episode's first observation); final_mask is end_mask()
        (action 0 alone, a fill value: no action is taken from a final observation)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.dtype.kind not in "iu" or a.shape != (self.num_envs,):
            raise IllegalActionError(f"actions must be {self.num_envs} integer action ids (one per game), got "
                                     f"dtype {a.dtype} with shape {a.shape}")
        a64 = a.astype(np.int64, copy=False)            # a uint64 beyond 2**63 wraps negative: refused too
        b = first_out_of_range(a64, NUM_ACTIONS)        # the README's action rule, as Game.step and the single env
        if b >= 0:
            raise IllegalActionError(f"game {b}: action id {int(a[b])} is out of range 0..{NUM_ACTIONS - 1} "
                                     f"(no game was stepped)")
        a = a64
        obs, masks = self._next_buffers()
        if vector_step(self.S, self.T, a, *self._kernel_args(obs, masks)):
            self._play_externals(obs, masks)
        ended = self._ended
        terminated = (ended == K.TERMINATED) | (ended == K.ILLEGAL)
        truncated = ended == K.TRUNCATED
        finals = {}
        rows = np.flatnonzero(ended).tolist()
        for b in rows:
            finals[b] = (self._fin_obs[b].copy(), end_mask(), self._info(b))
        if rows and self._externals:
            self._prune_externals()
        return obs, masks, self._rewards.copy(), terminated, truncated, finals

    # ------------------------------------------------------------------ SB3 VecEnv protocol
    def reset(self):
        """SB3: start every game (seeded by the last seed() call); returns the observations."""
        return self.reset_all()[0]

    def step_async(self, actions) -> None:
        """SB3: store one learner action per game for `step_wait`."""
        self._actions = actions

    def step_wait(self):
        """SB3: play the stored actions in every game (opponents inside the same compiled call).

        Returns `(observations, rewards, dones, infos)`; a finished game is reset in the same step and its
        info holds `terminal_observation` and `TimeLimit.truncated`.
        """
        obs, _, rewards, terminated, truncated, finals = self.step_all(self._actions)
        infos = [{} for _ in range(self.num_envs)]
        for b, (fo, _fm, info) in finals.items():
            info["terminal_observation"] = fo
            info["TimeLimit.truncated"] = bool(truncated[b])
            infos[b] = info
        return obs, rewards, terminated | truncated, infos

    def step(self, actions):
        """SB3: `step_async` then `step_wait`."""
        self.step_async(actions)
        return self.step_wait()

    def action_masks(self) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: each game's legal learner actions now."""
        return self._masks[self._buf].view(bool)

    def close(self) -> None:
        """Drop the external (non-compiled) opponents."""
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
        self.single_observation_space = observation_space(obs_layout=self.engine.obs_layout)
        if self.engine.solitaire:          # the solitaire Gymnasium env's dict layout (SolitaireEnv)
            self.single_observation_space = spaces.Dict({
                **self.single_observation_space.spaces,
                "solitaire": spaces.Box(0.0, SOLO_HIGH, (len(SOLO_FEATURES),), np.float32)})
        self.single_action_space = self.engine.action_space
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)

    def _dict(self, obs, masks):
        if self.copy:
            obs, masks = obs.copy(), masks.copy()
        if self.engine.solitaire:
            k = self.engine._core_size
            return {"observation": obs[..., :k], "action_mask": masks, "solitaire": obs[..., k:]}
        return {"observation": obs, "action_mask": masks}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start every game; `seed` seeds game i with a seed derived from (seed, i).

        Returns `({"observation", "action_mask"}, {})`, one row per game."""
        if seed is not None:
            self.engine.seed(seed)
        obs, masks = self.engine.reset_all()
        return self._dict(obs, masks), {}

    def step(self, actions):
        """Play one learner action per game (opponents inside the same compiled call).

        Returns `(observations, rewards, terminated, truncated, infos)`. A game that ends is reset in
        the same step (same-step auto-reset): its last observation and info are in
        `infos["final_obs"]` and `infos["final_info"]`."""
        obs, masks, rewards, terminated, truncated, finals = self.engine.step_all(actions)
        infos: dict = {}
        for b, (fo, fm, info) in finals.items():
            infos = self._add_info(infos, {"final_obs": self._dict(fo, fm), "final_info": info}, b)
        return self._dict(obs, masks), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 694) bool: each game's legal learner actions now."""
        return self.engine.action_masks()

    def close_extras(self, **kwargs):
        self.engine.close()


def solitaire_vector_env(num_envs: int = 8, faction: str | None = None, target_vp: int = L.SOLO_DEFAULT_TARGET,
                         reward: str = "vp", obs_mode: str = "dict", illegal_penalty: float = -1.0,
                         variant: str = "standard", card_set: str | None = None, **kwargs) -> GymVectorEnv:
    """`gymnasium.make_vec("Versailles1919Solitaire-v4", num_envs=N, ...)`: N solitaire games in the
    compiled vector env, with the options of the single SolitaireEnv (dict observations only:
    observation, action_mask and the solitaire features)."""
    if obs_mode != "dict":
        raise ValueError(f"obs_mode: the solitaire vector env gives dict observations, got {obs_mode!r}")
    bad = sorted(set(kwargs) - {"seed", "copy", "score_info"})
    if bad:
        raise ValueError(f"unknown option(s) {', '.join(bad)} for the solitaire vector env")
    return GymVectorEnv(num_envs=num_envs, num_players=1, faction=faction, target_vp=target_vp, reward=reward,
                        illegal_penalty=illegal_penalty, variant=variant, card_set=card_set, **kwargs)
