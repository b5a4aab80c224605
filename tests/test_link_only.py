"""Callees compiled for linking only (v1919_env/core/link_only.py): no machine code or cache entry of
their own, the same results, a full compile when Python calls them, exceptions with dynamic
messages from inlined callees, and a warm start that compiles nothing."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import v1919_env.core  # noqa: F401  (installs the patch)
from v1919_env.core import link_only

pytestmark = pytest.mark.skipif(not link_only.ENABLED, reason="V1919_LINK_ONLY=0")

KERNELS = textwrap.dedent('''
    import numpy as np
    from numba import njit

    @njit(cache=True)
    def leaf(x):
        if x > 5:
            raise ValueError("too big:", x)    # a dynamic message: needs the kernel's env
        return x + 1

    @njit(cache=True)
    def middle(a):
        t = 0
        for v in a:
            t += leaf(v)
        return t

    @njit(cache=True)
    def top(a):
        return 2 * middle(a)

    @njit(cache=True)
    def other_top(a):                      # a second caller that inlines the same callees
        return middle(a) - 1
''')

DRIVER = textwrap.dedent('''
    import sys

    import numpy as np
    from numba.core import event

    from v1919_env.core import link_only
    from v1919_env.core.link_only import Deferred

    link_only.PROJECT_PACKAGES.append("linkfixture")     # the patch applies to this project's kernels
    from linkfixture import leaf, middle, other_top, top

    MODE = sys.argv[1]
    compiles = []


    class Count(event.Listener):
        def on_start(self, ev):
            compiles.append(ev.data["dispatcher"].py_func.__name__)

        def on_end(self, ev):
            pass


    event.register("numba:compile", Count())
''')


def _run(tmp_path: Path, body: str, mode: str = "") -> str:
    """Run the kernels and `body` in a new process (numba caches by the source file: a second run of
    the same script with another `mode` finds the first one's cache)."""
    script = tmp_path / "driver.py"
    if not script.exists():
        (tmp_path / "linkfixture.py").write_text(KERNELS)
        script.write_text(DRIVER + textwrap.dedent(body))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), V1919_COMPILE_LOG="0")
    out = subprocess.run([sys.executable, str(script), mode], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_callees_are_linked_not_compiled_and_python_calls_get_full_kernels(tmp_path):
    body = '''
        a = np.array([1, 2, 3], np.int64)
        if MODE == "warm":
            assert top(a) == 18 and middle(a) == 9 and leaf(4) == 5
            print("compiled", compiles)
            raise SystemExit
        assert top(a) == 18
        kinds = {f.py_func.__name__: type(next(iter(f.overloads.values())).entry_point).__name__
                 for f in (top, middle, leaf)}
        assert kinds == {"top": "builtin_function_or_method", "middle": "Deferred", "leaf": "Deferred"}, kinds
        try:
            top(np.array([1, 9], np.int64))
            raise AssertionError("no exception")
        except ValueError as e:
            assert e.args == ("too big:", 9), e.args
        try:
            other_top(np.array([7], np.int64))          # compiled after top: the same env, set once
            raise AssertionError("no exception")
        except ValueError as e:
            assert e.args == ("too big:", 7), e.args
        assert middle(a) == 9 and leaf(4) == 5      # Python calls: compiled in full now
        assert not isinstance(next(iter(middle.overloads.values())).entry_point, Deferred)
        print("compiled", sorted(compiles))
    '''
    out = _run(tmp_path, body, "cold")
    assert "compiled ['leaf', 'middle', 'other_top', 'top']" in out
    index = sorted(p.name.split(".")[1].split("-")[0] for p in (tmp_path / "cache").rglob("*.nbi"))
    assert index == ["leaf", "middle", "other_top", "top"]      # every kernel Python called is cached, once

    warm = _run(tmp_path, body, "warm")
    assert "compiled []" in warm


def test_a_kernel_only_ever_linked_leaves_no_cache_entry(tmp_path):
    _run(tmp_path, '''
        assert top(np.array([4], np.int64)) == 10
    ''')
    index = sorted(p.name.split(".")[1].split("-")[0] for p in (tmp_path / "cache").rglob("*.nbi"))
    assert index == ["top"]


def test_is_compiled_finds_the_facades_step_kernel_in_the_cache(tmp_path):
    # the cached entry point that says "the rules core is compiled" (precompile skips its background
    # process then): a kernel Python calls, so it is in the cache (a callee would not be)
    env = dict(os.environ, V1919_CACHE=str(tmp_path), V1919_COMPILE_LOG="0")
    env.pop("NUMBA_CACHE_DIR", None)
    code = ("from v1919_env.core import is_compiled\nprint(is_compiled())\n"
            "from v1919_env.game import Game\nGame.new(2, seed=1)\nprint(is_compiled())")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
