"use strict";
// One table of the broadcast, big: the board with coordinates and the last move marked,
// the clocks, the discs, the moves under their kifu numbers (1–60, passes counted), and
// a way to step back and forth through the game (buttons, arrow keys, a click on a move).
// The stream says when the table changed; its moves with the board after each come from
// /api/broadcast/table/N (as delayed as the rest).
(() => {
  const { el } = Hub;
  const table = Number(document.body.dataset.table);
  const $ = (id) => document.getElementById(id);
  let shown = null;   // the table as last fetched
  let at = null;      // the move entry shown (index into moves), -1 the start; null: the latest
  let eventName = "";

  // The start position of a board of size n (controller/position.py's Position.start)
  function start(n) {
    const m = n / 2, cells = Array(n * n).fill("-");
    cells[(m - 1) * n + m - 1] = "O"; cells[(m - 1) * n + m] = "X";
    cells[m * n + m - 1] = "X"; cells[m * n + m] = "O";
    return cells.join("");
  }

  function counts(board) {
    return { black: (board.match(/[Xx]/g) || []).length, white: (board.match(/[Oo]/g) || []).length };
  }

  // Black's and White's moves side by side, each under its kifu number; a board changed
  // without a move on a row of its own
  function moveRows(moves) {
    const rows = [];
    let row = null;
    moves.forEach((m, i) => {
      if (m.kind === "board") {
        rows.push(el("tr", { class: "board-row" }, el("td", { colspan: 2, "data-i": i }, `[${Hub.moveText(m)}]`)));
        row = null;
        return;
      }
      if (!row || m.player === "black") {
        row = el("tr", {}, el("td", {}), el("td", {}));
        rows.push(row);
      }
      const cell = row.children[m.player === "black" ? 0 : 1];
      cell.replaceChildren(el("span", { class: "n" }, `${m.n}.`), ` ${Hub.moveText(m)}`);
      cell.dataset.i = i;
      cell.dataset.n = m.n;
      cell.dataset.square = m.square || "pass";
      if (m.player === "white") row = null;
    });
    return rows;
  }

  function draw() {
    const t = shown;
    if (!t) return;
    const moves = t.moves || [];
    const last = moves.length - 1;
    const i = at === null ? last : Math.min(at, last);
    const latest = i === last;
    const withBoards = moves.every((m) => typeof m.board === "string");
    const entry = i >= 0 ? moves[i] : null;
    const board = latest ? t.board : entry ? entry.board : start(KaeshiBoard.sizeOf(t.board, t.size));
    const square = entry && entry.square ? entry.square : null;
    Hub.board($("board"), board, [], { coords: true, last: latest ? t.last_move : square, size: t.size });
    const discs = latest ? (t.discs || counts(board)) : entry ? { black: entry.black, white: entry.white } : counts(board);
    $("discs-black").textContent = discs.black ?? "";
    $("discs-white").textContent = discs.white ?? "";
    const played = moves.filter((m) => m.n).length;
    $("nav-at").textContent = i < 0 ? `start position · ${played} moves played`
      : `${latest ? "latest: " : ""}${entry.n ? `move ${entry.n} of ${played}, ${entry.player} ${Hub.moveText(entry)}`
        : Hub.moveText(entry)}`;
    for (const [id, off] of [["nav-first", i < 0], ["nav-prev", i < 0], ["nav-next", latest], ["nav-last", latest]]) {
      $(id).disabled = off || !withBoards;
    }
    for (const cell of document.querySelectorAll("#moves td[data-i]")) {
      cell.classList.toggle("at", Number(cell.dataset.i) === i);
      cell.classList.toggle("last", Number(cell.dataset.i) === last && latest);
    }
  }

  function render(t) {
    if (t.last_move === undefined) {  // one table's own data: its last move worked out here
      const moved = (t.moves || []).filter((m) => m.square);
      t.last_move = moved.length ? moved[moved.length - 1].square : null;
    }
    shown = t;
    $("none").hidden = true;
    $("name-black").textContent = t.black || "Black";
    $("name-white").textContent = t.white || "White";
    const result = $("result");
    result.hidden = !t.result;
    if (t.result) {
      const r = t.result;
      const name = (c) => t[c] || c;
      result.textContent = r.winner === "draw" ? `Final: a draw, ${r.black}–${r.white}`
        : `Final: ${name(r.winner)} (${r.winner}) wins ${r.black}–${r.white}`;
    }
    const played = (t.moves || []).filter((m) => m.n).length;
    $("to-move").textContent = [t.result ? "" : `${played} moves played`,
      !t.result && t.to_move ? `${t.to_move} to move` : "",
      t.round !== null && t.round !== undefined ? `round ${t.round}` : "", eventName]
      .filter((x) => x).join(" · ");
    $("moves").tBodies[0].replaceChildren(...moveRows(t.moves || []));
    const ggf = $("ggf");
    ggf.hidden = !t.game;
    if (t.game) ggf.href = `/feed/game/${table}/${encodeURIComponent(t.game)}.ggf`;
    document.title = `${t.black || "Black"} – ${t.white || "White"} · table ${table}` +
      (eventName ? ` · ${eventName}` : "");
    draw();
  }

  function go(i) {
    if (!shown) return;
    const last = (shown.moves || []).length - 1;
    at = i >= last ? null : Math.max(-1, i);
    draw();
  }
  const here = () => (at === null ? (shown ? shown.moves.length - 1 : -1) : at);
  $("nav-first").addEventListener("click", () => go(-1));
  $("nav-prev").addEventListener("click", () => go(here() - 1));
  $("nav-next").addEventListener("click", () => go(here() + 1));
  $("nav-last").addEventListener("click", () => go(Infinity));
  $("moves").addEventListener("click", (ev) => {
    const cell = ev.target.closest("td[data-i]");
    if (cell) go(Number(cell.dataset.i));
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target instanceof Element && ev.target.closest("input, select, textarea")) return;
    if (ev.key === "ArrowLeft") go(here() - 1);
    else if (ev.key === "ArrowRight") go(here() + 1);
  });

  async function fetchTable(fallback) {
    try {
      const r = await fetch(`/api/broadcast/table/${table}`, { cache: "no-cache" });
      if (r.ok) { render(await r.json()); return; }
    } catch (e) { /* the stream's data below */ }
    if (fallback) render(fallback);
  }

  Hub.stream("/events/broadcast", "broadcast", (d) => {
    if (d.event) eventName = d.event;
    const t = (d.tables || []).find((x) => x.table === table);
    if (t) {
      Hub.clocks($("clock-black"), $("clock-white"), t.clock, t.clock ? (d.as_of - t.clock.at) * 1000 : 0);
      fetchTable(t);
    } else if (shown === null && d.full) fetchTable(null);
  }, "/api/broadcast");
})();
