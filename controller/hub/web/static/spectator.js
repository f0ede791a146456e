"use strict";
// The spectators' hall: every table as it stood the broadcast delay ago. The stream sends
// the tables that changed; the page keeps the others as they are (their clocks tick on).
(() => {
  const { el } = Hub;
  const cards = new Map();

  function card(t, asOf) {
    const small = el("div", { class: "board small" });
    Hub.board(small, t.board, []);
    const black = el("span", { class: "clock black" }), white = el("span", { class: "clock white" });
    Hub.clocks(black, white, t.clock, t.clock ? (asOf - t.clock.at) * 1000 : 0);
    const moves = (t.moves || []).map((m) => m.kind === "board" ? "[board set]"
      : m.square || (m.illegal ? "pass (illegal)" : "pass")).join(" ");
    const result = t.result ? `${t.result.black}–${t.result.white}` : "";
    return el("article", { class: "card", "data-table": t.table },
      el("h3", {}, `Table ${t.table}`, t.round !== null && t.round !== undefined ? el("small", {}, ` round ${t.round}`) : null),
      el("p", { class: "players" }, Hub.players(t)),
      small,
      el("p", { class: "clocks" }, black, white),
      el("p", { class: "state" }, result ? `Final ${result}` : (t.to_move ? `${t.to_move} to move` : "")),
      el("p", { class: "moves" }, moves));
  }

  function render(d) {
    if (d.full) cards.clear();
    for (const t of d.tables) cards.set(t.table, card(t, d.as_of));
    for (const n of d.gone) cards.delete(n);
    const order = [...cards.keys()].sort((a, b) => a - b);
    document.getElementById("tables").replaceChildren(...order.map((n) => cards.get(n)));
    if (d.pairings) Hub.pairings(document.getElementById("pairings"), d.pairings);
    if (d.standings) Hub.standings(document.getElementById("standings"), d.standings);
  }

  Hub.stream("/events/broadcast", "broadcast", render);
})();
