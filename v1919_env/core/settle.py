"""Settle an Issue (EN 'Political Action #3'): the five steps, the issue option (shared with
uprisings and event unsettles), and GAME END."""
from __future__ import annotations

from numba import njit

from .actions import A_ACCEPT, A_ADD_ISSUE, A_ADV_EVENT, A_ADV_ISSUE, A_FLAG, A_KEEP, A_OPTION
from .board import (change_happiness, decide, exhaust_avail, is_usa_faction, move_unrest, pop, push,
                    push_mutiny_if_needed, shuffle_range, slot_leader, top)
from .events import start_event
from .layout import (ACTIVE, D_ADD_ISSUE, D_ADV_EVENT, D_ADV_ISSUE, D_EVENT_CUBE, D_KEEP, D_NAVAL, D_OPTION, DRAWN,
                     EV_CUBE, EV_DECK, EV_DECK_N, EV_DISC, EV_DISC_N, EV_TABLE, EV_WAIT, F_A0, F_STEP, GAME_OVER,
                     INF_AVAIL, INF_EXH, ISSUE_CTRL, ISSUE_DECK, ISSUE_DECK_N, ISSUE_DISC, ISSUE_DISC_N,
                     ISSUE_NAVAL_UK, ISSUE_OPT, MAX_PLAYERS, MODE, MODE_SOLO, N_EV_WAIT, N_NATIONS, N_REGIONS,
                     N_SLOTS, N_TABLE, NUM_PLAYERS, P_OPTION, SETTLE_GAINED, SETTLING, SLOT_CUBES, SLOT_ISSUE,
                     USA_FACTION)
from .tables import (N_DISC_PICKS, T_DISC_COST, T_EV_ICON, T_GAME_END, T_ISSUE_NOPT, T_OPT_HAPPY, T_OPT_NAVAL,
                     T_OPT_UNREST)


# ----------------------------------------------------------------------------- the issue option
@njit(cache=True, _nrt=False)
def usa_unhappiness(T, i, o):
    """Happiness the USA would lose by option o of issue i (0 when it gains or keeps)."""
    d = T[T_OPT_HAPPY + (i * 4 + o) * N_NATIONS + USA_FACTION]
    return -d if d < 0 else 0


@njit(cache=True, _nrt=False)
def legal_option(s, T, out):
    """Any option; the 2-player USA takes the one with the least USA unhappiness, its controller
    choosing among ties (EN:808)."""
    f = top(s)
    i = s[f + F_A0]
    n = T[T_ISSUE_NOPT + i]
    if is_usa_faction(s, s[f + F_A0 + 1]):
        least = 99
        for o in range(n):
            least = min(least, usa_unhappiness(T, i, o))
        k = 0
        for o in range(n):
            if usa_unhappiness(T, i, o) == least:
                out[k] = A_OPTION + o
                k += 1
        return k
    for o in range(n):
        out[o] = A_OPTION + o
    return n


@njit(cache=True, _nrt=False)
def apply_option(s, T, i, o):
    """Happiness and unrest of option o of issue i (EN:388-408); returns the mask of regions that gained."""
    s[ISSUE_OPT + i] = o
    s[ISSUE_NAVAL_UK + i] = 0
    for nat in range(N_NATIONS):
        d = T[T_OPT_HAPPY + (i * 4 + o) * N_NATIONS + nat]
        if d != 0:
            change_happiness(s, T, nat, d)
    gained = 0
    for r in range(N_REGIONS):
        d = T[T_OPT_UNREST + (i * 4 + o) * N_REGIONS + r]
        if d != 0:
            if move_unrest(s, T, r, d) > 0:
                gained |= 1 << r
    return gained


@njit(cache=True, _nrt=False)
def option_proc(s, T, kind, a):
    """Frame: a0 issue, a1 chooser, a2 UK-or-USA naval counters still to flag, a3 1 = record gains.

    The chooser picks an option, its effects apply, counters are placed (EN:312-318, 620-622)."""
    f = top(s)
    i = s[f + F_A0]
    if kind == D_OPTION:
        o = a - A_OPTION
        gained = apply_option(s, T, i, o)
        if s[f + F_A0 + 3] == 1:
            s[SETTLE_GAINED] = gained
        s[f + F_A0 + 2] = T[T_OPT_NAVAL + i * 4 + o]
        s[f + F_STEP] = 1
        push_mutiny_if_needed(s, T)
        return
    if kind == D_NAVAL:
        if a - A_FLAG == 0:
            s[ISSUE_NAVAL_UK + i] += 1
        s[f + F_A0 + 2] -= 1
    if s[f + F_STEP] == 0:
        decide(s, D_OPTION, s[f + F_A0 + 1])
        return
    if s[f + F_A0 + 2] > 0:
        decide(s, D_NAVAL, s[f + F_A0 + 1])
        return
    pop(s)


# ----------------------------------------------------------------------------- settling
@njit(cache=True, _nrt=False)
def _account_influence(s, slot, ctrl):
    """Step 1b-d: controller's cubes exhausted, a non-controlling settler's returned, others half (EN:306-310)."""
    act = s[ACTIVE]
    for p in range(s[NUM_PLAYERS]):
        c = s[SLOT_CUBES + slot * MAX_PLAYERS + p]
        s[SLOT_CUBES + slot * MAX_PLAYERS + p] = 0
        if p == ctrl:
            s[INF_EXH + p] += c
        elif p == act:
            s[INF_AVAIL + p] += c
        else:
            s[INF_EXH + p] += c // 2
            s[INF_AVAIL + p] += c - c // 2


@njit(cache=True, _nrt=False)
def legal_adv_issue(s, out):
    n = 0
    for w in range(N_SLOTS - N_TABLE):
        if s[SLOT_ISSUE + N_TABLE + w] >= 0:
            out[n] = A_ADV_ISSUE + w
            n += 1
    return n


@njit(cache=True, _nrt=False)
def legal_adv_event(s, out):
    n = 0
    for w in range(N_EV_WAIT):
        if s[EV_WAIT + w] >= 0:
            out[n] = A_ADV_EVENT + w
            n += 1
    return n


@njit(cache=True, _nrt=False)
def legal_add_issue(s, T, out):
    """Discard position 1/2/3 for 0/1/2 cubes, or draw two (EN:362-370)."""
    n = 0
    p = s[ACTIVE]
    for k in range(N_DISC_PICKS):
        if k < s[ISSUE_DISC_N] and s[INF_AVAIL + p] >= T[T_DISC_COST + k]:
            out[n] = A_ADD_ISSUE + k
            n += 1
    out[n] = A_ADD_ISSUE + N_DISC_PICKS
    return n + 1


@njit(cache=True, _nrt=False)
def legal_keep(s, out):
    out[0] = A_KEEP
    out[1] = A_KEEP + 1
    return 2


@njit(cache=True, _nrt=False)
def legal_event_cube(s, out):
    out[0] = A_ACCEPT
    out[1] = A_ACCEPT + 1
    return 2


@njit(cache=True, _nrt=False)
def _empty_waiting_slot(s):
    for w in range(N_TABLE, N_SLOTS):
        if s[SLOT_ISSUE + w] < 0:
            return w
    return -1


@njit(cache=True, _nrt=False)
def _any_waiting_issue(s):
    for w in range(N_TABLE, N_SLOTS):
        if s[SLOT_ISSUE + w] >= 0:
            return True
    return False


@njit(cache=True, _nrt=False)
def _discard_issue(s, i):
    s[ISSUE_DISC + s[ISSUE_DISC_N]] = i
    s[ISSUE_DISC_N] += 1


@njit(cache=True, _nrt=False)
def _draw_event(s):
    """Top event card; the discards are reshuffled into a new deck when it is empty (EN:373-375)."""
    if s[EV_DECK_N] == 0:
        for k in range(s[EV_DISC_N]):
            s[EV_DECK + k] = s[EV_DISC + k]
        s[EV_DECK_N] = s[EV_DISC_N]
        s[EV_DISC_N] = 0
        shuffle_range(s, EV_DECK, s[EV_DECK_N])
    s[EV_DECK_N] -= 1
    return s[EV_DECK + s[EV_DECK_N]]


@njit(cache=True, _nrt=False)
def settle_proc(s, T, kind, a):
    """Frame: a0 table slot, a1 issue, a2 controller. Steps follow EN:286-375."""
    f = top(s)
    st = s[f + F_STEP]
    act = s[ACTIVE]
    if st == 0:
        sl = s[f + F_A0]
        i = s[SLOT_ISSUE + sl]
        ctrl = slot_leader(s, sl)
        s[f + F_A0 + 1] = i
        s[f + F_A0 + 2] = ctrl
        s[SLOT_ISSUE + sl] = -1
        s[ISSUE_CTRL + i] = ctrl
        _account_influence(s, sl, ctrl)
        if i == T[T_GAME_END]:
            # GAME END: the majority takes it (7 VP) and the game ends; nothing else of the
            # procedure (EN:716-720). The cubes are accounted as usual only to keep them counted.
            s[GAME_OVER] = 1
            return
        s[SETTLING] = i
        s[SETTLE_GAINED] = 0
        s[f + F_STEP] = 1
        push(s, P_OPTION, i, ctrl, 0, 1)
        return
    if st == 1:
        # Step 2: the conference event, decided by its cube's owner or else the active player
        s[f + F_STEP] = 2
        if s[EV_TABLE] >= 0:
            dec = s[EV_CUBE] if s[EV_CUBE] >= 0 else act
            start_event(s, s[EV_TABLE], 1, dec)
            return
    if s[f + F_STEP] == 2:
        if s[EV_TABLE] >= 0:
            s[EV_DISC + s[EV_DISC_N]] = s[EV_TABLE]
            s[EV_DISC_N] += 1
            s[EV_TABLE] = -1
            if s[EV_CUBE] >= 0:
                s[INF_EXH + s[EV_CUBE]] += 1
                s[EV_CUBE] = -1
        # Step 3a: advance a waiting issue (cubes travel with it)
        s[f + F_STEP] = 3
        if _any_waiting_issue(s):
            decide(s, D_ADV_ISSUE, act)
            return
        s[f + F_STEP] = 4
    if s[f + F_STEP] == 3:
        w = N_TABLE + a - A_ADV_ISSUE
        sl = s[f + F_A0]
        s[SLOT_ISSUE + sl] = s[SLOT_ISSUE + w]
        s[SLOT_ISSUE + w] = -1
        for p in range(MAX_PLAYERS):
            s[SLOT_CUBES + sl * MAX_PLAYERS + p] = s[SLOT_CUBES + w * MAX_PLAYERS + p]
            s[SLOT_CUBES + w * MAX_PLAYERS + p] = 0
        s[f + F_STEP] = 4
        kind = 0
    if s[f + F_STEP] == 4:
        # Step 3b: advance a waiting event
        if kind == 0:
            if s[EV_WAIT] >= 0 or s[EV_WAIT + 1] >= 0:
                decide(s, D_ADV_EVENT, act)
                return
            s[f + F_STEP] = 6
        else:
            w = a - A_ADV_EVENT
            e = s[EV_WAIT + w]
            s[EV_TABLE] = e
            s[EV_WAIT + w] = -1
            s[f + F_STEP] = 6
            # solitaire: no influence is ever placed on an event (EN:919, rulings A-29)
            if T[T_EV_ICON + e] == 1 and s[INF_AVAIL + act] > 0 and s[MODE] != MODE_SOLO:
                s[f + F_STEP] = 5
                decide(s, D_EVENT_CUBE, act)
                return
            kind = 0
    if s[f + F_STEP] == 5:
        if a - A_ACCEPT == 1:
            s[INF_AVAIL + act] -= 1
            s[EV_CUBE] = act
        s[f + F_STEP] = 6
        kind = 0
    if s[f + F_STEP] == 6:
        # Step 4: add an issue to the waiting room
        if kind == 0:
            decide(s, D_ADD_ISSUE, act)
            return
        k = a - A_ADD_ISSUE
        w = _empty_waiting_slot(s)
        if k < N_DISC_PICKS:
            cost = T[T_DISC_COST + k]
            exhaust_avail(s, act, cost)
            idx = s[ISSUE_DISC_N] - 1 - k
            i = s[ISSUE_DISC + idx]
            for j in range(idx, s[ISSUE_DISC_N] - 1):
                s[ISSUE_DISC + j] = s[ISSUE_DISC + j + 1]
            s[ISSUE_DISC_N] -= 1
            s[SLOT_ISSUE + w] = i
            s[f + F_STEP] = 8
        else:
            nd = s[ISSUE_DECK_N]
            if nd == 0:
                s[GAME_OVER] = 1         # rulings A-01: a draw from an empty deck ends the game
                return
            if nd == 1:
                s[ISSUE_DECK_N] = 0
                s[SLOT_ISSUE + w] = s[ISSUE_DECK]
                s[f + F_STEP] = 8
            else:
                x = s[ISSUE_DECK + nd - 1]
                y = s[ISSUE_DECK + nd - 2]
                s[ISSUE_DECK_N] = nd - 2
                s[DRAWN] = x
                s[DRAWN + 1] = y
                ge = T[T_GAME_END]
                if x == ge or y == ge:
                    # GAME END must be the card kept (EN:710)
                    s[SLOT_ISSUE + w] = ge
                    _discard_issue(s, y if x == ge else x)
                    s[f + F_STEP] = 8
                else:
                    s[f + F_STEP] = 7
                    decide(s, D_KEEP, act)
                    return
        kind = 0
    if s[f + F_STEP] == 7:
        k = a - A_KEEP
        w = _empty_waiting_slot(s)
        s[SLOT_ISSUE + w] = s[DRAWN + k]
        _discard_issue(s, s[DRAWN + 1 - k])
        s[f + F_STEP] = 8
        kind = 0
    if s[f + F_STEP] == 8:
        # Step 5: draw an event into the waiting room and resolve its crisis
        e = _draw_event(s)
        for w in range(N_EV_WAIT):
            if s[EV_WAIT + w] < 0:
                s[EV_WAIT + w] = e
                break
        s[f + F_STEP] = 9
        start_event(s, e, 0, act)
        return
    if s[f + F_STEP] == 9:
        s[SETTLING] = -1
        s[SETTLE_GAINED] = 0
        pop(s)


