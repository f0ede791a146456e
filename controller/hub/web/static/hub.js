"use strict";
// Shared by the hub's pages: boards, ticking clocks, the event stream, arbiter POSTs.
const Hub = (() => {
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("data-")) node.dataset[k.slice(5).replace(/-(.)/g, (_, c) => c.toUpperCase())] = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : String(c));
    }
    return node;
  }

  // The shared renderer (kaeshi-board.js): `marks` names squares to outline (the discs
  // of an open irregularity); `opts.coords` adds the coordinates around the board,
  // `opts.last` marks the last move's square, `opts.size` the board's size.
  function board(container, text, marks, opts) {
    const o = opts || {};
    return KaeshiBoard.draw(container, text, { ...o, marks });
  }

  function fmt(ms) {
    if (ms === null || ms === undefined) return "--:--";
    const total = Math.max(0, Math.ceil(ms / 1000));
    const m = Math.floor(total / 60), sec = total % 60;
    return `${m}:${String(sec).padStart(2, "0")}`;
  }

  // A clock element counts down on its own between updates while its side runs.
  function clock(node, ms, running) {
    node.dataset.ms = ms === null || ms === undefined ? "" : String(ms);
    node.dataset.since = String(performance.now());
    node.dataset.run = running ? "1" : "";
    node.classList.toggle("running", !!running);
    node.classList.toggle("low", ms !== null && ms !== undefined && ms < 60000);
    node.textContent = fmt(ms === "" ? null : ms);
  }

  function tick() {
    const now = performance.now();
    for (const node of document.querySelectorAll('.clock[data-run="1"]')) {
      const ms = Number(node.dataset.ms) - (now - Number(node.dataset.since));
      node.textContent = fmt(ms);
      node.classList.toggle("low", ms < 60000);
    }
  }
  setInterval(tick, 250);

  // `elapsed`: ms the running side has used since the reading (a delayed broadcast sends
  // the reading and when it was taken, so its snapshot stays the same while nothing happens)
  function clocks(black, white, c, elapsed) {
    const run = (side) => c && c.running === side && !c.paused;
    const left = (side) => (c ? c[`${side}_ms`] : null);
    const used = (side) => (run(side) && elapsed ? elapsed : 0);
    for (const [node, side] of [[black, "black"], [white, "white"]]) {
      const ms = left(side);
      clock(node, ms === null || ms === undefined ? null : ms - used(side), run(side));
    }
  }

  // pollUrl: a snapshot of the same data (the hub's cacheable /api/broadcast): when the
  // stream is refused (a full hub answers 503, and a browser then gives the stream up)
  // the page polls it every two seconds instead, and tries the stream again later
  function stream(url, name, onData, pollUrl) {
    const conn = document.getElementById("conn");
    const source = new EventSource(url);
    source.addEventListener(name, (e) => {
      conn.textContent = "live";
      conn.classList.remove("lost");
      onData(JSON.parse(e.data));
    });
    source.onerror = () => {
      conn.textContent = "reconnecting";
      conn.classList.add("lost");
      if (pollUrl && source.readyState === EventSource.CLOSED) poll(url, name, onData, pollUrl);
    };
    return source;
  }

  function poll(url, name, onData, pollUrl) {
    const conn = document.getElementById("conn");
    let rounds = 0;
    const timer = setInterval(async () => {
      rounds += 1;
      if (rounds >= 30) {  // a minute on: the stream may have room again
        clearInterval(timer);
        stream(url, name, onData, pollUrl);
        return;
      }
      try {
        const r = await fetch(pollUrl, { cache: "no-cache" });
        if (!r.ok) return;
        onData({ ...(await r.json()), full: true, gone: [] });
        conn.textContent = "live (every 2 s)";
        conn.classList.remove("lost");
      } catch (e) {
        conn.textContent = "reconnecting";
      }
    }, 2000);
  }

  async function post(url, body) {
    const r = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}),
    });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  }

  // The director's ranking: the rules' own criteria as its columns, under their own
  // names; the final ranking (places, 段級位, 王座戦) once the final is played.
  function cell(v) { return v === true ? "出場" : v === false || v === null ? "" : v; }

  function standings(table, rows) {
    table.textContent = "";
    if (!rows.length) return;
    const final = rows[0].final;
    const labels = (rows[0].criteria || []).map((c) => c[0]);
    table.append(el("caption", {}, final ? "最終順位 (final ranking)" : "暫定順位 (provisional ranking)",
                    rows[0].note ? el("div", { class: "standings-note" }, rows[0].note) : null));
    table.append(el("tr", {}, el("th", {}, final ? "Place" : "#"), el("th", {}, "Player"),
                    ...labels.map((l) => el("th", {}, l))));
    for (const r of rows) {
      table.append(el("tr", { class: final ? "final" : null }, el("td", {}, r.rank),
                      el("td", {}, r.player),
                      ...(r.criteria || []).map((c) => el("td", {}, cell(c[1])))));
    }
  }

  function pairings(list, rows) {
    list.textContent = "";
    for (const p of rows) list.append(el("li", { "data-table": p.table }, p.text));
  }

  // The tournament's panels (pairings, standings), shown only when a tournament sends them
  function tournamentPanels(d) {
    if (d.pairings) {
      pairings(document.getElementById("pairings"), d.pairings);
      document.getElementById("pairings-box").hidden = !d.pairings.length;
    }
    if (d.standings) {
      standings(document.getElementById("standings"), d.standings);
      document.getElementById("standings-box").hidden = !d.standings.length;
    }
  }

  // " · 1 min 12 s ago": since a wall time (seconds; the hall keeps its clocks in step)
  function ago(at) {
    const s = Math.max(0, Math.round(Date.now() / 1000 - at));
    if (s >= 3600) return ` · ${Math.floor(s / 3600)} h ${Math.floor(s / 60) % 60} min ago`;
    return ` · ${s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`} ago`;
  }

  // One vocabulary for a move list's entries on every hub page (as on the table's own
  // page): a square, "pass", "pass (illegal)" for a pass the arbiter flagged, and a board
  // changed without a move in words
  function moveText(m) {
    if (m.kind === "board") {
      return m.ruling ? "board set by the arbiter" : "board put right by the players";
    }
    if (m.square) return m.square;
    return m.illegal ? (m.withdrawn ? "pass (illegal, taken back)" : "pass (illegal)") : "pass";
  }

  function players(s) {
    if (!s.black && !s.white) return "";
    return `● ${s.black || "?"} — ○ ${s.white || "?"}`;
  }

  return { el, board, clocks, stream, post, standings, pairings, tournamentPanels, players, fmt,
           ago, moveText };
})();
