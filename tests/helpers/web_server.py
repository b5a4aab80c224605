"""`v1919 serve` in a subprocess on a free loopback port, for the tests that talk to the real server."""
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def web_server(db, *args, port=None, output: list | None = None):
    """Yield the base URL of a `v1919 serve --db db ARGS` once its first page answers; stop it after,
    appending what it printed to `output` when given."""
    port = port or free_port()
    proc = subprocess.Popen([sys.executable, "-m", "v1919_env.cli", "serve", "--port", str(port), "--db", str(db),
                             *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"v1919 serve did not start: {proc.stdout.read() if proc.poll() is not None else 'timeout'}")
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
        if output is not None:
            output.append(out)
