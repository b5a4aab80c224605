"""Where a tournament's games are played: an executor takes the jobs (worker.make_job) and hands each
answer to `settle(game index, kind, payload)`: ("done", record) or ("failed", message) for a game
the engine or the harness could not play (not recorded; a rerun plays it again).

    InProcess()          every game in this process, one after another (workers: 0)
    ProcessPool(n)       n spawned worker processes on this machine, one game at a time each
    ray_pool.RayPool     one worker per CPU of a Ray cluster (a local Ray instance or one joined by
                         address); each runs a ProcessPool worker process of its own on its node

The runner picks one (runner.make_executor) and runs it inside a StopSignals block: Ctrl-C and
SIGTERM stop it within seconds, with every worker ended and every finished game settled.

A worker process that dies during a game is replaced, and its game is recorded as a forfeit of the
seat whose agent was choosing (worker.dead_worker_outcome); workers that die while starting stop
the run (TournamentError).
"""
from __future__ import annotations

import multiprocessing as mp
import signal
import threading
import time
from collections import deque
from contextlib import contextmanager, nullcontext
from multiprocessing.connection import wait

from .errors import TournamentError
from .worker import Progress, dead_worker_outcome, death, play_job, worker_main

STOP_GRACE_S = 5.0          # how long stopped workers get to end before they are killed


class Terminated(BaseException):
    """SIGTERM, raised in the main thread while games are played (as Ctrl-C raises KeyboardInterrupt)."""


class StopSignals:
    """SIGINT and SIGTERM while games are played (handlers only in the main thread, where Python
    runs them): the first raises KeyboardInterrupt (SIGINT) or Terminated (SIGTERM), later ones
    are ignored, so a second Ctrl-C cannot cut the stopping of the workers short; inside `held()`
    the first waits to the end of the block (a worker being started or a game being written).
    `install()` again after a library replaced the handlers (ray.init sets one for SIGTERM); the
    handlers of before the block are restored at its end."""

    def __init__(self):
        self.first = None               # the first signal received
        self.holding = self.pending = False
        self.before = {}

    def __enter__(self):
        self.install()
        return self

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            for s in (signal.SIGINT, signal.SIGTERM):
                previous = signal.signal(s, self._handle)
                self.before.setdefault(s, previous)

    def __exit__(self, *exc):
        for s, handler in self.before.items():
            signal.signal(s, handler)

    def _handle(self, signum, frame):
        if self.first is not None:
            return
        self.first = signum
        if self.holding:
            self.pending = True
        else:
            self._raise()

    def _raise(self):
        raise KeyboardInterrupt if self.first == signal.SIGINT else Terminated

    @contextmanager
    def held(self):
        """A block that a stop signal does not interrupt (it is raised at the end)."""
        outer, self.holding = self.holding, True
        try:
            yield
        finally:
            self.holding = outer
        if self.pending and not outer:
            self.pending = False
            self._raise()


class Executor:
    """Plays tournament jobs somewhere (see the module docstring)."""

    description = ""
    live = None         # set by the runner: live(list of (job, actions so far)) for the games in flight

    def run(self, jobs: list[dict], settle, signals: StopSignals) -> None:
        """Play every job, each answer to settle(game index, kind, payload)."""
        raise NotImplementedError


class InProcess(Executor):
    description = "in this process"

    def run(self, jobs: list[dict], settle, signals: StopSignals) -> None:
        for job in jobs:
            try:
                answer = ("done", play_job(job))
            except Exception as e:        # the engine or the harness failed, not an agent (agents forfeit)
                answer = ("failed", f"{type(e).__name__}: {e}")
            with signals.held():
                settle(job["game_index"], *answer)


class ProcessPool(Executor):
    """n spawned worker processes on this machine (at most one per job)."""

    def __init__(self, n: int):
        self.n = n
        self.description = f"{n} worker process{'es' if n != 1 else ''}"

    def run(self, jobs: list[dict], settle, signals: StopSignals) -> None:
        ctx = mp.get_context("spawn")
        pool: list[WorkerProcess] = []
        try:
            for _ in range(min(self.n, len(jobs))):
                pool.append(WorkerProcess(ctx, Progress(ctx)))
                pool[-1].start(signals)
            queue = deque(jobs)
            while queue or any(w.job is not None for w in pool):
                for w in pool:
                    if w.job is None and queue:
                        w.give(queue.popleft())
                busy = [w for w in pool if w.job is not None]
                # a timeout: a signal that another thread (tqdm's monitor) took does not interrupt the wait
                ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=1.0)
                for w in busy:
                    w.kill_if_overdue()
                if self.live is not None:               # the games in flight, move by move (watch pages)
                    self.live([(w.job, w.moves()) for w in pool if w.job is not None])
                for k, w in enumerate(pool):
                    if w.job is not None and (w.conn in ready or w.proc.sentinel in ready):
                        with signals.held():
                            answer = w.answer()
                            if answer is None:              # the worker died: replace it
                                answer = w.outcome_of_death()
                                pool[k] = w.successor()
                                pool[k].start(signals)
                            settle(w.job["game_index"], *answer)
                            w.job = None
        finally:
            with signals.held():
                stop_workers(pool)
                for w in pool:              # games that ended while the pool stopped
                    answer = w.job and w.answer()
                    if answer and answer[0] == "done":
                        settle(w.job["game_index"], *answer)
                    w.conn.close()


class WorkerProcess:
    """A worker process (`target`, worker.worker_main by default, called with its end of the pipe,
    its Progress and `args`), this end of the pipe, its Progress and its job."""

    def __init__(self, ctx, progress: Progress, target=worker_main, args: tuple = ()):
        self.ctx, self.target, self.args = ctx, target, args
        self.conn, self._child = ctx.Pipe()
        self.progress = progress
        progress.reset()
        self.proc = ctx.Process(target=target, args=(self._child, progress, *args), name="v1919-tournament-worker")
        self.job = None
        self.overdue = False

    def kill_if_overdue(self) -> bool:
        """Kill the process if its agent is choosing past its clock's deadline (Progress.overdue):
        a hang its own thread could not give up; its game is then forfeited as hung."""
        if self.job is not None and not self.overdue and self.progress.overdue() and self.proc.exitcode is None:
            self.overdue = True
            self.proc.kill()
        return self.overdue

    def moves(self) -> list[int]:
        """The actions taken so far in this worker's game (none before it has started it)."""
        game, _, _, actions = self.progress.snapshot()
        return actions if self.job is not None and game == self.job["game_index"] else []

    def successor(self) -> "WorkerProcess":
        """A new worker process in this one's slot (its Progress), not started."""
        return WorkerProcess(self.ctx, self.progress, self.target, self.args)

    def start(self, signals: StopSignals | None = None) -> None:
        """Start the process with SIGINT and SIGTERM blocked in this thread: the process inherits the
        mask, so a Ctrl-C that comes before it ignores SIGINT cannot make it print a traceback."""
        with signals.held() if signals is not None else nullcontext(), signals_blocked():
            self.proc.start()
        self._child.close()

    def give(self, job: dict) -> None:
        self.job = job
        try:
            self.conn.send(job)
        except OSError:         # the process is gone: its sentinel says so to the caller's wait
            pass

    def answer(self):
        """The worker's answer to its job, or None if it died before sending one."""
        try:
            return self.conn.recv() if self.conn.poll() else None
        except (EOFError, OSError):           # died while sending
            return None

    def outcome_of_death(self) -> tuple[str, object]:
        """The answer to the job of a worker that closed its pipe without answering (it died);
        TournamentError if it died while starting (its replacement would most likely die too)."""
        self.proc.join(STOP_GRACE_S)
        if self.proc.exitcode is None:      # alive but its pipe is closed: it cannot go on
            self.proc.kill()
            self.proc.join()
        if not self.progress.is_ready:
            raise TournamentError(f"a worker process died while starting ({death(self.proc.exitcode)}); the error "
                                  f"it printed says why")
        return dead_worker_outcome(self.job, self.progress, self.proc.exitcode, overdue=self.overdue)


@contextmanager
def signals_blocked():
    if not hasattr(signal, "pthread_sigmask"):        # pragma: no cover  (Windows)
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def stop_workers(pool: list[WorkerProcess]) -> None:
    """End every started worker: idle ones are asked to stop, busy ones terminated; any still alive
    after STOP_GRACE_S is killed."""
    started = [w for w in pool if w.proc.pid is not None]
    for w in started:
        try:
            if w.job is None:
                w.conn.send(None)
            else:
                w.proc.terminate()
        except OSError:                         # already gone
            pass
    deadline = time.monotonic() + STOP_GRACE_S
    for w in started:
        w.proc.join(max(0.0, deadline - time.monotonic()))
        if w.proc.exitcode is None:
            w.proc.kill()
            w.proc.join()
