"use strict";
// One table in full for the arbiter: board with the flagged discs, clocks, what happens
// next, the game's events, and the arbiter's actions.
(() => {
  const { el } = Hub;
  const table = document.body.dataset.table;
  const msg = document.getElementById("msg");
  let game = null;
  let card = null;
  let draft = null; // the position being set up on the board, or null

  let kindNames = {}; // an irregularity's short name, from /api/table (controller/irregularities.py)

  function drawBoard() {
    const t = card || {};
    const flags = (t.irregularities || []).flatMap((f) => f.squares || []);
    Hub.board(document.getElementById("board"), draft || t.board, draft ? [] : flags,
      { coords: true, size: t.size });
  }

  function render(d) {
    kindNames = d.kind_names || {};
    const t = d.card;
    card = t;
    game = t.game || null;
    drawBoard();
    Hub.clocks(document.getElementById("clock-black"), document.getElementById("clock-white"), t.clock);
    document.getElementById("players").textContent =
      `${Hub.players(t)}${t.round !== null && t.round !== undefined ? ` · round ${t.round}` : ""}`;
    document.getElementById("progress").textContent = t.discs
      ? `move ${t.moves || 0} · discs ${t.discs.black}–${t.discs.white}` : "";
    document.getElementById("service").textContent = t.online ? (t.service || "").replace(/_/g, " ") : "offline";
    const a = t.attention || {};
    const box = document.getElementById("attention");
    const flags = t.irregularities || [];
    box.replaceChildren(...(flags.length ? flags.map((f) => el("div", { class: "flag-box" },
      el("p", { class: "attention" }, f.line || f.kind, f.at ? el("span", { class: "since", "data-at": f.at }, Hub.ago(f.at)) : null),
      f.text ? el("p", {}, `${f.text}.`) : null,
      el("p", { class: "instruction" }, f.instruction || "")))
      : [el("p", { class: "attention" }, a.reason ? `${a.reason}: ${a.detail}` : "")]));
    toss(d.pairing);
    const resultBox = document.getElementById("result-box");
    resultBox.hidden = !t.result;
    if (t.result && document.activeElement.closest("#result-box") === null) {
      document.getElementById("result-black").value = t.result.black;
      document.getElementById("result-white").value = t.result.white;
    }
    const list = document.getElementById("events");
    list.replaceChildren(...d.events.map((e) => el("li", { class: `ev ev-${e.event}`, value: e.seq }, describe(e))));
  }

  // The 伏せ石 of the game paired here: who plays black, who wins a 32–32 board.
  function toss(p) {
    const box = document.getElementById("toss-box");
    box.hidden = !p || p.draws || p.result;
    if (box.hidden) return;
    const holder = p.draw_win_right === "black" ? p.black : p.draw_win_right === "white" ? p.white : null;
    document.getElementById("toss-state").textContent = holder
      ? `Recorded: ${p.black} plays black; ${holder} wins a 32–32 board.`
      : "Not recorded yet: a 32–32 board has no winner until it is.";
    for (const [id, chosen] of [["toss-black", p.black], ["toss-holder", holder || p.black]]) {
      const select = document.getElementById(id);
      if (document.activeElement === select) continue;
      const names = [p.black, p.white];
      if ([...select.options].map((o) => o.value).join("\n") !== names.join("\n")) {
        select.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
        select.value = chosen;
      }
    }
  }

  function who(p) { return p ? p[0].toUpperCase() + p.slice(1) : ""; }

  function describe(e) {
    const sq = (e.squares || []).join(" ");
    switch (e.event) {
      case "move": return `${who(e.player)} ${e.square}`;
      case "pass": return `${who(e.player)} passes`;
      case "irregularity": return `${who(e.player)}: ${kindNames[e.kind] || e.kind} ${sq}`;
      case "corrected": return `put right: ${kindNames[e.kind] || e.kind} ${sq}`;
      case "game_over": return `game over ${e.black}–${e.white}` + (e.winner === "draw" ? ", a draw" : `, ${e.winner} wins`);
      case "clock": return `clock: black ${Hub.fmt(e.black * 1000)}, white ${Hub.fmt(e.white * 1000)}` +
        (e.paused ? " (paused)" : e.running ? ` (${e.running} running)` : "");
      // the board was reached by legal play out of turn order and adopted
      case "resync": return `board adopted after ${(e.moves || []).join(", ") || "?"}` +
        `${e.to_move ? `, ${e.to_move} to move` : ""} (changed: ${sq})`;
      default: return `${e.event} ${e.player || ""} ${e.square || ""}`.trim();
    }
  }

  async function refresh() {
    const r = await fetch(`/api/table/${table}`, { credentials: "same-origin" });
    if (r.ok) render(await r.json());
  }

  function args(action) {
    if (action === "adjust_time") {
      return { color: document.getElementById("adjust-color").value,
               seconds: Number(document.getElementById("adjust-seconds").value) };
    }
    if (action === "correct_board") return { board: draft || "" };
    if (action === "confirm") {
      return { game, black: Number(document.getElementById("result-black").value),
               white: Number(document.getElementById("result-white").value) };
    }
    if (action === "toss") {
      return { black: document.getElementById("toss-black").value,
               draw_win: document.getElementById("toss-holder").value };
    }
    return {};
  }

  const SENT = { pause: "Pause sent.", resume: "Resume sent.", adjust_time: "Time adjustment sent.",
                 accept_board: "Sent: the board stands as it is.", correct_board: "Position sent." };
  for (const button of document.querySelectorAll("[data-action]")) {
    button.addEventListener("click", async () => {
      const action = button.dataset.action;
      try {
        const r = await Hub.post(`/api/table/${table}/${action}`, args(action));
        msg.textContent = action === "confirm"
          ? `Confirmed. ${(r.next_pairings || []).join(" · ")} ${r.problem || ""}`
          : action === "toss" ? tossSaid(r) : SENT[action] || "Sent.";
        msg.dataset.sent = action;
        if (action === "correct_board") stopEditing();
      } catch (e) { msg.textContent = e.message; }
    });
  }

  function tossSaid(r) {
    const p = r.pairing;
    const holder = p.draw_win_right === "black" ? p.black : p.white;
    const said = `Toss recorded: ${p.black} plays black, ${holder} wins a 32–32 board.`;
    if (r.settled) {
      return `${said} The ${r.settled.black}–${r.settled.white} result went to the director. ` +
        `${(r.settled.next_pairings || []).join(" · ")} ${r.settled.problem || ""}`.trim();
    }
    return r.sent ? `${said} The table was told.` : said;
  }

  function stopEditing() {
    draft = null;
    document.getElementById("edit-box").hidden = true;
    document.body.classList.remove("editing");
    drawBoard();
  }
  document.getElementById("edit-start").addEventListener("click", () => {
    if (!card || !card.board) return;
    draft = card.board.replace(/[?]/g, "-").toUpperCase();
    document.getElementById("edit-box").hidden = false;
    document.body.classList.add("editing");
    drawBoard();
  });
  document.getElementById("edit-cancel").addEventListener("click", stopEditing);
  document.getElementById("board").addEventListener("click", (ev) => {
    const cell = ev.target.closest("[data-sq]");
    if (!draft || !cell) return;
    const name = cell.dataset.sq;
    const i = KaeshiBoard.index(name, KaeshiBoard.sizeOf(draft, card && card.size));
    const next = { "-": "X", X: "O", O: "-" }[draft[i]] || "-";
    draft = draft.slice(0, i) + next + draft.slice(i + 1);
    drawBoard();
  });

  setInterval(() => {
    for (const s of document.querySelectorAll(".since[data-at]")) s.textContent = Hub.ago(Number(s.dataset.at));
  }, 1000);

  // the dashboard's stream says when something changed; the table's events come by fetch
  Hub.stream("/events/dashboard", "dashboard", refresh);
})();
