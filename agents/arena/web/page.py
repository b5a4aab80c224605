"""The web app's two pages: the index (a new game, the games kept) and a game (the board, the legal
actions, the moves), both self-contained HTML with a little JavaScript (no files to serve)."""
from __future__ import annotations

import json
import time
from html import escape

from v1919_env.view.scene import NATION_COLORS

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1em; background: #f6f4ee; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .5em; }
fieldset { border: 1px solid #bbb; margin: .5em 0; }
#board svg { width: 100%; height: auto; max-height: 88vh; }
#layout { display: flex; gap: 1em; align-items: flex-start; }
#boardcol { flex: 3; min-width: 0; }
#side { flex: 1; min-width: 18em; }
#legal { max-height: 40vh; overflow-y: auto; }
#legal button { display: block; width: 100%; text-align: left; margin: 2px 0; padding: 4px; cursor: pointer; }
#log li.last { background: #ffe38a; font-weight: bold; }
#log { max-height: 30vh; overflow-y: auto; } #log li { cursor: pointer; } #log li:hover { text-decoration: underline; }
#log li.shown { outline: 2px solid #1e88e5; }
#viewing { background: #e3f2fd; padding: 4px 8px; margin: 0 0 4px; }
#board .lastmove { stroke: #ff6d00; stroke-width: 5px; stroke-dasharray: 8 4; }
#error { color: #a00; min-height: 1.2em; }
table { border-collapse: collapse; } td, th { border: 1px solid #bbb; padding: 2px 6px; }
#board svg *:not(.target) { pointer-events: none; }   /* a click reaches the place under the text on it */
#board svg :is(rect, text):has(> title) { pointer-events: all; }   /* a card's text on hover, or a tap */
#cardtext { white-space: pre-wrap; background: #fffde7; border: 1px solid #e0d080; padding: 4px 6px; font-size: .9em; }
#board .target { cursor: pointer; stroke: #d500f9; stroke-width: 3px; pointer-events: all; }
#board .target:hover { stroke-width: 6px; fill-opacity: .8; }
#board .chosen { stroke: #00c853; stroke-width: 6px; }
#choice { background: #f3e5f5; padding: 4px; margin: 4px 0; }
#choice button { display: block; width: 100%; text-align: left; margin: 2px 0; }
#analysis table { font-size: .85em; } #analysis td.bar { width: 6em; } #analysis .bar div { background: #5c6bc0; height: .8em; }
#analysis tr.best { font-weight: bold; }
#board .target:focus { outline: none; stroke: #2962ff; stroke-width: 6px; }
button { font-size: 1rem; }
/* narrow screens (tablets, phones): the panels stack under the board, which keeps a readable scale and
   scrolls sideways in its column */
@media (max-width: 1100px) {
  #layout { flex-direction: column; }
  #boardcol { width: 100%; overflow-x: auto; }
  #board svg { min-width: 960px; max-height: none; }
  #side { min-width: 0; width: 100%; }
  #legal, #log { max-height: none; }
}
"""


def index_html(offered: tuple[str, ...], variants: list[str], games: list[dict],
               seatings: dict[int, list[list[str]]] | None = None, watching: int = 0) -> str:
    """The first page: the new-game form (players, variant, the seating: the nations' order around
    the table, each seat human or an offered agent), the games the server keeps, and a link to the
    watch pages when `watching` records files are offered."""
    watch_link = (f'<p><a id="watch" href="/watch">watch the games of {watching} records file(s)</a> '
                  f'(tournaments, the ladder)</p>') if watching else ""
    choices = "".join(f'<option value="{escape(s)}">{escape(s)}</option>' for s in ("human",) + tuple(offered))
    seats = "".join(f'<label>seat {p + 1} <select class="seat" data-seat="{p}">{choices}</select></label><br>'
                    for p in range(4))
    variant_opts = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in variants)
    rows = "".join(
        f'<tr><td><a href="/game/{escape(g["id"])}">{escape(g["id"])}</a></td>'
        f'<td>{time.strftime("%Y-%m-%d %H:%M", time.localtime(g["created"]))}</td>'
        f'<td>{g["settings"]["num_players"]}</td><td>{escape(", ".join(g["settings"]["seats"]))}</td>'
        f'<td>{g["moves"]}</td></tr>' for g in games)
    return f"""<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Versailles 1919</title>
<style>{STYLE}</style></head><body>
<h1>Versailles 1919: a new game</h1>
<form id="new">
<label>players <select id="players"><option>1</option><option>2</option><option>3</option>
<option selected>4</option></select></label>
<label>variant <select id="variant">{variant_opts}</select></label>
<label id="seating-label">seating (clockwise) <select id="seating"></select></label>
<fieldset><legend>seats (UK, France, USA, Italy)</legend>{seats}</fieldset>
<label><input type="checkbox" id="links"> players on other machines: a link per human seat</label>
<button type="submit" id="start">start</button> <span id="error"></span>
</form>
<div id="invite" hidden><h2>Links to the game</h2><p>Each link plays its seat only; send each player
theirs. The game's own page, without a link, watches.</p><ul id="invite-links"></ul></div>
{watch_link}<h1>Games</h1>
<table><tr><th>game</th><th>started</th><th>players</th><th>seats</th><th>moves</th></tr>{rows}</table>
<script>
const players = document.getElementById("players");
const SEATINGS = {json.dumps(seatings or {})};
function showSeats() {{
  document.querySelectorAll(".seat").forEach(s => {{
    s.parentElement.style.display = (+s.dataset.seat < +players.value) ? "" : "none"; }});
  const orders = SEATINGS[players.value] || [];
  document.getElementById("seating-label").style.display = orders.length > 1 ? "" : "none";
  document.getElementById("seating").replaceChildren(...orders.map((o, i) => {{
    const e = document.createElement("option"); e.value = i; e.textContent = o.map(x => x.toUpperCase()).join(" → ");
    return e; }}));
}}
players.onchange = showSeats; showSeats();
document.querySelectorAll(".seat").forEach((s, i) => {{ if (i > 0 && s.options.length > 1) s.selectedIndex = 1; }});
document.getElementById("new").onsubmit = async (ev) => {{
  ev.preventDefault();
  const n = +players.value;
  const seats = [...document.querySelectorAll(".seat")].slice(0, n).map(s => s.value);
  const body = {{num_players: n, variant: document.getElementById("variant").value, seats}};
  const orders = SEATINGS[n] || [];
  if (orders.length > 1) body.seating = orders[+document.getElementById("seating").value];
  if (document.getElementById("links").checked) body.links = true;
  const r = await fetch("/api/games", {{method: "POST", headers: {{"Content-Type": "application/json"}},
    body: JSON.stringify(body)}});
  const j = await r.json();
  if (!r.ok) {{ document.getElementById("error").textContent = j.error; return; }}
  if (!j.links) {{ location.href = j.url; return; }}
  document.getElementById("invite-links").replaceChildren(...Object.entries(j.links).map(([seat, url]) => {{
    const li = document.createElement("li"), a = document.createElement("a");
    a.href = url; a.className = "seat-link"; a.dataset.seat = seat; a.textContent = `${{seat}}: ${{location.origin}}${{url}}`;
    li.appendChild(a); return li; }}));
  document.getElementById("invite").hidden = false;
}};
</script></body></html>"""


def text_html(title: str, text: str) -> str:
    """A text file shown as it is (a tournament's results.md)."""
    return f"""<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Versailles 1919: {escape(title)}</title>
<style>{STYLE}</style></head><body><h1><a href="/">Versailles 1919</a>: <a href="/watch">watch</a>: {escape(title)}</h1>
<pre id="text" style="white-space: pre-wrap">{escape(text)}</pre></body></html>"""


def message_html(status: int, text: str) -> str:
    """A page that says why the server refused (a missing token, no such game)."""
    return f"""<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Versailles 1919: {status}</title>
<style>{STYLE}</style></head><body><h1><a href="/">Versailles 1919</a></h1>
<p id="refused">{escape(text)}</p></body></html>"""


def game_html(gid: str) -> str:
    """A game's page: it opens the game's WebSocket and draws each state the server sends."""
    return f"""<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Versailles 1919: game {escape(gid)}</title>
<style>{STYLE}</style></head><body>
<h1><a href="/">Versailles 1919</a>: game {escape(gid)}</h1>
<div id="layout"><div id="boardcol"><p id="viewing" hidden></p><div id="board"></div></div><div id="side">
<p id="status">connecting…</p><p id="error"></p>
<div id="lastmove"></div>
<pre id="cardtext" hidden></pre>
<div id="choice" hidden></div>
<div id="legal"></div>
<p><button id="undo" hidden>undo my last move</button></p>
<div id="scores"></div>
<h2>Analysis</h2>
<p><button id="analyze">analyze this position</button> <span id="analysis-status"></span></p>
<div id="analysis"></div><div id="winprob"></div>
<h2>Moves</h2><ol id="log"></ol>
</div></div>
<script>
const GAME = {json.dumps(gid)};
let state = null, socket = null, moves = [], viewing = null, svgParts = [], analysisStep = null, ticking = null;
function stopTicking() {{ if (ticking) clearInterval(ticking); ticking = null; }}
const el = id => document.getElementById(id);
function text(tag, t, cls) {{ const e = document.createElement(tag); e.textContent = t; if (cls) e.className = cls; return e; }}
function moveText(m) {{ return `${{m.name}} (${{m.player}}): ${{m.move}}`; }}
const COLORS = {json.dumps(NATION_COLORS)};
function placeSelector(pl) {{
  return Object.entries(pl).map(([k, v]) => k === "class" ? "." + CSS.escape(v) : `[data-${{k}}="${{CSS.escape(v)}}"]`).join("");
}}
function offer(actions, where) {{          // several legal actions share a place: choose among them
  if (actions.length === 1) {{ act(actions[0].action); return; }}
  el("choice").hidden = false;
  const cancel = text("button", "cancel"); cancel.onclick = () => {{ el("choice").hidden = true; where.forEach(e => e.classList.remove("chosen")); }};
  el("choice").replaceChildren(text("p", "choose:"), ...actions.map(a => {{
    const b = text("button", a.name); b.dataset.action = a.action; b.onclick = () => act(a.action); return b; }}), cancel);
  where.forEach(e => e.classList.add("chosen"));
}}
function markPlaces(legal) {{             // the board's elements that choose a legal action
  const groups = new Map();
  legal.filter(a => a.place).forEach(a => {{
    const key = placeSelector(a.place);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(a);
  }});
  for (const [sel, actions] of groups) {{
    const found = [...el("board").querySelectorAll(sel)];
    found.forEach(e => {{
      e.classList.add("target"); e.dataset.actions = actions.map(a => a.action).join(" ");
      e.addEventListener("click", () => offer(actions, found));
      e.setAttribute("tabindex", "0"); e.setAttribute("role", "button");     // Tab reaches it, Enter plays it
      e.setAttribute("aria-label", actions.map(a => a.name).join("; "));
      e.addEventListener("keydown", ev => {{
        if (ev.key === "Enter" || ev.key === " ") {{ ev.preventDefault(); offer(actions, found); }} }});
      const card = e.querySelector("title");     // a card's text stays below the moves
      const t = card || e.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "title"));
      t.textContent = actions.map(a => a.name).join("\\n") + (card ? "\\n\\n" + card.textContent : "");
    }});
  }}
}}
function logItem(m) {{                  // a move of the list: a click opens the position it was played from
  const li = text("li", moveText(m)); li.value = m.step; li.dataset.step = m.step;
  li.onclick = () => showPosition(m.step); return li;
}}
function updateLog(s) {{                 // the whole move list, kept here and sent a move at a time
  if (s.step === moves.length + 1 && s.last_move && s.last_move.step === moves.length) {{
    moves.push(s.last_move); el("log").appendChild(logItem(s.last_move));
  }} else if (s.step !== moves.length) {{
    fetch(`/api/games/${{GAME}}/moves`).then(r => r.json()).then(j => {{
      moves = j.moves; el("log").replaceChildren(...moves.map(logItem)); markLast(); }});
  }}
  markLast();
}}
function markLast() {{
  el("log").querySelectorAll("li").forEach(li => li.classList.toggle("last", +li.dataset.step === moves.length - 1));
  el("log").querySelectorAll("li").forEach(li => li.classList.toggle("shown", viewing !== null && +li.dataset.step === viewing));
}}
function markLastMove(m) {{              // the place of the last move, where the board still draws it
  if (!m || !m.place) return;
  el("board").querySelectorAll(placeSelector(m.place)).forEach(e => e.classList.add("lastmove"));
}}
function cardTexts() {{                  // a tap (or click) on a card that is not a move shows its text
  el("board").querySelectorAll("title").forEach(t => {{
    const e = t.parentElement;
    if (!e.classList.contains("target"))
      e.addEventListener("click", () => {{ el("cardtext").textContent = t.textContent; el("cardtext").hidden = false; }});
  }});
}}
function showPosition(k) {{              // read-only: the board before move k, until "back to the game"
  fetch(`/api/games/${{GAME}}/at/${{k}}`).then(r => r.json()).then(p => {{
    if (p.error) {{ el("error").textContent = p.error; return; }}
    viewing = k;
    el("board").innerHTML = p.svg;
    markLastMove(p.move);
    const back = text("button", "back to the game"); back.id = "back";
    back.onclick = () => {{ viewing = null; el("viewing").hidden = true; draw(state); }};
    el("viewing").replaceChildren(text("span", `before move ${{k + 1}} (read-only): ` +
      (p.move ? moveText(p.move) + " was played here. " : "")), back);
    el("viewing").hidden = false;
    el("legal").hidden = true;
    markLast();
  }});
}}
function draw(s) {{
  state = s;
  updateLog(s);
  if (viewing !== null) return;          // an earlier position is shown: the game goes on behind it
  el("legal").hidden = false;
  el("board").innerHTML = s.svg;
  el("choice").hidden = true;
  markPlaces(s.legal);
  markLastMove(s.last_move);
  cardTexts();
  if (analysisStep !== null && analysisStep !== s.step) {{     // an analysis shown is of an earlier position
    const label = el("analysis").querySelector(".analysis-step");
    if (label) label.textContent = `analysis of step ${{analysisStep}} (an earlier position: the game is at step ${{s.step}})`;
  }}
  const who = s.to_move === null ? null : s.seats[s.to_move];
  el("status").dataset.step = s.step;
  el("status").textContent = s.over ? "the game is over" :
    `step ${{s.step}}, turn ${{s.turn}}, ${{who.player}} to move: ${{s.decision_text}}` +
    (s.solitaire ? ` (${{s.seats[0].name}}: ${{s.solitaire.vp}} VP of the ${{s.solitaire.target}} to win)` : "") +
    (s.you ? (s.you.length ? ` (you play ${{s.you.map(p => s.seats[p].name).join(", ")}})` : " (you watch)") : "") +
    (s.failure ? ` (stopped: ${{s.failure}})` : "");
  el("lastmove").replaceChildren(...(s.last_move ? [text("p", `last move (step ${{s.last_move.step}}): ` + moveText(s.last_move), "last")] : []));
  el("legal").replaceChildren(...s.legal.map(a => {{
    const b = text("button", a.name); b.dataset.action = a.action;
    b.onclick = () => act(a.action); return b; }}));
  el("undo").hidden = !s.can_undo;
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
function showAnalysis(m) {{
  if (m.step !== state.step) return;
  stopTicking();
  el("analysis-status").textContent = "";
  analysisStep = m.step;
  const rows = [text("p", `analysis of step ${{m.step}}`, "analysis-step")];
  if (m.search) {{
    const who = state.seats[m.search.seat].name;
    rows.push(text("p", `${{m.search.agent}}, ${{m.search.simulations}} simulations, for ${{who}} (its information set only)`));
    const t = document.createElement("table"); t.id = "analysis-table";
    t.appendChild(text("tr", "")).append(...["move", "visits", "", "value"].map(h => text("th", h)));
    m.search.moves.forEach((mv, i) => {{
      const tr = t.appendChild(text("tr", "", i === 0 ? "best" : "")); tr.dataset.action = mv.action;
      const bar = document.createElement("td"); bar.className = "bar";
      const d = document.createElement("div"); d.style.width = (100 * mv.share).toFixed(1) + "%"; bar.appendChild(d);
      tr.append(text("td", mv.name), text("td", (100 * mv.share).toFixed(1) + "%"), bar,
                text("td", mv.value === null ? "-" : mv.value.toFixed(3)));
    }});
    rows.push(t);
  }}
  el("analysis").replaceChildren(...rows);
  const wp = m.win_probability;
  if (wp.error) {{ el("winprob").replaceChildren(text("p", "win probability: " + wp.error)); return; }}
  el("winprob").innerHTML = plot(wp.p);
}}
function plot(p) {{                        // each seat's win probability along the game, as an SVG
  const W = 320, H = 160, L = 28, B = 18, n = Math.max(p.length - 1, 1);
  const x = k => L + (W - L - 4) * k / n, y = v => 4 + (H - B - 4) * (1 - v);
  let out = `<svg id="winprob-plot" width="${{W}}" height="${{H}}" viewBox="0 0 ${{W}} ${{H}}" font-size="10">`;
  [0, 0.25, 0.5, 0.75, 1].forEach(v => out += `<line x1="${{L}}" x2="${{W - 4}}" y1="${{y(v)}}" y2="${{y(v)}}" stroke="#ddd"/>` +
    `<text x="${{L - 3}}" y="${{y(v) + 3}}" text-anchor="end">${{v}}</text>`);
  out += `<text x="${{W - 4}}" y="${{H - 4}}" text-anchor="end">move ${{p.length - 1}}</text>`;
  state.seats.forEach((seat, j) => {{
    const pts = p.map((row, k) => `${{x(k).toFixed(1)}},${{y(row[j]).toFixed(1)}}`).join(" ");
    out += `<polyline class="seat-curve" data-seat="${{j}}" fill="none" stroke-width="2" stroke="${{COLORS[seat.name.toLowerCase()] || "#000"}}" points="${{pts}}"><title>${{seat.name}}: ${{(100 * p[p.length - 1][j]).toFixed(0)}}% now</title></polyline>`;
  }});
  return out + "</svg><p>" + state.seats.map((seat, j) => `${{seat.name}} ${{(100 * p[p.length - 1][j]).toFixed(0)}}%`).join(", ") +
    " (the shipped network's win probability, each seat from its own view)</p>";
}}
el("analyze").onclick = () => {{
  if (!connected()) return;
  const t0 = Date.now();
  stopTicking();
  const tick = () => el("analysis-status").textContent = `analysing step ${{state.step}}… ` +
    `${{Math.round((Date.now() - t0) / 1000)}} s (a search of the seat to move's information set)`;
  tick(); ticking = setInterval(tick, 1000);
  socket.send(JSON.stringify({{type: "analyze", step: state.step}}));
}};
function connected() {{                  // a move made while the connection is down is not lost in silence
  if (socket && socket.readyState === WebSocket.OPEN) return true;
  el("error").textContent = "not connected to the server (reconnecting…): nothing was sent; try again in a moment";
  return false;
}}
function act(a) {{
  if (!connected()) return;
  el("error").textContent = "";
  socket.send(JSON.stringify({{type: "act", step: state.step, seat: state.to_move, action: a}}));
}}
el("undo").onclick = () => {{
  if (!connected()) return;
  el("error").textContent = "";
  socket.send(JSON.stringify({{type: "undo", step: state.step}}));
}};
function connect() {{
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${{proto}}//${{location.host}}/ws/${{GAME}}${{location.search}}`);
  socket.onmessage = ev => {{
    const m = JSON.parse(ev.data);
    if (m.type === "state") {{                // the picture whole, or how it changed from the one held
      if (m.svg_parts) svgParts = m.svg_parts;
      else svgParts = m.svg_patch.flatMap(op => typeof op[0] === "number" ? svgParts.slice(op[0], op[1]) : op);
      m.svg = svgParts.join("");
      draw(m);
    }} else if (m.type === "analysis") showAnalysis(m);
    else if (m.type === "error") {{ el("error").textContent = m.error; stopTicking(); el("analysis-status").textContent = ""; }}
  }};
  socket.onclose = () => {{ el("status").textContent = "disconnected: reconnecting…"; setTimeout(connect, 1000); }};
}}
connect();
</script></body></html>"""


def watch_index_html(files: list[dict]) -> str:
    """The records files offered (`v1919 serve --records`), each a link to its games."""
    rows = "".join(f'<tr><td><a href="/watch/{k}">{escape(f["file"])}</a></td><td>{len(f["games"])}</td>'
                   f'<td>{escape(f["error"] or "")}</td></tr>' for k, f in enumerate(files))
    return f"""<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Versailles 1919: watch</title>
<style>{STYLE}</style></head><body>
<h1><a href="/">Versailles 1919</a>: records files</h1>
<table><tr><th>file</th><th>games</th><th></th></tr>{rows}</table></body></html>"""


def live_script(k: int, game: int, decisions: int) -> str:
    """Appended to the replay viewer of a game in progress: every 2 s it asks how far the game is; at
    a new move it shows it (the page reloads at the new last step, or where the watcher has stepped
    back to); when the game has ended it says so and links to the list, where its record now is."""
    return f"""<p id="live" style="position:fixed;top:0;right:0;margin:0;padding:4px 8px;background:#ffd">following game {game}: {decisions} moves</p>
<script>
(function () {{
  const shown = {decisions};
  async function poll() {{
    try {{
      const j = await (await fetch("/api/watch/{k}/live/{game}" + location.search)).json();
      const el = document.getElementById("live");
      if (!j.playing) {{ el.innerHTML = 'the game has ended: its record is in <a href="/watch/{k}">the list of games</a>'; return; }}
      if (j.decisions > shown) {{
        const m = /step=(\\d+)/.exec(location.hash);
        if (!m || +m[1] >= shown) location.hash = "#step=" + j.decisions;
        location.reload();
        return;
      }}
    }} catch (e) {{ /* the server is away: try again */ }}
    setTimeout(poll, 2000);
  }}
  setTimeout(poll, 2000);
}})();
</script>"""


def watch_file_html(k: int, path: str) -> str:
    """The games of records file k, followed as the file grows (polled every 2 s); each opens the
    replay viewer, move by move; the games being played are listed above them, each followed move by
    move (live_script)."""
    return f"""<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Versailles 1919: {escape(path)}</title>
<style>{STYLE}</style></head><body>
<h1><a href="/">Versailles 1919</a>: <a href="/watch">watch</a>: {escape(path)}</h1>
<p id="status">reading…</p><p id="error"></p>
<p><a id="results" href="/watch/{k}/results" hidden>the tournament's results</a></p>
<h2 id="livehead" hidden>being played</h2>
<table id="live" hidden><tr><th>#</th><th>game</th><th>seats</th><th>decisions so far</th></tr></table>
<table id="games"><tr><th>#</th><th>game</th><th>seats (nation, score)</th><th>winners</th><th>decisions</th><th>forfeit</th></tr></table>
<script>
let shown = 0;
async function poll() {{
  try {{
    const r = await fetch("/api/watch/{k}" + location.search);
    const j = await r.json();
    document.getElementById("error").textContent = j.error || "";
    document.getElementById("results").hidden = !j.results;
    const t = document.getElementById("games");
    for (const g of j.games.slice(shown)) {{
      const tr = t.insertRow(); tr.className = "game";
      const a = document.createElement("a"); a.href = `/watch/{k}/${{g.position}}`; a.textContent = "replay";
      tr.insertCell().appendChild(a);
      [g.game, g.players.join(", "), g.winners.join(", "), g.decisions, g.forfeit || ""].forEach(v => tr.insertCell().textContent = v);
    }}
    shown = Math.max(shown, j.games.length);
    const live = document.getElementById("live");
    while (live.rows.length > 1) live.deleteRow(1);
    for (const g of j.live || []) {{
      const tr = live.insertRow(); tr.className = "live";
      const a = document.createElement("a"); a.href = `/watch/{k}/live/${{g.game}}`; a.textContent = "follow";
      tr.insertCell().appendChild(a);
      [g.game, g.seats.join(", "), g.decisions].forEach(v => tr.insertCell().textContent = v);
    }}
    live.hidden = document.getElementById("livehead").hidden = !(j.live || []).length;
    document.getElementById("status").textContent = `${{shown}} games so far (new ones appear as they are written)`;
  }} catch (e) {{ document.getElementById("status").textContent = "the server does not answer: retrying…"; }}
  setTimeout(poll, 2000);
}}
poll();
</script></body></html>"""
