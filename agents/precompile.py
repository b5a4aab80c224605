"""Compile before playing: every kernel a command's games will run, stage by stage, with a line per
stage that compiles.

numba compiles a kernel the first time it runs (then loads it from the disk cache). Without this a
first `v1919 demo` compiled the rules core before the first move and each agent's search kernels in
the middle of the game, silently. `precompile(specs, ...)` runs the stages first: the rules core
(a few decisions of a game of the same kind, as the play loop makes them: legal actions, a step,
the observation and mask) and then one decision of each agent, which compiles all that agent's
kernels (numba compiles a kernel's whole call graph at its first call). A stage that finds its
kernels cached compiles nothing and says nothing; one that compiles logs "compiling ..." when its
first compile starts and its time when it ends (logger `agents.precompile`, INFO: the commands
show it on stderr).
"""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

import numpy as np
from numba.core import event

from v1919_env.core import compile_log
from v1919_env.game import Game

from .base import is_builtin, make_agent
from .play import observe_seat

logger = logging.getLogger(__name__)
RULES_DECISIONS = 8            # decisions of the rules stage: enough to reach the observation and the clone


class _StageLog(event.Listener):
    """Logs a stage's first compile as it starts; counts the compiles."""

    def __init__(self, title: str):
        self.title, self.compiles = title, 0

    def on_start(self, ev):
        if self.compiles == 0:
            logger.info(f"compiling {self.title} ...")
        self.compiles += 1

    def on_end(self, ev):
        pass


def stages(specs: list[dict], num_players: int, variant: str = "standard", solitaire: dict | None = None,
           builtin_only: bool = False) -> list[tuple[str, Callable[[], None]]]:
    """(title, run) of each stage for games of these seat specs: the rules core, then each distinct
    agent (the human agent compiles nothing of its own and is skipped; with `builtin_only`, so is
    every agent a user's module registered: its code runs only where the caller isolates it)."""
    def new_game() -> Game:
        return Game.new(num_players, seed=0, variant=variant, **(solitaire or {}))

    out = [("the rules core", lambda: _rules(new_game))]
    seen = set()
    for spec in specs:
        key = (spec["agent"], json.dumps(spec["options"], sort_keys=True, default=str))   # options may nest
        if spec["agent"] == "human" or key in seen or (builtin_only and not is_builtin(spec["agent"])):
            continue
        seen.add(key)
        out.append((f"agent {spec['label']}", lambda spec=spec: _agent(spec, new_game)))
    return out


def precompile(specs: list[dict], num_players: int, variant: str = "standard", solitaire: dict | None = None,
               builtin_only: bool = False) -> list[dict]:
    """Run every stage (see the module docstring and `stages`); returns per stage its title, the
    number of kernels compiled (0: all cached) and the wall-clock seconds."""
    todo = stages(specs, num_players, variant, solitaire, builtin_only)
    out = []
    for k, (title, run) in enumerate(todo, 1):
        listener = _StageLog(f"{title} (stage {k} of {len(todo)})")
        t0 = time.perf_counter()
        with event.install_listener("numba:compile", listener), compile_log.muted():
            run()
        dt = time.perf_counter() - t0
        if listener.compiles:
            logger.info(f"  {title}: {listener.compiles} kernels compiled in {dt:.1f} s")
        out.append({"stage": title, "compiled": listener.compiles, "seconds": dt})
    return out


def _rules(new_game: Callable[[], Game]) -> None:
    g = new_game()
    rng = np.random.default_rng(0)
    for _ in range(RULES_DECISIONS):
        if g.is_over:
            break
        observe_seat(g, g.current_player)
        legal = g.legal_actions()
        g.clone().step(int(legal[0]))
        g.step(int(legal[rng.integers(len(legal))]))
    g.scores()


def _agent(spec: dict, new_game: Callable[[], Game]) -> None:
    g = new_game()
    agent = make_agent(spec["agent"], **spec["options"])      # the commands have built it once already
    try:
        agent.reset(0)
        obs, mask = observe_seat(g, g.current_player)
        agent.act(obs, mask, game=g.clone() if agent.needs_game else None)
    except Exception as e:          # the game itself will show it (a forfeit); compiling goes on
        logger.warning(f"agent {spec['label']} failed on a first decision while compiling: {type(e).__name__}: {e}")
    finally:
        agent.close()
