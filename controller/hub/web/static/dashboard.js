"use strict";
// The arbiter's dashboard: every table, most urgent first, live over server-sent events.
(() => {
  const { el } = Hub;
  const tables = document.getElementById("tables");

  function card(t) {
    const flags = (t.irregularities || []).flatMap((f) => f.squares || []);
    const a = t.attention || {};
    const state = !t.online ? "offline" : (t.service || "").replace(/_/g, " ");
    const result = t.result ? `${t.result.black}–${t.result.white}` : "";
    const small = el("div", { class: "board small" });
    Hub.board(small, t.board, flags);
    const black = el("span", { class: "clock black" }), white = el("span", { class: "clock white" });
    Hub.clocks(black, white, t.clock);
    return el("a", { class: `card rank-${a.rank}`, href: `/arbiter/table/${t.table}`,
                     "data-table": t.table, "data-rank": a.rank },
      el("h3", {}, `Table ${t.table}`, t.round !== null && t.round !== undefined ? el("small", {}, ` round ${t.round}`) : null),
      el("p", { class: "attention" }, a.reason ? `${a.reason}: ${a.detail}` : ""),
      el("p", { class: "players" }, Hub.players(t)),
      small,
      el("p", { class: "clocks" }, black, white),
      el("p", { class: "state" }, state, result ? ` · ${result}` : ""));
  }

  function render(d) {
    tables.replaceChildren(...d.tables.map(card));
    const urgent = d.tables.filter((t) => t.attention && t.attention.rank < 4).length;
    document.getElementById("summary").textContent = `${d.tables.length} tables, ${urgent} need you`;
    document.getElementById("round").textContent = d.round !== null && d.round !== undefined ? `(round ${d.round})` : "";
    Hub.pairings(document.getElementById("pairings"), d.pairings || []);
    Hub.standings(document.getElementById("standings"), d.standings || []);
  }

  document.getElementById("send-pairings").addEventListener("click", async () => {
    const msg = document.getElementById("pairings-msg");
    try {
      const r = await Hub.post("/api/pairings/send");
      msg.textContent = `Sent to ${r.sent.length} tables.`;
    } catch (e) { msg.textContent = e.message; }
  });

  Hub.stream("/events/dashboard", "dashboard", render);
})();
