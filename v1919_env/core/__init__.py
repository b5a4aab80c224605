"""The numba-compiled rules core: one flat int32 state array per game, kernels over [batch, state].

One module per rule area (place and turn, settle, events, uprising and bidding, scoring, setup,
the solitaire bots) over the state layout (`layout`), the card tables (`tables`), the action
segments (`actions`) and the index names (`vocab`); `step` drives them. The core imports only
numpy, numba and itself: every layer above (cards, the facade, envs, agents) imports it, never the
other way round.

Compiled kernels are cached on disk. numba only checks a cached function's own file, so the
cache folder is keyed by a hash of every core source file: editing any rule module
recompiles everything that depends on it instead of reusing a stale kernel. On a terminal, the
first run (nothing cached yet) says that it is compiling, since that takes a minute or two.

The rules kernels are compiled with `@njit(cache=True, _nrt=False)`: no reference counting, so no
heap allocation in them or below them (scratch arrays come from core/stack.py). The atomic
reference-count updates numba puts around array arguments and views took a quarter of a vector-env
step. Only the entry points that allocate (batch helpers, play_games, the search) keep it.
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def _set_cache_dir() -> None:
    import numba

    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = Path(__file__).parent
    h = hashlib.sha1()
    for f in sorted(here.glob("*.py")):
        h.update(f.read_bytes())
    base = Path(os.environ.get("V1919_CACHE", Path.home() / ".cache" / "v1919_env"))
    numba.config.CACHE_DIR = str(base / f"numba-{h.hexdigest()[:16]}")


def is_compiled() -> bool:
    """True when the rules core is in numba's disk cache (a start then takes about a second)."""
    import numba

    return any(Path(numba.config.CACHE_DIR).glob("**/step.try_step-*.nbi"))


def _announce_first_compile() -> None:
    if not is_compiled() and sys.stderr is not None and sys.stderr.isatty():
        print("v1919_env: compiling the rules core (first run only, about a minute; later starts take a "
              "second) ...", file=sys.stderr, flush=True)


_set_cache_dir()
_announce_first_compile()
