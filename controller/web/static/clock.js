// Kaeshi clock page: each half is a player's clock button; a tap is a press stamped
// with this device's time, sent to the table, which runs the clock and shows it here
// (the times drawn by /static/clockface.js, as on the live page).
"use strict";
const $ = (id) => document.getElementById(id);
const deviceNow = () => performance.timeOrigin + performance.now();
let ws = null, synced = false, seq = 0, unsent = [], clockBase = null, presses = 0;

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${scheme}//${location.host}/ws/clock${location.search}`);
  synced = false;
  ws.onopen = () => setConn("connected", "ok");
  ws.onclose = () => { setConn("reconnecting", "bad"); synced = false; setTimeout(connect, 1000); };
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "ping") ws.send(JSON.stringify({ type: "pong", id: m.id, t: deviceNow() }));
    else if (m.type === "status") {
      const s = m.sync || {};
      synced = !!s.ready;
      $("sync").textContent = s.ready ? `sync ±${Math.round(s.uncertainty_ms)} ms` : "sync …";
      $("sync").className = s.ready ? (s.good ? "ok" : "warn") : "warn";
      flush();
    }
  };
}

function setConn(text, kind) { const c = $("conn"); c.textContent = text; c.className = kind; }

function flush() {
  // a press made while the table was out of reach keeps its own time and goes now
  while (unsent.length && synced && ws.readyState === WebSocket.OPEN) {
    const p = unsent.shift();
    seq += 1;
    ws.send(JSON.stringify(p.type === "press" ? { type: "press", color: p.color, t: p.t, seq }
                                              : { type: "pause", t: p.t, seq }));
    presses += 1;
    $("sent").textContent = `${presses} sent`;
  }
}

function tap(kind, color) {
  unsent.push({ type: kind, color, t: deviceNow() });
  flush();
}

for (const half of document.querySelectorAll(".half")) {
  half.addEventListener("pointerdown", (e) => { e.preventDefault(); tap("press", half.dataset.color); });
}
$("pause").addEventListener("click", () => tap("pause"));

function onState(s) {
  const c = s.clocks || {};
  const over = s.state === "game_over";
  clockBase = { black: c.black, white: c.white, running: over ? null : c.running,
                paused: over || !!c.paused, at: performance.now() };
  let text = "";
  if (c.enabled === false) text = "Played without a clock";
  else if (over) text = "Game over";
  else if (c.paused) text = "Clock paused";
  else if (!c.running) text = "White taps to start black's time";
  if (c.flag) text = `${c.flag === "black" ? "Black" : "White"}'s flag has fallen`;
  if (s.state === "sensor_lost") text = `${text} — the camera's view is gone: judgement waits`.trim();
  $("state").textContent = text;
  tickClocks(clockBase, "half-");
}

const events = new EventSource("/events?view=player");
events.addEventListener("state", (e) => onState(JSON.parse(e.data)));
setInterval(() => tickClocks(clockBase, "half-"), 100);
connect();
