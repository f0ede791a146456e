// Kaeshi live page: draws the snapshot the server streams, ticks the clocks in between.
"use strict";

const VIEW = document.body.dataset.view === "arbiter" ? "arbiter" : "player";
const COLS = "abcdefgh";
const TENTHS_BELOW = 20;

const $ = (id) => document.getElementById(id);
let snap = null;
let clockBase = null; // {black, white, running, paused, at}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else e.setAttribute(k, v);
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

function buildBoard() {
  const board = $("board");
  board.appendChild(el("div", { class: "corner" }));
  for (const c of COLS) board.appendChild(el("div", { class: "coord" }, c));
  for (let r = 1; r <= 8; r++) {
    board.appendChild(el("div", { class: "coord" }, String(r)));
    for (const c of COLS) {
      const cell = el("div", { class: "cell", "data-sq": c + r, title: c + r });
      cell.appendChild(el("div", { class: "disc" }));
      board.appendChild(cell);
    }
  }
}

const DISC = { X: "black", O: "white", x: "black shifted", o: "white shifted", "?": "unknown" };

function drawBoard(s) {
  const board = s.board || "";
  const overlay = s.overlay || {};
  const legal = $("show-legal").checked && s.legal ? new Set(s.legal) : new Set();
  for (let i = 0; i < 64; i++) {
    const sq = COLS[i % 8] + (Math.floor(i / 8) + 1);
    const cell = document.querySelector(`[data-sq="${sq}"]`);
    const disc = cell.firstChild;
    const kind = DISC[board[i]] || "";
    disc.className = "disc " + kind;
    cell.dataset.disc = kind ? kind.split(" ")[0] : "empty";
    const mark = overlay[sq];
    cell.classList.remove("lit", "steady", "slow_blink", "fast_blink", "breathe", "legal");
    cell.style.removeProperty("--lit");
    if (mark) {
      cell.classList.add("lit", mark.pattern);
      cell.style.setProperty("--lit", `rgb(${mark.rgb.join(",")})`);
    } else if (legal.has(sq)) {
      cell.classList.add("legal");
    }
  }
}

function fmtClock(sec) {
  if (sec <= 0) return "0:00";
  const tenths = Math.ceil(sec * 10 - 1e-9);
  if (tenths < TENTHS_BELOW * 10) return (tenths / 10).toFixed(1);
  const total = Math.ceil(sec - 1e-9);
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

function tickClocks() {
  if (!clockBase) return;
  const elapsed = (performance.now() - clockBase.at) / 1000;
  for (const color of ["black", "white"]) {
    let left = clockBase[color];
    if (typeof left !== "number") continue;
    const running = clockBase.running === color && !clockBase.paused;
    if (running) left -= elapsed;
    const box = $("clock-" + color);
    $("time-" + color).textContent = fmtClock(left);
    box.classList.toggle("running", running);
    box.classList.toggle("out", left <= 0);
  }
}

function drawClocks(s) {
  const c = s.clocks || {};
  clockBase = { black: c.black, white: c.white, running: c.running, paused: !!c.paused, at: performance.now() };
  let text = "";
  if (c.paused) text = "Clock paused";
  else if (!c.running) text = "Clock not started";
  if (c.flag) text = `${c.flag === "black" ? "Black" : "White"}'s flag has fallen`;
  $("clock-state").textContent = text;
  tickClocks();
}

function drawMoves(s) {
  const body = $("moves").tBodies[0];
  body.textContent = "";
  let row = null;
  let n = 0;
  for (const m of s.moves || []) {
    if (!row || m.player === "black") {
      n += 1;
      row = el("tr");
      row.appendChild(el("td", { class: "n" }, String(n)));
      row.appendChild(el("td"));
      row.appendChild(el("td"));
      body.appendChild(row);
    }
    const col = m.player === "black" ? 1 : 2;
    const cell = row.children[col];
    cell.textContent = m.square || "pass";
    cell.dataset.square = m.square || "pass";
    cell.dataset.player = m.player;
    if (m.player === "white") row = null;
  }
}

const KIND_TEXT = {
  forgotten_flip: "forgotten flip",
  over_flip: "over-flip",
  wrong_color: "wrong colour",
  illegal_square: "illegal square",
  extra_disc: "extra disc",
  removed_disc: "removed disc",
  shifted_disc: "shifted disc",
  illegal_pass: "illegal pass",
};

function drawFlags(s) {
  const box = $("flags");
  const list = $("irregularities");
  list.textContent = "";
  const items = s.irregularities || [];
  box.hidden = !("irregularities" in s);
  for (const it of items) {
    const text = `${it.player}: ${KIND_TEXT[it.kind] || it.kind} — ${(it.squares || []).join(" ")}`;
    list.appendChild(el("li", { "data-kind": it.kind }, text));
  }
  if ("irregularities" in s && !items.length) list.appendChild(el("li", { class: "none" }, "none"));
}

function describeEvent(e) {
  switch (e.event) {
    case "move": return `${e.player} ${e.square}` + (e.flips && e.flips.length ? ` (${e.flips.join(" ")})` : "");
    case "pass": return `${e.player} passes`;
    case "irregularity": return `${e.player}: ${KIND_TEXT[e.kind] || e.kind} ${(e.squares || []).join(" ")}`;
    case "corrected": return `corrected: ${KIND_TEXT[e.kind] || e.kind} ${(e.squares || []).join(" ")}`;
    case "game_over": return `game over ${e.black}–${e.white}, ` + (e.winner === "draw" ? "draw" : `${e.winner} wins`);
    default: return e.event;
  }
}

function drawEvents(s) {
  const list = $("events");
  if (!list) return;
  list.textContent = "";
  for (const e of (s.events || []).slice(-12)) {
    list.appendChild(el("li", { class: e.event }, `${Number(e.t).toFixed(1)} s  ${describeEvent(e)}`));
  }
}

const SAYS = { true: "signed", false: "disputes", null: "not yet signed" };

function drawSignoff(s) {
  const box = $("signoff");
  const card = s.signoff;
  box.hidden = !card;
  if (!card) return;
  const winner = card.winner === "draw" ? "draw" : `${card.winner} wins`;
  $("signoff-text").textContent = `${card.black}–${card.white}, ${winner}. Black: ` +
    `${SAYS[card.black_says]}; White: ${SAYS[card.white_says]}` +
    (card.status === "disputed" || card.status === "flagged" ? " — the arbiter is called." : ".");
}

async function dispute(color) {
  await fetch("/api/dispute", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ color }),
    credentials: "same-origin",
  }).catch(() => {});
}

const LATE_TEXT = {
  absent: "has not come: the arbiter starts their time with the other player's press",
  clock_running: "has not come: their time runs",
  arrived: "has arrived: plays on or takes the forfeit",
  playing: "came late and plays on",
  forfeit: "came late and took the forfeit (not rated)",
  timed_out: "did not come before their time ran out",
};

function drawLate(s) {
  const p = $("late");
  const x = s.late;
  p.hidden = !x;
  if (x) p.textContent = `${x.late} ${LATE_TEXT[x.state] || x.state}`;
}

function render(s) {
  snap = s;
  document.body.dataset.mode = s.mode || "";
  $("mode").textContent = s.mode || "";
  $("state").textContent = (s.state || "").replaceAll("_", " ");
  $("state").dataset.state = s.state || "";
  $("legal-toggle").hidden = !(s.mode === "home" && VIEW === "player");
  const players = s.players || {};
  $("name-black").textContent = players.black || "Black";
  $("name-white").textContent = players.white || "White";
  const counts = s.counts || {};
  $("count-black").textContent = counts.black ?? "";
  $("count-white").textContent = counts.white ?? "";
  for (const color of ["black", "white"]) {
    $("clock-" + color).classList.toggle("to-move", s.to_move === color);
  }
  $("message").textContent = s.message || "";
  if ($("position")) $("position").textContent = s.position || "";
  drawBoard(s);
  drawClocks(s);
  drawMoves(s);
  drawFlags(s);
  drawEvents(s);
  drawSignoff(s);
  drawLate(s);
}

function connect() {
  const source = new EventSource(`/events?view=${VIEW}`);
  source.addEventListener("state", (ev) => {
    $("conn").textContent = "live";
    $("conn").classList.remove("lost");
    render(JSON.parse(ev.data));
  });
  source.addEventListener("error", () => {
    $("conn").textContent = "connection lost — retrying";
    $("conn").classList.add("lost");
  });
}

async function act(action, body) {
  const out = $("action-result");
  out.textContent = "…";
  try {
    const r = await fetch(`/api/arbiter/${action}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
      credentials: "same-origin",
    });
    const data = await r.json().catch(() => ({}));
    out.textContent = r.ok ? `done: ${action.replaceAll("_", " ")}` : `refused: ${data.error || r.status}`;
    out.classList.toggle("bad", !r.ok);
  } catch (err) {
    out.textContent = `no answer from the service: ${err}`;
    out.classList.add("bad");
  }
}

function wireControls() {
  if (VIEW !== "arbiter") return;
  for (const b of document.querySelectorAll("[data-action]")) {
    b.addEventListener("click", () => act(b.dataset.action,
      b.dataset.color ? { color: b.dataset.color } : undefined));
  }
  $("adjust").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = ev.target;
    act("adjust_time", { color: f.color.value, seconds: Number(f.seconds.value) });
  });
  $("copy-board").addEventListener("click", () => {
    if (snap && snap.board) $("correct-board").value = snap.board.replace(/x/g, "X").replace(/o/g, "O");
  });
  $("correct").addEventListener("submit", (ev) => {
    ev.preventDefault();
    act("correct_position", { board: $("correct-board").value.trim() });
  });
}

for (const b of document.querySelectorAll("[data-dispute]")) {
  b.addEventListener("click", () => dispute(b.dataset.dispute));
}
buildBoard();
$("show-legal").addEventListener("change", () => snap && drawBoard(snap));
wireControls();
connect();
setInterval(tickClocks, 100);
