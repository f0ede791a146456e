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

  const titled = document.title; // "<event> — table N", from the page
  function render(d) {
    kindNames = d.kind_names || {};
    const t = d.card;
    card = t;
    // the tab names the event, the table, the round and the players
    document.title = [titled, t.round !== null && t.round !== undefined ? `round ${t.round}` : "",
      t.black || t.white ? `${t.black || "?"} – ${t.white || "?"}` : ""].filter((x) => x).join(" · ");
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
    const step = t.round_step || null;
    const line = document.getElementById("round-step");
    line.hidden = !step;
    line.textContent = step ? step.text : "";
    line.dataset.stage = step ? step.stage : "";
    resultBox(t, step);
    controls(t);
    const list = document.getElementById("events");
    const events = d.events || [];
    const clocks = events.filter((e) => e.event === "clock");
    // each move and pass under its kifu number, as in the move table and the flags
    let n = 0;
    list.replaceChildren(...events.filter((e) => e.event !== "clock").map((e) => {
      if (e.event === "move" || e.event === "pass") n += 1;
      else if (e.event === "resync") n += (e.moves || []).length;
      const kifu = e.event === "move" || e.event === "pass" ? `${n}. ` : "";
      return el("li", { class: `ev ev-${e.event}`, "data-seq": e.seq }, kifu, describe(e));
    }));
    // the clock's readings are folded away: half of a game's events are clock lines
    document.getElementById("clock-lines").hidden = !clocks.length;
    document.getElementById("clock-count").textContent =
      `${clocks.length} clock reading${clocks.length === 1 ? "" : "s"}`;
    document.getElementById("clock-events").replaceChildren(...clocks.map((e) =>
      el("li", { class: "ev ev-clock", "data-seq": e.seq }, describe(e))));
    moveTable(events);
    const incidents = d.incidents || [];
    document.getElementById("incidents-box").hidden = !incidents.length;
    document.getElementById("incidents").replaceChildren(...incidents.map((e) =>
      el("li", { class: e.open ? "incident open" : "incident" },
        `move ${e.n} · ${e.text} — `, el("span", { class: "outcome" }, e.outcome))));
  }

  // The result: nothing to edit once the director holds it (signed by both, or
  // confirmed); the counts to check and confirm while it waits for the arbiter.
  function resultBox(t, step) {
    const box = document.getElementById("result-box");
    const said = document.getElementById("result-said");
    const form = document.getElementById("result-form");
    box.hidden = !t.result && !(step && step.stage === "done");
    const done = step && step.stage === "done";
    const toss = step && step.stage === "toss";
    said.hidden = !(done || toss || (step && step.stage === "signatures"));
    said.textContent = step ? step.text.replace(/^Round \d+: /, "") : "";
    form.hidden = !!(done || toss);
    if (t.result && !form.hidden && document.activeElement.closest("#result-box") === null) {
      document.getElementById("result-black").value = t.result.black;
      document.getElementById("result-white").value = t.result.white;
    }
  }

  // Pause while the game runs, Resume while it is paused; neither once it is over.
  function controls(t) {
    const over = !!t.result || t.service === "game_over";
    const paused = t.service === "paused" || !!(t.clock && t.clock.paused);
    document.querySelector('[data-action="pause"]').disabled = over || paused;
    document.querySelector('[data-action="resume"]').disabled = over || !paused;
    document.getElementById("pause-said").textContent = over ? "the game is over" : "";
  }

  // Black's and White's moves side by side, each under its kifu number (1–60, passes
  // counted; no row numbers to confuse with them): the number the flags and records say.
  function moveTable(events) {
    const body = document.getElementById("moves").tBodies[0];
    const rows = [], cells = new Map();
    let row = null, n = 0;
    const put = (player, text) => {
      n += 1;
      if (!row || player === "black") {
        row = el("tr", {}, el("td", {}), el("td", {}));
        rows.push(row);
      }
      const cell = row.children[player === "black" ? 0 : 1];
      cell.replaceChildren(el("span", { class: "n" }, `${n}.`), ` ${text}`);
      cell.dataset.n = n;
      cells.set(n, cell);
      if (player === "white") row = null;
    };
    for (const e of events) {
      if (e.event === "move") put(e.player, e.square);
      else if (e.event === "pass") put(e.player, Hub.moveText({}));
      else if (e.event === "resync") {
        for (const m of e.moves || []) { const [p, sq] = String(m).split(" "); put(p, sq || "pass"); }
      } else if (e.event === "irregularity" && cells.has(n)) {
        // a fault found in move n: marked on it, and a pass flagged as illegal named so
        const cell = cells.get(n);
        cell.classList.add("irregular");
        if (e.kind === "illegal_pass") cell.lastChild.textContent = ` ${Hub.moveText({ illegal: true })}`;
      }
    }
    body.replaceChildren(...rows);
  }

  // The 伏せ石 of the game paired here: who plays black, who wins a 32–32 board.
  function toss(p) {
    const box = document.getElementById("toss-box");
    box.hidden = !p || p.draws || p.result;
    if (box.hidden) return;
    // the toss is for the game paired here now: named, since the table may still show
    // the round before's game above
    document.getElementById("toss-title").textContent = `伏せ石 (toss) for ${p.game_text}`;
    const holder = p.draw_win_right === "black" ? p.black : p.draw_win_right === "white" ? p.white : null;
    document.getElementById("toss-state").textContent = (holder
      ? `Recorded: ${p.black} plays black; ${holder} wins a 32–32 board.`
      : "Not recorded yet: a 32–32 board has no winner until it is.") +
      (p.elsewhere ? " This is for the next game: the board above still shows the table's last game." : "");
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
      case "pass": return `${who(e.player)} pass`;
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
