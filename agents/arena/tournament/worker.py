"""One tournament game in a worker process: the job (seeds, seating), its execution, and the life
of a worker process (the pool itself is in runner.py).

A game is fully defined by the config and its index: the seating comes from the schedule, and
the game seed and the agents' seeds are drawn from `SeedSequence([seed, index])`, so a game plays
the same whichever worker runs it and whenever. Workers are spawn-safe (everything they need
travels in the job), build each agent once and reuse it (`reset(seed)` before every game), and
keep torch to one thread.

A worker writes where its game stands into shared memory (`Progress`): the actions taken and the
seat whose agent is choosing. If the process dies (an agent calls os._exit, crashes the
interpreter, or is killed), the parent reads it and records the game as forfeited by that seat,
exactly as if its agent had raised there (`dead_worker_outcome`).
"""
from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import sys
import time

import numpy as np

from v1919_env.core.step import MAX_DECISIONS

from ...base import Agent
from .schedule import seating

_AGENTS: dict[str, object] = {}          # per process: seat spec (as JSON) -> agent, built on first use

# Progress phases: where a worker is in its game
IDLE, BUILDING, CHOOSING, STEPPING, RESETTING = 0, 1, 2, 3, 4
_READY, _GAME, _TAKEN, _PHASE, _SEAT, _DEADLINE, _HEADER = 0, 1, 2, 3, 4, 5, 6    # slots, then action ids
WATCHDOG_MARGIN_S = 2.0     # past a clocked choice's time + grace, the parent kills a worker still choosing


def game_seeds(base_seed: int, game_index: int, n_seats: int, duplicate: bool = False,
               key: bytes | None = None) -> tuple[int, list[int]]:
    """(game seed, one agent seed per seat) for game `game_index` of a tournament. With `duplicate`
    the n_seats games of a schedule block (one set of agents, its seating rotated: schedule.py) share
    the game seed of the block's first game: one deal, played from every seat. With a secret `key`
    (secret deals: runner.deal_key) the seeds are drawn from it too, so that no one without the key can
    derive a game's seed from the config, the game's number or the agent seeds a bot is sent."""
    secret = [] if key is None else [int(w) for w in np.frombuffer(key, np.uint32)]
    words = np.random.SeedSequence(secret + [int(base_seed), int(game_index)]).generate_state(2 + n_seats, np.uint32)
    if duplicate:
        deal = game_index - game_index % n_seats
        words[:2] = np.random.SeedSequence(secret + [int(base_seed), int(deal)]).generate_state(2 + n_seats,
                                                                                                np.uint32)[:2]
    game_seed = (int(words[0]) << 30 | int(words[1])) & ((1 << 62) - 1)
    return game_seed, [int(w) for w in words[2:]]


def make_job(cfg, game_index: int, key: bytes | None = None, private=()) -> dict:
    """Everything a worker needs to play game `game_index` of the tournament `cfg` (`key`: its secret
    deals' key; `private`: the folders no bot process may see, sandbox.set_private)."""
    seats = seating(game_index, len(cfg.agents), cfg.num_players)
    game_seed, agent_seeds = game_seeds(cfg.seed, game_index, cfg.num_players, cfg.duplicate, key)
    return {"game_index": game_index, "seed": game_seed, "agent_seeds": agent_seeds,
            "specs": [cfg.agents[a] for a in seats], "num_players": cfg.num_players, "variant": cfg.variant,
            "negotiation": cfg.negotiation, "card_set": cfg.card_set, "modules": cfg.worker_modules,
            "tournament": {"name": cfg.name, "fingerprint": cfg.fingerprint()},
            "clocks": [cfg.seat_clock(cfg.agents[a]) for a in seats], "private": [str(p) for p in private]}


class Progress:
    """Where a worker stands, in memory shared with the parent: whether it is up, the index of its
    game, the phase (IDLE, BUILDING the agents or the game, an agent RESETTING for the game or
    CHOOSING, the engine STEPPING), the seat whose agent runs and the actions taken. Made by the parent, handed to each worker it starts in
    that slot of its pool (`reset` first)."""

    def __init__(self, ctx):
        self.buf = ctx.RawArray("q", _HEADER + MAX_DECISIONS + 2)
        self.reset()

    def reset(self) -> None:
        self.buf[_READY], self.buf[_GAME], self.buf[_PHASE], self.buf[_DEADLINE] = 0, -1, IDLE, 0

    def ready(self) -> None:
        """The worker process is up (it can take jobs)."""
        self.buf[_READY] = 1

    @property
    def is_ready(self) -> bool:
        return bool(self.buf[_READY])

    def start(self, game_index: int) -> None:
        self.buf[_TAKEN], self.buf[_SEAT], self.buf[_GAME] = 0, -1, game_index
        self.buf[_PHASE] = BUILDING

    def resetting(self, seat: int) -> None:
        self.buf[_SEAT] = seat
        self.buf[_PHASE] = RESETTING

    def reset_done(self) -> None:
        self.buf[_DEADLINE] = 0
        self.buf[_PHASE] = BUILDING

    def choosing(self, seat: int, deadline_s: float | None = None) -> None:
        """The agent of `seat` chooses; `deadline_s` (time.monotonic, shared by the processes of a
        machine): when the parent may kill this worker if it is still choosing (a clocked choice
        that hangs where its thread cannot be given up, e.g. in C code holding the interpreter)."""
        self.buf[_SEAT] = seat
        self.buf[_DEADLINE] = 0 if deadline_s is None else int(deadline_s * 1000)
        self.buf[_PHASE] = CHOOSING

    def overdue(self) -> bool:
        """Choosing past the deadline of a clocked choice (see `choosing`)."""
        d = self.buf[_DEADLINE]
        return self.buf[_PHASE] == CHOOSING and d > 0 and time.monotonic() * 1000 > d

    def on_move(self, game, step: int, seat: int, action: int) -> None:
        """run_game's hook, called when an action is legal, before the engine applies it."""
        self.buf[_HEADER + step] = action
        self.buf[_TAKEN] = step + 1
        self.buf[_DEADLINE] = 0
        self.buf[_PHASE] = STEPPING

    def idle(self) -> None:
        self.buf[_PHASE] = IDLE

    def snapshot(self) -> tuple[int, int, int, list[int]]:
        """(game index, phase, choosing seat, actions taken)."""
        n = self.buf[_TAKEN]
        return self.buf[_GAME], self.buf[_PHASE], self.buf[_SEAT], list(self.buf[_HEADER:_HEADER + n])


class AgentInterrupted(Exception):
    """KeyboardInterrupt or SystemExit raised by an agent's own code in a worker (which ignores SIGINT,
    so no Ctrl-C of the user's is ever one): a failure of the agent, its game forfeited as any other."""


@contextlib.contextmanager
def _agents_own(method: str):
    try:
        yield
    except (KeyboardInterrupt, SystemExit) as e:
        err = AgentInterrupted(f"{method} raised {type(e).__name__}")
        err.forfeit_reason = f"{'raised' if method == 'act' else 'reset raised'} {type(e).__name__}: {e}".rstrip(": ")
        raise err from None


class _Watched(Agent):
    """An agent whose reset() and act() mark its seat as resetting or choosing in the worker's Progress."""

    def __init__(self, agent, seat: int, progress: Progress):
        self.agent, self.seat, self.progress = agent, seat, progress
        self.needs_game = agent.needs_game

    def reset(self, seed=None):
        self.progress.resetting(self.seat)
        with _agents_own("reset"):
            self.agent.reset(seed)
        self.progress.reset_done()

    def new_game(self, info: dict) -> None:
        new_game = getattr(self.agent, "new_game", None)
        if new_game is not None:
            self.progress.resetting(self.seat)
            new_game(info)
            self.progress.reset_done()

    def abort(self) -> None:
        """The arena gave up a hung choice (run_game): no watchdog for it any more."""
        self.progress.reset_done()
        abort = getattr(self.agent, "abort", None)
        if abort is not None:
            abort()

    grace_ms = 1000.0           # the clock's grace (play_job sets each seat's)

    @property
    def cpu_seconds(self):
        """A process bot's own CPU counter (run_game adds it to the seat's), None for other agents."""
        return getattr(self.agent, "cpu_seconds", None)

    def set_clock(self, time_left) -> None:
        self._told = time_left
        set_clock = getattr(self.agent, "set_clock", None)
        if set_clock is not None:
            set_clock(time_left)

    def act(self, observation, action_mask, game=None):
        told = getattr(self, "_told", None)
        deadline = None
        if told is not None and told.allowed_ms is not None:
            deadline = time.monotonic() + (told.allowed_ms + self.grace_ms) / 1000.0 + WATCHDOG_MARGIN_S
        self.progress.choosing(self.seat, deadline)
        with _agents_own("act"):
            return self.agent.act(observation, action_mask, game)

    def game_over(self, record: dict) -> None:
        self.progress.reset_done()
        game_over = getattr(self.agent, "game_over", None)
        if game_over is not None:
            game_over(record)


def init_worker() -> None:
    """Process initializer: one thread for the numeric libraries."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _agent(spec: dict):
    from ...base import make_agent

    key = json.dumps(spec, sort_keys=True)
    if key not in _AGENTS:
        _AGENTS[key] = make_agent(spec["agent"], **spec["options"])
        if "torch" in sys.modules:          # an agent may have just imported it
            sys.modules["torch"].set_num_threads(1)
    return _AGENTS[key]


def play_job(job: dict, progress: Progress | None = None) -> dict:
    """Play the game of a job (agents built once per process) and return its record; `progress`
    (in a worker process) follows the game as it is played."""
    from ..play import run_game

    from ..process.sandbox import set_private

    set_private(job.get("private", ()))
    for m in job["modules"]:
        importlib.import_module(m)
    if progress is not None:
        progress.start(job["game_index"])
    agents = [_agent(spec) for spec in job["specs"]]
    if progress is not None:
        agents = [_Watched(a, seat, progress) for seat, a in enumerate(agents)]
        for w, c in zip(agents, job.get("clocks") or [None] * len(agents)):
            if c is not None:
                w.grace_ms = float(c.get("grace_ms", 1000.0))
    rec = run_game(agents, job["specs"], num_players=job["num_players"], seed=job["seed"],
                   variant=job["variant"], negotiation=job["negotiation"], card_set=job["card_set"],
                   agent_seeds=job["agent_seeds"], game_index=job["game_index"], tournament=job["tournament"],
                   on_move=None if progress is None else progress.on_move, clocks=job.get("clocks"))
    hung = ((rec.get("timing") or {}).get("clock") or {}).get("hung")
    if hung is not None:          # its call still runs in a thread of this process: build a new one next time
        _AGENTS.pop(json.dumps(job["specs"][hung], sort_keys=True), None)
    if progress is not None:
        progress.idle()
    return rec


def worker_main(conn, progress: Progress) -> None:
    """A worker process: play the jobs received on `conn` one at a time, answering each with
    ("done", record) or ("failed", message); stop at None or when the parent is gone. Ctrl-C is
    the parent's to handle (it stops the workers); the parent starts workers with SIGINT and
    SIGTERM blocked, so a signal that came while this process was starting is handled only here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    init_worker()
    progress.ready()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):         # the parent is gone
            break
        if job is None:
            break
        try:
            answer = ("done", play_job(job, progress))
        except Exception as e:              # the engine or the harness failed, not an agent (agents forfeit)
            progress.idle()
            answer = ("failed", f"{type(e).__name__}: {e}")
        try:
            conn.send(answer)
        except OSError:                     # the parent is gone
            break
    for agent in _AGENTS.values():
        agent.close()


def hosted_worker_main(conn, progress: Progress, parent_pid: int) -> None:
    """worker_main in a process started by a Ray worker (ray_pool.GameHost), which also ends within
    a fraction of a second when that parent is gone: a Ray worker is killed when its run stops (its
    children are not), and this process must not play on alone."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="v1919-parent-watch", daemon=True).start()
    worker_main(conn, progress)


def death(exitcode: int | None) -> str:
    """How a process ended, from its exit code ("exit code 3", "killed by SIGSEGV")."""
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def dead_worker_outcome(job: dict, progress: Progress, exitcode: int | None,
                        overdue: bool = False) -> tuple[str, object]:
    """What to do with the game of a worker process that died: ("done", record) when an agent was
    choosing or resetting for the game (that seat forfeits at that step, like an agent that raised),
    else ("failed", message) (the engine or the harness: the game is not recorded and a rerun plays
    it again)."""
    game_index, phase, seat, actions = progress.snapshot()
    how = death(exitcode)
    if game_index != job["game_index"]:
        return "failed", f"the worker process died before the game began ({how})"
    if phase == RESETTING:
        return "done", _forfeit_record(job, actions, seat, f"its worker process died in its reset() ({how})")
    if phase != CHOOSING:
        where = {BUILDING: "while building the agents or the game", STEPPING: "while the engine applied an action",
                 IDLE: "after the game ended"}[phase]
        return "failed", f"the worker process died {where} ({how})"
    if overdue:
        return "done", _forfeit_record(job, actions, seat, f"did not answer within its time and the grace, in code "
                                                           f"that could not be interrupted: hung (its worker process "
                                                           f"was {how.replace('killed by', 'killed with')})")
    return "done", _forfeit_record(job, actions, seat, f"its worker process died while it was choosing ({how})")


def _forfeit_record(job: dict, actions: list[int], seat: int, reason: str) -> dict:
    """The record of a job's game forfeited by `seat` after `actions` (replayed here)."""
    from v1919_env.game import Game
    from v1919_env.records import game_result, make_record

    game = Game.new(job["num_players"], seed=job["seed"], variant=job["variant"], negotiation=job["negotiation"],
                    card_set=job["card_set"])
    for a in actions:
        game.step(a)
    forfeit = {"seat": seat, "label": job["specs"][seat]["label"], "step": len(actions), "reason": reason,
               "action": None}
    seats = [dict(s, seed=sd) for s, sd in zip(job["specs"], job["agent_seeds"])]
    return make_record(game_index=job["game_index"], seed=job["seed"], num_players=job["num_players"],
                       variant=job["variant"], negotiation=job["negotiation"], card_set_label=game.cards.label,
                       card_set_digest=game.cards.digest,
                       card_set_path=None if job["card_set"] is None else str(job["card_set"]), seats=seats,
                       actions=actions, result=game_result(game, forfeit), tournament=job["tournament"])
