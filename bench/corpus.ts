/**
 * Deterministic corpus of ACP v2-unstable JSON-RPC 2.0 messages for the
 * parse/validate benchmark.
 *
 * The corpus is a simulated transcript: sessions are created (`initialize`,
 * `session/new`), then prompt turns stream `session/update` notifications the
 * way a coding agent does (mostly message and thought chunks, tool calls with
 * terminals and diffs, plans, usage and state snapshots), with a few
 * permission requests, config changes, cancellations, error responses,
 * extension methods, `_meta` objects and vendor `_x` custom variants.
 * About 5% of the messages are then made irregular by one mutation (see
 * MUTATIONS): most are invalid under the schema, `extra-props` is valid
 * (unknown properties are allowed everywhere, S29).
 *
 * Everything is driven by one seeded PRNG: the same seed gives byte-identical
 * output on every run and machine. Request ids are unique in the corpus:
 * client requests use numbers, agent requests use strings, so a response's
 * method can be found from its id alone (see route.ts).
 *
 * Usage: `npx tsx bench/corpus.ts [--seed N] [--size N]` writes
 * bench/.corpus/v2-unstable.jsonl.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// ---------------------------------------------------------------------------
// PRNG

/** mulberry32: a small, fast, well-mixed 32-bit PRNG. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Integer in [lo, hi] skewed towards lo (power > 1 skews more). */
  skewed(lo: number, hi: number, power: number): number {
    return lo + Math.floor(Math.pow(this.next(), power) * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks a key of `weights` with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    let roll = this.next() * entries.reduce((sum, [, w]) => sum + w, 0);
    for (const [key, w] of entries) {
      roll -= w;
      if (roll < 0) return key;
    }
    return entries[entries.length - 1]![0];
  }

  /** Random string over `alphabet`. */
  chars(alphabet: string, length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  /** A v4-shaped UUID. */
  uuid(): string {
    const h = (n: number) => this.chars("0123456789abcdef", n);
    return `${h(8)}-${h(4)}-4${h(3)}-${this.pick(["8", "9", "a", "b"])}${h(3)}-${h(12)}`;
  }
}

// ---------------------------------------------------------------------------
// Corpus types

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** One corpus message plus what the checker needs to know about it. */
export interface CorpusEntry {
  /** The serialized message, one line of the JSONL file. */
  json: string;
  /** `update:<sessionUpdate>`, `request:<method>`, `response:<method>`, `notification:<method>`, `error`. */
  kind: string;
  /** Name of the irregularity applied, if any. */
  mutation?: string;
  /** Whether the message must be valid under the schema. */
  intendedValid: boolean;
}

export interface CorpusOptions {
  seed?: number | undefined;
  /** Number of messages (exact). */
  size?: number | undefined;
  /** Fraction of messages made irregular. */
  irregularRate?: number | undefined;
}

/** The `session/update` tags of issue 11's 4-kind stream (the reducer's profile workload), a subset of the corpus. */
export const FOUR_KINDS: ReadonlySet<string> = new Set(["tool_call_update", "agent_thought", "agent_thought_chunk", "subagent_update"]);

export const DEFAULT_SEED = 0xacb2;
export const DEFAULT_SIZE = 20_000;
export const CORPUS_PATH = fileURLToPath(new URL("./.corpus/v2-unstable.jsonl", import.meta.url));

// ---------------------------------------------------------------------------
// Text and id material

const WORDS = (
  "the a to of and in that is for it with as this on be by file function test " +
  "we I will now let me check error type value return import export const " +
  "should update config module build run failing passes change fix add remove " +
  "component handler request response session tool call output line path " +
  "looks like need first then next looking at found issue because so"
).split(" ");
const CODE_LINES = [
  "export function parse(input: string): Result {",
  "  const value = JSON.parse(input);",
  "  if (!isRecord(value)) return fail(\"expected object\");",
  "  return { ok: true, value };",
  "}",
  "import { describe, it, expect } from \"vitest\";",
  "    at Object.<anonymous> (/home/dev/app/src/index.ts:42:13)",
  "fn main() -> anyhow::Result<()> {",
  "\tlet mut buf = String::new();",
  "SELECT id, name FROM users WHERE active = 1;",
];
const UNICODE_BITS = ["café", "naïve", "→", "✓", "✗", "—", "日本語", "🚀", "…", "Größe", "\\n", "\"quoted\""];
const PROJECTS = ["acme-web", "billing-service", "rust-cli", "ml-pipeline", "docs-site"];
const FILES = ["src/index.ts", "src/server.ts", "src/lib/parse.ts", "tests/parse.test.ts", "Cargo.toml",
  "src/main.rs", "package.json", "README.md", "src/components/Button.tsx", "scripts/build.sh"];
const COMMANDS = ["npm test", "cargo build --release", "git status", "pnpm lint", "pytest -q", "ls -la src",
  "rg -n \"TODO\" src", "make check"];
const MODELS = ["claude-sonnet-4", "gpt-5", "gemini-2.5-pro", "qwen3-coder"];
const VENDORS = ["_zed.dev", "_acme", "_jetbrains", "_goose"];

// ---------------------------------------------------------------------------
// The simulation

/** Mutable state of the transcript being generated. */
interface Sim {
  rng: Rng;
  out: CorpusEntry[];
  nextClientId: number;
  nextAgentId: number;
  cwd: string;
}

function emit(sim: Sim, kind: string, message: JsonObject): void {
  sim.out.push({ json: JSON.stringify(message), kind, intendedValid: true });
}

function notify(sim: Sim, method: string, params: JsonObject): void {
  emit(sim, `notification:${method}`, { jsonrpc: "2.0", method, params });
}

/** A client -> agent request followed by the agent's response. */
function clientCall(sim: Sim, method: string, params: JsonObject, result: JsonObject): void {
  const id = sim.nextClientId++;
  emit(sim, `request:${method}`, { jsonrpc: "2.0", id, method, params });
  emit(sim, `response:${method}`, { jsonrpc: "2.0", id, result });
}

/** An agent -> client request followed by the client's response. */
function agentCall(sim: Sim, method: string, params: JsonObject, result: JsonObject): void {
  const id = `srv-${sim.nextAgentId++}`;
  emit(sim, `request:${method}`, { jsonrpc: "2.0", id, method, params });
  emit(sim, `response:${method}`, { jsonrpc: "2.0", id, result });
}

function update(sim: Sim, sessionId: string, body: JsonObject): void {
  const params: JsonObject = { sessionId, update: body };
  if (sim.rng.chance(0.03)) params._meta = traceMeta(sim.rng);
  const tag = String(body.sessionUpdate);
  emit(sim, `update:${tag.startsWith("_") ? "_custom" : tag}`, { jsonrpc: "2.0", method: "session/update", params });
}

/** Text of `length` characters or so: prose, code, now and then unicode and escapes. */
function text(rng: Rng, length: number): string {
  let out = "";
  while (out.length < length) {
    const roll = rng.next();
    if (roll < 0.04) out += rng.pick(UNICODE_BITS);
    else if (roll < 0.08) out += "\n";
    else if (roll < 0.1) out += "`" + rng.pick(FILES) + "`";
    else if (roll < 0.12) out += "\n" + rng.pick(CODE_LINES);
    else out += rng.pick(WORDS);
    out += " ";
  }
  return out.slice(0, length);
}

/** Chunk text: 5-200 characters, skewed short as LLM streams are. */
function chunkText(rng: Rng): string {
  return text(rng, rng.skewed(5, 200, 2.2));
}

function absPath(sim: Sim): string {
  return `${sim.cwd}/${sim.rng.pick(FILES)}`;
}

function traceMeta(rng: Rng): JsonObject {
  return {
    traceparent: `00-${rng.chars("0123456789abcdef", 32)}-${rng.chars("0123456789abcdef", 16)}-01`,
    "zed.dev/latencyMs": rng.int(1, 900),
  };
}

function vendorMeta(rng: Rng): JsonObject {
  return rng.chance(0.5)
    ? { [`${rng.pick(VENDORS).slice(1)}/source`]: rng.pick(["cache", "model", "tool"]) }
    : { "acme/debug": { span: rng.chars("0123456789abcdef", 8), retries: rng.int(0, 3), tags: ["a", "b"] } };
}

/** Adds `_meta` to `obj` with probability `p`. */
function maybeMeta(rng: Rng, obj: JsonObject, p: number): JsonObject {
  if (rng.chance(p)) obj._meta = vendorMeta(rng);
  return obj;
}

// ---- content ---------------------------------------------------------------

function textBlock(rng: Rng, body: string): JsonObject {
  const block: JsonObject = { type: "text", text: body };
  if (rng.chance(0.02)) block.annotations = { audience: ["user"], priority: 0.5 };
  return maybeMeta(rng, block, 0.01);
}

function contentBlock(sim: Sim, allowRich: boolean): JsonObject {
  const { rng } = sim;
  const kind = allowRich ? rng.weighted({ text: 80, resource_link: 8, resource: 6, image: 3, custom: 3 }) : "text";
  switch (kind) {
    case "resource_link":
      return { type: "resource_link", name: rng.pick(FILES), uri: `file://${absPath(sim)}`, mimeType: "text/plain",
        size: rng.int(100, 90_000) };
    case "resource":
      return { type: "resource", resource: { uri: `file://${absPath(sim)}`, mimeType: "text/x-typescript",
        text: rng.pick(CODE_LINES) + "\n" + rng.pick(CODE_LINES) } };
    case "image":
      return { type: "image", mimeType: "image/png", data: base64(rng, rng.int(24, 300)) };
    case "custom":
      return { type: `${rng.pick(VENDORS)}/mention`, target: rng.pick(FILES), range: { start: 1, end: rng.int(2, 80) } };
    default:
      return textBlock(rng, text(rng, rng.int(10, 400)));
  }
}

function base64(rng: Rng, bytes: number): string {
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) buf[i] = rng.int(0, 255);
  return buf.toString("base64");
}

/** Terminal output: lines with ANSI colour codes, base64-encoded (S12). */
function terminalBytes(rng: Rng): string {
  const lines: string[] = [];
  const count = rng.skewed(1, 12, 2);
  for (let i = 0; i < count; i++) {
    const colour = rng.pick(["\u001b[32m", "\u001b[31m", "\u001b[33m", ""]);
    lines.push(`${colour}${rng.pick(["PASS", "FAIL", "warning:", "Compiling", "  ✓", "  ✗", ">"])}\u001b[0m ${text(rng, rng.int(10, 90))}`);
  }
  return Buffer.from(lines.join("\r\n") + "\r\n", "utf8").toString("base64");
}

// ---- session lifecycle --------------------------------------------------------

function initialize(sim: Sim): void {
  const { rng } = sim;
  clientCall(sim, "initialize", {
    protocolVersion: 2,
    info: { name: rng.pick(["zed", "vscode-acp", "neovim-acp"]), title: "Editor", version: `0.${rng.int(100, 220)}.${rng.int(0, 9)}` },
    capabilities: { auth: { terminal: {} }, elicitation: { form: {}, url: {} }, _meta: { "zed.dev/terminal": true } },
  }, {
    protocolVersion: 2,
    info: { name: rng.pick(["claude-code-acp", "codex-acp", "gemini-cli"]), version: `1.${rng.int(0, 30)}.0` },
    capabilities: {
      session: { prompt: { image: {}, embeddedContext: {} }, mcp: { stdio: {}, http: {} }, fork: {}, status: {} },
      auth: { status: {} },
    },
    authMethods: [{ type: "agent", methodId: "oauth", name: "Log in", description: "Browser login" },
      { type: "_acme/sso", methodId: "sso", name: "SSO", tenant: "acme" }],
  });
}

function newSession(sim: Sim): string {
  const { rng } = sim;
  sim.cwd = `/home/dev/projects/${rng.pick(PROJECTS)}`;
  const sessionId = `sess_${rng.chars("0123456789abcdefghijklmnopqrstuvwxyz", 20)}`;
  clientCall(sim, "session/new", {
    cwd: sim.cwd,
    additionalDirectories: rng.chance(0.3) ? [`${sim.cwd}-shared`] : [],
    mcpServers: [{ type: "stdio", name: "fs", command: "/usr/local/bin/mcp-fs", args: ["--root", sim.cwd],
      env: [{ name: "LOG", value: "warn" }] }, { type: "http", name: "docs", url: "https://mcp.example.com/docs", headers: [] }],
  }, {
    sessionId,
    configOptions: configOptions(rng),
    availableCommands: availableCommands(rng),
  });
  update(sim, sessionId, { sessionUpdate: "available_commands_update", availableCommands: availableCommands(rng) });
  update(sim, sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: null });
  return sessionId;
}

function configOptions(rng: Rng): Json[] {
  return [
    { type: "select", configId: "model", name: "Model", category: "model", currentValue: rng.pick(MODELS),
      options: MODELS.map((m) => ({ value: m, name: m })) },
    { type: "select", configId: "mode", name: "Mode", category: "mode", currentValue: "ask",
      options: [{ value: "ask", name: "Ask", description: "Ask before edits" }, { value: "code", name: "Code" }] },
    { type: "boolean", configId: "web", name: "Web search", currentValue: rng.chance(0.5) },
  ];
}

function availableCommands(rng: Rng): Json[] {
  const commands: Json[] = [
    { type: "command", name: "init", description: "Create an AGENTS.md file" },
    { type: "command", name: "review", description: "Review the current diff", input: { type: "text", hint: "branch or commit" } },
    { type: "command", name: "compact", description: "Summarize the conversation" },
  ];
  if (rng.chance(0.3)) commands.push({ type: `${rng.pick(VENDORS)}/macro`, name: "deploy", description: "Run the deploy macro", steps: 3 });
  return commands;
}

// ---- one prompt turn ----------------------------------------------------------

function promptTurn(sim: Sim, sessionId: string): void {
  const { rng } = sim;
  const userMessageId = rng.uuid();
  const prompt: Json[] = [textBlock(rng, text(rng, rng.int(20, 300)))];
  while (rng.chance(0.35)) prompt.push(contentBlock(sim, true));
  clientCall(sim, "session/prompt", maybeMeta(rng, { sessionId, prompt }, 0.1), { messageId: userMessageId });
  update(sim, sessionId, { sessionUpdate: "user_message", messageId: userMessageId, content: prompt });
  update(sim, sessionId, { sessionUpdate: "state_update", state: "running" });
  if (rng.chance(0.15)) update(sim, sessionId, { sessionUpdate: "session_info_update", title: text(rng, rng.int(10, 50)),
    updatedAt: "2025-06-01T12:00:00Z" });

  const steps = rng.skewed(1, 12, 1.3);
  for (let step = 0; step < steps; step++) {
    if (rng.chance(0.45)) streamMessage(sim, sessionId, "agent_thought_chunk", rng.skewed(2, 25, 1.6));
    const action = rng.weighted({ message: 30, tool: 55, plan: 6, rare: 9 });
    if (action === "message") streamMessage(sim, sessionId, "agent_message_chunk", rng.skewed(3, 40, 1.6));
    else if (action === "tool") toolCall(sim, sessionId);
    else if (action === "plan") planUpdate(sim, sessionId);
    else rareUpdate(sim, sessionId);
    if (rng.chance(0.4)) usageUpdate(sim, sessionId);
  }
  streamMessage(sim, sessionId, "agent_message_chunk", rng.skewed(5, 80, 1.5));
  if (rng.chance(0.05)) notify(sim, "session/cancel", { sessionId });
  idle(sim, sessionId);
}

function streamMessage(sim: Sim, sessionId: string, tag: string, chunks: number): void {
  const messageId = sim.rng.uuid();
  for (let i = 0; i < chunks; i++) {
    update(sim, sessionId, maybeMeta(sim.rng, { sessionUpdate: tag, messageId, content: textBlock(sim.rng, chunkText(sim.rng)) }, 0.005));
  }
  if (sim.rng.chance(0.05)) update(sim, sessionId, { sessionUpdate: tag === "agent_thought_chunk" ? "agent_thought" : "agent_message",
    messageId, _meta: { "acme/final": true } });
}

function idle(sim: Sim, sessionId: string): void {
  const { rng } = sim;
  const stopReason = rng.weighted({ end_turn: 85, cancelled: 5, max_tokens: 3, refusal: 2, error: 3, custom: 2 });
  const body: JsonObject = { sessionUpdate: "state_update", state: "idle", usage: usage(rng) };
  if (stopReason === "error") Object.assign(body, { stopReason, error: { code: -32603, message: "upstream model overloaded", data: { retryAfter: 30 } } });
  else if (stopReason === "custom") Object.assign(body, { stopReason: "_acme/budget_exhausted", budget: 100 });
  else body.stopReason = stopReason;
  if (rng.chance(0.2)) body.background = [{ type: "terminal", terminalId: `term_${rng.chars("0123456789", 4)}` }];
  update(sim, sessionId, body);
}

function usage(rng: Rng): JsonObject {
  const input = rng.int(1000, 180_000);
  const output = rng.int(10, 8000);
  const u: JsonObject = { totalTokens: input + output, inputTokens: input, outputTokens: output };
  if (rng.chance(0.5)) u.cachedReadTokens = rng.int(0, input);
  if (rng.chance(0.3)) u.thoughtTokens = rng.int(0, output);
  return u;
}

function usageUpdate(sim: Sim, sessionId: string): void {
  const { rng } = sim;
  const body: JsonObject = { sessionUpdate: "usage_update", used: rng.int(1000, 200_000), size: 200_000 };
  if (rng.chance(0.6)) body.cost = { amount: Math.round(rng.next() * 500) / 100, currency: "USD" };
  update(sim, sessionId, body);
}

// ---- tool calls -----------------------------------------------------------------

function toolCall(sim: Sim, sessionId: string): void {
  const { rng } = sim;
  const toolCallId = `toolu_01${rng.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 22)}`;
  const kind = rng.weighted({ read: 30, edit: 20, execute: 25, search: 15, fetch: 4, think: 3, _custom: 3 });
  const path = absPath(sim);
  const title = kind === "execute" ? `Run ${rng.pick(COMMANDS)}` : `${kind === "_custom" ? "browse" : kind} ${path.split("/").pop()}`;
  update(sim, sessionId, maybeMeta(rng, {
    sessionUpdate: "tool_call_update", toolCallId, name: kind === "execute" ? "Bash" : "Read", title,
    kind: kind === "_custom" ? "_acme/browser" : kind, status: "pending",
    rawInput: rawInput(sim, kind, path), locations: [{ path, line: rng.int(1, 400) }],
    capabilities: { cancel: {} },
  }, 0.1));
  if (kind === "edit" && rng.chance(0.4)) permission(sim, sessionId, toolCallId, title);
  update(sim, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });

  if (kind === "execute") runTerminal(sim, sessionId, toolCallId);
  else if (kind === "read" || kind === "search" || kind === "fetch") {
    const chunks = rng.skewed(1, 4, 2);
    for (let i = 0; i < chunks; i++) update(sim, sessionId, { sessionUpdate: "tool_call_content_chunk", toolCallId,
      content: { type: "content", content: contentBlock(sim, false) } });
  }
  const done: JsonObject = { sessionUpdate: "tool_call_update", toolCallId, status: rng.chance(0.92) ? "completed" : "failed" };
  if (kind === "edit") done.content = [diff(sim, path)];
  if (kind === "_custom") done.content = [{ type: "_acme/screenshot", url: "https://example.com/shot.png", width: 1280 }];
  if (rng.chance(0.5)) done.rawOutput = { exitCode: 0, bytes: rng.int(0, 50_000), truncated: rng.chance(0.1) };
  update(sim, sessionId, done);
}

function rawInput(sim: Sim, kind: string, path: string): Json {
  const { rng } = sim;
  switch (kind) {
    case "execute": return { command: rng.pick(COMMANDS), cwd: sim.cwd, timeout: 120_000 };
    case "edit": return { file_path: path, old_string: rng.pick(CODE_LINES), new_string: rng.pick(CODE_LINES), replace_all: false };
    case "search": return { pattern: rng.pick(["TODO", "parse\\(", "fn main"]), path: sim.cwd, glob: "**/*.ts", head_limit: 50 };
    case "fetch": return { url: "https://docs.example.com/api", prompt: text(rng, 60) };
    default: return { file_path: path, offset: rng.int(0, 200), limit: 2000 };
  }
}

function diff(sim: Sim, path: string): JsonObject {
  const { rng } = sim;
  const lines = [`--- a${path}`, `+++ b${path}`, `@@ -${rng.int(1, 90)},3 +${rng.int(1, 90)},4 @@`];
  for (let i = rng.int(2, 12); i > 0; i--) lines.push(rng.pick([" ", "-", "+"]) + rng.pick(CODE_LINES));
  return { type: "diff", changes: [{ operation: "modify", path, fileType: "text", mimeType: "text/x-typescript" }],
    patch: { format: "git_patch", text: lines.join("\n") + "\n" } };
}

function runTerminal(sim: Sim, sessionId: string, toolCallId: string): void {
  const { rng } = sim;
  const terminalId = `term_${rng.chars("0123456789abcdef", 8)}`;
  update(sim, sessionId, { sessionUpdate: "terminal_update", terminalId, command: rng.pick(COMMANDS), cwd: sim.cwd,
    size: { cols: 120, rows: 32 }, capabilities: { cancel: {} } });
  update(sim, sessionId, { sessionUpdate: "tool_call_content_chunk", toolCallId, content: { type: "terminal", terminalId } });
  const chunks = rng.skewed(1, 30, 2);
  for (let i = 0; i < chunks; i++) update(sim, sessionId, { sessionUpdate: "terminal_output_chunk", terminalId, data: terminalBytes(rng) });
  if (rng.chance(0.1)) update(sim, sessionId, { sessionUpdate: "terminal_update", terminalId, output: { data: terminalBytes(rng) } });
  update(sim, sessionId, { sessionUpdate: "terminal_update", terminalId,
    exitStatus: rng.chance(0.9) ? { exitCode: rng.pick([0, 0, 0, 1, 2, 130]) } : { exitCode: null, signal: "SIGTERM" } });
}

function permission(sim: Sim, sessionId: string, toolCallId: string, title: string): void {
  const { rng } = sim;
  agentCall(sim, "session/request_permission", {
    sessionId, title,
    subject: { type: "tool_call", toolCall: { toolCallId, title, kind: "edit", status: "pending" } },
    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }, { optionId: "always", name: "Always allow", kind: "allow_always" },
      { optionId: "reject", name: "Reject", kind: "reject_once" }],
  }, { outcome: rng.chance(0.9) ? { outcome: "selected", optionId: rng.pick(["allow", "always", "reject"]) } : { outcome: "cancelled" } });
}

// ---- plans and rarer updates -----------------------------------------------------

function planUpdate(sim: Sim, sessionId: string): void {
  const { rng } = sim;
  const planId = rng.chance(0.8) ? "main" : `plan-${rng.int(1, 3)}`;
  const variant = rng.weighted({ items: 80, markdown: 12, file: 4, custom: 4 });
  let plan: JsonObject;
  if (variant === "items") {
    const entries: Json[] = [];
    for (let i = rng.int(2, 8); i > 0; i--) entries.push({ content: text(rng, rng.int(15, 80)), priority: rng.pick(["high", "medium", "low"]),
      status: rng.pick(["pending", "in_progress", "completed"]) });
    plan = { type: "items", planId, entries };
  } else if (variant === "markdown") plan = { type: "markdown", planId, content: `# Plan\n\n- ${text(rng, 60)}\n- ${text(rng, 60)}` };
  else if (variant === "file") plan = { type: "file", planId, uri: `file://${sim.cwd}/PLAN.md` };
  else plan = { type: "_acme/kanban", planId, columns: ["todo", "doing", "done"], cards: rng.int(1, 9) };
  update(sim, sessionId, { sessionUpdate: "plan_update", plan });
  if (rng.chance(0.05)) update(sim, sessionId, { sessionUpdate: "plan_removed", planId });
}

function rareUpdate(sim: Sim, sessionId: string): void {
  const { rng } = sim;
  const which = rng.weighted({ notice: 15, config: 10, compaction: 12, subagent: 12, sessionMessage: 10, custom: 20,
    userChunk: 8, setConfig: 5, ext: 5, cancelRequest: 3 });
  switch (which) {
    case "notice":
      return update(sim, sessionId, { sessionUpdate: "notice", severity: rng.pick(["info", "warning", "error"]), title: text(rng, rng.int(10, 60)) });
    case "config":
      return update(sim, sessionId, { sessionUpdate: "config_option_update", configOptions: configOptions(rng) });
    case "compaction":
      return compaction(sim, sessionId);
    case "subagent":
      return subagent(sim, sessionId);
    case "sessionMessage":
      return update(sim, sessionId, { sessionUpdate: "session_message", messageId: rng.uuid(), senderSessionId: `sess_child${rng.int(1, 9)}`,
        content: [textBlock(rng, text(rng, rng.int(20, 200)))] });
    case "custom":
      return update(sim, sessionId, { sessionUpdate: `${rng.pick(VENDORS)}/${rng.pick(["cursor", "telemetry", "diagnostics"])}`,
        line: rng.int(1, 500), _meta: { "acme/raw": true }, payload: { items: [1, 2, 3], note: text(rng, 20) } });
    case "userChunk":
      return update(sim, sessionId, { sessionUpdate: "user_message_chunk", messageId: rng.uuid(), content: textBlock(rng, chunkText(rng)) });
    case "setConfig":
      return clientCall(sim, "session/set_config_option", { sessionId, configId: "mode", type: "id", value: "code" },
        { configOptions: configOptions(rng) });
    case "ext":
      return notify(sim, `${rng.pick(VENDORS)}/workspace/did_change`, { uri: `file://${absPath(sim)}`, version: rng.int(1, 99) });
    case "cancelRequest":
      return notify(sim, "$/cancel_request", { requestId: sim.nextClientId - 1 });
  }
}

function compaction(sim: Sim, sessionId: string): void {
  const { rng } = sim;
  const compactionId = `cmp_${rng.chars("0123456789", 6)}`;
  update(sim, sessionId, { sessionUpdate: "compaction_update", compactionId, status: "in_progress" });
  for (let i = rng.int(1, 6); i > 0; i--) update(sim, sessionId, { sessionUpdate: "compaction_summary_chunk", compactionId,
    content: textBlock(rng, chunkText(rng)) });
  update(sim, sessionId, { sessionUpdate: "compaction_update", compactionId, status: "completed" });
}

function subagent(sim: Sim, sessionId: string): void {
  const { rng } = sim;
  const child = `sess_child_${rng.chars("0123456789abcdef", 10)}`;
  update(sim, sessionId, { sessionUpdate: "subagent_update", sessionId: child, title: "Explore the codebase",
    capabilities: { cancel: {} }, state: { state: "running" }, cwd: sim.cwd });
  for (let i = rng.int(2, 20); i > 0; i--) update(sim, child, { sessionUpdate: "agent_message_chunk", messageId: `${child}-m`,
    content: textBlock(rng, chunkText(rng)) });
  update(sim, sessionId, { sessionUpdate: "subagent_update", sessionId: child, state: { state: "idle", stopReason: "end_turn" } });
}

// ---------------------------------------------------------------------------
// Irregular messages

/** One way of making a message irregular. `apply` returns false when it does not fit. */
interface Mutation {
  name: string;
  /** Whether the mutated message is still valid under the schema. */
  valid: boolean;
  weight: number;
  apply(message: JsonObject, rng: Rng): boolean;
}

/** Known session updates: the custom `_x` variants keep every property raw and cannot be made invalid this way. */
function knownUpdate(message: JsonObject): JsonObject | undefined {
  if (message.method !== "session/update") return undefined;
  const body = (message.params as JsonObject).update as JsonObject;
  return String(body.sessionUpdate).startsWith("_") ? undefined : body;
}

/** Default-on-error fields per update tag, with a value of the wrong type (S23). */
const BAD_FIELDS: Record<string, ReadonlyArray<[string, Json]>> = {
  tool_call_update: [["title", 42], ["kind", 7], ["status", false], ["locations", "src/index.ts"], ["capabilities", "cancel"]],
  terminal_update: [["size", { cols: 0, rows: 24 }], ["exitStatus", "exited"], ["command", ["npm", "test"]]],
  usage_update: [["cost", "free"]],
  state_update: [["background", "none"], ["_meta", []]],
  session_info_update: [["title", 5], ["updatedAt", 1717243200]],
  user_message: [["content", "hello"]],
  agent_message_chunk: [["_meta", "trace"], ["content.annotations", "user"]],
  agent_thought_chunk: [["_meta", 0], ["content.annotations", { priority: 2 }]],
};

/** Skip-invalid-items arrays per tag, with an invalid item (S24). */
const BAD_ITEMS: Record<string, ReadonlyArray<[string, Json]>> = {
  tool_call_update: [["content", { type: "content" }], ["locations", { line: 3 }], ["content", { type: "diff", changes: "all" }]],
  user_message: [["content", { type: "text" }]],
  available_commands_update: [["availableCommands", { type: "command", name: "broken" }]],
  plan_update: [["entries", { content: "no priority", status: "pending" }]],
};

/** Known ContentBlock / ToolCallContent tags with payloads that do not fit them. */
const BAD_CONTENT_BLOCKS: Json[] = [{ type: "text", text: 5 }, { type: "image", mimeType: "image/png" }, { type: "resource_link", name: "x" }];
const BAD_TOOL_CONTENT: Json[] = [{ type: "terminal" }, { type: "content" }, { type: "diff", changes: 3 }];

const MUTATIONS: Mutation[] = [
  {
    name: "bad-meta", valid: false, weight: 20,
    apply(message, rng) {
      (message.params as JsonObject)._meta = rng.pick(["oops", 42, [], true]);
      return true;
    },
  },
  {
    name: "default-on-error-wrong-type", valid: false, weight: 25,
    apply(message, rng) {
      const body = knownUpdate(message);
      const fields = body && BAD_FIELDS[String(body.sessionUpdate)];
      if (!body || !fields) return false;
      const [path, value] = rng.pick(fields);
      const keys = path.split(".");
      const holder = keys.slice(0, -1).reduce((obj, key) => obj[key] as JsonObject, body);
      holder[keys[keys.length - 1]!] = value;
      return true;
    },
  },
  {
    name: "missing-required-id", valid: false, weight: 15,
    apply(message, rng) {
      const params = message.params as JsonObject | undefined;
      if (!params) return false;
      const body = knownUpdate(message);
      const ids = ["messageId", "toolCallId", "terminalId", "compactionId"].filter((k) => body && k in body);
      if (body && ids.length > 0 && rng.chance(0.8)) delete body[rng.pick(ids)];
      else if ("sessionId" in params) delete params.sessionId;
      else return false;
      return true;
    },
  },
  {
    name: "extra-props", valid: true, weight: 15,
    apply(message, rng) {
      const body = knownUpdate(message) ?? (message.params as JsonObject | undefined);
      if (!body) return false;
      body.x_debug = { seq: rng.int(0, 1e6), host: "agent-7" };
      if (rng.chance(0.3)) body.legacyField = null;
      return true;
    },
  },
  {
    name: "bad-skip-invalid-item", valid: false, weight: 40,
    apply(message, rng) {
      const body = knownUpdate(message);
      const items = body && BAD_ITEMS[String(body.sessionUpdate)];
      if (!body || !items) return false;
      const [key, item] = rng.pick(items);
      const holder = key === "entries" ? (body.plan as JsonObject) : body;
      const list = holder[key];
      if (key === "entries" && !Array.isArray(list)) return false;
      holder[key] = [...(Array.isArray(list) ? list : []), item];
      return true;
    },
  },
  {
    name: "known-tag-bad-payload", valid: false, weight: 10,
    apply(message, rng) {
      const body = knownUpdate(message);
      if (!body) return false;
      if ("content" in body && !Array.isArray(body.content)) {
        // Chunks carry one content item: make it a known type with a bad payload (S27).
        body.content = rng.pick(body.sessionUpdate === "tool_call_content_chunk" ? BAD_TOOL_CONTENT : BAD_CONTENT_BLOCKS);
      } else if (body.sessionUpdate === "tool_call_update" || body.sessionUpdate === "terminal_update") {
        // A known update tag on a payload of another update.
        body.sessionUpdate = rng.pick(["agent_message_chunk", "plan_update"]);
      } else return false;
      return true;
    },
  },
];

/** Extension methods are typed `{}` (anything goes), so they are never mutated. */
function mutable(message: JsonObject): boolean {
  return typeof message.method === "string" && !message.method.startsWith("_");
}

/** Applies one fitting mutation (weighted pick, without replacement) and re-serializes; false if none fits. */
function mutate(entry: CorpusEntry, rng: Rng): boolean {
  const message = JSON.parse(entry.json) as JsonObject;
  if (!mutable(message)) return false;
  const candidates = new Map(MUTATIONS.map((m) => [m.name, m]));
  while (candidates.size > 0) {
    const name = rng.weighted(Object.fromEntries([...candidates].map(([n, m]) => [n, m.weight])));
    const mutation = candidates.get(name)!;
    candidates.delete(name);
    if (!mutation.apply(message, rng)) continue;
    entry.json = JSON.stringify(message);
    entry.mutation = mutation.name;
    entry.intendedValid = mutation.valid;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Entry points

/** Generates the corpus with its per-message metadata. */
export function generateCorpusEntries(options: CorpusOptions = {}): CorpusEntry[] {
  const { seed = DEFAULT_SEED, size = DEFAULT_SIZE, irregularRate = 0.05 } = options;
  const rng = new Rng(seed);
  const sim: Sim = { rng, out: [], nextClientId: 0, nextAgentId: 0, cwd: "/" };
  while (sim.out.length < size) {
    initialize(sim);
    const sessionId = newSession(sim);
    for (let turns = rng.int(2, 12); turns > 0 && sim.out.length < size; turns--) promptTurn(sim, sessionId);
    if (rng.chance(0.1)) emit(sim, "error", { jsonrpc: "2.0", id: sim.nextClientId++, error: { code: -32601, message: "Method not found" } });
  }
  const entries = sim.out.slice(0, size);
  // Requests and responses carry the routing; only payloads of non-response messages get mutated.
  const mutRng = new Rng(seed ^ 0x5eed);
  for (const entry of entries) {
    if (entry.kind.startsWith("response:") || entry.kind === "error") continue;
    if (mutRng.chance(irregularRate * 1.05)) mutate(entry, mutRng);
  }
  return entries;
}

/** The corpus as JSON strings, one message each. */
export function generateCorpus(options: CorpusOptions = {}): string[] {
  return generateCorpusEntries(options).map((e) => e.json);
}

/** Writes the corpus as JSONL (git-ignored) and returns the path. */
export function writeCorpus(path: string = CORPUS_PATH, options: CorpusOptions = {}): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, generateCorpus(options).join("\n") + "\n");
  return path;
}

/** Bytes a reader of a pipe gets at most per read on Linux (and Node's default for its stdio streams). */
const READ_BYTES = 64 * 1024;

/**
 * The lines cut into batches of at most 64 KiB (a line that would not fit
 * starts the next batch), each with the index of its first line: about the
 * batches a connection's reader gets from a pipe that the peer keeps full
 * (a real read ends mid-line, and the reader keeps that line for the next).
 */
export function readsOf(lines: readonly string[]): { start: number; texts: string[] }[] {
  const reads: { start: number; texts: string[] }[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const size = Buffer.byteLength(lines[i]!) + 1;
    if (i > start && bytes + size > READ_BYTES) {
      reads.push({ start, texts: lines.slice(start, i) });
      start = i;
      bytes = 0;
    }
    bytes += size;
  }
  if (start < lines.length) reads.push({ start, texts: lines.slice(start) });
  return reads;
}

/** Reads `--name VALUE` from argv. */
export function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Reads `--name N` from argv. */
export function numberArg(name: string): number | undefined {
  const text = stringArg(name);
  return text === undefined ? undefined : Number(text);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const path = writeCorpus(CORPUS_PATH, { seed: numberArg("seed"), size: numberArg("size") });
  console.log(`wrote ${path}`);
}
