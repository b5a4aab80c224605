"""The board picture: SVG (Game.to_svg) shows what the position says; the rgb_array raster is the same
drawing; both environments render rgb_array; Gymnasium's RecordVideo records a game."""
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from helpers.board import assert_drawing_matches, cubes_in_pixels, game_at, hex_rgb, random_record
from v1919_env.view.scene import HEIGHT, NATION_COLORS, WIDTH, Rect, board_scene
from v1919_env.game import Game


@pytest.fixture(scope="module")
def records():
    return [random_record(3, 4), random_record(8, 3, negotiation=True)]


def sampled_steps(rec, every=40):
    n = len(rec["actions"])
    return sorted(set(range(0, n, every)) | {n})


def test_svg_shows_every_part_of_the_position(records):
    """Cubes per issue and seat, units, unrest, kegs, issues, events, happiness, influence, military,
    strategy cards, controlled issues and the pending decision, at many positions of two games."""
    checked = 0
    for rec in records:
        for step in sampled_steps(rec):
            g = game_at(rec, step)
            assert_drawing_matches(g, g.to_svg(), f"seed {rec['seed']} step {step}:")
            checked += 1
    assert checked > 20


def test_drawing_check_can_fail(records):
    """The comparison notices a drawing of another position."""
    rec = records[0]
    a, b = game_at(rec, 60), game_at(rec, 61)
    with pytest.raises(AssertionError):
        assert_drawing_matches(a, b.to_svg())


def test_final_position_shows_scores_and_no_decider(records):
    rec = records[0]
    g = game_at(rec, len(rec["actions"]))
    root = ET.fromstring(g.to_svg())
    totals = {e.get("data-seat"): int(e.get("data-total")) for e in root.iter() if e.get("class") == "score"}
    assert totals == {r["nation"]: r["total"] for r in g.scores()}
    assert not [e for e in root.iter() if e.get("class") == "player" and e.get("data-deciding") == "1"]


def test_user_card_set_shows_its_own_names_and_stars(tmp_path):
    """Names, stars and option names come from the card set in use (escaped in the SVG)."""
    d = Game.new(4, seed=1).cards.export()
    for r in d["issues"]:
        r["name"] = f"Mine & <{r['name']}>"
        if not r.get("game_end"):
            r["stars"] = 2
        for o in r["options"]:
            o["name"] = f"Pick {o['name']}"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(d))
    g = Game.new(4, seed=1, card_set=str(path))
    svg = g.to_svg()
    root = ET.fromstring(svg)                     # still well-formed with & and < in names
    names = {e.get("data-issue") for e in root.iter() if e.get("class") == "issue"}
    assert names and all(n.startswith("Mine & <") for n in names if n)
    stars = [e for e in root.iter() if e.get("class") == "star" and e.get("data-slot") == "0"]
    assert len(stars) == 2
    rng = np.random.default_rng(0)
    while not any(r["option"] for r in g.to_dict()["settled"]):
        legal = g.legal_actions()
        g.step(int(legal[rng.integers(len(legal))]))
    assert "Pick " in "".join(ET.fromstring(g.to_svg()).itertext())


def test_raster_is_the_same_drawing(records):
    """rgb_array: (800, 1280, 3) uint8 whose pixels show the scene's cubes, units and influence where
    the SVG puts them; cubes counted from the pixels alone match the position."""
    from v1919_env.view.raster import board_rgb
    rec = records[0]
    for step in (0, 150, 300, len(rec["actions"])):
        g = game_at(rec, step)
        img = board_rgb(g)
        assert img.shape == (HEIGHT, WIDTH, 3) and img.dtype == np.uint8
        items = board_scene(g).items
        for it in items:
            if it.cls in ("cube", "inf-avail", "inf-exh", "unit"):
                x, y = (it.x + it.w // 2, it.y + it.h // 2) if isinstance(it, Rect) else (it.cx, it.cy)
                assert tuple(img[y, x]) == hex_rgb(it.fill), f"step {step}: {it}"
        d = g.to_dict()
        for card in (it for it in items if it.cls == "issue" and isinstance(it, Rect)):
            sl = dict(card.data)["slot"]
            rec_sl = (d["table"] + d["waiting_room"])[sl]
            for seat in d["players"]:
                want = rec_sl["cubes"].get(seat, 0) if rec_sl else 0
                got = cubes_in_pixels(img, (card.x, card.y, card.w, card.h), NATION_COLORS[seat])
                assert got == want, f"step {step} slot {sl} {seat}: {got} drawn, {want} in the position"


def test_environments_render_rgb_array():
    import v1919_env
    from v1919_env.envs.gymnasium_env import Versailles1919Env
    aec = v1919_env.env(3, render_mode="rgb_array")
    aec.reset(seed=2)
    frame = aec.render()
    assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8 and frame.flags.writeable
    gym_env = Versailles1919Env(4, render_mode="rgb_array")
    obs, _ = gym_env.reset(seed=2)
    first = gym_env.render()
    obs, *_ = gym_env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert gym_env.render().shape == first.shape and not np.array_equal(gym_env.render(), first)
    assert "rgb_array" in Versailles1919Env.metadata["render_modes"]
    assert "rgb_array" in v1919_env.env(3).metadata["render_modes"]
    with pytest.raises(ValueError, match="rgb_array"):
        Versailles1919Env(4, render_mode="rgb")


def test_missing_pillow_names_the_extra(monkeypatch):
    import sys
    import v1919_env
    env = v1919_env.env(4, render_mode="rgb_array")
    env.reset(seed=0)
    monkeypatch.setitem(sys.modules, "PIL", None)          # as if Pillow were not installed
    with pytest.raises(ImportError, match=r"v1919-env\[render\]"):
        env.render()


def test_record_video_writes_a_playable_file(tmp_path):
    """Gymnasium's RecordVideo records a game of the Gymnasium env to an mp4 with the board's frames."""
    gym = pytest.importorskip("gymnasium")
    pytest.importorskip("moviepy", reason="needs the render extra")
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg", reason="needs the render extra")
    from v1919_env.envs.gymnasium_env import Versailles1919Env
    env = gym.wrappers.RecordVideo(Versailles1919Env(4, render_mode="rgb_array"), str(tmp_path / "videos"),
                                   episode_trigger=lambda e: True, video_length=24, fps=8)
    obs, _ = env.reset(seed=5)
    for _ in range(30):
        obs, r, term, trunc, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert not (term or trunc)
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    reader = imageio_ffmpeg.read_frames(str(videos[0]))
    meta = next(reader)
    frames = [np.frombuffer(f, np.uint8).reshape(HEIGHT, WIDTH, 3) for f in reader]
    assert meta["size"] == (WIDTH, HEIGHT)
    assert 24 <= len(frames) <= 25            # RecordVideo stops after video_length + 1 frames
    header = frames[0][5:30, 300:900].reshape(-1, 3).mean(axis=0)   # the board's dark title bar
    assert np.abs(header - hex_rgb("#263238")).max() < 40
    assert not np.array_equal(frames[0], frames[-1])
