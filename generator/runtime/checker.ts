import { forgiven, isObject, NotJson, parseText, put } from "./decode.js";
import type { Result } from "./result.js";
import { describeJson } from "./describe.js";

/*
 * The traffic checker behind `npx acp-bindings check`: reads a captured ACP
 * session (one JSON-RPC message per line) and reports, per line, strict
 * violations (`validate`), messages a tolerant peer rejects outright (`parse`
 * fails), what a tolerant peer silently drops (`parse` output compared with the
 * input), and protocol errors; then the reduced session state.
 * Pure: the bin does the reading and printing. Dispatch is by the method table.
 */

/** What the checker needs of one surface: its entry point (`import * as acp from "acp-bindings/v2"`). */
export interface CheckerBindings {
  readonly methods: readonly { readonly method: string; readonly side: string; readonly kind: string; readonly params: string; readonly result?: string }[];
  readonly parse: object;
  readonly validate: object;
  emptySessionState(): object;
  reduceSession(state: never, update: never): object;
  /** S36: a prompt the client sent as a user message (v1: when sent; v2: with the answer's `messageId`). */
  reducePrompt?(state: never, request: never, response: never): object;
}

/**
 * One finding: `violation` (strict check failed), `rejected` (a tolerant peer refuses the
 * whole message), `dropped` (a tolerant peer loses a part and takes the rest), `protocol`
 * (out of order). All but `dropped` are errors.
 */
export interface Finding {
  readonly line: number;
  readonly kind: "violation" | "rejected" | "dropped" | "protocol";
  /** JSON pointer into the line's message (`/params/update/content`), `""` for the whole message. */
  readonly pointer: string;
  readonly message: string;
}

/** The reduced state of one session, summarised. */
export interface SessionSummary {
  readonly sessionId: string;
  readonly userMessages: number;
  readonly agentMessages: number;
  readonly agentThoughts: number;
  /** Tool calls by status (`pending`, `in_progress`, `completed`, `failed`, ...). */
  readonly toolCalls: Readonly<Record<string, number>>;
  /** Plan entries (the v1 `plan`, or every `plans` entry). */
  readonly planEntries: number;
  /** The last stop reason: from a `session/prompt` result (v1) or an idle `state_update` (v2). */
  readonly stopReason?: string;
}

/** Everything `checkTraffic` found. */
export interface CheckReport {
  readonly surface: string;
  readonly lines: number;
  readonly findings: readonly Finding[];
  /** Violations, rejections and protocol errors: the command exits 1 when this is not 0. */
  readonly errors: number;
  readonly sessions: readonly SessionSummary[];
  /** From a trace with directions and times: every answered request's latency. */
  readonly latencies?: readonly Latency[];
}

type Check = (value: unknown) => Result<unknown>;

interface Pending {
  readonly method: string;
  /** The side that handles the request: ids are unique per requesting side only. */
  readonly side: string | undefined;
  readonly result: string | undefined;
  readonly sessionId: string | undefined;
  /** The params of a `session/prompt`, recorded with its answer on v2 (S36). */
  readonly params?: unknown;
  /** From a trace: the request's line, direction and time. */
  readonly line: number;
  readonly dir?: string | undefined;
  readonly t?: number | undefined;
}

/** Where a line came from, when a trace says (`record`'s format, the conductor's). */
export interface LineOrigin {
  readonly dir?: string;
  readonly t?: number;
}

/** A request answered, from a trace with times: its line, method and latency. */
export interface Latency {
  readonly line: number;
  readonly method: string;
  readonly ms: number;
}

interface SessionTrack {
  state: object;
  /**
   * `answered`: the prompt's turn ended; turn content now is a protocol error until the next prompt.
   * `replaying`: a `session/load` or `session/resume` of an answered session is waiting for its answer (its replay is turn content).
   */
  turn: "none" | "open" | "answered" | "replaying";
  stopReason?: string;
  /** Tool calls whose creating update a tolerant peer rejected: their later updates are echoes of that error, not new ones. */
  readonly rejectedToolCalls: Set<string>;
}

/** Updates that belong to a prompt's turn (tags of every surface; a surface has a subset). */
const TURN_CONTENT = new Set([
  "agent_message_chunk", "agent_message", "agent_thought_chunk", "agent_thought", "tool_call", "tool_call_update",
  "tool_call_content_chunk", "terminal_output_chunk", "plan", "plan_update",
]);

/** Requests that name a session the agent already has (so later updates for it are expected). */
const OPENS_BY_PARAMS = new Set(["session/load", "session/resume"]);

declare const TextDecoder: new (label: string, options: { fatal: boolean; ignoreBOM: boolean }) => { decode(bytes: Uint8Array): string };

/**
 * The lines of a capture: split at each `\n` (a `\r` before it is dropped); a
 * final `\n` ends the last line rather than starting an empty one, so an empty
 * capture has no lines. Each line is returned as its bytes, for `checkTraffic`.
 */
export function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    lines.push(bytes.subarray(start, end > start && bytes[end - 1] === 0x0d ? end - 1 : end));
    start = end + 1;
  }
  return lines;
}

/** `bytes` as text, or `undefined` when they are not UTF-8 (no replacement characters; a byte order mark is kept, so that `JSON.parse` refuses it as a peer would). */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Checks a captured session; `surface` is the entry's name (`v1`, `v2/unstable`, ...).
 * Each line is its text or its bytes (`splitLines`); bytes that are not UTF-8 are a violation.
 */
export function checkTraffic(lines: readonly (string | Uint8Array)[], bindings: CheckerBindings, surface: string, origins?: readonly (LineOrigin | undefined)[]): CheckReport {
  return analyseTraffic(lines, bindings, surface, origins).report;
}

/** `checkTraffic`, also giving the reduced state of each session (for the trace view). */
export function analyseTraffic(
  lines: readonly (string | Uint8Array)[],
  bindings: CheckerBindings,
  surface: string,
  origins?: readonly (LineOrigin | undefined)[],
): { report: CheckReport; states: ReadonlyMap<string, object> } {
  const checker = new TrafficChecker(bindings, surface, origins?.some((o) => o?.dir !== undefined) === true);
  lines.forEach((text, i) => {
    const decoded = typeof text === "string" ? text : decodeUtf8(text);
    checker.origin = origins?.[i];
    if (decoded === undefined) checker.notUtf8(i + 1);
    else if (decoded.trim() !== "") checker.line(i + 1, decoded);
  });
  return { report: checker.report(lines.length), states: checker.states() };
}

class TrafficChecker {
  readonly findings: Finding[] = [];
  private readonly pending = new Map<string, Pending[]>();
  private readonly sessions = new Map<string, SessionTrack>();
  private lineNo = 0;
  /** The current line's direction and time, from a trace. */
  origin: LineOrigin | undefined;
  private readonly latencies: Latency[] = [];
  private askedVersion: unknown;

  constructor(
    private readonly bindings: CheckerBindings,
    private readonly surface: string,
    /** A trace with directions: requests left unanswered and tool calls left open are reported at the end. */
    private readonly directed = false,
  ) {}

  /** A line whose bytes are not UTF-8: JSON-RPC messages are UTF-8 JSON (RFC 8259, section 8.1). */
  notUtf8(lineNo: number): void {
    this.lineNo = lineNo;
    this.add("violation", "", "not UTF-8 text (JSON exchanged between systems must be UTF-8)");
  }

  line(lineNo: number, text: string): void {
    this.lineNo = lineNo;
    const message = parseText(text);
    if (message instanceof NotJson) return this.add("violation", "", "not JSON");
    if (!isObject(message) || message.jsonrpc !== "2.0") return this.add("violation", "", "not a JSON-RPC 2.0 message");
    const id = message.id;
    if (typeof message.method === "string") {
      if (id === undefined) this.notification(message.method, message.params);
      else this.request(idKey(id), message.method, message.params);
    } else if (id !== undefined && ("result" in message || "error" in message)) {
      this.response(idKey(id), message);
    } else {
      this.add("violation", "", "neither a request, a notification nor a response");
    }
  }

  private request(id: string, method: string, params: unknown): void {
    const entry = this.entry(method, "request");
    const waiting = this.pending.get(id) ?? [];
    if (waiting.some((p) => p.side === entry?.side)) this.add("protocol", "/id", `duplicate id ${id}: a request with this id is still unanswered`);
    const sessionId = isObject(params) && typeof params.sessionId === "string" ? params.sessionId : undefined;
    const from = { line: this.lineNo, dir: this.origin?.dir, t: this.origin?.t };
    this.pending.set(id, [...waiting, { method, side: entry?.side, result: entry?.result, sessionId, ...from, ...(method === "session/prompt" ? { params } : {}) }]);
    if (method === "initialize" && isObject(params)) this.askedVersion = params.protocolVersion;
    if (entry) this.checkAgainst(entry.params, params, "/params");
    if (sessionId === undefined) return;
    if (OPENS_BY_PARAMS.has(method)) {
      this.open(sessionId);
      // A load or resume may replay the session's history: turn content is expected until its answer.
      const track = this.sessions.get(sessionId)!;
      if (track.turn === "answered") track.turn = "replaying";
    }
    if (method === "session/prompt") {
      const track = this.sessions.get(sessionId);
      if (track) track.turn = "open";
      // S36: on v1 the prompt is a user message from the moment it is sent, as the client store records it.
      if (track && this.surface.startsWith("v1")) this.prompted(track, params, undefined);
    }
  }

  private notification(method: string, params: unknown): void {
    const entry = this.entry(method, "notification");
    if (!entry) return;
    const parsed = this.checkAgainst(entry.params, params, "/params");
    if (method !== "session/update") return;
    if (!parsed.ok) this.rejectedUpdate(params);
    else if (isObject(parsed.value)) this.update(parsed.value);
  }

  /** A `session/update` a tolerant peer rejected: when it created a tool call, remember the id (see `rejectedToolCalls`). */
  private rejectedUpdate(params: unknown): void {
    if (!isObject(params) || typeof params.sessionId !== "string" || !isObject(params.update)) return;
    const { sessionUpdate, toolCallId } = params.update;
    if (sessionUpdate === this.createsToolCalls() && typeof toolCallId === "string") this.sessions.get(params.sessionId)?.rejectedToolCalls.add(toolCallId);
  }

  private response(id: string, message: Record<string, unknown>): void {
    const waiting = this.pending.get(id);
    if (!waiting?.length) return this.add("protocol", "/id", `response to no request: no request with id ${id} is waiting`);
    // Both sides number their requests: with two waiting, the one whose result type fits answers.
    const fits = (p: Pending) => p.result !== undefined && this.check("validate", p.result)?.(message.result)?.ok === true;
    // From a trace: a response goes the other way from its request.
    const dir = this.origin?.dir;
    const opposite = dir === undefined ? waiting : waiting.filter((p) => p.dir === undefined || p.dir !== dir);
    const candidates = opposite.length > 0 ? opposite : waiting;
    const request = candidates.find(fits) ?? candidates[0]!;
    const t = this.origin?.t;
    if (request.t !== undefined && t !== undefined) this.latencies.push({ line: request.line, method: request.method, ms: t - request.t });
    if (waiting.length === 1) this.pending.delete(id);
    else this.pending.set(id, waiting.filter((p) => p !== request));
    if (!("result" in message)) {
      if (this.check("validate", "Error")) this.checkAgainst("Error", message.error, "/error");
      return;
    }
    if (request.result) this.checkAgainst(request.result, message.result, "/result");
    const result = message.result;
    if (!isObject(result)) return;
    if (request.method === "initialize" && this.askedVersion !== undefined && result.protocolVersion !== this.askedVersion) {
      this.add("protocol", "/result/protocolVersion", `version mismatch: the client asked for protocol version ${describeJson(this.askedVersion)}, the agent answered ${describeJson(result.protocolVersion)}`);
    }
    if (typeof result.sessionId === "string") this.open(result.sessionId);
    const track = request.sessionId === undefined ? undefined : this.sessions.get(request.sessionId);
    // S36: on v2 the answer names the prompt's user message (kept once when the agent echoed it).
    if (request.method === "session/prompt" && track && !this.surface.startsWith("v1")) this.prompted(track, request.params, result);
    if (OPENS_BY_PARAMS.has(request.method) && track?.turn === "replaying") track.turn = "answered";
    if (request.method === "session/prompt" && track && typeof result.stopReason === "string") {
      track.turn = "answered";
      track.stopReason = result.stopReason;
    }
  }

  /** A decoded `session/update`: protocol checks, then the reducer. */
  private update(notification: Record<string, unknown>): void {
    const sessionId = String(notification.sessionId);
    const update = notification.update;
    const tag = isObject(update) ? String(update.sessionUpdate) : "";
    const track = this.sessions.get(sessionId);
    if (!track) return this.add("protocol", "/params/sessionId", `update for session ${sessionId}, which was never created (no session/new, load or resume)`);
    if (track.turn === "answered" && TURN_CONTENT.has(tag)) this.add("protocol", "/params/update", `${tag} after the prompt of session ${sessionId} was answered`);
    if (isObject(update) && typeof update.toolCallId === "string" && tag !== this.createsToolCalls() && this.unknownToolCall(track, update.toolCallId)) {
      this.add("protocol", "/params/update/toolCallId", `${tag} for tool call ${update.toolCallId} before it exists`);
    }
    track.state = this.bindings.reduceSession(track.state as never, update as never);
    if (isObject(update) && tag === "state_update" && update.state === "idle") {
      track.turn = "answered";
      if (typeof update.stopReason === "string") track.stopReason = update.stopReason;
    }
    // A subagent's own session is announced by its parent's `subagent_update` (S16).
    if (isObject(update) && tag === "subagent_update" && typeof update.sessionId === "string") this.open(update.sessionId);
  }

  /** A tool call neither in the state nor created by an update already reported as rejected. */
  private unknownToolCall(track: SessionTrack, toolCallId: string): boolean {
    return !mapOf(track.state, "toolCalls").has(toolCallId) && !track.rejectedToolCalls.has(toolCallId);
  }

  /** S36: the session's state after the client's prompt `params` (decoded tolerantly; a prompt that does not decode adds nothing). */
  private prompted(track: SessionTrack, params: unknown, result: unknown): void {
    const request = this.check("parse", "PromptRequest")?.(params);
    if (this.bindings.reducePrompt === undefined || request?.ok !== true) return;
    track.state = this.bindings.reducePrompt(track.state as never, request.value as never, (result ?? {}) as never);
  }

  /** The update that creates a tool call: `tool_call` on v1; on v2 `tool_call_update` is an upsert. */
  private createsToolCalls(): string {
    return this.surface.startsWith("v1") ? "tool_call" : "tool_call_update";
  }

  private open(sessionId: string): void {
    if (!this.sessions.has(sessionId)) this.sessions.set(sessionId, { state: this.bindings.emptySessionState(), turn: "none", rejectedToolCalls: new Set() });
  }

  /** Strict check plus tolerant decode of `value` as `type`; records findings; returns the tolerant result. */
  private checkAgainst(type: string, value: unknown, at: string): Result<unknown> {
    const strict = this.check("validate", type)!(value);
    if (!strict.ok) for (const issue of strict.issues) this.add("violation", at + issue.path, `${issue.message} (${type})`);
    const tolerant = this.check("parse", type)!(value);
    if (!tolerant.ok) {
      for (const issue of tolerant.issues) this.add("rejected", at + issue.path, `a tolerant peer rejects the whole ${type}: ${issue.message}`);
    } else {
      for (const loss of forgiven(value, tolerant.value)) this.add("dropped", at + loss.path, `a tolerant peer ${loss.message}`);
    }
    return tolerant;
  }

  private check(namespace: "parse" | "validate", type: string): Check | undefined {
    const functions = this.bindings[namespace] as Record<string, Check | undefined>;
    return Object.hasOwn(functions, type) ? functions[type] : undefined;
  }

  /** The method table entry; an unknown method (not `_`-prefixed) is a violation. */
  private entry(method: string, kind: "request" | "notification") {
    const entry = this.bindings.methods.find((m) => m.method === method && m.kind === kind);
    if (!entry && !method.startsWith("_")) this.add("violation", "/method", `unknown ${kind} method ${describeJson(method)} on ${this.surface}`);
    return entry;
  }

  private add(kind: Finding["kind"], pointer: string, message: string): void {
    this.findings.push({ line: this.lineNo, kind, pointer, message });
  }

  states(): ReadonlyMap<string, object> {
    return new Map([...this.sessions].map(([sessionId, track]) => [sessionId, track.state]));
  }

  /** From a trace with directions: requests never answered (permission requests named) and tool calls never completed. */
  private unfinished(lines: number): void {
    for (const waiting of this.pending.values()) {
      for (const p of waiting) {
        this.lineNo = p.line;
        const what = p.method === "session/request_permission" ? "permission request" : `request ${p.method}`;
        this.add("protocol", "/id", `${what} never answered`);
      }
    }
    for (const [sessionId, track] of this.sessions) {
      for (const [id, call] of mapOf(track.state, "toolCalls")) {
        const status = isObject(call) ? call.status : undefined;
        if (status === "completed" || status === "failed") continue;
        this.lineNo = lines;
        this.add("protocol", "", `tool call ${describeJson(id)} of session ${sessionId} never completed (last status ${describeJson(status ?? "pending")})`);
      }
    }
  }

  report(lines: number): CheckReport {
    if (this.directed) this.unfinished(lines);
    const errors = this.findings.filter((f) => f.kind !== "dropped").length;
    const sessions = [...this.sessions].map(([sessionId, track]) => summarise(sessionId, track));
    const report = { surface: this.surface, lines, findings: this.findings, errors, sessions };
    return this.directed ? { ...report, latencies: this.latencies } : report;
  }
}

/** A request id as a map key and for messages: a JSON-RPC id as its JSON; anything else (a violation already) bounded by `describeJson`. */
function idKey(id: unknown): string {
  return typeof id === "string" || typeof id === "number" || id === null ? JSON.stringify(id) : describeJson(id);
}

/** One of the state's `ReadonlyMap`s (a `Map` or the reducer's persistent map); empty when the surface has none. */
function mapOf(state: object, key: string): ReadonlyMap<unknown, unknown> {
  const value = (state as Record<string, unknown>)[key];
  return isObject(value) && typeof value.has === "function" ? (value as unknown as ReadonlyMap<unknown, unknown>) : new Map();
}

function summarise(sessionId: string, track: SessionTrack): SessionSummary {
  const state = track.state as Record<string, unknown>;
  const toolCalls: Record<string, number> = {};
  for (const call of mapOf(state, "toolCalls").values()) {
    const status = isObject(call) && typeof call.status === "string" ? call.status : "pending";
    put(toolCalls, status, (Object.hasOwn(toolCalls, status) ? toolCalls[status]! : 0) + 1);
  }
  const entries = (plan: unknown) => (isObject(plan) && Array.isArray(plan.entries) ? plan.entries.length : 0);
  let planEntries = entries(state.plan);
  for (const plan of mapOf(state, "plans").values()) planEntries += entries(plan);
  const summary = {
    sessionId,
    userMessages: mapOf(state, "userMessages").size,
    agentMessages: mapOf(state, "agentMessages").size,
    agentThoughts: mapOf(state, "agentThoughts").size,
    toolCalls,
    planEntries,
  };
  return track.stopReason === undefined ? summary : { ...summary, stopReason: track.stopReason };
}

/** The report as text, one line per finding, then the summary. */
export function formatText(report: CheckReport): string {
  const out = report.findings.map((f) => `line ${f.line}: ${f.kind} ${f.pointer || "(message)"}: ${f.message}`);
  const count = (kind: Finding["kind"]) => report.findings.filter((f) => f.kind === kind).length;
  if (report.latencies?.length) {
    const slowest = report.latencies.reduce((a, b) => (b.ms > a.ms ? b : a));
    out.push(`${report.latencies.length} request(s) answered; slowest ${slowest.method} at line ${slowest.line}: ${slowest.ms} ms`);
  }
  const errors = `${count("violation")} violation(s), ${count("protocol")} protocol error(s), ${count("rejected")} rejected by a tolerant peer`;
  out.push(`${report.lines} line(s) on ${report.surface}: ${errors}, ${count("dropped")} tolerant drop(s)`);
  for (const s of report.sessions) {
    const calls = Object.entries(s.toolCalls).map(([status, n]) => `${n} ${status}`).join(", ") || "none";
    out.push(
      `session ${s.sessionId}: messages ${s.userMessages} user, ${s.agentMessages} agent, ${s.agentThoughts} thought; ` +
        `tool calls ${calls}; plan ${s.planEntries} entr${s.planEntries === 1 ? "y" : "ies"}; stop reason ${s.stopReason ?? "none"}`,
    );
  }
  return `${out.join("\n")}\n`;
}
