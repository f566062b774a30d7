import { decodeBase64, encodeBase64 } from "./base64.js";
import { decodeUtf8 } from "./checker.js";
import { isObject, NotJson, parseText } from "./decode.js";

/*
 * The trace format of `npx acp-bindings record` (read by `check` and `view`):
 * ndjson, one event per line, written as each line passes the tap.
 *
 *   {"t":1718000000000,"dir":"client->agent","line":"{\"jsonrpc\":\"2.0\",...}"}
 *   {"t":1718000000004,"dir":"agent->client","line":"not JSON, passed on as it was"}
 *   {"t":1718000000005,"dir":"agent->client","base64":"/w=="}          (bytes that are not UTF-8)
 *   {"t":1718000000006,"dir":"agent->client","line":"{...","partial":true}  (the stream ended without a newline)
 *   {"t":1717999999990,"event":"start","command":["npx","tsx","agent.ts"]}
 *   {"t":1718000000100,"event":"exit","code":1,"signal":null}
 *
 * `t` is milliseconds since the epoch; `line` is the raw line without its `\n`.
 * Also read: the Rust conductor's `--trace` lines (`ts`, `from`, `to`, `id`,
 * `method`, `session`, `params`, and `result`/`error` on responses) and plain
 * JSON-RPC lines (direction unknown).
 */

/** Which way a line went. */
export type Direction = "client->agent" | "agent->client";

/** One line of a trace file. */
export interface TraceEntry {
  /** The line number in the trace file (1-based). */
  readonly line: number;
  /** Milliseconds since the epoch, when known. */
  readonly t?: number;
  readonly dir?: Direction;
  /** The wire line: its text, or its bytes when they are not UTF-8; absent for a recorder event. */
  readonly wire?: string | Uint8Array;
  /** A recorder event (`start`, `exit`) and its fields, as recorded. */
  readonly event?: string;
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** The lines of a trace file, as they were recorded, with the format they were in. */
export interface Trace {
  readonly entries: readonly TraceEntry[];
  /** `recorded` (this format), `conductor` (the Rust conductor's), `plain` (JSON-RPC lines), or `mixed`. */
  readonly format: "recorded" | "conductor" | "plain" | "mixed" | "empty";
}

const DIRECTIONS: readonly string[] = ["client->agent", "agent->client"];

/** One trace line as this format writes it: the wire line's text (or bytes, base64) with time and direction. */
export function traceLine(t: number, dir: Direction, bytes: Uint8Array, partial = false): string {
  const text = decodeUtf8(bytes);
  const body = text === undefined ? { t, dir, base64: encodeBase64(bytes) } : { t, dir, line: text };
  return `${JSON.stringify(partial ? { ...body, partial: true } : body)}\n`;
}

/** A recorder event line (`start`, `exit`); `detail` has plain fields only. */
export function traceEvent(t: number, event: string, detail: Readonly<Record<string, unknown>>): string {
  return `${JSON.stringify({ t, event, ...detail })}\n`;
}

/** Reads a trace file's lines (`splitLines`, decoded where UTF-8). */
export function readTrace(lines: readonly (string | Uint8Array)[]): Trace {
  const formats = new Set<string>();
  const entries = lines.map((raw, i) => {
    const { entry, format } = readEntry(raw, i + 1);
    if (format !== "blank") formats.add(format);
    return entry;
  });
  const format = formats.size === 0 ? "empty" : formats.size > 1 ? "mixed" : ([...formats][0] as Trace["format"]);
  return { entries, format };
}

function readEntry(raw: string | Uint8Array, line: number): { entry: TraceEntry; format: string } {
  const text = typeof raw === "string" ? raw : decodeUtf8(raw);
  if (text === undefined || text.trim() === "") return { entry: { line, wire: text ?? raw }, format: text === undefined ? "plain" : "blank" };
  const value = parseText(text);
  if (value instanceof NotJson || !isObject(value)) return { entry: { line, wire: text }, format: "plain" };
  if (typeof value.dir === "string" && DIRECTIONS.includes(value.dir)) return { entry: recorded(value, line), format: "recorded" };
  if (typeof value.event === "string" && typeof value.t === "number" && !("jsonrpc" in value)) {
    return { entry: { line, t: value.t, event: value.event, detail: value }, format: "recorded" };
  }
  if (typeof value.from === "string" && typeof value.to === "string" && "ts" in value) return { entry: conductor(value, line), format: "conductor" };
  return { entry: { line, wire: text }, format: "plain" };
}

/** A line of this format: `line` (text) or `base64` (bytes). */
function recorded(value: Record<string, unknown>, line: number): TraceEntry {
  const dir = value.dir as Direction;
  const t = typeof value.t === "number" ? value.t : undefined;
  const bytes = typeof value.base64 === "string" ? decodeBase64(value.base64) : undefined;
  const wire = typeof value.line === "string" ? value.line : (bytes ?? "");
  return t === undefined ? { line, dir, wire } : { line, t, dir, wire };
}

/**
 * A conductor trace line: the message is rebuilt from `id`, `method`, `params`,
 * `result`, `error`; the direction from `from`/`to` (`client...` sends towards
 * the agent, `agent...` towards the client; a proxy hop is named by its other end).
 */
function conductor(value: Record<string, unknown>, line: number): TraceEntry {
  const message = {
    jsonrpc: "2.0",
    ...("id" in value && value.id !== null ? { id: value.id } : {}),
    ...(typeof value.method === "string" ? { method: value.method } : {}),
    ...("params" in value && value.params !== null ? { params: value.params } : {}),
    ...("result" in value ? { result: value.result } : {}),
    ...("error" in value && value.error !== null ? { error: value.error } : {}),
  };
  const from = String(value.from).toLowerCase();
  const to = String(value.to).toLowerCase();
  const dir: Direction | undefined =
    from.startsWith("client") || to.startsWith("agent") ? "client->agent" : from.startsWith("agent") || to.startsWith("client") ? "agent->client" : undefined;
  const t = typeof value.ts === "number" ? value.ts : typeof value.ts === "string" ? Date.parse(value.ts) : NaN;
  return { line, ...(Number.isFinite(t) ? { t } : {}), ...(dir ? { dir } : {}), wire: JSON.stringify(message) };
}

/** A trace's wire lines, aligned with the file's line numbers (a recorder event or blank line is `""`), for `checkTraffic`. */
export function wireLines(trace: Trace): (string | Uint8Array)[] {
  return trace.entries.map((entry) => entry.wire ?? "");
}
