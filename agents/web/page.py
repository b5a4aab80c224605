"""The web app's two pages: the index (a new game, the games kept) and a game (the board, the legal
actions, the moves), both self-contained HTML with a little JavaScript (no files to serve)."""
from __future__ import annotations

import json
import time
from html import escape

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1em; background: #f6f4ee; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .5em; }
fieldset { border: 1px solid #bbb; margin: .5em 0; }
#board svg { width: 100%; height: auto; max-height: 88vh; }
#layout { display: flex; gap: 1em; align-items: flex-start; }
#board { flex: 3; min-width: 0; }
#side { flex: 1; min-width: 18em; }
#legal button { display: block; width: 100%; text-align: left; margin: 2px 0; padding: 4px; cursor: pointer; }
#log li.last { background: #ffe38a; font-weight: bold; }
#error { color: #a00; min-height: 1.2em; }
table { border-collapse: collapse; } td, th { border: 1px solid #bbb; padding: 2px 6px; }
"""


def index_html(offered: tuple[str, ...], variants: list[str], games: list[dict]) -> str:
    """The first page: the new-game form (players, variant, each seat human or an offered agent) and
    the games the server keeps."""
    choices = "".join(f'<option value="{escape(s)}">{escape(s)}</option>' for s in ("human",) + tuple(offered))
    seats = "".join(f'<label>seat {p + 1} <select class="seat" data-seat="{p}">{choices}</select></label><br>'
                    for p in range(4))
    variant_opts = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in variants)
    rows = "".join(
        f'<tr><td><a href="/game/{escape(g["id"])}">{escape(g["id"])}</a></td>'
        f'<td>{time.strftime("%Y-%m-%d %H:%M", time.localtime(g["created"]))}</td>'
        f'<td>{g["settings"]["num_players"]}</td><td>{escape(", ".join(g["settings"]["seats"]))}</td>'
        f'<td>{g["moves"]}</td></tr>' for g in games)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Versailles 1919</title>
<style>{STYLE}</style></head><body>
<h1>Versailles 1919: a new game</h1>
<form id="new">
<label>players <select id="players"><option>1</option><option>2</option><option>3</option>
<option selected>4</option></select></label>
<label>variant <select id="variant">{variant_opts}</select></label>
<fieldset><legend>seats (UK, France, USA, Italy)</legend>{seats}</fieldset>
<button type="submit" id="start">start</button> <span id="error"></span>
</form>
<h1>Games</h1>
<table><tr><th>game</th><th>started</th><th>players</th><th>seats</th><th>moves</th></tr>{rows}</table>
<script>
const players = document.getElementById("players");
function showSeats() {{
  document.querySelectorAll(".seat").forEach(s => {{
    s.parentElement.style.display = (+s.dataset.seat < +players.value) ? "" : "none"; }});
}}
players.onchange = showSeats; showSeats();
document.querySelectorAll(".seat").forEach((s, i) => {{ if (i > 0 && s.options.length > 1) s.selectedIndex = 1; }});
document.getElementById("new").onsubmit = async (ev) => {{
  ev.preventDefault();
  const n = +players.value;
  const seats = [...document.querySelectorAll(".seat")].slice(0, n).map(s => s.value);
  const r = await fetch("/api/games", {{method: "POST", headers: {{"Content-Type": "application/json"}},
    body: JSON.stringify({{num_players: n, variant: document.getElementById("variant").value, seats}})}});
  const j = await r.json();
  if (r.ok) location.href = j.url; else document.getElementById("error").textContent = j.error;
}};
</script></body></html>"""


def game_html(gid: str) -> str:
    """A game's page: it opens the game's WebSocket and draws each state the server sends."""
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Versailles 1919: game {escape(gid)}</title>
<style>{STYLE}</style></head><body>
<h1><a href="/">Versailles 1919</a>: game {escape(gid)}</h1>
<div id="layout"><div id="board"></div><div id="side">
<p id="status">connecting…</p><p id="error"></p>
<div id="lastmove"></div>
<div id="legal"></div>
<p><button id="undo" hidden>undo my last move</button></p>
<div id="scores"></div>
<h2>Moves</h2><ol id="log"></ol>
</div></div>
<script>
const GAME = {json.dumps(gid)};
let state = null, socket = null;
const el = id => document.getElementById(id);
function text(tag, t, cls) {{ const e = document.createElement(tag); e.textContent = t; if (cls) e.className = cls; return e; }}
function moveText(m) {{ return `${{m.name}} (${{m.player}}): ${{m.move}}`; }}
function draw(s) {{
  state = s;
  el("board").innerHTML = s.svg;
  const who = s.to_move === null ? null : s.seats[s.to_move];
  el("status").dataset.step = s.step;
  el("status").textContent = s.over ? "the game is over" :
    `step ${{s.step}}, turn ${{s.turn}}: ${{who.name}} (${{who.player}}) to move: ${{s.decision}}` +
    (s.failure ? ` (stopped: ${{s.failure}})` : "");
  el("lastmove").replaceChildren(...(s.last_move ? [text("p", `last move (step ${{s.last_move.step}}): ` + moveText(s.last_move), "last")] : []));
  el("legal").replaceChildren(...s.legal.map(a => {{
    const b = text("button", a.name); b.dataset.action = a.action;
    b.onclick = () => act(a.action); return b; }}));
  el("undo").hidden = !s.can_undo;
  el("log").replaceChildren(...s.log.map((m, i) => {{
    const li = text("li", moveText(m), i === s.log.length - 1 ? "last" : ""); li.value = m.step; return li; }}));
  if (s.scores) {{
    const t = document.createElement("table");
    t.appendChild(text("tr", "")).append(...["seat", "total", "rank"].map(h => text("th", h)));
    s.scores.forEach(r => t.appendChild(text("tr", "")).append(
      text("td", s.seats[r.seat].name), text("td", r.total), text("td", r.rank)));
    const a = text("a", "download the record (v1919 replay FILE --html OUT.html)");
    a.href = `/api/games/${{GAME}}/record`; a.id = "record";
    el("scores").replaceChildren(text("h2", "Scores"), t, a);
  }}
}}
function act(a) {{
  el("error").textContent = "";
  socket.send(JSON.stringify({{type: "act", step: state.step, seat: state.to_move, action: a}}));
}}
el("undo").onclick = () => {{
  el("error").textContent = "";
  socket.send(JSON.stringify({{type: "undo", step: state.step}}));
}};
function connect() {{
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${{proto}}//${{location.host}}/ws/${{GAME}}${{location.search}}`);
  socket.onmessage = ev => {{
    const m = JSON.parse(ev.data);
    if (m.type === "state") draw(m); else if (m.type === "error") el("error").textContent = m.error;
  }};
  socket.onclose = () => {{ el("status").textContent = "disconnected: reconnecting…"; setTimeout(connect, 1000); }};
}}
connect();
</script></body></html>"""
