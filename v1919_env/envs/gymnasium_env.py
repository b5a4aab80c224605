"""Gymnasium environment with one learning seat: `v1919_env.gym_env(...)` or
`gymnasium.make("Versailles1919-v4")`.

Any id of the action space is a valid input to `step()` (Gymnasium's contract): by default an
illegal one ends the episode with `illegal_penalty`, `info["illegal_action"] = True` and
`info["illegal_reason"]` (the core's message: the action, the phase, the legal actions), the game
itself untouched; `illegal_action="raise"` raises the core's error instead. A value that is not an
action id (`v1919_env.actions.action_id`: a float, a string, None, a bool, a list, an id outside
the action space) raises IllegalActionError in either mode and changes nothing. Once an episode has
ended, its last observation's mask (and `action_masks()`) marks action 0 alone (`end_mask`), so
that a policy masking its logits with -inf stays defined on it; that action is never played.

The other seats are played by opponent policies (random by default; any callable
`policy(observation_dict, info) -> action` or an object with `.act(observation, action_mask)`;
agents of the `agents` package whose `needs_game` is true also get `game=`, the game as their seat
may know it: a copy with the hidden deck orders and dice resampled, `Game.information_set`, with a
seed drawn by the environment, never the real game).
`opponents` is either one policy per seat (policy objects, the learner's entry unused) or, as in
the compiled vector env, a pool: a sequence holding compiled agent names (`"random"`, `"rulebot"`)
or given `opponent_weights` is drawn from for every other seat at every reset, with those weights
(uniform by default); names are played by the compiled policies. `seat=None` draws the learner's
seat per episode (as `random_seat=True`); `reward` is a kind or a mapping {kind: weight}. So
`gymnasium.make_vec(..., vectorization_mode="sync", **kw)` and the compiled vector env
(`vector_entry_point`, the default) read the same keyword arguments alike; only `seed` is the
vector env's alone: a sync vector env is seeded by `reset(seed=s)` (copy i gets s + i).
Opponents with a `reset(seed)` method are reseeded from the episode seed at every reset. An
opponent that raises or returns something other than a legal action id ends the episode as
truncated with reward 0 and `info["opponent_error"]` (seat, nation, error); with
`illegal_action="raise"` an `OpponentError` is raised instead and the game is put back to the
learner's decision, as if its action had not been taken.
`action_masks()` serves sb3-contrib's MaskablePPO. The episode ends at game end; the reward is
the learner's terminal reward (v1919_env.rewards). On truncation (the safety cap, project ruling
P-08) the reward is computed from the scores at that moment. `RandomPolicy` opponents are reseeded
from the episode seed at every reset, so a seeded reset replays the same game.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from v1919_env.actions import NUM_ACTIONS, IllegalActionError, action_id
from v1919_env.core import layout as L
from v1919_env.core.observations import kernels_of
from v1919_env.core.bots import play_until, policy_action
from v1919_env.core.step import legal, play_random_until, try_step
from v1919_env.game import Game, hand_off_rng
from v1919_env.envs.pettingzoo_env import OBS_HIGH, end_mask, observation_space
from v1919_env.view.text import RENDER_MODES, render_mode_output
from v1919_env.envs.opponents import compiled_code, pool_cumulative
from v1919_env.rewards import reward_weights, weighted_rewards



class OpponentError(RuntimeError):
    """An opponent policy raised or chose something that is not a legal action."""

    def __init__(self, seat: int, nation: str, error: str):
        super().__init__(f"opponent in seat {seat} ({nation}) failed: {error}")
        self.seat, self.nation, self.error = seat, nation, error


class RandomPolicy:
    """Uniformly random legal actions from its own generator."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal_ids = np.flatnonzero(action_mask)
        return int(legal_ids[self.rng.integers(len(legal_ids))])


class Versailles1919Env(gym.Env):
    """One seat learns; the others are opponents. obs_mode 'dict' (observation + action_mask, the
    PettingZoo layout) or 'vector' (the observation only; use action_masks()). seating: the
    nations clockwise around the table (see v1919_env.seating); `seat` is a nation index.

    Args:
        num_players (int): 2, 3 or 4 (the solitaire game is `SolitaireEnv`).
        seat (int | None): the learning seat; None draws it per episode (as `random_seat=True`).
        opponents: the other seats' players: None (random), one policy for every seat, a list with
            one per seat, or agent names (a pool drawn per episode, weighted by
            `opponent_weights`). A policy is an object with `.act(observation, action_mask)` (e.g.
            `agents.make_agent("rulebot")`; agents that read the game get the seat's information
            set) or a callable `policy(obs, info)`.
        reward (str | dict): 'win_loss' (default), 'rank', 'score_margin', or weights {kind: w}.
        obs_mode (str): 'dict' or 'vector'.
        obs_layout (str): 'full' (default, 2,032 floats) or 'compact' (1,596 floats; docs/observation.md).
            Python opponent policies are handed observations in the same layout.
        render_mode (str | None): None, 'ansi', 'human' or 'rgb_array'.
        variant (str): the deck variant, as for `Game.new`.
        negotiation (bool): the Negotiations-5 transfer action.
        card_set (str | None): a card set of your own.
        random_seat (bool): draw the learning seat per episode.
        illegal_action (str): 'penalize' (default: an id that is not legal now ends the episode with
            `illegal_penalty` and info["illegal_reason"]) or 'raise'.
        illegal_penalty (float): the penalty (default -1).
        seating (list | None): the nations clockwise around the table.
        opponent_weights (Sequence[float] | None): draw weights of a pool of named opponents.
        score_info (bool): put the final scores in the last step's info.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}
    PLAYERS = (2, 3, 4)

    def __init__(self, num_players: int = 4, seat: int | None = 0, opponents: Sequence | Callable | None = None,
                 reward="win_loss", obs_mode: str = "dict", render_mode: str | None = None,
                 variant: str = "standard", negotiation: bool = False, card_set: str | None = None,
                 random_seat: bool = False, illegal_action: str = "penalize", illegal_penalty: float = -1.0,
                 seating=None, opponent_weights: Sequence[float] | None = None, score_info: bool = True,
                 seed: int | None = None, obs_layout: str = "full"):
        if num_players not in self.PLAYERS:
            raise ValueError(f"num_players must be one of {self.PLAYERS}, got {num_players}")
        if seat is not None and not (isinstance(seat, (int, np.integer)) and not isinstance(seat, bool)
                                     and 0 <= seat < num_players):
            raise ValueError(f"seat must be None (drawn per episode) or in 0..{num_players - 1}, got {seat!r}")
        if seed is not None:
            raise ValueError("seed: the single env is seeded by reset(seed=...) (a sync vector env seeds copy i "
                             "with seed + i); only the compiled vector env takes seed= when it is made")
        self.reward_weights = reward_weights(reward)
        if obs_mode not in ("dict", "vector"):
            raise ValueError(f"obs_mode must be 'dict' or 'vector', got {obs_mode!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalize', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.num_players = num_players
        self.seat = 0 if seat is None else int(seat)
        self.random_seat = random_seat or seat is None
        self.reward_kind = reward
        self.score_info = bool(score_info)
        self.obs_mode = obs_mode
        self._kernels = kernels_of(obs_layout)
        self._obs_size = self._kernels.size
        self.obs_layout = obs_layout
        self.render_mode = render_mode
        self.config = dict(variant=variant, negotiation=negotiation, card_set=card_set, seating=seating)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = observation_space(obs_layout=obs_layout) if obs_mode == "dict" else \
            spaces.Box(0.0, OBS_HIGH, (self._obs_size,), np.float32)
        self._pool = self._pool_cum = None
        if opponents is None:
            opponents = [RandomPolicy() for _ in range(num_players)]
        elif callable(opponents) or hasattr(opponents, "act"):
            opponents = [opponents] * num_players
        elif isinstance(opponents, str):
            opponents = [opponents]
        opponents = list(opponents)
        if opponent_weights is not None or any(isinstance(o, str) for o in opponents):
            self._pool, self._pool_cum = self._opponent_pool(opponents, opponent_weights)
            opponents = [self._pool[0]] * num_players        # drawn again at every reset
        self.opponents = opponents
        if len(self.opponents) < num_players:
            raise ValueError(f"need one opponent policy per seat ({num_players}), got {len(self.opponents)}")
        self._rng_state = np.ones(1, np.uint64)
        self._hand = hand_off_rng(0)     # seeds of the opponents' hand-off copies
        self._buf = np.empty(L.MAX_LEGAL, np.int64)
        self._seat_opponents()
        self.game: Game | None = None
        self._ended = False
        self._final = False              # the last observation returned was the episode's final one
        self.card_set_label = self._new_game(0).cards.label

    @staticmethod
    def _opponent_pool(pool: list, weights) -> tuple[list, np.ndarray]:
        """The pool as entries (a compiled policy code, or a policy object) and its cumulative weights."""
        if not pool:
            raise ValueError("opponents: give at least one opponent (a compiled agent name or a policy)")
        out = []
        for k, o in enumerate(pool):
            if isinstance(o, str):
                out.append(compiled_code(o, f"opponents[{k}]", "pass a policy object"))
            elif callable(o) or hasattr(o, "act"):
                out.append(o)
            else:
                raise ValueError(f"opponents[{k}]: expected a compiled agent name or a policy, got {o!r}")
        return out, pool_cumulative(weights, len(out))

    def _seat_opponents(self) -> None:
        """Which fast path plays the other seats: all compiled (one compiled call per turn of theirs),
        or all random policies (the same, uniformly random), else one Python call per decision."""
        others = [p for k, p in enumerate(self.opponents) if k != self.seat or self.random_seat]
        self._codes = None
        if all(isinstance(p, int) for p in others):
            self._codes = np.asarray([p if isinstance(p, int) else 0 for p in self.opponents], np.int64)
        self._all_random = self._codes is None and not self.random_seat and \
            all(type(p) is RandomPolicy for k, p in enumerate(self.opponents) if k != self.seat)

    # ------------------------------------------------------------------ helpers
    def _new_game(self, seed: int) -> Game:
        return Game.new(self.num_players, seed=seed, **self.config)

    def _reward(self, scores: list[dict] | None) -> float:
        """The learner's reward for a legal step: its terminal reward once the game is over (`scores`),
        else 0."""
        return 0.0 if scores is None else float(weighted_rewards(scores, self.reward_weights)[self.seat])

    def _observe(self, seat: int):
        obs = np.empty(self._obs_size, np.float32)
        mask = np.empty(NUM_ACTIONS, np.int8)
        self._kernels.observe_and_mask(self.game.state, self.game.T, seat, obs, mask, self._buf)
        if self.obs_mode == "dict":
            return {"observation": obs, "action_mask": mask}
        return obs

    def _info(self) -> dict:
        st = self.game.state
        return {"decision": "game_over" if st[L.GAME_OVER] else L.DECISION_LIST[st[L.PENDING]], "seat": self.seat,
                "card_set": self.card_set_label}

    def _play_opponents(self) -> None:
        """Play the other seats until the learner must decide or the game ends; raises
        OpponentError (naming the seat) when a policy fails, its move not applied."""
        g = self.game
        if self._all_random:
            play_random_until(g.state, g.T, self.seat, self._rng_state, self._buf)
            return
        if self._codes is not None:
            play_until(g.state, g.T, self.seat, self._codes, self._buf, self._rng_state)
            return
        while not g.is_over and int(g.state[L.PENDING_PLAYER]) != self.seat:
            p = int(g.state[L.PENDING_PLAYER])
            pol = self.opponents[p]
            if isinstance(pol, int):         # a compiled policy drawn from the pool
                try_step(g.state, g.T, policy_action(g.state, g.T, pol, self._buf, self._rng_state), self._buf)
                continue
            obs = np.empty(self._obs_size, np.float32)      # fresh arrays: a policy may keep them
            mask = np.empty(NUM_ACTIONS, np.int8)
            self._kernels.observe_and_mask(g.state, g.T, p, obs, mask, self._buf)
            try:
                if hasattr(pol, "act"):
                    a = pol.act(obs, mask, game=g.information_set(p, int(self._hand.integers(1 << 62)))) \
                        if getattr(pol, "needs_game", False) else \
                        pol.act(obs, mask)
                else:
                    a = pol({"observation": obs, "action_mask": mask}, {"decision": g.decision, "seat": p})
                a = action_id(a)
            except Exception as e:            # any failure of the policy's code is the opponent's
                raise OpponentError(p, g.seat_name(p).lower(), f"{type(e).__name__}: {e}") from e
            if not try_step(g.state, g.T, a, self._buf):
                raise OpponentError(p, g.seat_name(p).lower(),
                                    f"chose illegal action {a} ({g.describe(a)}) in phase '{g.decision}'")

    def _opponent_failed(self, err: OpponentError):
        """End the episode as truncated, the opponent's error in info (the 'penalize' policy)."""
        self._ended = True
        info = self._info()
        info["opponent_error"] = {"seat": err.seat, "nation": err.nation, "error": err.error}
        return self._final_observation(), 0.0, False, True, info

    def _penalized(self, reason: str):
        """End the episode with the penalty for an illegal action id, the game itself untouched."""
        self._ended = True
        info = self._info()
        info["illegal_action"] = True
        info["illegal_reason"] = reason
        return self._final_observation(), self.illegal_penalty, True, False, info

    def _final_observation(self):
        """The learner's observation once its episode has ended: its mask (dict mode) marks action 0
        alone (end_mask: a fill value that keeps masked distributions defined; step() needs reset())."""
        self._final = True
        obs = self._observe(self.seat)
        if self.obs_mode == "dict":
            obs["action_mask"][:] = end_mask()
        return obs

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new episode and play the opponents up to the learning seat's first decision.

        Returns `(observation, info)`. `seed` seeds Gymnasium's `np_random`, from which the game's seed,
        the seat (with `seat=None`), the opponents drawn from a pool and their own seeds all come. An
        opponent that fails here raises `OpponentError`: fix the policy and reset again.
        """
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2 ** 62))
        if self.random_seat:
            self.seat = int(self.np_random.integers(self.num_players))
        if self._pool is not None:
            draws = np.searchsorted(self._pool_cum, self.np_random.random(self.num_players), side="right")
            self.opponents = [self._pool[min(int(d), len(self._pool) - 1)] for d in draws]
            self._seat_opponents()
        for k, pol in enumerate(self.opponents):
            if isinstance(pol, RandomPolicy):
                pol.rng = np.random.default_rng(game_seed + 7 * k + 1)
            elif k != self.seat and callable(getattr(pol, "reset", None)):
                pol.reset(game_seed + 7 * k + 1)
        self._rng_state[0] = np.uint64(game_seed * 2 + 1)
        self._hand = hand_off_rng(game_seed)
        self.game = self._new_game(game_seed)
        self._ended = self._final = False
        try:
            self._play_opponents()
        except OpponentError:
            self._ended = True               # no live episode: reset() again once the policy is fixed
            raise
        if self.render_mode == "human":
            self.render()
        return self._observe(self.seat), self._info()

    def step(self, action):
        """Play the learning seat's `action`, then the opponents until the seat decides again or the game ends.

        Returns `(observation, reward, terminated, truncated, info)`: the reward is the final reward
        (`reward`) at the end, 0 before it. An id that is not legal now ends the episode with
        `illegal_penalty` and `info["illegal_reason"]` (or raises with `illegal_action='raise'`); a value
        that is not an action id raises. An opponent that fails ends the episode as truncated with
        `info["opponent_error"]`. `info` also names the decision and, at the end, the scores.
        """
        g = self.game
        if g is None or g.state[L.GAME_OVER] or self._ended:
            raise RuntimeError("call reset() before step() (the episode has ended)")
        a = action_id(action)            # not an action id: the caller's bug, raised in either mode
        before = g.state.copy() if not self._all_random else None
        if not try_step(g.state, g.T, a, self._buf):
            try:
                g.step(a)                # raises IllegalActionError naming the phase; nothing changes
            except IllegalActionError as e:
                if self.illegal_action == "raise":
                    raise
                return self._penalized(str(e))
        try:
            self._play_opponents()
        except OpponentError as err:
            if self.illegal_action == "raise":
                g.state[:] = before      # as if the learner's action had not been taken
                raise
            return self._opponent_failed(err)
        info = self._info()
        if self.render_mode == "human":
            self.render()
        if g.state[L.GAME_OVER]:
            sc = g.scores()
            if self.score_info:
                info["scores"] = sc
            return self._final_observation(), self._reward(sc), not g.truncated, g.truncated, info
        return self._observe(self.seat), self._reward(None), False, False, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib MaskablePPO); once the episode has
        ended, the mask of its final observation (action 0 alone, see end_mask); none where no
        observation was returned (before reset(), or a reset() that raised)."""
        m = np.zeros(NUM_ACTIONS, bool)
        g = self.game
        if self._final:
            return end_mask().astype(bool)
        if g is None or g.is_over or self._ended:
            return m
        n = legal(g.state, g.T, self._buf)
        m[self._buf[:n]] = True
        return m

    def render(self):
        """The text board (`render_mode='ansi'`) or the table as an RGB array (`'rgb_array'`)."""
        return render_mode_output(self.game, self.render_mode)


def gym_env(**kwargs) -> Versailles1919Env:
    """The Gymnasium environment with one learning seat: `Versailles1919Env(**kwargs)`, the same as
    `gymnasium.make("Versailles1919-v4", **kwargs)` without Gymnasium's wrappers.

    Example:
        ```python
        env = v1919_env.gym_env(num_players=4, seat=0, opponents="rulebot")
        obs, info = env.reset(seed=0)
        ```
    """
    return Versailles1919Env(**kwargs)
