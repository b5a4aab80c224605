"""Test-only agents, registered by name so tournaments (and their spawned workers) can build them.

Tournament configs name this module under `modules:`; subprocesses need tests/ on PYTHONPATH.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import numpy as np

from agents.base import Agent, register
from agents.random_agent import RandomAgent


@register("test_raises")
class RaisingAgent(Agent):
    """Plays the first legal action, then raises at its `at`-th decision of a game (0-based)."""

    def __init__(self, at: int = 3):
        self.at = at
        self.n = 0

    def reset(self, seed=None):
        self.n = 0

    def act(self, observation, action_mask, game=None):
        self.n += 1
        if self.n > self.at:
            raise RuntimeError("test agent failure")
        return int(np.flatnonzero(action_mask)[0])


@register("test_illegal")
class IllegalAgent(Agent):
    """Returns an id the mask forbids (or `value` itself when given, e.g. a string)."""

    def __init__(self, value=None):
        self.value = value

    def act(self, observation, action_mask, game=None):
        if self.value is not None:
            return self.value
        return int(np.flatnonzero(action_mask == 0)[0])


@register("test_interrupts")
class InterruptingAgent(Agent):
    """Raises KeyboardInterrupt (or SystemExit with `exit`) from its own code at its first decision."""

    def __init__(self, exit: bool = False):
        self.exit = exit

    def act(self, observation, action_mask, game=None):
        raise SystemExit(3) if self.exit else KeyboardInterrupt


@register("test_exit")
class ExitingAgent(RandomAgent):
    """Plays like `random`; kills its own process (a dead worker) at its `at`-th decision (0-based) of
    every game whose agent seed is a multiple of `every`: os._exit(3), or the signal `signum` when given."""

    def __init__(self, every: int = 1, at: int = 0, signum: int = 0, seed=None):
        super().__init__(seed)
        self.every, self.at, self.signum = every, at, signum
        self.dies, self.n = False, 0

    def reset(self, seed=None):
        super().reset(seed)
        self.dies, self.n = seed is not None and seed % self.every == 0, 0

    def act(self, observation, action_mask, game=None):
        if self.dies and self.n == self.at:
            if self.signum:
                os.kill(os.getpid(), self.signum)
            os._exit(3)
        self.n += 1
        return super().act(observation, action_mask, game)


@register("test_reset_raises")
class ResetRaisingAgent(RandomAgent):
    """Plays like `random`; its reset() fails for every game whose agent seed is a multiple of `every`:
    raises RuntimeError, or with `exit` kills its own process (os._exit(3), a dead worker)."""

    def __init__(self, every: int = 1, exit: bool = False, seed=None):
        super().__init__(seed)
        self.every, self.exit = every, exit

    def reset(self, seed=None):
        super().reset(seed)
        if seed is not None and seed % self.every == 0:
            if self.exit:
                os._exit(3)
            raise RuntimeError("test reset failure")


@register("test_gate")
class GateAgent(RandomAgent):
    """Plays like `random`, but each game waits at its first decision for a pass from the folder
    `gate`: the file `open` there lets every game through, else it takes (deletes) one `pass*` file,
    so a test lets exactly as many games start as it writes passes, then the workers wait in a game."""

    def __init__(self, gate: str, seed=None):
        super().__init__(seed)
        self.gate = Path(gate)
        self.waiting = True

    def reset(self, seed=None):
        super().reset(seed)
        self.waiting = True

    def act(self, observation, action_mask, game=None):
        if self.waiting:
            self._wait_for_a_pass()
            self.waiting = False
        return super().act(observation, action_mask, game)

    def _wait_for_a_pass(self):
        while not (self.gate / "open").exists():
            for p in sorted(self.gate.glob("pass*")):
                try:
                    p.unlink()
                    return
                except FileNotFoundError:       # another worker took it
                    continue
            time.sleep(0.01)


@register("test_meddler")
class MeddlingAgent(Agent):
    """Steps the game it is handed (a clone, so the game being played must not change)."""

    needs_game = True

    def act(self, observation, action_mask, game=None):
        a = int(np.flatnonzero(action_mask)[0])
        game.step(a)
        return a


@register("test_kill_host")
class HostKillingAgent(RandomAgent):
    """Plays like `random`; once per folder `mark` (it creates `mark/killed` first), at its first decision
    of a game, it SIGKILLs its process's parent if that is a Ray worker ("ray::..."): under a Ray
    tournament, the GameHost whose worker process plays the game (a lost node, as the driver sees it).
    Anywhere else (a local pool, where the parent is the tournament itself) it only plays."""

    def __init__(self, mark: str, seed=None):
        super().__init__(seed)
        self.mark = Path(mark)

    def act(self, observation, action_mask, game=None):
        parent = os.getppid()
        try:
            ray_parent = Path(f"/proc/{parent}/cmdline").read_bytes().startswith(b"ray::")
        except OSError:
            ray_parent = False
        if ray_parent:
            try:
                (self.mark / "killed").touch(exist_ok=False)
            except FileExistsError:
                pass
            else:
                os.kill(parent, signal.SIGKILL)
                time.sleep(60)              # the parent's death ends this process (hosted_worker_main)
        return super().act(observation, action_mask, game)
