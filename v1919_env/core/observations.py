"""The observation layouts an environment offers, by number: `full` (observe.py, 2,032 floats, the
default) and `compact` (observe_compact.py, 1,596 floats). The environments' `obs_layout` option picks
one. Python callers take the kernels of their layout from `KERNELS` (so a game in the full layout
never compiles the compact one); the `_as` kernels dispatch inside compiled code (the vector env,
the search, the teacher games)."""
from __future__ import annotations

from typing import NamedTuple

from numba import njit

from .layout import GAME_OVER, PENDING_PLAYER
from .observe import OBS_SIZE, observe, observe_and_mask, step_and_observe, write_mask
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
def observe_and_mask_compact(s, T, seat, out, mask, buf):
    """observe.observe_and_mask in the compact layout."""
    observe_compact(s, T, seat, out)
    write_mask(s, T, seat, mask, buf)


@njit(cache=True, _nrt=False)
def step_and_observe_compact(s, T, a, buf, out, mask):
    """observe.step_and_observe in the compact layout."""
    if not try_step(s, T, a, buf):
        return False
    if s[GAME_OVER] == 0:
        observe_and_mask_compact(s, T, s[PENDING_PLAYER], out, mask, buf)
    return True


@njit(cache=True, _nrt=False)
def observe_states(S, T, seats, out, layout):
    """out[k] = the observation of seat seats[k] in position S[k], in `layout` (positions kept as
    state arrays, e.g. a self-play buffer's, observed again in another layout)."""
    for k in range(S.shape[0]):
        observe_as(S[k], T, seats[k], out[k], layout)


class Kernels(NamedTuple):
    """A layout's kernels for Python callers: (s, T, seat, out, mask, buf) and (s, T, a, buf, out, mask)."""
    size: int
    observe_and_mask: object
    step_and_observe: object


KERNELS = {"full": Kernels(OBS_SIZE, observe_and_mask, step_and_observe),
           "compact": Kernels(COMPACT_SIZE, observe_and_mask_compact, step_and_observe_compact)}


def kernels_of(name) -> Kernels:
    """The kernels of layout `name` (ValueError naming obs_layout for anything else)."""
    layout_of(name)
    return KERNELS[name]
