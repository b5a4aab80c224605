"""The HTML replay viewer in a real browser: Debian's headless Chromium, driven over the DevTools
protocol (a pipe, no network), opens the file, steps through it with the URL fragment, the buttons,
the keyboard, the slider and play/pause, and what it draws is compared with the replayed position,
in the DOM and in a screenshot's pixels."""
import json
import time

import numpy as np
import pytest

from helpers.board import assert_drawing_matches, cubes_in_pixels, game_at, random_record
from v1919_env.view.scene import HEIGHT, NATION_COLORS, WIDTH, Rect, board_scene
from v1919_env.view.replay_html import ReplayError, replay_frames, write_replay_html


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    rec = random_record(21, 4)
    out = tmp_path_factory.mktemp("viewer") / "game.html"
    write_replay_html(rec, out)
    return rec, out


def test_fragment_opens_each_step_as_the_position_says(replay, browser):
    rec, path = replay
    n = len(rec["actions"])
    browser.open(path.as_uri() + "#step=0")
    for k in (0, 37, n // 2, n - 1, n):
        browser.open(path.as_uri() + f"#step={k}")       # same document: the page follows hashchange
        assert browser.step() == k
        assert_drawing_matches(game_at(rec, k), browser.board_svg(), f"step {k}:")


def test_buttons_keys_slider_and_play_drive_the_page(replay, browser):
    rec, path = replay
    n = len(rec["actions"])
    browser.open(path.as_uri() + "#step=5")
    browser.js("document.getElementById('next').click()")
    assert browser.step() == 6
    desc = browser.js("document.getElementById('move').textContent")
    g = game_at(rec, 6)
    assert g.describe(rec["actions"][6]) in desc and g.seat_name(g.current_player) in desc
    browser.key("ArrowLeft", "ArrowLeft")
    assert browser.step() == 5
    browser.key("ArrowRight", "ArrowRight")
    browser.key("ArrowRight", "ArrowRight")
    assert browser.step() == 7
    browser.js("const s = document.getElementById('slider'); s.value = 120; s.dispatchEvent(new Event('input'))")
    assert browser.step() == 120
    assert_drawing_matches(game_at(rec, 120), browser.board_svg(), "slider 120:")
    assert browser.js("document.getElementById('scores').rows.length") == 0
    browser.js("document.getElementById('last').click()")
    assert browser.step() == n
    scores = game_at(rec, n).scores()
    rows = browser.js("[...document.querySelectorAll('#scores tr[data-seat]')]"
                      ".map(r => [r.dataset.seat, +r.cells[1].textContent])")
    assert rows == [[r["nation"], r["total"]] for r in scores]
    browser.js("document.getElementById('speed').value = '40'; document.getElementById('first').click(); "
               "document.getElementById('play').click()")
    browser.wait("+document.getElementById('status').dataset.step >= 10")
    browser.js("document.getElementById('play').click()")    # pause
    paused = browser.step()
    time.sleep(0.3)
    assert browser.step() == paused and 10 <= paused < n
    assert_drawing_matches(game_at(rec, paused), browser.board_svg(), f"paused at {paused}:")


def test_screenshot_shows_the_cubes_of_the_position(replay, browser):
    """Pixels of a real screenshot: each issue card shows as many cubes of each seat's colour as the
    position has on that issue."""
    rec, path = replay
    d = None
    for k in range(40, len(rec["actions"])):        # a step with cubes on a table issue
        g = game_at(rec, k)
        d = g.to_dict()
        if any(s and s["cubes"] for s in d["table"]):
            break
    browser.open(path.as_uri() + f"#step={k}")
    img = browser.screenshot()
    assert img.shape == (HEIGHT, WIDTH, 3) and len(np.unique(img.reshape(-1, 3), axis=0)) > 50
    cards = [it for it in board_scene(g).items if it.cls == "issue" and isinstance(it, Rect)]
    total = 0
    for card in cards:
        rec_sl = (d["table"] + d["waiting_room"])[dict(card.data)["slot"]]
        for seat in d["players"]:
            want = rec_sl["cubes"].get(seat, 0) if rec_sl else 0
            got = cubes_in_pixels(img, (card.x, card.y, card.w, card.h), NATION_COLORS[seat])
            assert got == want, f"step {k} slot {dict(card.data)['slot']} {seat}: {got} drawn, {want} in the position"
            total += want
    assert total > 0


# ----------------------------------------------------------------------------- the file itself, bad input
def embedded_data(path) -> dict:
    page = path.read_text(encoding="utf-8")
    return json.loads(page.split('<script id="replay-data" type="application/json">')[1].split("</script>")[0]
                      .replace("<\\/", "</"))


def test_page_is_self_contained_with_a_frame_per_decision(replay):
    rec, path = replay
    page = path.read_text(encoding="utf-8")
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")   # only the SVG namespace
    assert "https://" not in page and "<link" not in page and " src=" not in page
    data = embedded_data(path)
    assert len(data["frames"]) == len(rec["actions"]) + 1 and len(data["moves"]) == len(rec["actions"])
    g = game_at(rec, 3)
    assert data["moves"][3]["seat"] == g.seat_name(g.current_player)
    assert data["moves"][3]["text"] == g.describe(rec["actions"][3])


def test_full_game_record_shows_agents_and_checks_its_result(tmp_path):
    from agents.arena.play import build_agents, run_game, seat_spec
    specs = [seat_spec("random", label=f"bot{p}") for p in range(3)]
    rec = run_game(build_agents(specs), specs, num_players=3, seed=4)
    data = replay_frames(rec)
    assert data["moves"][0]["agent"] == f"bot{game_at(rec, 0).current_player}"
    assert data["over"] and [r["total"] for r in data["scores"]] == [r["total"] for r in rec["result"]["scores"]]
    edited = json.loads(json.dumps(rec))
    edited["result"]["scores"][0]["total"] += 1
    out = tmp_path / "edited.html"
    with pytest.raises(ReplayError, match="differs from the recorded one.*seat 0 total"):
        write_replay_html(edited, out)
    assert not out.exists()
    other = json.loads(json.dumps(rec))
    other["card_set"]["label"] = "someone-else@2.0"
    with pytest.raises(ReplayError, match="card set 'someone-else@2.0'"):
        write_replay_html(other, out)
    cut = json.loads(json.dumps(rec))
    cut["actions"] = cut["actions"][:-5]
    with pytest.raises(ReplayError, match="not over"):
        write_replay_html(cut, out)
    assert not out.exists()


@pytest.mark.parametrize("bad, message", [
    ({"seed": 1, "num_players": 4, "variant": "standard", "actions": [0]}, "lacks negotiation"),
    ({"seed": 1, "num_players": 4, "variant": "standard", "negotiation": False, "actions": "12"},
     "list of integer"),
    ({"seed": 1, "num_players": 4, "variant": "standard", "negotiation": False, "actions": [999999]},
     "step 0: recorded action 999999 is not legal"),
    ({"seed": 1, "num_players": 5, "variant": "standard", "negotiation": False, "actions": []}, "num_players"),
    ({"seed": 1, "num_players": 4, "variant": "nope", "negotiation": False, "actions": []}, "unknown variant"),
    ({"seed": 1, "num_players": 4, "variant": "standard", "negotiation": False, "actions": [],
      "card_set": "/nonexistent/cards.json"}, "card_set"),
    ([1, 2, 3], "got list"),
])
def test_bad_records_are_rejected_with_the_reason(tmp_path, bad, message):
    out = tmp_path / "x.html"
    with pytest.raises(ReplayError, match=message):
        write_replay_html(bad, out)
    assert not out.exists()


def test_actions_after_the_end_are_rejected(replay, tmp_path):
    rec, _ = replay
    longer = dict(rec, actions=rec["actions"] + [0])
    with pytest.raises(ReplayError, match="ended after"):
        write_replay_html(longer, tmp_path / "x.html")


def test_unwritable_output_is_a_clear_error(replay, tmp_path):
    rec, _ = replay
    with pytest.raises(ReplayError, match="cannot write"):
        write_replay_html(rec, tmp_path / "missing-dir" / "x.html")


# ----------------------------------------------------------------------------- v1919 replay --html
@pytest.fixture(scope="module")
def records_file(tmp_path_factory):
    from agents.arena.play import build_agents, run_game, seat_spec
    from v1919_env.records import write_record
    d = tmp_path_factory.mktemp("tournament")
    specs = [seat_spec("random") for _ in range(3)]
    with open(d / "games.jsonl", "w") as fh:
        for k in range(2):
            write_record(fh, run_game(build_agents(specs), specs, num_players=3, seed=10 + k, game_index=k))
    return d


def test_cli_replay_html_from_a_file_or_a_tournament_directory(records_file, tmp_path, capsys):
    from v1919_env.cli import main
    out = tmp_path / "g1.html"
    assert main(["replay", str(records_file / "games.jsonl"), "--game", "1", "--to", "12", "--html", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    rec = [json.loads(x) for x in (records_file / "games.jsonl").read_text().splitlines()][1]
    data = embedded_data(out)
    assert data["start"] == 12 and len(data["frames"]) == len(rec["actions"]) + 1
    out0 = tmp_path / "g0.html"
    assert main(["replay", str(records_file), "--html", str(out0)]) == 0     # the directory's games.jsonl
    assert embedded_data(out0)["title"].startswith("Versailles 1919 replay: game 0,")


def test_page_without_fragment_opens_at_its_start_step(records_file, tmp_path, browser):
    from v1919_env.cli import main
    out = tmp_path / "g1.html"
    assert main(["replay", str(records_file), "--game", "1", "--to", "12", "--html", str(out)]) == 0
    browser.open(out.as_uri())
    assert browser.step() == 12
    rec = [json.loads(x) for x in (records_file / "games.jsonl").read_text().splitlines()][1]
    assert_drawing_matches(game_at(rec, 12), browser.board_svg(), "--to 12:")


def test_cli_replay_html_rejects_bad_files_with_the_line_and_reason(records_file, tmp_path, capsys):
    from v1919_env.cli import main
    out = tmp_path / "x.html"
    lines = (records_file / "games.jsonl").read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0][:200] + "\n" + lines[1] + "\n")         # a line cut short, not the last
    assert main(["replay", str(bad), "--html", str(out)]) == 2
    assert "line 1" in capsys.readouterr().err
    edited = json.loads(lines[1])
    edited["result"]["ranks"] = edited["result"]["ranks"][::-1] if len(set(edited["result"]["ranks"])) > 1 else [9] * 3
    bad.write_text(json.dumps(edited) + "\n")
    assert main(["replay", str(bad), "--game", "1", "--html", str(out)]) == 1
    assert "differs from the recorded one" in capsys.readouterr().err
    edited = json.loads(lines[1])
    edited["num_players"] = 5
    bad.write_text(json.dumps(edited) + "\n")
    assert main(["replay", str(bad), "--html", str(out)]) == 2
    assert "num_players" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.jsonl"), "--html", str(out)]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["replay", str(records_file), "--game", "7", "--html", str(out)]) == 2
    assert "no game 7" in capsys.readouterr().err
    assert not out.exists()
