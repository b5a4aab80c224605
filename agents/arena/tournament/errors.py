"""The tournament's errors (raised by the runner and by the executors that play its games)."""
from __future__ import annotations


class TournamentError(RuntimeError):
    """A tournament that cannot go on; finished games are kept in games.jsonl."""


class TournamentInterrupted(TournamentError):
    """Stopped by Ctrl-C (SIGINT) or SIGTERM (`signal` says which); running the same command again
    resumes."""

    def __init__(self, message: str, signum: int):
        super().__init__(message)
        self.signal = int(signum)
