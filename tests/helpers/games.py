"""Games the agent tests play: a whole game between agents, a position in the middle of one, and the
same position with its hidden information changed."""
from __future__ import annotations

import numpy as np

from agents.seat import observe_seat
from v1919_env.core import layout as L
from v1919_env.core import tables as TB
from v1919_env.game import Game


def play(agents, num_players, seed, variant="standard", record=None):
    """A whole game; every agent must return a legal id (the actions go to `record`). Returns the game."""
    g = Game.new(num_players, seed=seed, variant=variant)
    for k, a in enumerate(agents):
        a.reset(seed * 10 + k)
    while not g.is_over:
        obs, mask = observe_seat(g, g.current_player)
        a = agents[g.current_player].act(obs, mask, game=g.clone())
        assert isinstance(a, int) and mask[a] == 1, (g.decision, a)
        if record is not None:
            record.append(a)
        g.step(a)
    return g


def mid_game(seed=3, decisions=150, num_players=4):
    """The position after `decisions` random actions, moved on to the next decision with a choice."""
    g = Game.new(num_players, seed=seed)
    r = np.random.default_rng(seed)
    for _ in range(decisions):
        a = g.legal_actions()
        g.step(a[r.integers(len(a))])
    while len(g.legal_actions()) < 2:
        g.step(g.legal_actions()[0])
    return g


def reorder_hidden(g: Game, seed: int) -> Game:
    """The same game with the hidden deck orders permuted (GAME END kept at its depth) and another
    dice generator: everything a player can see is equal. (Edits the state array: a mid-procedure
    position is sealed against hand edits in to_dict form.)"""
    s = g.state.copy()
    r = np.random.default_rng(seed)
    ge = int(g.T[TB.T_GAME_END])
    n = int(s[L.ISSUE_DECK_N])
    deck = s[L.ISSUE_DECK:L.ISSUE_DECK + n]
    idx = np.flatnonzero(deck != ge)
    deck[idx] = r.permutation(deck[idx])
    m = int(s[L.EV_DECK_N])
    s[L.EV_DECK:L.EV_DECK + m] = r.permutation(s[L.EV_DECK:L.EV_DECK + m])
    s[L.RNG:L.RNG + 2] = r.integers(1, 2 ** 31, 2)
    h = Game(s, g.cards, g.T)
    assert not np.array_equal(h.state, g.state)
    a, b = g.to_dict(), h.to_dict()
    for d in (a, b):
        d["engine"].pop("digest")                 # seals the whole position, hidden parts included
    assert {k for k in a if a[k] != b[k]} <= {"issue_deck", "events", "rng"}
    assert a["events"]["waiting_room"] == b["events"]["waiting_room"] and a["events"]["table"] == b["events"]["table"]
    return h
