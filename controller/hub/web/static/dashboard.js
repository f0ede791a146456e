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
      el("p", { class: "state" }, state, result ? ` · ${result}` : "",
        t.signoff ? ` · ${t.signoff === "signed" ? "signed by both" : t.signoff}` : "",
        t.late ? ` · ${t.late.player} late (${t.late.state.replace(/_/g, " ")})` : ""));
  }

  // The stream sends what changed: the cards that changed, the tables gone, and the
  // order, round, pairings and standings when they changed; `full` starts afresh.
  // A card left alone keeps its node (its running clock ticks on its own).
  const data = new Map(), nodes = new Map();
  let order = [];
  function render(d) {
    if (d.full) { data.clear(); nodes.clear(); }
    for (const n of d.gone || []) { data.delete(n); nodes.delete(n); }
    for (const t of d.tables || []) { data.set(t.table, t); nodes.set(t.table, card(t)); }
    if (d.order) order = d.order;
    tables.replaceChildren(...order.filter((n) => nodes.has(n)).map((n) => nodes.get(n)));
    const all = [...data.values()];
    const urgent = all.filter((t) => t.attention && t.attention.rank < 4).length;
    document.getElementById("summary").textContent = `${all.length} tables, ${urgent} need you`;
    if ("round" in d) {
      document.getElementById("round").textContent = d.round !== null && d.round !== undefined ? `(round ${d.round})` : "";
    }
    if (d.pairings) Hub.pairings(document.getElementById("pairings"), d.pairings);
    if (d.standings) Hub.standings(document.getElementById("standings"), d.standings);
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
