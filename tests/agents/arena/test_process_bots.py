"""Bots as processes (issue 33, docs/protocol.md): every protocol message checked, the failures of a
bot (crash, hang, flood, garbage, illegal, limits) each forfeiting its game with the reason recorded
and no process left, the reference Python client playing any agent out of process move for move as
in process, the C example bot built and played when a compiler is here, and tournaments of bot
commands."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from agents.base import AgentError, make_agent
from agents.arena.clock import TimeControl
from agents.arena.play import run_game, seat_spec
from agents.arena.process import protocol as P
from agents.arena.process.bot import ProcessAgent
from agents.arena.tournament import ConfigError, load_config, play_games, report
from v1919_env.core import layout as L
from v1919_env.game import Game

ROOT = Path(__file__).resolve().parents[3]
SCRIPTED = str(ROOT / "tests" / "helpers" / "scripted_bot.py")
PY = sys.executable
CLIENT = [PY, "-m", "agents.arena.process.client"]


def scripted(mode: str, at: int = 2, **kw) -> ProcessAgent:
    return make_agent("process", cmd=[PY, SCRIPTED, mode, str(at)], **kw)


def play(bot, seed: int = 2, clocks=None):
    agents = [bot] + [make_agent("random") for _ in range(3)]
    specs = [seat_spec("process", {"cmd": "bot"}, label="bot")] + [seat_spec("random", label=f"r{k}") for k in range(3)]
    t0 = time.perf_counter()
    rec = run_game(agents, specs, num_players=4, seed=seed, clocks=clocks)
    return rec, time.perf_counter() - t0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:          # a zombie is not alive
        return fh.read().split()[2] != "Z"


# ----------------------------------------------------------------------------- the messages
@pytest.mark.parametrize("line, expected, error", [
    (b"\xff\xfe{}", "action", "not UTF-8"),
    (b"   ", "action", "empty line"),
    (b"action 12", "action", "not JSON"),
    (b'{"type": "action", "id": NaN}', "action", "not JSON"),
    (b"[1, 2]", "action", "not an object"),
    (b'{"id": 12}', "action", "no string field 'type'"),
    (b'{"type": 7}', "action", "no string field 'type'"),
    (b'{"type": "ready"}', "action", "sent a 'ready' message where the protocol expects 'action'"),
    (b'{"type": "action"}', "action", "lacks the field 'id'"),
    (b'{"type": "action", "id": "12"}', "action", "id='12'; it must be an integer"),
    (b'{"type": "action", "id": true}', "action", "id=True; it must be an integer"),
    (b'{"type": "action", "id": 1.5}', "action", "it must be an integer"),
    (b'{"type": "hello", "protocol": "uci", "version": 1, "name": "x"}', "hello", "names protocol 'uci'"),
    (b'{"type": "hello", "protocol": "v1919-bot", "name": "x"}', "hello", "lacks the field 'version'"),
    (b'{"type": "hello", "protocol": "v1919-bot", "version": 2, "name": "x"}', "hello",
     "speaks protocol version 2; this arena speaks version 1"),
    (b'{"type": "hello", "protocol": "v1919-bot", "version": 1}', "hello", "lacks the field 'name'"),
    (b'{"type": "hello", "protocol": "v1919-bot", "version": 1, "name": 5}', "hello", "name=5"),
    (b'{"type": "hello", "protocol": "v1919-bot", "version": 1, "name": "x", "omit": ["legal"]}', "hello",
     "asks to omit ['legal']"),
    (b'{"type": "hello", "protocol": "v1919-bot", "version": 1, "name": "x", "options": []}', "hello",
     "options=[]"),
])
def test_every_malformed_message_has_its_own_error(line, expected, error):
    with pytest.raises(P.ProtocolError, match=None) as e:
        P.check_reply(line, expected)
    assert error in str(e.value)


def test_the_good_messages_pass():
    assert P.check_reply(b'{"type": "action", "id": 12}\n', "action") == {"type": "action", "id": 12}
    assert P.check_reply('{"type": "info", "text": "depth 3"}', "action")["type"] == "info"
    h = P.check_reply(json.dumps({"type": "hello", "protocol": "v1919-bot", "version": 1, "name": "b",
                                  "bot_version": "2", "options": {"level": 3}, "omit": ["observation"]}), "hello")
    assert h["name"] == "b"
    assert P.encode({"type": "quit"}) == b'{"type":"quit"}\n'


def test_the_decide_message_holds_the_information_set_only():
    g = Game.new(4, seed=4)
    copy = g.information_set(0, 99)
    obs = np.zeros(3, np.float32)
    msg = P.decide(step=0, seat=0, game=copy, observation=obs, legal_ids=g.legal_actions(), time_left=None)
    assert msg["legal"] == [int(a) for a in g.legal_actions()] and len(msg["names"]) == len(msg["legal"])
    assert msg["names"][0] == g.describe(int(g.legal_actions()[0]))
    assert Game.from_dict(msg["position"]) == copy                  # the position is the copy's, readable
    real = g.state[L.ISSUE_DECK:L.ISSUE_DECK + g.state[L.ISSUE_DECK_N]].tolist()
    assert Game.from_dict(msg["position"]).state[L.ISSUE_DECK:L.ISSUE_DECK + g.state[L.ISSUE_DECK_N]].tolist() != real
    small = P.decide(step=0, seat=0, game=copy, observation=obs, legal_ids=g.legal_actions(), time_left=None,
                     omit=("observation", "position", "names"))
    assert set(small) == {"type", "step", "seat", "acting_for", "decision", "legal", "time"}


def test_a_bot_hears_every_message_of_a_game(tmp_path, monkeypatch):
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("SCRIPTED_BOT_LOG", str(log))
    bot = scripted("record", sandbox="none")       # a bot we trust: it writes its log where the test reads it
    rec, _ = play(bot, clocks=[TimeControl(base_ms=600_000, increment_ms=5)] + [None] * 3)
    assert rec["result"]["forfeit"] is None
    msgs = [json.loads(x) for x in log.read_text().splitlines()]
    kinds = [m["type"] for m in msgs]
    assert kinds[:2] == ["hello", "new_game"] and kinds[-2:] == ["game_over", "quit"]
    assert kinds.count("decide") == rec["timing"]["decisions"][0]
    hello, new, first = msgs[0], msgs[1], msgs[2]
    assert hello["protocol"] == "v1919-bot" and hello["version"] == 1 and hello["options"] == {}
    assert new["seat"] == 0 and new["players"] == ["uk", "france", "usa", "italy"] and new["clock"]["base_ms"] == 600000
    assert set(first) >= {"observation", "legal", "names", "position", "time", "decision", "step"}
    assert first["time"]["game_ms"] == 600_005 and first["time"]["allowed_ms"] == 600_005
    assert msgs[-2]["ranks"] == rec["result"]["ranks"] and msgs[-2]["seat"] == 0
    assert bot.proc is None


# ----------------------------------------------------------------------------- failures forfeit
@pytest.mark.parametrize("mode, kw, reason", [
    ("crash", {}, "the bot process exited (exit code 3) while the arena waited for its action"),
    ("hang", {"reply_timeout_s": 0.5}, "the bot did not answer in time"),
    ("flood", {"max_line_kb": 1024}, "the bot flooded its output: more than 1048576 bytes without a newline"),
    ("chatter", {}, "more than 1000 info lines"),
    ("bigchatter", {}, "the bot flooded its output: more than 1048576 bytes of info lines"),
    ("deep", {}, "protocol error: the bot sent JSON nested more than 32 levels deep"),
    ("garbage", {}, "protocol error: the bot sent a line that is not JSON"),
    ("string", {}, "protocol error: the bot's 'action' message has id='"),
    ("illegal", {}, "returned action -1, outside 0..693"),
    ("memory", {"memory_mb": 200}, ("killed by SIGKILL (its memory limit, all its processes together)",
                                     "the bot process exited (exit code 1)")),   # a control group, or RLIMIT_AS
    ("cpu", {"cpu_s": 1}, ("in this game, all its processes together (its limit cpu_s is 1)",
                           "was killed by SIGXCPU (its CPU limit)")),
    ("version", {}, "protocol error: the bot speaks protocol version 99"),
    ("slowstart", {"start_timeout_s": 0.5}, "the bot did not answer in time: it was waited for its hello"),
])
def test_a_failing_bot_forfeits_its_game_with_the_reason(mode, kw, reason):
    bot = scripted(mode, **kw)
    rec, seconds = play(bot)
    f = rec["result"]["forfeit"]
    assert f is not None and f["seat"] == 0, rec["result"]
    assert any(r in f["reason"] for r in ((reason,) if isinstance(reason, str) else reason)), f["reason"]
    assert f["step"] == (0 if mode in ("version", "slowstart") else f["step"])
    assert seconds < 20 and bot.proc is None
    if mode == "crash":
        assert "its stderr ends: 'boom'" in f["reason"]
    if mode == "memory" and "exit code 1" in f["reason"]:
        assert "MemoryError" in f["reason"]


def test_no_bot_process_outlives_its_game():
    bot = scripted("hang", reply_timeout_s=0.3)
    pids = []
    orig = bot.reset

    def reset(seed=None):
        orig(seed)
        pids.append(bot.proc.pid)

    bot.reset = reset
    play(bot)
    play(scripted("ok"))
    time.sleep(0.2)
    assert pids and not any(_alive(p) for p in pids)


def test_a_hung_bot_on_a_clock_forfeits_in_its_time():
    bot = scripted("hang")
    rec, seconds = play(bot, clocks=[TimeControl(move_ms=200, grace_ms=1000)] + [None] * 3)
    assert rec["result"]["forfeit"]["reason"] == "did not answer within 200 ms (its time) + 1000 ms (the grace): hung"
    assert rec["timing"]["clock"]["hung"] == 0 and seconds < 10 and bot.proc is None


def test_a_process_bot_on_a_clock_is_judged_as_any_agent():
    """The clock's policy holds for a bot process exactly as in process (issue 41): past its time but
    within the grace, an overrun replaced by the fallback move, counted in the record."""
    clock = TimeControl(move_ms=200, grace_ms=2000, overrun="fallback", fallback="first")
    rec, _ = play(scripted("slow", at=1), clocks=[clock] + [None] * 3)
    assert rec["result"]["forfeit"] is None
    (over,) = rec["timing"]["clock"]["overruns"]
    assert over["seat"] == 0 and over["ms"] >= 600 and "fallback" in over


def test_a_process_bots_own_cpu_is_counted():
    from agents.arena.process.sandbox import ControlGroup

    probe = ControlGroup.make(None, None)
    if probe is None:
        pytest.skip("the arena cannot make a control group here (not root?): nothing counts the bot's CPU")
    probe.remove()
    rec, _ = play(scripted("burn", at=1))
    assert rec["timing"]["cpu_seconds"][0] >= 0.38            # its 0.4 s, not only the arena's side


def test_a_bad_command_is_refused_up_front():
    with pytest.raises(AgentError, match="not an executable"):
        make_agent("process", cmd="./no-such-bot --level 3")
    with pytest.raises(AgentError, match="cmd is empty"):
        make_agent("process", cmd="  ")


# ----------------------------------------------------------------------------- the reference client
@pytest.mark.parametrize("spec", ["rulebot", "greedy"])
def test_the_python_client_plays_an_agent_out_of_process_move_for_move(spec):
    proc = make_agent("process", cmd=CLIENT + [spec])
    specs = [seat_spec(spec, label="x")] + [seat_spec("rulebot", label=f"r{k}") for k in range(3)]
    out = run_game([proc] + [make_agent("rulebot") for _ in range(3)], specs, num_players=4, seed=6)
    inp = run_game([make_agent(spec)] + [make_agent("rulebot") for _ in range(3)], specs, num_players=4, seed=6)
    assert out["result"]["forfeit"] is None and out["actions"] == inp["actions"]
    assert proc.bot_hello["name"] == spec


def _c_bot(tmp_path: Path) -> str:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc) here: the C example bot is not built")
    exe = tmp_path / "example_bot"
    subprocess.run([cc, "-O2", "-Wall", "-Werror", "-o", str(exe), str(ROOT / "agents/arena/process/example_bot.c")],
                   check=True, timeout=120)
    return str(exe)


def test_the_c_example_bot_builds_and_plays(tmp_path):
    exe = _c_bot(tmp_path)
    rec, _ = play(make_agent("process", cmd=exe))
    assert rec["result"]["forfeit"] is None and rec["timing"]["decisions"][0] > 20


# ----------------------------------------------------------------------------- tournaments
def _write(tmp_path, cfg) -> str:
    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return str(p)


def test_a_tournament_of_bot_commands_records_each_bots_failures_and_goes_on(tmp_path):
    exe = _c_bot(tmp_path)
    cfg = {"name": "procs", "num_players": 4, "games": 4, "seed": 3, "workers": 1,
           "agents": [{"cmd": f"{PY} -m agents.arena.process.client rulebot", "label": "py-rulebot"},
                      {"cmd": exe, "label": "c-bot", "memory_mb": 64, "cpu_s": 60},
                      {"cmd": f"{PY} {SCRIPTED} crash 5", "label": "crasher"},
                      "random"]}
    c = load_config(_write(tmp_path, cfg))
    assert c.agents[1] == {"label": "c-bot", "agent": "process",
                           "options": {"cmd": exe, "memory_mb": 64, "cpu_s": 60}}
    run = play_games(c, tmp_path / "out", progress=False)
    assert run["played"] == 4 and not run["failed"]
    recs = [json.loads(x) for x in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    for r in recs:
        f = r["result"]["forfeit"]
        assert f["label"] == "crasher" and "exit code 3" in f["reason"] and f["step"] > 0
    rows = {row["agent"]: row for row in report(c, tmp_path / "out")}
    assert rows["crasher"]["forfeits"] == 4 and rows["c-bot"]["forfeits"] == 0
    # a worker process hands the bots their new_game (seat, seed) as this process does: the same games
    # (the deals are secret, a seat being a bot process: the same key, copied, deals them again)
    (tmp_path / "here").mkdir()
    shutil.copy(tmp_path / "out" / "deal.key", tmp_path / "here" / "deal.key")
    play_games(c, tmp_path / "here", workers=0, progress=False)
    here = {json.loads(x)["game"]: json.loads(x)["actions"] for x in (tmp_path / "here" / "games.jsonl").open()}
    assert {r["game"]: r["actions"] for r in recs} == here


def test_bot_command_entries_are_checked(tmp_path):
    base = {"name": "c", "num_players": 4, "games": 4, "agents": ["random", "rulebot", "greedy", "random:seed=1"]}
    for entry, err in [({"cmd": "./nope"}, r"agents\[3\]\.cmd: './nope' is not an executable"),
                       ({"cmd": "x", "name": "random"}, r"agents\[3\]\.cmd: give either name"),
                       ({"name": "random", "memory_mb": 100}, r"agents\[3\]\.memory_mb: limits apply"),
                       ({"cmd": PY, "memory_mb": 1}, r"agents\[3\]\.memory_mb")]:
        with pytest.raises(ConfigError, match=err):
            load_config(_write(tmp_path, {**base, "agents": base["agents"][:3] + [entry]}))


def test_the_protocol_doc_names_every_decision_value():
    import re

    from v1919_env.core.layout import DECISION_NAMES

    text = (ROOT / "docs" / "protocol.md").read_text()
    para = text[text.index("- `decision`: what is being decided"):text.index("- `legal`:")]
    listed = re.findall(r"`([a-z_0-9]+)`", para.split("(the engine's kinds")[0])
    assert sorted(listed[1:]) == sorted(v for v in DECISION_NAMES.values() if v != "none")   # [0]: `decision`
