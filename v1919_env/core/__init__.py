"""The numba-compiled rules core: one flat int32 state array per game, kernels over [batch, state].

One module per rule area (place and turn, settle, events, uprising and bidding, scoring, setup,
the solitaire bots) over the state layout (`layout`), the card tables (`tables`), the action
segments (`actions`) and the index names (`vocab`); `step` drives them. The core imports only
numpy, numba and itself: every layer above (cards, the facade, envs, agents) imports it, never the
other way round.

Compiled kernels are cached on disk. numba only checks a cached function's own file, so the
cache folder is keyed by a hash of every core source file and of every other compiled module of the
project (the files of v1919_env, agents and training that define kernels; read, never imported):
editing any of them recompiles everything that depends on it instead of reusing a stale kernel
(the lockstep search's kernels inline the guided search's and the compiled network's). A kernel that compiles
says so on the logger `v1919_env.compile`, shown on stderr by default (`compile_log`).

The rules kernels are compiled with `@njit(cache=True, _nrt=False)`: no reference counting, so no
heap allocation in them or below them (scratch arrays come from core/stack.py). The atomic
reference-count updates numba puts around array arguments and views took a quarter of a vector-env
step. Only the entry points that allocate (batch helpers, play_games, the search) keep it.

One compiled version per function: when compiled code calls a kernel, numba compiles that kernel
again for every constant argument (`decide(s, D_BID, p)` gave 25 versions of `decide`) and every
integer width (an int32 read from the state, an int64 computed), and each version of a procedure
links and optimizes everything below it again. `_one_version_per_kernel` makes numba type such a
call with plain int64 arguments instead (the caller converts; values are the same), which cut the
cold compile of `v1919 demo` by about a third (`v1919 bench --compile`). `V1919_LITERAL_DISPATCH=1`
turns it off (numba's default, for that comparison; its cache is kept apart).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from . import compile_log, link_only


def _set_cache_dir() -> None:
    import numba

    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = Path(__file__).parent
    h = hashlib.sha1()
    for f in sorted(here.glob("*.py")):
        h.update(f.read_bytes())
    root = here.parent.parent
    for pkg in _PROJECT_MODULES:                 # the kernels above the core that call into each other
        for f in sorted((root / pkg).rglob("*.py")) if (root / pkg).is_dir() else ():
            if f.parent != here:
                text = f.read_bytes()
                if b"@njit" in text:
                    h.update(f.name.encode() + text)
    h.update(_LITERAL_DISPATCH.encode())
    base = Path(os.environ.get("V1919_CACHE", Path.home() / ".cache" / "v1919_env"))
    numba.config.CACHE_DIR = str(base / f"numba-{h.hexdigest()[:16]}")


def is_compiled() -> bool:
    """True when the rules core is in numba's disk cache (a start then takes about a second)."""
    import numba

    return any(Path(numba.config.CACHE_DIR).glob("**/step.advance-*.nbi"))


_PROJECT_MODULES = ("v1919_env", "agents", "training")
_LITERAL_DISPATCH = os.environ.get("V1919_LITERAL_DISPATCH", "")


def _one_version_per_kernel() -> None:
    """Type calls from compiled code to this project's kernels with non-literal arguments, and
    signed integers narrower than 64 bits as int64 (numba's Dispatcher.get_call_template is the one
    place such a call is typed; it then compiles, or loads from the cache, that signature)."""
    from numba.core import dispatcher, types

    original = dispatcher.Dispatcher.get_call_template
    if getattr(original, "_v1919", False) or _LITERAL_DISPATCH == "1":
        return

    def widen(t):
        t = types.unliteral(t)
        return types.int64 if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64 else t

    def get_call_template(self, args, kws):
        if getattr(self.py_func, "__module__", "").startswith(_PROJECT_MODULES):
            args = tuple(widen(a) for a in args)
            kws = {k: widen(v) for k, v in kws.items()}
        return original(self, args, kws)

    get_call_template._v1919 = True
    dispatcher.Dispatcher.get_call_template = get_call_template


_one_version_per_kernel()
link_only.install()
_set_cache_dir()
compile_log.install()
