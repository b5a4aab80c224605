"""Recorded games replay identically (tests/helpers/golden.py regenerates them on purpose)."""
from __future__ import annotations

import json

import pytest

from helpers.golden import CASES, PATH, play


@pytest.mark.parametrize("case", range(len(CASES)))
def test_golden_playthrough_replays(case):
    want = json.loads(PATH.read_text())[case]
    got = play(want["players"], want["seed"], want["variant"])
    assert got["first_decisions"] == want["first_decisions"]
    assert got["decisions"] == want["decisions"]
    assert got == want
