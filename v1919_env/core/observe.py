"""Observations: everything public, from one seat's perspective (own nation first, the others
clockwise by the table's seating), written by a compiled kernel into a float32 vector with named slices.

`OBS_SLICES` (name, size, description) is the single source of the layout; `docs/observation.md`
is generated from it. Hidden information (deck orders) never appears; deck sizes do.
"""
from __future__ import annotations

from numba import njit

from .layout import (SEATING, ACTIVE, BID_HIGH, BID_INF, BID_ISSUE, BID_STR, D_KEEP, D_OPTION, D_NAVAL, DECISION_NAMES,
                     DEMOB_NEXT, DEP_COL, DRAFT_DONE, DRAWN, EV_CUBE, EV_DECK_N, EV_TABLE, EV_WAIT, F_A0, F_PROC,
                     FRAME_W, GAME_OVER, HAPPY, INF_AVAIL, INF_EXH, ISSUE_CTRL, ISSUE_DECK_N, ISSUE_DISC,
                     ISSUE_DISC_N, ISSUE_NAVAL_UK, ISSUE_OPT, KEG, MAX_PLAYERS, MIL_AVAIL, MIL_DEMOB, MIL_EXH,
                     MIL_DONE, N_COUNTERS, N_EVENTS, N_ISSUES, N_NATIONS, N_REGIONS, N_SLOTS, N_STRATEGIES, NUM_PLAYERS,
                     PENDING, PENDING_PLAYER, PLAYER_STRAT, POL_DONE, P_BID, P_UPRISING, SETTLING, SLOT_CUBES,
                     SLOT_ISSUE, SP, STACK, STRAT_DEALT, TURN_NO, UNREST, UP_REGION, PENDING_FACTION, MODE, MODE_SOLO,
                     SOLO_FACTION)
from .board import seat_position
from .step import legal, try_step
from .tables import T_ISSUE_STARS, T_OPT_CTR, T_OPT_NAVAL, T_SIGN

N_DECISIONS = max(DECISION_NAMES) + 1
R = MAX_PLAYERS + 1            # relative seat one-hot: 0 = me, 1.. = next seats clockwise, last = nobody

OBS_SLICES = (
    ("players_present", MAX_PLAYERS, "1 for each seat in play (me first, then clockwise)"),
    ("influence_available", MAX_PLAYERS, "available cubes / 15, per relative seat"),
    ("influence_exhausted", MAX_PLAYERS, "exhausted cubes / 15, per relative seat"),
    ("military_available", MAX_PLAYERS, "available units / 3, per relative seat"),
    ("military_exhausted", MAX_PLAYERS, "exhausted units / 3, per relative seat"),
    ("military_demobilized", MAX_PLAYERS, "demobilized units / 3, per relative seat"),
    ("deployed", MAX_PLAYERS * N_REGIONS * 4, "unit of relative seat in region at column 5..8 (one-hot)"),
    ("player_happiness", MAX_PLAYERS, "happiness / 30 of each relative seat's nation"),
    ("player_strategy", MAX_PLAYERS * N_STRATEGIES, "strategy card chosen by each relative seat (one-hot)"),
    ("issues_controlled_stars", MAX_PLAYERS, "stars of settled issues controlled / 50, per relative seat"),
    ("nation_happiness", N_NATIONS, "happiness / 30 of UK, France, USA, Italy, Japan (absolute order)"),
    ("nation_signs", N_NATIONS, "1 if the nation's happiness is at the signing threshold or above"),
    ("my_nation", N_NATIONS, "the observing seat's nation (one-hot)"),
    ("unrest", N_REGIONS * 8, "unrest column 1..8 per region (one-hot)"),
    ("powder_keg", N_REGIONS * 4, "powder keg 0..3 per region (one-hot)"),
    ("slot_issue", N_SLOTS * N_ISSUES, "issue in slot 0-1 (table) and 2-4 (waiting room) (one-hot)"),
    ("slot_cubes", N_SLOTS * MAX_PLAYERS, "cubes / 15 on each slot's issue per relative seat"),
    ("discard_top3", 3 * N_ISSUES, "the top three discards, top first (one-hot)"),
    ("settled_controller", N_ISSUES * R, "controller of each settled issue, relative seat (last = not settled)"),
    ("settled_option", N_ISSUES * 4, "chosen option of each settled issue (one-hot)"),
    ("settled_naval_uk", N_ISSUES, "UK-or-USA naval counters placed as UK"),
    ("settled_counters", N_ISSUES * 7, "strategy counters on each settled issue per kind (vocab.COUNTER_BASE) / 4"),
    ("counters_in_play", N_COUNTERS, "strategy counters on all settled issues per kind and flag (vocab.COUNTERS) / 8"),
    ("event_table", N_EVENTS, "event on the table (one-hot)"),
    ("event_cube", R, "relative seat whose cube is on the table event (last = none)"),
    ("event_waiting", 2 * N_EVENTS, "the two waiting events (one-hot)"),
    ("deck_sizes", 4, "issue deck / 53, event deck / 46, issue discards / 53, demobilize spaces used / 6"),
    ("strategy_dealt", N_STRATEGIES, "strategy cards dealt face up"),
    ("draft_done", 1, "1 once the strategy draft has happened"),
    ("turn", 4, "turn number / 200, political action done, military action done, game over"),
    ("active_seat", R, "relative seat of the active player"),
    ("decision", N_DECISIONS, "kind of the pending decision (one-hot, see DECISION_NAMES)"),
    ("decider", R, "relative seat the pending decision is for: the seat that decides, or in the 2-player game "
                   "the USA faction (a relative seat of its own) when the player whose turn it is decides for it"),
    ("settling_issue", N_ISSUES, "issue being settled / whose option is chosen (one-hot)"),
    ("bid", 3 + R + N_ISSUES, "high bid strength / 8, influence / 15, bidding open; high bidder; issue at stake"),
    ("uprising_region", N_REGIONS, "region of the uprising check being announced for or resolved (one-hot)"),
    ("drawn_issues", 2 * N_ISSUES, "the two issues drawn to choose from (one-hot)"),
    # appended in observation version 2, so a version-1 observation is this vector's prefix
    ("seat_nation", MAX_PLAYERS * N_NATIONS, "nation (faction) at each relative seat (one-hot per seat; "
                                             "the 2-player game's USA faction sits as a seat of its own)"),
)


def slice_offsets(slices) -> tuple[dict[str, int], int]:
    """({name: offset}, total size) of a layout's (name, size, description) slices, laid end to end."""
    offs, o = {}, 0
    for name, n, _ in slices:
        offs[name] = o
        o += n
    return offs, o


_offs, OBS_SIZE = slice_offsets(OBS_SLICES)
O_PRESENT, O_INF_AV, O_INF_EX, O_MIL_AV, O_MIL_EX, O_MIL_DM, O_DEPLOYED, O_PHAPPY, O_PSTRAT, O_PSTARS, O_NHAPPY, \
    O_NSIGN, O_MYNAT, O_UNREST, O_KEG, O_SLOT_ISSUE, O_SLOT_CUBES, O_DISC3, O_SET_CTRL, O_SET_OPT, O_SET_NAVAL, \
    O_SET_CTRS, O_CTRS, O_EV_TABLE, O_EV_CUBE, O_EV_WAIT, O_DECKS, O_STRAT_DEALT, O_DRAFT, O_TURN, O_ACTIVE, O_DECISION, O_DECIDER, \
    O_SETTLING, O_BID, O_UP_REGION, O_DRAWN, O_SEAT_NATION = (_offs[n] for n, _, _ in OBS_SLICES)


def obs_slices() -> dict[str, tuple[int, int, str]]:
    """name -> (offset, size, description)."""
    return {n: (_offs[n], k, d) for n, k, d in OBS_SLICES}


@njit(cache=True, _nrt=False)
def _rel(s, p, me, n):
    """Relative seat of p seen from the seat at table position `me`: 0 itself, then clockwise."""
    return (seat_position(s, p) - me + n) % n if p >= 0 else MAX_PLAYERS


@njit(cache=True, _nrt=False)
def _relp(s, rels, p, me, n):
    """Relative seat of p from the packed table of seats 0..MAX_PLAYERS-1 (_rel otherwise)."""
    if p < 0:
        return MAX_PLAYERS
    if p < MAX_PLAYERS:
        return (rels >> (8 * p)) & 0xFF
    return _rel(s, p, me, n)


@njit(cache=True, _nrt=False)
def point_of_view(s, seat):
    """(the observing seat: in the solitaire game the faction the player controls now, EN:836-838 and
    EN:949-953, whichever seat is asked; the player count; its table position; the relative seats
    of seats 0..MAX_PLAYERS-1, a byte each)."""
    if s[MODE] == MODE_SOLO:
        seat = s[SOLO_FACTION]
    n = s[NUM_PLAYERS]
    me = seat_position(s, seat)
    rels = 0
    for p in range(MAX_PLAYERS):
        rels |= _rel(s, p, me, n) << (8 * p)
    return seat, n, me, rels


@njit(cache=True, _nrt=False)
def settled_counters(s, T, i, o, slot):
    """The strategy counters of kind `slot` (vocab.COUNTERS) that settled issue i placed with option o."""
    c = T[T_OPT_CTR + (i * 4 + o) * N_COUNTERS + slot]
    if slot == 5:                 # UK-or-USA naval counters placed as UK / USA
        c += s[ISSUE_NAVAL_UK + i]
    elif slot == 7:
        c += T[T_OPT_NAVAL + i * 4 + o] - s[ISSUE_NAVAL_UK + i]
    return c


@njit(cache=True, _nrt=False)
def add_settled_counters(s, T, i, o, ctrs):
    """ctrs[slot] += settled_counters(s, T, i, o, slot) for every kind (one pass over the option's row)."""
    base = T_OPT_CTR + (i * 4 + o) * N_COUNTERS
    for slot in range(N_COUNTERS):
        ctrs[slot] += T[base + slot]
    uk = s[ISSUE_NAVAL_UK + i]
    ctrs[5] += uk
    ctrs[7] += T[T_OPT_NAVAL + i * 4 + o] - uk


@njit(cache=True, _nrt=False)
def write_nations(s, T, out, o_happy, o_sign):
    """Each nation's happiness / 30 at o_happy and, at o_sign, 1 where it is at the signing threshold."""
    sign = T[T_SIGN]
    for nat in range(N_NATIONS):
        h = s[HAPPY + nat]
        out[o_happy + nat] = h / 30.0
        if h >= sign:
            out[o_sign + nat] = 1.0


@njit(cache=True, _nrt=False)
def write_progress(s, rels, me, n, out, o_decks, o_strat, o_draft, o_turn, o_active, o_decision, o_decider):
    """The deck sizes, the strategy cards dealt, the draft, the turn, the active seat and the pending
    decision with its decider, at the given offsets (every layout writes these alike)."""
    out[o_decks] = s[ISSUE_DECK_N] / 53.0
    out[o_decks + 1] = s[EV_DECK_N] / 46.0
    out[o_decks + 2] = s[ISSUE_DISC_N] / 53.0
    out[o_decks + 3] = s[DEMOB_NEXT] / 6.0
    for j in range(MAX_PLAYERS + 1):
        if s[STRAT_DEALT + j] >= 0:
            out[o_strat + s[STRAT_DEALT + j]] = 1.0
    out[o_draft] = s[DRAFT_DONE]
    out[o_turn] = s[TURN_NO] / 200.0
    out[o_turn + 1] = s[POL_DONE]
    out[o_turn + 2] = s[MIL_DONE]
    out[o_turn + 3] = 1.0 if s[GAME_OVER] != 0 else 0.0
    out[o_active + _relp(s, rels, s[ACTIVE], me, n)] = 1.0
    if s[GAME_OVER] == 0:
        out[o_decision + s[PENDING]] = 1.0
        out[o_decider + _relp(s, rels, s[PENDING_FACTION], me, n)] = 1.0
    else:
        out[o_decider + MAX_PLAYERS] = 1.0


@njit(cache=True, _nrt=False)
def pending_context(s):
    """(the issue being settled or whose option is chosen, or -1; a bidding under way; an uprising
    under way)."""
    i = s[SETTLING]
    if s[PENDING] == D_OPTION or s[PENDING] == D_NAVAL:
        i = s[STACK + (s[SP] - 1) * FRAME_W + F_A0]
    bidding = False
    uprising = False
    for k in range(s[SP]):
        proc = s[STACK + k * FRAME_W + F_PROC]
        if proc == P_BID:
            bidding = True
        if proc == P_UPRISING:
            uprising = True
    return i, bidding, uprising


@njit(cache=True, _nrt=False)
def write_bid(s, rels, me, n, out, o_bid):
    """The bidding under way at o_bid: high strength / 8, influence / 15, open, the high bidder."""
    out[o_bid] = s[BID_STR] / 8.0
    out[o_bid + 1] = s[BID_INF] / 15.0
    out[o_bid + 2] = 1.0
    out[o_bid + 3 + _relp(s, rels, s[BID_HIGH], me, n)] = 1.0


@njit(cache=True, _nrt=False)
def observe(s, T, seat, out):
    """Write seat's observation into out (float32, OBS_SIZE). In the solitaire game the point of
    view is the faction the player controls now (EN:836-838, EN:949-953), whichever seat is asked."""
    out[:] = 0.0
    seat, n, me, rels = point_of_view(s, seat)
    for k in range(n):
        p = s[SEATING + (me + k) % n]
        out[O_PRESENT + k] = 1.0
        out[O_SEAT_NATION + k * N_NATIONS + p] = 1.0
        out[O_INF_AV + k] = s[INF_AVAIL + p] / 15.0
        out[O_INF_EX + k] = s[INF_EXH + p] / 15.0
        out[O_MIL_AV + k] = s[MIL_AVAIL + p] / 3.0
        out[O_MIL_EX + k] = s[MIL_EXH + p] / 3.0
        out[O_MIL_DM + k] = s[MIL_DEMOB + p] / 3.0
        for r in range(N_REGIONS):
            c = s[DEP_COL + p * N_REGIONS + r]
            if c >= 5:
                out[O_DEPLOYED + (k * N_REGIONS + r) * 4 + c - 5] = 1.0
        out[O_PHAPPY + k] = s[HAPPY + p] / 30.0
        st = s[PLAYER_STRAT + p]
        if st >= 0:
            out[O_PSTRAT + k * N_STRATEGIES + st] = 1.0
    write_nations(s, T, out, O_NHAPPY, O_NSIGN)
    out[O_MYNAT + seat] = 1.0
    for r in range(N_REGIONS):
        out[O_UNREST + r * 8 + s[UNREST + r] - 1] = 1.0
        out[O_KEG + r * 4 + s[KEG + r]] = 1.0
    for sl in range(N_SLOTS):
        i = s[SLOT_ISSUE + sl]
        if i >= 0:
            out[O_SLOT_ISSUE + sl * N_ISSUES + i] = 1.0
        for p in range(n):
            out[O_SLOT_CUBES + sl * MAX_PLAYERS + _relp(s, rels, p, me, n)] = s[SLOT_CUBES + sl * MAX_PLAYERS + p] / 15.0
    nd = s[ISSUE_DISC_N]
    for k in range(min(3, nd)):
        out[O_DISC3 + k * N_ISSUES + s[ISSUE_DISC + nd - 1 - k]] = 1.0
    for i in range(N_ISSUES):
        c = s[ISSUE_CTRL + i]
        if c < 0:
            out[O_SET_CTRL + i * R + MAX_PLAYERS] = 1.0
            continue
        rc = _relp(s, rels, c, me, n)
        out[O_SET_CTRL + i * R + rc] = 1.0
        out[O_PSTARS + rc] += T[T_ISSUE_STARS + i] / 50.0
        o = s[ISSUE_OPT + i]
        uk = s[ISSUE_NAVAL_UK + i]
        out[O_SET_NAVAL + i] = uk
        if o >= 0:
            out[O_SET_OPT + i * 4 + o] = 1.0
            for slot in range(N_COUNTERS):
                c = settled_counters(s, T, i, o, slot)
                if c != 0:
                    kind = slot if slot < 5 else (5 if slot < 10 else 6)
                    out[O_SET_CTRS + i * 7 + kind] += c / 4.0
                    out[O_CTRS + slot] += c / 8.0
    if s[EV_TABLE] >= 0:
        out[O_EV_TABLE + s[EV_TABLE]] = 1.0
    out[O_EV_CUBE + _relp(s, rels, s[EV_CUBE], me, n)] = 1.0
    for w in range(2):
        if s[EV_WAIT + w] >= 0:
            out[O_EV_WAIT + w * N_EVENTS + s[EV_WAIT + w]] = 1.0
    write_progress(s, rels, me, n, out, O_DECKS, O_STRAT_DEALT, O_DRAFT, O_TURN, O_ACTIVE, O_DECISION, O_DECIDER)
    # context of the pending decision
    i, bidding, uprising = pending_context(s)
    if i >= 0:
        out[O_SETTLING + i] = 1.0
    if bidding:
        write_bid(s, rels, me, n, out, O_BID)
        out[O_BID + 3 + R + s[BID_ISSUE]] = 1.0
    if uprising and s[UP_REGION] >= 0:
        out[O_UP_REGION + s[UP_REGION]] = 1.0
    if s[PENDING] == D_KEEP and s[GAME_OVER] == 0:
        out[O_DRAWN + s[DRAWN]] = 1.0
        out[O_DRAWN + N_ISSUES + s[DRAWN + 1]] = 1.0


@njit(cache=True, _nrt=False)
def write_mask(s, T, seat, mask, buf):
    """seat's action mask: its legal actions, zeros unless it decides now."""
    mask[:] = 0
    if s[GAME_OVER] == 0 and s[PENDING_PLAYER] == seat:
        n = legal(s, T, buf)
        for j in range(n):
            mask[buf[j]] = 1


@njit(cache=True, _nrt=False)
def observe_and_mask(s, T, seat, out, mask, buf):
    """Observation of `seat` and its action mask (zeros unless seat decides now) in one call."""
    observe(s, T, seat, out)
    write_mask(s, T, seat, mask, buf)


@njit(cache=True, _nrt=False)
def step_and_observe(s, T, a, buf, out, mask):
    """Apply a if legal (else change nothing and return False), then write the observation and
    mask of the seat that decides next: one compiled call per environment step."""
    if not try_step(s, T, a, buf):
        return False
    if s[GAME_OVER] == 0:
        observe_and_mask(s, T, s[PENDING_PLAYER], out, mask, buf)
    return True
