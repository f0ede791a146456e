"use strict";
// One table of the broadcast, big: the board with coordinates and the last move marked,
// the clocks, the discs, and the moves numbered as players write them.
(() => {
  const { el } = Hub;
  const table = Number(document.body.dataset.table);
  let shown = null;

  function numbered(moves) {
    const rows = [];
    let row = null;
    for (const m of moves || []) {
      if (!row || m.player === "black") {
        row = { n: rows.length + 1, black: "", white: "" };
        rows.push(row);
      }
      row[m.player] = m.square || "pass";
      if (m.player === "white") row = null;
    }
    return rows;
  }

  function render(d) {
    const t = (d.tables || []).find((x) => x.table === table);
    if (!t) return;
    shown = t;
    document.getElementById("none").hidden = true;
    Hub.board(document.getElementById("board"), t.board, [],
      { coords: true, last: t.last_move, size: t.size });
    Hub.clocks(document.getElementById("clock-black"), document.getElementById("clock-white"), t.clock,
               t.clock ? (d.as_of - t.clock.at) * 1000 : 0);
    document.getElementById("name-black").textContent = t.black || "Black";
    document.getElementById("name-white").textContent = t.white || "White";
    const discs = t.discs || {};
    document.getElementById("discs-black").textContent = discs.black ?? "";
    document.getElementById("discs-white").textContent = discs.white ?? "";
    const result = document.getElementById("result");
    result.hidden = !t.result;
    if (t.result) {
      const r = t.result;
      const name = (c) => t[c] || c;
      result.textContent = r.winner === "draw" ? `Final: a draw, ${r.black}–${r.white}`
        : `Final: ${name(r.winner)} (${r.winner}) wins ${r.black}–${r.white}`;
    }
    const n = (t.moves || []).length;
    document.getElementById("to-move").textContent = t.result ? `${n} moves` :
      `${n} moves played` + (t.to_move ? ` · ${t.to_move} to move` : "") +
      (t.round !== null && t.round !== undefined ? ` · round ${t.round}` : "");
    const body = document.getElementById("moves").tBodies[0];
    body.replaceChildren(...numbered(t.moves).map((r) => el("tr", {},
      el("td", { class: "n" }, r.n),
      el("td", { "data-square": r.black, class: r.black && r.black === t.last_move && !r.white ? "last" : null }, r.black),
      el("td", { "data-square": r.white, class: r.white && r.white === t.last_move ? "last" : null }, r.white))));
    document.title = `${t.black || "Black"} – ${t.white || "White"} · table ${table}`;
  }

  Hub.stream("/events/broadcast", "broadcast", (d) => {
    if (d.full || (d.tables || []).some((x) => x.table === table)) render(d);
    else if (shown === null) render(d);
  }, "/api/broadcast");
})();
