"""`process`: a bot that runs as a command of its own, one process per game, and speaks the bot protocol
(docs/protocol.md, agents/arena/process/protocol.py) over its stdin and stdout.

    make_agent("process", cmd="./mybot --level 3", memory_mb=1024, cpu_s=600)
    # in a tournament or ladder config:  agents: [{cmd: "./mybot --level 3", label: mybot}]

`reset(seed)` starts the process in its sandbox (sandbox.py: its own namespaces, a read-only view of
its files, a private /tmp, one control group bounding the memory, CPU seconds and processes of all
its processes together) and exchanges the hellos; the arena's `new_game(info)` tells it its seat, the players and its clock; each `act` sends a
decide message (the seat's observation, legal ids with their names, the readable position of the
seat's information set, the time left) and reads the action; `game_over(record)` sends the result
and `quit`, and every process of the bot is ended (killed if it lingers). The bot never holds anything of the
arena's: only these messages.

Whatever goes wrong is the bot's forfeit of that game, with the reason (BotError.forfeit_reason):
the process cannot start or exits (its exit code or signal, e.g. SIGXCPU past its CPU limit, and the
end of what it wrote on stderr), it does not answer in time (`reply_timeout_s`, or its clock's time
plus half the grace when the arena runs one; `start_timeout_s` for the hello), a line longer than
`max_line_kb` or more than protocol.MAX_INFO_LINES info lines before an answer (flooding), or a line
that breaks the protocol (the ProtocolError's text names the rule).
"""
from __future__ import annotations

import os
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

from ...base import Agent, number_option, register
from . import protocol as P
from . import sandbox as SB

STDERR_TAIL = 400           # characters of the bot's stderr quoted in a forfeit reason


class BotError(RuntimeError):
    """The bot process failed; `forfeit_reason` is what the record says."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.forfeit_reason = reason


def _child_setup(memory_mb, cpu_s, file_mb, join=()):
    """The preexec_fn, run in the child between fork and exec: it joins the bot's control group (so
    every process it starts is counted and ended with it) and sets its own limits: address space
    `memory_mb` (where no control group bounds the memory), CPU seconds `cpu_s` (a backstop: the arena
    counts the whole group's), the largest file `file_mb`, no core dumps."""

    def apply():
        import resource

        for f in join:
            with open(f, "w") as fh:
                fh.write(str(os.getpid()))
        if memory_mb is not None:
            m = int(memory_mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (m, m))
        if cpu_s is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_s) + 1, int(cpu_s) + 2))
        f = int(file_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (f, f))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


@register("process")
class ProcessAgent(Agent):
    """cmd: the bot's command line (a string, split like a shell's words, or a list); options: sent
    to the bot in the hello; memory_mb, cpu_s: the memory and CPU seconds a game of all its processes
    together may use (None: no limit); max_procs: how many processes it may have at once; disk_mb: the
    size of its private /tmp; file_mb: the most it may write to any file (its stderr included);
    reply_timeout_s: how long an answer may take when the arena runs no clock; start_timeout_s: how
    long its start and hello may take; max_line_kb: the longest line it may send; cwd: its working
    directory (read-only in the sandbox); files: more files or folders it may read; sandbox: "auto"
    (the sandbox where this host can make one, else a warning and per-process limits), "strict"
    (refuse to run without it) or "none" (a bot you trust, run bare: sandbox.py)."""

    needs_game = True

    def __init__(self, cmd, options: dict | None = None, memory_mb: int | None = 4096, cpu_s: int | None = None,
                 file_mb: int = 16, reply_timeout_s: float = 60.0, start_timeout_s: float = 60.0,
                 max_line_kb: int = 4096, cwd: str | None = None, max_procs: int | None = 64, disk_mb: int = 64,
                 files: list | None = None, sandbox: str = "auto"):
        if isinstance(cmd, str):
            argv = shlex.split(cmd)
        elif isinstance(cmd, (list, tuple)) and all(isinstance(x, str) for x in cmd):
            argv = list(cmd)
        else:
            raise ValueError(f"option cmd must be a command line (a string or a list of strings), got {cmd!r}")
        if not argv:
            raise ValueError("option cmd is empty")
        exe = argv[0]
        where = exe if os.path.isabs(exe) or cwd is None else os.path.join(cwd, exe)
        if shutil.which(where if os.sep in exe else exe) is None and not (os.sep in exe and os.access(where, os.X_OK)):
            raise ValueError(f"option cmd: {exe!r} is not an executable file or a command on PATH")
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"option options must be a mapping, got {options!r}")
        self.cmd, self.argv, self.options, self.cwd = cmd, argv, dict(options or {}), cwd
        self.memory_mb = number_option("memory_mb", memory_mb, int, minimum=16, allow_none=True)
        self.cpu_s = number_option("cpu_s", cpu_s, int, minimum=1, allow_none=True)
        self.file_mb = number_option("file_mb", file_mb, int, minimum=1)
        self.reply_timeout_s = number_option("reply_timeout_s", reply_timeout_s, float, above=0)
        self.start_timeout_s = number_option("start_timeout_s", start_timeout_s, float, above=0)
        self.max_line = 1024 * number_option("max_line_kb", max_line_kb, int, minimum=1)
        self.max_procs = number_option("max_procs", max_procs, int, minimum=1, allow_none=True)
        self.disk_mb = number_option("disk_mb", disk_mb, int, minimum=1)
        if files is not None and not (isinstance(files, (list, tuple)) and all(isinstance(f, str) for f in files)):
            raise ValueError(f"option files must be a list of paths, got {files!r}")
        self.files = list(files or ())
        base = cwd or os.getcwd()
        missing = [f for f in self.files if not os.path.exists(os.path.join(base, f))]
        if missing:
            raise ValueError(f"option files: {missing[0]!r} does not exist (paths are taken from "
                             f"{'cwd' if cwd else 'the directory the arena runs in'})")
        if sandbox not in SB.MODES:
            raise ValueError(f"option sandbox must be one of {', '.join(SB.MODES)}, got {sandbox!r}")
        self.sandbox = sandbox
        if sandbox == "strict":
            SB.plan(sandbox)                  # refuses now, where the host cannot sandbox
        self.cgroup: SB.ControlGroup | None = None
        self._sandboxed = False
        self.proc = None
        self.bot_hello: dict | None = None
        self.omit: tuple = ()
        self._seat = 0
        self._buf = bytearray()
        self._stderr = None

    # ------------------------------------------------------------------ the process
    def reset(self, seed: int | None = None) -> None:
        self.abort()
        self._seed = seed
        self._buf = bytearray()
        self._stderr = tempfile.TemporaryFile()
        bare = SB.plan(self.sandbox) == "none"
        self._sandboxed = not bare
        argv = self.argv if bare else SB.command(self.argv, self.cwd, self.files, self.disk_mb)
        self.cgroup = SB.ControlGroup.make(self.memory_mb, self.max_procs)
        bounded = self.cgroup.bounds if self.cgroup is not None else set()
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, cwd=self.cwd, start_new_session=True, bufsize=0,
                                         preexec_fn=_child_setup(None if "memory" in bounded else self.memory_mb,
                                                                 self.cpu_s, self.file_mb,
                                                                 self.cgroup.join_files() if self.cgroup else ()))
        except (OSError, subprocess.SubprocessError) as e:
            self.abort()
            raise BotError(f"the bot could not start: {getattr(e, 'strerror', None) or e}") from None
        os.set_blocking(self.proc.stdin.fileno(), False)
        from v1919_env import __version__

        deadline = time.monotonic() + self.start_timeout_s
        self._send(P.hello(self.options, __version__), deadline)
        self.bot_hello = self._expect("hello", deadline, "its hello")
        self.omit = tuple(self.bot_hello.get("omit") or ())

    def new_game(self, info: dict) -> None:
        """The arena's new game for this bot: its seat, the players, the clock (sent as new_game)."""
        self._seat = int(info["seat"])
        deadline = time.monotonic() + self.start_timeout_s
        self._send(P.new_game({**info, "seed": self._seed}), deadline)
        self._expect("ready", deadline, "its ready to new_game")

    def act(self, observation, action_mask, game=None) -> int:
        import numpy as np

        legal_ids = np.flatnonzero(action_mask)
        told = self.time_left
        if told is not None and told.allowed_ms is not None:
            # On a clock the arena judges the answer as any agent's (play.run_game: an overrun forfeits or
            # is replaced by the fallback move; no answer within the time and the grace is hung, and the
            # arena ends the bot); this deadline is only a backstop.
            wait = told.allowed_ms / 1000.0 + self.reply_timeout_s
        else:
            wait = self.reply_timeout_s
        deadline = time.monotonic() + wait
        step = game.decisions_taken if game is not None else 0
        self._send(P.decide(step=step, seat=self._seat, game=game, observation=observation, legal_ids=legal_ids,
                            time_left=told, omit=self.omit), deadline)
        msg = self._expect("action", deadline, f"its action (within {wait:.1f} s)")
        return int(msg["id"])

    def game_over(self, record: dict) -> None:
        if self.proc is None:
            return
        try:
            deadline = time.monotonic() + 2.0
            self._send(P.game_over(record, self._seat), deadline)
            self._send(P.quit_message(), deadline)
            self.proc.stdin.close()
            self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except (BotError, OSError, subprocess.TimeoutExpired):
            pass
        self.abort()

    def cpu_seconds(self) -> float | None:
        """CPU time the bot's processes have used in this game, all of them together (None where no
        control group counts them)."""
        return self.cgroup.cpu_seconds() if self.cgroup is not None else None

    def abort(self) -> None:
        """End the bot's processes now (every one of its control group, its whole session) and forget it."""
        proc, self.proc = self.proc, None
        cg, self.cgroup = self.cgroup, None
        if cg is not None:
            cg.remove()
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
            proc.wait()
            for f in (proc.stdin, proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    close = abort

    # ------------------------------------------------------------------ lines
    def _fail(self, what: str, tell: bool = True):
        """Raise BotError for `what`, after telling the bot (an error message) and ending it."""
        if tell and self.proc is not None and self.proc.poll() is None:
            try:
                self._send(P.error(what), time.monotonic() + 0.2, raw=True)
            except (BotError, OSError):
                pass
        self.abort()
        raise BotError(what)

    def _died(self, doing: str):
        proc = self.proc
        try:
            code = proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and code > 128 and self._sandboxed:
            code = 128 - code               # bubblewrap exits 128 + N when the bot was killed by signal N
        if code is None:
            how = "closed its output"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            if name == "SIGKILL" and self.cgroup is not None and self.cgroup.out_of_memory():
                name += " (its memory limit, all its processes together)"
            how = f"was killed by {name}" + {"SIGXCPU": " (its CPU limit)", "SIGXFSZ": " (its file-size limit)"}.get(
                name, "")
        else:
            how = f"exited (exit code {code})"
        tail = self._stderr_tail()
        self._fail(f"the bot process {how} while the arena waited for {doing}" + (f"; its stderr ends: {tail!r}"
                                                                                    if tail else ""), tell=False)

    def _stderr_tail(self) -> str:
        f = self._stderr
        if f is None:
            return ""
        try:
            f.flush()
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - STDERR_TAIL))
            return f.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def _send(self, msg: dict, deadline: float, raw: bool = False) -> None:
        data = memoryview(P.encode(msg))
        fd = self.proc.stdin.fileno()
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                if raw:
                    return
                self._fail("the bot did not read its input in time (the arena could not send it a message)")
            _, w, _ = select.select([], [fd], [], left)
            if not w:
                continue
            try:
                n = os.write(fd, data)
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                if raw:
                    return
                self._died("it to read a message")
            data = data[n:]

    def _readline(self, deadline: float, doing: str) -> bytes:
        fd = self.proc.stdout.fileno()
        while True:
            i = self._buf.find(b"\n")
            if i >= 0:
                if i > self.max_line:
                    self._fail(f"the bot flooded its output: a line of {i} bytes (at most {self.max_line})")
                line = bytes(self._buf[:i])
                del self._buf[:i + 1]
                return line
            if len(self._buf) > self.max_line:
                self._fail(f"the bot flooded its output: more than {self.max_line} bytes without a newline")
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail(f"the bot did not answer in time: it was waited for {doing}")
            r, _, _ = select.select([fd], [], [], min(left, 0.25))
            self._check_cpu()
            if not r:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self._died(doing)
            self._buf += chunk

    def _check_cpu(self) -> None:
        used = self.cpu_seconds()
        if self.cpu_s is not None and used is not None and used > self.cpu_s:
            self._fail(f"the bot used {used:.1f} CPU seconds in this game, all its processes together (its limit "
                       f"cpu_s is {self.cpu_s})")

    def _expect(self, kind: str, deadline: float, doing: str) -> dict:
        info_bytes = 0
        for _ in range(P.MAX_INFO_LINES + 1):
            line = self._readline(deadline, doing)
            if b'"info"' in line:             # (a cheap upper bound on what info lines cost to read)
                info_bytes += len(line)
                if info_bytes > P.MAX_INFO_BYTES:
                    self._fail(f"the bot flooded its output: more than {P.MAX_INFO_BYTES} bytes of info lines "
                               f"before {doing}")
            try:
                msg = P.check_reply(line, kind)
            except P.ProtocolError as e:
                self._fail(f"protocol error: {e}")
            if msg["type"] != "info":
                return msg
        self._fail(f"the bot flooded its output: more than {P.MAX_INFO_LINES} info lines before {doing}")

    def __repr__(self) -> str:
        return f"ProcessAgent(cmd={self.cmd!r})"
