// The todo front-end: the REST API for changes, the event feed to stay in
// step with every other open page. No framework.
"use strict";

const list = document.getElementById("todos");
const errorLine = document.getElementById("error");
const statusLine = document.getElementById("status");
const todos = new Map(); // id -> todo

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const resp = await fetch(path, opts);
  if (!resp.ok) {
    const problem = await resp.json().catch(() => ({ error: resp.statusText }));
    throw new Error(problem.error || resp.statusText);
  }
  return resp.status === 204 ? null : resp.json();
}

function show(err) { errorLine.textContent = err ? err.message : ""; }

function render() {
  list.replaceChildren();
  for (const t of [...todos.values()].sort((a, b) => a.id - b.id)) {
    const li = document.createElement("li");
    li.className = t.done ? "done" : "";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = t.done;
    box.onchange = () => api("PATCH", "/api/todos/" + t.id, { done: box.checked }).then(() => show(), show);
    const title = document.createElement("span");
    title.textContent = t.title;
    const del = document.createElement("button");
    del.textContent = "×";
    del.title = "delete";
    del.onclick = () => api("DELETE", "/api/todos/" + t.id).then(() => show(), show);
    li.append(box, title, del);
    list.append(li);
  }
}

async function reload() {
  todos.clear();
  for (const t of await api("GET", "/api/todos")) todos.set(t.id, t);
  render();
}

document.getElementById("new").onsubmit = async (ev) => {
  ev.preventDefault();
  const input = document.getElementById("title");
  try {
    await api("POST", "/api/todos", { title: input.value });
    input.value = "";
    show();
  } catch (err) {
    show(err);
  }
};

// Changes arrive over a WebSocket (/ws), one JSON message per change, or,
// where WebSocket is not available, over the Server-Sent Events feed
// (/api/events). On (re)connect the list is reloaded, since changes made
// while away were not seen.
function applyChange(c) {
  if (c.op === "deleted") todos.delete(c.todo.id);
  else todos.set(c.todo.id, c.todo);
  render();
}

function connectSocket() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onopen = () => { statusLine.textContent = "live"; reload().catch(show); };
  ws.onmessage = (ev) => applyChange(JSON.parse(ev.data));
  ws.onclose = () => { statusLine.textContent = "reconnecting…"; setTimeout(connectSocket, 1000); };
}

if ("WebSocket" in window) {
  connectSocket();
} else {
  const feed = new EventSource("/api/events");
  feed.onopen = () => { statusLine.textContent = "live"; reload().catch(show); };
  feed.onerror = () => { statusLine.textContent = "reconnecting…"; };
  feed.addEventListener("change", (ev) => applyChange(JSON.parse(ev.data)));
}
