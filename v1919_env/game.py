"""`Game`: the Python facade over the compiled core (one game = one int32 array).

    g = Game.new(num_players=4, seed=0)
    while not g.is_over:
        g.step(g.legal_actions()[0])
    print(g.scores())
"""
from __future__ import annotations

import os
from functools import lru_cache

import numpy as np

from . import actions as codec
from .actions import IllegalActionError, action_id
from .cards import CardDataError, CardSet, file_state, load_card_set
from .core import layout as L
from .core import tables as TB
from .core.scoring import (SC_CONTROLLED, SC_FLAGS, SC_HAPPINESS, SC_ISSUES, SC_LEVEL, SC_STRATEGY, SC_TOTAL, SC_WINNER,
                           SCORE_TABLE_COLS, score_table)
from .core.board import faction_strength
from .core.setup import new_game
from .core.solo import solo_configure
from .core.step import MAX_LEGAL, advance, legal
from v1919_env.cards.names import CardNames, is_int, names_of
from v1919_env.positions.write import FORMAT as POSITION_FORMAT  # noqa: F401  (re-exported)
from v1919_env.positions.write import VERSION as POSITION_VERSION  # noqa: F401  (re-exported)
from v1919_env.positions.write import PositionError  # noqa: F401  (re-exported)
from v1919_env.positions.write import from_dict as _from_dict
from v1919_env.positions.write import to_dict as _to_dict
from .rewards import ranks, tie_breaks
from .seating import parse_seating, seating_names
from .variants import variant_index, variant_names  # noqa: F401  (re-exported)
from v1919_env.core.vocab import NATIONS


GAME_INFO = {
    "name": "versailles1919",
    "num_players": (2, 3, 4),
    "num_actions": codec.NUM_ACTIONS,
    "max_decisions": 20000,          # safety cap (project ruling P-08); random games average ~570
    "chance": "explicit: dice and shuffles drawn from the generator inside the state",
    "information": "imperfect: the issue and event deck orders are hidden (see Game.determinize)",
    "utility": "general-sum scores; the environments' win_loss reward is zero-sum",
}
"""Declared facts about the game (OpenSpiel's GameInfo), checked by the tests."""


def check_players_and_seed(num_players, seed) -> None:
    """The player counts and seeds a game takes (Game.new, and game records on reading); ValueError
    naming the field otherwise."""
    if not is_int(num_players) or num_players not in (1,) + GAME_INFO["num_players"]:
        raise ValueError(f"num_players must be the integer 1 (solitaire), 2, 3 or 4, got {num_players!r}")
    if not is_int(seed) or not 0 <= seed < 2 ** 63:
        raise ValueError(f"seed must be an integer in 0..2**63-1, got {seed!r}")


@lru_cache(maxsize=8)
def _tables(card_set_key, state):
    cs = load_card_set(None if card_set_key == "<standard>" else card_set_key)
    return cs, TB.build(cs)


def card_tables(card_set: str | os.PathLike | None = None) -> tuple[CardSet, np.ndarray]:
    """(CardSet, table vector) for a card-set path (None: the shipped set); cached per path and
    file state (a file edited in place is read again)."""
    path = _card_set_path(card_set)
    return _tables("<standard>" if path is None else path, file_state(path))


def _card_set_path(card_set) -> str | None:
    """The path string of a `card_set` argument: None (the shipped set) or a path (str or os.PathLike).
    Anything else raises CardDataError, the error of every card_set that names no usable card set
    (a missing file, a file that is not a card set): callers that catch it, or ValueError, and the
    command line (one line, no traceback) need no second case for a value of the wrong type."""
    if card_set is None:
        return None
    path = os.fspath(card_set) if isinstance(card_set, (str, os.PathLike)) else None
    if isinstance(path, str):
        return path
    hint = " (pass the path it was loaded from)" if isinstance(card_set, CardSet) else ""
    raise CardDataError(f"card_set must be a card-set path (str or os.PathLike) or None for the shipped set, "
                        f"got {type(card_set).__name__}{hint}")


SOLO_FACTION_NAMES = NATIONS[:L.SOLO_FACTIONS]
"""The solitaire game's factions, in faction (seat) order: uk, france, usa (EN:836)."""


def solo_config(solo: bool, faction, target_vp, negotiation) -> tuple[int, int]:
    """Checked solitaire settings: (faction index or -1, target VP)."""
    if not solo:
        if faction is not None:
            raise ValueError(f"faction is a solitaire setting (num_players=1), got faction={faction!r}")
        if target_vp != L.SOLO_DEFAULT_TARGET:
            raise ValueError(f"target_vp is a solitaire setting (num_players=1), got target_vp={target_vp!r}")
        return -1, 0
    if faction is not None and (not isinstance(faction, str) or faction.lower() not in SOLO_FACTION_NAMES):
        raise ValueError(f"faction must be one of {list(SOLO_FACTION_NAMES)} or None (the faction that goes last), "
                         f"got {faction!r}")
    if not is_int(target_vp) or not 1 <= target_vp <= 999:
        raise ValueError(f"target_vp (the solitaire level) must be an integer in 1..999 (the rules' first game: "
                         f"{L.SOLO_DEFAULT_TARGET}), got {target_vp!r}")
    if negotiation:
        raise ValueError("negotiation is not available in the solitaire game (there is nobody to negotiate with)")
    return (-1 if faction is None else SOLO_FACTION_NAMES.index(faction.lower())), int(target_vp)



def score_rows(tab: np.ndarray, num_players: int) -> list[dict]:
    """Game.scores() of a score table (v1919_env.core.scoring.score_table) of a game of num_players."""
    res = []
    for p, row in enumerate(tab[:num_players].tolist()):
        res.append({"seat": p, "nation": NATIONS[p], "issues": row[SC_ISSUES], "flags": row[SC_FLAGS],
                    "strategy": row[SC_STRATEGY], "happiness": row[SC_HAPPINESS], "total": row[SC_TOTAL],
                    "happiness_level": row[SC_LEVEL], "issues_controlled": row[SC_CONTROLLED],
                    "winner": bool(row[SC_WINNER])})
    for r, rank, tb in zip(res, ranks(res), tie_breaks(res)):
        r["rank"], r["tie_break"] = rank, tb
    return res


class Game:
    """A game of Versailles 1919 (1 to 4 players) over the compiled rules core. The 2-player game
    (UK and France) has the USA as a third faction run by the player whose turn it is.

    The solitaire game (EN:832-966): `Game.new(1, seed=0, faction=None, target_vp=20)`. Three
    factions (UK, France, USA, factions 0-2) are on the board; the one player (seat 0, always the
    `current_player`) controls one of them (`solo_faction`) and the rule bots run the other two
    inside the kernel. `faction` is the faction the player starts with ('uk', 'france', 'usa'; it
    then goes last, EN:872; None: a random turn order and the faction that goes last); `target_vp`
    is the level, the VP that wins ("First Game" 20, raised by 5 after a win, EN:959-963; the rules
    name no other levels). The player scores 1 VP at the start of its faction's turn when that
    faction is the sole strongest and every faction controls an issue (`player_vp`,
    `faction_strengths()`), switches to the weakest faction whenever an issue is unsettled, and wins
    with `player_vp >= target_vp` when the game ends as usual (`won`). Where the bot rules leave a
    choice ("player's choice") the player decides for the bot: `acting_for` is then the bot's
    faction and the legal actions are those the bot rules allow."""

    __slots__ = ("state", "cards", "T", "_buf")

    def __init__(self, state: np.ndarray, cards: CardSet, T: np.ndarray):
        self.state = state
        self.cards = cards
        self.T = T
        self._buf = np.empty(MAX_LEGAL, np.int64)

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, num_players: int = 4, seed: int = 0, variant: str = "standard", negotiation: bool = False,
            card_set: str | None = None, seating=None, faction: str | None = None,
            target_vp: int = L.SOLO_DEFAULT_TARGET) -> "Game":
        """A new game after setup, at the first decision. num_players: 1 (the solitaire game), 2, 3
        or 4; variant: the board's deck variants (standard, longer, even_longer, longest; the earlier
        ids short15 and long10 still work); negotiation: the Negotiations-5 transfer action (not in
        the solitaire game); seating: the players' nations (the solitaire factions) clockwise around
        the table (default UK, France, USA, Italy; the Player's Manual sits ["uk", "usa", "italy",
        "france"]), see v1919_env.seating; faction, target_vp: the solitaire game's starting faction
        and level (see the class docstring)."""
        return cls._setup(num_players, seed, variant, negotiation, card_set, seating, faction, target_vp, run=True)

    @classmethod
    def _setup(cls, num_players, seed, variant, negotiation, card_set, seating, faction, target_vp, run):
        """`new`; with run=False the game stops before its first decision (positions start from it)."""
        check_players_and_seed(num_players, seed)
        if not isinstance(negotiation, (bool, np.bool_)):
            raise ValueError(f"negotiation must be True or False, got {negotiation!r}")
        solo = num_players == 1
        fi, target = solo_config(solo, faction, target_vp, negotiation)
        order = parse_seating(seating, L.SOLO_FACTIONS if solo else int(num_players))
        cs, T = card_tables(card_set)
        vi = variant_index(cs, variant)
        s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
        new_game(s, T, int(num_players), int(seed), vi, int(negotiation))
        s[L.SEATING:L.SEATING + len(order)] = order       # nothing before the first decision uses it
        if solo:
            solo_configure(s, fi, target)
        if run:
            advance(s, T, -1, np.empty(MAX_LEGAL, np.int64))
        return cls(s, cs, T)

    def clone(self) -> "Game":
        """An independent copy of the game: the state array (its random generator included) is
        copied, the read-only card tables are shared."""
        return Game(self.state.copy(), self.cards, self.T)

    # ------------------------------------------------------------------ queries
    @property
    def num_players(self) -> int:
        """Players (seats that decide): 1 (solitaire), 2, 3 or 4."""
        return 2 if self.two_player else (1 if self.solitaire else int(self.state[L.NUM_PLAYERS]))

    @property
    def num_factions(self) -> int:
        """Factions with pieces on the board: the players, plus the USA in the 2-player game; the
        three solitaire factions."""
        return int(self.state[L.NUM_PLAYERS])

    # ------------------------------------------------------------------ the solitaire game
    @property
    def solitaire(self) -> bool:
        """True for the solitaire game (one player, two rule bots)."""
        return int(self.state[L.MODE]) == L.MODE_SOLO

    @property
    def solo_faction(self) -> int:
        """Solitaire: the faction (0 UK, 1 France, 2 USA) the player controls now; -1 otherwise."""
        return int(self.state[L.SOLO_FACTION]) if self.solitaire else -1

    @property
    def player_vp(self) -> int:
        """Solitaire: the player's victory points (EN:877); 0 otherwise."""
        return int(self.state[L.SOLO_VP]) if self.solitaire else 0

    @property
    def target_vp(self) -> int:
        """Solitaire: the level, the VP that wins (EN:959); 0 otherwise."""
        return int(self.state[L.SOLO_TARGET]) if self.solitaire else 0

    @property
    def won(self) -> bool:
        """Solitaire: the player has reached the level (a win once the game is over, EN:959)."""
        return self.solitaire and self.player_vp >= self.target_vp

    def faction_strengths(self) -> list[int]:
        """Faction Strength of the UK, France and the USA (EN:856: stars of the issues each controls +
        1 per own strategy icon on any settled issue); defined for any game, used by the solitaire."""
        return [int(faction_strength(self.state, self.T, p)) for p in range(min(3, self.num_factions))]

    @property
    def seating(self) -> list[str]:
        """The players' nations (the solitaire factions) clockwise around the table, starting with the UK."""
        n = self.num_factions if self.solitaire else self.num_players
        return seating_names(self.state[L.SEATING:L.SEATING + n])

    @property
    def two_player(self) -> bool:
        """True for the 2-player game (UK and France, the USA faction run by the player whose turn it is)."""
        return int(self.state[L.MODE]) == L.MODE_TWO

    @property
    def acting_for(self) -> int:
        """Faction the pending decision is taken for: the USA faction (2) when the 2-player game's
        current player acts for it, else the current player; -1 when the game is over."""
        return -1 if self.is_over else int(self.state[L.PENDING_FACTION])

    @property
    def turn(self) -> int:
        """The turn being played, counting from 1 (the board, the demo log and repr show it; a
        position's `turn` field counts the turns completed, 0 at the start)."""
        return int(self.state[L.TURN_NO]) + 1

    @property
    def current_player(self) -> int:
        """Seat that must decide now (-1 when the game is over)."""
        return -1 if self.is_over else int(self.state[L.PENDING_PLAYER])

    @property
    def active_player(self) -> int:
        """The seat whose turn it is. Another seat may be deciding now (a bid, an uprising
        modifier, an event's choice): that one is `current_player`."""
        return int(self.state[L.ACTIVE])

    @property
    def is_over(self) -> bool:
        """True once the game has ended (scored, or truncated by the safety cap)."""
        return bool(self.state[L.GAME_OVER])

    @property
    def truncated(self) -> bool:
        """True if the engine's safety cap ended the game (rulings A-39), not the rules."""
        return int(self.state[L.GAME_OVER]) == 2

    @property
    def deadlocked(self) -> bool:
        """True if the game ended because no player had a political action left (project ruling P-10)."""
        return int(self.state[L.GAME_OVER]) == 3

    @property
    def decision(self) -> str:
        """Name of the pending decision (e.g. 'turn', 'bid', 'option'); 'game_over' at the end."""
        return "game_over" if self.is_over else L.DECISION_NAMES.get(int(self.state[L.PENDING]), "?")

    @property
    def decisions_taken(self) -> int:
        """How many decisions have been taken so far (automatic steps not counted)."""
        return int(self.state[L.DECISIONS])

    def legal_actions(self) -> np.ndarray:
        """The legal action ids at the current decision (int64), in the engine's order: deterministic,
        but not always ascending (`np.flatnonzero(action_mask())` is). Exact: every id is legal and
        leads somewhere; empty once the game is over."""
        n = legal(self.state, self.T, self._buf)
        return self._buf[:n].copy()

    def action_mask(self) -> np.ndarray:
        """The legal actions as a 0/1 int8 mask over the 694 action ids."""
        m = np.zeros(codec.NUM_ACTIONS, np.int8)
        n = legal(self.state, self.T, self._buf)
        m[self._buf[:n]] = 1
        return m

    # ------------------------------------------------------------------ acting
    def step(self, action: int) -> None:
        """Apply a legal action; an illegal one (or a value that is not an action id, see
        v1919_env.actions.action_id) raises IllegalActionError and changes nothing."""
        try:
            a = action_id(action)
        except IllegalActionError as e:
            raise IllegalActionError(f"{e} (phase '{self.decision}')") from None
        if advance(self.state, self.T, a, self._buf):        # a >= 0: action_id checked the range
            return
        if self.is_over:
            raise IllegalActionError(f"the game is over; no action is legal (got {a})")
        n = legal(self.state, self.T, self._buf)
        listing = "; ".join(f"{int(x)}: {codec.describe(int(x), self)}" for x in self._buf[:min(n, 20)])
        more = f" (and {n - 20} more)" if n > 20 else ""
        what = codec.describe(a, self)
        who = self.seat_name(self.current_player)
        if self.solitaire:
            who = f"the player (controlling {self.seat_name(self.solo_faction)})"
            if self.acting_for != self.solo_faction:
                who += f" deciding for the {self.seat_name(self.acting_for)} bot (solitaire bot rules, EN:888-947)"
        elif self.acting_for != self.current_player:       # the 2-player game's USA faction (EN:791)
            who += f" deciding for the {self.seat_name(self.acting_for)} (2-player USA rules, EN:796-823)"
        raise IllegalActionError(
            f"action {a} ({what}) is not legal in phase '{self.decision}' for {who}"
            f"; legal actions: {listing}{more}")

    def describe(self, action: int) -> str:
        """A readable description of an action id in this game (card and issue names, regions,
        amounts), e.g. for logs and the terminal player."""
        return codec.describe(int(action), self)

    # ------------------------------------------------------------------ scoring
    def scores(self) -> list[dict]:
        """Final-scoring breakdown per seat (valid at any time; final when the game is over), with
        the seat's place in the rules' ranking: `rank` (1 = first; seats equal on total, happiness
        and issues controlled share it, EN:765-769) and `tie_break`, the criterion that puts the seat
        ahead of the one ranked next ('total', 'happiness_level', 'issues_controlled'; 'shared' when
        tied on all three, None for the last). v1919_env.rewards.ranking_key is the one ordering."""
        if self.solitaire:
            return [self._solo_score()]
        tab = np.zeros((L.MAX_PLAYERS, SCORE_TABLE_COLS), np.int64)
        score_table(self.state, self.T, tab)
        return score_rows(tab, self.num_players)

    def _solo_score(self) -> dict:
        """The solitaire player's result: VP against the level (EN:957-961), the faction it controls
        and the factions' strengths."""
        st = self.faction_strengths()
        return {"seat": 0, "nation": NATIONS[self.solo_faction], "total": self.player_vp, "target_vp": self.target_vp,
                "winner": self.won, "strengths": dict(zip(SOLO_FACTION_NAMES, st)), "rank": 1, "tie_break": None}

    # ------------------------------------------------------------------ names (for describe / render)
    def seat_name(self, p: int) -> str:
        """Name of a seat or faction (the 2-player game's USA faction is 2)."""
        return NATIONS[p].upper() if 0 <= p < self.num_factions else "nobody"

    # Names follow the index convention of v1919_env.cards.names: a card by its printed number
    # (1-based, as in the actions and positions) or by name; an option by index (0-based) or name.
    @property
    def names(self) -> CardNames:
        """Name lookups of this game's card set (and names of the state's 0-based indices)."""
        return names_of(self.cards)

    def issue_name(self, card) -> str:
        """Name of an issue given by card number (1..53) or name."""
        return self.names.issue_at(self.names.issue(card))

    def event_name(self, card) -> str:
        """Name of an event given by card number (1..46) or name."""
        return self.names.event_at(self.names.event(card))

    def strategy_name(self, card) -> str:
        """Name of a strategy card given by card number (1..10) or name."""
        return self.names.strategy_at(self.names.strategy(card))

    def option_name(self, issue, option) -> str:
        """Name of an option (index 0.. or name) of an issue (card number or name)."""
        i = self.names.issue(issue)
        return self.cards.issue(i + 1)["options"][self.names.option(i, option)]["name"]

    def slot_issue(self, sl: int):
        """The issue (0-based index) on table slot `sl`, or None when the slot is empty."""
        i = int(self.state[L.SLOT_ISSUE + sl])
        return None if i < 0 else i

    def waiting_event(self, w: int):
        """The event (0-based index) waiting in slot `w`, or None when the slot is empty."""
        e = int(self.state[L.EV_WAIT + w])
        return None if e < 0 else e

    def option_issue(self):
        """Issue whose option is being chosen, if that is the pending decision."""
        if self.state[L.PENDING] in (L.D_OPTION, L.D_NAVAL):
            return int(self.state[L.STACK + (self.state[L.SP] - 1) * L.FRAME_W + L.F_A0])
        return None

    def exhausted_military(self, seat: int) -> int:
        """Units of `seat` in its Exhausted box."""
        return int(self.state[L.MIL_EXH + seat]) if 0 <= seat < self.num_players else 0

    def exhausted_influence(self, faction: int) -> int:
        """Cubes of a seat or faction in its Exhausted box."""
        return int(self.state[L.INF_EXH + faction]) if 0 <= faction < self.num_factions else 0

    def uprising_region(self):
        """Region (0-4) of the uprising check being resolved or announced for, else None."""
        if self.is_over:
            return None
        r = int(self.state[L.UP_REGION])
        in_check = any(int(self.state[L.STACK + k * L.FRAME_W + L.F_PROC]) == L.P_UPRISING
                       for k in range(int(self.state[L.SP])))
        return r if in_check and r >= 0 else None

    # ------------------------------------------------------------------ hidden information
    def determinize(self, seed: int) -> "Game":
        """A copy whose hidden information (the order of the issue and event decks, the dice) is
        resampled consistently with what every player can see (for search agents). The compiled
        core/tree.py `determinize` does it from a canonical order, so the copy depends only on the
        seed and the visible game, never on the hidden order it replaces."""
        from .core.bots import seed_policy_rng
        from .core.tree import determinize

        g = self.clone()
        determinize(g.state, self.T, seed_policy_rng(int(seed) & 0x7FFFFFFFFFFFFFFF))
        return g

    def information_set(self, seat: int, seed: int) -> "Game":
        """The game as `seat` may know it, for handing to an agent: a copy whose hidden information
        is resampled by `determinize(seed)`. In this game every seat sees the same things (the hidden
        information is the deck orders and the dice, which nobody sees), so the copy is the same for
        every seat; `seed` must come from the caller (the arena), never from the agent. Nothing of
        the real hidden order survives in the copy (determinize starts from a canonical order), so an
        agent that reads the copy's decks or generator learns only what it could see anyway."""
        if not 0 <= int(seat) < max(self.num_players, 1):
            raise ValueError(f"seat must be in 0..{self.num_players - 1}, got {seat!r}")
        return self.determinize(seed)

    # ------------------------------------------------------------------ positions
    def to_dict(self) -> dict:
        """The readable, versioned JSON position (v1919_env.positions.write)."""
        return _to_dict(self)

    @classmethod
    def from_dict(cls, d: dict, card_set=None) -> "Game":
        """A game from a position (fields left out take their setup defaults); card_set: the path
        of the cards it was made with, as for Game.new (checked against the position's label and
        content digest)."""
        return _from_dict(cls, d, card_set)

    def render(self) -> str:
        """The text board: turn, decision, the issues with their cubes, the regions, every
        player's influence, units and happiness."""
        from v1919_env.view.text import render_text
        return render_text(self)

    def to_svg(self) -> str:
        """The board as an SVG document: regions, issues, events, players, happiness, the pending decision."""
        from v1919_env.view.svg import board_svg
        return board_svg(self)

    def __repr__(self) -> str:
        if self.solitaire:
            return (f"Game(solitaire as {self.seat_name(self.solo_faction)}, {self.player_vp}/{self.target_vp} VP, "
                    f"turn {self.turn}, {self.decision} for {self.seat_name(self.acting_for)}, "
                    f"cards {self.cards.label})")
        return (f"Game({self.num_players}p, turn {self.turn}, {self.decision} by "
                f"{self.seat_name(self.current_player)}, cards {self.cards.label})")

    def __eq__(self, other) -> bool:
        return isinstance(other, Game) and np.array_equal(self.state, other.state)

    __hash__ = None


HAND_OFF_KEY = 0x1919_A7E4A
"""Mixed with a game seed into the generator of the seeds of the copies handed to agents."""


def hand_off_rng(game_seed: int) -> np.random.Generator:
    """The generator of the seeds of a game's hand-off copies (Game.information_set): from the game
    seed, so a game replays exactly, and never from anything an agent chooses."""
    return np.random.default_rng([int(game_seed) & ((1 << 63) - 1), HAND_OFF_KEY])
