// The Domeng browser table.  Plain JavaScript, no build step, nothing from the
// internet.  The server is the only authority: this page draws the state it is
// sent (its own seat's D17 view) and sends what the person clicks; every rule
// (what is playable, the ends after a move, MAPPAKULING, the round's end) comes
// from the server's messages.  All text goes in with textContent (never HTML).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  let state = null, ws = null, token = null, fatal = false, chosen = null;
  let replayPos = null, replayRound = null, retry = null, msgTimer = null, collapsed = false;
  let invitesFor = null;  // the table whose links were last laid out (open or folded once)

  // ------------------------------------------------------------ drawing tiles
  const SPOTS = {0: [], 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]],
    4: [[0, 0], [0, 2], [2, 0], [2, 2]], 5: [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]],
    6: [[0, 0], [1, 0], [2, 0], [0, 2], [1, 2], [2, 2]]};

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    return e;
  }
  // a tile showing number a then b (left to right, or top to bottom when vertical)
  function tileSvg(a, b, vertical, u) {
    const w = vertical ? u : 2 * u, h = vertical ? 2 * u : u;
    const s = svgEl("svg", {width: w, height: h, viewBox: `0 0 ${w} ${h}`, "aria-hidden": "true"});
    s.appendChild(svgEl("rect", {class: "face", x: 1, y: 1, width: w - 2, height: h - 2,
      rx: u / 7, fill: "#fbf8ee", stroke: "#333", "stroke-width": 1.2}));
    s.appendChild(vertical
      ? svgEl("line", {x1: 3, y1: u, x2: u - 3, y2: u, stroke: "#555", "stroke-width": 1})
      : svgEl("line", {x1: u, y1: 3, x2: u, y2: u - 3, stroke: "#555", "stroke-width": 1}));
    [a, b].forEach((n, half) => {
      const ox = vertical ? 0 : half * u, oy = vertical ? half * u : 0;
      for (const [c, r] of SPOTS[n] || []) {
        s.appendChild(svgEl("circle", {cx: ox + u * (0.25 + 0.25 * c), cy: oy + u * (0.25 + 0.25 * r),
          r: u * 0.085, fill: "#1b1b1b"}));
      }
    });
    return s;
  }
  // The chain as a snake: rows as wide as the box, every other row read from
  // right to left (its tiles drawn turned round, so touching numbers still
  // meet); doubles crosswise; the last tile played marked; "L" and "R" at the
  // two open ends (the ends the end-choice buttons name).
  const GAP = 3, MARK = 16;
  function chainTiles(box, chain, u) {
    box.replaceChildren();
    if (!chain.length) { box.appendChild(el("p", {class: "chain-empty"}, "No tile on the table yet.")); return; }
    const cs = getComputedStyle(box);
    const inner = box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const avail = inner > 0 ? inner : 1e9;
    const width = (t) => (t.double ? u : 2 * u) + GAP;
    const rows = [[]];
    let used = MARK + GAP;  // the "L" mark opens the first row
    chain.forEach((t, i) => {
      const need = width(t) + (i === chain.length - 1 ? MARK + GAP : 0);
      if (rows[rows.length - 1].length && used + need > avail) { rows.push([]); used = 0; }
      rows[rows.length - 1].push(t);
      used += width(t);
    });
    rows.forEach((row, r) => {
      const back = r % 2 === 1;  // read right to left
      const line = el("div", {class: "chain-row" + (back ? " back" : "")});
      line.style.minHeight = `${2 * u + 2}px`;
      if (r === 0) line.appendChild(el("span", {class: "end-mark", title: "left end"}, "L"));
      for (const t of row) {
        const span = el("span", {class: "tile chain-tile" + (t.double ? " double" : "") + (t.last ? " last" : ""),
          "data-tile": t.tile, "aria-label": `[${t.a}|${t.b}]` + (t.last ? " (last played)" : ""),
          title: `[${t.a}|${t.b}]` + (t.last ? " — last played" : "")});
        span.appendChild(back ? tileSvg(t.b, t.a, t.double, u) : tileSvg(t.a, t.b, t.double, u));
        line.appendChild(span);
      }
      if (r === rows.length - 1) line.appendChild(el("span", {class: "end-mark", title: "right end"}, "R"));
      box.appendChild(line);
    });
  }
  const narrow = () => window.innerWidth < 600;

  // ------------------------------------------------------------ messages
  function say(text) {
    const m = $("message");
    m.textContent = text;
    m.hidden = !text;
    clearTimeout(msgTimer);
    if (text) msgTimer = setTimeout(() => { m.hidden = true; }, 8000);
  }
  function send(msg) {
    if (!ws || ws.readyState !== 1) { say("Not connected; reconnecting…"); return; }
    ws.send(JSON.stringify(msg));
  }
  function act(msg) { msg.version = state.version; send(msg); }

  function connect() {
    clearTimeout(retry);
    if (!token || fatal) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${proto}//${location.host}/ws`);
    ws.onopen = () => ws.send(JSON.stringify({type: "hello", token}));
    ws.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch (err) { return; }
      if (m.type === "state") { state = m; render(); }
      else if (m.type === "error") {
        say(m.message);
        if (m.fatal) { fatal = true; $("status").textContent = m.message; }
      } else if (m.type === "export") download(m.game);
    };
    ws.onclose = () => {
      if (fatal) return;
      $("status").textContent = "Connection lost: reconnecting…";
      retry = setTimeout(connect, 1500);
    };
  }
  function download(game) {
    const blob = new Blob([JSON.stringify(game, null, 1)], {type: "application/json"});
    const a = el("a", {href: URL.createObjectURL(blob), download: `domeng-${game.table}.json`});
    document.body.appendChild(a); a.click(); a.remove();
  }

  // ------------------------------------------------------------ the table
  function seatName(s) { return state.seats[s].name; }

  function statusText() {
    if (state.game_over) {
      const best = state.standings[0];
      return `Game over: ${state.result ? state.result.kind + " — " : ""}${seatName(best.seat)} ranks first`;
    }
    if (state.round_over && state.result) return `${state.result.kind}: ${state.end_text[0]}`;
    if (state.turn === null) return "Waiting";
    return state.turn === state.you ? "Your turn" : `${seatName(state.turn)} to play`;
  }

  function render() {
    $("create-view").hidden = true;
    $("table-view").hidden = false;
    $("status").textContent = statusText();
    $("status").classList.toggle("go", !state.round_over && state.turn !== null && state.turn === state.you);
    renderInvites();
    renderSeats();
    const info = [`Round ${state.round}`, `Table: ${state.table_stones} stones`];
    if (state.ends) info.push(`Ends: L ${state.ends[0]} · R ${state.ends[1]}`);
    if (state.camat !== null) info.push(`CAMAT: ${seatName(state.camat)}`);
    $("table-info").replaceChildren(...info.map((x) => el("span", {class: "chip"}, x)));
    renderChains();
    renderHand();
    renderEnd();
    const log = $("log");
    log.replaceChildren(...state.log.map((line, i) =>
      el("li", i === state.log.length - 1 ? {class: "now"} : {}, line)));
    log.scrollTop = log.scrollHeight;
    $("log-count").textContent = state.log.length ? `(${state.log.length})` : "";
    $("latest").textContent = state.round_over ? "" : (state.log[state.log.length - 1] || "");
    if (!collapsed && narrow()) { collapsed = true; $("log-box").open = false; }  // once: the person may open it
    const tb = $("standings").tBodies[0];
    tb.replaceChildren(...state.standings.map((r, i) => {
      const tr = el("tr");
      for (const v of [i + 1, seatName(r.seat), r.camats, r.stones, r.received, r.wins]) tr.appendChild(el("td", {}, String(v)));
      return tr;
    }));
  }

  function renderChains() {
    if (!state) return;
    chainTiles($("chain"), state.chain, narrow() ? 20 : 25);
    renderReplay();
  }

  function renderSeats() {
    const box = $("seats");
    box.replaceChildren();
    state.seats.forEach((st, s) => {
      const d = el("div", {class: "seat" + (state.turn === s ? " turn" : "") + (state.you === s ? " me" : ""),
        "data-seat": s, title: st.name});
      const who = el("div", {class: "who"});
      who.appendChild(el("span", {class: "num"}, String(s)));
      who.appendChild(el("span", {class: "name"}, state.you === s ? "you" : st.human ? "person" : st.kind));
      d.appendChild(who);
      const n = (k, word) => `${k} ${word}${k === 1 ? "" : "s"}`;
      const counts = el("div", {class: "counts"});
      counts.appendChild(el("span", {class: "stones"}, n(state.stones[s], "stone")));
      counts.appendChild(el("span", {class: "tiles"}, n(state.tiles_left[s], "tile")));
      d.appendChild(counts);
      const b = el("div", {class: "badges"});
      const badge = (cls, text) => b.appendChild(el("span", {class: cls}, text));
      if (state.turn === s) badge("b-turn", "to play");
      if (state.starter === s) badge("b-start", "started");
      if (state.last_mappano === s) badge("b-lm", "LAST MAPPANO");
      if (state.camat === s) badge("b-camat", "CAMAT");
      if (st.human && !st.connected) badge("b-off", "away");
      if (state.round_over && st.human && st.ready) badge("", "ready");
      d.appendChild(b);
      box.appendChild(d);
    });
  }

  function renderHand() {
    const hand = $("hand"), you = state.you;
    hand.replaceChildren();
    const mine = you !== null && state.turn === you;
    if (chosen !== null && !(mine && state.legal.some((x) => x.tile === chosen))) chosen = null;
    for (const h of state.hand) {
      const [a, b] = h.tile.split("-").map(Number);
      const btn = el("button", {type: "button", class: "tile" + (chosen === h.id ? " chosen" : ""),
        "data-tile": h.tile, "data-playable": String(h.playable), "aria-label": `[${a}|${b}]` + (h.playable ? " (playable)" : "")});
      btn.appendChild(tileSvg(a, b, true, narrow() ? 34 : 32));
      btn.addEventListener("click", () => clickTile(h));
      hand.appendChild(btn);
    }
    $("pass").hidden = !(mine && state.must_pass);
    let prompt = "";
    if (you === null) prompt = "You are watching: public information only.";
    else if (state.round_over) prompt = state.hand.length ? "Tiles left in your hand:" : "";
    else if (!mine) prompt = `Waiting for ${seatName(state.turn)}.`;
    else if (state.must_pass) prompt = "You have no playable tile: you must pass. Press PASS.";
    else if (state.must_lead !== null && !state.ends) prompt = "Your turn: lead the highlighted double.";
    else prompt = chosen !== null ? "Choose the end for this tile." : "Your turn: click a highlighted tile.";
    $("prompt").textContent = prompt;
    const box = $("mine");
    box.hidden = !prompt && !state.hand.length;
    box.classList.toggle("my-turn", mine);
    box.classList.toggle("over", state.round_over);
    renderEndChoice();
  }

  function renderEndChoice() {
    const box = $("end-choice");
    const opts = chosen === null ? [] : state.legal.filter((x) => x.tile === chosen);
    box.hidden = opts.length < 2;
    for (const btn of box.querySelectorAll("[data-end]")) {
      const o = opts.find((x) => x.end === btn.dataset.end);
      btn.hidden = !o;
      if (o) btn.textContent = `${o.end === "left" ? "Left" : "Right"} end → ends ${o.left}, ${o.right}` +
        (o.mappakuling ? " (MAPPAKULING)" : "");
    }
  }

  function clickTile(h) {
    if (!h.playable || state.turn !== state.you) return;
    const opts = state.legal.filter((x) => x.tile === h.id);
    if (opts.length === 1) { chosen = null; act({type: "play", tile: h.id, end: opts[0].end}); return; }
    chosen = h.id;
    renderHand();
  }

  function renderEnd() {
    const box = $("round-end");
    box.hidden = !state.round_over || !state.result;
    if (box.hidden) return;
    $("round-end-title").textContent = state.game_over
      ? `Game over after ${state.rounds_played} round${state.rounds_played === 1 ? "" : "s"} (seed ${state.seed})`
      : `Round ${state.round} is over: ${state.result.kind}`;
    $("end-text").replaceChildren(...(state.end_text || []).map((l) => el("li", {}, l)));
    const me = state.you !== null ? state.seats[state.you] : null;
    const btn = $("next-round");
    btn.hidden = !me || state.game_over;
    btn.disabled = !!(me && me.ready);
    const waiting = state.seats.filter((s) => s.human && s.connected && !s.ready).map((s) => s.name);
    $("next-wait").textContent = state.game_over ? "" : me && me.ready && waiting.length
      ? `Waiting for ${waiting.join(", ")} to start the next round.` : "";
  }

  function renderReplay() {
    const r = state.last_round;
    $("replay").hidden = !r;
    if (!r) return;
    if (replayRound !== r.round) { replayRound = r.round; replayPos = r.steps.length; }
    replayPos = Math.max(0, Math.min(replayPos, r.steps.length));
    $("replay-round").textContent = String(r.round);
    $("replay-pos").textContent = `${replayPos} / ${r.steps.length}`;
    chainTiles($("replay-chain"), replayPos ? r.steps[replayPos - 1] : [], 15);
    $("replay-log").replaceChildren(...r.log.map((l) => el("li", {}, l)));
  }
  function moveReplay(to) { replayPos = to; renderReplay(); }

  function renderInvites() {
    let inv = null;
    try { inv = JSON.parse(sessionStorage.getItem("domeng-invites:" + state.table)); } catch (e) { inv = null; }
    $("invites").hidden = !inv;
    if (!inv) return;
    if (invitesFor !== state.table) {
      // a phone folds the links to one line (the board and the hand stay on
      // screen); a wider window shows them; either way, once: the person may toggle
      invitesFor = state.table;
      $("invites").open = !narrow();
      const list = $("invite-list");
      list.replaceChildren();
      const add = (label, link) => {
        const input = el("input", {type: "text", readonly: "", value: location.origin + link,
                                   "aria-label": label + " link"});
        const copy = el("button", {type: "button", class: "copy"}, "Copy");
        copy.addEventListener("click", () => copyLink(input, copy));
        const li = el("li");
        li.append(el("span", {class: "who"}, label), input, copy);
        list.appendChild(li);
      };
      const seats = Object.entries(inv.seats);
      for (const [s, link] of seats) add(`Seat ${s}${link === inv.you ? " (you)" : ""}`, link);
      add("Spectators", inv.spectator);
      $("invite-count").textContent = `(${seats.length + 1})`;
    }
  }

  function copyLink(input, button) {
    const done = () => { button.textContent = "Copied"; setTimeout(() => { button.textContent = "Copy"; }, 1500); };
    const fallback = () => { input.select(); try { if (document.execCommand("copy")) done(); } catch (e) { /* selected */ } };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(input.value).then(done, fallback);
    else fallback();
  }

  // ------------------------------------------------------------ creating a table
  async function showCreate() {
    $("table-view").hidden = true;
    $("create-view").hidden = false;
    $("status").textContent = "Create a table";
    let opts;
    try { opts = await (await fetch("/api/options")).json(); } catch (e) { say("The server does not answer."); return; }
    const seats = $("seat-choices");
    seats.replaceChildren();
    const defaults = ["human", "hunter", "keeper", "heavy", "random"];
    for (let s = 0; s < 5; s++) {
      const lab = el("label", {}, `Seat ${s} `);
      const sel = el("select", {name: `seat${s}`, "data-seat": s});
      const about = opts.about || {};  // the player catalogue's one-line descriptions
      for (const k of opts.seats) sel.appendChild(el("option", {value: k, title: about[k] || "a person at this seat"}, k === "human" ? "person" : k));
      sel.value = defaults[s];
      lab.appendChild(sel);
      seats.appendChild(lab);
    }
    const rules = $("rule-choices");
    rules.replaceChildren();
    for (const [k, v] of Object.entries(opts.rules)) {
      const lab = el("label", {}, k.replace(/_/g, " ") + " ");
      const inp = typeof v === "boolean"
        ? el("input", {type: "checkbox", name: "rule:" + k})
        : el("input", {type: "number", name: "rule:" + k, min: 0, value: String(v)});
      if (typeof v === "boolean") inp.checked = v;
      lab.appendChild(inp);
      rules.appendChild(lab);
    }
  }

  async function create(ev) {
    ev.preventDefault();
    const f = ev.target;
    const body = {seats: [], rules: {}, rounds: Number(f.rounds.value || 0), camats: Number(f.camats.value || 0)};
    for (let s = 0; s < 5; s++) body.seats.push(f[`seat${s}`].value);
    if (f.seed.value.trim()) body.seed = f.seed.value.trim();
    for (const inp of f.querySelectorAll("[name^='rule:']")) {
      const k = inp.name.slice(5);
      body.rules[k] = inp.type === "checkbox" ? inp.checked : (/^\d+$/.test(inp.value) ? Number(inp.value) : inp.value);
    }
    let res, data;
    try {
      res = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
      data = await res.json();
    } catch (e) { say("The server does not answer."); return; }
    if (!res.ok) { say(data.error || "The table could not be created."); return; }
    sessionStorage.setItem("domeng-invites:" + data.table, JSON.stringify(data));
    location.hash = data.you.split("#")[1];
  }

  function route() {
    const m = /^#t=([A-Za-z0-9_-]{10,64})$/.exec(location.hash);
    if (ws) { const old = ws; ws = null; old.onclose = null; old.close(); }
    fatal = false; state = null; chosen = null;
    token = m ? m[1] : null;
    if (token) { $("status").textContent = "Connecting…"; connect(); } else showCreate();
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("new-table").addEventListener("submit", create);
    $("pass").addEventListener("click", () => act({type: "pass"}));
    $("next-round").addEventListener("click", () => act({type: "next_round"}));
    for (const btn of $("end-choice").querySelectorAll("[data-end]")) {
      btn.addEventListener("click", () => {
        if (chosen === null) return;
        const t = chosen; chosen = null;
        act({type: "play", tile: t, end: btn.dataset.end});
      });
    }
    $("end-cancel").addEventListener("click", () => { chosen = null; renderHand(); });
    $("export").addEventListener("click", () => send({type: "export"}));
    $("hide-invites").addEventListener("click", () => {
      if (state) sessionStorage.removeItem("domeng-invites:" + state.table);
      $("invites").hidden = true;
    });
    $("replay-first").addEventListener("click", () => moveReplay(0));
    $("replay-prev").addEventListener("click", () => moveReplay(replayPos - 1));
    $("replay-next").addEventListener("click", () => moveReplay(replayPos + 1));
    $("replay-last").addEventListener("click", () => moveReplay(Infinity));
    window.addEventListener("hashchange", route);
    let resized = null;  // the snake's rows follow the width (a phone turned round)
    window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(renderChains, 100); });
    route();
  });
})();
