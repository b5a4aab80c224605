"""`v1919 serve`: its settings (loopback by default; another address only with --allow-remote and a
token) and the real server (uvicorn, a WebSocket from the websockets client) in a subprocess."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from websockets.sync.client import connect

from agents.arena.web.serve import is_loopback, serve_settings
from helpers.web_server import free_port, web_server
from helpers.web_tab import apply_patch
from agents.arena.commands import CommandError
from v1919_env.cli import build_parser, main


def settings(*argv):
    return serve_settings(build_parser().parse_args(["serve", *argv]))


def test_loopback_by_default_and_remote_only_with_the_flag_and_a_token(tmp_path):
    s = settings()
    assert s["host"] == "127.0.0.1" and s["token"] is None and "127.0.0.1" in s["allowed_hosts"]
    assert is_loopback("::1") and is_loopback("localhost") and not is_loopback("0.0.0.0")
    with pytest.raises(CommandError, match="--allow-remote"):
        settings("--host", "0.0.0.0")
    remote = settings("--host", "0.0.0.0", "--allow-remote")
    assert len(remote["token"]) >= 16 and remote["allowed_hosts"] is None
    assert settings("--host", "0.0.0.0", "--allow-remote", "--token", "k" * 16)["token"] == "k" * 16
    with pytest.raises(CommandError, match="16 characters"):
        settings("--host", "0.0.0.0", "--allow-remote", "--token", "short")
    with pytest.raises(CommandError, match="port"):
        settings("--port", "0")
    assert main(["serve", "--host", "0.0.0.0", "--db", str(tmp_path / "x.sqlite3")]) == 2
    assert not (tmp_path / "x.sqlite3").exists()


@pytest.mark.parametrize("argv,said", [(["--analysis", "random"], "--analysis must be a search agent"),
                                        (["--records", "no/such.jsonl"], "--records no/such.jsonl: no records file")])
def test_a_bad_analysis_or_records_file_is_one_line_and_exit_2(tmp_path, capsys, argv, said):
    assert main(["serve", "--db", str(tmp_path / "x.sqlite3"), *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
    assert not (tmp_path / "x.sqlite3").exists()


def test_the_real_server_plays_over_a_websocket(tmp_path):
    port, printed = free_port(), []
    with web_server(tmp_path / "games.sqlite3", "--bot-delay", "0", "--agent", "random", port=port,
                    output=printed) as base:
        page = urllib.request.urlopen(base + "/", timeout=10).read().decode()
        assert "a new game" in page and '<option value="random">' in page
        req = urllib.request.Request(base + "/api/games", method="POST", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"num_players": 2, "seats": ["random", "human"]}).encode())
        gid = json.loads(urllib.request.urlopen(req, timeout=10).read())["game"]
        with connect(f"ws://127.0.0.1:{port}/ws/{gid}") as ws:
            m = json.loads(ws.recv(timeout=20))
            parts = m["svg_parts"]                      # the picture whole, then as patches
            while not (m["human_to_move"] or m["over"]):
                m = json.loads(ws.recv(timeout=20))
                parts = apply_patch(parts, m["svg_patch"])
            assert m["to_move"] == 1 and "".join(parts).startswith("<svg")
            assert "".join(parts) == json.loads(urllib.request.urlopen(f"{base}/api/games/{gid}", timeout=10).read())["svg"]
            ws.send(json.dumps({"type": "act", "step": m["step"], "seat": 1, "action": m["legal"][0]["action"]}))
            after = json.loads(ws.recv(timeout=20))
            assert after["type"] == "state" and after["step"] == m["step"] + 1
            ws.send("{}")
            while (e := json.loads(ws.recv(timeout=20)))["type"] == "state":
                pass
            assert "malformed" in e["error"]
    assert f"open http://127.0.0.1:{port}/" in printed[0]


def test_the_load_test_tool_runs_and_reports_its_percentiles():
    root = str(Path(__file__).resolve().parents[4])
    r = subprocess.run([sys.executable, os.path.join(root, "tools", "web_load.py"), "--games", "2", "--moves", "2"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("2 games at once, 4 human moves in ") and " p50 " in r.stdout and " p99 " in r.stdout
