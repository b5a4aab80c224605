"""The internal codes no decision text may show (issue 42): the decision names of `Game.decision`, the
action kinds and the old wordings; `check` asserts a text carries none (tests/test_decision_words.py,
the browser test of the web app)."""
from __future__ import annotations

import re

from v1919_env.actions import SEGMENTS
from v1919_env.core.layout import DECISION_NAMES

CODES = sorted({n for n in DECISION_NAMES.values() if "_" in n or any(c.isdigit() for c in n)}
               | {k for k, _ in SEGMENTS if "_" in k} | {"to avail", "to exh", "event cube", "branch", "adv issue"})
OLD = re.compile(r"choose alternative \d|remove / subtract|^accept$|^decline$|drawn issue\b|\{|\}")


def check(text: str, where: str) -> None:
    low = text.lower()
    bad = [c for c in CODES if re.search(rf"(?<![a-z_]){re.escape(c)}(?![a-z_])", low)]
    assert not bad and not OLD.search(text), f"{where}: {text!r} shows {bad or OLD.search(text).group()}"
