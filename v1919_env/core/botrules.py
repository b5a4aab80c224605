"""The designers' solitaire bot priorities (EN 'Solitaire Rules', EN:888-947) as compiled rules,
generalised to any seat of a 3- or 4-player game; the one source of the bot rules for the
`rulebot` agent (core/bots.py) and the solitaire game (core/solo.py).

`bot_choose(s, T, buf, n, rng)` returns the bot's action id for the pending decision (whoever must
decide). It reads only what every player sees (never the deck orders); its only randomness is the
die the rules roll between tied regions (EN:898), drawn from `rng` (uint64[1], the policy's own
generator), so the game's dice are untouched. It may name an action the position does not allow;
`bot_action` (core/bots.py) then takes the first legal id.

Issue value and PIV (EN:850-854). The solitaire factions' strategy icons do not exist in the
3- and 4-player game; the value of a counter to a seat (`counter_value`) is what it would add to
that seat's final score: the flag VP of its own naval/empire counters (EN:731) plus what its
strategy card pays for that counter (EN:737-749; nothing before the draft). The PIV of an issue
for a seat is the best option's stars + counter values, plus the card's bonus for controlling an
issue of that category.

Where the rules say "player's choice" or say nothing for a non-solitaire seat, the policy is the
one written beside each decision below and listed in docs/agents.md.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .actions import (A_ACCEPT, A_ADD_ISSUE, A_ADV_ISSUE, A_BID, A_BID_PASS, A_BRANCH,
                      A_CHOOSE_ISSUE, A_CHOOSE_PLAYER, A_CHOOSE_REGION, A_DEMOB, A_DEPLOY, A_DRAFT, A_END_TURN,
                      A_FLAG, A_KEEP, A_MODIFIER, A_OPTION, A_PASS_POLITICAL, A_PLACE, A_RECLAIM, A_SETTLE, A_SIGN,
                      A_TO_AVAIL, A_TO_EXH)
from .board import (SOLO_ICONS, _policy_index, _policy_next, is_solo_icon, issues_in_region, slot_leader,
                    slot_total, star_total, top, units_in_play, unit_at)
from .layout import (BID_HIGH, D_ADD_ISSUE, D_ADV_EVENT, D_ADV_ISSUE, D_AFFECTED, D_BID, D_BRANCH, D_CHOOSE_PLAYER,
                     D_CHOOSE_REGION, D_DEMOB, D_DEPLOY, D_DRAFT, D_EVENT_CUBE, D_KEEP, D_MODIFIER, D_MUTINY, D_NAVAL,
                     D_OPTION, D_OPTIONAL, D_PLACE2, D_SIGN, D_TO_AVAIL, D_TO_EXH, D_TURN, D_UNSETTLE,
                     D_UPRISING_ISSUE, D_WAITING_ISSUE, DEMOB_NEXT, DEP_COL, EV_REG, F_A0, F_PROC, HAPPY,
                     INF_AVAIL, MODE, MODE_SOLO, INF_EXH, ISSUE_CTRL, MAX_PLAYERS, MIL_AVAIL, MIL_DONE,
                     MIL_EXH, N_ISSUES, N_REGIONS, N_SLOTS, N_TABLE, NUM_PLAYERS, PENDING, PENDING_FACTION,
                     ISSUE_OPT, PLAYER_STRAT, POL_DONE, P_UPRISING, SLOT_CUBES, SLOT_ISSUE,
                     UNREST, UP_MASK, UP_REGION, UP_TIED)
from .scoring import seat_score
from .tables import (ANY_FLAG, C_COUNTERS, C_ISSUES, C_ISSUE_REGIONS, CONDW, EV_LEN, MAX_COND,
                     OP_HAPPY, OP_BRANCH_END, OP_KEG, OP_UNREST, OPW, T_DEMOB_LAST, T_DEMOB_N, T_DEMOB_VAL,
                     T_DEP_HAPPY, T_EV_CODE, T_FIRST_DEP_COL, T_FLAG_VP, T_ISSUE_CAT, T_ISSUE_NOMIL, T_ISSUE_NOPT,
                     T_ISSUE_STARS, T_OPT_CTR, T_OPT_HAPPY, T_OPT_NAVAL, T_RECLAIM_MAX, T_STRAT_COND,
                     T_STRAT_NCOND, T_TRACK_COLS, T_UNITS_ALLOWED)
from .turn import need_to_lead
from .vocab import N_COUNTERS


BOT_DEPLOY_COL = 7        # EN:896: the 7 column, else the 8 column
BOT_DEPLOY_COL_ALT = 8
BOT_MIL_UNREST = 4        # EN:896: unrest on the 4 column or higher
BOT_BID_UNITS = (0, 1, 1, 2)   # EN:934-939: total units 1 -> 1, 2 -> 1, 3 -> 2
UK_SEAT, USA_SEAT = 0, 2  # seats of the nations that may flag UK-or-USA naval counters


# ----------------------------------------------------------------------------- values (EN:850-858)
@njit(cache=True, _nrt=False)
def counter_value(s, T, p, slot):
    """VP one counter of a COUNTERS slot adds to seat p's final score: own-flag naval/empire
    counters (EN:731) and its strategy card's counter conditions (EN:737-749). In the solitaire
    game: 1 for each of p's faction strategy icons, nothing else (EN:844-850)."""
    if s[MODE] == MODE_SOLO:
        return 1 if is_solo_icon(p, slot) else 0
    v = 0
    if slot >= 5 and (slot - 5) % 5 == p:
        v += T[T_FLAG_VP]
    c = s[PLAYER_STRAT + p]
    if c >= 0:
        for j in range(T[T_STRAT_NCOND + c]):
            b = T_STRAT_COND + (c * MAX_COND + j) * CONDW
            if T[b] != C_COUNTERS:
                continue
            kind, flag = T[b + 1], T[b + 2]
            if kind < 5:
                hit = slot == kind
            else:
                base = 5 if kind == 5 else 10
                hit = base <= slot < base + 5 and (flag == ANY_FLAG or slot - base == flag)
            if hit:
                v += T[b + 3]
    return v


@njit(cache=True, _nrt=False)
def _category_bonus(s, T, p, i):
    """Strategy-card VP for controlling one more issue of issue i's category (or region)."""
    c = s[PLAYER_STRAT + p]
    if c < 0:
        return 0
    v = 0
    cat = T[T_ISSUE_CAT + i]
    for j in range(T[T_STRAT_NCOND + c]):
        b = T_STRAT_COND + (c * MAX_COND + j) * CONDW
        if T[b] == C_ISSUES and (T[b + 1] >> cat) & 1:
            v += T[b + 3]
        elif T[b] == C_ISSUE_REGIONS and cat < N_REGIONS and issues_in_region(s, T, p, cat) == 0:
            v += T[b + 1]
    return v


@njit(cache=True, _nrt=False)
def option_counter_value(s, T, p, i, o):
    """Value to p of the counters option o of issue i places (UK-or-USA naval counters at the
    better of the two flags)."""
    v = 0
    row = T_OPT_CTR + (i * 4 + o) * N_COUNTERS
    if s[MODE] == MODE_SOLO:
        # counter_value is 1 on p's icons (distinct slots), else 0: only those slots count
        if p < SOLO_ICONS.shape[0]:
            for j in range(SOLO_ICONS.shape[1]):
                v += T[row + SOLO_ICONS[p, j]]
    else:
        for slot in range(N_COUNTERS):
            k = T[row + slot]
            if k != 0:
                v += k * counter_value(s, T, p, slot)
    nav = T[T_OPT_NAVAL + i * 4 + o]
    if nav > 0:
        v += nav * max(counter_value(s, T, p, 5 + UK_SEAT), counter_value(s, T, p, 5 + USA_SEAT))
    return v


@njit(cache=True, _nrt=False)
def option_value(s, T, p, i, o):
    """Issue value of option o of issue i for seat p: stars + counters (EN:850)."""
    return T[T_ISSUE_STARS + i] + option_counter_value(s, T, p, i, o) + _category_bonus(s, T, p, i)


@njit(cache=True, _nrt=False)
def piv(s, T, p, i):
    """Potential Issue Value: the value of the best option for p (EN:854)."""
    best = -(1 << 30)
    for o in range(max(1, T[T_ISSUE_NOPT + i])):
        v = option_value(s, T, p, i, o)
        if v > best:
            best = v
    return best


# ----------------------------------------------------------------------------- small helpers
@njit(cache=True, _nrt=False)
def _is_legal(buf, n, a):
    for j in range(n):
        if buf[j] == a:
            return True
    return False


@njit(cache=True, _nrt=False)
def policy_below(rng, n):
    """Uniform integer in [0, n) from a policy's own generator (uint64[1]), never the game's."""
    rng[0] = _policy_next(rng[0])
    return _policy_index(rng[0], n)


@njit(cache=True, _nrt=False)
def _die(rng):
    return policy_below(rng, 6) + 1


@njit(cache=True, _nrt=False)
def region_exposure(s, T, p, r):
    """p's issues in region r minus the most any other seat has there (>= 0: p would be, or
    might be, the affected player of an uprising there, EN:577-581)."""
    mine = issues_in_region(s, T, p, r)
    most = 0
    for q in range(s[NUM_PLAYERS]):
        if q != p:
            c = issues_in_region(s, T, q, r)
            if c > most:
                most = c
    return mine - most


@njit(cache=True, _nrt=False)
def _exposed(s, T, p, r):
    return issues_in_region(s, T, p, r) > 0 and region_exposure(s, T, p, r) >= 0


@njit(cache=True, _nrt=False)
def _best_star_in_region(s, T, p, r):
    best = 0
    for i in range(N_ISSUES):
        if s[ISSUE_CTRL + i] == p and T[T_ISSUE_CAT + i] == r and T[T_ISSUE_STARS + i] > best:
            best = T[T_ISSUE_STARS + i]
    return best


@njit(cache=True, _nrt=False)
def _leader_seat(s, T, p, mask):
    """Among the seats in mask other than p: the one with the most stars (lowest seat on ties);
    p itself if it is the only one."""
    best, who = -1, -1
    for q in range(s[NUM_PLAYERS]):
        if (mask >> q) & 1 and q != p:
            st = star_total(s, T, q)
            if st > best:
                best, who = st, q
    return who if who >= 0 else p


@njit(cache=True, _nrt=False)
def _deploy_id(T, src, r, c):
    return A_DEPLOY + (src * N_REGIONS + r) * 4 + c - T[T_FIRST_DEP_COL]


@njit(cache=True, _nrt=False)
def _forced_demob_after_loss(s, T, p, loss):
    """Would losing `loss` happiness put p over its unit limit (a forced demobilization, EN:533)?"""
    h = s[HAPPY + p]
    if h == 0 or loss <= 0:
        return False
    h = max(h - loss, 0)
    return units_in_play(s, T, p) > T[T_UNITS_ALLOWED + h]


# ----------------------------------------------------------------------------- military (EN:894-899)
@njit(cache=True, _nrt=False)
def bot_deploy_col(s, T, p, r):
    """Military priority 1 (EN:896) in region r: the column for a unit from Available, the 7 column
    (the 8 column if the 7 is occupied or would force a demobilization; none if both are) when unrest
    there is on the 4+ column, p has the most or tied-most issues there and no unit yet; -1: none."""
    if s[MIL_AVAIL + p] == 0 or s[UNREST + r] < BOT_MIL_UNREST or s[DEP_COL + p * N_REGIONS + r] > 0 \
            or not _exposed(s, T, p, r):
        return -1
    c7, c8 = BOT_DEPLOY_COL, BOT_DEPLOY_COL_ALT
    if c7 <= T[T_TRACK_COLS] and unit_at(s, r, c7) < 0 and not _forced_demob_after_loss(s, T, p, T[T_DEP_HAPPY + c7]):
        return c7
    if c8 <= T[T_TRACK_COLS] and unit_at(s, r, c8) < 0:
        return c8
    return -1


@njit(cache=True, _nrt=False)
def bot_deploy_in(s, T, p, r):
    """`bot_deploy_col` as the deploy action from Available, or -1."""
    c = bot_deploy_col(s, T, p, r)
    return -1 if c < 0 else _deploy_id(T, 0, r, c)


@njit(cache=True, _nrt=False)
def deploy_rank(s, T, p, r):
    """EN:898 placement tie-break between regions: the most issues of p there, then its highest star
    value there (larger is preferred; a die decides what is still tied)."""
    return issues_in_region(s, T, p, r) * 100 + _best_star_in_region(s, T, p, r)


@njit(cache=True, _nrt=False)
def bot_deploy(s, T, p, buf, n, rng):
    """Military priority 1 (EN:896, `bot_deploy_in`) with the placement tie-breaks of priority 3
    (EN:898): several regions: most issues there, then the highest-star issue, then a die per region
    (the bot's own die; ties reroll). Returns the action or -1."""
    best_a, best_k, best_die = -1, -1, -1
    for r in range(N_REGIONS):
        a = bot_deploy_in(s, T, p, r)
        if a < 0 or not _is_legal(buf, n, a):
            continue
        k = deploy_rank(s, T, p, r)
        if k > best_k:
            best_a, best_k, best_die = a, k, -1
        elif k == best_k:
            # EN:898: roll a die for each tied region, the higher roll wins (ties reroll)
            if best_die < 0:
                best_die = _die(rng)
            d = _die(rng)
            while d == best_die:
                best_die = _die(rng)
                d = _die(rng)
            if d > best_die:
                best_a, best_die = a, d
    return best_a


@njit(cache=True, _nrt=False)
def _demob_gain(s, T):
    np_ = s[NUM_PLAYERS]
    if s[DEMOB_NEXT] >= T[T_DEMOB_N + np_]:
        return T[T_DEMOB_LAST]
    return T[T_DEMOB_VAL + np_ * 12 + s[DEMOB_NEXT]]


@njit(cache=True, _nrt=False)
def happiness_to_forced_demob(s, T, p):
    """Happiness p can lose before a forced demobilization (EN:533); 99 with no unit in play."""
    u = units_in_play(s, T, p)
    h = s[HAPPY + p]
    if u == 0 or h == 0:
        return 99
    for k in range(1, h + 1):
        if u > T[T_UNITS_ALLOWED + h - k]:
            return k
    return 99


@njit(cache=True, _nrt=False)
def demob_source(s, T, p, base, buf, n):
    """Which unit to demobilize (player's choice, project policy): Exhausted, then Available, then
    the deployed unit in the region where p is least exposed (lowest region on ties)."""
    if _is_legal(buf, n, base + 1):
        return base + 1
    if _is_legal(buf, n, base):
        return base
    best, who = 1 << 30, -1
    for r in range(N_REGIONS):
        if s[DEP_COL + p * N_REGIONS + r] > 0 and _is_legal(buf, n, base + 2 + r):
            e = region_exposure(s, T, p, r) if issues_in_region(s, T, p, r) > 0 else -100
            if e < best:
                best, who = e, base + 2 + r
    return who


@njit(cache=True, _nrt=False)
def bot_military(s, T, p, buf, n, rng):
    """The military action the bot wants now (EN:896-898), or -1: deploy (priority 1, preferred to
    demobilizing, EN:898) else demobilize when 1 or 2 happiness from a forced demobilization and the
    next demobilize space gives 2+ happiness (priority 2, EN:897)."""
    a = bot_deploy(s, T, p, buf, n, rng)
    if a >= 0:
        return a
    if happiness_to_forced_demob(s, T, p) <= 2 and _demob_gain(s, T) >= 2:
        return demob_source(s, T, p, A_DEMOB, buf, n)
    return -1


# ----------------------------------------------------------------------------- political (EN:903-908)
@njit(cache=True, _nrt=False)
def _slot_piv(s, T, p, sl):
    return piv(s, T, p, s[SLOT_ISSUE + sl])


@njit(cache=True, _nrt=False)
def bot_settle_own(s, T, p):
    """Priority 1 (EN:905): the table issue p is winning with the highest PIV (the lower slot on
    ties, the player's choice); -1 if it wins none."""
    best, who = -(1 << 30), -1
    for sl in range(N_TABLE):
        if s[SLOT_ISSUE + sl] >= 0 and slot_total(s, sl) > 0 and slot_leader(s, sl) == p:
            v = _slot_piv(s, T, p, sl)
            if v > best:
                best, who = v, sl
    return -1 if who < 0 else A_SETTLE + who


@njit(cache=True, _nrt=False)
def _best_partner(s, T, p, first, budget):
    """Slot for the second placement: the highest PIV p can lead with the budget, then the
    cheapest, then the lowest slot; -1 if none."""
    best_v, best_c, who = -(1 << 30), 99, -1
    for sl in range(N_SLOTS):
        if sl == first or s[SLOT_ISSUE + sl] < 0:
            continue
        c = need_to_lead(s, sl, p)
        if c > budget or c > 15:
            continue
        v = _slot_piv(s, T, p, sl)
        if v > best_v or (v == best_v and c < best_c):
            best_v, best_c, who = v, c, sl
    return who


@njit(cache=True, _nrt=False)
def bot_place_first(s, T, p):
    """Priority 2 (EN:906): two issues p can lead on both with the fewest cubes; the player's choice
    of the two is the pair with the highest PIV sum (then the cheapest, then the lowest slots).
    The first placement goes on the lower slot of the pair; -1 if no pair is affordable."""
    avail = s[INF_AVAIL + p]
    best_v, best_c, best_a = -(1 << 30), 99, -1
    for a in range(N_SLOTS):
        if s[SLOT_ISSUE + a] < 0:
            continue
        ca = need_to_lead(s, a, p)
        if ca > 15:
            continue
        va = _slot_piv(s, T, p, a)
        for b in range(a + 1, N_SLOTS):
            if s[SLOT_ISSUE + b] < 0:
                continue
            cb = need_to_lead(s, b, p)
            if cb > 15 or ca + cb > avail:
                continue
            v = va + _slot_piv(s, T, p, b)
            if v > best_v or (v == best_v and ca + cb < best_c):
                best_v, best_c, best_a = v, ca + cb, A_PLACE + a * 15 + ca - 1
    return best_a


@njit(cache=True, _nrt=False)
def bot_place_second(s, T, p):
    """The second placement: the best partner of the first slot with the cubes left, minimum cubes."""
    first = s[top(s) + F_A0]
    sl = _best_partner(s, T, p, first, s[INF_AVAIL + p])
    if sl < 0:
        return -1
    return A_PLACE + sl * 15 + need_to_lead(s, sl, p) - 1


@njit(cache=True, _nrt=False)
def bot_reclaim(s, T, p):
    """Priority 3 (EN:907, "six Influence and all Military, as normal"): six influence (or all there
    is) and every exhausted unit; deployed units stay, for the solitaire bots and the rulebot alike
    (rulings A-16: the normal Reclaim takes exhausted units and only *may* recall deployed ones,
    EN:278, and the rules summary reads "Reclaim inf/mil from Exhausted", EN:971). -1 if there is
    nothing to take back."""
    k = min(T[T_RECLAIM_MAX], s[INF_EXH + p])
    if k == 0 and s[MIL_EXH + p] == 0:
        return -1
    return A_RECLAIM + k * 32


@njit(cache=True, _nrt=False)
def bot_settle_other(s, T, p):
    """Priority 4 (EN:908): settle a table issue another seat is winning (the one worth least to its
    leader, then the lower slot); else a table issue nobody leads (the engine requires a political
    action when one is legal, rulings A-28); -1 if neither."""
    best, who, tied = 1 << 30, -1, -1
    for sl in range(N_TABLE):
        if s[SLOT_ISSUE + sl] < 0 or slot_total(s, sl) == 0:
            continue
        q = slot_leader(s, sl)
        if q < 0:
            if tied < 0:
                tied = sl
            continue
        if q != p:
            v = piv(s, T, q, s[SLOT_ISSUE + sl])
            if v < best:
                best, who = v, sl
    if who < 0:
        who = tied
    return -1 if who < 0 else A_SETTLE + who


@njit(cache=True, _nrt=False)
def bot_political(s, T, p, buf, n):
    for k in range(4):
        if k == 0:
            a = bot_settle_own(s, T, p)
        elif k == 1:
            a = bot_place_first(s, T, p)
        elif k == 2:
            a = bot_reclaim(s, T, p)
        else:
            a = bot_settle_other(s, T, p)
        if a >= 0 and _is_legal(buf, n, a):
            return a
    return A_PASS_POLITICAL


@njit(cache=True, _nrt=False)
def bot_turn(s, T, p, buf, n, rng):
    """EN:899: the military action comes before the political one when its criteria hold at the start
    of the turn, else it is checked again after it; one military action per turn. The bot never
    uses the negotiation transfer."""
    if s[MIL_DONE] == 0:
        a = bot_military(s, T, p, buf, n, rng)
        if a >= 0 and _is_legal(buf, n, a):
            return a
    if s[POL_DONE] == 0:
        return bot_political(s, T, p, buf, n)
    return A_END_TURN


# ----------------------------------------------------------------------------- settling (EN:914-921)
@njit(cache=True, _nrt=False)
def bot_option(s, T, p, i):
    """EN:916: the highest-PIV option, then the least unhappiness for p's nation, then (the player's
    choice) the lowest option index."""
    best_v, best_h, who = -(1 << 30), -(1 << 30), 0
    for o in range(max(1, T[T_ISSUE_NOPT + i])):
        v = option_value(s, T, p, i, o)
        h = T[T_OPT_HAPPY + (i * 4 + o) * 5 + p]
        if v > best_v or (v == best_v and h > best_h):
            best_v, best_h, who = v, h, o
    return A_OPTION + who


@njit(cache=True, _nrt=False)
def bot_naval_flag(s, T, p):
    """UK-or-USA naval counter (player's choice): the flag worth more to p; on a tie its own flag if
    p is the UK or the USA, else the flag of whichever of the two has fewer stars (the UK on ties)."""
    vu, va = counter_value(s, T, p, 5 + UK_SEAT), counter_value(s, T, p, 5 + USA_SEAT)
    if vu != va:
        return A_FLAG + (0 if vu > va else 1)
    if p == UK_SEAT or p == USA_SEAT:
        return A_FLAG + (0 if p == UK_SEAT else 1)
    if USA_SEAT < s[NUM_PLAYERS] and star_total(s, T, USA_SEAT) < star_total(s, T, UK_SEAT):
        return A_FLAG + 1
    return A_FLAG


@njit(cache=True, _nrt=False)
def bot_advance_issue(s, T, p):
    """EN:918: a waiting issue p is winning, else one with no influence, else (player's choice) the
    one p needs the fewest cubes to lead; the highest PIV, then the lowest slot, within each."""
    best_k, best_v, who = 99, -(1 << 30), -1
    for sl in range(N_TABLE, N_SLOTS):
        if s[SLOT_ISSUE + sl] < 0:
            continue
        if slot_total(s, sl) > 0 and slot_leader(s, sl) == p:
            k = 0
        elif slot_total(s, sl) == 0:
            k = 1
        else:
            k = 2 + need_to_lead(s, sl, p)
        v = _slot_piv(s, T, p, sl)
        if k < best_k or (k == best_k and v > best_v):
            best_k, best_v, who = k, v, sl
    return A_ADV_ISSUE + who - N_TABLE


# ----------------------------------------------------------------------------- uprisings and bids (EN:924-947)
@njit(cache=True, _nrt=False)
def bot_modifier(s, T, p):
    """EN:926: -1 when p would be (or, tied, might be) the affected player of an uprising in the
    region, else +1."""
    r = s[UP_REGION]
    if r >= 0 and _exposed(s, T, p, r):
        return A_MODIFIER
    return A_MODIFIER + 2


@njit(cache=True, _nrt=False)
def bot_offer(s, T, p, i, r):
    """EN:930-943: the bot's offer for issue i (in-region units: region r, -1 none) as a `bid` action
    offset: units by the 3->2, 2->1, 1->1 chart of its units in play (not strength), the in-region
    unit first, then Available ones; influence = PIV, capped by what p has. -1: no offer at all."""
    want = 0 if T[T_ISSUE_NOMIL + i] == 1 else BOT_BID_UNITS[min(units_in_play(s, T, p), 3)]
    use = 0
    if want > 0 and 0 <= r < N_REGIONS and s[DEP_COL + p * N_REGIONS + r] > 0:
        use = 1
    k = max(min(want - use, s[MIL_AVAIL + p], 3), 0)
    m = max(min(piv(s, T, p, i), s[INF_AVAIL + p], 15), 0)
    if use + k + m == 0:
        return -1
    return (use * 4 + k) * 16 + m


@njit(cache=True, _nrt=False)
def bot_bid(s, T, p, buf, n):
    """EN:930-945: units by the 3->2, 2->1, 1->1 chart (not strength), the in-region unit first;
    influence = PIV, capped by what p has. Sequential bidding: the bot makes that offer if it beats
    the standing bid; if it only equals it and p has more available influence than the high bidder,
    it offers 1 more influence (EN:945); else it passes."""
    f = top(s)
    a = A_BID + max(bot_offer(s, T, p, s[f + F_A0], s[f + F_A0 + 1]), 0)
    m = (a - A_BID) % 16
    if _is_legal(buf, n, a):
        return a
    # not better than the standing bid: equal offers get one more influence from the richer bot
    h = s[BID_HIGH]
    if h >= 0 and m + 1 <= min(15, s[INF_AVAIL + p]) and s[INF_AVAIL + p] > s[INF_AVAIL + h]:
        a2 = a + 1
        if _is_legal(buf, n, a2):
            return a2
    return A_BID_PASS


# ----------------------------------------------------------------------------- choices outside the bot rules
@njit(cache=True, _nrt=False)
def bot_draft(s, T, p, buf, n):
    """Strategy draft (no strategy cards in solitaire, EN:866; policy): the card that would give p
    the highest final score now, the lowest number on ties."""
    keep = s[PLAYER_STRAT + p]
    best, who = -(1 << 30), buf[0]
    for j in range(n):
        s[PLAYER_STRAT + p] = buf[j] - A_DRAFT
        stars, flags, strat, hv = seat_score(s, T, p)
        if stars + flags + strat + hv > best:
            best, who = stars + flags + strat + hv, buf[j]
    s[PLAYER_STRAT + p] = keep
    return who


@njit(cache=True, _nrt=False)
def _event_row(s, T):
    f = top(s)
    return T_EV_CODE + ((s[f + F_A0] * 2 + s[f + F_A0 + 1]) * EV_LEN + s[f + F_A0 + 2]) * OPW


@njit(cache=True, _nrt=False)
def bot_region(s, T, p, buf, n):
    """Region choice of an event (player's choice, EN:917): for effects that add unrest or a powder
    keg, or regions chosen for a later effect, the offered region where p is least exposed; for
    effects that remove them, the one where p is most exposed; the lowest region on ties."""
    b = _event_row(s, T)
    op = T[b]
    harm = True
    if (op == OP_UNREST or op == OP_KEG) and T[b + 2] < 0:
        harm = False
    best, who = 1 << 30, buf[0]
    for j in range(n):
        r = buf[j] - A_CHOOSE_REGION
        e = region_exposure(s, T, p, r) if issues_in_region(s, T, p, r) > 0 else -100
        key = e if harm else -e
        if key < best:
            best, who = key, buf[j]
    return who


@njit(cache=True, _nrt=False)
def bot_sign(s, T, p):
    """Add-or-remove effects (player's choice): remove (or subtract) when p is exposed in a region
    the effect touches, else add."""
    if s[top(s) + F_PROC] == P_UPRISING:
        m = s[UP_MASK]
    else:
        m = s[EV_REG] - 64 if s[EV_REG] >= 64 else 0
    for r in range(N_REGIONS):
        if (m >> r) & 1 and _exposed(s, T, p, r):
            return A_SIGN
    return A_SIGN + 1


@njit(cache=True, _nrt=False)
def bot_branch(s, T, p, buf, n):
    """Event branch (player's choice): the first offered branch that does not lower p's happiness,
    else the first offered."""
    f = top(s)
    b = _event_row(s, T)
    e, part = s[f + F_A0], s[f + F_A0 + 1]
    for j in range(n):
        k = buf[j] - A_BRANCH
        pc = T[b + 4 + k]
        hurts = False
        while pc < EV_LEN:
            rb = T_EV_CODE + ((e * 2 + part) * EV_LEN + pc) * OPW
            if T[rb] == OP_BRANCH_END:
                break
            if T[rb] == OP_HAPPY and T[rb + 2] < 0:
                hurts = True
            pc += 1
        if not hurts:
            return buf[j]
    return buf[0]


@njit(cache=True, _nrt=False)
def bot_unsettle(s, T, p, buf, n):
    """Issue to unsettle (player's choice): another seat's issue with the most stars (its controller
    the richest in stars on ties, then the lowest issue); else p's own with the fewest stars."""
    best, who = -(1 << 30), buf[0]
    for j in range(n):
        i = buf[j] - A_CHOOSE_ISSUE
        q = s[ISSUE_CTRL + i]
        st = T[T_ISSUE_STARS + i]
        key = (st * 1000 + star_total(s, T, q)) if q != p else -(1000 + st)
        if key > best:
            best, who = key, buf[j]
    return who


@njit(cache=True, _nrt=False)
def bot_waiting_issue(s, p, buf, n):
    """Waiting issue whose cubes go back (player's choice): the most other cubes minus own."""
    best, who = -(1 << 30), buf[0]
    for j in range(n):
        i = buf[j] - A_CHOOSE_ISSUE
        for sl in range(N_TABLE, N_SLOTS):
            if s[SLOT_ISSUE + sl] == i:
                v = slot_total(s, sl) - 2 * s[SLOT_CUBES + sl * MAX_PLAYERS + p]
                if v > best:
                    best, who = v, buf[j]
    return who


@njit(cache=True, _nrt=False)
def bot_event_deploy(s, T, p, buf, n, rng):
    """Deploy action of an event: the military priority's region and column when there is one,
    else the offered deploy that costs the least happiness (the first on ties)."""
    a = bot_deploy(s, T, p, buf, n, rng)
    if a >= 0:
        return a
    best, who = 1 << 30, buf[0]
    for j in range(n):
        c = (buf[j] - A_DEPLOY) % 4 + T[T_FIRST_DEP_COL]
        if T[T_DEP_HAPPY + c] < best:
            best, who = T[T_DEP_HAPPY + c], buf[j]
    return who


@njit(cache=True, _nrt=False)
def bot_to_exhausted(s, T, p, buf, n):
    """A deployed unit to Exhausted (player's choice): where p is least exposed."""
    best, who = 1 << 30, buf[0]
    for j in range(n):
        r = buf[j] - A_TO_EXH
        e = region_exposure(s, T, p, r) if issues_in_region(s, T, p, r) > 0 else -100
        if e < best:
            best, who = e, buf[j]
    return who


@njit(cache=True, _nrt=False)
def bot_uprising_issue(s, T, p, buf, n):
    """Which of p's equal-star issues is unsettled (p's choice): the one whose counters are worth
    least to p (the lowest issue on ties)."""
    best, who = 1 << 30, buf[0]
    for j in range(n):
        i = buf[j] - A_CHOOSE_ISSUE
        o = s[ISSUE_OPT + i]
        v = option_counter_value(s, T, p, i, o) if o >= 0 else 0
        if v < best:
            best, who = v, buf[j]
    return who


# ----------------------------------------------------------------------------- the bot
@njit(cache=True, _nrt=False)
def bot_choose(s, T, buf, n, rng):
    """The bot's choice for the pending decision given its legal list buf[:n] (may be illegal;
    bot_action checks)."""
    k = s[PENDING]
    p = s[PENDING_FACTION]        # the faction decided for: the seat, or the 2-player game's USA
    if k == D_TURN:
        return bot_turn(s, T, p, buf, n, rng)
    if k == D_PLACE2:
        return bot_place_second(s, T, p)
    if k == D_OPTION:
        return bot_option(s, T, p, s[top(s) + F_A0])
    if k == D_NAVAL:
        return bot_naval_flag(s, T, p)
    if k == D_EVENT_CUBE:
        return A_ACCEPT                      # EN:919: no influence on an event
    if k == D_ADV_ISSUE:
        return bot_advance_issue(s, T, p)
    if k == D_ADV_EVENT:
        return buf[0]                        # EN:919 player's choice: the first waiting event
    if k == D_ADD_ISSUE:
        return A_ADD_ISSUE + 3               # EN:920: never from the discards: draw
    if k == D_KEEP:
        return A_KEEP                        # EN:920: the top card stays, the next is discarded
    if k == D_MODIFIER:
        return bot_modifier(s, T, p)
    if k == D_BID:
        return bot_bid(s, T, p, buf, n)
    if k == D_DRAFT:
        return bot_draft(s, T, p, buf, n)
    if k == D_AFFECTED:
        return A_CHOOSE_PLAYER + _leader_seat(s, T, p, s[UP_TIED])
    if k == D_UPRISING_ISSUE:
        return bot_uprising_issue(s, T, p, buf, n)
    if k == D_OPTIONAL:
        return A_ACCEPT + 1                  # EN:917: optional events must be performed
    if k == D_CHOOSE_PLAYER:
        return A_CHOOSE_PLAYER + _leader_seat(s, T, p, (1 << s[NUM_PLAYERS]) - 1)
    if k == D_CHOOSE_REGION:
        return bot_region(s, T, p, buf, n)
    if k == D_SIGN:
        return bot_sign(s, T, p)
    if k == D_BRANCH:
        return bot_branch(s, T, p, buf, n)
    if k == D_UNSETTLE:
        return bot_unsettle(s, T, p, buf, n)
    if k == D_WAITING_ISSUE:
        return bot_waiting_issue(s, p, buf, n)
    if k == D_DEPLOY:
        return bot_event_deploy(s, T, p, buf, n, rng)
    if k == D_DEMOB or k == D_MUTINY:
        return demob_source(s, T, p, A_DEMOB, buf, n)
    if k == D_TO_AVAIL:
        return A_TO_AVAIL if _is_legal(buf, n, A_TO_AVAIL) else A_ACCEPT
    if k == D_TO_EXH:
        return bot_to_exhausted(s, T, p, buf, n)
    return buf[0]
