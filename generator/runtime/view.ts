import { analyseTraffic, decodeUtf8, splitLines, type CheckerBindings, type Finding } from "./checker.js";
import { isObject, NotJson, parseText } from "./decode.js";
import { describeJson } from "./describe.js";
import { VIEW_PAGE_SCRIPT, VIEW_PAGE_STYLE } from "./view-page.js";
import { readTrace, wireLines, type Direction, type Trace } from "./trace.js";

/*
 * `npx acp-bindings view FILE [-o report.html]`: one self-contained HTML page
 * (no network, no external script or font) built from the checker (findings,
 * reduced session states) and the trace's times and directions. Wire text goes
 * into the page only as JSON inside a `<script type="application/json">` with
 * every `<` escaped, and the page's script puts it into the DOM with
 * `textContent`, never as markup.
 */

export const VIEW_USAGE = `usage: acp-bindings view FILE [-o report.html] [--surface S]

Renders a trace (from \`acp-bindings record\`, the Rust conductor's --trace, or
plain JSON-RPC lines) as one self-contained HTML page: per session the
transcript, tool calls, plan, permission requests; findings; timing; raw
messages with filters. Writes FILE.html next to FILE unless -o is given.
`;

/** One wire message as the page lists it. */
export interface ViewMessage {
  readonly n: number;
  readonly t: number | null;
  readonly dir: Direction | null;
  readonly kind: "request" | "notification" | "response" | "invalid";
  readonly method: string;
  readonly session: string;
  readonly id: string;
  readonly text: string;
}

export interface ViewRequest {
  readonly n: number;
  readonly method: string;
  readonly id: string;
  readonly session: string;
  /** The line of its response, and the milliseconds it took, when answered. */
  readonly answeredAt: number | null;
  readonly latencyMs: number | null;
}

export interface ViewPermission {
  readonly n: number;
  readonly session: string;
  readonly title: string;
  readonly options: readonly string[];
  /** The chosen option's name, `cancelled`, or `unanswered`. */
  readonly chosen: string;
}

export interface ViewTurn {
  readonly n: number;
  readonly session: string;
  readonly firstChunkMs: number | null;
  readonly durationMs: number | null;
  readonly stopReason: string;
}

export interface ViewSession {
  readonly id: string;
  readonly transcript: readonly { readonly kind: string; readonly text: string }[];
  readonly toolCalls: readonly { readonly id: string; readonly title: string; readonly status: string; readonly kind: string; readonly content: string }[];
  readonly plan: readonly { readonly content: string; readonly status: string; readonly priority: string }[];
}

/** Everything the page shows. */
export interface ViewModel {
  readonly title: string;
  readonly surface: string;
  readonly format: Trace["format"];
  readonly summary: string;
  readonly sessions: readonly ViewSession[];
  readonly findings: readonly Finding[];
  readonly requests: readonly ViewRequest[];
  readonly permissions: readonly ViewPermission[];
  readonly turns: readonly ViewTurn[];
  readonly events: readonly { readonly n: number; readonly text: string }[];
  readonly messages: readonly ViewMessage[];
}

/** Runs `view`: reads the trace, writes the page. */
export async function view(args: readonly string[], surfaces: Readonly<Record<string, CheckerBindings>>): Promise<void> {
  const proc = (globalThis as unknown as { process: { exitCode?: number; stdout: { write(t: string): unknown }; stderr: { write(t: string): unknown } } }).process;
  const fsName: string = "node:fs";
  const fs = (await import(fsName)) as { readFileSync(path: string): Uint8Array; writeFileSync(path: string, text: string): void };
  const parsed = parseViewArgs(args);
  if ("problem" in parsed) {
    proc.stderr.write(`acp-bindings view: ${parsed.problem}\n\n${VIEW_USAGE}`);
    proc.exitCode = 2;
    return;
  }
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(parsed.file);
  } catch (error) {
    proc.stderr.write(`acp-bindings view: cannot read ${parsed.file}: ${error instanceof Error ? error.message : String(error)}\n`);
    proc.exitCode = 2;
    return;
  }
  const trace = readTrace(splitLines(bytes).map((line) => decodeUtf8(line) ?? line));
  const surface = parsed.surface ?? detectTraceSurface(trace, Object.keys(surfaces));
  const bindings = Object.hasOwn(surfaces, surface) ? surfaces[surface] : undefined;
  if (!bindings) {
    proc.stderr.write(`acp-bindings view: unknown surface ${JSON.stringify(surface)} (this package has ${Object.keys(surfaces).join(", ")})\n`);
    proc.exitCode = 2;
    return;
  }
  const model = viewModel(trace, bindings, surface, parsed.file);
  fs.writeFileSync(parsed.out, renderViewPage(model));
  proc.stdout.write(`${parsed.out}: ${model.summary}\n`);
}

function parseViewArgs(args: readonly string[]): { file: string; out: string; surface?: string } | { problem: string } {
  let file: string | undefined;
  let out: string | undefined;
  let surface: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-o" || arg === "--out") out = args[++i];
    else if (arg === "--surface") surface = args[++i];
    else if (arg.startsWith("-")) return { problem: `unknown option ${JSON.stringify(arg)}` };
    else if (file === undefined) file = arg;
    else return { problem: "one trace at a time" };
  }
  if (file === undefined) return { problem: "which trace file?" };
  if (out === "" || out === undefined && args.includes("-o")) return { problem: "-o needs a file name" };
  return { file, out: out ?? `${file}.html`, ...(surface === undefined ? {} : { surface }) };
}

/** `v<N>/unstable` from the first `initialize` request's `protocolVersion` (v1/unstable without one). */
export function detectTraceSurface(trace: Trace, available: readonly string[]): string {
  let version = 1;
  for (const entry of trace.entries) {
    const message = typeof entry.wire === "string" && entry.wire.includes('"initialize"') ? parseText(entry.wire) : undefined;
    if (!isObject(message) || message.method !== "initialize") continue;
    if (isObject(message.params) && typeof message.params.protocolVersion === "number") version = message.params.protocolVersion;
    break;
  }
  const wanted = `v${version}/unstable`;
  const newest = available.filter((s) => s.endsWith("/unstable")).at(-1) ?? available.at(-1);
  return available.includes(wanted) ? wanted : (newest ?? wanted);
}

/** The page's data: the checker's findings and session states, plus what the trace's times and directions add. */
export function viewModel(trace: Trace, bindings: CheckerBindings, surface: string, title: string): ViewModel {
  const { report, states } = analyseTraffic(wireLines(trace), bindings, surface, trace.entries);
  const messages = trace.entries.filter((entry) => entry.wire !== undefined && (typeof entry.wire !== "string" || entry.wire.trim() !== "")).map(toMessage);
  const flow = followRequests(messages);
  const count = (kind: Finding["kind"]) => report.findings.filter((f) => f.kind === kind).length;
  return {
    title,
    surface,
    format: trace.format,
    summary: `${messages.length} message(s) on ${surface}: ${count("violation")} violation(s), ${count("protocol")} protocol error(s), ${count("dropped")} tolerant drop(s)`,
    sessions: [...states].map(([id, state]) => viewSession(id, state)),
    findings: report.findings,
    requests: flow.requests,
    permissions: flow.permissions,
    turns: flow.turns,
    events: trace.entries.filter((entry) => entry.event !== undefined).map((entry) => ({ n: entry.line, text: `${entry.event} ${describeJson(entry.detail, 300)}` })),
    messages,
  };
}

function toMessage(entry: { line: number; t?: number; dir?: Direction; wire?: string | Uint8Array }): ViewMessage {
  const text = typeof entry.wire === "string" ? entry.wire : `(not UTF-8: ${entry.wire?.length ?? 0} bytes)`;
  const value = typeof entry.wire === "string" ? parseText(entry.wire) : undefined;
  const base = { n: entry.line, t: entry.t ?? null, dir: entry.dir ?? null, text };
  if (value instanceof NotJson || !isObject(value)) return { ...base, kind: "invalid", method: "", session: "", id: "" };
  const params = isObject(value.params) ? value.params : undefined;
  const session = params && typeof params.sessionId === "string" ? params.sessionId : "";
  const id = value.id === undefined ? "" : describeJson(value.id, 60);
  const method = typeof value.method === "string" ? value.method : "";
  const kind = method !== "" ? (value.id === undefined ? "notification" : "request") : value.id !== undefined ? "response" : "invalid";
  return { ...base, kind, method, session, id };
}

interface Open {
  readonly message: ViewMessage;
  readonly params: Record<string, unknown>;
}

interface TurnTrack {
  readonly n: number;
  readonly t: number | null;
  firstChunk: number | null;
}

/** Pairs responses with requests (a response goes the other way; by id), and follows permission requests and turns. */
function followRequests(messages: readonly ViewMessage[]): { requests: ViewRequest[]; permissions: ViewPermission[]; turns: ViewTurn[] } {
  const open = new Map<string, Open>();
  const answered = new Map<number, { n: number; t: number | null; result: unknown }>();
  const turns: ViewTurn[] = [];
  const running = new Map<string, TurnTrack>();
  const endTurn = (session: string, m: ViewMessage, stopReason: string) => {
    const turn = running.get(session);
    if (!turn) return;
    running.delete(session);
    turns.push({ n: turn.n, session, firstChunkMs: since(turn.t, turn.firstChunk), durationMs: since(turn.t, m.t), stopReason });
  };
  for (const m of messages) {
    const value = m.kind === "invalid" ? undefined : (parseText(m.text) as Record<string, unknown>);
    if (!value) continue;
    if (m.kind === "request") {
      open.set(`${m.dir ?? ""}|${m.id}`, { message: m, params: isObject(value.params) ? value.params : {} });
      if (m.method === "session/prompt") running.set(m.session, { n: m.n, t: m.t, firstChunk: null });
    } else if (m.kind === "response") {
      const back = m.dir === null ? "" : m.dir === "agent->client" ? "client->agent" : "agent->client";
      const request = open.get(`${back}|${m.id}`);
      if (!request) continue;
      open.delete(`${back}|${m.id}`);
      answered.set(request.message.n, { n: m.n, t: m.t, result: value.result });
      const result = isObject(value.result) ? value.result : {};
      if (request.message.method === "session/prompt" && typeof result.stopReason === "string") endTurn(request.message.session, m, result.stopReason);
    } else if (m.method === "session/update" && isObject(value.params)) {
      const update = isObject(value.params.update) ? value.params.update : {};
      const turn = running.get(m.session);
      if (turn && turn.firstChunk === null && String(update.sessionUpdate).endsWith("_chunk")) turn.firstChunk = m.t ?? -1;
      if (update.sessionUpdate === "state_update" && update.state === "idle") endTurn(m.session, m, typeof update.stopReason === "string" ? update.stopReason : "");
    }
  }
  for (const [session, turn] of running) turns.push({ n: turn.n, session, firstChunkMs: since(turn.t, turn.firstChunk), durationMs: null, stopReason: "never ended" });
  const requests = messages.filter((m) => m.kind === "request").map((m) => {
    const answer = answered.get(m.n);
    return { n: m.n, method: m.method, id: m.id, session: m.session, answeredAt: answer?.n ?? null, latencyMs: answer ? since(m.t, answer.t) : null };
  });
  const permissions = messages.filter((m) => m.method === "session/request_permission" && m.kind === "request").map((m) => permission(m, answered.get(m.n)));
  return { requests, permissions, turns: turns.sort((a, b) => a.n - b.n) };
}

function since(start: number | null, end: number | null): number | null {
  return start === null || end === null || end < 0 ? null : end - start;
}

/** A permission request with its options' names and the chosen one. */
function permission(m: ViewMessage, answer: { result: unknown } | undefined): ViewPermission {
  const value = parseText(m.text) as Record<string, unknown>;
  const params = isObject(value.params) ? value.params : {};
  const toolCall = isObject(params.toolCall) ? params.toolCall : {};
  const options = Array.isArray(params.options) ? params.options.filter(isObject) : [];
  const name = (option: Record<string, unknown>) => (typeof option.name === "string" ? option.name : String(option.optionId));
  const outcome = answer && isObject(answer.result) && isObject(answer.result.outcome) ? answer.result.outcome : undefined;
  const picked = outcome && typeof outcome.optionId === "string" ? options.find((o) => o.optionId === outcome.optionId) : undefined;
  const chosen = !answer ? "unanswered" : picked ? name(picked) : outcome && typeof outcome.optionId === "string" ? outcome.optionId : "cancelled";
  const title = typeof toolCall.title === "string" ? toolCall.title : describeJson(toolCall.toolCallId ?? params.toolCallId ?? "", 80);
  return { n: m.n, session: m.session, title, options: options.map(name), chosen };
}

/** One session's reduced state as the page shows it: transcript in timeline order, tool calls, plan. */
function viewSession(id: string, state: object): ViewSession {
  const s = state as Record<string, unknown>;
  const timeline = Array.isArray(s.timeline) ? (s.timeline as { kind: string; id: string }[]) : [];
  const transcript = timeline.map((entry) => ({ kind: entry.kind, text: entityText(mapOf(s, entry.kind).get(entry.id)) }));
  const toolCalls = [...mapOf(s, "toolCalls")].map(([callId, call]) => {
    const c = isObject(call) ? call : {};
    return { id: String(callId), title: str(c.title), status: str(c.status) || "pending", kind: str(c.kind), content: textsOf(c.content).join("\n") };
  });
  const plans = [s.plan, ...mapOf(s, "plans").values()];
  const plan = plans.flatMap((p) => (isObject(p) && Array.isArray(p.entries) ? p.entries.filter(isObject) : [])).map((e) => ({ content: str(e.content), status: str(e.status), priority: str(e.priority) }));
  return { id, transcript, toolCalls, plan };
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function mapOf(state: Record<string, unknown>, key: string): ReadonlyMap<unknown, unknown> {
  const value = state[key];
  return isObject(value) && typeof value.get === "function" ? (value as unknown as ReadonlyMap<unknown, unknown>) : new Map();
}

/** An entity's text: a plan's entries, a tool call's title and status, otherwise the `text` fields of its content. */
function entityText(entity: unknown): string {
  if (isObject(entity) && Array.isArray(entity.entries)) {
    return entity.entries.filter(isObject).map((e) => `${str(e.content)} [${str(e.status)}]`).join("; ");
  }
  if (isObject(entity) && typeof entity.title === "string") return `${entity.title}${typeof entity.status === "string" ? ` (${entity.status})` : ""}`;
  const texts = textsOf(isObject(entity) && "content" in entity ? entity.content : entity);
  return texts.length > 0 ? texts.join("") : describeJson(entity, 200);
}

/** Every `text` string inside a wire value, in document order; iterative (an explicit stack), bounded in count. */
export function textsOf(value: unknown, limit = 10_000): string[] {
  const texts: string[] = [];
  const stack: unknown[] = [value];
  let visited = 0;
  while (stack.length > 0 && visited++ < limit) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i]);
    } else if (isObject(item)) {
      if (typeof item.text === "string") texts.push(item.text);
      const children = Object.keys(item).filter((key) => key !== "text").reverse();
      for (const key of children) stack.push(item[key]);
    }
  }
  return texts;
}

/** JSON for a `<script type="application/json">`: no `<` (so no `</script>` or `<!--`), no line separators. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** Text for an HTML text node or attribute. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** The page: the data as JSON, the style and the script inline. */
export function renderViewPage(model: ViewModel): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>ACP trace: ${escapeHtml(model.title)}</title>
<style>${VIEW_PAGE_STYLE}</style>
</head>
<body>
<header><h1>ACP trace: <span id="title"></span></h1><p id="summary"></p><p class="keys">Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous message, <kbd>Enter</kbd> show it, <kbd>n</kbd>/<kbd>p</kbd> next/previous page, <kbd>]</kbd>/<kbd>[</kbd> next/previous finding, <kbd>/</kbd> filter, <kbd>Tab</kbd> moves between controls.</p></header>
<main id="app"></main>
<script type="application/json" id="trace-data">${scriptJson(model)}</script>
<script>${VIEW_PAGE_SCRIPT}</script>
</body>
</html>
`;
}
