"""Run a tournament into an output directory, resumably.

out_dir/games.jsonl gets one record per finished game, appended and flushed as each game ends, in
the order games finish. Running the same config into the same directory again reads the file,
drops an unfinished last line (a write cut short), checks that its games belong to the same
tournament definition (config fingerprint), and plays only the missing game indices; a config
with more games extends the tournament. A second run into the same directory at the same time is
refused. The reports are then recomputed from games.jsonl alone.

Where the games are played is one choice, `make_executor(workers, ray)` (pool.py, ray_pool.py): in
this process (workers 0), a pool of spawn worker processes on this machine (the parent watching
them: a worker that dies during a game is replaced, and its game is recorded as a forfeit of the
seat whose agent was choosing, worker.dead_worker_outcome), or one such worker process per CPU of
a Ray cluster (`ray`: "local" starts a Ray instance for the run, "auto" or HOST:PORT joins one).
Every command that plays games through `play_games` takes the same `ray` argument. A game is
defined by the config and its index alone, so the records are the same whichever executor plays
them (only their timing differs). Ctrl-C (once or more) and SIGTERM stop the run within seconds:
the workers are stopped (SIGTERM, then SIGKILL; Ray workers killed, a Ray instance the run started
shut down) and every finished game is kept.
"""
from __future__ import annotations

import json
import logging
import os
import signal
import time
from pathlib import Path

from v1919_env.records import RecordError, parse_lines, write_record
from .errors import TournamentError, TournamentInterrupted
from .pool import Executor, InProcess, ProcessPool, StopSignals, Terminated
from .report import write_reports
from .worker import make_job

GAMES_FILE = "games.jsonl"
LOCK_FILE = ".lock"
KEY_FILE = "deal.key"
LIVE_FILE = "live.json"

logger = logging.getLogger(__name__)

__all__ = ["GAMES_FILE", "TournamentError", "TournamentInterrupted", "finished_games", "make_executor", "play_games",
           "report"]


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


def play_games(cfg, out_dir, workers: int | None = None, progress: bool = True, ray: str | None = None) -> dict:
    """Play the games of cfg missing from out_dir; returns {"played", "kept", "failed", "seconds",
    "executor"} ("failed": game index -> message, games the engine or the harness could not play;
    not recorded), with "nodes" (Ray node id -> games played there) when `ray` is given.
    `workers`: worker processes (default: the config's; 0: in this process). `ray`: play on Ray
    instead (see make_executor). Raises TournamentInterrupted on Ctrl-C or SIGTERM (the finished
    games stay on disk), TournamentError when Ray cannot be reached or used."""
    from tqdm import tqdm

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise TournamentError(f"{out} is a file, not a tournament directory; choose another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = _run_lock(out)
    except OSError as e:            # a file on the way, no permission, a read-only disk
        raise TournamentError(f"cannot write the tournament directory {out}: {e.strerror or e}") from None
    with lock:
        return _play_missing(cfg, out, workers, progress, tqdm, ray)


def make_executor(cfg_workers: int, workers: int | None = None, ray: str | None = None) -> Executor:
    """Where the games are played, from the config's `workers` and the caller's `workers` and `ray`:

    - `ray` None: `workers` (default: the config's) processes on this machine; 0 plays in this process;
    - `ray` "local": a Ray instance started for the run with that many CPUs (0: every core), one
      worker per CPU;
    - `ray` "auto" or HOST:PORT: the Ray cluster there, one worker per free CPU (at most the
      caller's `workers` when given: the config's describes this machine and is not used).
    """
    if ray is None:
        n = cfg_workers if workers is None else workers
        return InProcess() if n == 0 else ProcessPool(n)
    from .ray_pool import RAY_LOCAL, RayPool, check_address

    try:
        address = check_address(ray)
    except ValueError as e:
        raise TournamentError(f"ray: {e}") from None
    if address == RAY_LOCAL:
        n = cfg_workers if workers is None else workers
        return RayPool(address, local_cpus=n or os.cpu_count() or 1, cap=workers or None)
    return RayPool(address, cap=workers or None)


class LiveFile:
    """out_dir/live.json: the games in flight and their moves so far, rewritten (atomically) at most once
    a second while worker processes play, removed when the run ends; the watch pages follow it
    (agents/arena/web/watch.py). It holds the games' seeds: it lies in the tournament's folder, which no bot
    process sees (sandbox.set_private); the moves come from the workers' progress in shared memory."""

    def __init__(self, path: Path, every_s: float = 1.0):
        self.path, self.every_s, self._last, self._shown = path, every_s, 0.0, None

    def __call__(self, games) -> None:
        now = time.monotonic()
        if now - self._last < self.every_s:
            return
        self._last = now
        entries = [{"game": job["game_index"], "seed": job["seed"], "num_players": job["num_players"],
                    "variant": job["variant"], "negotiation": job["negotiation"], "card_set": job["card_set"],
                    "seats": [s["label"] for s in job["specs"]], "actions": [int(a) for a in actions]}
                   for job, actions in sorted(games, key=lambda g: g[0]["game_index"])]
        if entries == self._shown:
            return
        self._shown = entries
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps({"games": entries}, separators=(",", ":")))
            os.replace(tmp, self.path)
        except OSError:             # a full disk costs the watch pages, never the tournament
            pass

    def close(self) -> None:
        for p in (self.path, self.path.with_suffix(".tmp")):
            try:
                p.unlink()
            except OSError:
                pass


def deal_key(out: Path) -> bytes:
    """The secret of a tournament's secret deals (`deals`, config.py): 32 bytes from the OS's entropy,
    drawn at its first run and kept in out_dir/deal.key (readable by its owner only; no bot process
    sees the folder: sandbox.set_private), so that a resumed run deals the same games. The records
    hold each game's seed once it has ended: replays need no key."""
    path = out / KEY_FILE
    if path.exists():
        key = bytes.fromhex(path.read_text().strip())
        if len(key) != 32:
            raise TournamentError(f"{path} is not a deal key (64 hex digits); restore it or remove the folder's "
                                  f"games to start again")
        return key
    key = os.urandom(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key.hex() + "\n")
    return key


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


def _play_missing(cfg, out: Path, workers, progress, tqdm, ray=None) -> dict:
    done = finished_games(cfg, out)
    (out / "config.yaml").write_text(cfg.to_yaml())          # after the check: never over another tournament's
    done_ids = {r["game"] for r in done}
    todo = [i for i in range(cfg.games) if i not in done_ids]
    executor = make_executor(cfg.workers, workers, ray)
    if done:
        logger.info("resuming: %d of %d games already in %s", len(done), cfg.games, out / GAMES_FILE)
    played, failed = 0, {}
    t0 = time.perf_counter()
    with open(out / GAMES_FILE, "a", encoding="utf-8") as fh, \
            tqdm(total=cfg.games, initial=len(done), unit="game", disable=not progress, smoothing=0.05) as bar:
        # Under duplicate deals a record (its seed: the deal) is written once every game of its block has
        # ended, so that no record shows the deal of a game still being played.
        n = cfg.num_players if cfg.duplicate else 1
        waiting = {}
        for i in todo:
            waiting.setdefault(i - i % n, set()).add(i)
        held: dict[int, list] = {}

        def settle(i, kind, payload):
            nonlocal played
            block = i - i % n
            waiting[block].discard(i)
            if kind == "done":
                held.setdefault(block, []).append(payload)
            else:
                failed[i] = payload
                bar.write(f"game {i} failed: {payload}")
            if not waiting[block]:
                for rec in held.pop(block, []):
                    write_record(fh, rec)
                    played += 1
                    bar.update(1)

        kept = f"{{}}: {{}} of {cfg.games} games kept in {out / GAMES_FILE}; run the same command again to resume"
        executor.live = LiveFile(out / LIVE_FILE)
        try:
            with StopSignals() as signals:
                if todo:
                    key = deal_key(out) if cfg.secret_deals else None
                    executor.run([make_job(cfg, i, key, private=[out.resolve()]) for i in todo], settle, signals)
        except KeyboardInterrupt:
            raise TournamentInterrupted(kept.format("interrupted", len(done) + played), signal.SIGINT) from None
        except Terminated:
            raise TournamentInterrupted(kept.format("terminated", len(done) + played), signal.SIGTERM) from None
        finally:
            executor.live.close()
    run = {"played": played, "kept": len(done), "failed": failed, "seconds": time.perf_counter() - t0,
           "executor": executor.description}
    if ray is not None:
        run["nodes"] = dict(getattr(executor, "nodes", {}))
    return run


def report(cfg, out_dir) -> list[dict]:
    """Recompute results.md, results.csv and ratings.png from out_dir/games.jsonl; a record that is not
    the game the tournament dealt (its seed, its seats) or whose replay differs from it is not counted
    (`verify_records`) and is listed in the report."""
    records = finished_games(cfg, out_dir, repair=False)
    if not records:
        raise TournamentError(f"no finished game of this tournament in {Path(out_dir) / GAMES_FILE}")
    good, refused = verify_records(cfg, Path(out_dir), records)
    for game, why in refused:
        logger.warning("game %d is not counted: %s", game, why)
    if not good:
        raise TournamentError(f"no game of {Path(out_dir) / GAMES_FILE} replays as recorded ({len(refused)} refused; "
                              f"first: game {refused[0][0]}: {refused[0][1]})")
    return write_reports(sorted(good, key=lambda r: r["game"]), cfg, out_dir, refused=refused)


def verify_records(cfg, out: Path, records: list[dict]) -> tuple[list[dict], list[tuple[int, str]]]:
    """(the records to count, [(game, why not)] for the others): each record must be the game the
    tournament deals at its index (its seed, from the config and the folder's key under secret deals;
    the seats' labels of the schedule) and replay to its recorded result (records.result_differences;
    the core replays a game in milliseconds), so an edited games.jsonl changes no figure."""
    from v1919_env.records import RecordError, replay, result_differences

    key = deal_key(out) if cfg.secret_deals and (out / KEY_FILE).exists() else None
    good, refused = [], []
    for rec in records:
        k = rec["game"]
        job = make_job(cfg, k, key)
        if cfg.secret_deals and key is None:
            why = [f"the deals are secret and {out / KEY_FILE} is missing: its seed cannot be checked"]
        elif rec["seed"] != job["seed"]:
            why = [f"seed {rec['seed']} is not the seed this tournament deals game {k}"]
        elif [s.get("label") for s in rec.get("seats", [])] != [s["label"] for s in job["specs"]]:
            why = [f"its seats {[s.get('label') for s in rec.get('seats', [])]} are not the schedule's"]
        else:
            try:
                why = result_differences(rec, replay(rec))
            except (RecordError, ValueError, KeyError, TypeError) as e:
                why = [str(e)]
        if why:
            refused.append((k, "; ".join(why[:3])))
        else:
            good.append(rec)
    return good, refused
