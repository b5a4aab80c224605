"""PettingZoo AEC environment: `v1919_env.env(num_players=4, render_mode=None, **config)`.

Agents are the nations (`uk`, `france`, `usa`, `italy`); in the solitaire game (num_players=1) the
one agent is `player` (SOLO_AGENT), whatever faction it controls. `agent_selection` is whoever must decide
now (the active player, an issue's controller choosing its option, an event cube's owner, each
bidder, each drafter, a mutinying player). Observations are `{"observation": float32 vector,
"action_mask": int8 vector}` from the observing seat's own perspective (docs/observation.md).
Order, bounds and legality are checked inside the env, cheaply, so no wrapper is needed. An
action that is not an action id (`v1919_env.actions.action_id`: a float, a string, a bool, a list,
an id outside 0..NUM_ACTIONS-1; `None` but from a finished agent) raises IllegalActionError in
either illegal_action mode and changes nothing; an action id that is not legal now raises
('raise') or ends the game with the penalty ('penalize', the offender's info naming it in
`illegal_reason`). Once every agent is done, `step(None)` changes nothing and any other action is
an IllegalActionError ("the episode is over"); `reset()` starts the next game.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from v1919_env.actions import NUM_ACTIONS, IllegalActionError, action_id
from v1919_env.core import layout as L
from v1919_env.core.observations import kernels_of, layout_of
from v1919_env.core.step import legal
from v1919_env.game import Game
from v1919_env.view.text import RENDER_MODES, render_mode_output
from v1919_env.rewards import REWARD_KINDS, terminal_rewards
from v1919_env.envs.solitaire_features import SOLO_FEATURES, SOLO_HIGH, SOLO_REWARDS, solo_features, solo_step_reward
from v1919_env.envs.versions import AEC_NAME
from v1919_env.core.vocab import NATIONS, PLAYER_NATIONS

ILLEGAL_POLICIES = ("raise", "penalize")
OBS_MODES = ("dict", "vector")
OBS_HIGH = 10.0
# numeric infos (numeric_info=True): info["decision"] is an index into INFO_DECISIONS;
# WAITING (-1) for a seat that is not to move
INFO_DECISIONS = tuple(L.DECISION_LIST) + ("game_over",)
GAME_OVER = len(INFO_DECISIONS) - 1
WAITING = -1
SOLO_AGENT = "player"
"""The solitaire game's one agent: the player, who switches factions (EN:949-953)."""


def end_mask() -> np.ndarray:
    """The int8 action mask that marks action 0 alone: the mask of an observation from which no
    action is played (a finished episode's last observation, in the Gymnasium envs and the final
    observations of the vector env's auto-reset; a waiting agent in compat's Box parallel env).
    Action 0 is a fill value, so that a policy that masks its logits with -inf still gets a
    defined distribution; the action is never played."""
    m = np.zeros(NUM_ACTIONS, np.int8)
    m[0] = 1
    return m


def decision_name(code: int) -> str:
    """The decision name of a numeric info["decision"] code ('waiting' for WAITING)."""
    if code == WAITING:
        return "waiting"
    if not 0 <= code < len(INFO_DECISIONS):
        raise ValueError(f"decision code must be -1 or in 0..{len(INFO_DECISIONS) - 1}, got {code}")
    return INFO_DECISIONS[code]


def observation_space(solitaire: bool = False, obs_mode: str = "dict", obs_layout: str = "full") -> spaces.Space:
    """An agent's observation space; the solitaire game adds the SOLO_FEATURES vector (`solitaire`
    in dict mode, appended to the observation in vector mode). obs_layout: 'full' or 'compact'."""
    n = len(SOLO_FEATURES)
    size = layout_of(obs_layout)[1]
    if obs_mode == "vector":
        return (spaces.Box(0.0, SOLO_HIGH, (size + n,), np.float32) if solitaire
                else spaces.Box(0.0, OBS_HIGH, (size,), np.float32))
    parts = {"observation": spaces.Box(0.0, OBS_HIGH, (size,), np.float32),
             "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)}
    if solitaire:
        parts["solitaire"] = spaces.Box(0.0, SOLO_HIGH, (n,), np.float32)
    return spaces.Dict(parts)


class raw_env(AECEnv):
    """Versailles 1919 for 1 to 4 players as a PettingZoo AEC environment. In the 2-player game
    the agents are the UK and France; the player whose turn it is also decides for the USA faction
    (the observation's `decider` slice and the info's `acting_for` say so). The solitaire game
    (num_players=1, docs/solitaire.md) has one agent, `player`: the rule bots play inside the kernel,
    its observation adds the `solitaire` features (SOLO_FEATURES, as in the Gymnasium
    `Versailles1919Solitaire-v4`), and its infos name the decision, the faction it controls
    (`faction`), the faction the decision is for (`acting_for`), `player_vp` and `target_vp`.

    Args:
        num_players (int): 1 (the solitaire game), 2, 3 or 4.
        render_mode (str | None): None, 'ansi' (the text board), 'human' (printed) or 'rgb_array'.
        variant (str): 'standard', 'longer', 'even_longer', 'longest' (aliases 'short15', 'long10').
        negotiation (bool): the Negotiations-5 transfer action.
        card_set (str | None): a card set of your own (a folder or JSON file); None: the shipped one.
        seating (list | None): the nations clockwise, e.g. ["uk", "usa", "italy", "france"].
        reward (str | None): 'win_loss' (default) | 'rank' | 'score_margin'; solitaire: 'vp'
            (default: each step pays the VP scored) | 'win_loss' (+1 / -1 at the end).
        faction (str | None): solitaire only, as `Game.new`.
        target_vp (int): solitaire only, the level (20).
        illegal_action (str): what an action id that is not legal now does: 'raise' or 'penalize'
            (the game ends with `illegal_penalty`); a value that is no action id raises in both.
        illegal_penalty (float): the penalty of 'penalize' (default -1).
        auto_forced (bool): apply decisions with one legal action without asking.
        shaping (bool): add the per-step change of the provisional score margin / 50 (off by default).
        obs_mode (str): 'dict': {"observation", "action_mask"}; 'vector': the Box observation alone,
            the mask in info["action_mask"] of every agent, zeros for those not to move.
        obs_layout (str): 'full' (default, 2,032 floats) or 'compact' (1,596 floats, the same public
            view as rows of issues, events, regions and seats); docs/observation.md.
        numeric_info (bool): infos hold numbers only, the same keys for every agent at every step:
            decision (code, see decision_name), illegal_action (0/1), score (the seat's final total,
            0 before the end).
        max_cycles (int | None): every agent is truncated once that many moves have been played in
            the episode (PettingZoo's option of its butterfly and MPE games; a move is an AEC step
            that plays a decision, one per step of the parallel env, so `parallel_env(max_cycles=N)`
            ends after N steps); a truncated agent gets no terminal reward (the game is not over:
            bootstrap its value) and its info the scores at that moment.
    """

    metadata = {"name": AEC_NAME, "render_modes": list(RENDER_MODES), "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 4, render_mode: str | None = None, variant: str = "standard",
                 negotiation: bool = False, card_set: str | None = None, reward: str | None = None,
                 illegal_action: str = "raise", illegal_penalty: float = -1.0, auto_forced: bool = False,
                 shaping: bool = False, obs_mode: str = "dict", numeric_info: bool = False, seating=None,
                 faction: str | None = None, target_vp: int = L.SOLO_DEFAULT_TARGET, max_cycles: int | None = None,
                 obs_layout: str = "full"):
        super().__init__()
        self._kernels = kernels_of(obs_layout)
        self._obs_size = self._kernels.size
        self.obs_layout = obs_layout
        if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer))
                                       or max_cycles < 1):
            raise ValueError(f"max_cycles must be None or a positive integer, got {max_cycles!r}")
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        if num_players not in (1, 2, 3, 4):
            raise ValueError(f"num_players must be 1 (solitaire), 2, 3 or 4, got {num_players}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
        self.solitaire = num_players == 1
        kinds = SOLO_REWARDS if self.solitaire else REWARD_KINDS
        reward = kinds[0] if reward is None else reward
        if reward not in kinds:
            raise ValueError(f"reward must be one of {kinds}" + (" in the solitaire game" if self.solitaire else "")
                             + f", got {reward!r}")
        if shaping and self.solitaire:
            raise ValueError("shaping is for 2 to 4 players (a score margin); the solitaire reward 'vp' pays "
                             "each VP as it is scored")
        if illegal_action not in ILLEGAL_POLICIES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_POLICIES}, got {illegal_action!r}")
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode must be one of {OBS_MODES}, got {obs_mode!r}")
        self.obs_mode = obs_mode
        self.numeric_info = bool(numeric_info)
        self.num_players = num_players
        self.render_mode = render_mode
        self.config = dict(variant=variant, negotiation=negotiation, card_set=card_set, seating=seating)
        if self.solitaire or faction is not None or target_vp != L.SOLO_DEFAULT_TARGET:
            self.config.update(faction=faction, target_vp=target_vp)     # Game.new names a misplaced one
        self.reward_kind = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.auto_forced = auto_forced
        self.shaping = shaping
        self.possible_agents = [SOLO_AGENT] if self.solitaire else list(PLAYER_NATIONS[num_players])
        self._seat = {a: k for k, a in enumerate(self.possible_agents)}
        space = observation_space(self.solitaire, obs_mode, obs_layout)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._buf = np.empty(L.MAX_LEGAL, np.int64)
        self._seed = None
        self.game: Game | None = None
        self._cached = None
        self._penalized = False
        # the card set is recorded with every result
        g = Game.new(num_players, seed=0, **self.config)
        self.card_set_label = g.cards.label
        self.metadata = dict(self.metadata, card_set=self.card_set_label)

    def observation_space(self, agent):
        """The agent's observation space: a Dict of `observation` (float32) and `action_mask` (int8),
        or the Box alone with `obs_mode='vector'` (the solitaire agent adds `solitaire`).
        """
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """Discrete(694): every action id (the legal ones now are in the mask)."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset / observe
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. `seed` fixes the deal, the dice and every draw (the same seed and the same
        actions give the same episode); without one, the next seed follows from the last, or from fresh
        entropy the first time. `options` is accepted and unused (PettingZoo's signature).
        """
        if seed is not None:
            self._seed = int(seed)
        elif self._seed is None:
            self._seed = int(np.random.SeedSequence().entropy % (2 ** 62))
        else:
            self._seed = (self._seed * 6364136223846793005 + 1442695040888963407) % (2 ** 62)
        self.game = Game.new(self.num_players, seed=self._seed, **self.config)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._info("waiting") for a in self.agents}
        self._rewarded = False
        self._cached = None
        self._penalized = False
        self._moves = 0
        self._margin = [0.0] * self.num_players
        self._vp = self.game.player_vp
        if self.auto_forced:
            self._apply_forced()
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        """The agent's observation now (seen from its seat): the dict with its `action_mask`, all zero
        when it is not the agent to move, or the Box with `obs_mode='vector'`.
        """
        seat = self._seat[agent]
        c = self._cached
        if c is not None and c[0] == seat and c[1] == self.game.state[L.DECISIONS]:
            self._cached = None          # handed out once: the caller owns these arrays
            obs, mask = c[2], c[3]
        else:
            obs, mask = self._observe_arrays(seat)
        if self.solitaire:
            feats = solo_features(self.game)
            if self.obs_mode == "dict":
                return {"observation": obs, "action_mask": mask, "solitaire": feats}
            return np.concatenate([obs, feats])
        return {"observation": obs, "action_mask": mask} if self.obs_mode == "dict" else obs

    def _observe_arrays(self, seat: int):
        obs = np.empty(self._obs_size, np.float32)
        mask = np.empty(NUM_ACTIONS, np.int8)
        self._kernels.observe_and_mask(self.game.state, self.game.T, seat, obs, mask, self._buf)
        if self._penalized:
            mask[:] = 0                  # the episode ended on an illegal action: nothing is legal
        return obs, mask

    def _info(self, kind: str, **fields) -> dict:
        """An agent's info: kind 'waiting', 'turn' (fields decision, active, mask) or 'game_over'
        (fields scores, illegal_action, reason, seat), in the form numeric_info and obs_mode ask for."""
        if self.numeric_info:
            info = {"decision": WAITING, "illegal_action": 0, "score": 0.0}
            if kind == "turn":
                info["decision"] = fields["decision"]
            elif kind == "game_over":
                info["decision"] = GAME_OVER
                info["illegal_action"] = int(fields.get("illegal_action", False))
                if "scores" in fields:
                    info["score"] = float(fields["scores"][fields["seat"]]["total"])
        elif kind == "turn" and self.solitaire:
            info = self._solo_info()
        elif kind == "turn":
            info = {"decision": L.DECISION_LIST[fields["decision"]], "active": self.possible_agents[fields["active"]]}
            if self.num_players == 2:
                info["acting_for"] = NATIONS[fields["acting_for"]]
        elif kind == "game_over":
            info = {"decision": "game_over"}
            if "illegal_action" in fields:
                info["illegal_action"] = fields["illegal_action"]
                if fields.get("reason"):
                    info["illegal_reason"] = fields["reason"]
            else:
                info.update(scores=fields["scores"], card_set=self.card_set_label)
        else:
            info = {}
        if self.obs_mode == "vector":
            info["action_mask"] = fields["mask"] if kind == "turn" else np.zeros(NUM_ACTIONS, np.int8)
        return info

    # ------------------------------------------------------------------ stepping
    def step(self, action) -> None:
        """Play `action` (an action id) for `agent_selection`; `None` for an agent that is terminated or
        truncated. An id that is not legal now raises `IllegalActionError` (`illegal_action='raise'`) or
        ends the game with `illegal_penalty` for the agent and `info["illegal_reason"]`
        (`'penalize'`); a value that is not an action id raises either way and changes nothing.
        Rewards are given at the end of the game (`reward`), plus the per-step shaping with `shaping=True`.
        """
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if not self.agents:
            # every agent is done: a None step (the finished agents' convention) changes nothing
            if action is None:
                return
            raise IllegalActionError(f"the episode is over (every agent is done; got action {action!r}); "
                                     f"call reset() to start a new game")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        a = _action_id(action, agent, g)    # not an action id: the caller's bug, raised in either mode
        try:
            obs = np.empty(self._obs_size, np.float32)
            mask = np.empty(NUM_ACTIONS, np.int8)
            if not self._kernels.step_and_observe(g.state, g.T, a, self._buf, obs, mask):
                g.step(a)                   # raises the core's error naming the phase and the legal actions
            st = g.state
            self._cached = (st[L.PENDING_PLAYER], st[L.DECISIONS], obs, mask) if not st[L.GAME_OVER] else None
        except IllegalActionError as e:
            if self.illegal_action == "raise":
                raise                       # nothing changed, rewards included
            self._penalize(agent, str(e))
            return
        self._clear_step_rewards(agent)
        if self.auto_forced:
            self._apply_forced()
        if self.shaping and not g.is_over:
            self._shape()
        self._after_move()
        self._moves += 1
        if self.max_cycles is not None and self._moves >= self.max_cycles and not g.is_over:
            self._truncate()
        if self.render_mode == "human":
            self.render()

    def _truncate(self) -> None:
        """max_cycles reached: every agent is truncated, no reward paid, the scores at this moment in the infos."""
        self._cached = None
        scores = self.game.scores()
        for p, a in enumerate(self.possible_agents):
            if a in self.agents:
                self.truncations[a] = True
                self.infos[a] = self._info("game_over", scores=scores, seat=p)

    def _penalize(self, offender: str, reason: str) -> None:
        """PettingZoo's convention for an illegal move: the offender is penalised and the game ends."""
        self._clear_step_rewards(offender)
        self._penalized = True
        self._cached = None
        for a in self.agents:
            self.terminations[a] = True
            self.rewards[a] = self.illegal_penalty if a == offender else 0.0
            self.infos[a] = self._info("game_over", illegal_action=a == offender,
                                       reason=reason if a == offender else None)
        self._accumulate_rewards()
        self._rewarded = True

    def _clear_step_rewards(self, agent) -> None:
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False

    def _solo_info(self) -> dict:
        """The solitaire player's info for its pending decision."""
        g = self.game
        return {"decision": g.decision, "faction": NATIONS[g.solo_faction], "acting_for": NATIONS[g.acting_for],
                "player_vp": g.player_vp, "target_vp": g.target_vp}

    def _apply_forced(self) -> None:
        g = self.game
        while not g.is_over and legal(g.state, g.T, self._buf) == 1:
            g.step(int(self._buf[0]))

    def _shape(self) -> None:
        sc = self.game.scores()
        tot = [s["total"] for s in sc]
        for p, a in enumerate(self.possible_agents):
            others = (sum(tot) - tot[p]) / (len(tot) - 1)
            m = (tot[p] - others) / 50.0
            self.rewards[a] += m - self._margin[p]
            self._margin[p] = m

    def _after_move(self) -> None:
        g = self.game
        st = g.state
        if self.solitaire:
            solo_reward, self._vp = solo_step_reward(g, self._vp, self.reward_kind)
        if st[L.GAME_OVER]:
            rew = [solo_reward] if self.solitaire else terminal_rewards(g.scores(), self.reward_kind)
            trunc = g.truncated
            for p, a in enumerate(self.possible_agents):
                if a in self.rewards:
                    self.rewards[a] += rew[p] - (self._margin[p] if self.shaping else 0.0)
                    self.terminations[a] = not trunc
                    self.truncations[a] = trunc
                    self.infos[a] = self._info("game_over", scores=g.scores(), seat=p)
            self._accumulate_rewards()
            self._rewarded = True
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
            return
        if self.solitaire:
            self.rewards[SOLO_AGENT] += solo_reward
        if self.shaping or self.solitaire:
            self._accumulate_rewards()
            self._rewarded = True
        infos = self.infos
        prev = getattr(self, "agent_selection", None)
        agents = self.possible_agents
        seat = int(st[L.PENDING_PLAYER])
        agent = agents[seat]
        self.agent_selection = agent
        if not self.numeric_info and self.obs_mode == "dict":     # the default, on the hot path
            if prev in infos:
                infos[prev] = {}
            if self.solitaire:
                infos[agent] = self._solo_info()
            elif self.num_players == 2:      # the USA faction is active during its action: name its player
                infos[agent] = {"decision": L.DECISION_LIST[st[L.PENDING]], "active": agents[st[L.TURN_OWNER]],
                                "acting_for": NATIONS[st[L.PENDING_FACTION]]}
            else:
                infos[agent] = {"decision": L.DECISION_LIST[st[L.PENDING]], "active": agents[st[L.ACTIVE]]}
            return
        if prev in infos and prev != agent:
            infos[prev] = self._info("waiting")
        mask = None
        if self.obs_mode == "vector":
            c = self._cached
            if c is None or c[0] != seat or c[1] != st[L.DECISIONS]:
                obs, m = self._observe_arrays(seat)
                c = self._cached = (seat, st[L.DECISIONS], obs, m)
            mask = c[3]                   # in this mode observe() hands out the observation alone
        active = int(st[L.TURN_OWNER]) if self.num_players == 2 else int(st[L.ACTIVE])
        infos[agent] = self._info("turn", decision=int(st[L.PENDING]), active=active, mask=mask,
                                  acting_for=int(st[L.PENDING_FACTION]))

    # ------------------------------------------------------------------ rendering
    def render(self):
        """The text board (`render_mode='ansi'`, returned; `'human'` prints it) or an `800 x 1280 x 3`
        uint8 array (`'rgb_array'`, the `render` extra).
        """
        return render_mode_output(self.game, self.render_mode)

    def close(self) -> None:
        """Nothing to release (the game is an array); kept for PettingZoo's API."""
        pass


def _action_id(action, agent, g) -> int:
    """The action as an int id (v1919_env.actions.action_id); None is only for finished agents."""
    if action is None:
        raise IllegalActionError(f"{agent} must act in phase '{g.decision}'; None is only for finished agents")
    try:
        return action_id(action)
    except IllegalActionError as e:
        raise IllegalActionError(f"{agent}: {e} (phase '{g.decision}')") from None


def env(num_players: int = 4, render_mode: str | None = None, **config) -> raw_env:
    """The AEC environment (no extra wrappers: order, bounds and legality are checked inside)."""
    return raw_env(num_players=num_players, render_mode=render_mode, **config)
