// Kaeshi camera page: the phone over the board streams JPEG frames to the table,
// each stamped with its capture time on this device, and shows what the table sees.
"use strict";
const $ = (id) => document.getElementById(id);
const deviceNow = () => performance.timeOrigin + performance.now();
const BACKLOG_SECONDS = 20; // frames kept while the table cannot be reached
let ws = null, asked = null, seq = 0, stream = null, wakeLock = null;
let synced = false, sentTimes = [], backlog = [], lastStatus = null, lastGrab = 0;
const grab = document.createElement("canvas");

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${scheme}//${location.host}/ws/camera${location.search}`);
  ws.binaryType = "arraybuffer";
  synced = false;
  ws.onopen = () => { setConn("connected", "ok"); sendHealth(); };
  ws.onclose = () => { setConn("reconnecting", "bad"); synced = false; setTimeout(connect, 1000); };
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "ping") ws.send(JSON.stringify({ type: "pong", id: m.id, t: deviceNow() }));
    else if (m.type === "status") onStatus(m);
  };
}

function setConn(text, kind) { const c = $("conn"); c.textContent = text; c.className = kind; }

function onStatus(m) {
  lastStatus = m;
  const s = m.sync || {};
  synced = !!s.ready;
  $("sync").textContent = s.ready ? `sync ±${Math.round(s.uncertainty_ms)} ms` : "sync …";
  $("sync").className = s.ready ? (s.good ? "ok" : "warn") : "warn";
  if (m.step) { $("step").textContent = m.step.text; $("step").dataset.step = m.step.step; }
  const cam = m.camera;
  if (!cam) return;
  if (!asked) { asked = cam; startCamera(); }
  $("board").textContent = cam.board ? "board found" : "board not found";
  $("board").className = cam.board ? "ok" : "bad";
  $("hand").textContent = cam.hand ? "hand in view" : "";
  $("moved").textContent = cam.moved ? "camera moved" : "";
  $("moved").className = "warn";
  const fix = $("fix");
  fix.replaceChildren(...cam.fix.map((t) => { const li = document.createElement("li"); li.textContent = t; return li; }));
  drawGrid(cam.corners);
  if (synced) flushBacklog();
}

async function startCamera() {
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: false, video: {
      facingMode: { ideal: "environment" }, width: { ideal: asked.width },
      height: { ideal: asked.height }, frameRate: { ideal: asked.fps } } });
  } catch (err) {
    setConn(`no camera: ${err.name}`, "bad");
    $("start").hidden = false;
    return;
  }
  const video = $("video");
  video.srcObject = stream;
  await video.play().catch(() => {});
  keepAwake();
  grab.width = asked.width; grab.height = asked.height;
  if ("requestVideoFrameCallback" in video) video.requestVideoFrameCallback(onVideoFrame);
  else setInterval(() => onVideoFrame(), 1000 / asked.fps / 2);
}

function onVideoFrame() {
  const video = $("video");
  if ("requestVideoFrameCallback" in video) video.requestVideoFrameCallback(onVideoFrame);
  const t = deviceNow();
  if (t - lastGrab < 1000 / asked.fps - 8) return;
  lastGrab = t;
  grab.getContext("2d").drawImage(video, 0, 0, grab.width, grab.height);
  grab.toBlob((blob) => blob && blob.arrayBuffer().then((jpeg) => sendFrame(t, jpeg)),
              "image/jpeg", 0.85);
}

function packFrame(t, jpeg) {
  const out = new Uint8Array(12 + jpeg.byteLength);
  const head = new DataView(out.buffer);
  seq += 1;
  head.setFloat64(0, t, true);
  head.setUint32(8, seq, true);
  out.set(new Uint8Array(jpeg), 12);
  return out.buffer;
}

function sendFrame(t, jpeg) {
  const frame = packFrame(t, jpeg);
  sentTimes.push(t);
  sentTimes = sentTimes.filter((x) => x > t - 1000);
  $("rate").textContent = `${sentTimes.length} fps`;
  if (ws && ws.readyState === WebSocket.OPEN && synced && backlog.length === 0) {
    if (ws.bufferedAmount < (1 << 20)) ws.send(frame);
  } else {
    backlog.push({ t, frame });
    const keep = deviceNow() - BACKLOG_SECONDS * 1000;
    while (backlog.length && backlog[0].t < keep) backlog.shift();
  }
}

function flushBacklog() {
  while (backlog.length && ws.readyState === WebSocket.OPEN && ws.bufferedAmount < (4 << 20)) {
    ws.send(backlog.shift().frame);
  }
}

function drawGrid(corners) {
  const canvas = $("overlay"), video = $("video");
  const w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = w; canvas.height = h;
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, w, h);
  if (!corners || corners.length !== 4 || !video.videoWidth) return;
  const scale = Math.min(w / video.videoWidth, h / video.videoHeight);
  const ox = (w - video.videoWidth * scale) / 2, oy = (h - video.videoHeight * scale) / 2;
  const px = ([x, y]) => [ox + x * video.videoWidth * scale, oy + y * video.videoHeight * scale];
  const [a, b, c, d] = corners.map(px);
  const lerp = (p, q, f) => [p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f];
  ctx.strokeStyle = lastStatus && lastStatus.camera.board ? "#3f3" : "#f55";
  ctx.lineWidth = 2;
  for (let i = 0; i <= 8; i++) {
    const f = i / 8;
    for (const [p, q] of [[lerp(a, b, f), lerp(d, c, f)], [lerp(a, d, f), lerp(b, c, f)]]) {
      ctx.beginPath(); ctx.moveTo(...p); ctx.lineTo(...q); ctx.stroke();
    }
  }
}

async function keepAwake() {
  try {
    if ("wakeLock" in navigator && document.visibilityState === "visible") {
      wakeLock = await navigator.wakeLock.request("screen");
      $("awake").textContent = "screen kept on";
    }
  } catch (err) {
    $("awake").textContent = "screen may sleep";
  }
}

let battery = null;
async function sendHealth() {
  if (!battery && navigator.getBattery) battery = await navigator.getBattery().catch(() => null);
  if (!ws || ws.readyState !== WebSocket.OPEN) return;
  ws.send(JSON.stringify({ type: "health", visible: document.visibilityState === "visible",
    battery: battery ? battery.level : null, charging: battery ? battery.charging : null }));
}

document.addEventListener("visibilitychange", () => {
  sendHealth();
  if (document.visibilityState === "visible") keepAwake();
});
$("start").addEventListener("click", () => { $("start").hidden = true; startCamera(); });
setInterval(sendHealth, 2000);
connect();
