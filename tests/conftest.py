"""tests/ mirrors the packages (core, cards, positions, envs, view, agents, training) plus the rules'
worked examples (examples/); helpers/ is shared. pytest's default import mode puts this folder on
sys.path (for this conftest), so every test imports `helpers.<module>`."""

import pytest


_CLIENT_TESTS = {f"tests/agents/arena/test_{m}.py" for m in (
    "clocks", "information_sets", "process_bots", "process_ladder_ray", "sandbox", "tournament", "tournament_ray")}
"""The test files that start the reference client (agents/arena/process/client.py) in a sandbox."""


def pytest_collection_finish(session):
    """Where those tests are to run: compile the rules core and the agents the bot-process tests
    run through the reference client before any test. A client in its sandbox gets a copy of this
    process's kernel cache; on a fresh machine it would compile them itself, within the arena's 60 s
    reply timeout, while the other worker (-n 2) compiles too. One process compiles at a time (a lock
    file in the cache); the next finds them cached (a second or two when warm)."""
    if not any(item.nodeid.split("::")[0] in _CLIENT_TESTS for item in session.items):
        return
    import fcntl
    from pathlib import Path

    import numba

    import v1919_env.core  # noqa: F401  (sets numba's cache folder)
    from agents.arena.play import parse_agents_arg
    from agents.arena.precompile import precompile

    cache = Path(numba.config.CACHE_DIR)
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".tests.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        precompile(parse_agents_arg("rulebot,ismcts,greedy,random"), 4)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Debian's headless Chromium over the DevTools protocol (helpers/browser.py), one per test module;
    skipped when it is not installed (.ci/run installs it)."""
    from helpers.browser import CHROMIUM, Browser

    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()
