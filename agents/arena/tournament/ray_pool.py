"""Tournament games on Ray: `v1919 tournament CONFIG --ray [ADDRESS]`, evaluations with
`evaluation.ray`, and anything else that plays games through runner.play_games(ray=...).

    ray="local"        a Ray instance started for the run (ray.init(address="local")) with the
                       run's `workers` CPUs, shut down after it
    ray="auto"         the cluster `ray start` runs on this machine (RAY_ADDRESS, else the one found)
    ray="HOST:PORT"    the cluster whose head listens there (`ray start --head --port PORT`)

One GameHost actor per free CPU of the cluster (1 CPU each, spread over the nodes; on a cluster
joined by address at most the caller's `workers` when given). A GameHost starts one worker process
of the local pool on its node (pool.WorkerProcess running worker.hosted_worker_main) and plays the
jobs it is handed there, so a game is played exactly as in the local pool, from the same job (the
seeds and seating come from the config and the game index): the same record but its timing. A
worker process that dies while an agent chooses is judged as in the local pool too (a forfeit of
that seat, a fresh process plays on; one that dies while starting stops the run). A GameHost that
dies itself (its node lost, the process killed) fails its game: not recorded, a rerun plays it;
the run goes on with the other hosts.

Nothing is shipped but the jobs and the records: every node imports v1919_env and agents (and the
config's `modules`) from its own install, reads the files the config names (a card set, a `learned`
checkpoint) from its own disk (relative paths from the driver's directory where the node has it),
and the worker processes load the compiled kernels from their node's numba cache
(~/.cache/v1919_env; on a node whose cache is cold each worker process compiles the kernels its
games need, once).

The run ends with every GameHost killed (their worker processes end with them, hosted_worker_main)
and, when the run started the Ray instance or joined the cluster, with ray.shutdown(): a cluster
joined by address keeps running. A process already connected to Ray (an RLlib run evaluating its
checkpoints, `ray_session`) keeps its connection. Ray is imported only when used.
"""
from __future__ import annotations

import logging
import os
import re
import socket
import sys
import time
from collections import Counter
from contextlib import contextmanager, suppress

from .errors import TournamentError
from .pool import Executor, StopSignals, WorkerProcess
from .worker import Progress, hosted_worker_main

RAY_LOCAL = "local"            # start a local Ray instance for the run
CONNECT_TIMEOUT_S = 5.0        # how long the address check waits for the cluster's head to answer
FREE_CPU_WAIT_S = 15.0         # how long a run waits for a free CPU on a cluster it shares (or for its hosts to end)

logger = logging.getLogger(__name__)


def check_address(text: str) -> str:
    """`text` if it names a Ray instance to use: "local", "auto" or HOST:PORT; ValueError otherwise."""
    t = str(text).strip()
    if t in (RAY_LOCAL, "auto"):
        return t
    host, sep, port = t.rpartition(":")
    if sep and host and port.isdigit() and 0 < int(port) < 65536 and not any(c.isspace() or c == "/" for c in host):
        return t
    raise ValueError(f"expected auto or HOST:PORT (the address of a Ray cluster's head; nothing: a local Ray "
                     f"instance), got {text!r}")


def address_arg(text: str) -> str:
    """argparse type of a --ray ADDRESS option (check_address; a bad one is argparse's one-line error)."""
    import argparse

    try:
        return check_address(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{e} (name the positional arguments before --ray, or write "
                                         f"--ray=ADDRESS)") from None


def import_ray():
    try:
        import ray
    except ImportError as e:
        raise TournamentError(f"playing on Ray needs Ray: pip install -e '.[rllib]' (or 'ray>=2.60') ({e})") from None
    return ray


def _resolve(address: str) -> str:
    """HOST:PORT of the cluster `address` names ("auto": the one `ray start` runs on this machine)."""
    if address != "auto":
        return address
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:             # pragma: no cover  (another Ray version: let ray.init look)
        return address
    try:
        found = canonicalize_bootstrap_address("auto")
    except ConnectionError:
        found = None
    if not found:
        raise TournamentError("auto: no Ray cluster runs on this machine; start one with `ray start --head` "
                              "(and `ray start --address HEAD:6379` on the other machines), or give its HOST:PORT")
    return found


def _check_reachable(address: str, target: str) -> None:
    """TournamentError at once when nothing listens at `target` (ray.init would retry for minutes)."""
    host, _, port = target.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as e:
        why = e.strerror or str(e) or type(e).__name__
        at = why if target == address else f"{target}: {why}"
        raise TournamentError(f"cannot reach a Ray cluster at {address} ({at}); start its head there "
                              f"with `ray start --head --port {port}`, or check the address") from None


def _reason(e: BaseException) -> str:
    """One line of a Ray error: the last "SomeError: ..." line of its text (a traceback's end), else its
    first line, terminal colours removed."""
    lines = [x.strip() for x in re.sub(r"\x1b\[[0-9;]*m", "", str(e)).splitlines() if x.strip()]
    errors = [x for x in lines if re.match(r"[A-Za-z_][\w.]*(Error|Exception)\b", x)]
    return errors[-1] if errors else lines[0] if lines else type(e).__name__


def _join_error(address: str, e: BaseException) -> TournamentError:
    chain, c = [], e
    while c is not None and len(chain) < 8:
        chain.append(c)
        c = c.__cause__ or c.__context__
    if any("auth" in type(c).__name__.lower() or "authentication token" in str(c).lower() for c in chain):
        return TournamentError(f"cannot join the Ray cluster at {address}: it asks for its token (token "
                               f"authentication, the default of `ray start`); run with RAY_AUTH_MODE=token and the "
                               f"head's ~/.ray/auth_token copied to this machine")
    first = (str(e).strip().splitlines() or [type(e).__name__])[0]
    return TournamentError(f"cannot join the Ray cluster at {address}: {first}")


def connect(address: str, num_cpus: int | None = None) -> bool:
    """Connect this process to Ray: start a local instance with `num_cpus` CPUs (address "local") or
    join the cluster at `address`. False when the process is already connected (that connection is
    used, whatever the address); True otherwise: the caller ends it with ray.shutdown()."""
    ray = import_ray()
    if ray.is_initialized():
        logger.info("Ray: using the Ray instance this process is connected to")
        return False
    try:
        if address == RAY_LOCAL:
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=True)
        else:
            target = _resolve(address)
            _check_reachable(address, target)
            ray.init(address=target, log_to_driver=True)
    except TournamentError:
        raise
    except Exception as e:
        if ray.is_initialized():
            ray.shutdown()
        if address == RAY_LOCAL:
            raise TournamentError(f"cannot start a local Ray instance: {e}") from None
        raise _join_error(address, e) from None
    except BaseException:           # Ctrl-C while Ray was starting
        if ray.is_initialized():
            ray.shutdown()
        raise
    return True


@contextmanager
def ray_session(address: str, num_cpus: int | None = None):
    """Ray connected for the block (see connect), so that several runs share one instance (an
    evaluation's tournaments, one per opponent); disconnected at its end if it connected."""
    import signal
    import threading

    main_thread = threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGTERM) if main_thread else None
    owned = connect(address, num_cpus)
    try:
        yield
    finally:
        if owned:
            import ray

            ray.shutdown()
            if main_thread and before is not None:      # ray.init put its own SIGTERM handler in place
                signal.signal(signal.SIGTERM, before)


class GameHost:
    """The Ray actor (1 CPU): one worker process of the local pool on this node, and the jobs it plays."""

    def __init__(self, cwd: str):
        import multiprocessing as mp

        import ray

        # the driver's directory, where this node has it (the same machine, a shared or identical layout), so
        # that the config's relative paths (card_set, a `learned` checkpoint) mean what they mean there; a Ray
        # worker of a cluster joined by address starts where `ray start` was run
        if os.path.isdir(cwd):
            os.chdir(cwd)
        self.node = ray.get_runtime_context().get_node_id()
        self.ctx = mp.get_context("spawn")
        self.worker = self._start(WorkerProcess(self.ctx, Progress(self.ctx), hosted_worker_main, (os.getpid(),)))

    @staticmethod
    def _start(worker: WorkerProcess) -> WorkerProcess:
        """Start a worker process. A spawned process first runs its parent's main script again, here
        Ray's worker script (Ray imported: 40 MB more, half a second): hidden while it starts."""
        main = sys.modules["__main__"]
        script = main.__dict__.pop("__file__", None)
        try:
            worker.start()
        finally:
            if script is not None:
                main.__file__ = script
        return worker

    def play(self, job: dict) -> tuple[str, object, str]:
        """(kind, payload, node id): the worker process's answer, or the outcome of its death (a
        fresh process then takes its place); TournamentError if it died while starting."""
        from multiprocessing.connection import wait

        w = self.worker
        w.give(job)
        while not wait([w.conn, w.proc.sentinel], timeout=0.5):
            w.kill_if_overdue()                 # a clocked choice hung where its thread cannot give it up
        answer = w.answer()
        if answer is None:
            answer = w.outcome_of_death()
            self.worker = self._start(w.successor())
        w.job = None
        return answer[0], answer[1], self.node


class RayPool(Executor):
    """Games on Ray (see the module docstring): `address` "local", "auto" or HOST:PORT; `local_cpus`:
    the CPUs of a local instance; `cap`: at most this many workers on a cluster."""

    host_class = GameHost           # the actor (a test swaps in one that cannot start)

    def __init__(self, address: str, local_cpus: int | None = None, cap: int | None = None):
        self.address, self.local_cpus, self.cap = address, local_cpus, cap
        self.description = "Ray (local instance)" if address == RAY_LOCAL else f"Ray cluster at {address}"
        self.nodes: Counter = Counter()         # node id -> games played there

    def _size(self, ray, owned: bool, jobs: int) -> int:
        if owned and self.address == RAY_LOCAL:
            n = self.local_cpus
        else:
            total = int(ray.cluster_resources().get("CPU", 0))
            n = int(ray.available_resources().get("CPU", 0))
            deadline = time.monotonic() + FREE_CPU_WAIT_S
            while n < 1 and time.monotonic() < deadline:    # e.g. the actors of a run just ended, being reclaimed
                time.sleep(0.2)
                n = int(ray.available_resources().get("CPU", 0))
            if n < 1:
                where = "the Ray instance" if self.address == RAY_LOCAL else f"the Ray cluster at {self.address}"
                raise TournamentError(f"{where} has no free CPU ({total} CPU{'s' * (total != 1)}, all in use for "
                                      f"{FREE_CPU_WAIT_S:.0f} s)")
            if self.cap:
                n = min(n, self.cap)
        return max(1, min(n, jobs))

    def run(self, jobs: list[dict], settle, signals: StopSignals) -> None:
        ray = import_ray()
        from ray.exceptions import RayError, RayTaskError

        # pending: an ObjectRef -> (host, its job), or (host, None) while the host starts (its __ray_ready__)
        owned, hosts, pending, lost = False, [], {}, ""
        try:
            with signals.held():
                owned = connect(self.address, self.local_cpus)
                signals.install()                   # ray.init put its own SIGTERM handler in place
                n = self._size(ray, owned, len(jobs))
                host_class = ray.remote(num_cpus=1, max_restarts=0)(self.host_class).options(
                    scheduling_strategy="SPREAD")
                hosts = [host_class.remote(os.getcwd()) for _ in range(n)]
                pending = {h.__ray_ready__.remote(): (h, None) for h in hosts}
                alive = [x for x in ray.nodes() if x.get("Alive")]
                logger.info("Ray: %d game worker%s (1 CPU each) on a cluster of %d node%s, %d CPUs", n,
                            "s" * (n != 1), len(alive), "s" * (len(alive) != 1),
                            int(ray.cluster_resources().get("CPU", 0)))
            idle, queue = [], list(reversed(jobs))
            while queue or any(job is not None for _, job in pending.values()):
                if not hosts:
                    raise TournamentError(f"no Ray worker is left to play the games: {lost}")
                while idle and queue:               # a host takes a game as soon as it is up
                    host, job = idle.pop(), queue.pop()
                    pending[host.play.remote(job)] = (host, job)
                # a stop signal waits for the end of the wait (at most a second): raised inside Ray's own signal
                # check, an exception other than KeyboardInterrupt comes out of ray.wait as a SystemError
                with signals.held():
                    ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                for ref in ready:
                    with signals.held():
                        host, job = pending.pop(ref)
                        try:
                            answer = ray.get(ref)
                        except RayTaskError as e:           # raised in GameHost.play (or while it started)
                            cause = getattr(e, "cause", None)
                            if isinstance(cause, TournamentError):
                                raise TournamentError(str(cause)) from None
                            why = f"{type(cause or e).__name__}: {cause or e}"
                            if job is None:
                                hosts.remove(host)
                                lost = f"a Ray worker could not start ({why})"
                                logger.warning("Ray: %s; %d left", lost, len(hosts))
                                continue
                            answer = ("failed", why, None)
                            idle.append(host)
                        except RayError as e:               # the host is gone (node lost, killed) or never started
                            hosts.remove(host)
                            why = _reason(e)
                            if job is None:
                                lost = f"a Ray worker could not start ({why})"
                                logger.warning("Ray: %s; %d left", lost, len(hosts))
                                continue
                            lost = f"its Ray worker died ({type(e).__name__}; {len(hosts)} left): {why}"
                            answer = ("failed", lost, None)       # the runner says which game
                        else:
                            idle.append(host)
                            if job is None:                 # the host is up
                                continue
                        kind, payload, node = answer
                        if kind == "done":
                            self.nodes[node] += 1
                        settle(job["game_index"], kind, payload)
        finally:
            with signals.held():
                self._stop(ray, hosts, pending, settle, owned)

    def _stop(self, ray, hosts, pending, settle, owned: bool) -> None:
        """Settle the games that ended meanwhile, kill every host (its worker process ends with it)
        and end the connection this run made."""
        try:
            playing = [ref for ref, (_, job) in pending.items() if job is not None]
            if playing:
                ready, _ = ray.wait(playing, num_returns=len(playing), timeout=0)
                for ref in ready:
                    with suppress(Exception):
                        kind, payload, node = ray.get(ref, timeout=0)
                        if kind == "done":
                            self.nodes[node] += 1
                            settle(pending[ref][1]["game_index"], kind, payload)
            for h in hosts:
                with suppress(Exception):
                    ray.kill(h, no_restart=True)
            if not owned:               # the connection goes on (an evaluation's next tournament): hosts gone first
                deadline = time.monotonic() + FREE_CPU_WAIT_S
                for h in hosts:
                    with suppress(Exception):
                        ray.get(h.__ray_ready__.remote(), timeout=max(0.0, deadline - time.monotonic()))
        finally:
            if owned:
                ray.shutdown()
