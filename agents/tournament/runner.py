"""Run a tournament into an output directory, resumably.

out_dir/games.jsonl gets one record per finished game, appended and flushed as each game ends, in
the order games finish. Running the same config into the same directory again reads the file,
drops an unfinished last line (a write cut short), checks that its games belong to the same
tournament definition (config fingerprint), and plays only the missing game indices; a config
with more games extends the tournament. Ctrl-C or a dead worker stops the run with every
finished game kept; a second run into the same directory at the same time is refused. The
reports are then recomputed from games.jsonl alone.
"""
from __future__ import annotations

import multiprocessing as mp
import signal
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from v1919_env.records import RecordError, parse_lines, write_record
from .report import write_reports
from .worker import init_worker, make_job, play_job

GAMES_FILE = "games.jsonl"
LOCK_FILE = ".lock"


class TournamentError(RuntimeError):
    """A tournament that cannot go on; finished games are kept in games.jsonl."""


class TournamentInterrupted(TournamentError):
    """Stopped by Ctrl-C or a dead worker; running the same command again resumes."""


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


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in list((getattr(pool, "_processes", None) or {}).values()):   # no public API before 3.14
        if proc.is_alive():
            proc.terminate()


def _init_pool_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)      # Ctrl-C is the main process's to handle
    init_worker()


def play_games(cfg, out_dir, workers: int | None = None, progress: bool = True, log=print) -> dict:
    """Play the games of cfg missing from out_dir; returns {"played", "kept", "failed", "seconds"}.
    Raises TournamentInterrupted on Ctrl-C or a dead worker (the finished games stay on disk)."""
    from tqdm import tqdm

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with _run_lock(out):
        return _play_missing(cfg, out, workers, progress, log, tqdm)


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


def _play_missing(cfg, out: Path, workers, progress, log, tqdm) -> dict:
    done = finished_games(cfg, out)
    (out / "config.yaml").write_text(cfg.to_yaml())          # after the check: never over another tournament's
    done_ids = {r["game"] for r in done}
    todo = [i for i in range(cfg.games) if i not in done_ids]
    workers = cfg.workers if workers is None else workers
    if done:
        log(f"resuming: {len(done)} of {cfg.games} games already in {out / GAMES_FILE}")
    played, failed = 0, {}
    t0 = time.perf_counter()
    with open(out / GAMES_FILE, "a", encoding="utf-8") as fh, \
            tqdm(total=cfg.games, initial=len(done), unit="game", disable=not progress, smoothing=0.05) as bar:
        def keep(rec):
            nonlocal played
            write_record(fh, rec)
            played += 1
            bar.update(1)

        def fail(i, e):
            failed[i] = f"{type(e).__name__}: {e}"
            bar.write(f"game {i} failed: {failed[i]}")

        kept = f"{{}}: {{}} of {cfg.games} games kept in {out / GAMES_FILE}; run the same command again to resume"
        pool = None
        try:
            if workers == 0 or not todo:
                for i in todo:
                    try:
                        rec = play_job(make_job(cfg, i))
                    except Exception as e:        # the engine or the harness failed, not an agent
                        fail(i, e)
                        continue
                    keep(rec)
            else:
                pool = ProcessPoolExecutor(min(workers, len(todo)), mp_context=mp.get_context("spawn"),
                                           initializer=_init_pool_worker)
                futures = {pool.submit(play_job, make_job(cfg, i)): i for i in todo}
                for fut in as_completed(futures):
                    try:
                        rec = fut.result()
                    except BrokenProcessPool:
                        raise
                    except Exception as e:
                        fail(futures[fut], e)
                        continue
                    keep(rec)
                pool.shutdown(wait=True)
        except KeyboardInterrupt:
            if pool is not None:
                _stop_workers(pool)
            raise TournamentInterrupted(kept.format("interrupted", len(done) + played)) from None
        except BrokenProcessPool:
            _stop_workers(pool)
            raise TournamentInterrupted(kept.format("a worker process died", len(done) + played)) from None
    return {"played": played, "kept": len(done), "failed": failed, "seconds": time.perf_counter() - t0}


def report(cfg, out_dir) -> list[dict]:
    """Recompute results.md, results.csv and ratings.png from out_dir/games.jsonl."""
    records = finished_games(cfg, out_dir, repair=False)
    if not records:
        raise TournamentError(f"no finished game of this tournament in {Path(out_dir) / GAMES_FILE}")
    return write_reports(sorted(records, key=lambda r: r["game"]), cfg, out_dir)
