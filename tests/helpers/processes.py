"""The process table, read from /proc (what a test needs to see that the processes a run started are
gone), and waiting for a run's records."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path


def proc_stat(pid) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first), None if there is no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def children(pid: int) -> list[tuple[int, str]]:
    """(pid, start time) of the running children of process `pid`."""
    return [k for k, parent in _live() if parent == pid]


def descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, start time) of every running process below `pid`."""
    kids: dict[int, list[tuple[int, str]]] = {}
    for k, parent in _live():
        kids.setdefault(parent, []).append(k)
    out, todo = [], [pid]
    while todo:
        for kid in kids.get(todo.pop(), []):
            out.append(kid)
            todo.append(kid[0])
    return out


def is_running(pid: int, start: str) -> bool:
    """Whether the process `pid` started at `start` (not a later one with its number) still runs."""
    fields = proc_stat(pid)
    return fields is not None and fields[19] == start and fields[0] not in "ZX"


def wait_for_games(path: Path, n: int, proc: subprocess.Popen, limit: float = 300) -> None:
    """Return once the records file `path` holds `n` games; fail if the run `proc` ends first or `limit`
    seconds pass."""
    t0 = time.time()
    while time.time() - t0 < limit:
        if path.exists() and path.read_text().count("\n") >= n:
            return
        if proc.poll() is not None:
            raise AssertionError(f"the run ended early: {proc.communicate()}")
        time.sleep(0.05)
    raise AssertionError(f"{n} games not written in {limit} s")


def _live() -> list[tuple[tuple[int, str], int]]:
    out = []
    for d in Path("/proc").iterdir():
        fields = proc_stat(d.name) if d.name.isdigit() else None
        if fields and fields[0] not in "ZX":
            out.append(((int(d.name), fields[19]), int(fields[1])))
    return out
