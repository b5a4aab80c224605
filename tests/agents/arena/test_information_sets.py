"""Bots see only their information set (issue 33): every agent that reads the game is handed a
determinized copy (Game.information_set) with a seed the arena draws, never the real game; a bot
that cheats through its copy gains nothing, and the built-in searches play exactly as before."""
from __future__ import annotations

import numpy as np
import pytest

import agents.arena.play as play
from agents.base import make_agent
from agents.arena.play import hand_off, observe_seat, run_game, seat_spec
from agents.rulebot import RuleBotAgent
from agents.arena.tournament.stats import wilson_interval
from helpers.arena_bots import PeekingRollout, RecordsHandOff
from v1919_env.core import layout as L
from v1919_env.game import Game, hand_off_rng


def _hidden(g: Game) -> tuple:
    s = g.state
    return (tuple(s[L.ISSUE_DECK:L.ISSUE_DECK + s[L.ISSUE_DECK_N]]), tuple(s[L.EV_DECK:L.EV_DECK + s[L.EV_DECK_N]]),
            tuple(s[L.RNG:L.RNG + 2]))


def _visible_equal(a: Game, b: Game) -> bool:
    for p in range(a.num_players):
        oa, ma = observe_seat(a, p)
        ob, mb = observe_seat(b, p)
        if not (np.array_equal(oa, ob) and np.array_equal(ma, mb)):
            return False
    return sorted(_hidden(a)[0]) == sorted(_hidden(b)[0]) and sorted(_hidden(a)[1]) == sorted(_hidden(b)[1])


def _positions(seed: int, n: int) -> list[Game]:
    g, rng, out = Game.new(4, seed=seed), np.random.default_rng(seed), []
    while not g.is_over and len(out) < n:
        out.append(g.clone())
        g.step(int(rng.choice(g.legal_actions())))
    return out


def test_the_copy_keeps_what_the_seat_sees_and_resamples_the_decks_and_dice():
    differ = 0
    positions = _positions(3, 60)[::6]
    for k, g in enumerate(positions):
        c = g.information_set(g.current_player, 1000 + k)
        assert c is not g and not np.shares_memory(c.state, g.state)
        assert _visible_equal(c, g)
        assert np.array_equal(c.legal_actions(), g.legal_actions())
        assert _hidden(c)[2] != _hidden(g)[2]                      # the dice generator is a new one
        differ += _hidden(c)[0] != _hidden(g)[0] and _hidden(c)[1] != _hidden(g)[1]
    assert differ >= len(positions) - 1                            # the deck orders differ (all but by chance)


def test_the_copy_depends_on_the_seed_and_what_is_visible_never_on_the_real_order():
    g = _positions(5, 30)[-1]
    a, b = g.determinize(1), g.determinize(2)            # same visible game, two hidden orders
    assert _hidden(a) != _hidden(b)
    assert a.information_set(0, 77) == b.information_set(0, 77)     # the copy cannot tell them apart
    with pytest.raises(ValueError, match="seat"):
        g.information_set(4, 0)


def test_run_game_hands_every_decision_a_fresh_copy_with_the_arenas_seeds():
    RecordsHandOff.seen = []
    real = []
    specs = [seat_spec("test_records_hand_off")] + [seat_spec("random")] * 3
    agents = [RecordsHandOff()] + [make_agent("random") for _ in range(3)]
    rec = run_game(agents, specs, num_players=4, seed=11,
                   on_move=lambda g, step, seat, a: real.append(g.clone()) if seat == 0 else None)
    seen = RecordsHandOff.seen
    assert rec["result"]["forfeit"] is None and len(seen) == len(real) > 10
    assert all(_visible_equal(c, r) for c, r in zip(seen, real))
    assert sum(_hidden(c)[0] != _hidden(r)[0] for c, r in zip(seen, real)) >= len(real) - 2
    assert all(_hidden(c)[2] != _hidden(r)[2] for c, r in zip(seen, real))
    # the seeds come from the game seed (a replay hands the same copies), not from the agents' seeds
    firsts = [RecordsHandOff() for _ in range(4)]
    handed = []
    for agent_seeds in ([1, 2, 3, 4], [5, 6, 7, 8]):
        RecordsHandOff.seen = []
        run_game(firsts, [seat_spec("test_records_hand_off")] * 4, num_players=4, seed=11, agent_seeds=agent_seeds)
        handed.append([_hidden(c) for c in RecordsHandOff.seen])
    assert handed[0] == handed[1] and len(handed[0]) > 10
    RecordsHandOff.seen = []
    run_game(firsts, [seat_spec("test_records_hand_off")] * 4, num_players=4, seed=12)
    assert [_hidden(c) for c in RecordsHandOff.seen[:5]] != handed[0][:5]


def _match(cheater_honest: bool, games: int) -> float:
    """Win share of a PeekingRollout (the cheater, or its honest twin) against three rule bots,
    its seat rotated game by game, on the same deals for both."""
    wins = 0.0
    for k in range(games):
        seat = k % 4
        agents = [RuleBotAgent() for _ in range(4)]
        agents[seat] = PeekingRollout(honest=cheater_honest)
        specs = [seat_spec("rulebot")] * 4
        specs[seat] = seat_spec("test_peeking_rollout")
        rec = run_game(agents, specs, num_players=4, seed=5000 + k)
        assert rec["result"]["forfeit"] is None
        w = rec["result"]["winners"]
        wins += (seat in w) / len(w)
    return wins


GAMES = 48


def test_a_bot_cheating_through_its_copy_wins_no_more_than_its_honest_twin():
    cheat, honest = _match(False, GAMES), _match(True, GAMES)
    lo_cheat, _ = wilson_interval(cheat, GAMES)
    _, hi_honest = wilson_interval(honest, GAMES)
    assert lo_cheat <= hi_honest, (cheat, honest)
    assert cheat / GAMES < 0.5                  # handed the real game it wins nearly all (below)


def test_the_cheat_would_be_caught_if_the_real_game_were_handed(monkeypatch):
    """The control that shows the test above can fail: with the old hand-off (a clone of the real
    game) the same cheater's interval lies wholly above its honest twin's."""
    monkeypatch.setattr(play, "hand_off", lambda game, seat, rng: game.clone())
    cheat, honest = _match(False, GAMES // 2), _match(True, GAMES // 2)
    lo_cheat, _ = wilson_interval(cheat, GAMES // 2)
    _, hi_honest = wilson_interval(honest, GAMES // 2)
    assert lo_cheat > hi_honest, (cheat, honest)


@pytest.mark.parametrize("lineup", [("ismcts:iterations=24", "greedy", "rulebot", "random")])
def test_the_builtin_searches_play_the_same_moves_on_the_copy(monkeypatch, lineup):
    """ismcts and greedy determinize from a canonical order, so the copy changes none of their
    moves: the same game, action for action, as when they were handed the real game."""
    from agents.base import parse_agent_spec

    specs = [seat_spec(*parse_agent_spec(t)) for t in lineup]
    agents = [make_agent(s["agent"], **s["options"]) for s in specs]
    copy = run_game(agents, specs, num_players=4, seed=21)
    monkeypatch.setattr(play, "hand_off", lambda game, seat, rng: game.clone())
    real = run_game(agents, specs, num_players=4, seed=21)
    assert copy["actions"] == real["actions"] and copy["result"] == real["result"]


def test_the_gymnasium_opponents_are_handed_copies():
    from v1919_env.envs.gymnasium_env import Versailles1919Env

    RecordsHandOff.seen = []
    env = Versailles1919Env(num_players=4, seat=0, opponents=[RecordsHandOff()] * 4)
    env.reset(seed=3)
    g = env.game
    for _ in range(8):
        if g.is_over:
            break
        n_before = len(RecordsHandOff.seen)
        env.step(int(np.flatnonzero(env.action_masks())[0]))
        for c in RecordsHandOff.seen[n_before:]:
            assert c is not g and _hidden(c)[2] != _hidden(g)[2]
    assert len(RecordsHandOff.seen) > 0


def test_the_openspiel_bot_hands_copies():
    pyspiel = pytest.importorskip("pyspiel")
    from agents.openspiel_bot import AgentBot

    game = pyspiel.load_game("versailles1919", {"players": 4})
    st = game.new_initial_state()
    st.apply_action(st.legal_actions()[0])
    RecordsHandOff.seen = []
    bot = AgentBot(RecordsHandOff(), seed=4)
    a = bot.step(st)
    assert a in st.legal_actions()
    c = RecordsHandOff.seen[-1]
    assert c is not st.engine_game and _visible_equal(c, st.engine_game)
    assert _hidden(c) != _hidden(st.engine_game)


def test_hand_off_draws_from_the_arenas_generator():
    g = Game.new(4, seed=1)
    r1, r2 = hand_off_rng(9), hand_off_rng(9)
    assert hand_off(g, 0, r1) == hand_off(g, 0, r2)
    assert hand_off(g, 0, r1) != hand_off(g, 0, hand_off_rng(10))


def _frame_cheater_match(make, games: int) -> float:
    wins = 0.0
    for k in range(games):
        seat = k % 4
        agents = [RuleBotAgent() for _ in range(4)]
        agents[seat] = make()
        specs = [seat_spec("rulebot")] * 4
        specs[seat] = seat_spec("test_frame_cheater")
        rec = run_game(agents, specs, num_players=4, seed=5000 + k)
        assert rec["result"]["forfeit"] is None, rec["result"]["forfeit"]
        w = rec["result"]["winners"]
        wins += (seat in w) / len(w)
    return wins


def test_in_process_a_bot_can_still_reach_the_real_game_through_the_interpreter():
    """The limit of any in-process interface (docs/tournaments.md): a bot that walks the
    interpreter's frames finds the real game and wins with it. Out of process it cannot (below)."""
    from helpers.arena_bots import FrameCheater

    FrameCheater.found = 0
    wins = _frame_cheater_match(FrameCheater, 8)
    assert FrameCheater.found > 0 and wins >= 6


def test_out_of_process_the_cheater_has_no_path_to_the_real_game(monkeypatch):
    """The same cheater as a bot process (the reference client): it is handed only the protocol's
    messages, finds no other game, and wins no more than its honest twin on the same deals."""
    from agents.arena.tournament.config import _client_argv, _module_roots

    modules = ["helpers.arena_bots"]          # as a tournament runs it: its folder on the client's path
    cmd = _client_argv(modules, "test_frame_cheater")
    games = 12
    cheat = _frame_cheater_match(lambda: make_agent("process", cmd=cmd, files=_module_roots(modules)), games)
    honest = _match(True, games)
    assert wilson_interval(cheat, games)[0] <= wilson_interval(honest, games)[1], (cheat, honest)
    assert cheat <= games // 3


def _tournament_seats(isolate: str | None) -> list[dict]:
    from agents.arena.tournament.config import config_from_dict

    raw = {"num_players": 4, "games": 4, "workers": 0, "modules": ["helpers.arena_bots"],
           "agents": ["test_frame_cheater", "rulebot", {"name": "rulebot", "label": "rb2"},
                      {"name": "rulebot", "label": "rb3"}]}
    if isolate is not None:
        raw["isolate"] = isolate
    return config_from_dict(raw).agents


def test_a_tournament_runs_the_agents_of_its_modules_as_bot_processes_by_default():
    cheater, rulebot = _tournament_seats(None)[:2]
    assert cheater["label"] == "test_frame_cheater" and cheater["agent"] == "process"
    assert cheater["options"]["cmd"][-3:] == ["test_frame_cheater", "--module", "helpers.arena_bots"]
    assert rulebot == {"label": "rulebot", "agent": "rulebot", "options": {}}      # this package's: in process
    assert _tournament_seats("none")[0]["agent"] == "test_frame_cheater"
    assert [s["agent"] for s in _tournament_seats("all")] == ["process"] * 4


def test_the_frame_cheater_entered_in_a_tournament_gains_nothing():
    """What a tournament seats for a user's module agent (isolate: auto) is a bot process: the
    frame-walking cheater, which wins every game in process, wins no more than its honest twin."""
    spec = _tournament_seats(None)[0]
    games = 8
    cheat = _frame_cheater_match(lambda: make_agent(spec["agent"], **spec["options"]), games)
    honest = _match(True, games)
    assert wilson_interval(cheat, games)[0] <= wilson_interval(honest, games)[1], (cheat, honest)
    assert cheat <= games // 3
