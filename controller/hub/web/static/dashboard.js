"use strict";
// The arbiter's dashboard, live over server-sent events. "Needs you now" lists the tables
// that need the arbiter, most urgent first; "All tables" keeps every table in its place by
// number, so the hall's map does not move while flags come and go.
(() => {
  const { el } = Hub;
  const tables = document.getElementById("tables");
  const urgent = document.getElementById("urgent");
  const URGENT_BELOW = 4; // attention ranks 0-3: irregularity, clock, stopped, result

  function flagBox(f) {
    return el("div", { class: "flag-box", "data-kind": f.kind },
      el("p", { class: "attention" }, f.line || f.kind,
        f.at ? el("span", { class: "since", "data-at": f.at }, Hub.ago(f.at)) : null),
      f.instruction ? el("p", { class: "instruction" }, f.instruction) : null);
  }

  // A table whose round has no game here, or whose pairing it has not set up yet (or
  // refuses: its board is not the event's), still shows its last game: it is drawn
  // faded, and says so, never as if live.
  const NOT_LIVE = new Set(["idle", "paired", "refused"]);

  function card(t, big) {
    const flags = t.irregularities || [];
    const marks = flags.flatMap((f) => f.squares || []);
    const a = t.attention || {};
    const step = t.round_step || null;
    const stale = step && NOT_LIVE.has(step.stage);
    const state = !t.online ? "offline" : (t.service || "").replace(/_/g, " ");
    const result = t.result ? `${t.result.black}–${t.result.white}` : "";
    const small = el("div", { class: "board small" });
    Hub.board(small, t.board, marks, { size: t.size });
    const black = el("span", { class: "clock black" }), white = el("span", { class: "clock white" });
    Hub.clocks(black, white, stale ? null : t.clock);
    const progress = t.discs && !stale
      ? `move ${t.moves || 0} · discs ${t.discs.black}–${t.discs.white}` : "";
    const why = flags.length ? flags.map(flagBox)
      : [el("p", { class: "attention" }, a.reason ? `${a.reason}: ${a.detail}` : "")];
    // the round's one text for this table (controller/round_flow.py), else the table's own state
    const said = step
      ? el("p", { class: `state round-step stage-${step.stage}`, title: step.text },
        !t.online ? `offline · ${step.label}` : step.label)
      : el("p", { class: "state" }, state, result ? ` · ${result}` : "",
        t.signoff ? ` · ${t.signoff === "signed" ? "signed by both" : t.signoff}` : "",
        t.late ? ` · ${t.late.player} late (${t.late.state.replace(/_/g, " ")})` : "");
    return el("a", { class: `card rank-${a.rank}${big ? " big-card" : ""}${stale ? " stale" : ""}`,
                     href: `/arbiter/table/${t.table}`, "data-table": t.table, "data-rank": a.rank,
                     "data-stage": step ? step.stage : null },
      el("h3", {}, `Table ${t.table}`, t.round !== null && t.round !== undefined && !stale ? el("small", {}, ` round ${t.round}`) : null),
      el("p", { class: "players" }, stale ? "" : Hub.players(t)),
      el("p", { class: "progress" }, progress),
      ...why,
      small,
      stale ? null : el("p", { class: "clocks" }, black, white),
      said,
      step && step.stage === "paired" ? el("p", { class: "next-game" }, step.text) : null,
      stale && t.result ? el("p", { class: "last-game" },
        `last game: ${Hub.players(t)} · ${result}${t.round !== null && t.round !== undefined ? ` (round ${t.round})` : ""}`) : null);
  }

  // "Table 3 · round 2 · move 14 · White did not turn… — It was pointed out and put right."
  function incident(e) {
    return el("li", { class: e.open ? "incident open" : "incident", "data-table": e.table },
      el("a", { href: `/arbiter/table/${e.table}` }, `Table ${e.table}`),
      e.round !== null && e.round !== undefined ? ` · round ${e.round}` : "",
      ` · move ${e.n} · ${e.text} — `,
      el("span", { class: "outcome" }, e.outcome),
      e.at ? el("span", { class: "since", "data-at": e.at }, Hub.ago(e.at)) : null);
  }

  // The stream sends what changed: the cards that changed, the tables gone, and the
  // order (most urgent first), round, pairings and standings when they changed; `full`
  // starts afresh. A card left alone keeps its node (its running clock ticks on its own).
  const data = new Map(), nodes = new Map(), bigNodes = new Map();
  let order = [];
  function render(d) {
    if (d.full) { data.clear(); nodes.clear(); bigNodes.clear(); }
    for (const n of d.gone || []) { data.delete(n); nodes.delete(n); bigNodes.delete(n); }
    for (const t of d.tables || []) {
      data.set(t.table, t);
      nodes.set(t.table, card(t, false));
      bigNodes.set(t.table, card(t, true));
    }
    if (d.order) order = d.order;
    const byNumber = [...nodes.keys()].sort((x, y) => x - y);
    tables.replaceChildren(...byNumber.map((n) => nodes.get(n)));
    const needing = order.filter((n) => data.has(n) && (data.get(n).attention || {}).rank < URGENT_BELOW);
    urgent.replaceChildren(...needing.map((n) => bigNodes.get(n)));
    document.getElementById("urgent-box").hidden = !needing.length;
    document.getElementById("summary").textContent =
      `${data.size} tables, ${needing.length ? `${needing.length} need${needing.length === 1 ? "s" : ""} you` : "none needs you"}`;
    if ("hall_round" in d) {
      const bar = document.getElementById("round-bar");
      const h = d.hall_round;
      bar.hidden = !h;
      if (h) {
        bar.replaceChildren(el("b", {}, h.text),
          h.byes && h.byes.length ? el("span", { class: "byes" }, ` · byes: ${h.byes.join(", ")}`) : "");
      }
    }
    if ("incidents" in d) {
      const list = d.incidents || [];
      document.getElementById("incidents").replaceChildren(...list.map(incident));
      document.getElementById("incidents-box").hidden = !list.length;
    }
    if ("round" in d) {
      document.getElementById("round").textContent = d.round !== null && d.round !== undefined ? `(round ${d.round})` : "";
    }
    Hub.tournamentPanels(d);
    document.getElementById("aside").hidden =
      document.getElementById("pairings-box").hidden && document.getElementById("standings-box").hidden;
  }

  document.getElementById("send-pairings").addEventListener("click", async () => {
    const msg = document.getElementById("pairings-msg");
    try {
      const r = await Hub.post("/api/pairings/send");
      msg.textContent = `Sent to ${r.sent.length} tables.`;
    } catch (e) { msg.textContent = e.message; }
  });

  setInterval(() => {
    for (const s of document.querySelectorAll(".since[data-at]")) s.textContent = Hub.ago(Number(s.dataset.at));
  }, 1000);

  Hub.stream("/events/dashboard", "dashboard", render);
})();
