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

async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(url, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: `answer ${res.status} is not JSON` }; }
  if (!res.ok) throw Object.assign(new Error(data.error || res.statusText), { status: res.status });
  return data;
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
async function init() {
  config = await api("GET", "/api/config");
  for (const g of config.games) $("game").append(new Option(`${g.title} (to ${g.target})`, g.name));
  $("game").addEventListener("change", setupChanged);
  setupChanged();
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
  $("conn").textContent = `${config.opponents.length} opponent(s) · ${config.records} record(s)`;
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

async function startGame() {
  const g = config.games.find((x) => x.name === $("game").value);
  const body = { game: g.name, opponent: Number($("opponent").value), seat: Number($("seat").value) };
  if (g.min_players !== g.max_players) body.players = Number($("players").value);
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  try {
    game = await api("POST", "/api/games", body);
  } catch (e) { return refuse(e.message); }
  $("log").textContent = "";
  $("play-why").textContent = "";
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
  for (const ev of answer.events) logEvent(ev);
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
      : "game over";
    return;
  }
  $("table").innerHTML = game.html;
  $("hand-line").textContent = game.hand;
  const status = $("status");
  status.textContent = game.over ? "game over" : (game.your_turn ? "your turn " : "");
  if (game.your_turn) status.append(el("span", { class: "sub" }, game.prompt.replace(/ ?· \? moves > $/, "")));
  drawMoves();
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
  for (const m of game.moves) {
    const card = m.command.startsWith("x ") ? cardOf(m.command) : null;
    if (card && mine) {
      const c = mine.querySelector(`[data-card="${card}"]`);
      if (c) { c.classList.add("legal"); c.title = m.text; discards++; continue; }
    }
    if (m.command === "d") table.querySelector('[data-zone="stock"]')?.classList.add("clickable");
    if (m.command === "t") table.querySelector('[data-zone="pile"]')?.classList.add("clickable");
    const b = el("button", { type: "button", class: "move" + (m.command.startsWith("k ") || m.command === "g" ? " knock" : ""),
                             "data-command": m.command }, m.text);
    b.addEventListener("click", () => send(m.command));
    b.addEventListener("mouseenter", () => mark(m.command, true));
    b.addEventListener("mouseleave", () => mark(m.command, false));
    box.append(b);
  }
  if (discards) box.prepend(el("div", { class: "hintline" }, "Click a card of your hand to discard it, or:"));
}

function mark(command, on) {
  const cards = command.split(" ").slice(1).filter((w) => /^[0-9TJQKA]{1,2}[shdc]$/.test(w));
  for (const c of cards) $("table").querySelector(`.rrl-mine [data-card="${c}"]`)?.classList.toggle("marked", on);
}

function tableClick(ev) {
  if (!game || game.over || !game.your_turn) return;
  const card = ev.target.closest(".rrl-mine [data-card]");
  if (card) return send(`x ${card.dataset.card}`);
  const zone = ev.target.closest("[data-zone]");
  if (zone && zone.dataset.zone === "stock") return send("d");
  if (zone && zone.dataset.zone === "pile") return send("t");
}

async function send(command) {
  try {
    absorb(await api("POST", `/api/games/${game.id}/move`, { command, step: game.step }));
  } catch (e) {
    if (e.status === 404) { refuse(e.message); return; }
    refuse(e.message);
  }
}

function leaveGame() {
  if (game && !game.over) api("DELETE", `/api/games/${game.id}`).catch(() => {});
  game = null;
  pendingEnds = [];
  $("play-area").hidden = true;
  $("setup").hidden = false;
}

function dismissEnd() {
  pendingEnds.shift();
  draw();
}

async function showHint() {
  const box = $("play-why");
  box.textContent = "thinking…";
  try {
    whyTable(box, await api("GET", `/api/games/${game.id}/hint`), `${game.opponent} in your seat`);
  } catch (e) { box.textContent = e.message; }
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
    const tr = el("tr", { class: "rec" + (rec && rec.id === r.id ? " current" : ""), "data-record": r.id });
    for (const v of [r.id, r.title, r.seats.join(", "), r.deals, r.actions, r.result, r.reasons ? "yes" : "", r.source]) {
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
  catch (e) { box.textContent = e.message; }
}

function replayKeys(ev) {
  if ($("replay").hidden || !rec || !rec.frame || ev.target.tagName === "INPUT") return;
  const f = rec.frame;
  const to = { ArrowRight: f.step + 1, ArrowLeft: f.step - 1, Home: 0, End: f.steps,
               PageDown: nextDealEnd(f), PageUp: prevDealStart(f) }[ev.key];
  if (to !== undefined) { ev.preventDefault(); goto(to); }
}

init().catch((e) => { document.body.prepend(el("div", { class: "refusal" }, `cannot start: ${e.message}`)); });
