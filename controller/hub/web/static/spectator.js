"use strict";
// The spectators' hall: every table as it stood the broadcast delay ago. The stream sends
// the tables that changed; the page keeps the others as they are (their clocks tick on).
// Each card opens the table's own page.
(() => {
  const { el } = Hub;
  const cards = new Map();

  // "1. f5 d6 2. c3 d3": numbered as players write them (white alone after a gap: "… d3")
  function numbered(moves) {
    const out = [];
    let n = 0, afterBlack = false;
    for (const m of moves || []) {
      const text = m.kind === "board" ? "[board set]" : m.square || (m.illegal ? "pass (illegal)" : "pass");
      if (m.player === "black") { n += 1; out.push(`${n}. ${text}`); afterBlack = true; continue; }
      if (afterBlack) out.push(text);
      else { n += 1; out.push(`${n}. … ${text}`); }
      afterBlack = false;
    }
    return out.join(" ");
  }

  function card(t, asOf) {
    const small = el("div", { class: "board small" });
    Hub.board(small, t.board, [], { last: t.last_move, size: t.size });
    const black = el("span", { class: "clock black" }), white = el("span", { class: "clock white" });
    Hub.clocks(black, white, t.clock, t.clock ? (asOf - t.clock.at) * 1000 : 0);
    const discs = t.discs ? `discs ${t.discs.black}–${t.discs.white}` : "";
    const result = t.result ? `Final ${t.result.black}–${t.result.white}` : "";
    const n = (t.moves || []).length;
    return el("a", { class: "card", href: `/board/${t.table}`, "data-table": t.table },
      el("h3", {}, `Table ${t.table}`, t.round !== null && t.round !== undefined ? el("small", {}, ` round ${t.round}`) : null),
      el("p", { class: "players" }, Hub.players(t)),
      small,
      el("p", { class: "clocks" }, black, white),
      el("p", { class: "state" }, [result || (t.to_move ? `${t.to_move} to move` : ""), `move ${n}`, discs]
        .filter((x) => x).join(" · ")),
      el("p", { class: "moves" }, numbered(t.moves)));
  }

  function render(d) {
    if (d.full) cards.clear();
    for (const t of d.tables) cards.set(t.table, card(t, d.as_of));
    for (const n of d.gone) cards.delete(n);
    const order = [...cards.keys()].sort((a, b) => a - b);
    document.getElementById("tables").replaceChildren(...order.map((n) => cards.get(n)));
    Hub.tournamentPanels(d);
    document.getElementById("aside").hidden = document.getElementById("pairings-box").hidden &&
      document.getElementById("standings-box").hidden;
  }

  Hub.stream("/events/broadcast", "broadcast", render, "/api/broadcast");
})();
