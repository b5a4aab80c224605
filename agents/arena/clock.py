"""Time controls of the arena: per-move and per-game clocks, what an agent is told, and how an overrun
is judged (issue 33; docs/tournaments.md "Time controls").

A `TimeControl` is set per tournament or ladder (`clock:` in the config) and per agent (an agent
entry's `clock:`, its fields over the tournament's). For each seat of a game the arena keeps a
`SeatClock`: at every decision of the seat its game clock gains `increment_ms` (Fischer), and the
decision may take at most `allowed_ms` = the per-move limit `move_ms` or what is left on the game
clock, whichever is less. The agent is told its `TimeLeft` before it chooses (Agent.set_clock);
search agents with a `time_ms` budget search `min(time_ms, TimeLeft.budget_ms())`. An answer later
than `allowed_ms` is an **overrun**: under `overrun: forfeit` the seat forfeits the game; under
`overrun: fallback` the arena plays the fallback move instead (the compiled rule bot's choice,
`random` or the `first` legal action), records the overrun, and the seat's game clock stays at
zero (each later decision has its increment only). An agent that has not answered `grace_ms` after
its time ran out is **hung**: it forfeits whatever the policy (its call cannot be stopped in
process; the arena stops waiting for it, and a tournament worker drops it).
"""
from __future__ import annotations

import math
import queue
import threading
import time
from dataclasses import asdict, dataclass, fields, replace

OVERRUN_POLICIES = ("forfeit", "fallback")
FALLBACK_MOVES = ("rulebot", "random", "first")
MOVES_TO_GO = 30            # TimeLeft.budget_ms: the game clock is spread over this many more decisions
BUDGET_SHARE = 0.8          # ... and this share of it is used (the rest is the margin for the arena's own work)


@dataclass(frozen=True)
class TimeControl:
    """base_ms: each seat's game clock at the start (None: no game clock); increment_ms: added to it
    at each of the seat's decisions; move_ms: the most one decision may take (None: no per-move
    limit); overrun: 'forfeit' or 'fallback'; fallback: the move played on an overrun ('rulebot',
    'random', 'first'); grace_ms: how long past its time a bot that has not answered is waited for
    before it is called hung (and forfeits)."""

    base_ms: float | None = None
    increment_ms: float = 0.0
    move_ms: float | None = None
    overrun: str = "forfeit"
    fallback: str = "rulebot"
    grace_ms: float = 1000.0

    def __post_init__(self):
        for k in ("base_ms", "move_ms"):
            v = getattr(self, k)
            if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
                                      and math.isfinite(v)):
                raise ValueError(f"{k} must be a positive number of milliseconds or null, got {v!r}")
        for k in ("increment_ms", "grace_ms"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (v >= 0 and math.isfinite(v)):
                raise ValueError(f"{k} must be a number of milliseconds >= 0, got {v!r}")
        if self.overrun not in OVERRUN_POLICIES:
            raise ValueError(f"overrun must be one of {', '.join(OVERRUN_POLICIES)}, got {self.overrun!r}")
        if self.fallback not in FALLBACK_MOVES:
            raise ValueError(f"fallback must be one of {', '.join(FALLBACK_MOVES)}, got {self.fallback!r}")

    @property
    def active(self) -> bool:
        """True when the control limits anything (a game clock or a per-move limit)."""
        return self.base_ms is not None or self.move_ms is not None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None) -> "TimeControl":
        d = dict(d or {})
        bad = sorted(set(d) - {f.name for f in fields(cls)})
        if bad:
            raise ValueError(f"unknown clock field(s) {', '.join(bad)}; fields: "
                             f"{', '.join(f.name for f in fields(cls))}")
        return cls(**d)

    def over(self, d: dict | None) -> "TimeControl":
        """This control with the fields of `d` (an agent's own clock) over it."""
        return replace(self, **TimeControl.from_dict({**self.to_dict(), **(d or {})}).to_dict()) if d else self


@dataclass(frozen=True)
class TimeLeft:
    """What an agent is told before a decision: game_ms, what is left on its game clock with this
    decision's increment added (None: no game clock); move_ms, the per-move limit (None: none);
    increment_ms; allowed_ms, the most this decision may take (None: no limit)."""

    game_ms: float | None
    move_ms: float | None
    increment_ms: float
    allowed_ms: float | None

    def budget_ms(self, moves_to_go: int = MOVES_TO_GO, share: float = BUDGET_SHARE) -> float | None:
        """A thinking time for this decision: `share` of the less of the per-move limit and the game
        clock spread over `moves_to_go` decisions (plus the increment); None without a limit."""
        parts = []
        if self.move_ms is not None:
            parts.append(self.move_ms)
        if self.game_ms is not None:
            parts.append(min(self.game_ms, max(0.0, self.game_ms - self.increment_ms) / moves_to_go
                             + self.increment_ms))
        return share * min(parts) if parts else None

    def to_dict(self) -> dict:
        return asdict(self)


class SeatClock:
    """One seat's clock in one game (module docstring)."""

    def __init__(self, control: TimeControl):
        self.control = control
        self.left_ms = control.base_ms           # None: no game clock

    def start(self) -> TimeLeft:
        """A decision of the seat begins: add the increment and say what the agent may take."""
        c = self.control
        if self.left_ms is not None:
            self.left_ms += c.increment_ms
        limits = [x for x in (c.move_ms, self.left_ms) if x is not None]
        return TimeLeft(self.left_ms, c.move_ms, c.increment_ms, min(limits) if limits else None)

    def stop(self, elapsed_ms: float, told: TimeLeft) -> bool:
        """The decision took elapsed_ms: charge it; True if it overran what it was allowed."""
        if self.left_ms is not None:
            self.left_ms -= elapsed_ms
        over = told.allowed_ms is not None and elapsed_ms > told.allowed_ms
        if over and self.control.overrun == "fallback" and self.left_ms is not None:
            self.left_ms = max(self.left_ms, 0.0)
        return over


class Hung(Exception):
    """An agent did not answer within its time and the grace."""


class CallThread:
    """Runs calls (an agent's act) in a daemon thread of its own, so that the arena can stop waiting
    for one that does not return. A thread whose call hung is abandoned (it is a daemon: it does not
    keep the interpreter alive); the next call gets a new thread."""

    def __init__(self):
        self._thread = None
        self._jobs: queue.SimpleQueue | None = None
        self._answers: queue.SimpleQueue | None = None

    def _start(self) -> None:
        jobs, answers = queue.SimpleQueue(), queue.SimpleQueue()

        def loop():
            while True:
                fn = jobs.get()
                if fn is None:
                    return
                t0 = time.perf_counter()
                try:
                    answers.put((True, fn(), time.perf_counter() - t0))
                except BaseException as e:           # noqa: BLE001  (handed to the caller to judge)
                    answers.put((False, e, time.perf_counter() - t0))

        self._jobs, self._answers = jobs, answers
        self._thread = threading.Thread(target=loop, name="v1919-agent-call", daemon=True)
        self._thread.start()

    def call(self, fn, timeout_s: float | None):
        """fn() in the thread: (value, seconds it took); raises what fn raised, or Hung after
        timeout_s (None: wait for ever)."""
        if self._thread is None:
            self._start()
        self._jobs.put(fn)
        try:
            ok, value, seconds = self._answers.get(timeout=timeout_s)
        except queue.Empty:
            self._thread = None                  # abandoned with its queues
            raise Hung from None
        if not ok:
            raise value
        return value, seconds

    def close(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread = None
