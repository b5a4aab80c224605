"""The bot sandbox (issue 41, agents/arena/process/sandbox.py): a cheating bot process reaches nothing of the
arena's (its processes, folders, records, shared memory, environment, network, the project's source),
and everything it starts is bounded (memory, processes, disk, CPU, all its processes together) and
gone when its game ends, when the arena's worker dies and when the arena is stopped."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from agents.base import AgentError, make_agent
from agents.arena.play import run_game, seat_spec
from agents.arena.process import sandbox as SB

ROOT = Path(__file__).resolve().parents[3]
CHEATER = ROOT / "tests" / "helpers" / "cheater_bot.py"
MARKER = "v1919-cheater-marker"
WHY = SB.check()
needs_sandbox = pytest.mark.skipif(WHY is not None, reason=f"this host cannot sandbox: {WHY}")
pytestmark = pytest.mark.xdist_group("sandbox")   # counts the cheater's processes machine-wide: one worker


def cheater(mode: str, *args: str, **kw):
    return make_agent("process", cmd=[sys.executable, str(CHEATER), mode, *args], **kw)


def marked() -> list[int]:
    """Host processes whose command line holds the cheater's marker."""
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/cmdline", "rb") as fh:
                    if MARKER.encode() in fh.read():
                        with open(f"/proc/{p}/stat") as st:
                            if st.read().split()[2] != "Z":
                                out.append(int(p))
            except OSError:
                pass
    return out


def gone_within(seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while marked():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def play(bot, seed: int = 3):
    agents = [bot] + [make_agent("random") for _ in range(3)]
    specs = [seat_spec("process", {"cmd": "bot"}, label="bot")] + [seat_spec("random", label=f"r{k}") for k in range(3)]
    return run_game(agents, specs, num_players=4, seed=seed)


@needs_sandbox
def test_a_bot_reaches_nothing_of_the_arena(tmp_path, monkeypatch):
    # The bot's own folder holds the arena's tournament folder (masked) beside the bot's program.
    home = tmp_path / "bot"
    home.mkdir()
    shutil.copy(CHEATER, home / "cheater_bot.py")
    tour = home / "tournament"
    tour.mkdir()
    (tour / "config.yaml").write_text("seed: 12345\n")
    (tour / "games.jsonl").write_text('{"game": 0}\n')
    source = ROOT / "agents" / "arena" / "play.py"
    before = source.read_bytes()
    monkeypatch.setenv("ARENA_SECRET", "s3cret")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    SB.set_private([tour])
    try:
        bot = make_agent("process", cmd=[sys.executable, str(home / "cheater_bot.py"), "look", str(tour),
                                         str(tour / "games.jsonl"), str(source), "/dev/shm", f"port={port}"])
        rec = play(bot)
    finally:
        SB.set_private([])
        server.close()
    found = bot.bot_hello["options"]
    assert rec["result"]["forfeit"] is None
    assert found["pids"] <= 3 and not any("pytest" in c or "python -m" in c for c in found["others"]), found
    # its parent is the sandbox's own init (bubblewrap's): pipes, no file or shared memory of the arena's
    assert not [fd for fd in found["parent_fds"]           # (its stderr file: a deleted file of the arena's)
                if fd.startswith("/") and fd != "/dev/null" and not fd.endswith("(deleted)")], found["parent_fds"]
    assert found["shm"] == []
    assert "ARENA_SECRET" not in found["env"] and set(found["env"]) <= {
        "PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "OMP_NUM_THREADS",
        "V1919_CACHE", "LC_CTYPE", "PWD"}, found["env"]
    readable = [r.split(":")[0] for r in found["read"]]
    assert str(tour) not in readable and str(tour / "games.jsonl") not in readable     # masked: empty, no files
    assert str(source) in readable                       # the project's packages are readable, for the client
    assert found["wrote"] == ["/dev/shm/cheat.txt"]       # its own /dev, in its sandbox; nothing of the host's:
    assert source.read_bytes() == before and not (tour / "cheat.txt").exists()
    assert (tour / "games.jsonl").read_text() == '{"game": 0}\n'
    assert found["network"] is False and found["internet"] is False


@needs_sandbox
def test_every_process_of_a_bot_ends_with_its_game():
    bot = cheater("spawn")
    rec = play(bot)
    assert rec["result"]["forfeit"] is None and bot.proc is None
    assert gone_within(1.0), marked()


@needs_sandbox
def test_processes_are_gone_when_the_bot_forfeits():
    bot = cheater("spawn", reply_timeout_s=60.0)
    bot.reset(1)
    try:
        deadline = time.monotonic() + 10                  # (a child forked but not yet exec'd shows no marker)
        while len(marked()) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(marked()) == 4                         # 3 children and a setsid grandchild, as the host sees them
    finally:
        bot.abort()
    assert gone_within(1.0), marked()


@needs_sandbox
def test_memory_is_bounded_for_all_the_bots_processes_together():
    bot = cheater("memory", memory_mb=400)
    bot.reset(1)
    try:
        peak = bot.cgroup.memory_peak_mb() if bot.cgroup is not None and "memory" in bot.cgroup.bounds else None
        if peak is None:
            pytest.skip("no control group bounds memory here")
        assert peak <= 400 + 1, peak                  # 4 x 150 MiB asked for: the kernel killed some
        assert len(marked()) < 4
    finally:
        bot.abort()
    assert gone_within(1.0)


@needs_sandbox
def test_disk_and_process_count_are_bounded():
    disk = cheater("disk", disk_mb=32)
    disk.reset(1)
    disk.abort()
    assert disk.bot_hello["options"]["disk_mb"] <= 32
    bomb = cheater("forkbomb", max_procs=20)
    bomb.reset(1)
    try:
        if bomb.cgroup is None or "pids" not in bomb.cgroup.bounds:
            pytest.skip("no control group bounds the processes here")
        assert bomb.bot_hello["options"]["forks"] < 20
    finally:
        bomb.abort()
    assert gone_within(1.0)


@needs_sandbox
def test_cpu_time_is_counted_for_all_the_bots_processes():
    bot = cheater("cpu", cpu_s=2)
    t0 = time.monotonic()
    rec = play(bot)
    f = rec["result"]["forfeit"]
    if bot.cgroup is None and f is None:
        pytest.skip("no control group counts CPU here")
    assert f is not None and "all its processes together (its limit cpu_s is 2)" in f["reason"], f
    assert time.monotonic() - t0 < 30
    assert gone_within(1.0)


@needs_sandbox
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_arena_leaves_no_bot_process(tmp_path, how):
    cfg = {"num_players": 4, "games": 4, "seed": 1, "workers": 1,
           "agents": [{"cmd": f"{sys.executable} {CHEATER} spawnhang", "label": "cheater"}, "random",
                      {"name": "random", "label": "random-2"}, {"name": "random", "label": "random-3"}]}
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(cfg))
    arena = subprocess.Popen([sys.executable, "-m", "v1919_env.cli", "tournament", str(tmp_path / "t.yaml"), "--out",
                              str(tmp_path / "out")], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    deadline = time.monotonic() + 60
    while len(marked()) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(marked()) >= 4, arena.stderr.read() if arena.poll() is not None else "no bot started"
    if how == signal.SIGKILL:
        os.killpg(arena.pid, how)                  # the arena and its workers die at once
    else:
        arena.send_signal(how)
    arena.wait(timeout=30)
    assert gone_within(1.5), marked()


def test_strict_refuses_where_the_host_cannot_sandbox(monkeypatch, caplog):
    monkeypatch.setattr(SB, "check", lambda: "bubblewrap (bwrap) is not installed")
    with pytest.raises(AgentError, match="sandbox: strict, but bubblewrap"):
        cheater("look", sandbox="strict")
    bot = cheater("look")                              # auto: says so once, and plays with per-process limits
    monkeypatch.setattr(SB, "_warned", set())
    rec = play(bot)
    play(cheater("look"))
    assert rec["result"]["forfeit"] is None
    said = [r for r in caplog.records if "bot processes run without a sandbox: bubblewrap" in r.getMessage()]
    assert len(said) == 1 and said[0].levelname == "WARNING"
    with pytest.raises(AgentError, match="option sandbox must be one of auto, strict, none"):
        cheater("look", sandbox="maybe")


# ---------------------------------------------------------------------------------------- secret deals
SCRIPTED = ROOT / "tests" / "helpers" / "scripted_bot.py"


def _tournament(**over):
    from agents.arena.tournament import config_from_dict

    d = {"name": "deals", "num_players": 4, "games": 4, "seed": 0, "workers": 0,
         "agents": [{"cmd": f"{sys.executable} {SCRIPTED} ok", "label": "bot"}, "random",
                    {"name": "random", "label": "random-2"}, {"name": "random", "label": "random-3"}]}
    d.update(over)
    return config_from_dict(d)


def test_secret_deals_cannot_be_derived_and_a_resumed_run_deals_the_same_games(tmp_path):
    from agents.arena.tournament import finished_games, play_games
    from agents.arena.tournament.runner import GAMES_FILE, KEY_FILE
    from agents.arena.tournament.worker import game_seeds

    cfg = _tournament()
    assert cfg.secret_deals and cfg.defining()["deals"] == "secret"      # auto: a seat is a bot process
    play_games(cfg, tmp_path / "a", progress=False)
    play_games(cfg, tmp_path / "b", progress=False)
    a = sorted(finished_games(cfg, tmp_path / "a"), key=lambda r: r["game"])
    b = sorted(finished_games(cfg, tmp_path / "b"), key=lambda r: r["game"])
    public = [game_seeds(0, k, 4)[0] for k in range(4)]
    assert [r["seed"] for r in a] != [r["seed"] for r in b]              # each folder its own key
    assert not {r["seed"] for r in a} & set(public)                      # not the config's derivation
    assert oct((tmp_path / "a" / KEY_FILE).stat().st_mode & 0o777) == "0o600"
    lines = (tmp_path / "a" / GAMES_FILE).read_text().splitlines()
    (tmp_path / "a" / GAMES_FILE).write_text("\n".join(lines[:2]) + "\n")      # two games lost: resume
    play_games(cfg, tmp_path / "a", progress=False)
    again = sorted(finished_games(cfg, tmp_path / "a"), key=lambda r: r["game"])
    assert [(r["seed"], r["actions"]) for r in again] == [(r["seed"], r["actions"]) for r in a]


def test_seeded_deals_are_the_configs_alone():
    from agents.arena.tournament.worker import game_seeds, make_job

    cfg = _tournament(deals="seeded")
    assert not cfg.secret_deals and "deals" not in cfg.defining()
    assert make_job(cfg, 3)["seed"] == game_seeds(0, 3, 4)[0]
    trusted = _tournament(agents=["random", {"name": "random", "label": "r2"}, {"name": "random", "label": "r3"},
                                  "rulebot"])
    assert not trusted.secret_deals             # auto: no bot process, no one to hide the deals from


# ---------------------------------------------------------------------------------------- records
def test_the_report_counts_no_record_that_is_not_the_dealt_game_replayed(tmp_path):
    """Issue 41's record rewriter: a games.jsonl edited after the games (a result flipped, a game's
    deal swapped for another) changes no figure; the report lists what it did not count."""
    import json

    from agents.arena.tournament import play_games, report
    from agents.arena.tournament.runner import GAMES_FILE

    cfg = _tournament(games=8)
    play_games(cfg, tmp_path, progress=False)
    path = tmp_path / GAMES_FILE
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    honest = {r["agent"]: r["wins"] for r in report(cfg, tmp_path)}
    bot_seat = {r["game"]: [s["label"] for s in r["seats"]].index("bot") for r in recs}
    by_game = {r["game"]: r for r in recs}
    flipped = by_game[1]
    flipped["result"]["winners"] = [bot_seat[1]]                     # the bot "won"
    flipped["result"]["ranks"] = [1 if p == bot_seat[1] else 2 for p in range(4)]
    flipped.pop("digest", None)                                       # and it hid the edit from the digest
    by_game[2]["seed"] = by_game[3]["seed"]                           # another game's deal
    path.write_text("".join(json.dumps(by_game[k]) + "\n" for k in sorted(by_game)))
    rows = {r["agent"]: r for r in report(cfg, tmp_path)}
    md = (tmp_path / "results.md").read_text()
    assert "## Games not counted" in md and "- game 1: " in md and "- game 2: seed" in md
    assert sum(r["games"] for r in rows.values()) == 4 * 6             # 6 of 8 games counted, 4 seats each
    assert rows["bot"]["wins"] <= honest["bot"]


def test_under_duplicate_deals_a_record_waits_for_the_end_of_its_block(tmp_path, monkeypatch):
    """A finished game's record holds its seed, which is the deal of every game of its duplicate block:
    it is written once the whole block has ended, never while a game of the block is still played."""
    from agents.arena.tournament import play_games, pool, runner

    events = []
    real_play, real_write = pool.play_job, runner.write_record
    monkeypatch.setattr(pool, "play_job", lambda job: (events.append(("started", job["game_index"])),
                                                      real_play(job))[1])
    monkeypatch.setattr(runner, "write_record", lambda fh, rec: (events.append(("written", rec["game"])),
                                                                 real_write(fh, rec))[1])
    play_games(_tournament(games=8, duplicate=True), tmp_path, progress=False)
    for k, (what, game) in enumerate(events):
        if what == "written":
            block = range(game - game % 4, game - game % 4 + 4)
            # in this process games are played one after another: every game of the block has started,
            # and all but the last have ended, before the first record of the block is written
            assert {g for w, g in events[:k] if w == "started"} >= set(block), events
    assert sum(w == "written" for w, _ in events) == 8


# ---------------------------------------------------------------------------------------- user modules
def test_a_module_that_patches_the_arena_at_import_never_runs_in_the_arena(tmp_path):
    import agents.arena.play
    from agents.arena.tournament import config_from_dict, play_games

    before = agents.arena.play.hand_off
    cfg = config_from_dict({"name": "patch", "num_players": 4, "games": 4, "seed": 0, "workers": 1,
                            "modules": ["helpers.patching_module"],
                            "agents": ["test_patcher", "rulebot", {"name": "rulebot", "label": "rb2"},
                                       {"name": "rulebot", "label": "rb3"}]})
    assert "helpers.patching_module" not in sys.modules and agents.arena.play.hand_off is before
    assert cfg.agents[0]["agent"] == "process"                     # its agent plays as a bot process
    run = play_games(cfg, tmp_path, progress=False)
    assert run["played"] == 4 and "helpers.patching_module" not in sys.modules
    assert agents.arena.play.hand_off is before


def test_a_spoofed_module_name_does_not_make_an_agent_built_in():
    from agents.base import _REGISTRY, is_builtin, register
    from agents.random_agent import RandomAgent

    class Spoof(RandomAgent):
        pass

    Spoof.__module__ = "agents.random_agent"
    register("test_spoofed")(Spoof)
    try:
        assert not is_builtin("test_spoofed")       # defined in a test file, whatever __module__ says
        assert is_builtin("random") and is_builtin("rulebot") and is_builtin("process")
    finally:
        _REGISTRY.pop("test_spoofed")


def test_a_bot_entry_sets_its_limits_and_the_files_it_may_read(tmp_path):
    from agents.arena.tournament import ConfigError

    data = tmp_path / "model"
    data.mkdir()
    cfg = _tournament(agents=[{"cmd": f"{sys.executable} {SCRIPTED} ok", "label": "bot", "max_procs": 8,
                               "disk_mb": 16, "files": [str(data)], "memory_mb": 512, "cpu_s": 30},
                              "random", {"name": "random", "label": "r2"}, {"name": "random", "label": "r3"}])
    opts = cfg.agents[0]["options"]
    assert {k: opts[k] for k in ("max_procs", "disk_mb", "files", "memory_mb", "cpu_s")} == {
        "max_procs": 8, "disk_mb": 16, "files": [str(data)], "memory_mb": 512, "cpu_s": 30}
    argv = [sys.executable, str(SCRIPTED), "ok"]
    cmd = SB.command(argv, files=[str(data)], disk_mb=16)
    at = cmd.index(str(data))
    assert cmd[at - 1:at + 2] == ["--ro-bind", str(data), str(data)]
    assert cmd[cmd.index("--size") + 1] == str(16 << 20)
    with pytest.raises(ConfigError, match=r"agents\[1\]\.files: limits apply to bot commands \(cmd\) only"):
        _tournament(agents=[{"cmd": f"{sys.executable} {SCRIPTED} ok", "label": "bot"},
                            {"name": "random", "files": [str(data)]}, {"name": "random", "label": "r2"},
                            {"name": "random", "label": "r3"}])
    with pytest.raises(ConfigError, match=r"option files: '/no/such/model' does not exist"):
        _tournament(agents=[{"cmd": f"{sys.executable} {SCRIPTED} ok", "label": "bot", "files": ["/no/such/model"]},
                            "random", {"name": "random", "label": "r2"}, {"name": "random", "label": "r3"}])


@needs_sandbox
def test_the_reference_clients_kernel_cache_is_copied_fresh_and_not_counted_against_disk(tmp_path, monkeypatch):
    """CI once failed here: the arena's cache (78 MB, old checkouts' kernels included) was copied into
    the bot's 64 MiB /tmp and its first compile ran out of space."""
    import numba

    cache = Path(numba.config.CACHE_DIR)
    current = SB._current_cache_dirs(str(cache))
    assert current and all(SB._source_cache_names().__contains__(d) for d in current)
    stale = cache / ("core_" + "0" * 40)                  # another checkout's kernels: never copied
    stale.mkdir(exist_ok=True)
    try:
        (stale / "big.nbc").write_bytes(b"\0" * (2 << 20))
        cmd = SB.command([sys.executable, "-m", "agents.arena.process.client", "rulebot"], disk_mb=1)
        assert stale.name not in " ".join(cmd)
        at = cmd.index(SB.CLIENT_CACHE)
        assert cmd[at - 3] == "--size" and int(cmd[at - 2]) >= SB.CACHE_HEADROOM_MB << 20
    finally:
        shutil.rmtree(stale)
    from agents.arena.tournament.config import _client_argv

    assert SB._is_client(_client_argv(["helpers.arena_bots"], "test_frame_cheater"))     # a tournament's form
    bot = make_agent("process", cmd=[sys.executable, "-m", "agents.arena.process.client", "rulebot"], disk_mb=1)
    rec = play(bot)
    assert rec["result"]["forfeit"] is None, rec["result"]["forfeit"]
