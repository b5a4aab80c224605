"""One reusable conformance check: the DESIGN.md invariants, and random games that check them on
every step (used by the tests; handy for anyone changing the rules core)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from v1919_env.core import layout as L
from v1919_env.core.tables import T_FIRST_DEP_COL, T_INFLUENCE, T_KEG_MAX, T_MILITARY, T_TRACK_COLS
from v1919_env.game import Game


class InvariantError(AssertionError):
    pass


def _bid_limbo(s) -> set[int]:
    """Issues being bid for (unsettled, between owners) on the frame stack."""
    out = set()
    for k in range(int(s[L.SP])):
        b = L.STACK + k * L.FRAME_W
        if s[b + L.F_PROC] == L.P_BID:
            out.add(int(s[b + L.F_A0]))
    return out


def check_invariants(g: Game, prev: Game | None = None) -> None:
    """Raise InvariantError naming the first broken invariant of g (and of the step from prev)."""
    s, T = g.state, g.T
    np_ = g.num_players

    def fail(msg):
        raise InvariantError(f"{msg} (turn {int(s[L.TURN_NO])}, decision {g.decision})")

    for p in range(np_):
        on = sum(int(s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p]) for sl in range(L.N_SLOTS))
        cube = 1 if s[L.EV_CUBE] == p else 0
        parts = (int(s[L.INF_AVAIL + p]), int(s[L.INF_EXH + p]), on, cube)
        if min(parts) < 0 or sum(parts) != T[T_INFLUENCE]:
            fail(f"seat {p} influence: available/exhausted/issues/event = {parts}")
        dep = [int(s[L.DEP_COL + p * L.N_REGIONS + r]) for r in range(L.N_REGIONS)]
        if any(c != 0 and not T[T_FIRST_DEP_COL] <= c <= T[T_TRACK_COLS] for c in dep):
            fail(f"seat {p} units in columns {dep}")
        mparts = (int(s[L.MIL_AVAIL + p]), int(s[L.MIL_EXH + p]), int(s[L.MIL_DEMOB + p]), sum(c > 0 for c in dep))
        if min(mparts) < 0 or sum(mparts) != T[T_MILITARY]:
            fail(f"seat {p} military: available/exhausted/demobilized/deployed = {mparts}")
    for r in range(L.N_REGIONS):
        cols = [int(s[L.DEP_COL + p * L.N_REGIONS + r]) for p in range(np_) if s[L.DEP_COL + p * L.N_REGIONS + r]]
        if len(cols) != len(set(cols)):
            fail(f"region {r}: two units share a space {cols}")
        keg, u = int(s[L.KEG + r]), int(s[L.UNREST + r])
        cap = min(cols) - 1 if cols else int(T[T_TRACK_COLS])
        if not (0 <= keg <= T[T_KEG_MAX] and keg < u <= cap):
            fail(f"region {r}: powder keg {keg}, unrest {u}, military cap {cap}")
    for n in range(L.N_NATIONS):
        h = int(s[L.HAPPY + n])
        if not 0 <= h <= 30:
            fail(f"nation {n} happiness {h}")
        if prev is not None and prev.state[L.HAPPY + n] == 0 and h != 0:
            fail(f"nation {n} left the zero box")
    # every issue card in exactly one place
    where = np.zeros(L.N_ISSUES, np.int64)
    for sl in range(L.N_SLOTS):
        i = int(s[L.SLOT_ISSUE + sl])
        if i >= 0:
            where[i] += 1
        elif any(s[L.SLOT_CUBES + sl * L.MAX_PLAYERS + p] for p in range(np_)):
            fail(f"cubes on empty slot {sl}")
    for off, noff in ((L.ISSUE_DECK, L.ISSUE_DECK_N), (L.ISSUE_DISC, L.ISSUE_DISC_N)):
        for x in s[off:off + int(s[noff])]:
            where[int(x)] += 1
    for i in range(L.N_ISSUES):
        if s[L.ISSUE_CTRL + i] >= 0:
            where[i] += 1
    for i in _bid_limbo(s):
        where[i] += 1
    if s[L.PENDING] == L.D_KEEP and not g.is_over:
        where[int(s[L.DRAWN])] += 1
        where[int(s[L.DRAWN + 1])] += 1
    bad = [int(i) for i in np.nonzero(where != 1)[0]]
    if bad:
        fail(f"issues not in exactly one place: {[(g.names.issue_at(i), int(where[i])) for i in bad]}")
    ewhere = np.zeros(L.N_EVENTS, np.int64)
    for e in [int(s[L.EV_TABLE]), int(s[L.EV_WAIT]), int(s[L.EV_WAIT + 1])]:
        if e >= 0:
            ewhere[e] += 1
    for off, noff in ((L.EV_DECK, L.EV_DECK_N), (L.EV_DISC, L.EV_DISC_N)):
        for x in s[off:off + int(s[noff])]:
            ewhere[int(x)] += 1
    bad = [int(e) for e in np.nonzero(ewhere != 1)[0]]
    if bad:
        fail(f"events not in exactly one place: {[(g.names.event_at(e), int(ewhere[e])) for e in bad]}")
    mutiny = s[L.PENDING] == L.D_MUTINY or any(
        s[L.STACK + k * L.FRAME_W + L.F_PROC] in (L.P_MUTINY, L.P_EVENT) for k in range(int(s[L.SP])))
    if not mutiny and not g.is_over:
        from v1919_env.core.board import over_unit_limit
        for p in range(np_):
            if over_unit_limit(s, T, p):
                fail(f"seat {p} has more units than happiness {int(s[L.HAPPY + p])} allows, and no mutiny")
    if not g.is_over and len(g.legal_actions()) == 0:
        fail("no legal action although the game is not over (a dead end)")


def play_random(g: Game, rng: np.random.Generator, checker: Callable | None = check_invariants,
                max_decisions: int = 25000) -> int:
    """Play g to the end with uniformly random legal actions, checking after every step."""
    n = 0
    prev = g.clone() if checker else None
    while not g.is_over:
        acts = g.legal_actions()
        g.step(int(acts[rng.integers(len(acts))]))
        n += 1
        if checker:
            checker(g, prev)
            prev.state[:] = g.state
        if n > max_decisions:
            raise InvariantError("game did not end")
    return n


def random_games(n: int, num_players: int, checker: Callable | None = check_invariants, seed: int = 0,
                 variant: str = "standard", negotiation: bool = False) -> list[int]:
    """Play n random games; returns the decisions of each."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        g = Game.new(num_players, seed=seed * 1000003 + k, variant=variant, negotiation=negotiation)
        if checker:
            checker(g, None)
        out.append(play_random(g, rng, checker))
    return out
