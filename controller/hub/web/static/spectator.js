"use strict";
// The spectators' hall: every table as it stood the broadcast delay ago. The stream sends
// the tables that changed; the page keeps the others as they are (their clocks tick on).
// Each card opens the table's own page.
(() => {
  const { el } = Hub;
  const cards = new Map();

  // "1. f5 2. d6 3. c3": each move under its kifu number (1–60, passes counted), the
  // number the board page, the flags and the records give it; passes and boards changed
  // without a move in the hub's one vocabulary (Hub.moveText)
  function numbered(moves) {
    return (moves || []).map((m) => (m.n ? `${m.n}. ${Hub.moveText(m)}` : `[${Hub.moveText(m)}]`))
      .join(" ");
  }

  // One score: the final count once the game is over, else the discs on the board
  function score(t) {
    if (t.result) {
      const r = t.result;
      const who = r.winner === "draw" ? "a draw" : `${r.winner} wins`;
      return `Final ${r.black}–${r.white} (${who})`;
    }
    const discs = t.discs ? `discs ${t.discs.black}–${t.discs.white}` : "";
    const n = (t.moves || []).filter((m) => m.n).length;
    return [t.to_move ? `${t.to_move} to move` : "", `move ${n}`, discs].filter((x) => x).join(" · ");
  }

  function card(t, asOf) {
    const small = el("div", { class: "board small coords" });
    Hub.board(small, t.board, [], { last: t.last_move, size: t.size, coords: true });
    const black = el("span", { class: "clock black" }), white = el("span", { class: "clock white" });
    Hub.clocks(black, white, t.clock, t.clock ? (asOf - t.clock.at) * 1000 : 0);
    return el("a", { class: "card", href: `/board/${t.table}`, "data-table": t.table },
      el("h3", {}, `Table ${t.table}`, t.round !== null && t.round !== undefined ? el("small", {}, ` round ${t.round}`) : null),
      el("p", { class: "players" }, Hub.players(t)),
      small,
      el("p", { class: "clocks" }, black, white),
      el("p", { class: "state" }, score(t)),
      el("p", { class: "moves" }, numbered(t.moves)));
  }

  function render(d) {
    if (d.event) document.title = `${d.event} — live`;
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
