"""Every decision in the game's words (v1919_env/decisions.py, issue 42): over whole random games of
every player count, the sentence of each pending decision, its short label and every legal action's
description name what is decided and carry no internal code (a decision name of `Game.decision`,
an action kind, or the old wordings "choose alternative N", "remove / subtract", "place2")."""
from __future__ import annotations

import numpy as np
import pytest

from helpers.decision_codes import check
from v1919_env.core.layout import DECISION_NAMES
from v1919_env.decisions import LABELS, SENTENCES, decision_label, decision_text, drawn_issues
from v1919_env.game import Game


def test_every_decision_kind_has_a_sentence_and_a_label():
    kinds = set(DECISION_NAMES.values()) - {"none"}
    assert kinds == set(SENTENCES) == set(LABELS)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_no_internal_code_in_any_decision_text_over_whole_games(players):
    rng = np.random.default_rng(players)
    seen = set()
    for seed in range(12 if players > 1 else 20):
        g = Game.new(players, seed=seed)
        while not g.is_over:
            seen.add(g.decision)
            check(decision_text(g), g.decision)
            check(decision_label(g), g.decision)
            legal = g.legal_actions()
            for a in legal:
                check(g.describe(int(a)), g.decision)
            g.step(int(rng.choice(legal)))
    assert len(seen) >= 15, seen


def test_the_keep_decision_names_both_drawn_issues():
    rng = np.random.default_rng(0)
    for seed in range(40):
        g = Game.new(4, seed=seed)
        while not g.is_over:
            d = drawn_issues(g)
            if d is not None:
                names = [g.names.issue_at(i) for i in d]
                assert all(n in decision_text(g) for n in names)
                words = [g.describe(int(a)) for a in g.legal_actions()]
                assert words == [f"keep {names[0]} (discard {names[1]})", f"keep {names[1]} (discard {names[0]})"]
                return
            g.step(int(rng.choice(g.legal_actions())))
    pytest.fail("no keep decision in 40 random games")
