"""Versailles 1919 as an OpenSpiel game (needs the `openspiel` extra).

    import pyspiel, v1919_env.openspiel_game            # importing registers the game
    game = pyspiel.load_game("versailles1919", {"players": 3, "variant": "longer"})
    state = game.new_initial_state()                    # the deal: a chance node
    state.apply_action(7)                               # deal 7 = Game.new(seed=7)

The compiled core stays the engine: a state holds one `Game` and this module only translates
(legal actions, action strings from `actions.describe`, tensors from the observation kernel,
serialization as a `Game.to_dict` position with the exact state array it is checked against,
returns from `rewards.terminal_rewards`).

Chance: one explicit chance node, the deal, whose outcome k (uniform over NUM_DEALS) is the game
seed; the engine then shuffles and rolls from the generator inside the state, so every later state
is a function of the history. The hidden part (deck orders, generator) is resampled by
`resample_from_infostate`, built on `Game.determinize`. docs/openspiel.md says why (in short: the
core rolls dice inside a player's action, and OpenSpiel's Python games cannot serialize a
sampled-stochastic game).

Bots: OpenSpiel's Python ISMCTSBot plays it (`ISMCTSBot` here adds what both evaluate_bots need);
the C++ `pyspiel.ISMCTSBot` cannot play any Python game in OpenSpiel 2.0.2 (docs/openspiel.md).
"""
from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
import pyspiel
from numba import njit
from open_spiel.python.algorithms import ismcts

from v1919_env.core import layout as L
from v1919_env.core.actions import NUM_ACTIONS, IllegalActionError, action_id
from v1919_env.core.observe import OBS_SIZE, OBS_SLICES, observe
from v1919_env.game import GAME_INFO, Game, card_tables
from v1919_env.variants import variant_index
from v1919_env.view.text import render_text
from v1919_env.rewards import REWARD_KINDS, terminal_rewards
from v1919_env.core.vocab import NATIONS

SHORT_NAME = GAME_INFO["name"]
NUM_DEALS = 2 ** 16
"""Outcomes of the deal chance node: deal k plays Game.new(seed=k)."""
DEFAULT_PARAMS = {"players": 4, "variant": "standard", "negotiation": False, "card_set": "", "reward": "win_loss"}
"""Game parameters and their defaults; card_set "" is the shipped set, reward one of rewards.REWARD_KINDS."""
_ZERO_SUM_REWARDS = ("win_loss", "rank")

# The public part of the state array: everything but the generator, the forced-dice queue and the
# deck orders (DESIGN.md, hidden information), as [start, stop) spans.
_HIDDEN = sorted(L.offsets()[k] for k in ("rng", "forced_n", "forced_pos", "forced", "issue_deck", "ev_deck"))
_PUBLIC_SPANS = np.array([(a, b) for a, b in zip([0] + [o + n for o, n in _HIDDEN], [o for o, _ in _HIDDEN]
                                                  + [L.STATE_SIZE]) if b > a], np.int64)
_NO_HISTORY = (0, 0)
_DEAL_MARK = 0xFFFF
_MASK64 = 2 ** 64 - 1


def _deal_id(k) -> int:
    """A deal outcome, by the rule of `actions.action_id` (a Python int or numpy integer, a 0-d
    integer array too; not a bool) but in 0..NUM_DEALS-1; anything else raises IllegalActionError."""
    if isinstance(k, np.ndarray) and k.shape == () and k.dtype.kind in "iu":
        k = k[()]
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise IllegalActionError(f"a deal outcome must be an integer id (int or numpy integer), got {k!r} "
                                 f"of type {type(k).__name__}")
    if not 0 <= k < NUM_DEALS:
        raise IllegalActionError(f"deal outcome {k} is out of range 0..{NUM_DEALS - 1}")
    return int(k)


@njit(cache=True)
def _chain(h0, h1, action, s, spans):
    """Fold `action` and the public part of state `s` into the 128-bit digest (h0, h1): two
    FNV-1a-style 64-bit lanes with different primes (carried as int64 bit patterns)."""
    a = np.uint64(h0) ^ np.uint64(action)
    b = np.uint64(h1) ^ (np.uint64(action) * np.uint64(0x9E3779B97F4A7C15))
    for k in range(spans.shape[0]):
        for i in range(spans[k, 0], spans[k, 1]):
            v = np.uint64(np.uint32(s[i]))
            a = (a ^ v) * np.uint64(0x100000001B3)
            b = (b ^ (v + np.uint64(i))) * np.uint64(0xFF51AFD7ED558CCD)
            b ^= b >> np.uint64(29)
    return np.int64(a), np.int64(b)


def _game_type(utility) -> pyspiel.GameType:
    lo, hi = min(GAME_INFO["num_players"]), max(GAME_INFO["num_players"])
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="Versailles 1919",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi, min_num_players=lo,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=DEFAULT_PARAMS)


GAME_TYPE = _game_type(pyspiel.GameType.Utility.GENERAL_SUM)
"""As registered: general-sum (score_margin is); an instance with a zero-sum reward kind says ZERO_SUM."""


def _checked_params(params) -> dict:
    p = dict(DEFAULT_PARAMS, **(params or {}))
    unknown = set(p) - set(DEFAULT_PARAMS)
    if unknown:
        raise ValueError(f"unknown {SHORT_NAME} parameter(s) {sorted(unknown)}; parameters: {sorted(DEFAULT_PARAMS)}")
    lo, hi = min(GAME_INFO["num_players"]), max(GAME_INFO["num_players"])
    if type(p["players"]) is not int or not lo <= p["players"] <= hi:
        raise ValueError(f"players must be an integer in {lo}..{hi} (the solitaire rules are not "
                         f"implemented yet), got {p['players']!r}")
    if type(p["negotiation"]) is not bool:
        raise ValueError(f"negotiation must be true or false, got {p['negotiation']!r}")
    if p["reward"] not in REWARD_KINDS:
        raise ValueError(f"reward must be one of {REWARD_KINDS}, got {p['reward']!r}")
    if not isinstance(p["card_set"], str):
        raise ValueError(f"card_set must be a path string ('' for the shipped set), got {p['card_set']!r}")
    cs, _ = card_tables(p["card_set"] or None)
    variant_index(cs, p["variant"])
    return p


class VersaillesGame(pyspiel.Game):
    """The OpenSpiel game: `pyspiel.load_game("versailles1919", params)` (see DEFAULT_PARAMS)."""

    def __init__(self, params=None):
        p = _checked_params(params)
        self.p = p
        zero_sum = p["reward"] in _ZERO_SUM_REWARDS
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_DEALS, num_players=p["players"],
            min_utility=-1.0, max_utility=1.0, utility_sum=0.0 if zero_sum else None,
            max_game_length=GAME_INFO["max_decisions"])
        utility = pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        super().__init__(_game_type(utility), info, p)

    def new_initial_state(self):
        """The deal (a chance node)."""
        return VersaillesState(self, _Engine(None, _NO_HISTORY))

    def state_from_game(self, g: Game):
        """A state playing a copy of an existing `Game` (e.g. one loaded by Game.from_dict); its
        OpenSpiel history is empty and its public-history digest starts at this position."""
        if g.num_players != self.p["players"] or g.cards.label != card_tables(self.p["card_set"] or None)[0].label:
            raise ValueError(f"the position has {g.num_players} players and card set {g.cards.label}; this game "
                             f"has {self.p['players']} and {self.p['card_set'] or 'the shipped set'}")
        e = _Engine(g.clone(), _NO_HISTORY)
        e.extend(_DEAL_MARK)
        return VersaillesState(self, e)

    def deal(self, k: int) -> Game:
        """The `Game` that deal outcome k starts."""
        p = self.p
        return Game.new(p["players"], seed=_deal_id(k), variant=p["variant"], negotiation=p["negotiation"],
                        card_set=p["card_set"] or None)

    def max_chance_nodes_in_history(self):
        return 1

    def make_py_observer(self, iig_obs_type=None, params=None):
        return VersaillesObserver(iig_obs_type, params)


@lru_cache(maxsize=1)
def _deal_outcomes() -> list:
    return [(k, 1.0 / NUM_DEALS) for k in range(NUM_DEALS)]


class _Engine:
    """The `Game` behind one OpenSpiel state (None before the deal) and its public-history digest.

    OpenSpiel's C++ `Clone` makes a new initial state and deep-copies the Python attributes, and its
    `Serialize` pickles them: so this holder deep-copies by `Game.clone` and pickles as a position."""

    __slots__ = ("g", "history")

    def __init__(self, g, history: tuple):
        self.g = g
        self.history = history

    def extend(self, action: int) -> None:
        self.history = _chain(self.history[0], self.history[1], action, self.g.state, _PUBLIC_SPANS)

    def __deepcopy__(self, memo):
        return _Engine(None if self.g is None else self.g.clone(), self.history)

    def __reduce__(self):
        g = self.g
        payload = {"history": list(self.history), "position": None if g is None else g.to_dict()}
        if g is not None:
            # the array makes the copy exact to the bit (slots past a pile's end included, which the
            # position leaves out); the position is the readable record it is checked against
            payload["state"] = g.state.tolist()
            payload["card_set"] = g.cards.source
        return _engine_from_json, (json.dumps(payload, sort_keys=True),)


def _engine_from_json(text: str) -> _Engine:
    d = json.loads(text)
    g = None
    if d["position"] is not None:
        cs, T = card_tables(None if d["card_set"] == card_tables(None)[0].source else d["card_set"])
        g = Game(np.asarray(d["state"], L.STATE_DTYPE), cs, T)
        if g.to_dict() != d["position"]:
            raise ValueError("serialized state: the state array does not match its position")
    return _Engine(g, tuple(d["history"]))


class VersaillesState(pyspiel.State):
    """One OpenSpiel state over one `Game` (`engine_game`; None at the deal)."""

    def __init__(self, game, engine: _Engine):
        super().__init__(game)
        self._eng = engine

    @property
    def engine_game(self):
        """The underlying `Game` (the live object: clone it before changing it); None at the deal."""
        return self._eng.g

    def current_player(self):
        g = self._eng.g
        if g is None:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if g.state[L.GAME_OVER] else int(g.state[L.PENDING_PLAYER])

    def _legal_actions(self, player):
        return np.sort(self._eng.g.legal_actions()).tolist()

    def chance_outcomes(self):
        return _deal_outcomes()

    # pyspiel's binding refuses floats but turns a bool or anything with __index__ or __int__ into a
    # C++ integer before our `_apply_action` sees it (Decimal("2.7") and Fraction(5, 2) become 2,
    # True becomes 1), so the public methods that take an action check it first, by the one rule of
    # an action id (docs/openspiel.md).
    def _checked(self, action, chance: bool) -> int:
        return _deal_id(action) if chance else action_id(action)

    def apply_action(self, action):
        """pyspiel's apply_action, the action checked first (actions.action_id; a deal in 0..NUM_DEALS-1)."""
        pyspiel.State.apply_action(self, self._checked(action, self._eng.g is None))

    def apply_action_with_legality_check(self, action):
        """pyspiel's, the action checked first as by apply_action."""
        pyspiel.State.apply_action_with_legality_check(self, self._checked(action, self._eng.g is None))

    def child(self, action):
        """pyspiel's child (a copy with the action applied), the action checked first as by apply_action."""
        return pyspiel.State.child(self, self._checked(action, self._eng.g is None))

    def action_to_string(self, *args):
        """pyspiel's action_to_string(action) or action_to_string(player, action), the action checked
        first (a chance action as a deal outcome)."""
        if len(args) not in (1, 2):
            raise TypeError(f"action_to_string takes (action) or (player, action), got {len(args)} arguments")
        player = args[0] if len(args) == 2 else self.current_player()
        chance = player == pyspiel.PlayerId.CHANCE
        return pyspiel.State.action_to_string(self, player, self._checked(args[-1], chance))

    def _apply_action(self, action):
        e = self._eng
        if e.g is None:
            e.g = self.get_game().deal(action)
            e.extend(_DEAL_MARK)
        else:
            e.g.step(action)
            e.extend(action)

    def _apply_actions(self, actions):
        raise IllegalActionError(f"{SHORT_NAME} is a sequential game: apply_actions (a joint action for a "
                                 f"simultaneous node) does not apply, got {list(actions)}; use apply_action")

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action} (game seed {action})"
        if self._eng.g is None:
            raise IllegalActionError(f"before the deal only the chance player (-1) acts, got player {player}")
        return self._eng.g.describe(action)

    def is_terminal(self):
        g = self._eng.g
        return g is not None and g.is_over

    def returns(self):
        g = self._eng.g
        if g is None or not g.is_over:
            return [0.0] * self.get_game().num_players()
        return terminal_rewards(g.scores(), self.get_game().p["reward"])

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state the player cannot tell from this one: same public history, hidden deck orders and
        generator resampled by Game.determinize (seeded from the sampler). Every card and every die
        is public when it shows, so this is the same for every player."""
        st = self.clone()
        if self._eng.g is not None:
            seed = int(probability_sampler() * 2 ** 53)
            st._eng = _Engine(self._eng.g.determinize(seed), self._eng.history)
        return st

    def __str__(self):
        g = self._eng.g
        return "Versailles 1919: before the deal" if g is None else _full_text(g)


_TEXT_CACHE: dict = {}
_TEXT_CACHE_SIZE = 256


def _board_text(g: Game) -> str:
    """render_text(g), remembered for the last few hundred positions: OpenSpiel asks for the same
    position's strings many times (ToString of a state and its clones, observation strings)."""
    key = (g.cards.source, g.cards.label, g.state.tobytes())
    text = _TEXT_CACHE.get(key)
    if text is None:
        if len(_TEXT_CACHE) >= _TEXT_CACHE_SIZE:
            _TEXT_CACHE.pop(next(iter(_TEXT_CACHE)))
        text = _TEXT_CACHE[key] = render_text(g)
    return text


def _full_text(g: Game) -> str:
    """The board and the hidden part (deck orders, generator): OpenSpiel's ToString is the whole state."""
    s = g.state
    ev_names = {r["number"] - 1: r["name"] for r in g.cards.raw["events"]}
    issues = [g.names.issue_at(x) for x in s[L.ISSUE_DECK:L.ISSUE_DECK + int(s[L.ISSUE_DECK_N])]]
    events = [ev_names[int(x)] for x in s[L.EV_DECK:L.EV_DECK + int(s[L.EV_DECK_N])]]
    return (_board_text(g) + f"\nHidden: issue deck (bottom first) {issues}; event deck {events}; "
            f"generator {[int(x) for x in s[L.RNG:L.RNG + 2]]}")


class VersaillesObserver:
    """OpenSpiel's PyObserver: the tensor is our observation vector (the observing seat first, the
    others clockwise; named pieces from OBS_SLICES), the string is the text board (observation) or
    the public-history digest (perfect recall: the information state)."""

    def __init__(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        # Everything a seat sees is public (the deck orders are hidden from everyone): an observer
        # of private information only gets nothing.
        self.public = iig_obs_type is None or iig_obs_type.public_info
        self.perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        self.tensor = np.zeros(OBS_SIZE if self.public else 0, np.float32)
        self.dict = {}
        if self.public:
            o = 0
            for name, size, _ in OBS_SLICES:
                self.dict[name] = self.tensor[o:o + size]
                o += size

    def set_from(self, state, player):
        g = state._eng.g
        if not self.public:
            return
        if g is None:
            self.tensor.fill(0.0)
        else:
            observe(g.state, g.T, player, self.tensor)

    def string_from(self, state, player):
        if not self.public:
            return ""
        e = state._eng
        who = f"{NATIONS[player].upper()} (seat {player})"
        if e.g is None:
            return f"{who} before the deal"
        if self.perfect_recall:
            return (f"{who} after {e.g.decisions_taken} decisions, public history "
                    f"{e.history[0] & _MASK64:016x}{e.history[1] & _MASK64:016x}")
        return f"Observer: {who}\n{_board_text(e.g)}"


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTSBot (same arguments), ready for both `evaluate_bots`.

    Upstream it lacks `restart_at`, which `open_spiel.python.algorithms.evaluate_bots` always calls
    and `pyspiel.evaluate_bots` calls from a state past the start; its search keeps nothing between
    decisions, so restarting just clears the tree. Its worlds are resampled from its own
    `random_state` (upstream: a clock-seeded sampler), so a seeded bot plays the same every run."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.set_resampler(self._resample)

    def _resample(self, state, player):
        return state.resample_from_infostate(player, self.random_number)

    def restart(self):
        self.reset()

    def restart_at(self, state):
        self.reset()


pyspiel.register_game(GAME_TYPE, VersaillesGame)
