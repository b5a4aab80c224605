"""Compile before playing: every kernel a command's games will run, stage by stage, with a line per
stage that compiles.

numba compiles a kernel the first time it runs (then loads it from the disk cache). Without this a
first `v1919 demo` compiled the rules core before the first move and each agent's search kernels in
the middle of the game, silently. `precompile(specs, ...)` runs the stages first: the rules core
(a few decisions of a game of the same kind, as the play loop makes them: legal actions, a step,
the observation and mask) and then one decision of each agent, which compiles all that agent's
kernels (numba compiles a kernel's whole call graph at its first call). A stage that finds its
kernels cached compiles nothing and says nothing; one that compiles logs "compiling ..." when its
first compile starts and its time when it ends (logger `agents.arena.precompile`, INFO: the commands
show it on stderr).

Before one game (`v1919 demo`, `v1919 play`), `precompile_game` compiles what the first move needs
first: the rules core and the agent of the seat that moves first. The other agents' stages compile
at the same time in a background process on another core (numba's disk cache is shared between
processes); an agent waits for it before its first decision (`after_compile`). The first move of
`v1919 demo` on an empty cache comes after the rules core and the rule bot, not after every agent.
With the rules core already cached (a warm cache) or one core, every stage runs here.
"""
from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import time
from collections.abc import Callable

import numpy as np
from numba.core import event

from v1919_env.core import compile_log, is_compiled
from v1919_env.game import Game

from ..base import is_builtin, make_agent
from .play import hand_off, hand_off_rng, observe_seat

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
    return [(title, run) for title, run, _ in _plan(specs, num_players, variant, solitaire, builtin_only)]


def _plan(specs, num_players, variant, solitaire, builtin_only=False) -> list[tuple[str, Callable[[], None], list]]:
    """`stages`, each with the seats whose agent it compiles (every seat for the rules core)."""
    def new_game() -> Game:
        return Game.new(num_players, seed=0, variant=variant, **(solitaire or {}))

    out = [("the rules core", lambda: _rules(new_game), list(range(len(specs))))]
    seen: dict[tuple, list] = {}
    for seat, spec in enumerate(specs):
        key = (spec["agent"], json.dumps(spec["options"], sort_keys=True, default=str))   # options may nest
        if spec["agent"] == "human" or (builtin_only and not is_builtin(spec["agent"])):
            continue
        if key in seen:
            seen[key].append(seat)
            continue
        seen[key] = [seat]
        out.append((f"agent {spec['label']}", lambda spec=spec: _agent(spec, new_game), seen[key]))
    return out


def precompile(specs: list[dict], num_players: int, variant: str = "standard", solitaire: dict | None = None,
               builtin_only: bool = False) -> list[dict]:
    """Run every stage (see the module docstring and `stages`); returns per stage its title, the
    number of kernels compiled (0: all cached) and the wall-clock seconds."""
    return _run_stages(stages(specs, num_players, variant, solitaire, builtin_only))


def _run_stages(todo: list[tuple[str, Callable[[], None]]], first: int = 1, total: int | None = None) -> list[dict]:
    out = []
    for k, (title, run) in enumerate(todo, first):
        listener = _StageLog(f"{title} (stage {k} of {total or len(todo)})")
        t0 = time.perf_counter()
        with event.install_listener("numba:compile", listener), compile_log.muted():
            run()
        dt = time.perf_counter() - t0
        if listener.compiles:
            logger.info(f"  {title}: {listener.compiles} kernels compiled in {dt:.1f} s")
        out.append({"stage": title, "compiled": listener.compiles, "seconds": dt})
    return out


class Background:
    """The stages a background process compiles (`precompile_game`); `wait()` before using them."""

    def __init__(self, process, titles: list[str], seats: set[int]):
        self.process, self.titles, self.seats = process, titles, seats
        self.waited_s = 0.0

    def wait(self) -> None:
        """Return once the background compile has ended (at once if it has; a failed one is fine:
        what it did not compile, numba compiles here at the first call)."""
        if self.process is None or self.process.exitcode is not None:
            return
        logger.info(f"waiting for the background compile ({', '.join(self.titles)}) ...")
        t0 = time.perf_counter()
        self.process.join()
        self.waited_s += time.perf_counter() - t0
        logger.info(f"  background compile done (waited {self.waited_s:.1f} s)")

    def close(self) -> None:
        """Stop the background process if it still runs (the game ended early)."""
        if self.process is not None and self.process.exitcode is None:
            self.process.terminate()
            self.process.join()
        self.process = None


class _AfterCompile:
    """An agent whose kernels a background process compiles: its first decision waits for it."""

    def __init__(self, agent, background: Background):
        self._agent, self._background = agent, background

    def __getattr__(self, name):
        return getattr(self._agent, name)

    def act(self, *args, **kwargs):
        self._background.wait()
        return self._agent.act(*args, **kwargs)


def after_compile(agents: list, background: Background) -> list:
    """The agents, each of the seats the background compiles wrapped so that it waits for it."""
    return [_AfterCompile(a, background) if p in background.seats else a for p, a in enumerate(agents)]


def cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:              # pragma: no cover - not Linux
        return os.cpu_count() or 1


def precompile_game(specs: list[dict], num_players: int, seed: int, variant: str = "standard",
                    solitaire: dict | None = None) -> Background:
    """Compile for one game with these seats (see the module docstring): here, what the first move
    needs (the rules core's new game, observation and step; the first mover's agent); in a
    background process started first (on a machine with a second core and no cached rules core),
    the other built-in agents and the rest of the rules core (the legal-action list, the scores),
    else here after them. Returns the background compile (`after_compile`)."""
    plan = _plan(specs, num_players, variant, solitaire)
    agent_stages = plan[1:]
    aside = [st for st in agent_stages if all(is_builtin(specs[p]["agent"]) for p in st[2])]
    if cores() < 2 or len(agent_stages) < 2 or is_compiled():   # one agent (the first mover's), or a warm cache
        aside = []
    process = None
    if aside:
        process = multiprocessing.get_context("spawn").Process(
            target=_background_main, daemon=True, name="v1919-precompile",
            args=([(specs[st[2][0]], st[2]) for st in aside], num_players, seed, variant, solitaire))
        process.start()
    total = 2 + len(agent_stages) - len(aside)      # the rules core, the other agents here, and one more: the first
                                                    # mover's agent (from aside) or the rest of the core

    def new_game() -> Game:
        return Game.new(num_players, seed=seed, variant=variant, **(solitaire or {}))

    _run_stages([("the rules core", lambda: _rules_first_move(new_game))], total=total)
    first = new_game().current_player
    mine = [st for st in agent_stages if first in st[2]]
    aside = [st for st in aside if first not in st[2]]
    background = Background(process, [st[0] for st in aside], {p for st in aside for p in st[2]})
    if aside:
        logger.info(f"compiling {', '.join(st[0] for st in aside)} and the rest of the rules core in a "
                    f"background process meanwhile")
    here = [st[:2] for st in mine + [st for st in agent_stages if st not in aside and st not in mine]]
    if process is None:
        here.append(("the rest of the rules core", plan[0][1]))
    elif not aside:
        background.close()              # it had only the first mover's agent, compiled here
        here.append(("the rest of the rules core", plan[0][1]))
    _run_stages(here, first=2, total=total)
    return background


def _rules_first_move(new_game: Callable[[], Game]) -> None:
    """What a first decision needs of the rules core: a new game, an observation and mask, a step."""
    g = new_game()
    _, mask = observe_seat(g, g.current_player)
    g.clone().step(int(np.flatnonzero(mask)[0]))


def _first_mover(num_players: int, seed: int, variant: str, solitaire: dict | None) -> int:
    return Game.new(num_players, seed=seed, variant=variant, **(solitaire or {})).current_player


def _background_main(stages: list[tuple[dict, list[int]]], num_players: int, seed: int, variant: str,
                     solitaire: dict | None) -> None:
    """The background process of `precompile_game`: the first decision of each agent (spec, seats)
    but the first mover's (the caller compiles that one), then the rest of the rules core, silently."""
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null), contextlib.redirect_stderr(null), \
            compile_log.muted():
        logging.disable(logging.CRITICAL)

        def new_game() -> Game:
            return Game.new(num_players, seed=0, variant=variant, **(solitaire or {}))

        first = _first_mover(num_players, seed, variant, solitaire)
        for spec, seats in stages:
            if first not in seats:
                _agent(spec, new_game)
        _rules(new_game)


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
        p = g.current_player
        obs, mask = observe_seat(g, p)
        agent.act(obs, mask, hand_off(g, p, hand_off_rng(0)) if agent.needs_game else None)   # as run_game does
    except Exception as e:          # the game itself will show it (a forfeit); compiling goes on
        logger.warning(f"agent {spec['label']} failed on a first decision while compiling: {type(e).__name__}: {e}")
    finally:
        agent.close()
