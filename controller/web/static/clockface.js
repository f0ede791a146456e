// Kaeshi clock face: a player's time as the table's clocks show it, one definition for
// the live page (app.js) and the tablet's clock page (clock.js). Under TENTHS_BELOW
// seconds it shows seconds and tenths, as the GPIO displays do
// (controller/clockhw/display.py).
"use strict";
const TENTHS_BELOW = 20;

function fmtClock(sec) {
  if (sec <= 0) return "0:00";
  const tenths = Math.ceil(sec * 10 - 1e-9);
  if (tenths < TENTHS_BELOW * 10) return (tenths / 10).toFixed(1);
  const total = Math.ceil(sec - 1e-9);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

// Both players' times from the last state the table sent, `base` = {black, white,
// running, paused, at (performance.now() when it came)}, the running one counted down
// since; `boxPrefix` + colour is the element marked "running" or "out".
function tickClocks(base, boxPrefix) {
  if (!base) return;
  const elapsed = (performance.now() - base.at) / 1000;
  for (const color of ["black", "white"]) {
    let left = base[color];
    if (typeof left !== "number") continue;
    const running = base.running === color && !base.paused;
    if (running) left -= elapsed;
    const box = document.getElementById(boxPrefix + color);
    document.getElementById("time-" + color).textContent = fmtClock(left);
    box.classList.toggle("running", running);
    box.classList.toggle("out", left <= 0);
  }
}
