"""The replay viewer: one self-contained HTML file (no server, no network) that shows a recorded game.

    write_replay_html(record, "game.html")

`record` is a game record of `v1919_env/records.py` (format "v1919-game-record": replayed with its own
card-set check, and rejected when the replayed result differs from the recorded one) or a plain dict
{seed, num_players, variant, negotiation, actions[, card_set: path]}. The page holds the board at
every decision (the SVG of `Game.to_svg()`: each distinct element once, each frame a list of element
numbers), a slider, step buttons, play/pause, the description of each action and who took it, and
the scores at the end. The URL fragment `#step=K` opens step K and `#step=K&play` plays from there.
`v1919 replay GAME.jsonl [--game K] [--to STEP] --html OUT.html` writes it from a records file.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from v1919_env.decisions import decision_label
from v1919_env.view.scene import board_scene
from v1919_env.view.svg import svg_element, svg_open

PLAIN_FIELDS = ("seed", "num_players", "variant", "negotiation", "actions")


class ReplayError(ValueError):
    """A record that cannot be shown: malformed, not replayable, or not reproducing its result."""


class ReplayMismatch(ReplayError):
    """A well-formed record whose actions do not replay or do not reproduce its recorded result."""


def _as_record(record) -> dict:
    """The game record for `record` (plain dicts get the record fields the replay needs)."""
    from v1919_env.records import RECORD_FORMAT, RecordError, check_record   # the records live above the library
    if not isinstance(record, dict):
        raise ReplayError(f"a replay needs a game record (a dict), got {type(record).__name__}")
    if "format" in record:
        try:
            return check_record(record)
        except RecordError as e:
            raise ReplayError(str(e)) from e
    missing = [k for k in PLAIN_FIELDS if k not in record]
    if missing:
        raise ReplayError(f"the record lacks {', '.join(missing)} (a plain record needs {', '.join(PLAIN_FIELDS)}; "
                          f"or give a {RECORD_FORMAT!r} record)")
    acts = record["actions"]
    if not isinstance(acts, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in acts):
        raise ReplayError("actions: expected a list of integer action ids")
    from v1919_env.game import card_tables
    path = record.get("card_set")
    try:
        label = card_tables(path)[0].label
    except (OSError, ValueError) as e:
        raise ReplayError(f"card_set {path!r}: {e}") from e
    return {"game": record.get("game", 0), "seed": record["seed"], "num_players": record["num_players"],
            "variant": record["variant"], "negotiation": record["negotiation"], "actions": acts,
            "card_set": {"label": label, "path": path}}


def replay_frames(record) -> dict:
    """Replay `record` and return the viewer's data: distinct SVG elements, per-frame element lists,
    the action taken at each frame (seat, agent, description) and the final scores."""
    from v1919_env.records import RecordError, replay, result_differences
    rec = _as_record(record)
    index: dict = {}
    frames, moves = [], []
    seats = rec.get("seats") or []

    def frame(game):
        scene = board_scene(game)
        frames.append([index.setdefault(it, len(index)) for it in scene.items])
        return scene

    def on_move(game, step, seat, action):
        frame(game)
        agent = seats[seat].get("label") if 0 <= seat < len(seats) and isinstance(seats[seat], dict) else None
        try:
            text = game.describe(action)
        except (ValueError, IndexError, TypeError):       # not an action id: the step right after says why
            text = f"action {action!r}"
        moves.append({"step": step, "seat": game.seat_name(seat), "agent": agent, "decision": decision_label(game),
                      "text": text})

    try:
        g = replay(rec, on_move=on_move)
        diffs = result_differences(rec, g) if "result" in rec else []
    except RecordError as e:                 # an action that is not legal, a card set that is not the record's
        raise ReplayMismatch(str(e)) from e
    except (ValueError, TypeError) as e:     # the game cannot even start (players, variant, seed)
        raise ReplayError(str(e)) from e
    if diffs:
        raise ReplayMismatch(f"game {rec['game']}: the replayed result differs from the recorded one: "
                             + "; ".join(diffs))
    last = frame(g)
    return {"head": svg_open(last.width, last.height, last.background),
            "elements": [svg_element(it) for it in index],
            "frames": frames, "moves": moves, "over": g.is_over,
            "scores": g.scores(),
            "title": f"Versailles 1919 replay: game {rec['game']}, seed {rec['seed']}, {rec['num_players']} players, "
                     f"{rec['variant']}, {g.cards.label}"}


def replay_html(record, start: int = 0, back: tuple[str, str] | None = None) -> str:
    """The self-contained replay page of `record` (see the module docstring) as a string; it opens
    at decision `start` unless the URL says #step=K. The controls stay in view at the bottom of the
    window; `back` = (address, words) puts a link first among them (the web app's list of games)."""
    data = replay_frames(record)
    data["start"] = max(0, min(int(start), len(data["frames"]) - 1))
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    link = "" if back is None else f'<a id="back" href="{html.escape(back[0])}">{html.escape(back[1])}</a>'
    return (_PAGE.replace("__BACK__", link).replace("__TITLE__", html.escape(data["title"]))
            .replace("__DATA__", payload).replace("__SCRIPT__", _SCRIPT))


def write_replay_html(record, out_path, start: int = 0) -> Path:
    """Write the replay page of `record` (`replay_html`) to `out_path`."""
    page = replay_html(record, start)
    out = Path(out_path)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as e:
        raise ReplayError(f"cannot write {out}: {e.strerror}") from e
    return out


def write_replay_html_from_file(path, game: int | None, out_path, start: int = 0) -> tuple[dict, Path]:
    """The replay page of game `game` (None: the first) of a JSONL file of game records, or of the
    `games.jsonl` in a tournament's output directory; returns (record, page path)."""
    from v1919_env.records import RecordError, find_game, read_games
    src = Path(path)
    if src.is_dir():
        src = src / "games.jsonl"
    try:
        rec = find_game(read_games(src), game)
    except RecordError as e:
        raise ReplayError(str(e)) from e
    return rec, write_replay_html(rec, out_path, start)


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{margin:0;font:14px DejaVu Sans,Arial,sans-serif;background:#fff;color:#212121}
#board{width:1280px;height:800px}
#board svg{display:block}
#controls{padding:8px 12px;display:flex;gap:8px;align-items:center;background:#eceff1;width:1256px;
position:sticky;bottom:0;z-index:2}
#back{margin-right:8px}
#controls button{font-size:15px;min-width:44px}
#slider{flex:1}
#move{padding:6px 12px;font-size:15px;min-height:22px}
#scores{margin:6px 12px;border-collapse:collapse}#scores td,#scores th{border:1px solid #bbb;padding:3px 8px}
#log{margin:6px 12px;height:160px;overflow:auto;border:1px solid #ccc;width:1250px;font-size:12px}
#log div{cursor:pointer;padding:1px 4px}#log div.now{background:#fff59d}
</style></head><body>
<div id="board"></div>
<div id="controls">__BACK__<button id="first" title="first">|&lt;</button>
<button id="prev" title="previous (left)">&lt;</button>
<button id="play" title="play/pause (space)">play</button><button id="next" title="next (right)">&gt;</button>
<button id="last" title="last">&gt;|</button><input id="slider" type="range" min="0" value="0">
<span id="status" data-step="0"></span><select id="speed"><option value="1000">1/s</option>
<option value="400" selected>2.5/s</option><option value="150">7/s</option><option value="40">25/s</option>
</select></div>
<div id="move"></div><table id="scores"></table><div id="log"></div>
<h1 style="font-size:13px;margin:6px 12px;font-weight:normal">__TITLE__</h1>
<script id="replay-data" type="application/json">__DATA__</script>
<script>__SCRIPT__</script></body></html>
"""

_SCRIPT = r"""
const D = JSON.parse(document.getElementById('replay-data').textContent);
const last = D.frames.length - 1, $ = id => document.getElementById(id);
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'})[c]);
let k = 0, timer = null;
$('slider').max = last;
const agent = m => m.agent ? ' (' + esc(m.agent) + ')' : '';
$('log').innerHTML = D.moves.map((m, i) =>
  `<div data-step="${i}">${i + 1}. ${esc(m.seat)}${agent(m)}: ${esc(m.text)}</div>`).join('');
function moveText(i) {
  if (i < D.moves.length) {
    const m = D.moves[i];
    return `Decision ${i + 1} of ${D.moves.length}: <b>${esc(m.seat)}</b>${agent(m)}` +
      ` decides (${esc(m.decision)}) and takes: <b>${esc(m.text)}</b>`;
  }
  return D.over ? '<b>Game over.</b> Final scores below.' : 'End of the record (the game is not over).';
}
function scores() {
  const cells = r => [r.nation.toUpperCase(), r.total, r.issues, r.flags, r.strategy, r.happiness,
                      r.winner ? 'winner' : ''].map(x => `<td>${x}</td>`).join('');
  const head = ['seat', 'total', 'issues', 'flags', 'strategy', 'happiness', ''].map(x => `<th>${x}</th>`).join('');
  return `<tr>${head}</tr>` + D.scores.map(r => `<tr data-seat="${r.nation}">${cells(r)}</tr>`).join('');
}
function show(i) {
  k = Math.max(0, Math.min(last, i | 0));
  $('board').innerHTML = D.head + D.frames[k].map(j => D.elements[j]).join('') + '</svg>';
  $('slider').value = k;
  $('status').dataset.step = k;
  $('status').textContent = `step ${k} / ${last}`;
  $('move').innerHTML = moveText(k);
  $('scores').innerHTML = k === last && D.over ? scores() : '';
  const prev = $('log').querySelector('.now'), cur = $('log').children[k];
  if (prev) prev.classList.remove('now');
  if (cur) { cur.classList.add('now'); $('log').scrollTop = cur.offsetTop - $('log').offsetTop - 60; }
  try { history.replaceState(null, '', '#step=' + k + (timer ? '&play' : '')); } catch (e) { /* file: URLs */ }
}
function stop() { clearInterval(timer); timer = null; $('play').textContent = 'play'; }
function play() {
  if (timer) return stop();
  if (k >= last) show(0);
  $('play').textContent = 'pause';
  timer = setInterval(() => { if (k >= last) stop(); else show(k + 1); }, +$('speed').value);
}
$('first').onclick = () => show(0);
$('prev').onclick = () => show(k - 1);
$('next').onclick = () => show(k + 1);
$('last').onclick = () => show(last);
$('play').onclick = play;
$('speed').onchange = () => { if (timer) { stop(); play(); } };
$('slider').oninput = e => show(+e.target.value);
$('log').onclick = e => { const s = e.target.dataset.step; if (s !== undefined) show(+s); };
document.addEventListener('keydown', e => {
  if (e.key === 'ArrowRight') show(k + 1); else if (e.key === 'ArrowLeft') show(k - 1);
  else if (e.key === ' ') { e.preventDefault(); play(); }
});
function fromHash() { const m = /step=(\d+)/.exec(location.hash); return m ? +m[1] : 0; }
window.addEventListener('hashchange', () => show(fromHash()));
show(location.hash ? fromHash() : D.start);
if (/play/.test(location.hash)) play();
"""
