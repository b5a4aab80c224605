"""The web app's analysis of a position, on request: the search's view of each legal move and the
network's win probability of every seat along the game.

The search (`v1919 serve --analysis SPEC`, default `DEFAULT_ANALYSIS`) runs on the information set
of the seat to move (a determinized copy, as every agent is handed), never on the real game: what it
shows is what that seat could know. Each legal move gets its share of the root's visits and its mean
value (`ismcts`: the seat's expected win share; `guided`: the network's value scale).

The win probability is `agents.arena.win_probability` (the shipped network's value head, calibrated),
from each seat's own observation; it needs the train extra (torch) and a 2-4 player game, and the
payload says why when it is not there.

`AnalysisWorker` runs the analyses in a process of their own (so that no other game's moves wait on
a search), which the server starts with itself and warms up at once: it compiles the search's
kernels and loads the network while nobody waits yet.
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing as mp
import os
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from agents.base import make_agent, parse_agent_spec
from agents.seat import observe_seat

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
                from agents.arena.win_probability import WinProbability

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
        from agents.arena.win_probability import positions

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


# ----------------------------------------------------------------------------- the worker process
_ANALYSTS: "OrderedDict[str, Analyst]" = OrderedDict()     # in the worker: the open games' analysts
KEEP = 32                                                  # the most recently analysed games kept


def _in_worker(gid: str, spec: str, num_players: int, seed: int, info: dict | None, start: dict,
               actions: list[int], step: int) -> dict:
    from v1919_env.game import Game

    analyst = _ANALYSTS.pop(gid, None) or Analyst(spec, num_players, seed)
    _ANALYSTS[gid] = analyst
    while len(_ANALYSTS) > KEEP:
        _ANALYSTS.popitem(last=False)[1].close()
    return analyze(analyst, None if info is None else Game.from_dict(info), Game.from_dict(start), actions, step)


def _forget(gid: str) -> None:
    analyst = _ANALYSTS.pop(gid, None)
    if analyst is not None:
        analyst.close()


def _warm(spec: str) -> float:
    """Compile the search's kernels and load the network (a first search, then forgotten); seconds."""
    import time

    from v1919_env.game import Game

    t0 = time.perf_counter()
    g = Game.new(4, seed=0)
    analyze(Analyst(spec, 4, 0), g.information_set(int(g.current_player), 1), g, [], 0)
    return time.perf_counter() - t0


def _init_worker(parent: int) -> None:
    """One thread for torch; and the worker ends with the server, however the server ends (killed
    included): the kernel signals it when its parent dies (Linux), and a thread watches the parent."""
    import signal
    import threading
    import time

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))     # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


class AnalysisWorker:
    """The server's analyses, one at a time, in a spawned process of their own."""

    def __init__(self, spec: str, warm: bool = True):
        self.spec = spec
        self.pool = ProcessPoolExecutor(1, mp_context=mp.get_context("spawn"), initializer=_init_worker,
                                        initargs=(os.getpid(),))
        # with warm: at once, so that the first analysis asked for does not compile
        self.ready = self.pool.submit(_warm, spec) if warm else None

    async def analyze(self, gid: str, num_players: int, seed: int, info, start, actions: list[int],
                      step: int) -> dict:
        """The analysis message (analyze()) of game `gid` (its analyst kept in the worker)."""
        fut = self.pool.submit(_in_worker, gid, self.spec, num_players, seed,
                               None if info is None else info.to_dict(), start.to_dict(), list(actions), step)
        return await asyncio.wrap_future(fut)

    def forget(self, gid: str) -> None:
        self.pool.submit(_forget, gid)

    def close(self) -> None:
        """Stop the worker now, a search or the warm-up under way included (a server stops at once)."""
        procs = list((getattr(self.pool, "_processes", None) or {}).values())
        self.pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            p.terminate()
