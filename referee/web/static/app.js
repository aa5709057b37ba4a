// The scoreboard page: the state arrives as Server-Sent Events and is drawn here.
// Names and numbers are set with textContent only, never as HTML.
"use strict";

const PHASES = { playing: "", scored: " - scored", cleared: " - clear the table", over: "" };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function ordinal(n) {
  return n + (n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th");
}

function drawTitle(state) {
  const phase = state.stopped_by ? ` - Stopp! (${state.stopped_by})` : PHASES[state.phase] || "";
  const title = state.phase === "over" ? "Game over" : `Round ${state.round} of ${state.rounds}${phase}`;
  document.getElementById("title").textContent = title;
  document.title = `${title} - Table referee`;
  const mode = document.getElementById("mode");
  mode.textContent = state.mode === "open" ? "open: errors shown" : "hidden: errors at the end";
  mode.className = "badge" + (state.mode === "open" ? " open" : "");
}

function drawCards(row, colour) {
  const cards = el("span", "cards");
  const revealed = Array.isArray(row.cards);
  const errorAt = revealed && row.first_error ? row.first_error.position : -1;
  for (let k = 0; k < row.count; k++) {
    const card = el("span", "card", k + 1);
    card.style.setProperty("--colour", colour);
    if (revealed) {
      const c = row.cards[k];
      card.title = `${c.colours} colours, ${c.shapes} shapes, ${c.symbols} symbols`;
      if (k === errorAt) card.classList.add("error");
      else if (k >= row.valid_length) card.classList.add("out");
    }
    cards.appendChild(card);
  }
  return cards;
}

function drawPlayers(state) {
  const rows = Object.fromEntries(state.rows.map((r) => [r.player, r]));
  const totals = Object.fromEntries(state.totals.map((s) => [s.player, s]));
  const ranks = Object.fromEntries(state.ranking.map((r) => [r.player, r]));
  const anyPoints = state.scores.some((s) => Object.keys(s.points).length > 0);
  let order = state.players.slice();
  if (anyPoints) order = state.totals.map((s) => s.player);
  else if (state.ranking.length) order = state.ranking.map((r) => r.player);
  const list = document.getElementById("players");
  list.replaceChildren();
  for (const player of order) {
    const row = rows[player] || { player, count: 0 };
    const colour = state.colours[player] || "#888";
    const item = el("li", "player");
    item.dataset.player = player;
    item.style.setProperty("--colour", colour);
    const place = anyPoints ? totals[player].place : ranks[player] ? ranks[player].place : "";
    item.appendChild(el("span", "place", place));
    item.appendChild(el("span", "name", player));
    const total = el("span", "total", anyPoints ? totals[player].points : "");
    if (anyPoints) total.appendChild(el("small", "", "points"));
    item.appendChild(total);
    const line = el("span", "row");
    line.appendChild(drawCards(row, colour));
    const words = [`${row.count} card${row.count === 1 ? "" : "s"}`];
    if (row.valid_length !== undefined) words.push(`${row.valid_length} valid`);
    if (ranks[player]) words.push(`${ordinal(ranks[player].place)} this round`);
    line.appendChild(el("span", "valid", words.join(" · ")));
    if (state.round_points[player] !== undefined) line.appendChild(el("span", "gain", `+${state.round_points[player]}`));
    item.appendChild(line);
    list.appendChild(item);
  }
}

function drawResult(state) {
  const box = document.getElementById("result");
  if (!state.ranking.length) {
    box.hidden = true;
    return;
  }
  const parts = state.ranking.map((r) => {
    const won = state.round_points[r.player] !== undefined ? ` +${state.round_points[r.player]}` : "";
    return `${r.place}. ${r.player} ${r.valid_length} valid${won}`;
  });
  let text = `Round ${state.round} scored: ${parts.join(" · ")}`;
  if (state.phase === "over" && state.totals.length) {
    const winners = state.totals.filter((s) => s.place === 1).map((s) => `${s.player} (${s.points})`);
    text = `Game over - winner ${winners.join(", ")}. ` + text;
  }
  box.textContent = text;
  box.className = "result" + (state.phase === "over" ? " over" : "");
  box.hidden = false;
}

function drawScores(state) {
  const table = document.getElementById("scores");
  const scored = state.scores.filter((s) => Object.keys(s.points).length > 0);
  table.hidden = scored.length === 0;
  if (table.hidden) return;
  const head = el("tr");
  head.appendChild(el("th", "", "Player"));
  for (const s of scored) head.appendChild(el("th", "", `R${s.round}`));
  head.appendChild(el("th", "", "Total"));
  table.tHead.replaceChildren(head);
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const standing of state.totals) {
    const tr = el("tr");
    tr.appendChild(el("td", "", standing.player));
    for (const s of scored) tr.appendChild(el("td", "", s.points[standing.player] ?? ""));
    tr.appendChild(el("td", "", standing.points));
    body.appendChild(tr);
  }
}

function draw(state) {
  if (!state || !state.players) return;
  drawTitle(state);
  drawPlayers(state);
  drawResult(state);
  drawScores(state);
  document.body.dataset.round = state.round;
  document.body.dataset.phase = state.phase;
}

function connect() {
  const badge = document.getElementById("connection");
  const events = new EventSource("/events");
  events.addEventListener("open", () => {
    badge.textContent = "live";
    badge.className = "badge";
  });
  events.addEventListener("state", (message) => draw(JSON.parse(message.data)));
  events.addEventListener("error", () => {
    badge.textContent = events.readyState === EventSource.CLOSED ? "referee stopped" : "reconnecting";
    badge.className = "badge warn";
  });
}

function takeToken() {
  // A token in the address (?token=...) is kept for this tab only and taken out of the address bar.
  const params = new URLSearchParams(window.location.search);
  const field = document.getElementById("token");
  if (params.has("token")) {
    sessionStorage.setItem("referee-token", params.get("token"));
    params.delete("token");
    const rest = params.toString();
    window.history.replaceState(null, "", window.location.pathname + (rest ? "?" + rest : ""));
  }
  field.value = sessionStorage.getItem("referee-token") || "";
  field.addEventListener("change", () => sessionStorage.setItem("referee-token", field.value.trim()));
}

async function act(kind) {
  const answer = document.getElementById("answer");
  const token = document.getElementById("token").value.trim();
  const headers = { "Content-Type": "application/json" };
  if (token) headers["X-Referee-Token"] = token;
  let body = "{}";
  if (kind === "points") {
    const values = document.getElementById("points").value.split(",").map((v) => v.trim()).filter((v) => v !== "");
    body = JSON.stringify({ points: values.map(Number) });
  }
  answer.className = "";
  answer.textContent = "…";
  try {
    const reply = await fetch(`/action/${kind}`, { method: "POST", headers, body });
    const data = await reply.json().catch(() => ({}));
    if (reply.ok) {
      answer.textContent = reply.status === 202 ? "Asked; the referee will do it shortly." : "Done.";
    } else {
      answer.textContent = (reply.status === 403 ? "Refused: " : "Not done: ") + (data.error || reply.statusText);
      answer.className = "refused";
    }
    answer.dataset.status = String(reply.status);
  } catch (error) {
    answer.textContent = "Not done: the referee cannot be reached.";
    answer.className = "refused";
    answer.dataset.status = "0";
  }
}

document.addEventListener("DOMContentLoaded", () => {
  takeToken();
  for (const button of document.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", () => act(button.dataset.action));
  }
  connect();
});
