/**
 * A proxy chain in memory: our v2/unstable client -> `chain` (the conductor)
 * -> two `forwardingProxy`s with examples/note-proxy.ts's hooks -> a scripted
 * v2/unstable agent. The turn passes through (streamed updates, a permission
 * request), each proxy's line reaches the agent and each logs the tool calls,
 * a cancelled request is cancelled at the agent, `session/cancel` arrives,
 * and unknown methods and `_meta` pass unchanged (also on the raw wire, where
 * the conductor's `proxy/initialize` and `proxy/successor` are visible).
 * On stdio, examples/chain.ts with two note proxies and the example agent is
 * driven by our example client and by the official SDK's v2 client (a turn,
 * then a turn ended by `session/cancel`).
 */
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client as sdkClient, ndJsonStream as sdkNdJsonStream } from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import { noteProxy } from "../examples/note-proxy.js";
import {
  type AgentHandlers,
  chain,
  type ClientPeer,
  connectAgent,
  connectClient,
  conduct,
  createSessionStore,
  forwardingProxy,
  inMemoryTransports,
  PROTOCOL_VERSION,
  type PromptRequest,
  type Transport,
} from "../generated/src/v2/unstable/index.js";
import { ROOT } from "./support/ir.js";

/** What the scripted agent saw. */
interface Seen {
  prompts: PromptRequest[];
  cancelledSessions: string[];
  abortedRequests: string[];
  ext: unknown[];
}

/** A v2/unstable agent with one scripted turn: a tool call, a permission request, a reply, idle. */
function scriptedAgent(client: () => ClientPeer, seen: Seen): AgentHandlers {
  return {
    initialize: () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "scripted-agent", version: "1.0.0" } }),
    "session/new": () => ({ sessionId: "s1" }),
    "session/prompt": (params) => {
      seen.prompts.push(params);
      void turn(client(), params.sessionId);
      return { messageId: "u1" };
    },
    "session/cancel": (params) => void seen.cancelledSessions.push(params.sessionId),
    // Never answers on its own: only its cancellation (`$/cancel_request` through every hop) ends it.
    "session/status": (_params, { signal }) =>
      new Promise((_resolve, reject) => signal.addEventListener("abort", () => (seen.abortedRequests.push("session/status"), reject(new Error("aborted"))), { once: true })),
  };
}

async function turn(client: ClientPeer, sessionId: string): Promise<void> {
  const toolCall = { toolCallId: "t1", title: "Read a file", kind: "read", status: "pending" } as const;
  await client.notify("session/update", { sessionId, update: { sessionUpdate: "state_update", state: "running" } });
  await client.notify("session/update", { sessionId, update: { sessionUpdate: "tool_call_update", ...toolCall } });
  const answer = await client.request("session/request_permission", {
    sessionId,
    title: "Read a file?",
    subject: { type: "tool_call", toolCall },
    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
  });
  const allowed = answer.outcome.outcome === "selected";
  await client.notify("session/update", { sessionId, update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: allowed ? "completed" : "failed" } });
  await client.notify("session/update", { sessionId, update: { sessionUpdate: "agent_message_chunk", messageId: "r1", content: { type: "text", text: "done" } } });
  await client.notify("session/update", { sessionId, update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" } });
}

/** Two note proxies and the scripted agent, in memory, behind `chain`. */
function setUp() {
  const seen: Seen = { prompts: [], cancelledSessions: [], abortedRequests: [], ext: [] };
  const logs: string[] = [];
  const errors: Error[] = [];
  const proxies = ["A", "B"].map((name) => {
    const [conductorSide, proxySide] = inMemoryTransports();
    forwardingProxy(proxySide, { ...noteProxy(`note from ${name}`, (entry) => logs.push(`${name}: ${entry}`)), onError: (e) => errors.push(e) });
    return conductorSide;
  });
  const [conductorSide, agentSide] = inMemoryTransports();
  const client: ClientPeer = connectAgent(agentSide, scriptedAgent(() => client, seen), {
    onExtRequest: (method, params) => (seen.ext.push({ method, params }), { echoed: params }),
  });
  const sessions = createSessionStore();
  const permissions: string[] = [];
  const agent = connectClient(chain(proxies, conductorSide, { onError: (e) => errors.push(e) }), {
    "session/update": sessions.update,
    "session/request_permission": (params) => (permissions.push(params.title ?? ""), { outcome: { outcome: "selected", optionId: "allow" } }),
  });
  return { agent, seen, logs, errors, sessions, permissions };
}

/** Resolves once `check` holds (polling the event loop). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}

describe("a chain of two proxies and an agent", () => {
  it("passes a turn through: the proxies' lines reach the agent, both log the tool calls, the client sees every update", async () => {
    const { agent, seen, logs, errors, sessions, permissions } = setUp();
    const init = await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "test-client", version: "1" } });
    expect(init.info.name).toBe("scripted-agent");
    const { sessionId } = await agent.request("session/new", { cwd: "/" });
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }], _meta: { trace: "abc" } });
    await until(() => sessions.get(sessionId)?.state.state === "idle");
    const prompt = seen.prompts[0]!;
    expect(prompt.prompt.map((block) => (block.type === "text" ? block.text : ""))).toEqual(["hello", "note from A", "note from B"]);
    expect(prompt._meta).toEqual({ trace: "abc" });
    expect(permissions).toEqual(["Read a file?"]);
    expect(logs).toEqual(["B: tool call t1: pending", "A: tool call t1: pending", "B: tool call t1: completed", "A: tool call t1: completed"]);
    const state = sessions.get(sessionId)!;
    expect(state.toolCalls.get("t1")?.status).toBe("completed");
    expect(errors).toEqual([]);
    agent.close();
  });

  it("carries cancellation to the agent: $/cancel_request hop by hop, and session/cancel", async () => {
    const { agent, seen, errors } = setUp();
    const controller = new AbortController();
    const loading = agent.request("session/status", { sessionId: "s1" }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await expect(loading).rejects.toMatchObject({ code: -32800 });
    await until(() => seen.abortedRequests.length === 1);
    await agent.notify("session/cancel", { sessionId: "s1" });
    await until(() => seen.cancelledSessions.length === 1);
    expect(errors).toEqual([]);
    agent.close();
  });

  it("passes extension methods and their _meta through both ways", async () => {
    const { agent, seen } = setUp();
    const params = { value: [1, { deep: true }], _meta: { "x-key": "kept" } };
    await expect(agent.extRequest("_vendor/echo", params)).resolves.toEqual({ echoed: params });
    expect(seen.ext).toEqual([{ method: "_vendor/echo", params }]);
    agent.close();
  });
});

/** A transport whose lines the test writes and reads itself. */
function rawEnd(transport: Transport): { lines: unknown[]; send(message: object): Promise<void> } {
  const lines: unknown[] = [];
  transport.start({ line: (text) => void lines.push(JSON.parse(text)), problem: () => {}, end: () => {} });
  return { lines, send: (message) => transport.send(JSON.stringify(message)) };
}

describe("the conductor on the wire", () => {
  it("sends proxy/initialize to a proxy, initialize to the agent, and relays an unknown method and its answer unchanged", async () => {
    const [clientSide, clientEnd] = inMemoryTransports();
    const [proxyConductorSide, proxySide] = inMemoryTransports();
    const [agentConductorSide, agentSide] = inMemoryTransports();
    const conductor = conduct(clientEnd, [proxyConductorSide], agentConductorSide);
    const client = rawEnd(clientSide);
    const proxy = rawEnd(proxySide);
    const agent = rawEnd(agentSide);
    await client.send({ jsonrpc: "2.0", id: "i", method: "initialize", params: { protocolVersion: 2 } });
    await until(() => proxy.lines.length === 1);
    expect(proxy.lines[0]).toEqual({ jsonrpc: "2.0", id: 1, method: "proxy/initialize", params: { protocolVersion: 2 } });
    await proxy.send({ jsonrpc: "2.0", id: 7, method: "proxy/successor", params: { method: "initialize", params: { protocolVersion: 2 }, _meta: { hop: "local" } } });
    await until(() => agent.lines.length === 1);
    expect(agent.lines[0]).toEqual({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 2 } });
    await agent.send({ jsonrpc: "2.0", id: 1, result: { protocolVersion: 2, _meta: { a: 1 } } });
    await until(() => proxy.lines.length === 2);
    expect(proxy.lines[1]).toEqual({ jsonrpc: "2.0", id: 7, result: { protocolVersion: 2, _meta: { a: 1 } } });
    await proxy.send({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "nope", data: { _meta: { b: 2 } } } });
    await until(() => client.lines.length === 1);
    expect(client.lines[0]).toEqual({ jsonrpc: "2.0", id: "i", error: { code: -32001, message: "nope", data: { _meta: { b: 2 } } } });
    // From the agent towards the client: the conductor wraps it for the proxy.
    await agent.send({ jsonrpc: "2.0", method: "mystery/notice", params: { x: 1, _meta: { c: 3 } } });
    await until(() => proxy.lines.length === 3);
    expect(proxy.lines[2]).toEqual({ jsonrpc: "2.0", method: "proxy/successor", params: { method: "mystery/notice", params: { x: 1, _meta: { c: 3 } } } });
    conductor.close();
    await conductor.closed;
  });

  it("a forwarding proxy relays an unknown request both ways, and answers a malformed proxy/successor with -32602", async () => {
    const [conductorSide, proxySide] = inMemoryTransports();
    forwardingProxy(proxySide);
    const conductor = rawEnd(conductorSide);
    await conductor.send({ jsonrpc: "2.0", id: 3, method: "mystery/ask", params: { q: 1, _meta: { m: true } } });
    await until(() => conductor.lines.length === 1);
    expect(conductor.lines[0]).toEqual({ jsonrpc: "2.0", id: 1, method: "proxy/successor", params: { method: "mystery/ask", params: { q: 1, _meta: { m: true } } } });
    await conductor.send({ jsonrpc: "2.0", id: 1, result: { a: 42 } });
    await until(() => conductor.lines.length === 2);
    expect(conductor.lines[1]).toEqual({ jsonrpc: "2.0", id: 3, result: { a: 42 } });
    await conductor.send({ jsonrpc: "2.0", id: 4, method: "proxy/successor", params: { method: "mystery/back", params: [1, 2] } });
    await until(() => conductor.lines.length === 3);
    expect(conductor.lines[2]).toEqual({ jsonrpc: "2.0", id: 2, method: "mystery/back", params: [1, 2] });
    await conductor.send({ jsonrpc: "2.0", id: 5, method: "proxy/successor", params: { params: {} } });
    await until(() => conductor.lines.length === 4);
    expect(conductor.lines[3]).toMatchObject({ jsonrpc: "2.0", id: 5, error: { code: -32602 } });
  });
});

/** The README's stdio chain, run as written (a shell line). */
const STDIO_CHAIN = 'npx tsx examples/v2-client.ts npx tsx examples/chain.ts "npx tsx examples/note-proxy.ts A" "npx tsx examples/note-proxy.ts B" "npx tsx examples/v2-agent.ts"';

describe("the stdio chain of the README", () => {
  it("runs the example client through two note proxies to the example agent, each a child process", async () => {
    const child = spawn(STDIO_CHAIN, { cwd: ROOT, shell: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    const [turn] = stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(turn).toMatchObject({ agent: "example-agent", replies: ["You said: hello agent A B"], stopReason: "end_turn" });
    expect(stderr).toContain("note-proxy: tool call tool-1: completed");
  }, 60_000);
});

/** The conductor on stdio with two note proxies and the example agent, each a child process. */
const STDIO_CONDUCTOR = 'npx tsx examples/chain.ts "npx tsx examples/note-proxy.ts A" "npx tsx examples/note-proxy.ts B" "npx tsx examples/v2-agent.ts"';

describe("the SDK's client through the chain", () => {
  it("drives examples/chain.ts (two note proxies, the example agent): a turn passes through and ends, session/cancel ends the next", async () => {
    const child = spawn(STDIO_CONDUCTOR, { cwd: ROOT, shell: true, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.on("error", () => {});
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    const replies: string[] = [];
    const permissions: string[] = [];
    let turnEnded: (stopReason: string) => void = () => {};
    let permissionAsked: () => void = () => {};
    let holdPermission: Promise<void> | undefined;
    const app = sdkClient({ name: "sdk-client" })
      .onRequest("session/request_permission", async ({ params }) => {
        permissions.push(params.title);
        permissionAsked();
        if (holdPermission) await holdPermission; // the second turn: answered only after its cancellation
        return { outcome: { outcome: "selected", optionId: "allow" } };
      })
      .onNotification("session/update", async ({ params }) => {
        const update = params.update;
        if (update.sessionUpdate === "agent_message_chunk") {
          const content = update.content as { type?: string; text?: string };
          if (content.type === "text" && typeof content.text === "string") replies.push(content.text);
        }
        if (update.sessionUpdate === "state_update" && update.state === "idle" && "stopReason" in update && typeof update.stopReason === "string") turnEnded(update.stopReason);
      });
    const stream = sdkNdJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const outcome = await app.connectWith(stream, async (agent) => {
      const init = await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "sdk-client", version: "2.4.0" } });
      const { sessionId } = await agent.request("session/new", { cwd: "/tmp", mcpServers: [] });
      let ended = new Promise<string>((resolve) => (turnEnded = resolve));
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
      const first = await ended;
      const reply = replies.join("");
      // The second turn: the permission request is held; session/cancel (through both proxies) ends the turn.
      let release: () => void = () => {};
      holdPermission = new Promise<void>((resolve) => (release = resolve));
      const asked = new Promise<void>((resolve) => (permissionAsked = resolve));
      ended = new Promise<string>((resolve) => (turnEnded = resolve));
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
      await asked;
      await agent.notify("session/cancel", { sessionId });
      const second = await ended;
      release();
      return { name: init.info?.name, first, reply, second };
    });
    child.stdin.end();
    await closed;
    expect(outcome).toEqual({ name: "example-agent", first: "end_turn", reply: "You said: hello agent A B", second: "cancelled" });
    expect(permissions).toEqual(["Read the prompt?", "Read the prompt?"]);
    expect(stderr).toContain("note-proxy: tool call tool-1: completed");
  }, 60_000);
});

/** bench/chain.bench.ts in its quick form (the README shows it next to the full run). */
const CHAIN_BENCH_QUICK = "npx tsx bench/chain.bench.ts --trips 200 --rounds 1";

describe("the chain's bench", () => {
  it("runs in its quick form and prints its table (no speed asserted)", async () => {
    const child = spawn(CHAIN_BENCH_QUICK, { cwd: ROOT, shell: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
    for (const row of ["0 proxies", "1 proxy", "2 proxies", "added per hop \\(1 proxy\\)", "added per hop \\(2 proxies\\)"]) {
      expect(stdout).toMatch(new RegExp(`^\\| ${row} \\| -?[\\d.]+ \\| -?[\\d.]+--?[\\d.]+ \\|$`, "m"));
    }
  }, 60_000);
});
