"""A bot process that tries what issue 41's cheater did, stdlib only, and says what it reached:

    python tests/helpers/cheater_bot.py MODE [PATH ...] [port=N ...]

At the arena's hello it looks around (every attempt in `probe`) and answers with a hello whose
`options` hold what it found, so a test can assert that it reached nothing; it then plays the first
legal id. The PATHs are the arena's places the test names to it (a tournament folder, a records file,
a source file): it tries to read and to write each; port=N: a port on the host it tries to reach. MODE adds a burden that must not outlive the game:

    look      only look
    spawn     starts 3 children and a setsid grandchild, each sleeping for an hour (the marker their
              arguments hold is what the test looks for in the host's process list)
    spawnhang spawn, then it sleeps at its first decision
    memory    4 children holding 150 MiB each (the bot's memory limit is set lower than their sum)
    disk      writes 40 files of 16 MiB into its /tmp
    forkbomb  forks children until it cannot
    cpu       4 children spinning (its CPU limit is set low)
"""
import json
import os
import socket
import subprocess
import sys
import time


def _rss_mb(pid: int) -> float:
    """Resident MiB of a process of ours (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return next(int(x.split()[1]) for x in fh if x.startswith("VmRSS:")) / 1024
    except (OSError, StopIteration):
        return 0.0


mode = sys.argv[1]
paths = [a for a in sys.argv[2:] if not a.startswith("port=")]
ports = [int(a[5:]) for a in sys.argv[2:] if a.startswith("port=")]
MARKER = "v1919-cheater-marker"


def probe() -> dict:
    found = {}
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    found["pids"] = len(pids)
    found["ppid"] = os.getppid()
    parent = {}
    for p in pids:
        if p == os.getpid():
            continue
        try:
            parent[p] = open(f"/proc/{p}/cmdline", "rb").read().replace(b"\0", b" ").decode()[:120]
        except OSError:
            pass
    found["others"] = sorted(v for v in parent.values() if v)
    found["parent_fds"] = []
    try:
        for fd in os.listdir(f"/proc/{os.getppid()}/fd"):
            found["parent_fds"].append(os.readlink(f"/proc/{os.getppid()}/fd/{fd}"))
    except OSError:
        pass
    try:
        found["shm"] = os.listdir("/dev/shm")
    except OSError:
        found["shm"] = []
    found["env"] = sorted(os.environ)
    found["read"], found["wrote"] = [], []
    for p in paths:
        try:
            if os.path.isdir(p):
                found["read"] += [p + ":" + ",".join(os.listdir(p))] if os.listdir(p) else []
            else:
                with open(p, "rb") as fh:
                    found["read"].append(p + ":" + fh.read(40).decode(errors="replace"))
        except OSError:
            pass
        try:
            target = os.path.join(p, "cheat.txt") if os.path.isdir(p) else p
            with open(target, "a") as fh:
                fh.write("cheated\n")
            found["wrote"].append(target)
        except OSError:
            pass
    found["network"] = False
    for port in ports:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            found["network"] = True
        except OSError:
            pass
    try:
        s = socket.create_connection(("1.1.1.1", 53), timeout=1)
        s.close()
        found["internet"] = True
    except OSError:
        found["internet"] = False
    return found


def burden() -> dict:
    out = {}
    sleeper = [sys.executable, "-c", "import time; time.sleep(3600)", MARKER]
    if mode in ("spawn", "spawnhang"):
        for _ in range(3):
            subprocess.Popen(sleeper)
        subprocess.Popen(["setsid", *sleeper])
    elif mode == "memory":
        code = "import time; b = bytearray(150 << 20); b[::4096] = b'x' * len(b[::4096]); time.sleep(3600)"
        kids = [subprocess.Popen([sys.executable, "-c", code, MARKER]) for _ in range(4)]
        out["children"] = [k.pid for k in kids]
        deadline = time.monotonic() + 60          # until each has its 150 MiB or was killed (slow when loaded)
        while time.monotonic() < deadline and not all(k.poll() is not None or _rss_mb(k.pid) >= 150 for k in kids):
            time.sleep(0.05)
    elif mode == "disk":
        written = 0
        for k in range(40):
            try:
                with open(f"/tmp/fill{k}", "wb") as fh:
                    for _ in range(16):
                        fh.write(b"\0" * (1 << 20))
                        written += 1
            except OSError:
                break
        out["disk_mb"] = written
    elif mode == "forkbomb":
        n = 0
        try:
            for _ in range(500):
                subprocess.Popen(["sleep", "3600"])
                n += 1
        except OSError:
            pass
        out["forks"] = n
    elif mode == "cpu":
        for _ in range(4):
            subprocess.Popen([sys.executable, "-c", "while True: pass", MARKER])
    return out


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        found = {**probe(), **burden()}
        send({"type": "hello", "protocol": "v1919-bot", "version": 1, "name": f"cheater-{mode}", "options": found,
              "omit": ["observation", "position", "names"]})
    elif kind == "new_game":
        send({"type": "ready"})
    elif kind == "decide":
        if mode == "spawnhang":
            time.sleep(3600)
        if mode == "cpu":
            time.sleep(0.5)
        send({"type": "action", "id": msg["legal"][0]})
    elif kind in ("quit", "error"):
        break
