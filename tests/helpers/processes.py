"""The process table, read from /proc: what a test needs to see that the processes a run started are gone."""
from __future__ import annotations

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


def _live() -> list[tuple[tuple[int, str], int]]:
    out = []
    for d in Path("/proc").iterdir():
        fields = proc_stat(d.name) if d.name.isdigit() else None
        if fields and fields[0] not in "ZX":
            out.append(((int(d.name), fields[19]), int(fields[1])))
    return out
