"use strict";
// The hall screen's "find your table": the round's players A–Z (as the paper list by the
// door sorts them), each with their table and colour, read from /api/pairings every two
// seconds; the hub rebuilds that JSON when it hears news, so a new round shows at once.
(() => {
  const { el } = Hub;
  const DISC = { black: "●", white: "○" };

  function row(p) {
    if (p.bye) {
      return el("li", { class: "bye", "data-name": p.name },
        el("span", { class: "name" }, p.name), el("span", { class: "where" }, "bye"));
    }
    return el("li", { "data-name": p.name, "data-table": p.table, "data-colour": p.colour },
      el("span", { class: "name" }, p.name),
      el("span", { class: "where" }, `Table ${p.table}`),
      el("span", { class: `colour ${p.colour}` }, `${DISC[p.colour]} ${p.colour}`),
      el("span", { class: "opponent" }, `v ${p.opponent}`));
  }

  function render(d) {
    const round = d.round === null ? "" : `Round ${d.round}`;
    document.getElementById("heading").textContent = [d.event, round].filter((x) => x).join(" — ");
    document.title = `${[d.event, round].filter((x) => x).join(" — ")} — find your table`;
    document.getElementById("none").hidden = d.round !== null;
    document.getElementById("players").replaceChildren(...d.players.map(row));
  }

  async function refresh() {
    const conn = document.getElementById("conn");
    try {
      const r = await fetch("/api/pairings", { cache: "no-cache" });
      if (!r.ok) throw new Error(r.statusText);
      render(await r.json());
      conn.textContent = "live";
      conn.classList.remove("lost");
    } catch (e) {
      conn.textContent = "reconnecting";
      conn.classList.add("lost");
    }
  }

  refresh();
  setInterval(refresh, 2000);
})();
