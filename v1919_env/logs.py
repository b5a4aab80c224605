"""Where the library's log messages go when a command runs: library code logs with `logging` (one
logger per module, under `v1919_env`, `agents` and `training`) and prints nothing itself; the
commands (`v1919`, `python -m training`) show those loggers' INFO messages on stderr, one line each.
Imports nothing of the project.
"""
from __future__ import annotations

import logging
import sys

PROJECT_LOGGERS = ("v1919_env", "agents", "training")


class _Terminal(logging.StreamHandler):
    """stderr as it is when a message is written (tests and tools swap sys.stderr)."""

    def __init__(self):
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


def show_logs_on_terminal(level: int = logging.INFO) -> None:
    """Show the project's log messages of `level` and above on stderr (once per process)."""
    for name in PROJECT_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(level)
        if not any(isinstance(h, _Terminal) for h in logger.handlers):
            logger.addHandler(_Terminal())
