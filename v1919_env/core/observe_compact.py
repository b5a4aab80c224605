"""The compact observation: the same public view as `observe.py` in 1,596 floats instead of 2,032, as
rows of entities (issues, events, regions, seats) that a network can share weights over.

What it leaves out of the full observation: the one-hot "nobody" columns of unsettled issues and the
counters of each settled issue one by one (they follow from its card, option and naval flag; their
totals are in `counters_in_play`). Version 2: each issue's and event's row says which slot it sits in
and each drawn issue which of the two it is (the actions name slots and `keep` names the first or
second: in version 1 a network could not tell which of two table issues `place` or `settle` meant),
a settled issue's option and naval flag, and every seat's cubes on an issue (version 1: the observing
seat's and the most of another's). `COMPACT_SLICES` is the single
source of the layout; `docs/observation.md` is generated from it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (BID_ISSUE, D_KEEP, DEP_COL, DRAWN, EV_CUBE, EV_TABLE, EV_WAIT, GAME_OVER, HAPPY, INF_AVAIL,
                     INF_EXH, ISSUE_CTRL, ISSUE_DISC, ISSUE_DISC_N, ISSUE_NAVAL_UK, ISSUE_OPT, KEG, MAX_PLAYERS,
                     MIL_AVAIL, MIL_DEMOB, MIL_EXH, N_COUNTERS, N_EVENTS, N_ISSUES, N_NATIONS, N_REGIONS, N_SLOTS,
                     N_STRATEGIES, PENDING, PLAYER_STRAT, SEATING, SLOT_CUBES, SLOT_ISSUE, UNREST, UP_REGION)
from .observe import (N_DECISIONS, R, _relp, add_settled_counters, pending_context, point_of_view, slice_offsets,
                      write_bid, write_nations, write_progress)
from .stack import stack_empty
from .tables import T_ISSUE_STARS

# The slot columns say which slot an issue or event sits in: the actions name slots (place, settle,
# advance_issue, advance_event), so a policy needs the slot, not only table or waiting room (version 2).
ISSUE_ROW = ("in table slot 0", "in table slot 1", "in waiting-room slot 0", "in waiting-room slot 1",
             "in waiting-room slot 2", "discarded: 1 on top of the discards, 2/3 second, 1/3 third",
             "settled, controlled by relative seat 0", "... by relative seat 1", "... by relative seat 2",
             "... by relative seat 3", "settled with option 1", "... option 2", "... option 3", "... option 4",
             "its UK-or-USA naval counters placed as UK", "drawn first (keep which=0)", "drawn second (keep which=1)",
             "being settled, its option being chosen, or at stake in the bidding",
             "cubes on it / 15 of relative seat 0", "... of relative seat 1", "... of relative seat 2",
             "... of relative seat 3")
EVENT_ROW = ("on the table", "in waiting slot 0", "in waiting slot 1")
I_SLOT, I_DISC, I_CTRL = 0, N_SLOTS, N_SLOTS + 1            # issue row columns (ISSUE_ROW)
I_OPT = I_CTRL + MAX_PLAYERS
I_NAVAL = I_OPT + 4
I_DRAWN = I_NAVAL + 1
I_PEND = I_DRAWN + 2
I_CUBES = I_PEND + 1
E_TABLE, E_WAIT = 0, 1                                       # event row columns (EVENT_ROW)
REGION_ROW = tuple(f"unrest column {c}" for c in range(1, 9)) + tuple(f"powder keg {k}" for k in range(4)) + \
    tuple(f"unit of relative seat {k}: (column - 4) / 4, 0 if none" for k in range(MAX_PLAYERS)) + \
    ("the uprising check being announced for or resolved is here",)
SEAT_ROW = ("in play", "available cubes / 15", "exhausted cubes / 15", "available units / 3", "exhausted units / 3",
            "demobilized units / 3", "happiness / 30", "stars of settled issues controlled / 50") + \
    ("UK", "France", "USA", "Italy", "Japan") + tuple(f"strategy card {k}" for k in range(N_STRATEGIES))

COMPACT_SLICES = (
    ("decision", N_DECISIONS, "kind of the pending decision (one-hot, the full observation's DECISION_NAMES)"),
    ("decider", R, "relative seat the pending decision is for (as the full observation's `decider`)"),
    ("active_seat", R, "relative seat of the active player"),
    ("turn", 4, "turn number / 200, political action done, military action done, game over"),
    ("deck_sizes", 4, "issue deck / 53, event deck / 46, issue discards / 53, demobilize spaces used / 6"),
    ("draft_done", 1, "1 once the strategy draft has happened"),
    ("bid", 3 + R, "high bid strength / 8, influence / 15, bidding open; high bidder (relative seat)"),
    ("event_cube", R, "relative seat whose cube is on the table event (last = none)"),
    ("nation_happiness", N_NATIONS, "happiness / 30 of UK, France, USA, Italy, Japan (absolute order)"),
    ("nation_signs", N_NATIONS, "1 if the nation's happiness is at the signing threshold or above"),
    ("strategy_dealt", N_STRATEGIES, "strategy cards dealt face up"),
    ("slot_cubes", N_SLOTS * MAX_PLAYERS, "cubes / 15 on each slot's issue per relative seat (as the full "
                                          "observation's: what `place n on slot k` changes, without a product of "
                                          "two inputs)"),
    ("counters_in_play", N_COUNTERS, "strategy counters on all settled issues per kind and flag (vocab.COUNTERS) / 8"),
    ("seats", MAX_PLAYERS * len(SEAT_ROW), f"a row of {len(SEAT_ROW)} per relative seat (me first, then clockwise; "
                                           "the 2-player game's USA faction as in the full observation): "
                                           + "; ".join(SEAT_ROW)),
    ("regions", N_REGIONS * len(REGION_ROW), f"a row of {len(REGION_ROW)} per region: " + "; ".join(REGION_ROW)),
    ("issues", N_ISSUES * len(ISSUE_ROW), f"a row of {len(ISSUE_ROW)} per issue card: " + "; ".join(ISSUE_ROW)),
    ("events", N_EVENTS * len(EVENT_ROW), f"a row of {len(EVENT_ROW)} per event card: " + "; ".join(EVENT_ROW)),
)

_offs, COMPACT_SIZE = slice_offsets(COMPACT_SLICES)
C_DECISION, C_DECIDER, C_ACTIVE, C_TURN, C_DECKS, C_DRAFT, C_BID, C_EV_CUBE, C_NHAPPY, C_NSIGN, C_STRAT_DEALT, \
    C_SLOT_CUBES, C_CTRS, C_SEATS, C_REGIONS, C_ISSUES, C_EVENTS = (_offs[n] for n, _, _ in COMPACT_SLICES)
SW, RW, IW, EW = len(SEAT_ROW), len(REGION_ROW), len(ISSUE_ROW), len(EVENT_ROW)


def compact_slices() -> dict[str, tuple[int, int, str]]:
    """name -> (offset, size, description)."""
    return {n: (_offs[n], k, d) for n, k, d in COMPACT_SLICES}


@njit(cache=True, _nrt=False)
def observe_compact(s, T, seat, out):
    """Write seat's compact observation into out (float32, COMPACT_SIZE). The point of view is that
    of observe.observe (in the solitaire game the faction the player controls now)."""
    out[:] = 0.0
    seat, n, me, rels = point_of_view(s, seat)
    for k in range(n):
        p = s[SEATING + (me + k) % n]
        row = C_SEATS + k * SW
        out[row] = 1.0
        out[row + 1] = s[INF_AVAIL + p] / 15.0
        out[row + 2] = s[INF_EXH + p] / 15.0
        out[row + 3] = s[MIL_AVAIL + p] / 3.0
        out[row + 4] = s[MIL_EXH + p] / 3.0
        out[row + 5] = s[MIL_DEMOB + p] / 3.0
        out[row + 6] = s[HAPPY + p] / 30.0
        out[row + 8 + p] = 1.0
        st = s[PLAYER_STRAT + p]
        if st >= 0:
            out[row + 8 + N_NATIONS + st] = 1.0
        for r in range(N_REGIONS):
            c = s[DEP_COL + p * N_REGIONS + r]
            if c >= 5:
                out[C_REGIONS + r * RW + 12 + k] = (c - 4) / 4.0
    write_nations(s, T, out, C_NHAPPY, C_NSIGN)
    for r in range(N_REGIONS):
        out[C_REGIONS + r * RW + s[UNREST + r] - 1] = 1.0
        out[C_REGIONS + r * RW + 8 + s[KEG + r]] = 1.0
    for sl in range(N_SLOTS):
        i = s[SLOT_ISSUE + sl]
        if i < 0:
            continue
        row = C_ISSUES + i * IW
        out[row + I_SLOT + sl] = 1.0
        for p in range(n):
            c = s[SLOT_CUBES + sl * MAX_PLAYERS + p] / 15.0
            rp = _relp(s, rels, p, me, n)
            out[row + I_CUBES + rp] = c
            out[C_SLOT_CUBES + sl * MAX_PLAYERS + rp] = c
    nd = s[ISSUE_DISC_N]
    for k in range(min(3, nd)):
        out[C_ISSUES + s[ISSUE_DISC + nd - 1 - k] * IW + I_DISC] = (3 - k) / 3.0
    ctrs = stack_empty(N_COUNTERS, np.int64)
    ctrs[:] = 0
    for i in range(N_ISSUES):
        c = s[ISSUE_CTRL + i]
        if c < 0:
            continue
        rc = _relp(s, rels, c, me, n)
        if rc < MAX_PLAYERS:
            out[C_ISSUES + i * IW + I_CTRL + rc] = 1.0
            out[C_SEATS + rc * SW + 7] += T[T_ISSUE_STARS + i] / 50.0
        out[C_ISSUES + i * IW + I_NAVAL] = s[ISSUE_NAVAL_UK + i]
        o = s[ISSUE_OPT + i]
        if o >= 0:
            out[C_ISSUES + i * IW + I_OPT + o] = 1.0
            add_settled_counters(s, T, i, o, ctrs)
    for slot in range(N_COUNTERS):     # (a sum of eighths: the same floats as adding them one by one)
        if ctrs[slot] != 0:
            out[C_CTRS + slot] = ctrs[slot] / 8.0
    if s[EV_TABLE] >= 0:
        out[C_EVENTS + s[EV_TABLE] * EW + E_TABLE] = 1.0
    out[C_EV_CUBE + _relp(s, rels, s[EV_CUBE], me, n)] = 1.0
    for w in range(2):
        if s[EV_WAIT + w] >= 0:
            out[C_EVENTS + s[EV_WAIT + w] * EW + E_WAIT + w] = 1.0
    write_progress(s, rels, me, n, out, C_DECKS, C_STRAT_DEALT, C_DRAFT, C_TURN, C_ACTIVE, C_DECISION, C_DECIDER)
    i, bidding, uprising = pending_context(s)
    if i >= 0:
        out[C_ISSUES + i * IW + I_PEND] = 1.0
    if bidding:
        write_bid(s, rels, me, n, out, C_BID)
        out[C_ISSUES + s[BID_ISSUE] * IW + I_PEND] = 1.0
    if uprising and s[UP_REGION] >= 0:
        out[C_REGIONS + s[UP_REGION] * RW + 16] = 1.0
    if s[PENDING] == D_KEEP and s[GAME_OVER] == 0:
        out[C_ISSUES + s[DRAWN] * IW + I_DRAWN] = 1.0
        out[C_ISSUES + s[DRAWN + 1] * IW + I_DRAWN + 1] = 1.0
