"""Versailles 1919 as an OpenSpiel game (v1919_env/envs/openspiel_game.py): OpenSpiel's own random
simulation test, its ISMCTS and MCTS bots over whole games, and the translation (deal, legal
actions, strings, tensors, serialization, information states, resampling), which bots and
evaluate_bots combinations play it, and the one rule of an action id at pyspiel's methods."""
import json
import signal
import subprocess
import sys
import textwrap
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from v1919_env.envs import openspiel_game as og  # noqa: E402
from v1919_env.core import layout as L  # noqa: E402
from v1919_env.core.actions import IllegalActionError  # noqa: E402
from v1919_env.core.observe import OBS_SIZE, obs_slices, observe  # noqa: E402
from v1919_env.game import Game, card_tables, variant_names  # noqa: E402
from v1919_env.rewards import terminal_rewards  # noqa: E402

VARIANTS = variant_names(card_tables(None)[0])


def load(**params):
    return pyspiel.load_game(og.SHORT_NAME, params)


def dealt(game, k=0):
    st = game.new_initial_state()
    st.apply_action(k)
    return st


def play_random(st, rng, steps=None):
    n = 0
    while not st.is_terminal() and (steps is None or n < steps):
        acts = st.legal_actions()
        st.apply_action(acts[rng.integers(len(acts))])
        n += 1
    return st


def near_the_end(game, deal, left):
    """The state `left` decisions before the end of a random game from `deal`."""
    full = play_random(dealt(game, deal), np.random.default_rng(deal))
    st = game.new_initial_state()
    for a in full.history()[:-left]:
        st.apply_action(a)
    return st


# ---------------------------------------------------------------------------- OpenSpiel's own tests
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_sim_test_passes(players, variant):
    game = load(players=players, variant=variant, negotiation=(variant == "short15"))
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_ismcts_and_mcts_bots_play_whole_games():
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.bots import uniform_random

    game = load(players=3, variant="short15")
    ev = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0), max_length=8)
    bots = [ismcts.ISMCTSBot(game, ev, 1.4, max_simulations=3, random_state=np.random.RandomState(1)),
            mcts.MCTSBot(game, 1.4, 3, ev, random_state=np.random.RandomState(2)),
            uniform_random.UniformRandomBot(2, np.random.RandomState(3))]
    for seed in (0, 1):
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert len(returns) == 3 and abs(sum(returns)) < 1e-9 and max(returns) > 0


# ---------------------------------------------------------------------------- bots and evaluate_bots
def _ismcts_bot(game, seed, upstream=False):
    """Our ISMCTSBot, or OpenSpiel's Python one as it ships, with 3 simulations a decision."""
    from open_spiel.python.algorithms import ismcts, mcts
    ev = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    cls = ismcts.ISMCTSBot if upstream else og.ISMCTSBot
    return cls(game, ev, 1.4, max_simulations=3, random_state=np.random.RandomState(seed))


def _evaluate(which, state, bots):
    from open_spiel.python.algorithms import evaluate_bots
    if which == "pyspiel":
        return pyspiel.evaluate_bots(state, bots, 0)
    return evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(0))


@pytest.mark.parametrize("which", ["pyspiel", "python"])
def test_our_ismcts_bot_and_python_mcts_bot_play_through_both_evaluate_bots(which):
    """Both evaluate_bots restart the bots at a state past the start (restart_at); ours handles it."""
    from open_spiel.python.algorithms import mcts
    game = load(players=2, variant="short15")
    st = near_the_end(game, 1, 60)
    ev = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    returns = _evaluate(which, st, [_ismcts_bot(game, 1), mcts.MCTSBot(game, 1.4, 3, ev)])
    assert st.is_terminal() and returns == st.returns() and sorted(returns) == [-1.0, 1.0]


@pytest.mark.parametrize("which", ["pyspiel", "python"])
def test_upstream_python_ismcts_bot_has_no_restart_at(which):
    """Why og.ISMCTSBot exists: OpenSpiel's Python ISMCTSBot (2.0.2) fails in Python evaluate_bots and
    in pyspiel.evaluate_bots from a state past the start (from the start, see the test above)."""
    game = load(players=2, variant="short15")
    bots = [_ismcts_bot(game, 1, upstream=True), _ismcts_bot(game, 2, upstream=True)]
    with pytest.raises(pyspiel.SpielError, match=r"RestartAt\(state\) not implemented"):
        _evaluate(which, near_the_end(game, 1, 60), bots)


def test_our_ismcts_bot_resamples_from_its_own_random_state():
    game = load(players=2, variant="short15")
    st = near_the_end(game, 2, 80)
    a, b = _ismcts_bot(game, 5), _ismcts_bot(game, 5)
    assert str(a.sample_root_state(st)) == str(b.sample_root_state(st)) != str(st)
    runs = [st.clone(), st.clone()]
    for run in runs:
        pyspiel.evaluate_bots(run, [_ismcts_bot(game, 6), _ismcts_bot(game, 7)], 0)
    assert runs[0].history() == runs[1].history()


def test_cpp_ismcts_bot_cannot_resample_a_python_game():
    """OpenSpiel 2.0.2 forwards no ResampleFromInfostate from C++ to a Python game (and does not bind
    ISMCTSBot::SetResampler), so the C++ bot stops at its first real decision."""
    game = load(players=2, variant="short15")
    bot = pyspiel.ISMCTSBot(seed=1, evaluator=pyspiel.RandomRolloutEvaluator(1, 1), uct_c=1.4, max_simulations=3)
    with pytest.raises(pyspiel.SpielError, match=r"ResampleFromInfostate\(\) not implemented"):
        pyspiel.evaluate_bots(near_the_end(game, 1, 60), [bot, bot], 0)


CPP_BOTS = {"ISMCTSBot": "pyspiel.ISMCTSBot(seed=1, evaluator=ev, uct_c=1.4, max_simulations=3)",
            "MCTSBot": "pyspiel.MCTSBot(game, ev, 1.4, 3, 100, False, 1, False)"}


@pytest.mark.parametrize("bot", sorted(CPP_BOTS))
def test_cpp_bot_step_from_python_kills_the_interpreter(bot):
    """A C++ bot's step() called from Python (as Python's evaluate_bots does) releases the GIL, then
    pyspiel calls back into the Python state without it (OpenSpiel 2.0.2): a segmentation fault."""
    code = textwrap.dedent(f"""
        import numpy as np, pyspiel
        import v1919_env.openspiel_game
        from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
        game = pyspiel.load_game("versailles1919", {{"players": 2, "variant": "short15"}})
        state = game.new_initial_state()
        state.apply_action(1)
        ev = pyspiel.RandomRolloutEvaluator(1, 1)
        bot = {CPP_BOTS[bot]}
        print("started", flush=True)
        evaluate_bots(state, [bot, bot], np.random.RandomState(0))
        print("returned", flush=True)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert proc.stdout.split() == ["started"], proc.stderr[-2000:]
    assert proc.returncode == -signal.SIGSEGV


def test_cpp_mcts_bot_plays_through_pyspiel_evaluate_bots():
    game = load(players=2, variant="short15")
    st = near_the_end(game, 3, 40)
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), 1.4, 3, 100, False, 1, False)
    returns = pyspiel.evaluate_bots(st, [bot, bot], 0)
    assert st.is_terminal() and sorted(returns) == [-1.0, 1.0]


# ---------------------------------------------------------------------------- the game
def test_registered_by_name_with_its_parameters():
    assert og.SHORT_NAME in pyspiel.registered_names()
    game = pyspiel.load_game("versailles1919(players=3,variant=long10,reward=score_margin)")
    t = game.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert t.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert load().get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 3 and game.num_distinct_actions() == 694
    assert game.max_chance_outcomes() == og.NUM_DEALS
    assert game.observation_tensor_shape() == [OBS_SIZE] == game.information_state_tensor_shape()
    assert dealt(game, 5).engine_game.state[1] == 3


@pytest.mark.parametrize("params, message", [
    ({"players": 5}, "players must be an integer in 2..4"),
    ({"variant": "nope"}, "unknown variant 'nope'"),
    ({"reward": "x"}, "reward must be one of"),
    ({"colour": 1}, "Unknown parameter 'colour'"),
    ({"negotiation": "yes"}, "Wrong type for parameter negotiation"),
    ({"card_set": "/no/such/cards.json"}, "cards.json"),
])
def test_bad_parameters_are_refused_by_name(params, message):
    with pytest.raises(Exception, match=message):
        load(**params)


def test_the_deal_is_the_game_seed_and_play_matches_the_facade():
    game = load(players=4, variant="short15")
    root = game.new_initial_state()
    assert root.is_chance_node() and not root.is_terminal() and root.legal_actions() == list(range(og.NUM_DEALS))
    outcomes = root.chance_outcomes()
    assert len(outcomes) == og.NUM_DEALS and abs(sum(p for _, p in outcomes) - 1) < 1e-9
    with pytest.raises(ValueError, match="deal outcome 70000 is out of range"):
        game.new_initial_state().apply_action(70000)
    st, g = dealt(game, 12), Game.new(4, seed=12, variant="short15")
    rng = np.random.default_rng(1)
    while not g.is_over:
        assert st.current_player() == g.current_player
        assert st.legal_actions() == sorted(g.legal_actions().tolist())
        assert all(st.legal_actions(p) == [] for p in range(4) if p != g.current_player)
        a = int(rng.choice(g.legal_actions()))
        assert st.action_to_string(a) == g.describe(a)
        st.apply_action(a)
        g.step(a)
        assert np.array_equal(st.engine_game.state, g.state)
    assert st.is_terminal() and st.returns() == terminal_rewards(g.scores())
    assert st.history()[0] == 12 and len(st.history()) == g.decisions_taken + 1


def test_reward_kinds_give_the_returns():
    for kind in ("win_loss", "rank", "score_margin"):
        st = play_random(dealt(load(players=3, variant="short15", reward=kind), 3), np.random.default_rng(0))
        assert st.returns() == terminal_rewards(st.engine_game.scores(), kind)
        assert all(-1 <= r <= 1 for r in st.returns())


def test_illegal_action_is_refused_and_changes_nothing():
    st = dealt(load(), 2)
    before, hist, info = str(st), st.history(), st.information_state_string(0)
    illegal = next(a for a in range(694) if a not in st.legal_actions())
    with pytest.raises(Exception, match="is not legal in phase 'turn'"):
        st.apply_action(illegal)
    assert str(st) == before and st.history() == hist and st.information_state_string(0) == info


NOT_ACTION_IDS = [2.0, np.float64(2), Decimal(2), Decimal("2.7"), Fraction(5, 2), True, np.bool_(True), "2", None]


class _Index:
    def __index__(self):
        return 2

    def __repr__(self):
        return "_Index()"


@pytest.mark.parametrize("value", NOT_ACTION_IDS + [_Index()], ids=repr)
def test_only_action_ids_are_taken_by_every_method(value):
    """apply_action, apply_action_with_legality_check, child and action_to_string take what
    actions.action_id takes (a deal outcome too), and refuse the rest, changing nothing."""
    game = load(players=3)
    for st in (game.new_initial_state(), dealt(game, 4)):
        before, hist = str(st), st.history()
        calls = [st.apply_action, st.apply_action_with_legality_check, st.child, st.action_to_string,
                 lambda a, s=st: s.action_to_string(s.current_player(), a)]
        for call in calls:
            with pytest.raises(IllegalActionError, match="must be an integer id"):
                call(value)
        assert str(st) == before and st.history() == hist
    with pytest.raises(IllegalActionError, match="deal outcome must be an integer id"):
        game.deal(value)


def test_integer_action_ids_are_taken():
    game = load(players=3)
    st = game.new_initial_state()
    for deal in (np.int64(4), np.uint16(4), np.array(4)):
        assert st.child(deal).history() == [4] and st.action_to_string(deal) == "deal 4 (game seed 4)"
    st.apply_action(np.array(4, np.int32))
    a = st.legal_actions()[0]
    for value in (a, np.int64(a), np.int16(a), np.array(a)):
        assert st.child(value).history() == [4, a] and st.action_to_string(value) == st.engine_game.describe(a)
    with pytest.raises(IllegalActionError, match="action id 694 is out of range 0..693"):
        st.apply_action(694)
    with pytest.raises(IllegalActionError, match="deal outcome -1 is out of range"):
        game.new_initial_state().apply_action(-1)


def test_pyspiel_hands_our_code_a_converted_int(monkeypatch):
    """What pyspiel's binding itself does (OpenSpiel 2.0.2): it refuses floats, converts anything
    with __index__ or __int__ to a C++ integer (truncating), and our _apply_action gets that int.
    So the rule is checked in the Python methods above, before the binding."""
    game = load(players=3)
    seen = []
    real = og.VersaillesState._apply_action
    monkeypatch.setattr(og.VersaillesState, "_apply_action", lambda self, a: seen.append(a) or real(self, a))
    for value in (Decimal("4.9"), Fraction(7, 2), True, _Index()):
        pyspiel.State.apply_action(game.new_initial_state(), value)
    assert seen == [4, 3, 1, 2] and all(type(a) is int for a in seen)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        pyspiel.State.apply_action(game.new_initial_state(), 2.0)


def test_apply_actions_and_actions_before_the_deal_are_refused_by_name():
    game = load(players=3)
    st = dealt(game, 4)
    a = st.legal_actions()[0]
    for call in (st.apply_actions, st.apply_actions_with_legality_checks):
        with pytest.raises(IllegalActionError, match="sequential game: apply_actions"):
            call([a])
    assert st.history() == [4]
    with pytest.raises(IllegalActionError, match="before the deal only the chance player"):
        game.new_initial_state().action_to_string(0, a)


def test_action_strings_name_distinct_actions():
    st = dealt(load(players=3), 4)
    rng = np.random.default_rng(2)
    while not st.is_terminal():
        acts = st.legal_actions()
        names = [st.action_to_string(a) for a in acts]
        assert len(set(names)) == len(names), names
        st.apply_action(acts[rng.integers(len(acts))])


# ---------------------------------------------------------------------------- observations, information states
def test_observation_tensor_is_the_seats_observation():
    st = play_random(dealt(load(players=4), 6), np.random.default_rng(3), steps=40)
    g = st.engine_game
    mine = obs_slices()["my_nation"]
    for p in range(4):
        want = np.zeros(OBS_SIZE, np.float32)
        observe(g.state, g.T, p, want)
        got = np.asarray(st.observation_tensor(p), np.float32)
        assert np.array_equal(got, want)
        assert np.array_equal(np.asarray(st.information_state_tensor(p), np.float32), want)
        assert got[mine[0] + p] == 1.0                      # seen from seat p
        assert st.observation_string(p).startswith(f"Observer: {g.seat_name(p)} (seat {p})\n")
        assert "Issue deck: " in st.observation_string(p)
    from open_spiel.python.observation import make_observation
    obs = make_observation(st.get_game(), pyspiel.IIGObservationType(perfect_recall=False))
    obs.set_from(st, 1)
    assert set(obs.dict) == set(obs_slices()) and obs.tensor.shape == (OBS_SIZE,)
    private = make_observation(st.get_game(), pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    private.set_from(st, 1)
    assert private.tensor.size == 0 and private.string_from(st, 1) == ""


def test_hidden_information_stays_out_of_observations_and_information_states():
    st = play_random(dealt(load(players=4), 7), np.random.default_rng(4), steps=60)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    other = st.resample_from_infostate(st.current_player(), sampler)
    a, b = st.engine_game, other.engine_game
    assert not np.array_equal(a.state, b.state)             # the decks and the generator were resampled
    for p in range(4):
        assert st.information_state_string(p) == other.information_state_string(p)
        assert st.observation_string(p) == other.observation_string(p)
        assert st.observation_tensor(p) == other.observation_tensor(p)
    assert st.legal_actions() == other.legal_actions() and st.history() == other.history()
    assert str(st) != str(other)                            # ToString is the whole state, hidden part too


def test_information_state_is_the_public_history():
    """Two resampled worlds played with the same actions keep equal information states exactly as
    long as every seat saw the same; different actions give different information states."""
    st = play_random(dealt(load(players=3), 8), np.random.default_rng(5), steps=30)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    rng = np.random.default_rng(6)
    diverged = 0
    for _ in range(6):
        x, y = (st.resample_from_infostate(0, sampler) for _ in range(2))
        while not x.is_terminal() and not y.is_terminal() and x.legal_actions() == y.legal_actions():
            same_obs = all(x.observation_tensor(p) == y.observation_tensor(p) for p in range(3))
            same_info = x.information_state_string(0) == y.information_state_string(0)
            if not same_obs:
                assert not same_info
                diverged += 1
                break
            assert same_info
            acts = x.legal_actions()
            a = acts[rng.integers(len(acts))]
            x.apply_action(a)
            y.apply_action(a)
    assert diverged > 0
    acts = st.legal_actions()
    c1, c2 = st.child(acts[0]), st.child(acts[-1])
    assert c1.information_state_string(0) != c2.information_state_string(0)
    assert c1.information_state_string(0) != c1.information_state_string(1)     # names the player


def test_clone_and_serialization_round_trip_through_positions():
    game = load(players=4, variant="longest")
    st = play_random(dealt(game, 9), np.random.default_rng(7), steps=100)
    for s in (game.new_initial_state(), dealt(game, 9), st, play_random(st.clone(), np.random.default_rng(8))):
        for copy in (s.clone(), game.deserialize_state(s.serialize())):
            assert str(copy) == str(s) and copy.history() == s.history()
            assert copy.information_state_string(0) == s.information_state_string(0)
            if s.engine_game is not None:
                assert np.array_equal(copy.engine_game.state, s.engine_game.state)
    payload = json.loads(og._Engine.__reduce__(st._eng)[1][0])
    assert payload["position"] == st.engine_game.to_dict()
    payload["state"][L.HAPPY] += 1                                  # UK's happiness, not as the position says
    with pytest.raises(ValueError, match="does not match its position"):
        og._engine_from_json(json.dumps(payload))
    g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, st))
    assert str(g2) == str(game) and str(s2) == str(st)


def test_custom_card_set_plays_and_serializes(tmp_path):
    from v1919_env.cards import load_card_set
    raw = load_card_set(None).export()
    raw["card_set"]["name"] = "my-cards"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(raw))
    game = load(players=3, card_set=str(path))
    st = play_random(dealt(game, 1), np.random.default_rng(9), steps=50)
    assert st.engine_game.cards.label.startswith("my-cards@")
    back = game.deserialize_state(st.serialize())
    assert np.array_equal(back.engine_game.state, st.engine_game.state) and str(back) == str(st)


def test_state_from_game_continues_a_position():
    game = load(players=3)
    g = Game.new(3, seed=21)
    for _ in range(25):
        g.step(g.legal_actions()[-1])
    st = game.state_from_game(g)
    assert st.legal_actions() == sorted(g.legal_actions().tolist()) and st.engine_game is not g
    assert np.array_equal(st.engine_game.state, g.state)
    with pytest.raises(ValueError, match="has 4 players"):
        load(players=3).state_from_game(Game.new(4, seed=1))


# ---------------------------------------------------------------------------- the comparison script
def _compare_tool():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "tools" / "openspiel_compare.py"
    spec = importlib.util.spec_from_file_location("openspiel_compare", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_comparison_seats_rotate_and_swap():
    tool = _compare_tool()
    seats = [tool.seating(i) for i in range(24)]
    assert all(a != b and 0 <= a < 4 and 0 <= b < 4 for a, b in seats)
    assert all(seats[2 * j + 1] == seats[2 * j][::-1] for j in range(12))      # same deal, seats swapped
    assert sorted(seats[0::2]) == sorted((a, b) for a in range(4) for b in range(4) if a != b)


def test_comparison_summary_splits_shared_wins():
    tool = _compare_tool()
    ours, theirs, rb = tool.LABELS
    seats = [{"label": ours}, {"label": theirs}, {"label": rb}, {"label": rb}]
    recs = [{"seats": seats, "result": {"winners": [0], "forfeit": None}, "search_seconds": {ours: [0.1, 0.3]}},
            {"seats": seats, "result": {"winners": [0, 1], "forfeit": None}, "search_seconds": {theirs: [0.2]}}]
    s = tool.summary(recs)
    assert s["agents"][ours]["win_rate"] == 0.75 and s["agents"][theirs]["win_rate"] == 0.25
    assert s["agents"][rb]["win_rate"] == 0.0 and s["agents"][rb]["seats"] == 4
    assert abs(s["agents"][ours]["mean_ms_per_searched_decision"] - 200.0) < 1e-9
    lo, hi = s["agents"][ours]["ci95"]
    assert 0 < lo < 0.75 < hi <= 1
    assert "OpenSpiel ISMCTSBot" in tool.format_summary(s, 100)


def test_timed_openspiel_bot_stops_at_its_budget():
    tool = _compare_tool()
    game = load(players=4)
    st = play_random(dealt(game, 11), np.random.default_rng(10), steps=20)
    while len(st.legal_actions()) < 2:
        st.apply_action(st.legal_actions()[0])
    bot = tool.timed_ismcts_bot(game, seconds=0.0, seed=1, explore=0.7)
    assert bot.step(st) in st.legal_actions()
    assert bot._started == 2                  # out of time at once: the two simulations it needs
