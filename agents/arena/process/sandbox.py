"""The sandbox every bot process starts in (docs/protocol.md "The sandbox", issue 41).

A bot process runs under bubblewrap (Debian's `bubblewrap`) in new user, PID, mount, network, IPC,
UTS and cgroup namespaces, as an unprivileged user, with a clean environment. It sees its own
processes only, no network, and a filesystem made of:

- the system's programs, libraries and configuration (`/usr`, `/etc`, ...), read-only;
- Python and this project's packages, read-only (the reference client runs from them);
- the folders of its own files (the command, each argument naming a file, `cwd`, `files`), read-only,
  with the arena's private folders (the tournament's, the records) masked empty;
- a private writable `/tmp` (its home and working space) of at most `disk_mb`;
- for the reference client, a folder of compiled kernels copied from the arena's cache (not counted
  against `disk_mb`).

All its processes go into one control group of the arena's (cgroup v1 or v2, where the arena may make
one): memory, the number of processes and CPU time are bounded for them together, and `kill()` ends
every one of them at once. The PID namespace does the same without a control group: when the
sandbox's first process ends, the kernel ends every process in it; `--die-with-parent` ends them if
the arena's worker dies.

`check()` says whether this host can sandbox (bubblewrap present and namespaces allowed), and why not;
`sandbox: auto` then warns once per process (a log warning) and runs the bot with per-process limits only, `strict` refuses.
"""
from __future__ import annotations

import functools
import itertools
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

logger = logging.getLogger(__name__)

MODES = ("auto", "strict", "none")
SANDBOX_UID = 65534            # nobody
CGROUP_PREFIX = "v1919-bot"
_counter = itertools.count()
_warned: set[str] = set()
_private: list[str] = []       # the arena's folders no bot may see (set_private)


def set_private(paths) -> None:
    """Folders of the arena's (a tournament's folder: its config, key and records) that every sandbox
    started from this process masks, whatever else it binds."""
    _private[:] = sorted({str(Path(p).resolve()) for p in paths if p})


@functools.lru_cache(maxsize=1)
def check() -> str | None:
    """None when bot processes can be sandboxed here; else why not (one sentence)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
    try:
        r = subprocess.run([exe, "--unshare-all", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
                            "--die-with-parent", "true"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap could not run: {e}"
    if r.returncode != 0:
        return f"bubblewrap cannot make namespaces here: {r.stderr.decode(errors='replace').strip()[:200]}"
    return None


def fallback_warning(reason: str) -> None:
    """Say once per process that bots run without a sandbox, and why."""
    if reason not in _warned:
        _warned.add(reason)
        logger.warning("bot processes run without a sandbox: %s; each process has its own limits only "
                       "(sandbox: strict refuses to run instead)", reason)


# ---------------------------------------------------------------------------------------- control groups
class ControlGroup:
    """One control group for a bot's processes: cgroup v1 (memory, pids, cpuacct hierarchies) or v2
    (a unified hierarchy; memory and pids limits where its controllers are enabled). `None` from
    `make` where the arena may not create one (not root, a read-only /sys/fs/cgroup)."""

    def __init__(self, dirs: dict[str, Path], v2: bool):
        self.dirs, self.v2 = dirs, v2

    @classmethod
    def make(cls, memory_mb: int | None, max_procs: int | None) -> "ControlGroup | None":
        name = f"{CGROUP_PREFIX}-{os.getpid()}-{next(_counter)}"
        root = Path("/sys/fs/cgroup")
        unified = root if (root / "cgroup.controllers").exists() else None
        dirs: dict[str, Path] = {}
        try:
            if unified is None and (root / "memory").is_dir():            # v1
                for ctl in ("memory", "pids", "cpuacct"):
                    base = root / ctl
                    if base.is_dir():
                        _sweep(base)
                        (base / name).mkdir()
                        dirs[ctl] = base / name
                cg = cls(dirs, v2=False)
            else:
                unified = unified or (root / "unified" if (root / "unified" / "cgroup.procs").exists() else None)
                if unified is None:
                    return None
                _sweep(unified)
                (unified / name).mkdir()
                cg = cls({"unified": unified / name}, v2=True)
            cg._limit(memory_mb, max_procs)
            return cg
        except OSError:
            for d in dirs.values():
                _rmdir(d)
            return None

    def _limit(self, memory_mb, max_procs) -> None:
        if self.v2:
            d = self.dirs["unified"]
            if memory_mb is not None and (d / "memory.max").exists():
                (d / "memory.max").write_text(str(memory_mb * 1024 * 1024))
                if (d / "memory.swap.max").exists():
                    (d / "memory.swap.max").write_text("0")
            if max_procs is not None and (d / "pids.max").exists():
                (d / "pids.max").write_text(str(max_procs))
            return
        if memory_mb is not None and "memory" in self.dirs:
            (self.dirs["memory"] / "memory.limit_in_bytes").write_text(str(memory_mb * 1024 * 1024))
            sw = self.dirs["memory"] / "memory.memsw.limit_in_bytes"
            if sw.exists():
                try:
                    sw.write_text(str(memory_mb * 1024 * 1024))
                except OSError:
                    pass
        if max_procs is not None and "pids" in self.dirs:
            (self.dirs["pids"] / "pids.max").write_text(str(max_procs))

    @property
    def bounds(self) -> set[str]:
        """What this group bounds: a subset of {"memory", "pids", "cpu"}."""
        if self.v2:
            d = self.dirs["unified"]
            return ({"cpu"} | ({"memory"} if (d / "memory.max").exists() else set())
                    | ({"pids"} if (d / "pids.max").exists() else set()))
        return {{"memory": "memory", "pids": "pids", "cpuacct": "cpu"}[k] for k in self.dirs}

    def join_files(self) -> list[str]:
        """The files a process writes its pid to, to join this group (the child, before it runs the bot)."""
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process of the group so far (those that ended included)."""
        try:
            if self.v2:
                for line in (self.dirs["unified"] / "cpu.stat").read_text().splitlines():
                    k, v = line.split()
                    if k == "usage_usec":
                        return int(v) / 1e6
                return None
            if "cpuacct" in self.dirs:
                return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None
        return None

    def memory_peak_mb(self) -> float | None:
        f = (self.dirs["unified"] / "memory.peak") if self.v2 else self.dirs.get("memory", Path("/-")) / \
            "memory.max_usage_in_bytes"
        try:
            return int(f.read_text()) / 2 ** 20
        except (OSError, ValueError):
            return None

    def out_of_memory(self) -> bool:
        """True once the kernel has killed a process of the group for its memory limit."""
        try:
            if self.v2:
                text = (self.dirs["unified"] / "memory.events").read_text()
            else:
                text = (self.dirs["memory"] / "memory.oom_control").read_text()
        except (OSError, KeyError):
            return False
        return any(line.split()[0] == "oom_kill" and int(line.split()[1]) > 0 for line in text.splitlines()
                   if len(line.split()) == 2)

    def pids(self) -> list[int]:
        out: set[int] = set()
        for d in self.dirs.values():
            try:
                out.update(int(x) for x in (d / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return sorted(out)

    def kill(self, timeout_s: float = 1.0) -> bool:
        """SIGKILL every process of the group and wait until none is left (True), at most timeout_s."""
        kill_file = self.dirs.get("unified", Path("/-")) / "cgroup.kill"
        deadline = time.monotonic() + timeout_s
        while True:
            pids = self.pids()
            if not pids:
                return True
            if kill_file.exists():
                try:
                    kill_file.write_text("1")
                except OSError:
                    pass
            for p in pids:                    # v1, or a v2 kernel without cgroup.kill; a fork in between is
                try:                          # caught by the next pass
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)

    def remove(self) -> None:
        self.kill()
        for d in self.dirs.values():
            _rmdir(d)


def _rmdir(d: Path) -> None:
    for _ in range(50):
        try:
            d.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:                       # processes still leaving it
            time.sleep(0.01)


def _sweep(base: Path) -> None:
    """Remove the empty groups left by arenas that were killed (their pid in the name is gone)."""
    for d in base.glob(f"{CGROUP_PREFIX}-*"):
        try:
            pid = int(d.name.split("-")[2])
        except (IndexError, ValueError):
            continue
        if not Path(f"/proc/{pid}").exists():
            _rmdir(d)


# ---------------------------------------------------------------------------------------- the command
_SYSTEM = ("/usr", "/etc", "/opt")
CLIENT_CACHE = "/var/cache/v1919"       # the reference client's compiled kernels (a tmpfs of its own)
CACHE_HEADROOM_MB = 256                 # ... room beyond the copy for kernels it compiles
_LINKED = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def _under(path: str, roots) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _python_roots() -> list[str]:
    """Python and this project's packages: what the reference client needs, read-only."""
    import importlib.util

    roots = [sys.base_prefix, sys.prefix, str(Path(__file__).resolve().parents[2])]       # ... and agents/
    for pkg in ("v1919_env", "training"):
        spec = importlib.util.find_spec(pkg)          # (found, not imported)
        if spec is not None and spec.origin:
            roots.append(str(Path(spec.origin).resolve().parent))
    for p in sys.path:        # site-packages outside the prefixes (a user's install)
        if p and "site-packages" in p and os.path.isdir(p):
            roots.append(str(Path(p).resolve()))
    out: list[str] = []
    for r in sorted({str(Path(r).resolve()) for r in roots}, key=len):
        if not _under(r, out) and not _under(r, _SYSTEM):
            out.append(r)
    return out


def _files_of(argv: list[str], cwd: str | None, files) -> list[str]:
    """The folders of the bot's own files: the command, every argument naming an existing file, cwd,
    and `files` (folders or files), resolved."""
    base = Path(cwd).resolve() if cwd else Path.cwd()
    found: list[str] = []
    exe = shutil.which(argv[0], path=os.environ.get("PATH")) if os.sep not in argv[0] else str(base / argv[0])
    for word in [exe or argv[0], *argv[1:]]:
        if not word or word.startswith("-") or "\n" in word or len(word) > 4096:
            continue
        p = base / word
        try:
            if p.is_file():
                found.append(str(p.resolve().parent))
        except OSError:
            pass
    for f in files or ():
        p = (base / f).resolve()
        if p.exists():
            found.append(str(p if p.is_dir() else p.parent))
    if cwd:
        found.append(str(base))
    return found


def _project_cache() -> str | None:
    """The arena's numba cache of this project's kernels (copied into the sandbox for the client)."""
    try:
        import numba
        d = numba.config.CACHE_DIR
    except ImportError:
        return None
    return d if d and os.path.isdir(d) else None


def command(argv: list[str], cwd: str | None = None, files=(), disk_mb: int = 64) -> list[str]:
    """The bubblewrap command line that runs `argv` in a sandbox (see the module docstring)."""
    exe = shutil.which("bwrap")
    cmd = [exe, "--unshare-all", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--die-with-parent",
           "--new-session", "--clearenv", "--hostname", "sandbox"]
    for d in _SYSTEM:
        if os.path.isdir(d):
            cmd += ["--ro-bind", d, d]
    for d in _LINKED:
        if os.path.islink(d):
            cmd += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            cmd += ["--ro-bind", d, d]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--size", str(disk_mb * 1024 * 1024), "--tmpfs", "/tmp"]
    bound = list(_SYSTEM) + list(_LINKED)
    for r in _python_roots() + _files_of(argv, cwd, files):
        if not _under(r, bound) and os.path.isdir(r):
            cmd += ["--ro-bind", r, r]
            bound.append(r)
    for p in _private:                         # the arena's folders, where a bound folder holds one
        if _under(p, bound) and not _under(p, _SYSTEM) and os.path.isdir(p):
            cmd += ["--tmpfs", p, "--remount-ro", p]
    work = str(Path(cwd).resolve()) if cwd else os.getcwd()
    cmd += ["--dir", work, "--chdir", work]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1",
           "V1919_CACHE": "/tmp/.v1919-cache"}
    for k, v in env.items():
        cmd += ["--setenv", k, v]
    cache = _project_cache()
    if _is_client(argv):
        # The client's compiled kernels, copied from the arena's cache (read-only: no bot may write a
        # cache the arena loads) into a cache folder of the bot's own, so its first decision does not
        # compile. The folder is a tmpfs of its own: neither the copy nor a compile counts against disk_mb.
        kept = _current_cache_dirs(cache) if cache is not None else []
        size = sum(_folder_bytes(os.path.join(cache, d)) for d in kept) + CACHE_HEADROOM_MB * 1024 * 1024
        cmd += ["--size", str(size), "--tmpfs", CLIENT_CACHE, "--setenv", "V1919_CACHE", CLIENT_CACHE]
        if kept:
            inside = f"{CLIENT_CACHE}/{os.path.basename(cache)}"
            copy = " ".join(f"/run/v1919-cache/{d}" for d in kept)
            cmd += ["--ro-bind", cache, "/run/v1919-cache", "/bin/sh", "-c",
                    f'mkdir -p {inside} && cp -R {copy} {inside}/ 2>/dev/null; exec "$@"', "sh"]
    return cmd + list(argv)


def _current_cache_dirs(cache: str) -> list[str]:
    """The folders of numba's cache that hold kernels of this installation's source folders (numba names
    each `<folder>_<sha1 of its absolute path>`); stale ones (other checkouts) are left out."""
    current = _source_cache_names()
    try:
        return sorted(d for d in os.listdir(cache) if d in current)
    except OSError:
        return []


@functools.lru_cache(maxsize=1)
def _source_cache_names() -> frozenset[str]:
    import hashlib
    import importlib.util

    names = set()
    for pkg in ("v1919_env", "agents", "training"):
        spec = importlib.util.find_spec(pkg)          # (found, not imported)
        if spec is None or not spec.origin:
            continue
        for root, _dirs, files in os.walk(Path(spec.origin).resolve().parent):
            if any(f.endswith(".py") for f in files):
                names.add(f"{os.path.basename(root)}_{hashlib.sha1(root.encode()).hexdigest()}")
    return frozenset(names)


def _folder_bytes(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def _is_client(argv: list[str]) -> bool:
    return any("agents.arena.process.client" in w or "agents.process.client" in w for w in argv)   # (old path too)


def describe() -> str:
    """This host's isolation, one line (for reports): the sandbox, or why there is none."""
    why = check()
    return "bubblewrap sandbox" if why is None else f"no sandbox ({why})"


def plan(mode: str) -> str | None:
    """For sandbox `mode`: None to sandbox; "none" to run bare; raises ValueError for strict where this
    host cannot (the reason)."""
    if mode == "none":
        return "none"
    why = check()
    if why is None:
        return None
    if mode == "strict":
        raise ValueError(f"sandbox: strict, but {why}")
    fallback_warning(why)
    return "none"


__all__ = ["MODES", "ControlGroup", "check", "command", "describe", "plan", "set_private"]
