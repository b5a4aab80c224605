"""The turn (EN 'Turn Sequence'): one political action (Place Influence, Reclaim, Settle) and
one optional military action (Deploy, Demobilize) before or after it; mutiny; the
negotiation transfer variant."""
from __future__ import annotations

from numba import njit

from .actions import (A_DEMOB, A_DEPLOY, A_END_TURN, A_PASS_POLITICAL, A_PLACE, A_RECLAIM, A_SETTLE, A_TRANSFER)
from .board import (cap_unrest_at_units, change_happiness, clockwise, decide, demobilize_unit, deployed_mask,
                    faction_strengths, is_usa_faction, n_players, over_unit_limit, pop, push,
                    push_mutiny_if_needed, recover_exhausted, slot_leader, slot_total, top)
from .layout import (ACTIVE, D_MUTINY, D_PLACE2, D_TURN, DEP_COL, F_A0, INF_AVAIL, INF_EXH, ISSUE_CTRL, MAX_PLAYERS,
                     MIL_AVAIL, MIL_DONE, MIL_EXH, N_ISSUES, N_REGIONS, N_SLOTS, N_TABLE, NEGOTIATION, NUM_PLAYERS,
                     GAME_OVER, MODE, MODE_SOLO, MODE_TWO, PASS_STREAK, SOLO_FACTION, SOLO_FACTIONS, SOLO_VP, POL_DONE,
                     P_SETTLE, SLOT_CUBES, SLOT_ISSUE, TURN_NO, TURN_OWNER, USA_FACTION)
from .layout import MAX_LEGAL
from .tables import (T_DEP_HAPPY, T_DEP_INF, T_FIRST_DEP_COL, T_RECLAIM_MAX, T_TRACK_COLS, T_TRANSFER_MAX)


# Legal-action buffers hold MAX_LEGAL ids; no decision has more than about 450 legal actions, so the
# last few entries serve as scratch space for the list builders (no allocation in the hot path).
SCRATCH = MAX_LEGAL - 16
NO_SLOT = 99              # cubes needed to lead on a slot without an issue: never affordable

# ----------------------------------------------------------------------------- Place Influence
@njit(cache=True, _nrt=False)
def need_to_lead(s, slot, p):
    """Cubes p must add to a slot's issue to have strictly more than any single other player."""
    mine = s[SLOT_CUBES + slot * MAX_PLAYERS + p]
    most = 0
    for q in range(s[NUM_PLAYERS]):
        if q != p:
            c = s[SLOT_CUBES + slot * MAX_PLAYERS + q]
            if c > most:
                most = c
    need = most - mine + 1
    return need if need > 1 else 1


@njit(cache=True, _nrt=False)
def place_needs(s, p, out):
    """Cubes p needs to lead on each slot (NO_SLOT: no issue there), written into the scratch space
    at the end of the action buffer out: out[SCRATCH + slot]."""
    for sl in range(N_SLOTS):
        out[SCRATCH + sl] = need_to_lead(s, sl, p) if s[SLOT_ISSUE + sl] >= 0 else NO_SLOT


@njit(cache=True, _nrt=False)
def cheapest_other(need, s1):
    """The fewest cubes to lead on a slot other than s1 (NO_SLOT: none)."""
    best2 = NO_SLOT
    for s2 in range(N_SLOTS):
        if s2 != s1 and need[s2] < best2:
            best2 = need[s2]
    return best2


@njit(cache=True, _nrt=False)
def legal_place_first(s, p, out, n):
    """First placements (slot, k) that leave a legal second placement (no dead ends, EN:254-262).
    The 2-player USA always places exactly the minimum to lead (EN:802)."""
    avail = s[INF_AVAIL + p]
    usa = is_usa_faction(s, p)
    place_needs(s, p, out)
    need = out[SCRATCH:SCRATCH + N_SLOTS]
    for s1 in range(N_SLOTS):
        if need[s1] == NO_SLOT:
            continue
        best2 = cheapest_other(need, s1)
        kmax = min(avail - best2, 15)
        if usa:
            kmax = min(kmax, need[s1])
        for k in range(need[s1], kmax + 1):
            out[n] = A_PLACE + s1 * 15 + k - 1
            n += 1
    return n


@njit(cache=True, _nrt=False)
def legal_place_second(s, p, first, out, n):
    avail = s[INF_AVAIL + p]
    for s2 in range(N_SLOTS):
        if s2 == first or s[SLOT_ISSUE + s2] < 0:
            continue
        k0 = need_to_lead(s, s2, p)
        for k in range(k0, min(avail, k0 if is_usa_faction(s, p) else 15) + 1):
            out[n] = A_PLACE + s2 * 15 + k - 1
            n += 1
    return n


# ----------------------------------------------------------------------------- Reclaim
@njit(cache=True, _nrt=False)
def legal_reclaim(s, T, p, out, n):
    """Up to 6 exhausted cubes, all exhausted units, any deployed units; at least one thing (EN:274-280),
    in the solitaire game at least one thing from the Exhausted box (P-31).
    The 2-player USA recovers all it can up to 6; n is then the cubes its controller recovers beside
    it, up to the USA's number (EN:818-823)."""
    if is_usa_faction(s, p):
        k = min(T[T_RECLAIM_MAX], s[INF_EXH + p])
        if k > 0:
            for j in range(min(k, s[INF_EXH + s[TURN_OWNER]]) + 1):
                out[n] = A_RECLAIM + j * 32
                n += 1
        return n
    kmax = min(T[T_RECLAIM_MAX], s[INF_EXH + p])
    dm = deployed_mask(s, p)
    # Solitaire (ruling P-31): the thing reclaimed must come from the Exhausted box; recalling deployed
    # units alone would let the player deploy and recall a unit turn after turn, a VP each turn, forever.
    recall_counts = s[MODE] != MODE_SOLO
    for k in range(kmax + 1):
        m = dm
        while True:                      # every subset of the deployed regions
            if k > 0 or s[MIL_EXH + p] > 0 or (m > 0 and recall_counts):
                out[n] = A_RECLAIM + k * 32 + m
                n += 1
            if m == 0:
                break
            m = (m - 1) & dm
    return n


@njit(cache=True, _nrt=False)
def do_reclaim(s, p, k, m):
    recover_exhausted(s, p, k)
    s[MIL_AVAIL + p] += s[MIL_EXH + p]
    s[MIL_EXH + p] = 0
    for r in range(N_REGIONS):
        if (m >> r) & 1:
            s[DEP_COL + p * N_REGIONS + r] = 0
            s[MIL_AVAIL + p] += 1


# ----------------------------------------------------------------------------- Settle
@njit(cache=True, _nrt=False)
def legal_settle(s, out, n):
    """Only table issues with at least one cube may be settled (EN:284); the 2-player USA never settles
    in favour of the player running it (EN:806)."""
    usa = is_usa_faction(s, s[ACTIVE])
    for sl in range(N_TABLE):
        if usa and slot_leader(s, sl) == s[TURN_OWNER]:
            continue
        if s[SLOT_ISSUE + sl] >= 0 and slot_total(s, sl) > 0:
            out[n] = A_SETTLE + sl
            n += 1
    return n


# ----------------------------------------------------------------------------- Deploy and Demobilize
@njit(cache=True, _nrt=False)
def _occupied_columns(s):
    """Deployment spaces taken by any unit: bit r * 12 + c for region r, column c (at most 8)."""
    occ = 0
    for q in range(s[NUM_PLAYERS]):
        for r in range(N_REGIONS):
            c = s[DEP_COL + q * N_REGIONS + r]
            if c > 0:
                occ |= 1 << (r * 12 + c)
    return occ


@njit(cache=True, _nrt=False)
def _deploy_route(s, p, src, r):
    """Can p move a unit from src (0 Available, 1 + region) towards region r? One unit per region."""
    if src == 0:
        if s[MIL_AVAIL + p] == 0:
            return False
    elif s[DEP_COL + p * N_REGIONS + src - 1] == 0:
        return False
    return src == r + 1 or s[DEP_COL + p * N_REGIONS + r] == 0


@njit(cache=True, _nrt=False)
def legal_deploy(s, T, p, out, n):
    """One unit from Available or a region to an empty space in columns 5-8, one unit per region (EN:472-505)."""
    c0 = T[T_FIRST_DEP_COL]
    ncols = T[T_TRACK_COLS] - c0 + 1
    occ = _occupied_columns(s)
    for src in range(N_REGIONS + 1):
        for r in range(N_REGIONS):
            if not _deploy_route(s, p, src, r):
                continue
            for c in range(c0, c0 + ncols):
                if not (occ >> (r * 12 + c)) & 1:
                    out[n] = A_DEPLOY + (src * N_REGIONS + r) * 4 + c - c0
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def can_deploy(s, T, p):
    """True when p has a legal deploy (legal_deploy would list one)."""
    cols = (1 << (T[T_TRACK_COLS] + 1)) - (1 << T[T_FIRST_DEP_COL])      # the deployment columns, as bits
    occ = _occupied_columns(s)
    for src in range(N_REGIONS + 1):
        for r in range(N_REGIONS):
            if cols & ~(occ >> (r * 12)) and _deploy_route(s, p, src, r):
                return True
    return False


@njit(cache=True, _nrt=False)
def do_deploy(s, T, p, src, r, c):
    """Place the unit, take its column's immediate effects, cap unrest (EN:480-497, rulings A-25)."""
    if src == 0:
        s[MIL_AVAIL + p] -= 1
    else:
        s[DEP_COL + p * N_REGIONS + src - 1] = 0
    s[DEP_COL + p * N_REGIONS + r] = c
    recover_exhausted(s, p, T[T_DEP_INF + c])
    change_happiness(s, T, p, -T[T_DEP_HAPPY + c])
    cap_unrest_at_units(s, T, r)


@njit(cache=True, _nrt=False)
def legal_demobilize(s, p, out, n, base):
    """Sources: Available (0), Exhausted (1), a deployed unit (2 + region) (EN:507-523)."""
    if s[MIL_AVAIL + p] > 0:
        out[n] = base
        n += 1
    if s[MIL_EXH + p] > 0:
        out[n] = base + 1
        n += 1
    for r in range(N_REGIONS):
        if s[DEP_COL + p * N_REGIONS + r] > 0:
            out[n] = base + 2 + r
            n += 1
    return n


@njit(cache=True, _nrt=False)
def legal_transfer(s, T, p, out, n):
    """Negotiations 5 (EN:704): up to 6 of your available cubes to Exhausted so another reclaims as many."""
    for q in range(n_players(s)):
        if q == p:
            continue
        kmax = min(T[T_TRANSFER_MAX], s[INF_AVAIL + p], s[INF_EXH + q])
        for k in range(1, kmax + 1):
            out[n] = A_TRANSFER + q * 6 + k - 1
            n += 1
    return n


# ----------------------------------------------------------------------------- the turn procedure
@njit(cache=True, _nrt=False)
def legal_turn(s, T, out):
    p = s[ACTIVE]
    n = 0
    f = top(s)
    if s[POL_DONE] == 0:
        if must_settle(s, p):
            n = legal_settle(s, out, n)
        else:
            n = legal_place_first(s, p, out, n)
            n = legal_settle(s, out, n)
            n = legal_reclaim(s, T, p, out, n)
        if n == 0:
            out[0] = A_PASS_POLITICAL      # rulings A-28
            n = 1
    if s[MIL_DONE] == 0:
        n = legal_deploy(s, T, p, out, n)
        n = legal_demobilize(s, p, out, n, A_DEMOB)
    if s[POL_DONE] == 1:
        out[n] = A_END_TURN
        n += 1
    if s[NEGOTIATION] == 1 and s[f + F_A0 + 1] == 0 and not is_usa_faction(s, p):
        n = legal_transfer(s, T, p, out, n)
    return n


@njit(cache=True, _nrt=False)
def must_settle(s, p):
    """Solitaire: the player's faction must settle when it leads both table issues (EN:884)."""
    if s[MODE] != MODE_SOLO or p != s[SOLO_FACTION]:
        return False
    for sl in range(N_TABLE):
        if s[SLOT_ISSUE + sl] < 0 or slot_leader(s, sl) != p:
            return False
    return True


@njit(cache=True, _nrt=False)
def solo_turn_start(s, T):
    """Solitaire: at the start of the player faction's turn the player scores 1 VP if its Faction
    Strength is the sole highest and every faction controls an issue (EN:877-881)."""
    p = s[SOLO_FACTION]
    m = 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] >= 0:
            m |= 1 << s[ISSUE_CTRL + i]
    if m & ((1 << SOLO_FACTIONS) - 1) != (1 << SOLO_FACTIONS) - 1:
        return                          # a faction without an issue
    st = faction_strengths(s, T)
    for q in range(SOLO_FACTIONS):
        if q != p and st[q] >= st[p]:
            return
    s[SOLO_VP] += 1


@njit(cache=True, _nrt=False)
def end_turn(s, T):
    if s[MODE] == MODE_TWO:
        if s[ACTIVE] != USA_FACTION:
            # the player's turn goes on with a USA political action, no military (EN:785-795)
            s[ACTIVE] = USA_FACTION
            s[POL_DONE] = 0
            s[MIL_DONE] = 1
            f = top(s)
            s[f + F_A0] = -1
            return
        s[TURN_OWNER] = 1 - s[TURN_OWNER]
        s[ACTIVE] = s[TURN_OWNER]
    else:
        s[ACTIVE] = clockwise(s, s[ACTIVE], 1)
        if s[MODE] == MODE_SOLO and s[ACTIVE] == s[SOLO_FACTION]:
            solo_turn_start(s, T)
    s[TURN_NO] += 1
    s[POL_DONE] = 0
    s[MIL_DONE] = 0
    f = top(s)
    s[f + F_A0] = -1
    s[f + F_A0 + 1] = 0


@njit(cache=True, _nrt=False)
def cheapest_placement(s, p):
    """The fewest cubes with which p could Place Influence now: the minimum to lead on each of exactly
    two issues (EN:252-256); NO_SLOT when fewer than two issues are in play."""
    best = NO_SLOT
    for s1 in range(N_SLOTS):
        if s[SLOT_ISSUE + s1] < 0:
            continue
        n1 = need_to_lead(s, s1, p)
        for s2 in range(s1 + 1, N_SLOTS):
            if s[SLOT_ISSUE + s2] >= 0:
                t = n1 + need_to_lead(s, s2, p)
                if t < best:
                    best = t
    return best


@njit(cache=True, _nrt=False)
def cubes_frozen(s):
    """No issue on the Table holds a cube and no faction holds, Available and Exhausted together, the
    cubes it needs to Place Influence: nobody can settle or place, so the cubes on the issues never
    change, and a reclaim, a deploy or a transfer only moves a faction's cubes between its own
    Available and Exhausted. No cube can reach an issue again (P-10)."""
    for sl in range(N_TABLE):
        for p in range(MAX_PLAYERS):
            if s[SLOT_CUBES + sl * MAX_PLAYERS + p] != 0:
                return False
    for p in range(s[NUM_PLAYERS]):
        if s[INF_AVAIL + p] + s[INF_EXH + p] >= cheapest_placement(s, p):
            return False
    return True


@njit(cache=True, _nrt=False)
def turn_proc(s, T, kind, a):
    """Bottom frame: a0 = first placement slot (-1), a1 = transfer used this turn."""
    f = top(s)
    p = s[ACTIVE]
    if kind == 0:
        if s[POL_DONE] == 1 and s[MIL_DONE] == 1:
            end_turn(s, T)
            p = s[ACTIVE]
            if cubes_frozen(s):
                s[GAME_OVER] = 3        # no cube can ever move again (P-10)
                return
        decide(s, D_TURN, p)
        return
    if kind == D_PLACE2:
        sl = (a - A_PLACE) // 15
        k = (a - A_PLACE) % 15 + 1
        s[SLOT_CUBES + sl * MAX_PLAYERS + p] += k
        s[INF_AVAIL + p] -= k
        s[f + F_A0] = -1
        s[POL_DONE] = 1
        return
    # kind == D_TURN
    if a == A_END_TURN:
        s[MIL_DONE] = 1
        return
    if a == A_PASS_POLITICAL:
        s[POL_DONE] = 1
        s[PASS_STREAK] += 1
        if s[PASS_STREAK] >= (4 if s[MODE] == MODE_TWO else s[NUM_PLAYERS]):
            # every player in turn had no political action: nothing can change any more (P-10)
            s[GAME_OVER] = 3
        return
    if A_PLACE <= a < A_DEPLOY:
        s[PASS_STREAK] = 0
    if A_PLACE <= a < A_SETTLE:
        sl = (a - A_PLACE) // 15
        k = (a - A_PLACE) % 15 + 1
        s[SLOT_CUBES + sl * MAX_PLAYERS + p] += k
        s[INF_AVAIL + p] -= k
        s[f + F_A0] = sl
        decide(s, D_PLACE2, p)
        return
    if A_SETTLE <= a < A_RECLAIM:
        s[POL_DONE] = 1
        push(s, P_SETTLE, a - A_SETTLE)
        return
    if A_RECLAIM <= a < A_DEPLOY:
        x = a - A_RECLAIM
        if is_usa_faction(s, p):
            recover_exhausted(s, p, T[T_RECLAIM_MAX])
            recover_exhausted(s, s[TURN_OWNER], x // 32)
        else:
            do_reclaim(s, p, x // 32, x % 32)
        s[POL_DONE] = 1
        return
    if A_DEPLOY <= a < A_DEMOB:
        x = a - A_DEPLOY
        src = x // (N_REGIONS * 4)
        r = (x // 4) % N_REGIONS
        c = x % 4 + T[T_FIRST_DEP_COL]
        do_deploy(s, T, p, src, r, c)
        s[MIL_DONE] = 1
        push_mutiny_if_needed(s, T)
        return
    if A_DEMOB <= a < A_DEMOB + 7:
        demobilize_unit(s, T, p, a - A_DEMOB, False)
        s[MIL_DONE] = 1
        return
    if A_TRANSFER <= a < A_TRANSFER + 24:
        q = (a - A_TRANSFER) // 6
        k = (a - A_TRANSFER) % 6 + 1
        s[INF_AVAIL + p] -= k
        s[INF_EXH + p] += k
        recover_exhausted(s, q, k)
        s[f + F_A0 + 1] = 1
        return
    raise ValueError("turn: unexpected action")


# ----------------------------------------------------------------------------- mutiny
@njit(cache=True, _nrt=False)
def mutiny_player(s, T):
    """First seat clockwise from the active player that is over its unit limit, or -1 (rulings A-10)."""
    for i in range(s[NUM_PLAYERS]):
        p = clockwise(s, s[ACTIVE], i)
        if over_unit_limit(s, T, p):
            return p
    return -1


@njit(cache=True, _nrt=False)
def mutiny_proc(s, T, kind, a):
    """Forced demobilization to the '1' box until every seat is within its zone's limit (EN:531-539)."""
    if kind == D_MUTINY:
        p = s[top(s) + F_A0]
        demobilize_unit(s, T, p, a - A_DEMOB, True)
    p = mutiny_player(s, T)
    if p < 0:
        pop(s)
        return
    s[top(s) + F_A0] = p
    decide(s, D_MUTINY, p)

