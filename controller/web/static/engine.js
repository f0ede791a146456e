// The engine panel of a home table's page: which engine plays, whether it is there,
// its move to carry out, and hints on request. Only a home game's state carries an
// "engine" entry (tournament rule 21), so elsewhere the panel never appears.
"use strict";
(function () {
  if (document.body.dataset.view === "arbiter") return;
  const panel = document.createElement("section");
  panel.id = "engine-panel";
  panel.className = "engine-panel";
  panel.hidden = true;
  panel.innerHTML =
    '<h2>Engine</h2><p id="engine-status"></p><p id="engine-move"></p>' +
    '<form id="engine-choice"><label>engine plays <select id="engine-plays">' +
    '<option value="none">nobody</option><option value="black">black</option>' +
    '<option value="white">white</option></select></label> ' +
    '<label>level <input id="engine-level" type="number" min="1" max="60" size="3"></label> ' +
    '<button type="submit">Set</button></form>' +
    '<p><button type="button" id="hint-best">Best move</button> ' +
    '<button type="button" id="hint-heat">Score every move</button></p>' +
    '<ol id="engine-hints"></ol><p id="engine-error" role="status"></p>';
  (document.querySelector(".side") || document.body).appendChild(panel);
  // the engine's instruction also stands right under the board, where the player looks
  const say = document.createElement("p");
  say.id = "engine-say";
  say.className = "engine-say";
  say.hidden = true;
  const board = document.getElementById("board");
  if (board) board.after(say);
  const $ = (id) => document.getElementById(id);

  function render(s) {
    const e = s.engine;
    panel.hidden = !e;
    if (!e) {
      say.hidden = true;
      return;
    }
    const who = e.plays ? `plays ${e.plays}` : "hints only";
    const named = e.level_name ? ` ${e.level_name}` : "";
    let status = `${e.name} (${e.protocol}, level ${e.level}${named}), ${who}: ${e.status}`;
    if (e.gone) status = `The engine is gone (${e.problem}). Play on: both sides are yours.`;
    else if (e.problem) status += ` (last problem: ${e.problem})`;
    $("engine-status").textContent = status;
    if (document.activeElement !== $("engine-level")) $("engine-level").value = e.level;
    if (document.activeElement !== $("engine-plays")) $("engine-plays").value = e.plays || "none";
    $("engine-status").className = e.gone ? "engine-gone" : "";
    const m = e.move;
    // the one text of the engine move's state (controller/engine/home.py)
    const text = m ? m.text || "" : (e.done && e.done.text) || "";
    $("engine-move").textContent = text;
    say.textContent = text;
    say.hidden = !text;
    $("engine-move").dataset.stage = m ? m.stage || "" : e.done ? "done" : "";
    const list = $("engine-hints");
    list.replaceChildren();
    if (e.hints) {
      for (const [sq, score] of Object.entries(e.hints.scores)) {
        const li = document.createElement("li");
        li.textContent = score === null ? sq : `${sq}: ${score > 0 ? "+" : ""}${score}`;
        list.appendChild(li);
      }
    }
  }

  async function ask(heat) {
    $("engine-error").textContent = "thinking…";
    try {
      const r = await fetch("/api/hint", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ heat }),
      });
      // a refusal is a sentence (app.js refusalText), never the answer's body
      $("engine-error").textContent = r.ok ? "" : await refusalText(r, "No hint");
    } catch (err) {
      $("engine-error").textContent = NO_ANSWER;
    }
  }
  $("engine-choice").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const r = await fetch("/api/engine", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ plays: $("engine-plays").value,
                               level: Number($("engine-level").value) }),
      });
      $("engine-error").textContent = r.ok ? "" : await refusalText(r, "Not changed");
    } catch (err) {
      $("engine-error").textContent = NO_ANSWER;
    }
  });
  $("hint-best").addEventListener("click", () => ask(false));
  $("hint-heat").addEventListener("click", () => ask(true));
  // the page's one event stream (app.js) hands every state on
  document.addEventListener("kaeshi:state", (ev) => render(ev.detail));
})();
