/**
 * The connection's fuzz engine (issue 36), shared by test/connection-fuzz.test.ts
 * (a few thousand inputs) and bench/connection-fuzz.bench.ts (100,000): a valid
 * ndjson session for each end (the lines a client sends an agent, the lines an
 * agent sends a client), mutated by a seeded generator, fed as bytes in random
 * chunks to `connectAgent` / `connectClient` over Node streams or Web streams.
 * After the mutated bytes a probe `initialize` follows; the run of one input is
 * over when the probe is answered. Each run is judged by what JSON-RPC 2.0 says
 * of each line the end received (section 4 to 6, DESIGN.md "Connection"),
 * worked out here from the line itself, not from the code under test:
 * - a line that is not JSON, not an object, or an object that is neither a
 *   request, a notification nor a response is answered once, with id `null`
 *   (or with its id, when that id is a valid JSON-RPC id);
 * - a request (a `method` string and an `id` that is a string, a finite number
 *   or null) is answered once, with its id;
 * - a notification and a response are never answered;
 * - one byte order mark opening a line is ignored (RFC 8259 lets a parser).
 * So the multiset of answered ids must equal the multiset of ids the lines call
 * for: an answer to a notification, a lost answer or a duplicate shows up. The
 * probe's answer proves the end still works after the input.
 */
import { PassThrough } from "node:stream";
import * as v2 from "../../generated/src/v2/index.js";

/** A small seeded generator (xorshift32), so that a failing input can be replayed from its seed. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 0x100000000;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

const SESSION = "s1";
const text = (t: string) => ({ type: "text", text: t });

/** The lines a client sends an agent: every kind of message an agent handles, and responses to its requests. */
export const AGENT_BOUND: readonly unknown[] = [
  { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 2, info: { name: "fuzz-client", version: "1.0.0" } } },
  { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } },
  { jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: SESSION, prompt: [text("hello"), { type: "resource_link", uri: "file:///a.txt", name: "a.txt" }] } },
  { jsonrpc: "2.0", id: 1, result: { outcome: { outcome: "selected", optionId: "allow" } } },
  { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 2 } },
  { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: SESSION } },
  { jsonrpc: "2.0", id: "ext-1", method: "_vendor/ask", params: { deep: [1, { a: null, b: [true, "x"] }] } },
  { jsonrpc: "2.0", method: "_vendor/tell", params: {} },
  { jsonrpc: "2.0", id: 3, method: "no/such", params: {} },
  { jsonrpc: "2.0", id: 2, error: { code: -32000, message: "nope", data: { why: ["a", 1] } } },
];

/** The lines an agent sends a client: updates of every kind, its requests, and responses to the client's. */
export const CLIENT_BOUND: readonly unknown[] = [
  { jsonrpc: "2.0", id: 0, result: { protocolVersion: 2, info: { name: "fuzz-agent", version: "1.0.0" } } },
  { jsonrpc: "2.0", method: "session/update", params: { sessionId: SESSION, update: { sessionUpdate: "state_update", state: "running" } } },
  { jsonrpc: "2.0", method: "session/update", params: { sessionId: SESSION, update: { sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("hel") } } },
  { jsonrpc: "2.0", method: "session/update", params: { sessionId: SESSION, update: { sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("lo"), _meta: { k: [1, 2] } } } },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: SESSION, update: { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read", kind: "read", status: "pending", rawInput: { path: "/a" } } },
  },
  {
    jsonrpc: "2.0",
    id: 5,
    method: "session/request_permission",
    params: {
      sessionId: SESSION,
      title: "Read?",
      subject: { type: "tool_call", toolCall: { toolCallId: "t1", title: "Read", status: "pending" } },
      options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
    },
  },
  { jsonrpc: "2.0", method: "session/update", params: { sessionId: SESSION, update: { sessionUpdate: "plan_update", plan: { type: "items", planId: "p1", entries: [{ content: "a", priority: "high", status: "completed" }] } } } },
  { jsonrpc: "2.0", id: 6, method: "fs/read_text_file", params: { sessionId: SESSION, path: "/a" } },
  { jsonrpc: "2.0", method: "session/update", params: { sessionId: SESSION, update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" } } },
  { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "failed", data: { issues: [] } } },
];

// ---------------------------------------------------------------------------
// Mutations: each takes the session's lines (as text) and returns new ones.

const encoder = new TextEncoder();
type Lines = string[];
type Mutation = (lines: Lines, rng: Rng) => Lines;

/** A value nested `depth` levels deep, as JSON text (built as text: no recursion here either). */
export function deepText(depth: number, rng: Rng): string {
  const kind = rng.int(3);
  if (kind === 0) return "[".repeat(depth) + "0" + "]".repeat(depth);
  if (kind === 1) return '{"a":'.repeat(depth) + "null" + "}".repeat(depth);
  return '[{"x":'.repeat(Math.ceil(depth / 2)) + '"leaf"' + "}]".repeat(Math.ceil(depth / 2));
}

/** The positions of every value in a line's JSON text: after each `:` , `[` or `,` outside strings. */
function valueStarts(line: string): number[] {
  const starts: number[] = [];
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ":" || c === "[" || c === ",") starts.push(i + 1);
  }
  return starts;
}

/** The end of the JSON value starting at `start` (a scan of brackets and strings). */
function valueEnd(line: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") {
      if (depth === 0) return i;
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === "," && depth === 0) return i;
  }
  return line.length;
}

/** Replaces the value at a random field position of a random line with `replacement`. */
function replaceValue(lines: Lines, rng: Rng, replacement: string): Lines {
  const at = rng.int(lines.length);
  const starts = valueStarts(lines[at]!);
  if (starts.length === 0) return lines;
  return withValueAt(lines, at, rng.pick(starts), replacement);
}

/** `lines` with the value starting at `start` of line `at` replaced by `replacement`. */
function withValueAt(lines: Lines, at: number, start: number, replacement: string): Lines {
  const line = lines[at]!;
  const out = lines.slice();
  out[at] = line.slice(0, start) + replacement + line.slice(valueEnd(line, start));
  return out;
}

/**
 * Every placement of `replacement` in `session`: one input per value position
 * of each line (ids, methods, params and their members, results, errors), as
 * one chunk. The sweep the random mutations only sample.
 */
export function everyPlacement(session: readonly unknown[], replacement: string): FuzzInput[] {
  const lines = session.map((message) => JSON.stringify(message));
  return lines.flatMap((line, at) =>
    valueStarts(line).map((start) => {
      const bytes = encoder.encode(withValueAt(lines, at, start, replacement).join("\n") + "\n");
      return { bytes, chunks: [bytes.length] };
    }),
  );
}

const HUGE_NUMBERS = ["1e400", "-1e400", "123456789012345678901234567890", "0.0000000000000000000000001", "9007199254740993", "-0", "1E+308"];
const ODD_VALUES = ['"__proto__"', "{}", "[]", "null", "true", '"\\u0000"', '"\\ud800"', '{"__proto__":{"x":1}}', '"' + "x".repeat(70_000) + '"'];

const MUTATIONS: readonly Mutation[] = [
  // bit flips: one to eight random bits of one line
  (lines, rng) => {
    const at = rng.int(lines.length);
    const chars = [...lines[at]!];
    for (let n = 1 + rng.int(8); n > 0 && chars.length > 0; n--) {
      const i = rng.int(chars.length);
      chars[i] = String.fromCharCode(chars[i]!.charCodeAt(0) ^ (1 << rng.int(7)));
    }
    const out = lines.slice();
    out[at] = chars.join("");
    return out;
  },
  // truncation of one line, or of the whole session
  (lines, rng) => {
    const at = rng.int(lines.length);
    const out = lines.slice(0, rng.next() < 0.5 ? at + 1 : lines.length);
    out[at] = out[at]!.slice(0, rng.int(out[at]!.length));
    return out;
  },
  // a byte order mark or a NUL at a random place of a line
  (lines, rng) => {
    const at = rng.int(lines.length);
    const line = lines[at]!;
    const i = rng.next() < 0.5 ? 0 : rng.int(line.length);
    const out = lines.slice();
    out[at] = line.slice(0, i) + rng.pick(["\uFEFF", "\u0000"]) + line.slice(i);
    return out;
  },
  // huge or odd numbers, and odd values, in any field position
  (lines, rng) => replaceValue(lines, rng, rng.pick(HUGE_NUMBERS)),
  (lines, rng) => replaceValue(lines, rng, rng.pick(ODD_VALUES)),
  // deep nesting, up to 10^5 levels, in any field position (ids, methods, params, results, errors)
  (lines, rng) => replaceValue(lines, rng, deepText(rng.pick([10, 1_000, 10_000, 100_000]), rng)),
  // a duplicated line, or two lines swapped
  (lines, rng) => {
    const at = rng.int(lines.length);
    const out = lines.slice();
    if (rng.next() < 0.5) out.splice(at, 0, lines[at]!);
    else [out[at], out[0]] = [out[0]!, out[at]!];
    return out;
  },
  // a whole line replaced by a bare value or by noise
  (lines, rng) => {
    const out = lines.slice();
    out[rng.int(out.length)] = rng.pick(["[]", "null", "42", '"text"', "{", "}", "[1,2", "\t", "\r", '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":[]}', '{"id":1}']);
    return out;
  },
];

/** Invalid UTF-8 sequences, inserted as bytes (the other mutations work on text). */
const BAD_UTF8: readonly number[][] = [[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf]];

/** One fuzz input: the bytes to feed, and the chunk sizes to feed them in. */
export interface FuzzInput {
  readonly bytes: Uint8Array;
  readonly chunks: readonly number[];
}

/** A mutated session of `session`'s lines: one to three mutations, maybe invalid UTF-8, random chunk boundaries. */
export function fuzzInput(session: readonly unknown[], rng: Rng): FuzzInput {
  let lines: Lines = session.map((message) => JSON.stringify(message));
  for (let n = 1 + rng.int(3); n > 0; n--) lines = rng.pick(MUTATIONS)(lines, rng);
  let bytes = encoder.encode(lines.join(rng.next() < 0.2 ? "\r\n" : "\n") + "\n");
  if (rng.next() < 0.15) {
    const at = rng.int(bytes.length);
    const bad = rng.pick(BAD_UTF8);
    const out = new Uint8Array(bytes.length + bad.length);
    out.set(bytes.subarray(0, at));
    out.set(bad, at);
    out.set(bytes.subarray(at), at + bad.length);
    bytes = out;
  }
  const chunks: number[] = [];
  for (let left = bytes.length; left > 0; ) {
    const size = Math.min(left, rng.next() < 0.3 ? 1 + rng.int(7) : 1 + rng.int(4096));
    chunks.push(size);
    left -= size;
  }
  return { bytes, chunks };
}

// ---------------------------------------------------------------------------
// What the lines call for (JSON-RPC 2.0), worked out from the bytes alone.

/** A key for an answered id: its JSON (ids are strings, numbers or null). */
function idKey(id: unknown): string {
  return typeof id === "number" ? `n:${id}` : `${typeof id}:${String(id)}`;
}

function isJsonRpcId(id: unknown): boolean {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/**
 * The lines of `bytes` as text: split at each newline byte, a `\r` before it
 * dropped, each decoded on its own as UTF-8 (bad bytes as U+FFFD), which drops
 * one byte order mark opening the line (RFC 8259, section 8.1: a parser MAY
 * ignore it; a second one is text, and the line is not JSON).
 */
function decodedLines(bytes: Uint8Array): string[] {
  const decoder = new TextDecoder("utf-8");
  const lines: string[] = [];
  for (let start = 0; start < bytes.length; ) {
    const newline = bytes.indexOf(10, start);
    const end = newline < 0 ? bytes.length : newline;
    const cut = end > start && bytes[end - 1] === 13 ? end - 1 : end;
    lines.push(decoder.decode(bytes.subarray(start, cut)));
    start = end + 1;
  }
  return lines;
}

/** The ids the received lines must be answered with, each once (`null` for lines that cannot be tied to a request). */
export function expectedAnswers(bytes: Uint8Array): string[] {
  const answers: string[] = [];
  for (const line of decodedLines(bytes)) {
    if (line.trim() === "") continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      answers.push(idKey(null)); // -32700
      continue;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      answers.push(idKey(null)); // -32600
      continue;
    }
    const { id, method } = message as Record<string, unknown>;
    const hasId = Object.hasOwn(message, "id") && id !== undefined;
    const isResponse = (method === undefined || method === null) && hasId && ("result" in message || "error" in message);
    if (isResponse) continue; // never answered, also when malformed
    if (typeof method === "string" && !hasId && (message as Record<string, unknown>).jsonrpc === "2.0") continue; // a notification
    answers.push(idKey(hasId && isJsonRpcId(id) ? id : null));
  }
  return answers;
}

// ---------------------------------------------------------------------------
// The two ends under test.

/** Handlers that never wait: each request is answered in the order it came, so the probe's answer comes last. */
function agentHandlers(client: () => v2.ClientPeer) {
  return {
    initialize: () => ({ protocolVersion: v2.PROTOCOL_VERSION, info: { name: "fuzz-agent", version: "1.0.0" } }),
    "session/new": () => ({ sessionId: SESSION }),
    "session/prompt": (params: { sessionId: string }) => {
      void client()
        .notify("session/update", { sessionId: params.sessionId, update: { sessionUpdate: "state_update", state: "running" } })
        .catch(() => {});
      void client()
        .request("session/request_permission", {
          sessionId: params.sessionId,
          title: "Go?",
          subject: { type: "tool_call", toolCall: { toolCallId: "t1", title: "Go", status: "pending" } },
          options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
        })
        .catch(() => {});
      return { messageId: "u1" };
    },
    "session/cancel": () => {},
  };
}

/** Which end, over which streams. */
export type Target = { readonly end: "agent" | "client"; readonly streams: "node" | "web" };

/** What one run saw. */
export interface RunOutcome {
  /** Answered ids (as `expectedAnswers` keys) other than the probe's, in order. */
  readonly answered: string[];
  /** The probe's answer arrived. */
  readonly probeAnswered: boolean;
  /** `onError` reports (counted; their text bounded). */
  readonly reports: number;
  /** A throw out of the feeding itself (there must be none). */
  readonly thrown: unknown;
}

const PROBE_ID = "fuzz-probe";
const PROBE = encoder.encode(
  "\n" + JSON.stringify({ jsonrpc: "2.0", id: PROBE_ID, method: "initialize", params: { protocolVersion: 2, info: { name: "probe", version: "1.0.0" } } }) + "\n",
);

/** A byte channel into the end under test, and the lines it writes. */
interface Wire {
  readonly transport: v2.Transport;
  feed(chunk: Uint8Array): void;
  /** Resolves once a line whose id is the probe's was written. */
  readonly probed: Promise<void>;
  readonly written: string[];
  end(): void;
}

function nodeWire(onProbe: () => void): Wire {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: string[] = [];
  let buffered = "";
  let markProbed!: () => void;
  const probed = new Promise<void>((resolve) => (markProbed = resolve));
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    for (const part of parts) {
      written.push(part);
      if (part.includes(`"id":"${PROBE_ID}"`)) (onProbe(), markProbed());
    }
  });
  return { transport: v2.ndJsonStream({ readable: input, writable: output }), feed: (chunk) => input.write(chunk), probed, written, end: () => input.end() };
}

function webWire(onProbe: () => void): Wire {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const written: string[] = [];
  const decoder = new TextDecoder();
  let buffered = "";
  let markProbed!: () => void;
  const probed = new Promise<void>((resolve) => (markProbed = resolve));
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      buffered += decoder.decode(chunk, { stream: true });
      const parts = buffered.split("\n");
      buffered = parts.pop()!;
      for (const part of parts) {
        written.push(part);
        if (part.includes(`"id":"${PROBE_ID}"`)) (onProbe(), markProbed());
      }
    },
  });
  return {
    transport: v2.ndJsonStream({ readable, writable }),
    feed: (chunk) => controller.enqueue(chunk.slice()),
    probed,
    written,
    end: () => {
      try {
        controller.close();
      } catch {
        // already closed by the connection
      }
    },
  };
}

/** Feeds `input` then the probe to a fresh end, waits (up to `timeoutMs`) for the probe's answer, and reports what it wrote. */
export async function runInput(input: FuzzInput, target: Target, timeoutMs = 30_000): Promise<RunOutcome> {
  let reports = 0;
  const wire = (target.streams === "node" ? nodeWire : webWire)(() => {});
  const options = { onError: () => void reports++ };
  let peer: { close(): void; closed: Promise<void> };
  if (target.end === "agent") {
    let client: v2.ClientPeer | undefined;
    client = v2.connectAgent(wire.transport, agentHandlers(() => client!), options);
    peer = client;
  } else {
    const sessions = v2.createSessionStore();
    peer = v2.connectClient(
      wire.transport,
      {
        "session/update": sessions.update,
        "session/request_permission": () => ({ outcome: { outcome: "selected", optionId: "allow" } }),
      },
      options,
    );
  }
  let thrown: unknown;
  try {
    let at = 0;
    for (const size of input.chunks) {
      wire.feed(input.bytes.subarray(at, at + size));
      at += size;
      // Let the end read between some chunks, so chunk boundaries reach it as boundaries.
      if (size < 8) await Promise.resolve();
    }
    wire.feed(PROBE);
  } catch (error) {
    thrown = error;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const probeAnswered = await Promise.race([
    wire.probed.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
  ]);
  clearTimeout(timer);
  // An answer the end had still to write when the probe's went out (a handler's result waits a microtask, an
  // unknown method's error does not) shows within a few turns of the event loop.
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  peer.close();
  wire.end();
  const answered: string[] = [];
  for (const line of wire.written) {
    const message = JSON.parse(line) as Record<string, unknown>;
    if ("method" in message) continue; // a request or notification of the end itself
    if (message.id === PROBE_ID) continue;
    answered.push(idKey(message.id));
  }
  return { answered, probeAnswered, reports, thrown };
}

/** The difference between two multisets of ids, for a failure message (empty when equal). */
export function multisetDifference(expected: readonly string[], actual: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const id of expected) counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const id of actual) counts.set(id, (counts.get(id) ?? 0) - 1);
  const off = [...counts].filter(([, n]) => n !== 0).map(([id, n]) => `${id.slice(0, 60)}: ${n > 0 ? `${n} missing` : `${-n} extra`}`);
  return off.join("; ");
}

/** The targets in turn: agent and client, over Node and Web streams. */
export const TARGETS: readonly Target[] = [
  { end: "agent", streams: "node" },
  { end: "agent", streams: "web" },
  { end: "client", streams: "node" },
  { end: "client", streams: "web" },
];

/** The session each end receives. */
export function sessionFor(target: Target): readonly unknown[] {
  return target.end === "agent" ? AGENT_BOUND : CLIENT_BOUND;
}
