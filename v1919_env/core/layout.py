"""The game state: one flat int32 array. Every offset is named here, once.

Copying the array copies the game, its random-number generator included. Seats are
0..num_players-1 and play the nations of vocab.PLAYER_NATIONS (seat = nation index, so the rules'
nations need no lookup); SEATING says how they sit around the table, clockwise.
"""
from __future__ import annotations

import numpy as np

from .vocab import COUNTERS, NATIONS, REGIONS

N_REGIONS = len(REGIONS)
N_NATIONS = len(NATIONS)
N_COUNTERS = len(COUNTERS)
MAX_PLAYERS = 4
N_ISSUES = 53
N_EVENTS = 46
N_STRATEGIES = 10
N_SLOTS = 5            # issue slots: 0-1 on the table, 2-4 in the waiting room
N_TABLE = 2
N_EV_WAIT = 2
MAX_FORCED = 64
FRAME_W = 10           # proc, step, a0..a7
MAX_FRAMES = 24
STATE_VERSION = 1
MAX_LEGAL = 1024       # capacity of a legal-action buffer

_layout: list[tuple[str, int]] = []
_off = 0


def _f(name: str, n: int = 1) -> int:
    global _off
    o = _off
    _layout.append((name, n))
    _off += n
    return o


# --- game-wide
VERSION = _f("version")
NUM_PLAYERS = _f("num_players")
VARIANT = _f("variant")                  # deck variant index (board.deck_variants)
NEGOTIATION = _f("negotiation")          # 1: the negotiation-transfer variant is on
MODE = _f("mode")                        # MODE_STANDARD (3-4 players), MODE_TWO (2 + the USA faction), MODE_SOLO
TURN_OWNER = _f("turn_owner")            # MODE_TWO: the player whose turn it is (runs the USA, EN:785-795)
SOLO_FACTION = _f("solo_faction")        # MODE_SOLO: the faction the player controls now (EN:836-838)
SOLO_VP = _f("solo_vp")                  # MODE_SOLO: the player's victory points (EN:877-881)
SOLO_TARGET = _f("solo_target")          # MODE_SOLO: the VP level that wins (EN:959-961)
FIRST_PLAYER = _f("first_player")
SEATING = _f("seating", MAX_PLAYERS)     # the seats clockwise, starting with seat 0 (board.clockwise)
ACTIVE = _f("active")                    # whose turn it is
TURN_NO = _f("turn_no")
DECISIONS = _f("decisions")              # decisions taken so far (safety cap, rulings A-39)
GAME_OVER = _f("game_over")              # 1 ended by the rules, 2 truncated by the safety cap, 3 deadlock
PASS_STREAK = _f("pass_streak")          # consecutive turns that passed the political action (project P-10)
PENDING = _f("pending")                  # decision kind now pending (D_*), 0 none
PENDING_PLAYER = _f("pending_player")    # seat that decides it
PENDING_FACTION = _f("pending_faction")  # faction it is decided for (the USA faction in MODE_TWO, else the seat)
POL_DONE = _f("pol_done")
MIL_DONE = _f("mil_done")
RNG = _f("rng", 2)                       # xorshift64* state as two 32-bit halves
FORCED_N = _f("forced_n")
FORCED_POS = _f("forced_pos")
FORCED = _f("forced", MAX_FORCED)        # forced die results, used before the generator
# --- nations and players
HAPPY = _f("happiness", N_NATIONS)
INF_AVAIL = _f("inf_avail", MAX_PLAYERS)
INF_EXH = _f("inf_exh", MAX_PLAYERS)
MIL_AVAIL = _f("mil_avail", MAX_PLAYERS)
MIL_EXH = _f("mil_exh", MAX_PLAYERS)
MIL_DEMOB = _f("mil_demob", MAX_PLAYERS)
DEP_COL = _f("dep_col", MAX_PLAYERS * N_REGIONS)   # column of the seat's unit in a region, 0 = none
DEMOB_NEXT = _f("demob_next")            # next free demobilize space (index into the seat-count list)
PLAYER_STRAT = _f("player_strat", MAX_PLAYERS)     # strategy card index or -1
STRAT_DEALT = _f("strat_dealt", MAX_PLAYERS + 1)   # dealt strategy card indices or -1
DRAFT_DONE = _f("draft_done")
# --- regions
UNREST = _f("unrest", N_REGIONS)         # column 1..8
KEG = _f("keg", N_REGIONS)               # 0 = start box, 1..3
# --- issues
SLOT_ISSUE = _f("slot_issue", N_SLOTS)   # issue index or -1
SLOT_CUBES = _f("slot_cubes", N_SLOTS * MAX_PLAYERS)
ISSUE_DECK = _f("issue_deck", N_ISSUES)  # bottom first; top = ISSUE_DECK[ISSUE_DECK_N-1]
ISSUE_DECK_N = _f("issue_deck_n")
ISSUE_DISC = _f("issue_disc", N_ISSUES)  # bottom first; top = last
ISSUE_DISC_N = _f("issue_disc_n")
ISSUE_CTRL = _f("issue_ctrl", N_ISSUES)  # controlling seat of a settled issue, -1 otherwise
ISSUE_OPT = _f("issue_opt", N_ISSUES)    # chosen option, -1 none
ISSUE_NAVAL_UK = _f("issue_naval_uk", N_ISSUES)  # UK-or-USA naval counters placed as UK
# --- events
EV_DECK = _f("ev_deck", N_EVENTS)
EV_DECK_N = _f("ev_deck_n")
EV_DISC = _f("ev_disc", N_EVENTS)
EV_DISC_N = _f("ev_disc_n")
EV_TABLE = _f("ev_table")                # event on the table, -1 none
EV_CUBE = _f("ev_cube")                  # seat whose cube is on it, -1 none
EV_WAIT = _f("ev_wait", N_EV_WAIT)
# --- procedure registers
SETTLING = _f("settling")                # issue being settled, -1 none
SETTLE_GAINED = _f("settle_gained")      # bit mask of regions that gained unrest from its option
DRAWN = _f("drawn", 2)                   # the two issues drawn in settle step 4
BID_ISSUE = _f("bid_issue")
BID_HIGH = _f("bid_high")                # seat of the standing high bid, -1 none
BID_STR = _f("bid_str")
BID_INF = _f("bid_inf")
BID_INREG = _f("bid_inreg")
BID_NAVAIL = _f("bid_navail")
BID_PASSED = _f("bid_passed")            # bit mask of seats that passed
BID_TURN = _f("bid_turn")                # seat to bid next
UP_MASK = _f("up_mask")                  # regions determined by the current uprising check
UP_MOD = _f("up_mod", N_REGIONS)         # announced die modifiers per region
UP_SEQ = _f("up_seq")                    # next (region, announcer) pair to ask
UP_RISEN = _f("up_risen")                # regions with an uprising
UP_REGION = _f("up_region")              # region being resolved
UP_UNSETTLED = _f("up_unsettled")        # 1 if an issue was unsettled by this check
UP_TIED = _f("up_tied")                  # mask of seats tied for most issues
DRAFT_ORDER = _f("draft_order", MAX_PLAYERS)
EV_ITER = _f("ev_iter")                  # event: index of the seat now acting in an each-player op, -1
EV_CUR = _f("ev_cur")                    # event: that seat
EV_REG = _f("ev_reg")                    # event: region picked for the current op, -1
EV_SIGN = _f("ev_sign")                  # event: +1 / -1 picked for the current op, 0 not yet
EV_REGMASK = _f("ev_regmask")            # event: regions offered by the pending region choice
EV_STAGE = _f("ev_stage")                # event: progress inside the current op
RET = _f("ret")                          # a finished sub-procedure's result for its caller
# --- the frame stack
SP = _f("sp")
STACK = _f("stack", MAX_FRAMES * FRAME_W)

STATE_SIZE = _off
LAYOUT = tuple(_layout)
STATE_DTYPE = np.int32

# game modes (MODE) and the USA faction of the 2-player game (EN:771-830)
MODE_STANDARD = 0
MODE_SOLO = 1          # the solitaire game: three factions, one the player's, two bots (EN:832-966)
MODE_TWO = 2
SOLO_FACTIONS = 3      # UK, France, USA (EN:836)
SOLO_DEFAULT_TARGET = 20   # "First Game: If the player has 20 or more VP they win" (EN:959)
USA_FACTION = 2        # the USA's seat index: its cubes, issues and happiness slots (vocab.NATIONS)

# frame slots
F_PROC, F_STEP = 0, 1
F_A0 = 2

# procedures (frame proc ids)
P_TURN = 1
P_SETTLE = 2
P_UPRISING = 3
P_BID = 4
P_DRAFT = 5
P_EVENT = 6
P_MUTINY = 7
P_OPTION = 8           # choose and apply an issue option (settle, uprising, unsettle)
P_SWITCH = 9           # solitaire: the player switches to the weakest faction (EN:949-953)

# decision kinds (PENDING)
D_NONE = 0
D_TURN = 1            # political / military action or end turn
D_PLACE2 = 2          # second placement of Place Influence
D_OPTION = 3
D_NAVAL = 4
D_EVENT_CUBE = 5      # place a cube on the event moved to the table?
D_ADV_ISSUE = 6
D_ADV_EVENT = 7
D_ADD_ISSUE = 8
D_KEEP = 9
D_MODIFIER = 10
D_AFFECTED = 11       # choose the affected player among tied ones (uprising)
D_UPRISING_ISSUE = 12
D_BID = 13
D_DRAFT = 14
D_OPTIONAL = 15       # accept or decline an optional conference event
D_CHOOSE_PLAYER = 16
D_CHOOSE_REGION = 17
D_BRANCH = 18
D_SIGN = 19
D_UNSETTLE = 20       # choose a settled issue to unsettle
D_WAITING_ISSUE = 21  # choose a waiting-room issue (clear its cubes)
D_DEPLOY = 22         # event deploy action
D_DEMOB = 23          # demobilize action (event)
D_MUTINY = 24
D_TO_AVAIL = 25
D_TO_EXH = 26
D_CHOOSE_FACTION = 27  # solitaire: the weakest faction to take (P_SWITCH, EN:951) or the bot whose equal bid
                       # wins (P_BID, EN:947); actions choose_player

DECISION_NAMES = {v: k[2:].lower() for k, v in dict(globals()).items()
                  if k.startswith("D_") and isinstance(v, int)}
DECISION_LIST = [DECISION_NAMES.get(k, "?") for k in range(max(DECISION_NAMES) + 1)]
"""Decision names indexed by kind (a list, for fast lookups in the environments)."""


def offsets() -> dict[str, tuple[int, int]]:
    """Name -> (offset, length) for every field (for views, rendering and to_dict)."""
    out, o = {}, 0
    for name, n in LAYOUT:
        out[name] = (o, n)
        o += n
    return out
