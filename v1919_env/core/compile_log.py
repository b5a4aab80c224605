"""Says when the kernels compile, so that a first run is never a silent minute.

numba compiles a kernel at its first call in a process that finds it in no cache (the first run on
a machine, or after an edit of the core); a compile takes seconds to a minute. Every compile of one
of this project's kernels that does not happen inside another one (a *stage*: the kernel and all it
calls) logs one INFO line as it starts, on the logger `v1919_env.compile`, and one DEBUG line with
its time when it ends. Cached kernels load without a word.

Shown by default: where the process has set up no logging handler that would show them, the first
stage adds one that writes the lines to stderr (once per process). Turn them off with
`logging.getLogger("v1919_env.compile").setLevel(logging.WARNING)` or `V1919_COMPILE_LOG=0`.
The commands compile stage by stage before a game (agents/arena/precompile.py) and say so themselves:
inside `muted()` this logger stays quiet.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
import time

from numba.core import event

LOGGER = logging.getLogger("v1919_env.compile")
PROJECT_MODULES = ("v1919_env", "agents", "training")


class _Stderr(logging.StreamHandler):
    """stderr as it is when a line is written (tests swap sys.stderr)."""

    def __init__(self):
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


class _StageListener(event.Listener):
    """Counts nested compiles of project kernels; the outermost one is a stage."""

    def __init__(self):
        self.depth = self.kernels = 0
        self.muted = 0
        self.t0 = 0.0
        self.name = ""

    @staticmethod
    def _project(ev) -> str | None:
        disp = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
        func = getattr(disp, "py_func", None)
        module = getattr(func, "__module__", "") or ""
        return f"{module}.{func.__qualname__}" if module.startswith(PROJECT_MODULES) else None

    def on_start(self, ev):
        name = self._project(ev)
        if name is None:
            return
        if self.depth == 0:
            self.t0, self.kernels, self.name = time.perf_counter(), 0, name
            if not self.muted:
                _show_by_default()
                LOGGER.info(f"v1919_env: compiling {name} and the kernels it calls (first use on this machine; "
                            f"cached for later runs) ...")
        self.depth += 1
        self.kernels += 1

    def on_end(self, ev):
        if self._project(ev) is None or self.depth == 0:
            return
        self.depth -= 1
        if self.depth == 0 and not self.muted:
            LOGGER.debug(f"v1919_env: compiled {self.name}: {self.kernels} kernels in "
                         f"{time.perf_counter() - self.t0:.1f} s")


_LISTENER = _StageListener()
_shown = False


def _show_by_default() -> None:
    """Once per process: a stderr handler on LOGGER unless some handler would already show its lines."""
    global _shown
    if _shown:
        return
    _shown = True
    if LOGGER.level == logging.NOTSET:
        LOGGER.setLevel(logging.INFO)
    if not LOGGER.hasHandlers():
        LOGGER.addHandler(_Stderr())


@contextlib.contextmanager
def muted():
    """Within: stages log nothing (a caller that announces its own compile stages)."""
    _LISTENER.muted += 1
    try:
        yield
    finally:
        _LISTENER.muted -= 1


def install() -> None:
    """Listen to numba's compile events for the rest of the process (idempotent)."""
    if os.environ.get("V1919_COMPILE_LOG", "1") == "0" or getattr(install, "_done", False):
        return
    install._done = True
    event.register("numba:compile", _LISTENER)
