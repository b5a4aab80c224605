"""Run a tournament into an output directory, resumably.

out_dir/games.jsonl gets one record per finished game, appended and flushed as each game ends, in
the order games finish. Running the same config into the same directory again reads the file,
drops an unfinished last line (a write cut short), checks that its games belong to the same
tournament definition (config fingerprint), and plays only the missing game indices; a config
with more games extends the tournament. A second run into the same directory at the same time is
refused. The reports are then recomputed from games.jsonl alone.

Games are played by a pool of spawn worker processes, one game at a time each, the parent
watching them: a worker that dies during a game is replaced, and its game is recorded as a
forfeit of the seat whose agent was choosing (worker.dead_worker_outcome). Ctrl-C (once or more)
and SIGTERM stop the run within seconds: the workers are stopped (SIGTERM, then SIGKILL) and
every finished game is kept.
"""
from __future__ import annotations

import logging
import multiprocessing as mp
import signal
import threading
import time
from collections import deque
from contextlib import contextmanager
from multiprocessing.connection import wait
from pathlib import Path

from v1919_env.records import RecordError, parse_lines, write_record
from .report import write_reports
from .worker import Progress, dead_worker_outcome, death, make_job, play_job, worker_main

GAMES_FILE = "games.jsonl"
LOCK_FILE = ".lock"
STOP_GRACE_S = 5.0          # how long stopped workers get to end before they are killed

logger = logging.getLogger(__name__)


class TournamentError(RuntimeError):
    """A tournament that cannot go on; finished games are kept in games.jsonl."""


class TournamentInterrupted(TournamentError):
    """Stopped by Ctrl-C (SIGINT) or SIGTERM (`signal` says which); running the same command again
    resumes."""

    def __init__(self, message: str, signum: int):
        super().__init__(message)
        self.signal = int(signum)


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread while games are played (as Ctrl-C raises KeyboardInterrupt)."""


def finished_games(cfg, out_dir, repair: bool = True) -> list[dict]:
    """Records already in out_dir/games.jsonl for this tournament (an unfinished last line is cut
    off when `repair`); raises TournamentError if they come from another tournament definition."""
    path = Path(out_dir) / GAMES_FILE
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    try:
        records, good = parse_lines(text, str(path))
    except RecordError as e:
        raise TournamentError(f"{e}; fix or remove the line to resume") from e
    if repair and good < len(text):
        with open(path, "r+", encoding="utf-8") as fh:     # cut the line a killed run left unfinished
            fh.truncate(len(text[:good].encode("utf-8")))
    elif repair and text and not text.endswith("\n"):
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("\n")
    fp = cfg.fingerprint()
    for rec in records:
        got = (rec.get("tournament") or {}).get("fingerprint")
        if got != fp:
            raise TournamentError(f"{path} holds games of another tournament (game {rec['game']} has fingerprint "
                                  f"{got}, this config {fp}: agents, options, players, variant, card set or seed "
                                  f"differ); choose another --out directory")
    seen, out = set(), []
    for rec in records:
        if rec["game"] not in seen and rec["game"] < cfg.games:
            seen.add(rec["game"])
            out.append(rec)
    return out


def play_games(cfg, out_dir, workers: int | None = None, progress: bool = True) -> dict:
    """Play the games of cfg missing from out_dir; returns {"played", "kept", "failed", "seconds"}
    ("failed": game index -> message, games the engine or the harness could not play; not recorded).
    Raises TournamentInterrupted on Ctrl-C or SIGTERM (the finished games stay on disk)."""
    from tqdm import tqdm

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with _run_lock(out):
        return _play_missing(cfg, out, workers, progress, tqdm)


def _run_lock(out: Path):
    """An open lock file held exclusively while a run plays into `out`: a second run at the same
    time (which would play the same games again) is refused. No lock where fcntl is missing."""
    fh = open(out / LOCK_FILE, "w")
    try:
        import fcntl
    except ImportError:                  # pragma: no cover  (Windows)
        return fh
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise TournamentError(f"another run is playing into {out} (it holds {out / LOCK_FILE}); wait for it to end "
                              f"or stop it first") from None
    return fh


def _play_missing(cfg, out: Path, workers, progress, tqdm) -> dict:
    done = finished_games(cfg, out)
    (out / "config.yaml").write_text(cfg.to_yaml())          # after the check: never over another tournament's
    done_ids = {r["game"] for r in done}
    todo = [i for i in range(cfg.games) if i not in done_ids]
    workers = cfg.workers if workers is None else workers
    if done:
        logger.info("resuming: %d of %d games already in %s", len(done), cfg.games, out / GAMES_FILE)
    played, failed = 0, {}
    t0 = time.perf_counter()
    with open(out / GAMES_FILE, "a", encoding="utf-8") as fh, \
            tqdm(total=cfg.games, initial=len(done), unit="game", disable=not progress, smoothing=0.05) as bar:
        def settle(i, kind, payload):
            nonlocal played
            if kind == "done":
                write_record(fh, payload)
                played += 1
                bar.update(1)
            else:
                failed[i] = payload
                bar.write(f"game {i} failed: {payload}")

        kept = f"{{}}: {{}} of {cfg.games} games kept in {out / GAMES_FILE}; run the same command again to resume"
        try:
            with _StopSignals() as signals:
                if workers == 0 or not todo:
                    _play_here(cfg, todo, settle, signals)
                else:
                    _play_in_workers(cfg, todo, min(workers, len(todo)), settle, signals)
        except KeyboardInterrupt:
            raise TournamentInterrupted(kept.format("interrupted", len(done) + played), signal.SIGINT) from None
        except _Terminated:
            raise TournamentInterrupted(kept.format("terminated", len(done) + played), signal.SIGTERM) from None
    return {"played": played, "kept": len(done), "failed": failed, "seconds": time.perf_counter() - t0}


class _StopSignals:
    """SIGINT and SIGTERM while games are played (handlers only in the main thread, where Python
    runs them): the first raises KeyboardInterrupt (SIGINT) or _Terminated (SIGTERM), later ones
    are ignored, so a second Ctrl-C cannot cut the stopping of the workers short; inside `held()`
    the first waits to the end of the block (a worker being started or a game being written)."""

    def __init__(self):
        self.first = None               # the first signal received
        self.holding = self.pending = False
        self.before = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self.before = {s: signal.signal(s, self._handle) for s in (signal.SIGINT, signal.SIGTERM)}
        return self

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
        raise KeyboardInterrupt if self.first == signal.SIGINT else _Terminated

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


def _play_here(cfg, todo: list[int], settle, signals: _StopSignals) -> None:
    for i in todo:
        try:
            answer = ("done", play_job(make_job(cfg, i)))
        except Exception as e:        # the engine or the harness failed, not an agent (agents forfeit)
            answer = ("failed", f"{type(e).__name__}: {e}")
        with signals.held():
            settle(i, *answer)


def _play_in_workers(cfg, todo: list[int], n: int, settle, signals: _StopSignals) -> None:
    """Play the games `todo` in n worker processes, each answer to settle(index, kind, payload)."""
    ctx = mp.get_context("spawn")
    pool: list[_Worker] = []
    try:
        for _ in range(n):
            pool.append(_Worker(ctx, Progress(ctx)))
            pool[-1].start(signals)
        queue = deque(todo)
        while queue or any(w.job is not None for w in pool):
            for w in pool:
                if w.job is None and queue:
                    w.give(make_job(cfg, queue.popleft()))
            busy = [w for w in pool if w.job is not None]
            # a timeout: a signal that another thread (tqdm's monitor) took does not interrupt the wait
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=1.0)
            for k, w in enumerate(pool):
                if w.job is not None and (w.conn in ready or w.proc.sentinel in ready):
                    with signals.held():
                        answer = w.answer()
                        if answer is None:              # the worker died: replace it
                            answer = w.outcome_of_death()
                            pool[k] = _Worker(ctx, w.progress)
                            pool[k].start(signals)
                        settle(w.job["game_index"], *answer)
                        w.job = None
    finally:
        with signals.held():
            _stop(pool)
            for w in pool:              # games that ended while the pool stopped
                answer = w.job and w.answer()
                if answer and answer[0] == "done":
                    settle(w.job["game_index"], *answer)
                w.conn.close()


class _Worker:
    """A worker process (worker.worker_main), its end of the pipe, its Progress and its job."""

    def __init__(self, ctx, progress: Progress):
        self.conn, self._child = ctx.Pipe()
        self.progress = progress
        progress.reset()
        self.proc = ctx.Process(target=worker_main, args=(self._child, progress), name="v1919-tournament-worker")
        self.job = None

    def start(self, signals: _StopSignals) -> None:
        """Start the process with SIGINT and SIGTERM blocked in this thread: the process inherits the
        mask, so a Ctrl-C that comes before it ignores SIGINT cannot make it print a traceback."""
        with signals.held(), _signals_blocked():
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
        return dead_worker_outcome(self.job, self.progress, self.proc.exitcode)


@contextmanager
def _signals_blocked():
    if not hasattr(signal, "pthread_sigmask"):        # pragma: no cover  (Windows)
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stop(pool: list[_Worker]) -> None:
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


def report(cfg, out_dir) -> list[dict]:
    """Recompute results.md, results.csv and ratings.png from out_dir/games.jsonl."""
    records = finished_games(cfg, out_dir, repair=False)
    if not records:
        raise TournamentError(f"no finished game of this tournament in {Path(out_dir) / GAMES_FILE}")
    return write_reports(sorted(records, key=lambda r: r["game"]), cfg, out_dir)
