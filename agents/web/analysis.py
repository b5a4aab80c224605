"""The web app's analysis of a position, on request: the search's view of each legal move and the
network's win probability of every seat along the game.

The search (`v1919 serve --analysis SPEC`, default `DEFAULT_ANALYSIS`) runs on the information set
of the seat to move (a determinized copy, as every agent is handed), never on the real game: what it
shows is what that seat could know. Each legal move gets its share of the root's visits and its mean
value (`ismcts`: the seat's expected win share; `guided`: the network's value scale).

The win probability is `agents.win_probability` (the shipped network's value head, calibrated),
from each seat's own observation; it needs the train extra (torch) and a 2-4 player game, and the
payload says why when it is not there.
"""
from __future__ import annotations

import logging

import numpy as np

from agents.base import make_agent, parse_agent_spec
from agents.play import observe_seat

log = logging.getLogger(__name__)

DEFAULT_ANALYSIS = "ismcts:iterations=2000"
SEARCHES = ("ismcts", "guided")          # agents whose last_stats hold the root's visits and values


def check_analysis_spec(spec: str) -> str:
    """`spec` if it names a search whose root statistics the analysis reads; ValueError otherwise."""
    name, opts = parse_agent_spec(spec)
    if name not in SEARCHES:
        raise ValueError(f"--analysis must be a search agent ({', '.join(SEARCHES)}), got {spec!r}")
    make_agent(name, **opts).close()
    return spec


class Analyst:
    """One game's analysis: its search agent and the win-probability curve so far (both built lazily)."""

    def __init__(self, spec: str, num_players: int, seed: int):
        self.spec, self.num_players, self.seed = spec, num_players, seed
        self.agent = None
        self.wp = None
        self.wp_error: str | None = None
        self.curve: list[list[float]] = []      # win probabilities before each move, then at the end
        self.curve_actions: list[int] = []      # the moves the curve was computed along

    def search(self, game, step: int) -> dict:
        """The search's visit share and value of each legal move of the seat to move in `game` (an
        information set: the caller hands a determinized copy)."""
        if self.agent is None:
            name, opts = parse_agent_spec(self.spec)
            self.agent = make_agent(name, **opts)
        self.agent.reset(int(np.random.SeedSequence([self.seed, 0xA7A1, step]).generate_state(1)[0]))
        p = int(game.current_player)
        acts = game.legal_actions()
        obs, mask = observe_seat(game, p)
        self.agent.last_stats = None
        chosen = int(self.agent.act(obs, mask, game))
        st = self.agent.last_stats
        if st is None:                 # one legal move: nothing searched
            return {"seat": p, "agent": self.spec, "simulations": 0, "chosen": chosen,
                    "moves": [{"action": int(acts[0]), "name": game.describe(int(acts[0])), "share": 1.0,
                               "visits": 0, "value": None}]}
        visits = np.asarray(st["visits"], np.float64)
        values = np.asarray(st.get("means", st.get("values")), np.float64)
        total = max(visits.sum(), 1.0)
        moves = [{"action": int(a), "name": game.describe(int(a)), "visits": int(v), "share": float(v / total),
                  "value": float(q) if v > 0 else None}
                 for a, v, q in zip(st["actions"], visits, values)]
        moves.sort(key=lambda m: -m["visits"])
        return {"seat": p, "agent": self.spec, "simulations": int(st.get("iterations", st.get("simulations", 0))),
                "chosen": chosen, "moves": moves}

    def win_probability(self, start, actions: list[int]) -> dict:
        """{"p": [[per seat] per position], "error": None} for the game that `actions` play from `start`
        (the curve is extended from where it stopped); "error" says why when there is none."""
        if self.wp is None and self.wp_error is None:
            try:
                from agents.win_probability import WinProbability

                self.wp = WinProbability(self.num_players)
            except ImportError as e:
                self.wp_error = f"the win probability needs the train extra (torch): {e}"
            except (ValueError, OSError) as e:
                self.wp_error = str(e)
        if self.wp is None:
            return {"p": [], "error": self.wp_error}
        same = 0                                    # an undo (then other moves): keep the common past only
        while same < min(len(self.curve_actions), len(actions)) and self.curve_actions[same] == actions[same]:
            same += 1
        del self.curve[same + 1:]
        done = len(self.curve)
        g = start.clone()
        for a in actions[:max(done - 1, 0)]:
            g.step(int(a))
        rest = actions[max(done - 1, 0):]
        from agents.win_probability import positions

        obs, masks = positions(g, rest)
        p = self.wp.probabilities(self.wp.values(obs, masks))
        self.curve[max(done - 1, 0):] = [[round(float(x), 4) for x in row] for row in p]
        self.curve_actions = list(actions)
        return {"p": self.curve, "error": None}

    def close(self) -> None:
        for x in (self.agent, self.wp):
            if x is not None:
                x.close()


def analyze(analyst: Analyst, info_set, start, actions: list[int], step: int) -> dict:
    """The analysis message for the position after `actions`: the search on `info_set` (the seat to
    move's determinized copy, None when the game is over) and the win probability along the game
    played from `start`."""
    return {"type": "analysis", "step": step,
            "search": None if info_set is None else analyst.search(info_set, step),
            "win_probability": analyst.win_probability(start, actions)}
