"""Crash-safety suite (issue 7): every bad-input probe a new user tried, each in its own
subprocess with a timeout, must end in a clean, named error (or the documented behaviour):
never a crash, a hang, a raw traceback or a silently misplayed game.

A probe is a Python snippet that prints `RESULT <what happened>` as its last line; the expected
errors are caught inside the snippet, so an uncaught exception (a traceback), a signal (a
segfault, an abort) or a timeout (a hang) fails the case.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120         # seconds; generous for a loaded machine, far below "forever"
PY = sys.executable
CLI = [PY, "-m", "v1919_env.cli"]

PRELUDE = """
import json, sys, tempfile
import numpy as np
from v1919_env.actions import IllegalActionError
from v1919_env.cards import CardDataError, load_card_set
from v1919_env.game import Game, PositionError

def result(*what):
    print("RESULT", *what)

def card_file(path, value):
    '''The shipped card set with one board value replaced, written to a temp file.'''
    raw = load_card_set().export()
    node = raw
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(raw, f)
    f.close()
    return f.name

def play_random(g, seed=0, limit=30000):
    rng = np.random.default_rng(seed)
    k = 0
    while not g.is_over and k < limit:
        acts = g.legal_actions()
        g.step(int(acts[rng.integers(len(acts))]))
        k += 1
    return k
"""


def run_probe(body: str, timeout: float = TIMEOUT):
    code = PRELUDE + "\n" + textwrap.dedent(body)
    try:
        p = subprocess.run([PY, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the probe hung (no end after {timeout} s)")
    assert p.returncode == 0, f"exit {p.returncode} (negative: killed by a signal)\n{p.stderr[-3000:]}"
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    lines = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
    assert lines, f"no RESULT line\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}"
    return lines[-1][len("RESULT "):]


def run_cli(*args, timeout: float = TIMEOUT):
    try:
        return subprocess.run(CLI + list(args), cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`v1919 {' '.join(args)}` hung")


# ----------------------------------------------------------------------------- 1. card sets
CARD_CASES = {
    "table_issues_huge": (["board", "table_issues", "value"], 1000000),
    "strategy_cards_extra_huge": (["board", "strategy_cards_extra", "value"], 1000000),
    "track_columns_text": (["board", "track_columns", "value"], "x"),
    "track_columns_float": (["board", "track_columns", "value"], 8.0),
    "influence_negative": (["board", "influence_per_player", "value"], -3),
    "military_bool": (["board", "military_per_player", "value"], True),
}


@pytest.mark.parametrize("case", sorted(CARD_CASES))
def test_a_card_set_the_kernels_cannot_hold_is_rejected(case):
    path, value = CARD_CASES[case]
    out = run_probe(f"""
        p = card_file({path!r}, {value!r})
        try:
            g = Game.new(4, seed=0, card_set=p)
            result("loaded", play_random(g))
        except CardDataError as e:
            result("CardDataError", e)
    """)
    assert out.startswith("CardDataError") and path[1] in out, out


def test_data_validate_rejects_out_of_range_board_numbers(tmp_path):
    import json

    from v1919_env.cards import load_card_set
    raw = load_card_set().export()
    raw["board"]["table_issues"]["value"] = 1000000
    f = tmp_path / "cards.json"
    f.write_text(json.dumps(raw))
    p = run_cli("data", "validate", "--cards", str(f))
    assert p.returncode == 2 and "table_issues" in p.stderr and "Traceback" not in p.stderr, p.stderr


# ----------------------------------------------------------------------------- 2. positions that hang
def test_a_zero_generator_in_a_position_is_rejected():
    out = run_probe("""
        d = Game.new(4, seed=1).to_dict()
        d["rng"] = [0, 0]
        try:
            g = Game.from_dict(d)
            result("loaded", play_random(g))
        except PositionError as e:
            result("PositionError", e)
    """)
    assert out.startswith("PositionError") and "rng" in out


def test_a_roll_off_ends_even_if_the_generator_repeats_itself():
    """The roll-off of test_uprising_details with the generator forced to zero underneath the
    position loader (every die a 1): the tie must still be broken (ruling P-14), not loop."""
    out = run_probe("""
        sys.path.insert(0, "tests")
        from helpers.scenario import events, issue_deck, regions, settle_through_step_4
        from v1919_env.core import layout as L
        slots = ["Kurdistan", "Togo", "Tyrol", "Korea", "Vietnam"]
        settled = [{"issue": "Syria", "controller": "uk", "option": "Independent"},
                   {"issue": "Arabia", "controller": "usa", "option": "Hejaz Independent"}]
        g = Game.from_dict({
            "num_players": 3, "active": "france",
            "table": [{"issue": "Kurdistan", "cubes": {"france": 2}}, {"issue": "Togo"}],
            "waiting_room": [{"issue": "Tyrol"}, {"issue": "Korea"}, {"issue": "Vietnam"}],
            "settled": settled, "issue_discards": [],
            "issue_deck": issue_deck(placed=slots + ["Syria", "Arabia"]),
            "events": events(waiting=["Take Ionescu", "Eleutherios Venizelos"], top=["Arthur Balfour"]),
            "regions": regions(middle_east=5), "forced_dice": [6],
            "strategies": {"dealt": ["14 Points", "Global Trade", "Outlawing War", "Isolationism"],
                           "draft_done": True}})
        g.state[L.RNG] = 0
        g.state[L.RNG + 1] = 0
        settle_through_step_4(g, "france", "Kurdistan", "No Kurdistan")
        result(g.decision, g.seat_name(g.current_player))
    """)
    assert out == "bid UK", out          # the first tied seat is affected and bids first


def test_a_mid_game_position_with_a_zero_generator_is_rejected_not_hung():
    out = run_probe("""
        g = Game.new(4, seed=11)
        play_random(g, limit=200)
        d = g.to_dict()
        d["rng"] = [0, 0]
        try:
            Game.from_dict(d)
            result("loaded")
        except PositionError as e:
            result("PositionError", e)
    """)
    assert out.startswith("PositionError")


# ----------------------------------------------------------------------------- 3. Gymnasium opponents
@pytest.mark.parametrize("how", ["raise", "3.5", "illegal"])
def test_a_failing_opponent_never_leaves_a_live_episode_with_the_wrong_seat(how):
    out = run_probe(f"""
        import v1919_env
        from v1919_env.envs.gymnasium_env import OpponentError
        how = {how!r}
        class Bad:
            def act(self, observation, action_mask):
                if how == "raise":
                    raise RuntimeError("boom")
                if how == "3.5":
                    return 3.5
                return int(np.flatnonzero(action_mask == 0)[0])
        env = v1919_env.gym_env(num_players=4, seat=0, opponents=[None, Bad(), Bad(), Bad()])
        for seed in range(50):
            try:
                obs, info = env.reset(seed=seed)
                break
            except OpponentError:
                assert not env.action_masks().any()
        while True:
            a = int(np.flatnonzero(obs["action_mask"])[0])
            obs, r, term, trunc, info = env.step(a)
            assert env.game.current_player in (0, -1) or trunc, "a live episode at another seat"
            if term or trunc:
                break
        try:
            env.step(a)
            result("stepped after the end")
        except RuntimeError:
            result("truncated" if trunc else "terminated", info.get("opponent_error", {{}}).get("seat"))
    """)
    assert out in ("truncated 1", "truncated 2", "truncated 3"), out


# ----------------------------------------------------------------------------- 4. non-integer values
@pytest.mark.parametrize("value", ["3.7", "'2'", "None", "True", "2.0"])
def test_game_step_with_a_non_integer(value):
    out = run_probe(f"""
        g = Game.new(4, seed=0)
        before = g.state.copy()
        try:
            g.step({value})
            result("played")
        except IllegalActionError as e:
            assert (g.state == before).all()
            result("IllegalActionError", e)
    """)
    assert out.startswith("IllegalActionError") and "integer id" in out, out


@pytest.mark.parametrize("field, value", [("num_players", "4.0"), ("negotiation", "'no'"), ("version", "1.0"),
                                          ("version", "True"), ("seed", "'7'")])
def test_position_fields_with_the_wrong_type(field, value):
    out = run_probe(f"""
        try:
            Game.from_dict({{{field!r}: {value}}})
            result("loaded")
        except PositionError as e:
            result("PositionError", e)
    """)
    assert out.startswith("PositionError") and field in out, out


# ----------------------------------------------------------------------------- 5. PettingZoo after the end
def test_pettingzoo_step_none_after_every_agent_is_done():
    out = run_probe("""
        import v1919_env
        env = v1919_env.env(num_players=4)
        env.reset(seed=3)
        for agent in env.agent_iter():
            obs, r, term, trunc, info = env.last()
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        env.step(None)
        result("done", len(env.agents))
    """)
    assert out == "done 0"


# ----------------------------------------------------------------------------- 6. the command line
@pytest.mark.parametrize("args, says", [
    (["demo", "--variant", "bogus"], "unknown variant 'bogus'"),
    (["demo", "--seed", "-1"], "--seed"),
    (["demo", "--seed", "x"], "--seed"),
    (["demo", "--players", "5"], "--players"),
    (["data", "validate", "--cards", "/nonexistent/cards.json"], "no such card-set"),
    (["demo", "--players", "1", "--faction", "xx"], "--faction"),
    (["demo", "--players", "1", "--target-vp", "0"], "--target-vp"),
    (["demo", "--players", "4", "--faction", "uk"], "a solitaire option"),
    (["play", "--agents", "random", "--target-vp", "x"], "--target-vp"),
    (["train", "/nonexistent/config.yaml"], "cannot read"),
    (["train-rllib", "/nonexistent/config.yaml"], "cannot read"),
    (["ladder", "/nonexistent/config.yaml"], "cannot read"),
    (["ladder", "configs/ladder/ladder_4p.yaml", "--bootstrap", "-1"], "--bootstrap"),
    (["tournament", "configs/tournament/quick.yaml", "--ray", "nosuch:99999"], "--ray"),
    (["play", "--agents", "guided:rollout_mix=2,random,random,random", "--no-log"], "rollout_mix must be between 0 and 1"),
    (["play", "--agents", "guided:rollout=x,random,random,random", "--no-log"], "option rollout must be one of"),
    (["play", "--agents", "guided:players=3,random,random,random", "--no-log"], "option players describes the checkpoint"),
    (["play", "--agents", "guided:bot_prior=2,random,random,random", "--no-log"], "bot_prior must be between 0 and 1"),
    (["play", "--agents", "guided:rollout_mix=1,heuristic_mix=0.5,random,random,random", "--no-log"],
     "rollout_mix + heuristic_mix must be at most 1"),
    (["serve", "--analysis", "greedy", "--db", "/tmp/v1919_crash_safety_unused.sqlite3"], "--analysis must be a search"),
    (["serve", "--analysis", "ismcts:nope=1", "--db", "/tmp/v1919_crash_safety_unused.sqlite3"], "nope"),
    (["serve", "--records", "/nonexistent/games.jsonl", "--db", "/tmp/v1919_crash_safety_unused.sqlite3"],
     "no records file"),
    (["nation-balance", "--records", "/nonexistent/games.jsonl"], "cannot read"),
    (["nation-balance", "--agents", "guided"], "--agents"),
    (["nation-balance", "--games", "0"], "--games"),
    # issue 43
    (["nation-balance", "--seed", "18446744073709551616", "--games", "8", "--players", "4", "--agents", "random"],
     "--seed"),
    (["nation-balance", "--seed", "-1", "--games", "8", "--players", "4", "--agents", "random"], "--seed"),
    (["nation-balance", "--seed", str(2 ** 63 - 1), "--games", "8", "--players", "4", "--agents", "random"],
     "pass 2**63-1"),
    (["serve", "--db", "/proc/version/x.sqlite3"], "--db /proc/version/x.sqlite3: cannot make its folder"),
    (["serve", "--db", "/proc"], "--db /proc: cannot open it as a SQLite database"),
    (["demo", "--agents", "random:,random"], "agent spec 'random:': a ':' and no options after it"),
    (["benchmark", "random:"], "agent spec 'random:': a ':' and no options after it"),
    (["play", "--agents", "random:=3,random,random,random", "--no-log"], "is not key=value"),
])
def test_cli_user_errors_are_one_line_not_a_traceback(args, says):
    p = run_cli(*args)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert says in p.stderr and "Traceback" not in p.stderr, p.stderr


@pytest.mark.parametrize("args, says", [
    (["training.exit_rounds", "/nonexistent/rounds.yaml"], "rounds.yaml"),
    (["training.exit_rounds", "configs/experiments/expert_iteration/rounds/rounds_4p_s1.yaml", "--workers", "0"], "--workers"),
    (["training.exit_rounds", "--plot", "/tmp/v1919_unused.png", "/nonexistent/run"], "no finished round"),
    (["training.exit_rounds", "BAD", "--out", "/tmp/v1919_crash_safety_unused_run"], "rounds"),
    (["training.plots", "reliability", "/nonexistent/fit.json", "/tmp/v1919_unused.png"], "no win_prediction"),
])
def test_expert_iteration_module_errors_are_one_line_not_a_traceback(args, says, tmp_path):
    if "BAD" in args:                      # a config that reads but does not validate
        bad = tmp_path / "bad.yaml"
        bad.write_text("rounds: 0\n")
        args = [str(bad) if a == "BAD" else a for a in args]
    try:
        p = subprocess.run([PY, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`python -m {' '.join(args)}` hung")
    assert p.returncode != 0 and says in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


# ----------------------------------------------------------------------------- 7. the first run says so
PROBE = "import v1919_env.core.bots as b; b.seed_policy_rng(3); print('done')"


def _probe(cache, **env):
    env = dict(os.environ, V1919_CACHE=str(cache), **env)
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run([PY, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT, env=env,
                          stdin=subprocess.DEVNULL)


def test_a_first_compile_says_so_through_logging_even_into_a_pipe_and_a_warm_start_is_silent(tmp_path):
    """Used from Python, a kernel that compiles logs a line (logger v1919_env.compile, shown on stderr by
    default); the same call with the kernel cached says nothing; V1919_COMPILE_LOG=0 turns it off."""
    cold = _probe(tmp_path / "a")
    assert cold.returncode == 0 and cold.stdout == "done\n", cold.stderr
    lines = cold.stderr.strip().splitlines()
    assert lines == ["v1919_env: compiling v1919_env.core.bots.seed_policy_rng and the kernels it calls (first use on "
                     "this machine; cached for later runs) ..."], cold.stderr
    warm = _probe(tmp_path / "a")
    assert warm.returncode == 0 and warm.stderr == ""
    off = _probe(tmp_path / "b", V1919_COMPILE_LOG="0")
    assert off.returncode == 0 and off.stderr == ""


# ----------------------------------------------------------------------------- 8. a record to replay
@pytest.mark.parametrize("solitaire, says", [
    ({"faction": "xx", "target_vp": 20}, "solitaire.faction must be one of"),
    ({"faction": None, "target_vp": 0}, "solitaire.target_vp"),
    ("oops", "solitaire must be an object with faction and target_vp"),
    ({"faction": "uk"}, "solitaire must be an object with faction and target_vp"),
])
def test_a_replay_file_with_a_bad_solitaire_field_is_a_named_error(tmp_path, solitaire, says):
    rec_path = tmp_path / "rec.jsonl"
    p = run_cli("play", "--agents", "random", "--seed", "1", "--record", str(rec_path))
    assert p.returncode == 0, p.stderr
    rec = json.loads(rec_path.read_text().splitlines()[-1])
    rec["solitaire"] = solitaire
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(rec) + "\n")
    p = run_cli("replay", str(bad))
    assert p.returncode in (1, 2), (p.returncode, p.stderr)
    assert says in p.stderr and "Traceback" not in p.stderr, p.stderr


# ----------------------------------------------------------------------------- 9. the card_set argument
def test_game_new_with_a_card_set_of_the_wrong_type_is_a_card_data_error():
    """None, a path (str or os.PathLike); anything else is a CardDataError naming the argument (the
    command line prints it as one line), never a raw TypeError from the file system."""
    out = run_probe("""
        from v1919_env.cards import STANDARD_DIR
        said = []
        for value in ({}, 5, [1], b"cards.json", load_card_set()):
            try:
                Game.new(3, card_set=value)
            except CardDataError as e:
                said.append(str(e).startswith("card_set must be a card-set path (str or os.PathLike) or None")
                            and f"got {type(value).__name__}" in str(e))
        label = Game.new(3, card_set=STANDARD_DIR).cards.label
        result(said, label == Game.new(3).cards.label)
    """)
    assert out == "[True, True, True, True, True] True"
