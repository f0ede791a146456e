// The review page of a finished game: the board follows the game step by step (0: the
// start, then after each move). A click on the score graph, on a move or a mistake,
// the buttons and the arrow keys choose the step; the words under the board are the
// review's own (controller/engine/report.py step_text). The board stays in view while
// the graph and the moves scroll, beside it or, on a phone, under it.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("review-data").textContent);
  const last = data.boards.length - 1;
  const $ = (id) => document.getElementById(id);
  const cursor = document.querySelector(".score-graph .cursor");
  const area = document.querySelector(".review-page .board-area");
  const side = document.querySelector(".review-page .review-side");
  let at = last;

  // Where the board stays in view above what scrolls (engine.css), whatever is scrolled
  // into view (a link, a focused row, a test's click) lands below it, never under it.
  function keepBelowBoard() {
    const stacked = side.offsetLeft < area.offsetLeft + area.offsetWidth;
    const sticky = getComputedStyle(area).position === "sticky";
    document.documentElement.style.scrollPaddingTop =
      stacked && sticky ? `${area.offsetHeight}px` : "";
  }

  function show(i) {
    at = Math.max(0, Math.min(last, i));
    KaeshiBoard.draw($("board"), data.boards[at], {
      size: data.size, coords: true, last: data.last[at],
      decorate(cell, sq) { cell.classList.toggle("best", data.best[at] === sq); },
    });
    $("review-step").textContent = data.text[at];
    $("review-step").dataset.i = String(at);
    if (cursor) {
      cursor.setAttribute("x1", data.x[at]);
      cursor.setAttribute("x2", data.x[at]);
    }
    for (const row of document.querySelectorAll("table.review tr[data-i]")) {
      row.classList.toggle("current", Number(row.dataset.i) === at);
    }
    $("step-first").disabled = $("step-prev").disabled = at === 0;
    $("step-next").disabled = $("step-last").disabled = at === last;
    keepBelowBoard();  // the words under the board may take another line
  }

  document.addEventListener("click", (ev) => {
    const target = ev.target.closest ? ev.target.closest("[data-i]") : null;
    if (!target || target.id === "review-step") return;
    ev.preventDefault();
    show(Number(target.dataset.i));
  });
  $("step-first").addEventListener("click", () => show(0));
  $("step-prev").addEventListener("click", () => show(at - 1));
  $("step-next").addEventListener("click", () => show(at + 1));
  $("step-last").addEventListener("click", () => show(last));
  document.addEventListener("keydown", (ev) => {
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last }[ev.key];
    if (to === undefined || (ev.target.closest && ev.target.closest("input, select, textarea"))) return;
    ev.preventDefault();
    show(to);
  });
  window.addEventListener("resize", keepBelowBoard);
  show(last);
})();
