"""The observation layouts an environment offers, by number: `full` (observe.py, 2,032 floats, the
default) and `compact` (observe_compact.py, 894 floats). The environments' `obs_layout` option picks
one; these kernels write whichever is asked."""
from __future__ import annotations

from numba import njit

from .layout import GAME_OVER, PENDING_PLAYER
from .observe import OBS_SIZE, observe, write_mask
from .observe_compact import COMPACT_SIZE, observe_compact
from .step import try_step

FULL, COMPACT = 0, 1
LAYOUTS = {"full": (FULL, OBS_SIZE), "compact": (COMPACT, COMPACT_SIZE)}


def layout_of(name) -> tuple[int, int]:
    """(code, size) of the layout `name`; ValueError naming the option for anything else."""
    if not isinstance(name, str) or name not in LAYOUTS:
        raise ValueError(f"obs_layout must be one of {', '.join(map(repr, LAYOUTS))}, got {name!r}")
    return LAYOUTS[name]


@njit(cache=True, _nrt=False)
def observe_as(s, T, seat, out, layout):
    """Write seat's observation in `layout` (FULL or COMPACT) into out."""
    if layout == COMPACT:
        observe_compact(s, T, seat, out)
    else:
        observe(s, T, seat, out)


@njit(cache=True, _nrt=False)
def observe_and_mask_as(s, T, seat, out, mask, buf, layout):
    """observe.observe_and_mask in `layout`."""
    observe_as(s, T, seat, out, layout)
    write_mask(s, T, seat, mask, buf)


@njit(cache=True, _nrt=False)
def step_and_observe_as(s, T, a, buf, out, mask, layout):
    """observe.step_and_observe in `layout`."""
    if not try_step(s, T, a, buf):
        return False
    if s[GAME_OVER] == 0:
        observe_and_mask_as(s, T, s[PENDING_PLAYER], out, mask, buf, layout)
    return True


@njit(cache=True, _nrt=False)
def observe_states(S, T, seats, out, layout):
    """out[k] = the observation of seat seats[k] in position S[k], in `layout` (positions kept as
    state arrays, e.g. a self-play buffer's, observed again in another layout)."""
    for k in range(S.shape[0]):
        observe_as(S[k], T, seats[k], out[k], layout)
