/*
 * The style and script of the page `npx acp-bindings view` writes (view.ts):
 * plain CSS and browser JavaScript, inlined into the page (no network). The
 * script reads the page's JSON data and builds the DOM with `createElement`
 * and text nodes only: wire strings never become markup. Long lists are paged.
 */

export const VIEW_PAGE_STYLE = `
:root { color-scheme: light; --bad: #b00020; --muted: #666; --line: #ddd; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5rem 2rem; color: #111; }
h1 { font-size: 1.3rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid var(--line); } h3 { font-size: 1rem; }
.keys, .muted { color: var(--muted); font-size: 12px; }
kbd { border: 1px solid #aaa; border-radius: 3px; padding: 0 3px; font-size: 11px; }
ol.transcript { list-style: none; padding: 0; }
ol.transcript li { margin: 4px 0; padding: 4px 8px; border-left: 4px solid var(--line); white-space: pre-wrap; }
li.user { border-color: #1565c0 !important; background: #e3f2fd; }
li.agent { border-color: #2e7d32 !important; background: #e8f5e9; }
li.thought { border-color: #9e9e9e !important; color: #555; font-style: italic; }
li.tool { border-color: #ef6c00 !important; background: #fff3e0; }
li.plan { border-color: #6a1b9a !important; background: #f3e5f5; }
.label { font-weight: 600; margin-right: 6px; font-style: normal; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); text-align: left; padding: 2px 6px; vertical-align: top; }
td.text { font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }
.status-completed { color: #2e7d32; } .status-failed { color: var(--bad); } .status-in_progress { color: #ef6c00; } .status-pending { color: var(--muted); }
tr.bad td, li.bad { color: var(--bad); }
tr.selected { outline: 2px solid #1565c0; background: #e3f2fd; }
tr.detail pre { white-space: pre-wrap; margin: 0; font-size: 12px; }
.finding { color: var(--bad); }
button.link { border: none; background: none; color: #1565c0; text-decoration: underline; cursor: pointer; padding: 0; font: inherit; }
:focus-visible { outline: 2px solid #ff9800; }
.filters { display: flex; gap: 1rem; align-items: center; margin: .5rem 0; flex-wrap: wrap; }
`;

export const VIEW_PAGE_SCRIPT = `
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("trace-data").textContent);
  const app = document.getElementById("app");
  const PAGE = 100;
  const KINDS = { userMessages: ["user", "User"], agentMessages: ["agent", "Agent"], agentThoughts: ["thought", "Thought"], toolCalls: ["tool", "Tool call"], plans: ["plan", "Plan"], plan: ["plan", "Plan"] };
  const findingsAt = new Map();
  for (const f of data.findings) findingsAt.set(f.line, [...(findingsAt.get(f.line) || []), f]);
  const firstT = data.messages.map((m) => m.t).find((t) => t !== null);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value; else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child instanceof Node ? child : String(child));
    return node;
  }
  const ms = (value) => (value === null ? "n/a" : value + " ms");
  const lineButton = (n) => { const b = el("button", { class: "link", "data-line": n }, "line " + n); b.addEventListener("click", () => raw.show(n)); return b; };

  /** Appends items to a list in pages of \`size\`, with a button for the next page. */
  function paged(container, items, render, size) {
    let shown = 0;
    const more = el("button", { class: "more" });
    const step = () => {
      for (const item of items.slice(shown, shown + size)) container.append(render(item));
      shown = Math.min(items.length, shown + size);
      more.textContent = "Show " + Math.min(size, items.length - shown) + " more (" + (items.length - shown) + " left)";
      if (shown >= items.length) more.remove();
    };
    more.addEventListener("click", step);
    step();
    if (shown < items.length) container.after(more);
  }

  function table(headers) {
    const body = el("tbody");
    return { node: el("table", {}, el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))), body), body };
  }

  function sessionSection(session) {
    const section = el("section", { class: "session", "data-session": session.id }, el("h2", {}, "Session " + session.id));
    const transcript = el("ol", { class: "transcript", "aria-label": "transcript of " + session.id });
    section.append(el("h3", {}, "Transcript"), transcript);
    paged(transcript, session.transcript, (entry) => {
      const [cls, label] = KINDS[entry.kind] || ["other", entry.kind];
      return el("li", { class: cls, "data-kind": cls }, el("span", { class: "label" }, label + ":"), entry.text);
    }, 200);
    const tools = table(["Tool call", "Title", "Kind", "Status", "Content"]);
    section.append(el("h3", {}, "Tool calls (" + session.toolCalls.length + ")"), tools.node);
    paged(tools.body, session.toolCalls, (c) => el("tr", { class: "tool-call", "data-status": c.status }, el("td", {}, c.id), el("td", {}, c.title), el("td", {}, c.kind), el("td", { class: "status-" + c.status }, c.status), el("td", { class: "text" }, c.content)), 200);
    const plan = el("ol", { class: "plan" });
    section.append(el("h3", {}, "Plan"), plan);
    for (const e of session.plan) plan.append(el("li", {}, e.content + " [" + e.status + (e.priority ? ", " + e.priority : "") + "]"));
    const permissions = data.permissions.filter((p) => p.session === session.id);
    const perms = table(["Line", "Permission for", "Options", "Chosen"]);
    section.append(el("h3", {}, "Permission requests (" + permissions.length + ")"), perms.node);
    for (const p of permissions) perms.body.append(el("tr", { class: "permission" + (p.chosen === "unanswered" ? " bad" : "") }, el("td", {}, lineButton(p.n)), el("td", {}, p.title), el("td", {}, p.options.join(", ")), el("td", { class: "chosen" }, p.chosen)));
    const turns = data.turns.filter((t) => t.session === session.id);
    const timing = table(["Prompt at", "Time to first chunk", "Turn duration", "Stop reason"]);
    section.append(el("h3", {}, "Turns"), timing.node);
    for (const t of turns) timing.body.append(el("tr", { class: "turn" }, el("td", {}, lineButton(t.n)), el("td", {}, ms(t.firstChunkMs)), el("td", {}, ms(t.durationMs)), el("td", {}, t.stopReason)));
    return section;
  }

  function findingsSection() {
    const list = el("ol", { id: "findings" });
    const section = el("section", {}, el("h2", {}, "Findings (" + data.findings.length + ")"), list);
    paged(list, data.findings, (f) => el("li", { class: "finding " + f.kind }, lineButton(f.line), " " + f.kind + " " + (f.pointer || "(message)") + ": " + f.message), 200);
    if (data.events.length > 0) {
      const events = el("ul", { id: "events" });
      for (const e of data.events) events.append(el("li", {}, lineButton(e.n), " " + e.text));
      section.append(el("h3", {}, "Recorder events"), events);
    }
    return section;
  }

  function requestsSection() {
    const t = table(["Line", "Method", "Id", "Session", "Answered at", "Latency"]);
    const section = el("section", {}, el("h2", {}, "Requests (" + data.requests.length + ")"), t.node);
    paged(t.body, data.requests, (r) => el("tr", { class: r.answeredAt === null ? "bad" : "" }, el("td", {}, lineButton(r.n)), el("td", {}, r.method), el("td", {}, r.id), el("td", {}, r.session), el("td", {}, r.answeredAt === null ? "never answered" : lineButton(r.answeredAt)), el("td", {}, ms(r.latencyMs))), 100);
    return section;
  }

  /** The raw messages: filtered, paged, one selected row, keyboard driven. */
  function rawSection() {
    const dropdown = (name, values) => el("select", { id: "filter-" + name, "aria-label": "filter by " + name }, el("option", { value: "" }, "any " + name), ...values.map((v) => el("option", { value: v }, v)));
    const unique = (key) => [...new Set(data.messages.map((m) => m[key]).filter((v) => v))].sort();
    const filters = { method: dropdown("method", unique("method")), session: dropdown("session", unique("session")), dir: dropdown("dir", unique("dir")) };
    const t = table(["Line", "Time", "Direction", "Kind", "Method", "Session", "Id", "Message"]);
    t.node.id = "raw";
    const pager = el("span", { id: "pager" });
    const prev = el("button", { id: "prev-page" }, "Previous page");
    const next = el("button", { id: "next-page" }, "Next page");
    const section = el("section", {}, el("h2", {}, "Messages"), el("div", { class: "filters" }, filters.method, filters.session, filters.dir, prev, pager, next), t.node);
    const state = { rows: data.messages, page: 0, selected: -1 };
    const applyFilters = () => {
      state.rows = data.messages.filter((m) => Object.entries(filters).every(([key, s]) => s.value === "" || m[key] === s.value));
      state.page = 0; state.selected = -1; render();
    };
    for (const s of Object.values(filters)) s.addEventListener("change", applyFilters);
    const pages = () => Math.max(1, Math.ceil(state.rows.length / PAGE));
    const row = (m) => {
      const bad = findingsAt.get(m.n);
      const short = m.text.length > 240 ? m.text.slice(0, 240) + "…" : m.text;
      const tr = el("tr", { class: "message" + (bad ? " bad" : ""), "data-line": m.n, tabindex: "-1" },
        el("td", {}, m.n), el("td", {}, m.t === null || firstT === undefined ? "" : "+" + (m.t - firstT) + " ms"), el("td", {}, m.dir || "?"), el("td", {}, m.kind),
        el("td", {}, m.method), el("td", {}, m.session), el("td", {}, m.id), el("td", { class: "text" }, short));
      if (bad) tr.title = bad.map((f) => f.kind + " " + f.pointer + ": " + f.message).join("\\n");
      tr.addEventListener("click", () => { select(Array.prototype.indexOf.call(t.body.querySelectorAll("tr.message"), tr)); toggle(); });
      return tr;
    };
    function render() {
      t.body.replaceChildren(...state.rows.slice(state.page * PAGE, state.page * PAGE + PAGE).map(row));
      pager.textContent = "Page " + (state.page + 1) + " of " + pages() + " (" + state.rows.length + " messages)";
      if (state.selected >= 0) select(state.selected);
    }
    const rows = () => t.body.querySelectorAll("tr.message");
    function select(i) {
      const all = rows();
      if (all.length === 0) return;
      state.selected = Math.max(0, Math.min(all.length - 1, i));
      for (const r of all) { r.classList.remove("selected"); r.setAttribute("tabindex", "-1"); r.removeAttribute("aria-selected"); }
      const r = all[state.selected];
      r.classList.add("selected"); r.setAttribute("tabindex", "0"); r.setAttribute("aria-selected", "true"); r.focus();
    }
    function toggle() {
      const r = rows()[state.selected];
      if (!r) return;
      if (r.nextSibling && r.nextSibling.classList.contains("detail")) return r.nextSibling.remove();
      const m = state.rows[state.page * PAGE + state.selected];
      let text = m.text;
      try { text = JSON.stringify(JSON.parse(m.text), null, 2); } catch (e) { /* not JSON: shown as it is */ }
      const cell = el("td", { colspan: "8" });
      for (const f of findingsAt.get(m.n) || []) cell.append(el("div", { class: "finding" }, f.kind + " " + (f.pointer || "(message)") + ": " + f.message));
      cell.append(el("pre", {}, text));
      r.after(el("tr", { class: "detail" }, cell));
    }
    const turn = (delta) => { const p = state.page + delta; if (p < 0 || p >= pages()) return false; state.page = p; state.selected = delta > 0 ? 0 : PAGE - 1; render(); return true; };
    prev.addEventListener("click", () => turn(-1));
    next.addEventListener("click", () => turn(1));
    const move = (delta) => {
      const i = state.selected + delta;
      if (i >= rows().length) { if (!turn(1)) select(i); } else if (i < 0) { if (!turn(-1)) select(0); } else select(i);
    };
    /** Shows line \`n\`: clears filters, opens its page, selects and expands it. */
    function show(n) {
      for (const s of Object.values(filters)) s.value = "";
      state.rows = data.messages;
      const at = state.rows.findIndex((m) => m.n >= n);
      if (at < 0) return;
      state.page = Math.floor(at / PAGE); state.selected = at % PAGE; render(); toggle();
    }
    render();
    return { section, move, turn, toggle, show, focusFilter: () => filters.method.focus() };
  }

  document.getElementById("title").textContent = data.title;
  document.getElementById("summary").textContent = data.summary + " (trace format: " + data.format + ")";
  const raw = rawSection();
  for (const session of data.sessions) app.append(sessionSection(session));
  app.append(findingsSection(), requestsSection(), raw.section);
  let finding = -1;
  const findingLines = [...new Set(data.findings.map((f) => f.line))];
  document.addEventListener("keydown", (event) => {
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(event.target.tagName);
    if (event.key === "Escape" && typing) { event.target.blur(); return; }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    const actions = {
      j: () => raw.move(1), ArrowDown: () => raw.move(1), k: () => raw.move(-1), ArrowUp: () => raw.move(-1),
      n: () => raw.turn(1), p: () => raw.turn(-1), Enter: () => raw.toggle(), "/": () => raw.focusFilter(),
      "]": () => { if (findingLines.length) raw.show(findingLines[finding = (finding + 1) % findingLines.length]); },
      "[": () => { if (findingLines.length) raw.show(findingLines[finding = (finding - 1 + findingLines.length) % findingLines.length]); },
    };
    if (event.key === "Enter" && event.target.tagName === "BUTTON") return;
    const action = Object.hasOwn(actions, event.key) ? actions[event.key] : undefined;
    if (!action) return;
    event.preventDefault();
    action();
  });
  document.body.dataset.ready = "true";
})();
`;
