"""Uprising checks and uprisings (EN 'Uprising Checks and Uprisings'), bidding for an unsettled
issue, and the strategy-card draft after the first uprising."""
from __future__ import annotations

from numba import njit

from .actions import A_BID, A_BID_PASS, A_CHOOSE_ISSUE, A_CHOOSE_PLAYER, A_DRAFT, A_MODIFIER, A_SIGN
from .botrules import bot_offer
from .board import (change_happiness, clockwise, count_counters, decide, issues_in_region, move_unrest, n_players, pop,
                    push, push_mutiny_if_needed, reset_unrest_after_uprising, roll_die, settled_issue_region,
                    star_total, top, turn_player)
from .layout import (ACTIVE, BID_HIGH, BID_INF, BID_INREG, BID_ISSUE, BID_NAVAIL, BID_PASSED, BID_STR, BID_TURN,
                     D_AFFECTED, D_BID, D_DRAFT, D_MODIFIER, D_SIGN, D_UPRISING_ISSUE, DEP_COL, DRAFT_DONE,
                     DRAFT_ORDER, F_A0, F_STEP, INF_AVAIL, INF_EXH, ISSUE_CTRL, ISSUE_DISC, ISSUE_DISC_N, ISSUE_OPT,
                     MIL_AVAIL, MIL_EXH, N_ISSUES, N_REGIONS, NUM_PLAYERS, PLAYER_STRAT, P_BID, P_DRAFT, P_OPTION,
                     RET, STRAT_DEALT, UNREST, UP_MASK, UP_MOD, UP_REGION, UP_RISEN, UP_SEQ, UP_TIED,
                     UP_UNSETTLED, D_CHOOSE_FACTION, MODE, MODE_SOLO, MODE_TWO, P_SWITCH, SOLO_FACTION,
                     USA_FACTION)
from .tables import (R_HIGHEST, R_SETTLED, T_DEP_BID, T_DEP_DM, T_ISSUE_CAT, T_ISSUE_NOMIL, T_ISSUE_STARS,
                     T_STRAT_EXTRA, T_THRESH)


MAX_ROLLOFF = 100     # roll-off rounds before a still-standing tie goes to the first tied seat (P-14)


# ----------------------------------------------------------------------------- helpers
@njit(cache=True, _nrt=False)
def check_regions(s, T, code):
    """Step 1: the named region, the settled issue's region, or all regions tied for most unrest (EN:563)."""
    if code == R_HIGHEST:
        best = 0
        for r in range(N_REGIONS):
            if s[UNREST + r] > best:
                best = s[UNREST + r]
        m = 0
        for r in range(N_REGIONS):
            if s[UNREST + r] == best:
                m |= 1 << r
        return m
    if code == R_SETTLED:
        r = settled_issue_region(s, T)
        return 1 << r if r >= 0 else 0
    return 1 << code


@njit(cache=True, _nrt=False)
def modifier_announcer(s, T, r, k):
    """k-th announcer slot for region r: clockwise after the active player, the active player last
    (EN:569, rulings A-14); returns the seat if it has a unit in a +/-1 column there, else -1."""
    p = clockwise(s, s[ACTIVE], 1 + k)
    c = s[DEP_COL + p * N_REGIONS + r]
    if c > 0 and T[T_DEP_DM + c] == 1:
        return p
    return -1


@njit(cache=True, _nrt=False)
def leftmost_unit_owner(s, r):
    """Owner of the unit furthest left in a region (rulings A-02), or -1."""
    best, who = 99, -1
    for p in range(s[NUM_PLAYERS]):
        c = s[DEP_COL + p * N_REGIONS + r]
        if 0 < c < best:
            best, who = c, p
    return who


@njit(cache=True, _nrt=False)
def top_issues(s, T, p, r):
    """Bit list (as a count and the first index) of p's highest-star issues in region r."""
    best, n, first = -1, 0, -1
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] == p and T[T_ISSUE_CAT + i] == r:
            st = T[T_ISSUE_STARS + i]
            if st > best:
                best, n, first = st, 1, i
            elif st == best:
                n += 1
    return n, first, best


@njit(cache=True, _nrt=False)
def legal_uprising_issue(s, T, out):
    p = s[top(s) + F_A0 + 6]
    r = s[UP_REGION]
    n, first, best = top_issues(s, T, p, r)
    k = 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] == p and T[T_ISSUE_CAT + i] == r and T[T_ISSUE_STARS + i] == best:
            out[k] = A_CHOOSE_ISSUE + i
            k += 1
    return k


@njit(cache=True, _nrt=False)
def legal_affected(s, out):
    k = 0
    for p in range(s[NUM_PLAYERS]):
        if (s[UP_TIED] >> p) & 1:
            out[k] = A_CHOOSE_PLAYER + p
            k += 1
    return k


@njit(cache=True, _nrt=False)
def legal_modifier(out):
    out[0] = A_MODIFIER
    out[1] = A_MODIFIER + 1
    out[2] = A_MODIFIER + 2
    return 3


@njit(cache=True, _nrt=False)
def legal_sign(out):
    out[0] = A_SIGN
    out[1] = A_SIGN + 1
    return 2


@njit(cache=True, _nrt=False)
def _start_unsettle(s, T, i, r):
    """The issue leaves its controller, its counters are discarded (EN:620), and bidding starts."""
    prev = s[ISSUE_CTRL + i]
    s[ISSUE_CTRL + i] = -1
    s[ISSUE_OPT + i] = -1
    push(s, P_BID, i, r, prev)


# ----------------------------------------------------------------------------- the uprising check
@njit(cache=True, _nrt=False)
def uprising_proc(s, T, kind, a):
    """Frame: a0 region code, a1 die modifier, a2 per-counter kind (-1), a3 otherwise-unrest,
    a4 otherwise-when (0 no uprising, 1 no unsettle), a5 decider, a6 affected seat, a7 issue."""
    f = top(s)
    st = s[f + F_STEP]
    if st == 12:
        st = 6                # back from the solitaire faction switch
        kind = 0
    if st == 0:
        m = check_regions(s, T, s[f + F_A0])
        s[UP_MASK] = m
        for r in range(N_REGIONS):
            s[UP_MOD + r] = 0
        s[UP_SEQ] = 0
        s[UP_REGION] = -1
        s[UP_RISEN] = 0
        s[UP_UNSETTLED] = 0
        s[f + F_STEP] = 2
        kc = s[f + F_A0 + 2]
        if kc >= 0 and count_counters(s, T, kc, -1) > 0:
            s[f + F_STEP] = 1
            decide(s, D_SIGN, s[f + F_A0 + 5])
            return
        st = 2
    if st == 1:
        # the decider adds or subtracts 1 per such counter (e.g. Bela Kun)
        c = count_counters(s, T, s[f + F_A0 + 2], -1)
        s[f + F_A0 + 1] += c if a - A_SIGN == 1 else -c
        s[f + F_STEP] = 2
        st = 2
        kind = 0
    if st == 2:
        n = s[NUM_PLAYERS]
        if kind == D_MODIFIER:
            seq = s[UP_SEQ]
            s[UP_MOD + seq // 4] += a - A_MODIFIER - 1
            s[UP_SEQ] = seq + 1
        # step 2a: players with units in columns 5-7 announce, before any die is rolled (EN:569)
        while s[UP_SEQ] < N_REGIONS * 4:
            seq = s[UP_SEQ]
            r, k = seq // 4, seq % 4
            if k < n and (s[UP_MASK] >> r) & 1 and T[T_THRESH + s[UNREST + r]] > 0:
                p = modifier_announcer(s, T, r, k)
                if p >= 0:
                    s[UP_REGION] = r          # the region this announcement is for (observed)
                    decide(s, D_MODIFIER, p)
                    return
            s[UP_SEQ] = seq + 1
        # step 2b: roll for every region now; 'X' columns are never rolled (EN:566-573)
        risen = 0
        for r in range(N_REGIONS):
            if (s[UP_MASK] >> r) & 1:
                th = T[T_THRESH + s[UNREST + r]]
                if th > 0 and roll_die(s) + s[UP_MOD + r] + s[f + F_A0 + 1] >= th:
                    risen |= 1 << r
        s[UP_RISEN] = risen
        s[UP_REGION] = -1
        s[f + F_STEP] = 4
        st = 4
        kind = 0
    if st == 5:
        # the leftmost unit's owner chose the affected player
        s[f + F_A0 + 6] = a - A_CHOOSE_PLAYER
        st = 6
        kind = 0
    if st == 7:
        s[f + F_A0 + 7] = a - A_CHOOSE_ISSUE
        st = 8
        kind = 0
    if st == 9:
        # back from bidding: step 5 reset unrest, step 6 the winner picks an option (EN:608-622)
        r = s[UP_REGION]
        reset_unrest_after_uprising(s, T, r)
        w = s[RET]
        s[f + F_STEP] = 4
        if w >= 0:
            push(s, P_OPTION, s[f + F_A0 + 7], w, 0, 0)
            return
        st = 4
    while st == 4:
        # steps 3-6 for each region with an uprising, top to bottom (EN:573)
        r = s[UP_REGION] + 1
        while r < N_REGIONS and not (s[UP_RISEN] >> r) & 1:
            r += 1
        if r >= N_REGIONS:
            s[UP_REGION] = -1
            st = 10
            break
        s[UP_REGION] = r
        best, tied = 0, 0
        for p in range(s[NUM_PLAYERS]):
            c = issues_in_region(s, T, p, r)
            if c > best:
                best, tied = c, 1 << p
            elif c == best and c > 0:
                tied |= 1 << p
        if best == 0:
            # no issues: no bid, but the powder keg still moves (EN:583-585, rulings A-07a)
            reset_unrest_after_uprising(s, T, r)
            continue
        s[UP_TIED] = tied
        if tied & (tied - 1) == 0:
            p = 0
            while not (tied >> p) & 1:
                p += 1
            s[f + F_A0 + 6] = p
            st = 6
            break
        chooser = leftmost_unit_owner(s, r)
        if chooser >= 0:
            s[f + F_STEP] = 5
            decide(s, D_AFFECTED, chooser)
            return
        # no military in the region: the tied players roll off, in seat order (clockwise from
        # seat 0, the UK); only those tied for the high roll reroll (EN:581 "Reroll ties until a
        # single player is selected"). The number of rerolls is bounded so that no loop depends on
        # the generator for its end: a tie still standing after MAX_ROLLOFF rounds (odds 6**-100
        # with a sound generator) goes to the first tied seat in that order (project ruling P-14)
        rounds = 0
        while tied & (tied - 1) != 0 and rounds < MAX_ROLLOFF:
            rounds += 1
            hi, high = 0, 0
            for j in range(s[NUM_PLAYERS]):
                p = clockwise(s, 0, j)
                if (tied >> p) & 1:
                    d = roll_die(s)
                    if d > hi:
                        hi, high = d, 1 << p
                    elif d == hi:
                        high |= 1 << p
            tied = high
        j = 0
        while not (tied >> clockwise(s, 0, j)) & 1:
            j += 1
        s[f + F_A0 + 6] = clockwise(s, 0, j)
        st = 6
    if st == 6 and s[MODE] == MODE_SOLO and s[f + F_STEP] != 12:
        # solitaire: an issue is about to be unsettled; the player switches faction before it is
        # chosen (EN:951, rulings A-33)
        s[f + F_STEP] = 12
        push(s, P_SWITCH)
        return
    if st == 6:
        p = s[f + F_A0 + 6]
        n, first, best = top_issues(s, T, p, s[UP_REGION])
        if n > 1:
            s[f + F_STEP] = 7
            decide(s, D_UPRISING_ISSUE, p)
            return
        s[f + F_A0 + 7] = first
        st = 8
    if st == 8:
        s[UP_UNSETTLED] = 1
        s[f + F_STEP] = 9
        _start_unsettle(s, T, s[f + F_A0 + 7], s[UP_REGION])
        return
    if st == 10:
        risen = s[UP_RISEN]
        d = s[f + F_A0 + 3]
        if d != 0:
            if (s[f + F_A0 + 4] == 0 and risen == 0) or (s[f + F_A0 + 4] == 1 and s[UP_UNSETTLED] == 0):
                for r in range(N_REGIONS):
                    if (s[UP_MASK] >> r) & 1:
                        move_unrest(s, T, r, d)
        s[f + F_STEP] = 11
        if risen != 0 and s[DRAFT_DONE] == 0 and s[MODE] != MODE_SOLO:     # no strategy cards in solitaire (EN:866)
            # the draft follows the first uprising, once, after all its regions (rulings A-08)
            push(s, P_DRAFT)
            return
        st = 11
    if st == 11:
        s[RET] = 1 if s[UP_RISEN] != 0 else 0
        pop(s)


# ----------------------------------------------------------------------------- bidding
@njit(cache=True, _nrt=False)
def _inreg_strength(s, T, p, r):
    if r < 0 or r >= N_REGIONS:
        return 0
    c = s[DEP_COL + p * N_REGIONS + r]
    return T[T_DEP_BID + c] if c > 0 else 0


@njit(cache=True, _nrt=False)
def _beats(st, inf, hst, hinf):
    return st > hst or (st == hst and inf > hinf)


@njit(cache=True, _nrt=False)
def _can_beat(s, T, p):
    f = top(s)
    i = s[f + F_A0]
    r = s[f + F_A0 + 1]
    nomil = T[T_ISSUE_NOMIL + i] == 1
    st = 0 if nomil else _inreg_strength(s, T, p, r) + min(3, s[MIL_AVAIL + p])
    return _beats(st, min(15, s[INF_AVAIL + p]), s[BID_STR], s[BID_INF])


@njit(cache=True, _nrt=False)
def legal_bid(s, T, p, out, n):
    """Complete offers that beat the standing bid: military first, influence breaks ties (rulings A-11)."""
    f = top(s)
    i = s[f + F_A0]
    r = s[f + F_A0 + 1]
    nomil = T[T_ISSUE_NOMIL + i] == 1
    ireg = 0 if nomil else _inreg_strength(s, T, p, r)
    nav = 0 if nomil else min(3, s[MIL_AVAIL + p])
    ninf = min(15, s[INF_AVAIL + p])
    hst, hinf = s[BID_STR], s[BID_INF]
    for use in range(2 if ireg > 0 else 1):
        for k in range(nav + 1):
            st = use * ireg + k
            for m in range(ninf + 1):
                if _beats(st, m, hst, hinf):
                    out[n] = A_BID + (use * 4 + k) * 16 + m
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def _offer_key(s, T, p, x, r):
    """(strength, influence) of offer x of p as one comparable number; -1 for no offer."""
    if x < 0:
        return -1
    return ((x // 64) * _inreg_strength(s, T, p, r) + (x // 16) % 4) * 16 + x % 16


@njit(cache=True, _nrt=False)
def solo_bid_proc(s, T, kind, a):
    """Solitaire bidding (EN:928-947, rulings A-32). Frame a3, a4: the offers (`bid` offsets, -1 none)
    of the two bots, in faction order. The bots' offers are fixed first: units by the chart,
    influence = PIV capped, and of two equal offers the bot with more available influence adds one
    cube. The player then beats the best offer or passes; on a pass the best bot wins, the player
    choosing between equal offers (EN:947)."""
    f = top(s)
    i = s[f + F_A0]
    r = s[f + F_A0 + 1]
    me = s[SOLO_FACTION]
    qa = 1 if me == 0 else 0
    qb = 3 - me - qa
    if s[f + F_STEP] == 0:
        s[BID_ISSUE] = i
        s[BID_PASSED] = 0
        s[BID_TURN] = me
        xa = bot_offer(s, T, qa, i, r)
        xb = bot_offer(s, T, qb, i, r)
        if xa >= 0 and _offer_key(s, T, qa, xa, r) == _offer_key(s, T, qb, xb, r):
            # EN:945: equal bids: the bot with more influence bids one more, if it has it
            if s[INF_AVAIL + qa] > s[INF_AVAIL + qb] and xa % 16 < min(15, s[INF_AVAIL + qa]):
                xa += 1
            elif s[INF_AVAIL + qb] > s[INF_AVAIL + qa] and xb % 16 < min(15, s[INF_AVAIL + qb]):
                xb += 1
        s[f + F_A0 + 3] = xa
        s[f + F_A0 + 4] = xb
        ka, kb = _offer_key(s, T, qa, xa, r), _offer_key(s, T, qb, xb, r)
        if ka >= kb:
            _set_high_bid(s, T, qa, xa, r)
        else:
            _set_high_bid(s, T, qb, xb, r)
        s[f + F_STEP] = 1
        if _can_beat(s, T, me):
            decide(s, D_BID, me)
            return
        kind = 0                       # nothing the player has beats it: a forced pass (P-02)
        a = A_BID_PASS
    if s[f + F_STEP] == 1:
        if kind == D_BID and a != A_BID_PASS:
            _set_high_bid(s, T, me, a - A_BID, r)
        else:
            s[BID_PASSED] = 1 << me
            ka = _offer_key(s, T, qa, s[f + F_A0 + 3], r)
            if ka >= 0 and ka == _offer_key(s, T, qb, s[f + F_A0 + 4], r):
                s[f + F_STEP] = 2
                decide(s, D_CHOOSE_FACTION, me)     # equal bot bids: the player's choice (EN:947)
                return
    elif s[f + F_STEP] == 2:
        q = a - A_CHOOSE_PLAYER
        _set_high_bid(s, T, q, s[f + F_A0 + 3] if q == qa else s[f + F_A0 + 4], r)
    _award_bid(s, T)


@njit(cache=True, _nrt=False)
def legal_bid_tie(s, out):
    """The two bots whose equal offers tie (solitaire, EN:947)."""
    k = 0
    for q in range(3):
        if q != s[SOLO_FACTION]:
            out[k] = A_CHOOSE_PLAYER + q
            k += 1
    return k


@njit(cache=True, _nrt=False)
def bid_proc(s, T, kind, a):
    """Frame: a0 issue, a1 region for in-region units (-1 none), a2 first bidder (the old controller)."""
    if s[MODE] == MODE_SOLO:
        solo_bid_proc(s, T, kind, a)
        return
    f = top(s)
    n = s[NUM_PLAYERS]
    if s[f + F_STEP] == 0:
        s[BID_ISSUE] = s[f + F_A0]
        s[BID_HIGH] = -1
        s[BID_STR] = 0
        s[BID_INF] = 0
        s[BID_INREG] = 0
        s[BID_NAVAIL] = 0
        # the 2-player USA does not bid (EN:825)
        s[BID_PASSED] = (1 << USA_FACTION) if s[MODE] == MODE_TWO else 0
        first = s[f + F_A0 + 2]
        if first == USA_FACTION and s[MODE] == MODE_TWO:
            # EN:591 starts with the issue's controller; the 2-player USA is controlled by the player whose
            # turn it is (EN:791) and does not bid (EN:825): that player starts (rulings A-19 c)
            first = turn_player(s)
        s[BID_TURN] = first if first >= 0 else s[ACTIVE]
        s[f + F_STEP] = 1
    if kind == D_BID:
        p = s[BID_TURN]
        if a == A_BID_PASS:
            s[BID_PASSED] |= 1 << p
        else:
            _set_high_bid(s, T, p, a - A_BID, s[f + F_A0 + 1])
        s[BID_TURN] = clockwise(s, p, 1)
    # next bidder: clockwise, skipping passed players and the standing high bidder (EN:591-601)
    for _ in range(n):
        p = s[BID_TURN]
        if not (s[BID_PASSED] >> p) & 1 and p != s[BID_HIGH]:
            if _can_beat(s, T, p):
                decide(s, D_BID, p)
                return
            s[BID_PASSED] |= 1 << p     # nothing beats the standing bid: a forced pass
        s[BID_TURN] = clockwise(s, p, 1)
    # all others have passed: the high bidder wins and pays the whole final offer (rulings A-11)
    _award_bid(s, T)


@njit(cache=True, _nrt=False)
def _set_high_bid(s, T, p, x, r):
    """Record offer x (a `bid` action offset) of p as the standing high bid (-1: none)."""
    s[BID_HIGH] = p if x >= 0 else -1
    if x < 0:
        x = 0
    use, k, m = x // 64, (x // 16) % 4, x % 16
    s[BID_STR] = use * _inreg_strength(s, T, p, r) + k
    s[BID_INF] = m
    s[BID_INREG] = use
    s[BID_NAVAIL] = k


@njit(cache=True, _nrt=False)
def _award_bid(s, T):
    """The high bidder takes the issue and pays its whole offer (rulings A-11); with no bid the issue
    goes to the top of the discards (EN:605, rulings A-38). Ends the bid frame."""
    f = top(s)
    i = s[f + F_A0]
    r = s[f + F_A0 + 1]
    w = s[BID_HIGH]
    s[RET] = w
    pop(s)
    if w < 0:
        s[ISSUE_DISC + s[ISSUE_DISC_N]] = i
        s[ISSUE_DISC_N] += 1
        return
    units = s[BID_INREG] + s[BID_NAVAIL]
    if s[BID_INREG] == 1:
        s[DEP_COL + w * N_REGIONS + r] = 0
    s[MIL_AVAIL + w] -= s[BID_NAVAIL]
    s[MIL_EXH + w] += units
    s[INF_AVAIL + w] -= s[BID_INF]
    s[INF_EXH + w] += s[BID_INF]
    s[ISSUE_CTRL + i] = w
    change_happiness(s, T, w, -units)       # 1 per unit, not per strength (Q&A IT:2383-2386)
    push_mutiny_if_needed(s, T)



# ----------------------------------------------------------------------------- strategy draft
@njit(cache=True, _nrt=False)
def legal_draft(s, T, out):
    k = 0
    for j in range(n_players(s) + T[T_STRAT_EXTRA]):
        c = s[STRAT_DEALT + j]
        taken = False
        for p in range(n_players(s)):
            if s[PLAYER_STRAT + p] == c:
                taken = True
        if c >= 0 and not taken:
            out[k] = A_DRAFT + c
            k += 1
    return k


@njit(cache=True, _nrt=False)
def draft_proc(s, T, kind, a):
    """Lowest star total picks first; ties: closest clockwise from the active player (EN:682-690).
    The 2-player USA drafts no card (EN:825)."""
    f = top(s)
    n = n_players(s)
    if s[f + F_STEP] == 0:
        for k in range(n):
            # the 2-player game: the two players alternate (the USA drafts no card, EN:825)
            s[DRAFT_ORDER + k] = (turn_player(s) + k) % n if s[MODE] == MODE_TWO else clockwise(s, s[ACTIVE], k)
        # stable insertion sort by star total keeps the clockwise tie order
        for k in range(1, n):
            j = k
            while j > 0 and star_total(s, T, s[DRAFT_ORDER + j]) < star_total(s, T, s[DRAFT_ORDER + j - 1]):
                t = s[DRAFT_ORDER + j]
                s[DRAFT_ORDER + j] = s[DRAFT_ORDER + j - 1]
                s[DRAFT_ORDER + j - 1] = t
                j -= 1
        s[f + F_STEP] = 1
        s[f + F_A0] = 0
    if kind == D_DRAFT:
        p = s[DRAFT_ORDER + s[f + F_A0]]
        s[PLAYER_STRAT + p] = a - A_DRAFT
        s[f + F_A0] += 1
    if s[f + F_A0] < n:
        decide(s, D_DRAFT, s[DRAFT_ORDER + s[f + F_A0]])
        return
    s[DRAFT_DONE] = 1
    pop(s)
