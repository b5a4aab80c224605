"""The web app's watch pages: a records file's games listed, followed as the file grows, and each
replayed move by move; only the files the server was given."""
from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from agents.base import make_agent
from agents.arena.play import run_game, seat_spec
from agents.arena.web.app import create_app


def records(n: int, start: int = 0) -> list[str]:
    out = []
    for i in range(start, start + n):
        agents = [make_agent("random"), make_agent("rulebot")]
        rec = run_game(agents, [seat_spec("random"), seat_spec("rulebot")], num_players=2, seed=100 + i, game_index=i)
        out.append(json.dumps(rec) + "\n")
    return out


@pytest.fixture(scope="module")
def lines():
    return records(4)


def client(tmp_path, files, **kw):
    return TestClient(create_app(str(tmp_path / "games.sqlite3"), agents=("random",), bot_delay=0,
                                 records=files, **kw))


def test_a_records_file_is_listed_followed_as_it_grows_and_each_game_replayed(tmp_path, lines):
    path = tmp_path / "games.jsonl"
    path.write_text("".join(lines[:3]))
    with client(tmp_path, [str(path)]) as c:
        assert 'href="/watch"' in c.get("/").text
        assert "games.jsonl" in c.get("/watch").text
        listing = c.get("/api/watch/0").json()
        assert listing["error"] is None and [g["game"] for g in listing["games"]] == [0, 1, 2]
        assert listing["games"][0]["seats"] == ["random", "rulebot"] and listing["games"][0]["winners"]
        with path.open("a") as fh:       # a tournament writes a fourth game, then starts a fifth line
            fh.write(lines[3] + lines[0][:40])
        assert [g["game"] for g in c.get("/api/watch/0").json()["games"]] == [0, 1, 2, 3]
        page = c.get("/watch/0/3")
        assert page.status_code == 200 and "Versailles 1919 replay: game 3" in page.text
        assert "/api/watch/0" in c.get("/watch/0").text
        assert c.get("/watch/0/4").status_code == 404
        assert c.get("/watch/1").status_code == 404 and c.get("/api/watch/1").status_code == 404
        # the list names each seat's nation and score; a report beside the file is linked (issue 42)
        g0 = json.loads(lines[0])
        first = c.get("/api/watch/0").json()["games"][0]
        assert first["players"] == [f"{s['label']} ({r['nation'].upper()}, {r['total']})"
                                    for s, r in zip(g0["seats"], g0["result"]["scores"])]
        assert c.get("/api/watch/0").json()["results"] is False and c.get("/watch/0/results").status_code == 404
        (tmp_path / "results.md").write_text("| agent | games |\n|---|---|\n| rulebot | 4 |\n")
        assert c.get("/api/watch/0").json()["results"] is True
        shown = c.get("/watch/0/results")
        assert shown.status_code == 200 and "| rulebot | 4 |" in shown.text


def test_a_tournament_directory_means_its_games_jsonl_and_a_missing_file_is_refused(tmp_path, lines):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "games.jsonl").write_text(lines[0])
    with client(tmp_path, [str(tmp_path / "t")]) as c:
        assert len(c.get("/api/watch/0").json()["games"]) == 1
    with pytest.raises(ValueError, match="--records .*nothing.jsonl: no records file"):
        create_app(str(tmp_path / "g.sqlite3"), records=[str(tmp_path / "nothing.jsonl")])


def test_a_file_that_is_not_records_says_so(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"format": "something else"}\n')
    with client(tmp_path, [str(path)]) as c:
        listing = c.get("/api/watch/0").json()
        assert listing["games"] == [] and listing["error"]
        assert c.get("/watch/0/0").status_code == 422


def test_the_watch_pages_need_the_token(tmp_path, lines):
    path = tmp_path / "games.jsonl"
    path.write_text(lines[0])
    with client(tmp_path, [str(path)], token="t" * 20) as c:
        for url in ("/watch", "/watch/0", "/api/watch/0", "/watch/0/0"):
            assert c.get(url).status_code == 403
        assert c.get("/api/watch/0?token=" + "t" * 20).status_code == 200


def test_a_tournament_in_progress_is_followed_move_by_move(tmp_path):
    """Issue 42: the games a tournament is playing are listed with their moves so far (its live.json,
    written from the workers' progress) and each is followed at its last move until it ends."""
    from helpers.gated_tournament import gated_tournament

    with gated_tournament(tmp_path) as (out, gate, run, live):     # the first game waits at the gate
        game = live[0]["game"]
        with client(tmp_path, [str(out)]) as c:
            listing = c.get("/api/watch/0").json()
            assert listing["games"] == [] and [g["game"] for g in listing["live"]] == [game]
            assert listing["live"][0]["decisions"] == len(live[0]["actions"]) >= 1
            page = c.get(f"/watch/0/live/{game}")
            assert page.status_code == 200 and f"following game {game}" in page.text
            assert c.get(f"/api/watch/0/live/{game}").json() == {"playing": True, "decisions": len(live[0]["actions"])}
            (gate / "open").write_text("")
            run.join(timeout=120)
            assert not run.is_alive() and not (out / "live.json").exists()
            assert c.get(f"/api/watch/0/live/{game}").json()["playing"] is False
            assert c.get(f"/watch/0/live/{game}").status_code == 404
            assert len(c.get("/api/watch/0").json()["games"]) == 4
