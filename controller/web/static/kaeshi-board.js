"use strict";
// The one board renderer of every page (the table's live page and the hub's pages):
// a grid of cells for a board of any size, with the coordinates around it if asked.
// The size comes with the data (a snapshot's or a table's `size`); a board string
// without one is measured (36, 64 or 100 squares). Square names follow the records:
// columns a.. left to right, rows 1.. top to bottom, square i = row * size + column.
const KaeshiBoard = (() => {
  const SIZES = [6, 8, 10];
  const LETTERS = "abcdefghij";
  // board-string character -> disc class; x and o: a disc off its square's centre
  const DISC = { X: "black", O: "white", x: "black shifted", o: "white shifted", "?": "unknown" };

  function sizeOf(text, given) {
    if (SIZES.includes(given)) return given;
    const n = Math.round(Math.sqrt((text || "").length));
    return SIZES.includes(n) && n * n === text.length ? n : SIZES[1];
  }

  function name(i, n) { return LETTERS[i % n] + (Math.floor(i / n) + 1); }

  function index(square, n) {
    return (Number(square.slice(1)) - 1) * n + LETTERS.indexOf(square[0]);
  }

  function node(tag, cls, text) {
    const e = document.createElement(tag);
    e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // Draw `text` into `container`: one `.cell[data-sq]` per square holding a `.disc`
  // (its colour class and `data-disc` on the cell: black, white, unknown or empty).
  // opts: size, coords (a-.. and 1-.. around the board), marks (squares to flag),
  // last (the last move's square), decorate(cell, square, ch) for a page's own marks.
  // The cells are built once per size and only updated after that.
  function draw(container, text, opts) {
    const o = opts || {};
    const s = text || "";
    const n = sizeOf(s, o.size);
    const coords = !!o.coords;
    if (container.dataset.size !== String(n) || container.dataset.coords !== String(coords)) {
      container.textContent = "";
      container.dataset.size = String(n);
      container.dataset.coords = String(coords);
      container.style.setProperty("--n", String(n));
      container.classList.toggle("coords", coords);
      if (coords) {
        container.append(node("div", "coord corner"));
        for (const c of LETTERS.slice(0, n)) container.append(node("div", "coord", c));
      }
      for (let i = 0; i < n * n; i++) {
        if (coords && i % n === 0) container.append(node("div", "coord", String(i / n + 1)));
        const cell = node("div", "cell");
        cell.dataset.sq = name(i, n);
        cell.title = cell.dataset.sq;
        cell.append(node("div", "disc"));
        container.append(cell);
      }
    }
    const marked = new Set(o.marks || []);
    for (const cell of container.querySelectorAll(".cell")) {
      const sq = cell.dataset.sq;
      const ch = s[index(sq, n)];
      const kind = DISC[ch] || "";
      cell.firstChild.className = "disc " + kind;
      cell.dataset.disc = kind ? kind.split(" ")[0] : "empty";
      cell.classList.toggle("flag", marked.has(sq));
      cell.classList.toggle("last", o.last === sq);
      if (o.decorate) o.decorate(cell, sq, ch);
    }
    return n;
  }

  return { SIZES, LETTERS, sizeOf, name, index, draw };
})();
