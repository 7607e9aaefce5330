// rummyrl web app: plain JavaScript, no build step. The server draws the card table
// (HTML from rummyrl.envs.render_html); this script sends your clicks as the terminal
// game's commands (d, t, p, x Kd, k Kd, m ..., l ...), shows the moves, the refusals,
// the end of each deal and the why panel, and steps through recorded games.
"use strict";

const $ = (id) => document.getElementById(id);
let config = null;
let game = null;          // the last answer of the game in play
let pendingEnds = [];     // deal-end and game-over events not yet dismissed
let rec = null;           // the record being replayed: {id, frame}
let lost = false;         // the game in play is gone (the server was lost, or it closed the game): the table dead

// The server's 404 for a game id it does not hold (it never started it, closed it, or restarted since).
const GAME_GONE = /never started|was closed|restarted/;

async function api(method, url, body) {
  const opts = { method, headers: {} };
  // The server refuses (403) any state-changing request that is not declared JSON, so every
  // POST and DELETE sends the header and a JSON body ("{}" when there is nothing to say).
  // Origin goes with it by itself: the page is same-origin.
  if (method !== "GET") {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body ?? {});
  }
  let res;
  try {
    res = await fetch(url, opts);
  } catch (e) {  // no answer at all: the server is stopped (or unreachable)
    loseTable(`no answer to ${method} ${url}: ${e.message}`);
    throw Object.assign(new Error("no answer from the server"), { status: 0 });
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: `answer ${res.status} is not JSON` }; }
  if (!res.ok) {
    const message = data.error || res.statusText;
    if (res.status === 404 && game && url.startsWith(`/api/games/${game.id}`) && GAME_GONE.test(message)) {
      loseTable(message);
    } else if (res.status === 410 && game && url.startsWith(`/api/games/${game.id}`)) {
      loseTable(message, "The server closed this game to make room for newer ones (it keeps the most recently played).");
    }
    throw Object.assign(new Error(message), { status: res.status });
  }
  return data;
}

// ---------------------------------------------------------------------------- a lost server
const LOST_TEXT = "The server was lost (stopped or restarted): this game is gone.";

function loseTable(detail, text = LOST_TEXT) {
  lost = true;
  $("lost-text").textContent = text;
  $("lost-detail").textContent = detail || "";
  $("lost").hidden = false;
  $("deal").disabled = true;  // the way on is "Start again", which reloads the configuration first
  if (game && !$("play-area").hidden) draw();  // redrawn dead: no legal cards, buttons disabled
}

async function startAgain() {
  $("restart").disabled = true;
  try {
    await loadConfig();
  } catch (e) {  // still nobody there: the banner stays, saying so
    $("lost-detail").textContent = `still no server: ${e.message}`;
    return;
  } finally { $("restart").disabled = false; }
  leaveGame();  // while still lost: no DELETE for a game the server does not hold
  lost = false;
  $("lost").hidden = true;
  $("deal").disabled = false;
  showTab("play");
}

function el(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

// ---------------------------------------------------------------------------- tabs
function showTab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  $("play").hidden = name !== "play";
  $("replay").hidden = name !== "replay";
  if (name === "replay") loadRecords();
}

// ---------------------------------------------------------------------------- setup
// The games and opponents on offer (again after a lost server: a new one may offer others).
async function loadConfig() {
  config = await api("GET", "/api/config");
  const choice = $("game").value;
  $("game").textContent = "";
  for (const g of config.games) $("game").append(new Option(`${g.title} (to ${g.target})`, g.name));
  if (config.games.some((g) => g.name === choice)) $("game").value = choice;
  setupChanged();
  $("conn").textContent = `${config.opponents.length} opponent(s) · ${config.records} record(s)` +
    (config.broken_records ? ` (${config.broken_records} broken)` : "");
}

async function init() {
  $("game").addEventListener("change", setupChanged);
  $("restart").addEventListener("click", startAgain);
  await loadConfig();
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => showTab(t.dataset.tab));
  $("setup").addEventListener("submit", (ev) => { ev.preventDefault(); startGame(); });
  $("table").addEventListener("click", tableClick);
  $("hint").addEventListener("click", showHint);
  $("continue").addEventListener("click", dismissEnd);
  $("new-game").addEventListener("click", leaveGame);
  $("leave").addEventListener("click", leaveGame);
  $("replay-game").addEventListener("click", replayThisGame);
  for (const [id, fn] of [["r-first", () => 0], ["r-back", (f) => f.step - 1], ["r-fwd", (f) => f.step + 1],
                          ["r-last", (f) => f.steps], ["r-next-deal", nextDealEnd], ["r-prev-deal", prevDealStart]]) {
    $(id).addEventListener("click", () => rec && goto(fn(rec.frame)));
  }
  $("r-slider").addEventListener("input", (ev) => rec && goto(Number(ev.target.value)));
  $("r-explain").addEventListener("click", explainNow);
  document.addEventListener("keydown", replayKeys);
}

function setupChanged() {
  const g = config.games.find((x) => x.name === $("game").value);
  $("players-label").hidden = g.min_players === g.max_players;
  $("players").min = g.min_players; $("players").max = g.max_players; $("players").value = g.default_players;
  const sel = $("opponent");
  sel.textContent = "";
  for (const o of config.opponents) {
    const opt = new Option(o.label, o.index);
    opt.disabled = !o.games[g.name];
    if (opt.disabled) opt.title = o.why_not[g.name] || "";
    sel.append(opt);
  }
  const first = config.opponents.find((o) => o.games[g.name]);
  if (first) sel.value = first.index;
}

// A setup error is shown in the setup form, next to Deal (the play area is hidden then).
function setupError(msg) {
  $("setup-error").textContent = msg;
  $("setup-error").hidden = !msg;
}

async function startGame() {
  setupError("");
  if (lost) return;  // Enter in a field submits too: after a lost server, "Start again" first
  const g = config.games.find((x) => x.name === $("game").value);
  const body = { game: g.name, opponent: Number($("opponent").value), seat: Number($("seat").value) };
  if (g.min_players !== g.max_players) body.players = Number($("players").value);
  // The seed goes as a string of digits: a JSON number past 2**53 would change on the way
  // (Number() rounds it). The server checks its range (0..2**63 - 1).
  const seed = $("seed").value.trim();
  if (seed !== "") {
    if (!/^[0-9]{1,19}$/.test(seed)) {
      const shown = JSON.stringify(seed.slice(0, 30));
      return setupError(`The seed must be 1 to 19 digits 0-9 (or empty for a random deal), not ${shown}.`);
    }
    body.seed = seed;
  }
  let answer;
  try {
    answer = await api("POST", "/api/games", body);
  } catch (e) { return setupError(lost ? "" : e.message); }
  game = answer;
  $("log").textContent = "";
  pendingEnds = [];
  $("setup").hidden = true;
  $("play-area").hidden = false;
  absorb(game);
}

// ---------------------------------------------------------------------------- playing
function refuse(msg) {
  const r = $("refusal");
  r.textContent = msg;
  r.hidden = !msg;
}

function absorb(answer) {
  game = answer;
  refuse("");
  $("play-why").textContent = "";  // a hint holds for the position it was asked in, not after a move
  for (const ev of answer.events) logEvent(ev);
  // Once the game is over the server tells its seed, a string of digits (kept as text: never Number()).
  if (answer.over && typeof answer.seed === "string") {
    $("log").append(el("li", { class: "end", id: "seed-line" }, `seed ${answer.seed}`));
  }
  pendingEnds.push(...answer.events.filter((e) => e.kind !== "move"));
  draw();
}

function logEvent(ev) {
  const li = el("li", {}, ev.kind === "move" ? ev.text
    : ev.kind === "deal_end" ? ev.lines[1] || ev.lines[0] : (ev.lines[1] || "game over"));
  if (ev.kind !== "move") li.className = "end";
  else if (ev.seat === game.seat) li.className = "you";
  $("log").append(li);
  li.scrollIntoView({ block: "nearest" });
}

function draw() {
  $("deal-known").hidden = game.deal_known !== true;
  $("hint").disabled = lost || !game.your_turn;
  $("replay-game").disabled = lost;
  const showing = pendingEnds.length > 0;
  $("showdown").hidden = !showing;
  $("table").hidden = showing;
  $("moves").hidden = showing;
  $("hand-line").hidden = showing;
  if (showing) {
    const ev = pendingEnds[0];
    $("showdown-lines").textContent = ev.lines.join("\n");
    $("showdown-table").innerHTML = ev.kind === "deal_end" ? `<div class="rrl-table">${ev.html}</div>` : "";
    const last = pendingEnds.length === 1 && game.over;
    $("continue").hidden = last;
    $("replay-game").hidden = !last;
    $("new-game").hidden = !last;
    $("status").textContent = ev.kind === "deal_end" ? `${config.games.find((g) => g.name === game.game).deal} over`
      : gameOverText();
    return;
  }
  $("table").innerHTML = game.html;
  $("hand-line").textContent = game.hand;
  const status = $("status");
  if (lost) status.textContent = `this game is gone: ${$("lost-text").textContent}`;
  else status.textContent = game.over ? gameOverText() : (game.your_turn ? "your turn " : "");
  if (game.your_turn && !lost) status.append(el("span", { class: "sub" }, game.prompt.replace(/ ?· \? moves > $/, "")));
  drawMoves();
}

function gameOverText() {
  return typeof game.seed === "string" ? `game over · seed ${game.seed}` : "game over";
}

function cardOf(command) {
  const m = /^[xk] (\S+)$/.exec(command);
  return m ? m[1] : null;
}

function drawMoves() {
  const box = $("moves");
  box.textContent = "";
  const table = $("table");
  for (const c of table.querySelectorAll(".rrl-card.legal")) c.classList.remove("legal");
  for (const z of table.querySelectorAll("[data-zone].clickable")) z.classList.remove("clickable");
  if (!game.your_turn) return;
  const mine = table.querySelector(".rrl-mine");
  let discards = 0;
  let buttons = 0;
  for (const m of game.moves) {
    const card = m.command.startsWith("x ") ? cardOf(m.command) : null;
    if (card && mine) {
      const c = mine.querySelector(`[data-card="${card}"]`);
      if (c) {  // a lost table offers nothing to click: the cards stay as they lie
        if (!lost) c.classList.add("legal");
        c.title = m.text; discards++; continue;
      }
    }
    if (!lost && m.command === "d") table.querySelector('[data-zone="stock"]')?.classList.add("clickable");
    if (!lost && m.command === "t") table.querySelector('[data-zone="pile"]')?.classList.add("clickable");
    const b = el("button", { type: "button", class: "move" + (m.command.startsWith("k ") || m.command === "g" ? " knock" : ""),
                             "data-command": m.command }, m.text);
    b.disabled = lost;
    b.addEventListener("click", () => send(m.command));
    b.addEventListener("mouseenter", () => mark(m.command, true));
    b.addEventListener("mouseleave", () => mark(m.command, false));
    box.append(b);
    buttons++;
  }
  // "or:" only when move buttons follow it
  if (discards) box.prepend(el("div", { class: "hintline" },
    buttons ? "Click a card of your hand to discard it, or:" : "Click a card of your hand to discard it."));
}

function mark(command, on) {
  const cards = command.split(" ").slice(1).filter((w) => /^[0-9TJQKA]{1,2}[shdc]$/.test(w));
  for (const c of cards) $("table").querySelector(`.rrl-mine [data-card="${c}"]`)?.classList.toggle("marked", on);
}

function tableClick(ev) {
  if (lost || !game || game.over || !game.your_turn) return;
  const card = ev.target.closest(".rrl-mine [data-card]");
  if (card) return send(`x ${card.dataset.card}`);
  const zone = ev.target.closest("[data-zone]");
  if (zone && zone.dataset.zone === "stock") return send("d");
  if (zone && zone.dataset.zone === "pile") return send("t");
}

async function send(command) {
  if (lost) return;
  try {
    absorb(await api("POST", `/api/games/${game.id}/move`, { command, step: game.step }));
  } catch (e) {
    refuse(lost ? "" : e.message);  // a lost table says so in its banner
  }
}

function leaveGame() {
  if (game && !game.over && !lost) api("DELETE", `/api/games/${game.id}`).catch(() => {});
  game = null;
  pendingEnds = [];
  refuse("");
  $("play-why").textContent = "";
  $("play-area").hidden = true;
  $("setup").hidden = false;
}

function dismissEnd() {
  pendingEnds.shift();
  draw();
}

async function showHint() {
  const box = $("play-why");
  const asked = game;  // the answer holds for this position only: dropped if a move came meanwhile
  box.textContent = "thinking…";
  $("hint").disabled = true;
  try {
    const why = await api("GET", `/api/games/${asked.id}/hint`);
    if (game === asked) whyTable(box, why, `${asked.opponent} in your seat`);
  } catch (e) {
    if (game === asked) {
      if (lost) box.textContent = "";  // the banner says what happened
      else whyError(box, e);
    }
  } finally {
    if (game === asked) $("hint").disabled = lost || !game.your_turn;
  }
}

// An explanation that could not be given: 503 when it took too long or the server is busy.
function whyError(box, e) {
  box.textContent = "";
  // the server's message says why (too slow, or too many at once) and what to do
  const text = e.status === 503 ? `No explanation this time: ${e.message}` : e.message;
  box.append(el("div", { class: "why-error" }, text));
}

function whyTable(box, why, who) {
  box.textContent = "";
  box.append(el("div", { class: "summary" }, `${who}: ${why.summary}`));
  if (why.value !== undefined) box.append(el("div", { class: "summary" }, `value of the position: ${why.value.toFixed(3)}`));
  const t = el("table");
  for (const r of why.rows) {
    const tr = el("tr", { class: r.chosen ? "chosen" : "" });
    tr.append(el("td", {}, (r.chosen ? "▶ " : "") + r.text), el("td", { class: "fig" }, r.figure));
    const bar = el("td", { class: "barcell" });
    const b = el("div", { class: "bar" });
    b.style.width = `${Math.round(100 * Math.max(0, Math.min(1, r.bar)))}%`;
    bar.append(b);
    tr.append(bar);
    t.append(tr);
  }
  box.append(t);
}

async function replayThisGame() {
  const r = await api("GET", `/api/games/${game.id}/record`);
  showTab("replay");
  openRecord(r.replay_id);
}

// ---------------------------------------------------------------------------- replays
async function loadRecords() {
  const box = $("records");
  let list;
  try { list = await api("GET", "/api/records"); } catch (e) { box.textContent = e.message; return; }
  box.textContent = "";
  if (!list.records.length) {
    box.textContent = "No records: start rummyrl-web with --records DIR (evaluate.py --record DIR writes them), "
      + "or finish a game here.";
    return;
  }
  const t = el("table");
  const head = el("tr");
  for (const h of ["#", "game", "seats", "deals", "actions", "result", "reasons", "from"]) head.append(el("th", {}, h));
  t.append(head);
  for (const r of list.records) {
    const from = r.line === undefined ? r.source : `${r.source}:${r.line}`;
    if (r.broken) {  // a record that did not load: shown with the reason, not replayable
      const tr = el("tr", { class: "broken", "data-broken": r.id });
      tr.append(el("td", {}, String(r.id)), el("td", { colspan: 6 }, `broken: ${r.broken}`), el("td", {}, from));
      t.append(tr);
      continue;
    }
    const tr = el("tr", { class: "rec" + (rec && rec.id === r.id ? " current" : ""), "data-record": r.id });
    for (const v of [r.id, r.title, r.seats.join(", "), r.deals, r.actions, r.result, r.reasons ? "yes" : "", from]) {
      tr.append(el("td", {}, String(v)));
    }
    tr.addEventListener("click", () => openRecord(r.id));
    t.append(tr);
  }
  box.append(t);
}

async function openRecord(id) {
  rec = { id, frame: null };
  $("replay-area").hidden = false;
  await goto(0);
  for (const tr of document.querySelectorAll("#records tr.rec")) tr.classList.toggle("current", Number(tr.dataset.record) === id);
}

async function goto(step) {
  if (!rec) return;
  const max = rec.frame ? rec.frame.steps : step;
  step = Math.max(0, Math.min(step, max));
  let f;
  try { f = await api("GET", `/api/records/${rec.id}?step=${step}`); } catch (e) { $("r-moves").textContent = e.message; return; }
  rec.frame = f;
  $("r-table").innerHTML = f.html;
  $("r-step").textContent = `step ${f.step} / ${f.steps} · ${config.games.find((g) => g.name === f.game).deal} ${f.deal + 1} of ${f.deal_ends.length}`;
  const s = $("r-slider");
  s.max = f.steps; s.value = f.step;
  const moves = $("r-moves");
  moves.textContent = "";
  if (f.previous) moves.append(el("div", { class: "sub" }, `last move: ${f.previous.text}`));
  moves.append(el("div", {}, f.next ? `next: ${f.next.text}` : "the game is over"));
  const why = $("r-why");
  why.textContent = "";
  if (f.why) whyTable(why, f.why, `${f.next.name} (recorded)`);
  else if (f.next) why.textContent = f.can_explain ? "Not recorded with this game." : "Not recorded, and cannot be computed here.";
  $("r-explain").hidden = !!f.why || !f.can_explain;
}

function nextDealEnd(f) { return f.deal_ends.find((e) => e > f.step) ?? f.steps; }
function prevDealStart(f) {
  const starts = f.deal_starts.filter((s) => s < f.step);
  return starts.length ? starts[starts.length - 1] : 0;
}

async function explainNow() {
  const f = rec.frame;
  const box = $("r-why");
  box.textContent = "thinking…";
  try { whyTable(box, await api("GET", `/api/records/${rec.id}/why?step=${f.step}`), `${f.next.name} (computed now)`); }
  catch (e) { whyError(box, e); }
}

function replayKeys(ev) {
  if ($("replay").hidden || !rec || !rec.frame || ev.target.tagName === "INPUT") return;
  const f = rec.frame;
  const to = { ArrowRight: f.step + 1, ArrowLeft: f.step - 1, Home: 0, End: f.steps,
               PageDown: nextDealEnd(f), PageUp: prevDealStart(f) }[ev.key];
  if (to !== undefined) { ev.preventDefault(); goto(to); }
}

init().catch((e) => { document.body.prepend(el("div", { class: "refusal" }, `cannot start: ${e.message}`)); });
