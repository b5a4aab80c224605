"""tests/ mirrors the packages (core, cards, positions, envs, view, agents, training) plus the rules'
worked examples (examples/); helpers/ is shared. pytest's default import mode puts this folder on
sys.path (for this conftest), so every test imports `helpers.<module>`."""

import pytest


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
