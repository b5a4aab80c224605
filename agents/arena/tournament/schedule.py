"""Seat assignment: which agent sits in which seat in game k.

With m agents and n seats (m >= n) the schedule repeats with a period of C(m, n) * n games:
every n-agent subset (in lexicographic order) plays n games, its seating rotated cyclically
(a Latin square: each agent of the subset sits in each seat once). So within every period each
agent plays every seat equally often (C(m-1, n-1) times) and meets every other agent equally
often. Successive periods start the rotation from a different ordering of the subset (the
(n-1)! orderings that keep its first agent first, in turn), so after (n-1)! periods every seat
permutation of every subset has been played exactly once: with 4 agents in a 4-player game that
is all 24 permutations after 24 games, seat balance after every 4.

The schedule depends only on (m, n) and the game index, never on the number of games, so a
tournament can be extended with more games and its earlier games stay the same.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations, permutations
from math import comb


def schedule_period(n_agents: int, n_seats: int) -> int:
    """Games after which every agent has played every seat equally often."""
    if n_agents < n_seats:
        raise ValueError(f"{n_agents} agents cannot fill {n_seats} seats")
    return comb(n_agents, n_seats) * n_seats


@lru_cache(maxsize=16)
def _blocks(n_agents: int, n_seats: int):
    subsets = list(combinations(range(n_agents), n_seats))
    orders = [(0,) + p for p in permutations(range(1, n_seats))]      # the first agent stays first
    return subsets, orders


def seating(game_index: int, n_agents: int, n_seats: int) -> tuple[int, ...]:
    """Agent index per seat for game `game_index`."""
    subsets, orders = _blocks(n_agents, n_seats)
    period = len(subsets) * n_seats
    cycle, k = divmod(int(game_index), period)
    subset = subsets[k // n_seats]
    order = orders[cycle % len(orders)]
    base = [subset[j] for j in order]
    shift = k % n_seats
    return tuple(base[(s - shift) % n_seats] for s in range(n_seats))
