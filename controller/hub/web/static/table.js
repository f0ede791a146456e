"use strict";
// One table in full for the arbiter: board with the flagged discs, clocks, events, actions.
(() => {
  const { el } = Hub;
  const table = document.body.dataset.table;
  const msg = document.getElementById("msg");
  let game = null;

  function render(d) {
    const t = d.card;
    game = t.game || null;
    const flags = (t.irregularities || []).flatMap((f) => f.squares || []);
    Hub.board(document.getElementById("board"), t.board, flags);
    Hub.clocks(document.getElementById("clock-black"), document.getElementById("clock-white"), t.clock);
    document.getElementById("players").textContent =
      `${Hub.players(t)}${t.round !== null && t.round !== undefined ? ` · round ${t.round}` : ""}`;
    document.getElementById("service").textContent = t.online ? (t.service || "").replace(/_/g, " ") : "offline";
    const a = t.attention || {};
    document.getElementById("attention").textContent = a.reason ? `${a.reason}: ${a.detail}` : "";
    const correct = document.getElementById("correct-board");
    if (document.activeElement !== correct && t.board) correct.value = t.board.replace(/[?]/g, "-").toUpperCase();
    const box = document.getElementById("result-box");
    box.hidden = !t.result;
    if (t.result && document.activeElement.closest("#result-box") === null) {
      document.getElementById("result-black").value = t.result.black;
      document.getElementById("result-white").value = t.result.white;
    }
    const list = document.getElementById("events");
    list.replaceChildren(...d.events.map((e) => el("li", { class: `ev ${e.event}` }, describe(e))));
  }

  function describe(e) {
    if (e.event === "resync") {  // the board was reached by legal play out of turn order and adopted
      return `${e.seq}. board adopted after ${(e.moves || []).join(", ") || "?"}` +
        `${e.to_move ? `, ${e.to_move} to move` : ""} (changed: ${(e.squares || []).join(" ")})`;
    }
    return `${e.seq}. ${e.event} ${e.player || ""} ${e.square || ""} ${e.kind ? e.kind.replace(/_/g, " ") : ""} ` +
      `${e.squares ? e.squares.join(" ") : ""}${e.event === "game_over" ? ` ${e.black}–${e.white}` : ""}`;
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
    if (action === "correct_board") return { board: document.getElementById("correct-board").value.trim() };
    if (action === "confirm") {
      return { game, black: Number(document.getElementById("result-black").value),
               white: Number(document.getElementById("result-white").value) };
    }
    return {};
  }

  for (const button of document.querySelectorAll("[data-action]")) {
    button.addEventListener("click", async () => {
      const action = button.dataset.action;
      try {
        const r = await Hub.post(`/api/table/${table}/${action}`, args(action));
        msg.textContent = action === "confirm"
          ? `Confirmed. ${(r.next_pairings || []).join(" · ")} ${r.problem || ""}`
          : `${action.replace(/_/g, " ")} sent.`;
        msg.dataset.sent = action;
      } catch (e) { msg.textContent = e.message; }
    });
  }

  // the dashboard's stream says when something changed; the table's events come by fetch
  Hub.stream("/events/dashboard", "dashboard", refresh);
})();
