// The Domeng browser table.  Plain JavaScript, no build step, nothing from the
// internet.  The server is the only authority: this page draws the state it is
// sent (its own seat's D17 view) and sends what the person clicks; every rule
// (what is playable, the ends after a move, MAPPAKULING, the round's end) comes
// from the server's messages.  All text goes in with textContent (never HTML):
// a name like "<b>Ana</b>" is shown as those characters.
//
// Every word comes from the catalogue of the page's language (/api/words:
// domeng/core/i18n/*.json), through t(key, args); the log and the round's end
// come as items (a template key and its arguments, domeng/core/words.py) that
// fmt() writes in that language.  The game's terms (FIRST CAPPU, CEKI, ...)
// stay as on the card; termify() makes each one a button that opens its
// glossary entry (a tap works on a phone; the title shows it on hover).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const LANG_KEY = "domeng-lang";
  let state = null, ws = null, token = null, fatal = false, chosen = null;
  let replayPos = null, replayRound = null, retry = null, msgTimer = null, collapsed = false;
  let invitesFor = null;  // the table whose links were last laid out (open or folded once)
  // following the others and the keyboard (issue 22 items 7 and 9)
  let seenChain = null, newTiles = new Set(), myTurnBefore = false, heard = null;
  let inflight = null, focusHand = false;
  // false from a dropped connection until the server's next state: no move can be made
  let online = false;
  let hostLinks = null, hostAskedOn = null, hostDrawn = null;  // the host's panel (renderHost)
  let lang = "en", W = {}, LANGS = {}, TERMS = [], ALIASES = {}, termRe = null, options = null;
  const missing = new Set();  // keys the catalogue lacks (a test reads window.domengMissing)
  window.domengMissing = missing;

  // ------------------------------------------------------------ words
  function fill(template, args) {
    return template.replace(/\{([a-z_]+)\}/g, (m, k) => (args && k in args ? String(args[k]) : m));
  }
  function t(key, args) {
    const w = W[key];
    if (w === undefined) { missing.add(key); return key; }
    return fill(w, args);
  }
  function plural(n) {
    try { return new Intl.PluralRules(lang).select(n); } catch (e) { return n === 1 ? "one" : "other"; }
  }
  // a refusal of the server in the page's language: its item (a key of the
  // catalogue and its arguments); English as the server wrote it otherwise
  function refusalText(m) {
    return m.item && m.item.k in W ? fmt(m.item) : m.message;
  }
  // one item {k, a} as text, the same rules as domeng/core/words.py's fmt
  function fmt(item) {
    const value = (v) => {
      if (v === null || typeof v !== "object") return String(v);
      if ("seat" in v) return seatName(v.seat);
      if ("w" in v) return count(v.n, v.w);
      if ("list" in v) return v.list.map(value).join(t("word.sep"));
      return fmt(v);
    };
    const args = {};
    for (const [k, v] of Object.entries(item.a || {})) args[k] = value(v);
    return t(item.k, args);
  }
  // "3 stones", "3 камня": the plural form the language needs (word.<word>.<category>)
  function count(n, word) {
    const forms = `word.${word}.`;
    return fill(W[forms + plural(n)] || t(forms + "other"), {n});
  }
  function pick(wanted) {
    for (const l of wanted) {
      const code = String(l || "").toLowerCase().slice(0, 2);
      if (code in LANGS || ["en", "id", "sv", "ru", "es"].includes(code)) return code;
    }
    return "en";
  }
  async function loadWords(want) {
    const res = await fetch("/api/words?lang=" + encodeURIComponent(want));
    const data = await res.json();
    lang = data.lang; W = data.words; LANGS = data.langs; TERMS = data.terms; ALIASES = data.aliases || {};
    const names = TERMS.map((x) => x.term).concat(Object.keys(ALIASES)).sort((a, b) => b.length - a.length);
    termRe = new RegExp("\\b(" + names.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|") + ")\\b");
    document.documentElement.lang = lang;
    for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
    for (const e of document.querySelectorAll("[data-i18n-aria]")) e.setAttribute("aria-label", t(e.dataset.i18nAria));
    document.title = t("app.title");
    const sel = $("lang");
    sel.replaceChildren(...Object.entries(LANGS).map(([code, self]) => el("option", {value: code, lang: code}, self)));
    sel.value = lang;
    renderGlossary();
  }
  async function switchLang(code) {
    try { localStorage.setItem(LANG_KEY, code); } catch (e) { /* private mode: not remembered */ }
    try { await loadWords(code); } catch (e) { say(t("status.no_answer")); return; }
    if (state) render();
    else if (!token) drawCreate();
  }

  // the game's terms in a text as buttons that open the glossary there
  function termify(text) {
    if (!termRe) return [document.createTextNode(text)];
    // split() with a group keeps each term at an odd index
    return text.split(termRe).filter((p) => p !== "").map((part) => {
      const term = ALIASES[part] || part;
      if (!TERMS.some((x) => x.term === term)) return document.createTextNode(part);
      const b = el("button", {type: "button", class: "term", "data-term": term,
        title: W[`term.${term}.gloss`] || term}, part);
      b.addEventListener("click", () => showTerm(term));
      return b;
    });
  }
  function termId(term) { return "term-" + term.replace(/ /g, "-"); }
  function showTerm(term) {
    const box = $("glossary");
    box.open = true;
    for (const e of document.querySelectorAll("#glossary-list .focus")) e.classList.remove("focus");
    const dt = $(termId(term));
    if (dt) { dt.classList.add("focus"); dt.scrollIntoView({block: "center"}); dt.focus({preventScroll: true}); }
  }
  function renderGlossary() {
    const list = $("glossary-list");
    list.replaceChildren();
    for (const x of TERMS) {
      list.appendChild(el("dt", {id: termId(x.term), tabindex: "-1"}, x.term));
      const dd = el("dd");
      dd.appendChild(el("span", {class: "gloss"}, t(`term.${x.term}.gloss`)));
      dd.appendChild(el("span", {class: "text"}, " " + t(`term.${x.term}.text`) + " "));
      dd.appendChild(el("span", {class: "ids"}, "(" + t("glossary.rules", {ids: x.decisions.join(", ")}) + ")"));
      const card = t(`term.${x.term}.card`);
      if (card !== x.term) dd.appendChild(el("span", {class: "card"}, " " + t("glossary.card", {text: card})));
      list.appendChild(dd);
    }
  }

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
  // The chain is a list (role "list", each tile an item named "6-4", as a
  // screen reader reads it); the rows are only its layout.  The end marks sit
  // where the ends really are: "L" before the first tile, "R" after the last
  // one, on the side its row runs to (at the left of a row read right to left).
  // ``tap`` {left, right}: during an end choice each mark is a button that
  // plays the chosen tile there (a phone's unambiguous left and right).
  const GAP = 3, MARK = 16, TAP = 40;
  function chainTiles(box, chain, u, tap, fresh) {
    box.replaceChildren();
    if (!chain.length) { box.appendChild(el("p", {class: "chain-empty", role: "listitem"}, t("chain.empty"))); return; }
    const cs = getComputedStyle(box);
    const inner = box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const avail = inner > 0 ? inner : 1e9;
    const mark = tap ? TAP : MARK;
    const width = (t) => (t.double ? u : 2 * u) + GAP;
    const rows = [[]];
    let used = mark + GAP;  // the "L" mark opens the first row
    chain.forEach((t, i) => {
      const need = width(t) + (i === chain.length - 1 ? mark + GAP : 0);
      if (rows[rows.length - 1].length && used + need > avail) { rows.push([]); used = 0; }
      rows[rows.length - 1].push(t);
      used += width(t);
    });
    rows.forEach((row, r) => {
      const back = r % 2 === 1;  // read right to left
      const line = el("div", {class: "chain-row" + (back ? " back" : ""), role: "none"});
      line.style.minHeight = `${Math.max(2 * u + 2, tap ? TAP : 0)}px`;
      if (r === 0) line.appendChild(endMark("left", tap));
      for (const x of row) {
        const name = `${x.a}-${x.b}`, label = x.last ? t("chain.last", {tile: name}) : name;
        const span = el("span", {class: "tile chain-tile" + (x.double ? " double" : "") + (x.last ? " last" : "")
          + (fresh && fresh.has(x.tile) ? " new" : ""), role: "listitem",
          "data-tile": x.tile, "aria-label": label, title: label});
        span.appendChild(back ? tileSvg(x.b, x.a, x.double, u) : tileSvg(x.a, x.b, x.double, u));
        line.appendChild(span);
      }
      if (r === rows.length - 1) line.appendChild(endMark("right", tap));
      box.appendChild(line);
    });
  }
  // an end of the chain: a mark, or (during an end choice) a button that plays there
  function endMark(end, tap) {
    const text = t(end === "left" ? "chain.mark_left" : "chain.mark_right");
    const name = t(end === "left" ? "chain.left_end" : "chain.right_end");
    const item = el("span", {class: "end-mark", role: "listitem", "data-end-mark": end, title: name});
    if (!tap || !tap[end]) { item.setAttribute("aria-label", name); item.textContent = text; return item; }
    item.classList.add("tap");
    const b = el("button", {type: "button", class: "end-tap", "data-end": end,
      "aria-label": t(end === "left" ? "chain.play_left" : "chain.play_right")}, text);
    b.addEventListener("click", tap[end]);
    item.appendChild(b);
    return item;
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
    if (!ws || ws.readyState !== 1) { say(t("status.not_connected")); return; }
    ws.send(JSON.stringify(msg));
  }
  // an action quotes the state's version; a second one at the same version
  // (a double click, a key held down) is ignored quietly while the first is
  // in flight: it could only be refused as out of date
  function act(msg) {
    if (inflight === state.version) return;
    msg.version = state.version;
    if (ws && ws.readyState === 1) inflight = state.version;
    if (msg.type === "play" || msg.type === "pass") focusHand = true;
    send(msg);
    markPending();
  }
  // the table says whether this page's action is still in flight (data-pending):
  // until the server's next state, what the page shows is the state before it
  function markPending() {
    $("table-view").dataset.pending = String(state !== null && inflight === state.version);
  }

  function connect() {
    clearTimeout(retry);
    if (!token || fatal) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${proto}//${location.host}/ws`);
    ws.onopen = () => ws.send(JSON.stringify({type: "hello", token}));
    ws.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch (err) { return; }
      if (m.type === "state") { state = m; online = true; render(); markPending(); }
      else if (m.type === "error") {
        inflight = null;  // refused: the person may try again
        markPending();
        const text = refusalText(m);
        say(text);
        if (m.fatal) { fatal = true; $("status").textContent = text; }
      } else if (m.type === "export") download(m.game);
      else if (m.type === "links") { hostLinks = m; hostDrawn = null; renderHost(); }
    };
    ws.onclose = () => {
      // an action in flight was either taken (the next state has a new version) or
      // lost with the connection: the person may act again once the state comes back
      inflight = null;
      online = false;
      if (state) renderHand();  // the hand is not playable until the state is back
      markPending();
      if (fatal) return;
      $("status").textContent = t("status.lost");
      $("status").classList.remove("go");  // no move can be made until the state is back
      retry = setTimeout(connect, 1500);
    };
  }
  function download(game) {
    const blob = new Blob([JSON.stringify(game, null, 1)], {type: "application/json"});
    const a = el("a", {href: URL.createObjectURL(blob), download: `domeng-${game.table}.json`});
    document.body.appendChild(a); a.click(); a.remove();
  }

  // ------------------------------------------------------------ the table
  // a seat's own name: the one its person gave, else its player's
  function playerName(s) {
    const st = state.seats[s];
    if (st.given !== null && st.given !== undefined) return st.given;
    return st.human ? t("seat.person") : st.kind;
  }
  // a seat as the texts name it: "seat 2 (Ana)", "seat 0 (you)"
  function seatName(s) {
    return s === state.you ? t("seat.you", {n: s}) : t("seat.label", {n: s, name: playerName(s)});
  }
  // how a round ended, as the card says it (the end kind CAPPU is a FIRST CAPPU)
  function kindTerm(kind) { return kind === "CAPPU" ? "FIRST CAPPU" : kind; }

  function statusText() {
    if (state.game_over) {
      const best = state.standings[0];
      return t("status.game_over", {kind: state.result ? kindTerm(state.result.kind) : "", who: seatName(best.seat)});
    }
    if (state.round_over && state.result) {
      return t("status.round_over", {kind: kindTerm(state.result.kind), text: state.end_items ? fmt(state.end_items[0]) : ""});
    }
    if (state.turn === null) return t("status.waiting");
    return state.turn === state.you ? t("status.your_turn") : t("status.to_play", {who: seatName(state.turn)});
  }

  function render() {
    $("create-view").hidden = true;
    $("table-view").hidden = false;
    $("status").textContent = statusText();
    $("status").classList.toggle("go", !state.round_over && state.turn !== null && state.turn === state.you);
    renderName();
    renderInvites();
    renderSeats();
    const info = [t("info.round", {n: state.round}), t("info.table", {stones: count(state.table_stones, "stone")})];
    if (state.ends) info.push(t("info.ends", {l: t("chain.mark_left"), left: state.ends[0], r: t("chain.mark_right"), right: state.ends[1]}));
    if (state.camat !== null) info.push(t("info.camat", {who: seatName(state.camat)}));
    $("table-info").replaceChildren(...info.map((x) => { const c = el("span", {class: "chip"}); c.append(...termify(x)); return c; }));
    noteNewTiles();
    renderChains();
    renderHand();
    renderEnd();
    const log = $("log");
    const lines = state.log_items.map(fmt);
    log.replaceChildren(...lines.map((line, i) => lineEl(line, i === lines.length - 1 ? {class: "now"} : {})));
    log.scrollTop = log.scrollHeight;
    $("log-count").textContent = lines.length ? `(${lines.length})` : "";
    renderLatest(lines);
    announce(lines);
    alertTurn();
    if (!collapsed && narrow()) { collapsed = true; $("log-box").open = false; }  // once: the person may open it
    const tb = $("standings").tBodies[0];
    tb.replaceChildren(...state.standings.map((r, i) => {
      const tr = el("tr");
      for (const v of [i + 1, seatName(r.seat), r.camats, r.stones, r.received, r.wins]) tr.appendChild(el("td", {}, String(v)));
      return tr;
    }));
    renderHostAndEnd();
  }

  // ------------------------------------------------------------ stand-ins, the host, the game's end
  function renderHostAndEnd() {
    markSeats();
    $("table-info").appendChild(el("span", {class: "chip"}, t("info.game", {n: state.game_no})));
    renderHost();
    renderGameEnd();
  }

  // each seat card says whether its person is away and whether the stand-in plays for them
  function markSeats() {
    state.seats.forEach((st, s) => {
      const card = document.querySelector(`[data-testid="seat-${s}"]`);
      if (!card) return;
      card.dataset.away = String(!!st.away);
      card.dataset.standin = String(!!st.standin);
      if (st.standin) {
        const b = card.querySelector(".badges");
        if (b) b.appendChild(el("span", {class: "b-standin"}, t("badge.standin")));
      }
    });
  }

  // the host's link: every seat's link (from the server, on any device), rename,
  // replace a seat by a computer player or a new person, end the table
  function renderHost() {
    const box = $("host");
    box.hidden = !state || !state.host;
    if (box.hidden) return;
    $("invites").hidden = true;  // the host's panel has every link
    if (hostAskedOn !== ws) { hostAskedOn = ws; send({type: "host_links"}); }
    if (!options) {
      fetch("/api/options").then((r) => r.json()).then((o) => { options = o; hostDrawn = null; renderHost(); }, () => {});
      return;
    }
    const key = JSON.stringify([lang, hostLinks, state.seats.map((x) => [x.kind, x.given])]);
    if (key === hostDrawn) return;
    hostDrawn = key;
    const list = $("host-list");
    list.replaceChildren();
    const links = hostLinks || {seats: {}, spectator: null, you: null};
    const linkRow = (li, label, link) => {
      const input = el("input", {type: "text", readonly: "", value: location.origin + link,
                                 "aria-label": t("invites.link", {who: label})});
      const copy = el("button", {type: "button", class: "copy"}, t("invites.copy"));
      copy.addEventListener("click", () => copyLink(input, copy));
      li.append(input, copy);
    };
    // one row a seat (its name, its link, Copy); renaming and replacing fold
    // under "Change" (a phone keeps the board in view)
    state.seats.forEach((st, s) => {
      const li = el("li", {"data-host-seat": s});
      li.appendChild(el("span", {class: "who"}, seatName(s)));
      if (links.seats[String(s)]) linkRow(li, seatName(s), links.seats[String(s)]);
      const edit = el("details", {class: "host-edit", "data-host-edit": s});
      edit.appendChild(el("summary", {"aria-label": t("host.edit_seat", {n: s})}, t("host.edit")));
      const name = el("input", {type: "text", maxlength: "24", "aria-label": t("host.name", {n: s}), "data-host-name": s});
      const rename = el("button", {type: "button"}, t("host.rename"));
      rename.addEventListener("click", () => { if (name.value.trim()) send({type: "host_rename", seat: s, name: name.value.trim()}); });
      const row = el("span", {class: "host-do"});
      row.append(name, rename);
      edit.appendChild(row);
      if (links.you !== s) {
        const sel = el("select", {"aria-label": t("host.replace"), "data-host-kind": s});
        for (const k of options.seats) sel.appendChild(el("option", {value: k}, k === "human" ? t("host.person") : k));
        const go = el("button", {type: "button", "data-host-replace": s}, t("host.replace_go"));
        go.addEventListener("click", () => send({type: "host_seat", seat: s, kind: sel.value}));
        const more = el("span", {class: "host-do"});
        more.append(el("span", {class: "hint"}, t("host.replace")), sel, go);
        edit.appendChild(more);
      }
      li.appendChild(edit);
      list.appendChild(li);
    });
    if (links.spectator) {
      const li = el("li");
      li.appendChild(el("span", {class: "who"}, t("invites.spectators")));
      linkRow(li, t("invites.spectators"), links.spectator);
      list.appendChild(li);
    }
  }
  function endTable() {
    if (window.confirm(t("host.end_confirm"))) send({type: "host_end"});
  }

  // the game's end: the winner, the final ranking (the session's one rank()), Play again
  function renderGameEnd() {
    const box = $("game-end");
    box.hidden = !state.game_over;
    if (box.hidden) return;
    const best = state.standings[0];
    $("winner").textContent = t("game.winner", {who: seatName(best.seat), n: state.game_no});
    $("final-ranking").replaceChildren(...state.standings.map((r, i) => lineEl(t("game.row", {
      rank: i + 1, who: seatName(r.seat), camats: r.camats, stones: count(r.stones, "stone"), received: r.received, wins: r.wins}))));
    $("play-again").hidden = state.you === null && !state.host;
  }

  // a line of the log or the round's end: text, its terms as glossary buttons
  function lineEl(text, attrs) {
    const li = el("li", attrs || {});
    li.append(...termify(text));
    return li;
  }

  // ------------------------------------------------------------ following the others
  // the tiles new on the chain since the last state (each gets a short
  // highlight; none under prefers-reduced-motion, style.css); none the first time
  function noteNewTiles() {
    const now = new Set(state.chain.map((x) => x.tile));
    const key = state.table + ":" + state.round;
    newTiles = seenChain && seenChain.key === key ? new Set([...now].filter((x) => !seenChain.tiles.has(x))) : new Set();
    seenChain = {key, tiles: now};
  }
  // the numbers of tile id t, high first (domeng/core/tiles.py's order)
  function tileName(t) {
    const hi = Math.floor((Math.sqrt(8 * t + 1) - 1) / 2);
    return `${hi}-${t - hi * (hi + 1) / 2}`;
  }
  // each seat's last action this round, from this page's own (D17) events
  function lastActions() {
    const last = [null, null, null, null, null];
    for (const ev of state.events || []) {
      if (ev.type === "lead" || ev.type === "play") last[ev.seat] = t("follow.played", {tile: tileName(ev.tile)});
      else if (ev.type === "pass") last[ev.seat] = ev.passebunge ? t("follow.passebunge") : t("follow.passed");
      else if (ev.type === "deal") last.fill(null);
    }
    return last;
  }
  // the moves since this person's own last move (a phone shows them all: three
  // computer moves are not folded to the last one); a wider screen, the latest
  function sinceMyTurn(lines) {
    const items = state.log_items;
    let from = 0;
    items.forEach((x, i) => {
      const who = x.a && x.a.who;
      if (/^log\.(lead|play|pass)/.test(x.k) && who && who.seat === state.you) from = i + 1;
      if (x.k === "log.deal") from = i;
    });
    // not this person's own hand again (the deal's lines of it)
    return lines.filter((l, i) => i >= from && items[i].k !== "log.hand" && items[i].k !== "log.out");
  }
  function renderLatest(lines) {
    const shown = state.round_over ? [] : narrow() && state.you !== null ? sinceMyTurn(lines) : lines.slice(-1);
    $("latest").replaceChildren(...shown.map((l) => lineEl(l)));
  }
  // the new lines of the log, each in its own node of a polite live region
  // (role "log"): a screen reader reads every one, none replaced by the next
  function announce(lines) {
    const box = $("announce");
    const key = state.table + ":" + state.round;
    if (!heard || heard.key !== key) {
      heard = {key, n: heard ? 0 : lines.length};  // a page just opened reads nothing old
      if (!heard.n) box.replaceChildren();
    }
    for (const line of lines.slice(heard.n)) box.appendChild(el("p", {}, line));
    heard.n = lines.length;
    while (box.childNodes.length > 40) box.firstChild.remove();
  }
  // your turn: the tab's title says so (seen from another tab), and a phone vibrates
  function alertTurn() {
    const mine = !state.round_over && state.you !== null && state.turn === state.you;
    document.title = mine ? t("title.your_turn") : t("app.title");
    if (mine && !myTurnBefore && navigator.vibrate) {
      try { navigator.vibrate(200); } catch (e) { /* not allowed: the title says it */ }
    }
    myTurnBefore = mine;
  }

  // a person's seat without a name yet: the name form (the session keeps it)
  function renderName() {
    const me = state.you !== null ? state.seats[state.you] : null;
    const form = $("name-form");
    const show = !!(me && me.human && (me.given === null || me.given === undefined));
    if (show && form.hidden) $("player-name").value = "";
    form.hidden = !show;
  }
  function sendName(ev) {
    ev.preventDefault();
    const name = $("player-name").value.trim();
    // the server checks it too (domeng.play.session.check_name); this only spares a round trip
    if (!name || [...name].length > 24 || /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) { say(t("name.bad")); return; }
    send({type: "name", name});
  }

  function renderChains() {
    if (!state) return;
    chainTiles($("chain"), state.chain, narrow() ? 20 : 25, endTaps(), newTiles);
    renderReplay();
  }
  // during an end choice: tapping an end of the chain plays the chosen tile there
  function endTaps() {
    if (chosen === null || !state || state.turn !== state.you) return null;
    const opts = state.legal.filter((x) => x.tile === chosen);
    if (opts.length < 2) return null;
    const taps = {};
    for (const o of opts) taps[o.end] = () => playAt(o.end);
    return taps;
  }
  function playAt(end) {
    if (chosen === null) return;
    const tile = chosen; chosen = null;
    act({type: "play", tile, end});
  }

  function renderSeats() {
    const box = $("seats");
    box.replaceChildren();
    const acts = lastActions();
    state.seats.forEach((st, s) => {
      const d = el("div", {class: "seat" + (state.turn === s ? " turn" : "") + (state.you === s ? " me" : ""),
        "data-seat": s, "data-testid": `seat-${s}`, title: seatName(s)});
      const who = el("div", {class: "who"});
      who.appendChild(el("span", {class: "num", "aria-hidden": "true"}, String(s)));
      who.appendChild(el("span", {class: "name", "data-name": ""}, playerName(s)));
      d.appendChild(who);
      const counts = el("div", {class: "counts"});
      counts.appendChild(el("span", {class: "stones"}, count(state.stones[s], "stone")));
      counts.appendChild(el("span", {class: "tiles"}, count(state.tiles_left[s], "tile")));
      d.appendChild(counts);
      if (acts[s]) {
        const did = el("div", {class: "did", "data-last-action": ""});
        did.append(...termify(acts[s]));
        d.appendChild(did);
      }
      const b = el("div", {class: "badges"});
      const badge = (cls, text) => b.appendChild(el("span", {class: cls}, text));
      const term = (cls, name) => { const x = termify(name)[0]; x.classList.add(cls); b.appendChild(x); };
      if (state.you === s) badge("b-you", t("badge.you"));
      if (state.turn === s) badge("b-turn", t("badge.to_play"));
      if (state.starter === s) badge("b-start", t("badge.started"));
      if (state.last_mappano === s) term("b-lm", "LAST MAPPANO");
      if (state.camat === s) term("b-camat", "CAMAT");
      if (st.human && !st.connected) badge("b-off", t("badge.away"));
      if (state.round_over && st.human && st.ready) badge("", t("badge.ready"));
      d.appendChild(b);
      box.appendChild(d);
    });
  }

  function renderHand() {
    const hand = $("hand"), you = state.you;
    const was = hand.contains(document.activeElement) ? document.activeElement.dataset.tile || "" : null;
    hand.replaceChildren();
    const mine = you !== null && state.turn === you && online;
    if (chosen !== null && !(mine && state.legal.some((x) => x.tile === chosen))) chosen = null;
    // a list of tiles, each named as a screen reader should say it: "6-4 (playable)"
    state.hand.forEach((h, i) => {
      const [a, b] = h.tile.split("-").map(Number);
      const name = `${a}-${b}`;
      const playable = h.playable && online;
      const btn = el("button", {type: "button", class: "tile" + (chosen === h.id ? " chosen" : ""),
        "data-tile": h.tile, "data-playable": String(playable), "aria-keyshortcuts": String(i + 1),
        "aria-label": playable ? t("hand.playable", {tile: name}) : name});
      btn.appendChild(tileSvg(a, b, true, narrow() ? 34 : 32));
      btn.addEventListener("click", () => clickTile(h));
      const item = el("span", {role: "listitem", class: "hand-item"});
      item.appendChild(btn);
      hand.appendChild(item);
    });
    restoreFocus(hand, was);
    $("pass").hidden = !(mine && state.must_pass);
    let prompt = "";
    if (you === null) prompt = t("prompt.watching");
    else if (!online) prompt = t("status.lost");
    else if (state.round_over) prompt = state.hand.length ? t("prompt.left") : "";
    else if (!mine) prompt = t("prompt.waiting", {who: seatName(state.turn)});
    else if (state.must_pass) prompt = t("prompt.must_pass");
    else if (state.must_lead !== null && !state.ends) prompt = t("prompt.lead");
    else prompt = chosen !== null ? t("prompt.choose_end") : t("prompt.your_turn");
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
    const note = $("end-note");
    note.replaceChildren();
    for (const btn of box.querySelectorAll("[data-end]")) {
      const o = opts.find((x) => x.end === btn.dataset.end);
      btn.hidden = !o;
      if (!o) continue;
      // "(MAPPAKULING)" only where the server says it changes the outcome (D8: a last tile)
      btn.textContent = t(`end.${o.end}_to`, {left: o.left, right: o.right}) + (o.mappakuling_matters ? t("end.mappakuling") : "");
      if (o.mappakuling_matters && !box.hidden) {
        note.append(...termify(t("end.note", {end: t(`end.${o.end}`), kind: o.kind})), " ");
      }
    }
    note.hidden = !note.childNodes.length;
  }

  function clickTile(h) {
    if (!h.playable || !online || state.turn !== state.you) return;
    const opts = state.legal.filter((x) => x.tile === h.id);
    if (opts.length === 1) { chosen = null; act({type: "play", tile: h.id, end: opts[0].end}); return; }
    chosen = h.id;
    renderHand();
    renderChains();  // the chain's ends become buttons
  }

  // ------------------------------------------------------------ focus and keys
  // focus stays in the hand: on the tile it was on, or (after this person's
  // move) on the first tile, never dropped to the page's body
  function restoreFocus(hand, was) {
    if (was === null && !focusHand) return;
    focusHand = false;
    const to = (was && hand.querySelector(`button[data-tile="${was}"]`)) || hand.querySelector("button") || hand;
    to.focus({preventScroll: true});
  }
  // L or R (the keys, on any layout), or the language's own one-letter marks (V, H in Swedish)
  function endKey(ev) {
    const key = ev.key.toLowerCase();
    const own = (k) => { const m = t(k).toLowerCase(); return m.length === 1 && key === m; };
    if (key === "l" || ev.code === "KeyL" || own("chain.mark_left")) return "left";
    if (key === "r" || ev.code === "KeyR" || own("chain.mark_right")) return "right";
    return null;
  }
  // a digit picks that tile of the hand, L / R the end, P passes (the help lists them)
  function onKey(ev) {
    if (!state || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.target.closest && ev.target.closest("input, select, textarea")) return;
    const key = ev.key.toLowerCase();
    const mine = state.you !== null && state.turn === state.you && !state.round_over;
    if (/^[1-9]$/.test(key)) {
      const h = state.hand[Number(key) - 1];
      if (!h) return;
      ev.preventDefault();
      focusHand = true;
      if (mine) clickTile(h);
      const btn = $("hand").querySelector(`button[data-tile="${h.tile}"]`);
      if (btn) btn.focus({preventScroll: true});
    } else if (endKey(ev) && mine && chosen !== null) {
      const end = endKey(ev);
      if (state.legal.some((x) => x.tile === chosen && x.end === end)) { ev.preventDefault(); playAt(end); }
    } else if ((key === "p" || ev.code === "KeyP") && mine && state.must_pass) {
      ev.preventDefault();
      act({type: "pass"});
    }
  }

  function renderEnd() {
    const box = $("round-end");
    box.hidden = !state.round_over || !state.result;
    if (box.hidden) return;
    const title = $("round-end-title");
    title.replaceChildren(...termify(state.game_over
      ? t("roundend.game_over", {rounds: count(state.rounds_played, "round"), seed: state.seed})
      : t("roundend.over", {n: state.round, kind: kindTerm(state.result.kind)})));
    // the end as the log says it, then in plain words beside its term
    const lines = (state.end_items || []).map(fmt);
    const plain = (state.explain || []).map(fmt);
    $("end-text").replaceChildren(...lines.map((l) => lineEl(l)), ...plain.map((l) => lineEl(l, {class: "explain"})));
    const me = state.you !== null ? state.seats[state.you] : null;
    const btn = $("next-round");
    btn.hidden = !me || state.game_over;
    btn.disabled = !!(me && me.ready);
    const waiting = state.seats.filter((s) => s.human && s.connected && !s.ready).map((s) => seatName(s.seat));
    $("next-wait").textContent = state.game_over ? "" : me && me.ready && waiting.length
      ? t("roundend.waiting", {names: waiting.join(t("word.sep"))}) : "";
  }

  function renderReplay() {
    const r = state.last_round;
    $("replay").hidden = !r;
    if (!r) return;
    if (replayRound !== r.round) { replayRound = r.round; replayPos = r.steps.length; }
    replayPos = Math.max(0, Math.min(replayPos, r.steps.length));
    $("replay-title").textContent = t("replay.title", {n: r.round});
    $("replay-pos").textContent = `${replayPos} / ${r.steps.length}`;
    chainTiles($("replay-chain"), replayPos ? r.steps[replayPos - 1] : [], 15);
    $("replay-log").replaceChildren(...r.log_items.map((x) => lineEl(fmt(x))));
  }
  function moveReplay(to) { replayPos = to; renderReplay(); }

  function renderInvites() {
    let inv = null;
    try { inv = JSON.parse(sessionStorage.getItem("domeng-invites:" + state.table)); } catch (e) { inv = null; }
    $("invites").hidden = !inv;
    if (!inv) return;
    if (invitesFor !== state.table + lang) {
      // a phone folds the links to one line (the board and the hand stay on
      // screen); a wider window shows them; either way, once: the person may toggle
      if (!invitesFor || !invitesFor.startsWith(state.table)) $("invites").open = !narrow();
      invitesFor = state.table + lang;
      const list = $("invite-list");
      list.replaceChildren();
      const add = (label, link) => {
        const input = el("input", {type: "text", readonly: "", value: location.origin + link,
                                   "aria-label": t("invites.link", {who: label})});
        const copy = el("button", {type: "button", class: "copy"}, t("invites.copy"));
        copy.addEventListener("click", () => copyLink(input, copy));
        const li = el("li");
        li.append(el("span", {class: "who"}, label), input, copy);
        list.appendChild(li);
      };
      const seats = Object.entries(inv.seats);
      for (const [s, link] of seats) add(t(link === inv.you ? "invites.you" : "invites.seat", {n: s}), link);
      add(t("invites.spectators"), inv.spectator);
      $("invite-count").textContent = `(${seats.length + 1})`;
    }
  }

  function copyLink(input, button) {
    const done = () => { button.textContent = t("invites.copied"); setTimeout(() => { button.textContent = t("invites.copy"); }, 1500); };
    const fallback = () => { input.select(); try { if (document.execCommand("copy")) done(); } catch (e) { /* selected */ } };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(input.value).then(done, fallback);
    else fallback();
  }

  // ------------------------------------------------------------ creating a table
  async function showCreate() {
    $("table-view").hidden = true;
    $("create-view").hidden = false;
    $("status").textContent = t("status.create");
    if (!options) {
      try { options = await (await fetch("/api/options")).json(); } catch (e) { say(t("status.no_answer")); return; }
    }
    drawCreate();
  }
  // the create form in the page's language; what was chosen stays chosen
  function drawCreate() {
    if (!options) return;
    $("status").textContent = t("status.create");
    const f = $("new-table");
    const seats = $("seat-choices");
    const defaults = ["human", "hunter", "keeper", "heavy", "random"];
    const was = [...Array(5).keys()].map((s) => (f[`seat${s}`] ? f[`seat${s}`].value : defaults[s]));
    seats.replaceChildren();
    for (let s = 0; s < 5; s++) {
      const lab = el("label", {class: "seat-choice"});
      lab.appendChild(el("span", {}, t("create.seat", {n: s}) + " "));
      const sel = el("select", {name: `seat${s}`, "data-seat": s});
      // each computer player in one line: strength and thinking time (the player catalogue's)
      const about = (k) => (k === "human" ? t("create.person_about") : t("player." + k));
      for (const k of options.seats) sel.appendChild(el("option", {value: k, title: about(k)}, k === "human" ? t("create.person") : k));
      sel.value = was[s];
      const line = el("span", {class: "about hint"}, about(sel.value));
      sel.addEventListener("change", () => { line.textContent = about(sel.value); });
      lab.append(sel, line);
      seats.appendChild(lab);
    }
    const rules = $("rule-choices");
    const before = {};
    for (const inp of rules.querySelectorAll("input")) before[inp.name] = inp.type === "checkbox" ? inp.checked : inp.value;
    rules.replaceChildren();
    for (const [k, v] of Object.entries(options.rules)) {
      // each option in words (its description), then its value
      const lab = el("label", {class: "rule"});
      lab.appendChild(el("span", {}, t("rule." + k) + " "));
      const inp = typeof v === "boolean"
        ? el("input", {type: "checkbox", name: "rule:" + k})
        : el("input", {type: "number", name: "rule:" + k, min: 0, value: String(v)});
      if (typeof v === "boolean") inp.checked = v;
      if (("rule:" + k) in before) { if (typeof v === "boolean") inp.checked = before["rule:" + k]; else inp.value = before["rule:" + k]; }
      lab.appendChild(inp);
      rules.appendChild(lab);
    }
  }

  async function create(ev) {
    ev.preventDefault();
    const f = ev.target;
    if (!$("preparing").hidden) return;  // one table at a time
    const body = {seats: [], rules: {}, rounds: Number(f.rounds.value || 0), camats: Number(f.camats.value || 0)};
    for (let s = 0; s < 5; s++) body.seats.push(f[`seat${s}`].value);
    if (f.seed.value.trim()) body.seed = f.seed.value.trim();
    for (const inp of f.querySelectorAll("[name^='rule:']")) {
      const k = inp.name.slice(5);
      body.rules[k] = inp.type === "checkbox" ? inp.checked : (/^\d+$/.test(inp.value) ? Number(inp.value) : inp.value);
    }
    let res, data;
    const stop = preparing(f);
    try {
      res = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
      data = await res.json();
    } catch (e) { stop(); say(t("status.no_answer")); return; }
    stop();
    if (!res.ok) { say(data.item || data.error ? refusalText({item: data.item, message: data.error}) : t("create.failed")); return; }
    sessionStorage.setItem("domeng-invites:" + data.table, JSON.stringify(data));
    location.hash = data.you.split("#")[1];
  }

  // while the server prepares the table (a computer player's first use
  // compiles it: up to minutes): said at once, the seconds counted, the
  // button disabled (one table per click); returns what ends it
  function preparing(form) {
    const btn = form.querySelector('button[type="submit"]'), box = $("preparing");
    const started = Date.now();
    const tick = () => { $("preparing-text").textContent = t("create.preparing", {s: Math.floor((Date.now() - started) / 1000)}); };
    btn.disabled = true;
    box.hidden = false;
    tick();
    const timer = setInterval(tick, 1000);
    return () => { clearInterval(timer); btn.disabled = false; box.hidden = true; };
  }

  function route() {
    const m = /^#t=([A-Za-z0-9_-]{10,64})$/.exec(location.hash);
    if (ws) { const old = ws; ws = null; old.onclose = null; old.close(); }
    fatal = false; state = null; chosen = null; inflight = null; seenChain = null; heard = null;
    token = m ? m[1] : null;
    if (token) { $("status").textContent = t("status.connecting"); connect(); } else showCreate();
  }

  document.addEventListener("DOMContentLoaded", async () => {
    let want = null;
    try { want = localStorage.getItem(LANG_KEY); } catch (e) { want = null; }
    try { await loadWords(want || pick(navigator.languages || [navigator.language])); } catch (e) { /* the page says so below */ }
    $("lang").addEventListener("change", (ev) => switchLang(ev.target.value));
    $("glossary-open").addEventListener("click", () => { $("glossary").open = true; $("glossary").scrollIntoView({block: "start"}); });
    $("name-form").addEventListener("submit", sendName);
    $("new-table").addEventListener("submit", create);
    $("pass").addEventListener("click", () => act({type: "pass"}));
    $("next-round").addEventListener("click", () => act({type: "next_round"}));
    for (const btn of $("end-choice").querySelectorAll("[data-end]")) {
      btn.addEventListener("click", () => playAt(btn.dataset.end));
    }
    $("end-cancel").addEventListener("click", () => { chosen = null; focusHand = true; renderHand(); renderChains(); });
    document.addEventListener("keydown", onKey);
    $("export").addEventListener("click", () => send({type: "export"}));
    $("play-again").addEventListener("click", () => act({type: "play_again"}));
    $("host-end").addEventListener("click", endTable);
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
    window.addEventListener("resize", () => {
      clearTimeout(resized);
      resized = setTimeout(() => { newTiles = new Set(); renderChains(); }, 100);
    });
    route();
  });
})();
