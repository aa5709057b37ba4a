// The history page: past games from /history.json, set with textContent only.
"use strict";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function drawGame(game, palette) {
  const item = el("li", "game");
  item.dataset.game = String(game.game);
  const when = new Date(game.started);
  const state = game.finished ? "finished" : `unfinished, ${game.rounds.length} of 5 rounds`;
  item.appendChild(el("h2", "", `Game ${game.game} - ${when.toLocaleString()}`));
  item.appendChild(el("p", "meta", `${game.source} · ${state}`));
  const table = el("table");
  const head = el("tr");
  head.appendChild(el("th", "", "Place"));
  head.appendChild(el("th", "", "Player"));
  for (const r of game.rounds) head.appendChild(el("th", "", `R${r.round}`));
  head.appendChild(el("th", "", "Total"));
  table.createTHead().appendChild(head);
  const body = table.createTBody();
  for (const s of game.standings) {
    const tr = el("tr");
    tr.dataset.player = s.player;
    tr.appendChild(el("td", "", s.place));
    const name = el("td", "", s.player);
    const seat = game.players.indexOf(s.player);
    if (palette.length && seat >= 0) name.style.borderLeft = `0.4rem solid ${palette[seat % palette.length]}`;
    tr.appendChild(name);
    for (const r of game.rounds) tr.appendChild(el("td", "", r.points[s.player] ?? "-"));
    tr.appendChild(el("td", "total", s.points));
    body.appendChild(tr);
  }
  item.appendChild(table);
  return item;
}

document.addEventListener("DOMContentLoaded", async () => {
  const list = document.getElementById("games");
  try {
    const reply = await fetch("/history.json");
    const data = await reply.json();
    if (!reply.ok) throw new Error(data.error || reply.statusText);
    for (const game of data.games) list.appendChild(drawGame(game, data.palette || []));
    document.getElementById("empty").hidden = data.games.length > 0;
  } catch (error) {
    const empty = document.getElementById("empty");
    empty.textContent = `The games cannot be read now (${error.message}).`;
    empty.hidden = false;
  }
  document.body.dataset.loaded = "yes";
});
