// Kaeshi live page: draws the snapshot the server streams, ticks the clocks in between.
"use strict";

const VIEW = document.body.dataset.view === "arbiter" ? "arbiter" : "player";

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

// A text as a sentence: a capital first letter and a full stop (controller/web/refusal.py).
function sentenceOf(text) {
  const t = String(text || "").replace(/\s+/g, " ").trim() || "the request was refused";
  const s = t[0].toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : s + ".";
}

// What a refused request says, as the sentence a person reads: the service's own
// reason (its JSON "error"), never the body itself. `what` names what did not happen.
const STATUS_SAYS = {
  403: "that needs the arbiter's login", 404: "this table has no such thing",
  429: "too many wrong tries: wait a little", 500: "the service failed: see its log",
  503: "the table is busy: try again in a moment",
};
async function refusalText(r, what) {
  let said = "";
  try {
    const body = JSON.parse(await r.text());
    if (body && typeof body.error === "string") said = body.error;
  } catch (_) { /* not JSON: the status says it */ }
  if (!said) said = STATUS_SAYS[r.status] || `the table answered ${r.status}`;
  return sentenceOf(what ? `${what}: ${said}` : said);
}
const NO_ANSWER = "No answer from the table: is the service running?";

const LEGAL_RGB = "0,255,60"; // plan_overlay's colour for a legal move
let draft = null; // the arbiter's position being set up, or null

function drawBoard(s) {
  const board = draft || s.board || "";
  const overlay = draft ? {} : s.overlay || {};
  const showLegal = $("show-legal").checked;
  const legal = showLegal && s.legal && s.mode === "home" && VIEW === "player" ? new Set(s.legal) : new Set();
  // every square an open flag names, outlined steadily (the overlay may blink on top)
  const flagged = draft ? [] : (s.flags || s.irregularities || []).flatMap((f) => f.squares || []);
  KaeshiBoard.draw($("board"), board, {
    size: s.size, coords: true, last: draft ? null : s.last_move, marks: flagged,
    decorate(cell, sq) {
      let mark = overlay[sq];
      if (mark && !showLegal && mark.rgb.join(",") === LEGAL_RGB) mark = null;
      cell.classList.remove("lit", "steady", "slow_blink", "fast_blink", "breathe", "legal");
      cell.style.removeProperty("--lit");
      if (mark) {
        cell.classList.add("lit", mark.pattern);
        cell.style.setProperty("--lit", `rgb(${mark.rgb.join(",")})`);
      } else if (legal.has(sq)) {
        cell.classList.add("legal");
      }
    },
  });
}

function drawClocks(s) {
  const c = s.clocks || {};
  const over = s.state === "game_over";
  clockBase = { black: c.black, white: c.white, running: over ? null : c.running, paused: over || !!c.paused, at: performance.now() };
  let text = "";
  if (c.enabled === false) text = "Played without a clock";
  else if (over) text = "Game over: the clock has stopped";
  else if (c.paused) text = "Clock paused";
  else if (!c.running) text = "Clock not started: white presses to start black's time";
  if (c.flag) text = `${c.flag === "black" ? "Black" : "White"}'s flag has fallen`;
  $("clock-state").textContent = text;
  for (const b of document.querySelectorAll('[data-action="pause"], [data-action="resume"]')) {
    const wanted = b.dataset.action === "pause" ? !c.paused : !!c.paused;
    b.disabled = over || c.enabled === false || !wanted;
  }
  for (const b of document.querySelectorAll('#adjust button, [data-action="accept_position"], #edit-start')) {
    b.disabled = over;
  }
  tickClocks(clockBase, "clock-");
}

function onMove(s, n) {
  return (s.history || []).filter((h) => h.n === n && h.status !== "withdrawn");
}

// One numbering everywhere: a move's number is its place in the game, 1–60 as on a
// paper kifu with passes counted, the same `n` the flags, history and records use.
function drawMoves(s) {
  const body = $("moves").tBodies[0];
  body.textContent = "";
  let row = null;
  for (const m of s.moves || []) {
    if (!row || m.player === "black") {
      row = el("tr");
      row.appendChild(el("td"));
      row.appendChild(el("td"));
      body.appendChild(row);
    }
    const cell = row.children[m.player === "black" ? 0 : 1];
    const marks = onMove(s, m.n);
    const illegalPass = !m.square && marks.some((h) => h.kind === "illegal_pass");
    cell.appendChild(el("span", { class: "n" }, `${m.n}.`));
    cell.appendChild(document.createTextNode(" " + (m.square || (illegalPass ? "pass (illegal)" : "pass"))));
    cell.dataset.square = m.square || "pass";
    cell.dataset.player = m.player;
    cell.dataset.n = m.n;
    if (marks.length) {
      cell.classList.add("irregular");
      cell.title = marks.map((h) => `${h.text}: ${h.status_text}`).join("\n");
    }
    if (m.player === "white") row = null;
  }
}

// An irregularity's short name, from the snapshot (controller/irregularities.py).
function kindName(kind) {
  return (snap && snap.kind_names && snap.kind_names[kind]) || kind;
}

function ago(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? `${s} s ago` : `${Math.floor(s / 60)} min ${s % 60} s ago`;
}

function gameNow() {
  if (!snap || typeof snap.now !== "number") return null;
  const running = snap.state !== "game_over" && snap.clocks && snap.clocks.running && !snap.clocks.paused;
  return snap.now + (running ? (performance.now() - clockBase.at) / 1000 : 0);
}

function drawFlags(s) {
  const box = $("flags");
  const list = $("irregularities");
  list.textContent = "";
  const open = s.history ? s.history.filter((h) => h.status === "open") : null;
  const items = open || (s.irregularities || []);
  // the one instruction of the flow's state (controller/irregular_flow.py): several
  // faults of one move get one combined instruction, below them all
  const flow = s.flow || {};
  const todo = flow.stage && flow.stage !== "clear" ? flow.todo || flow.text : "";
  box.hidden = !items.length && !todo;
  box.dataset.stage = flow.stage || "clear";
  for (const it of items) {
    const li = el("li", { "data-kind": it.kind });
    const who = it.player === "black" ? "Black" : "White";
    const head = el("p", { class: "flag-head" });
    head.appendChild(el("b", {}, `Move ${it.n ?? "?"} · ${who} · ${kindName(it.kind)} — ${(it.squares || []).join(" ")}`));
    head.appendChild(el("span", { class: "since", "data-t": it.t ?? "" }));
    li.appendChild(head);
    if (it.text) li.appendChild(el("p", { class: "flag-text" }, it.text + "."));
    list.appendChild(li);
  }
  if (todo) {
    const li = el("li", { class: "flow", "data-stage": flow.stage });
    li.appendChild(el("p", { class: "instruction" }, todo));
    list.appendChild(li);
  }
  tickSince();
}

function tickSince() {
  const now = gameNow();
  for (const e of document.querySelectorAll(".since[data-t]")) {
    const t = Number(e.dataset.t);
    e.textContent = now === null || e.dataset.t === "" ? "" : ` · flagged ${ago(now - t)}`;
  }
}

function drawHistory(s) {
  const box = $("history-box");
  const list = $("history");
  list.textContent = "";
  box.hidden = !("history" in s);
  const items = s.history || [];
  for (const h of items) {
    const li = el("li", { class: "h-" + h.status, "data-status": h.status, "data-n": h.n });
    li.appendChild(el("span", { class: "h-move" }, `Move ${h.n}`));
    li.appendChild(el("span", { class: "h-text" }, ` ${h.text}. `));
    li.appendChild(el("span", { class: "h-status" }, h.status_text));
    list.appendChild(li);
  }
  if ("history" in s && !items.length) list.appendChild(el("li", { class: "none" }, "none so far"));
}

function drawResult(s) {
  const r = s.result;
  const box = $("result");
  box.hidden = !r;
  if (!r) return;
  // a finished home game links to its review (controller/engine/report.py)
  $("result-review").hidden = !s.review_url;
  if (s.review_url) $("review-link").setAttribute("href", s.review_url);
  const players = s.players || {};
  const name = (c) => players[c] ? `${players[c]} (${c})` : c[0].toUpperCase() + c.slice(1);
  const head = r.winner === "draw" ? "Draw " : `${name(r.winner)} wins `;
  $("result-title").textContent = "Game over: " + head;
  // the score is never split over two lines (a phone's narrow column)
  $("result-title").appendChild(el("span", { class: "score" }, `${r.black}–${r.white}`));
  const why = { time: `${r.loser || "a player"} ran out of time`, both_flags: "both flags fell" }[r.reason];
  // one count everywhere (controller/records/irregular.py Entry.counts): a move taken
  // back and played again is listed, but is no irregularity of the game
  const history = s.history || [];
  const open = history.filter((h) => h.counts !== false).length;
  const back = history.length - open;
  const parts = [];
  if (why) parts.push(why[0].toUpperCase() + why.slice(1) + ".");
  const n = s.size || 8;
  const empty = n * n - r.black - r.white;
  parts.push(`Black ${r.black}, White ${r.white}` + (empty > 0 ? ` (the ${empty} empty square${empty > 1 ? "s go" : " goes"} to the winner).` : "."));
  // no draws in this event: the 伏せ石 gave the 32–32 board to the holder of the right
  if (r.decided_by === "draw_win_right") parts.push(`${name(r.winner)} holds the draw-win right (引き分け勝ち).`);
  if ("history" in s) {
    const taken = back ? ` (and ${back} move${back > 1 ? "s" : ""} taken back and played again)` : "";
    parts.push(open ? `${open} irregularit${open > 1 ? "ies" : "y"} in this game${taken}, listed below.`
                    : `No irregularities in this game${taken}.`);
  }
  $("result-detail").textContent = parts.join(" ");
}

function drawGraph(s) {
  const g = s.graph || [];
  const box = $("graph-box");
  box.hidden = g.length < 2;
  if (box.hidden) return;
  const svg = $("graph");
  const peak = Math.max(...g.map((p) => Math.max(p[0], p[1])));
  const W = 300, H = 120, top = Math.min(64, Math.max(16, Math.ceil(peak / 8) * 8));
  const x = (i) => 4 + (i * (W - 8)) / Math.max(1, g.length - 1);
  const y = (v) => H - 4 - (v * (H - 8)) / top;
  const line = (k) => g.map((p, i) => `${x(i).toFixed(1)},${y(p[k]).toFixed(1)}`).join(" ");
  svg.innerHTML =
    `<line x1="0" x2="${W}" y1="${y(top / 2)}" y2="${y(top / 2)}" class="mid"/>` +
    `<text x="4" y="12" class="axis">${top} discs</text><text x="${W - 4}" y="${H - 6}" class="axis end">move ${g.length - 1}</text>` +
    `<polyline points="${line(1)}" class="w"/><polyline points="${line(0)}" class="b"/>`;
}

function describeEvent(e) {
  switch (e.event) {
    case "move": return `${e.player} ${e.square}` + (e.flips && e.flips.length ? ` (${e.flips.join(" ")})` : "");
    case "pass": return `${e.player} passes`;
    case "irregularity": return `${e.player}: ${kindName(e.kind)} ${(e.squares || []).join(" ")}`;
    case "corrected": return `corrected: ${kindName(e.kind)} ${(e.squares || []).join(" ")}`;
    case "pointed_out": return `pointed out: ${e.player} must put ${(e.squares || []).join(" ")} right`;
    case "game_over": return `game over ${e.black}–${e.white}, ` + (e.winner === "draw" ? "draw" : `${e.winner} wins`);
    default: return e.event;
  }
}

// an event's game time as a clock reads it (h:mm:ss past an hour)
function gameTime(t) {
  const s = Math.max(0, Math.floor(Number(t) || 0));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

function drawEvents(s) {
  const list = $("events");
  if (!list) return;
  list.textContent = "";
  for (const e of s.events || []) {
    const n = typeof e.n === "number" ? `${e.n}. ` : "";
    list.appendChild(el("li", { class: "ev-" + e.event }, `${gameTime(e.t)}  ${n}${describeEvent(e)}`));
  }
  list.scrollTop = list.scrollHeight;
}

const SAYS = { true: "signed", false: "disputes", null: "not yet signed" };

function drawSignoff(s) {
  const box = $("signoff");
  const card = s.signoff;
  box.hidden = !card;
  if (!card) return;
  const winner = card.winner === "draw" ? "draw" : `${card.winner} wins`;
  // a side that has signed (or already disputes) is not offered to dispute
  for (const b of document.querySelectorAll("[data-dispute]")) {
    b.disabled = card[b.dataset.dispute + "_says"] !== null;
  }
  $("signoff-text").textContent = `${card.black}–${card.white}, ${winner}. Black: ` +
    `${SAYS[card.black_says]}; White: ${SAYS[card.white_says]}` +
    (card.status === "disputed" || card.status === "flagged" ? " — the arbiter is called." : ".");
}

async function dispute(color) {
  const out = $("signoff-said");
  try {
    const r = await fetch("/api/dispute", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ color }),
      credentials: "same-origin",
    });
    out.textContent = r.ok ? `${color === "black" ? "Black" : "White"} disputes the result: the arbiter is called.`
                           : await refusalText(r, "Not sent");
  } catch (err) {
    out.textContent = NO_ANSWER;
  }
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
  // rules 11-12 are for the start of a game: once it is under way or over, only the
  // steps of a late arrival already marked stay open
  const over = s.state === "game_over";
  const begun = (s.moves || []).length > 0;
  const from = { late_arrived: ["absent", "clock_running"], late_play_on: ["arrived"],
                 late_forfeit: ["arrived"] };
  for (const b of document.querySelectorAll('[data-action^="late"]')) {
    const action = b.dataset.action;
    b.disabled = over || (action === "late" ? begun || !!x : !x || !from[action].includes(x.state));
  }
}

// A table whose board comes from a phone: the phone and the tablet, as the table sees them.
function drawDevices(d) {
  const box = $("devices");
  box.hidden = !d;
  const qr = $("phone-qr");
  // the arbiter's view: the camera page's address with its key, until a phone opens it
  const key = snap && snap.device_key;
  qr.hidden = !d || typeof key !== "string" || !!(d.camera && d.camera.connected);
  if (!qr.hidden) {
    const src = `/phone/qr/camera.svg?key=${encodeURIComponent(key)}`;
    if (qr.querySelector("img").getAttribute("src") !== src) qr.querySelector("img").setAttribute("src", src);
    qr.querySelector("a").setAttribute("href", `/phone?key=${encodeURIComponent(key)}`);
  }
  if (!d) return;
  const part = (name, x) => {
    if (!x || !x.connected) return `${name}: not connected`;
    let t = `${name}: sync ${x.sync_ms == null ? "…" : "±" + Math.round(x.sync_ms) + " ms"}`;
    if (x.visible === false) t += ", page hidden";
    if (typeof x.battery === "number") t += `, battery ${Math.round(x.battery * 100)} %`;
    return t;
  };
  const a = d.advice || {};
  const view = a.board ? "board found" + (a.hand ? ", hand in view" : "") + (a.moved ? ", camera moved" : "")
                       : "board not in view";
  const f = d.frames || {};
  box.textContent = `${d.step ? d.step.text + " " : ""}${part("camera", d.camera)} · ${part("clock", d.clock)} · ${view}` +
    ` · frames ${f.read || 0} read, ${f.dropped || 0} dropped` + ((a.fix || []).length ? ` · fix: ${a.fix.join("; ")}` : "");
}

function render(s) {
  snap = s;
  document.body.dataset.mode = s.mode || "";
  document.body.dataset.state = s.state || "";
  $("mode").textContent = s.mode || "";
  $("state").textContent = (s.state || "").replaceAll("_", " ");
  $("state").dataset.state = s.state || "";
  $("legal-toggle").hidden = !(s.mode === "home" && VIEW === "player");
  const players = s.players || {};
  // the event, table, round and players, in the snapshot's one wording (controller/web/heading.py)
  const h = s.heading || {};
  $("heading").textContent = h.title || "Kaeshi";
  $("players-line").textContent = h.players || `${players.black || "Black"} vs ${players.white || "White"}`;
  document.title = h.tab || `${players.black || "Black"} vs ${players.white || "White"} — Kaeshi`;
  $("name-black").textContent = players.black || "Black";
  $("name-white").textContent = players.white || "White";
  const counts = s.counts || {};
  $("count-black").textContent = counts.black ?? "";
  $("count-white").textContent = counts.white ?? "";
  for (const color of ["black", "white"]) {
    $("clock-" + color).classList.toggle("to-move", s.to_move === color && s.state !== "game_over");
  }
  $("message").textContent = s.message || "";
  drawDevices(s.devices);
  drawBoard(s);
  drawClocks(s);
  drawMoves(s);
  drawFlags(s);
  drawHistory(s);
  drawResult(s);
  drawGraph(s);
  drawEvents(s);
  drawSignoff(s);
  drawLate(s);
}

function connect() {
  const source = new EventSource(`/events?view=${VIEW}`);
  source.addEventListener("state", (ev) => {
    $("conn").textContent = "live";
    $("conn").classList.remove("lost");
    const state = JSON.parse(ev.data);
    render(state);
    // other panels of the page (engine.js) follow the same stream, not one of their own
    document.dispatchEvent(new CustomEvent("kaeshi:state", { detail: state }));
  });
  source.addEventListener("error", () => {
    if (snap && snap.state === "game_over") {
      // the service may stop once its game is over (a replay that ended): nothing is lost
      $("conn").textContent = "game over · the table has stopped sending";
      $("conn").classList.remove("lost");
      return;
    }
    $("conn").textContent = "connection lost — retrying";
    $("conn").classList.add("lost");
    // a refused stream (the table's page is full: 503) is given up by the browser;
    // try again a little later
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
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
    const DONE = {
      pause: "Clock paused.", resume: "Clock running again.", adjust_time: "Time adjusted.",
      accept_position: "The board as it stands is now the position.", correct_position: "Position set.",
    };
    out.textContent = r.ok ? DONE[action] || "Done." : await refusalText(r, "Refused");
    out.classList.toggle("bad", !r.ok);
  } catch (err) {
    out.textContent = NO_ANSWER;
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
  $("edit-start").addEventListener("click", () => {
    if (!snap) return;
    draft = (snap.position || snap.board || "").replace(/x/g, "X").replace(/o/g, "O").replace(/\?/g, "-");
    $("edit-box").hidden = false;
    document.body.classList.add("editing");
    drawBoard(snap);
  });
  $("edit-cancel").addEventListener("click", () => {
    draft = null;
    $("edit-box").hidden = true;
    document.body.classList.remove("editing");
    if (snap) drawBoard(snap);
  });
  $("edit-apply").addEventListener("click", async () => {
    if (!draft) return;
    await act("correct_position", { board: draft });
    $("edit-cancel").click();
  });
  $("board").addEventListener("click", (ev) => {
    const cell = ev.target.closest("[data-sq]");
    if (!draft || !cell) return;
    const sq = cell.dataset.sq;
    const i = KaeshiBoard.index(sq, KaeshiBoard.sizeOf(draft, snap.size));
    const next = { "-": "X", X: "O", O: "-" }[draft[i]] || "-";
    draft = draft.slice(0, i) + next + draft.slice(i + 1);
    drawBoard(snap);
  });
}

for (const b of document.querySelectorAll("[data-dispute]")) {
  b.addEventListener("click", () => dispute(b.dataset.dispute));
}
KaeshiBoard.draw($("board"), "", { coords: true });
$("show-legal").addEventListener("change", () => snap && drawBoard(snap));
wireControls();
connect();
setInterval(() => tickClocks(clockBase, "clock-"), 100);
setInterval(tickSince, 1000);
