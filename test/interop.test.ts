/**
 * Interop with the official SDK (@agentclientprotocol/sdk 2.4.0, ACP v2) over
 * real child processes speaking over stdio, both directions, and our two
 * example programs with each other. Each example runs with the command the
 * README gives for it. A turn: initialize -> session/new -> session/prompt
 * with streamed updates (thought and message chunks, plan, tool call and its
 * updates) -> session/request_permission -> an idle state_update with
 * end_turn; then a cancelled prompt; and an unknown method.
 */
import { tmpdir } from "node:os";
import { Readable, Writable } from "node:stream";
import * as sdkV1 from "@agentclientprotocol/sdk";
import { client as sdkClient, ndJsonStream as sdkNdJsonStream, type UpdateSessionNotification } from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import { commandLineStarter, runCommandLine } from "./support/command-lines.js";
import * as v1 from "../generated/src/v1/index.js";
import { connectClient, ndJsonStream, PROTOCOL_VERSION, RequestError } from "../generated/src/v2/index.js";
import { CONNECTION_COMMANDS, V1_COMMANDS } from "./support/connection-readme.js";

const run = runCommandLine;
const start = commandLineStarter();



/** What examples/v2-client.ts prints for one agent: the finished turn, then the cancelled one. */
/** What examples/v2-client.ts prints: the two turns, then, when the agent has the session methods, its listing and the resume's replay. */
function expectedTranscript(agent: string, sessionId: string, sessionMethods = false) {
  const listed = [{ listed: [{ sessionId, title: "hello agent", additionalDirectories: [tmpdir()] }] }, { resumed: sessionId, state: "idle", prompts: ["hello agent", "a long task"] }];
  return [
    {
      agent,
      sessionId,
      thoughts: ["Planning the answer."],
      replies: ["You said: hello agent"],
      plans: [["Read the prompt: completed"]],
      toolCalls: ["Read the prompt: completed"],
      stopReason: "end_turn",
    },
    { sessionId, stopReason: "cancelled" },
    ...(sessionMethods ? listed : []),
  ];
}

function jsonLines(text: string): unknown[] {
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

describe("examples and the SDK over stdio", () => {
  it(`${CONNECTION_COMMANDS.client}: our client drives our agent`, async () => {
    const result = await run(CONNECTION_COMMANDS.client);
    expect(result.stderr).toBe("");
    expect(jsonLines(result.stdout)).toEqual(expectedTranscript("example-agent", "session-1", true));
    expect(result.code).toBe(0);
  });

  it(`${CONNECTION_COMMANDS.clientOnSdkAgent}: our client drives the SDK's agent`, async () => {
    const result = await run(CONNECTION_COMMANDS.clientOnSdkAgent);
    expect(result.stderr).toBe("");
    expect(jsonLines(result.stdout)).toEqual(expectedTranscript("sdk-agent", "sdk-session-1"));
    expect(result.code).toBe(0);
  });

  it(`the SDK's client drives ${CONNECTION_COMMANDS.agent}: a turn, a cancelled turn, an unknown method`, async () => {
    const child = start(CONNECTION_COMMANDS.agent);
    const updates: UpdateSessionNotification[] = [];
    const permissions: string[] = [];
    let turnEnded: (stopReason: string) => void = () => {};
    const app = sdkClient({ name: "sdk-client" })
      .onRequest("session/request_permission", async ({ params }) => {
        permissions.push(params.title);
        return { outcome: { outcome: "selected", optionId: "allow" } };
      })
      .onNotification("session/update", async ({ params }) => {
        updates.push(params);
        const update = params.update;
        if (update.sessionUpdate === "state_update" && update.state === "idle" && "stopReason" in update && typeof update.stopReason === "string") turnEnded(update.stopReason);
      });
    const stream = sdkNdJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const outcome = await app.connectWith(stream, async (agent) => {
      const init = await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "sdk-client", version: "2.4.0" } });
      const { sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      let ended = new Promise<string>((resolve) => (turnEnded = resolve));
      const accepted = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
      const first = await ended;
      const kinds = updates.map((n) => n.update.sessionUpdate);
      ended = new Promise<string>((resolve) => (turnEnded = resolve));
      const before = updates.length;
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
      while (updates.length === before) await new Promise((resolve) => setTimeout(resolve, 2));
      await agent.notify("session/cancel", { sessionId });
      const second = await ended;
      const unknown = await agent.request("example/unknown", {}).catch((error: { code?: number }) => error.code);
      return { name: init.info?.name, sessionId, accepted, first, second, kinds, unknown };
    });
    expect(outcome).toMatchObject({ name: "example-agent", sessionId: "session-1", accepted: { messageId: "user-1" }, first: "end_turn", second: "cancelled", unknown: -32601 });
    expect(new Set(outcome.kinds)).toEqual(new Set(["state_update", "user_message", "agent_thought_chunk", "plan_update", "tool_call_update", "agent_message_chunk"]));
    expect(outcome.kinds.at(-1)).toBe("state_update");
    expect(permissions).toEqual(["Read the prompt?"]);
  });

  it("our client gets -32601 from the SDK's agent for an unknown method, and the connection goes on", async () => {
    const child = start("npx tsx test/interop/sdk-agent.ts");
    const agent = connectClient(ndJsonStream({ readable: child.stdout, writable: child.stdin }), {});
    await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "ours", version: "1" } });
    const error = await agent.extRequest("_example/unknown", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ code: -32601 });
    expect(await agent.request("session/new", { cwd: "/tmp" })).toEqual({ sessionId: "sdk-session-1" });
    agent.close();
  });
});

/** The v1 turn as a client sees it: update kinds in order ("You said: hello agent" is four chunks). */
const V1_KINDS = ["agent_thought_chunk", "plan", "tool_call", "tool_call_update", "plan", ...Array(4).fill("agent_message_chunk")];

/**
 * S36: our v1 client with its session store runs two turns against a v1 agent in a child
 * process; the transcript, as the timeline lists it, is prompt, reply, prompt, reply.
 */
async function twoTurnsOnOurV1Client(command: string): Promise<{ kind: string; text: string }[]> {
  const child = start(command);
  const sessions = v1.createSessionStore();
  const agent = v1.connectClient(v1.ndJsonStream({ readable: child.stdout, writable: child.stdin }), {
    "session/update": sessions.update,
    "session/request_permission": () => ({ outcome: { outcome: "selected", optionId: "allow" } }),
  });
  await agent.request("initialize", { protocolVersion: v1.PROTOCOL_VERSION });
  const { sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  for (const said of ["hello there", "and again"]) await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: said }] });
  const state = sessions.get(sessionId)!;
  agent.close();
  const textOf = (message: { content: readonly v1.ContentBlock[] }) => message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  return state.timeline.flatMap(({ kind, id }) =>
    kind === "userMessages" || kind === "agentMessages" ? [{ kind, text: textOf(state[kind].get(id)!) }] : [],
  );
}

describe("S36 over stdio: v1 messages without ids, grouped by position and by turn", () => {
  const transcript = [
    { kind: "userMessages", text: "hello there" },
    { kind: "agentMessages", text: "You said: hello there" },
    { kind: "userMessages", text: "and again" },
    { kind: "agentMessages", text: "You said: and again" },
  ];

  it.each([
    ["our v1 agent", V1_COMMANDS.agent],
    ["the SDK's v1 agent", "npx tsx test/interop/sdk-agent-v1.ts"],
  ])("our v1 client and %s: two turns are two user and two agent messages, in timeline order", async (_agent, command) => {
    expect(await twoTurnsOnOurV1Client(command)).toEqual(transcript);
  });
});

describe("ACP v1 over stdio (the turn ends with the prompt response)", () => {
  const v1Turn = (agent: string, sessionId: string) => ({
    agent,
    sessionId,
    thoughts: ["Planning the answer."],
    replies: ["You said: hello agent"],
    plan: ["Read the prompt: completed"],
    toolCalls: ["Read the prompt: completed"],
    stopReason: "end_turn",
  });

  it(`${V1_COMMANDS.client}: our v1 client drives our v1 agent: a turn, a cancelled turn, the session listed, closed and loaded again (replayed)`, async () => {
    const result = await runCommandLine(V1_COMMANDS.client);
    expect(result.stderr).toBe("");
    expect(jsonLines(result.stdout)).toEqual([
      v1Turn("example-v1-agent", "session-1"),
      { sessionId: "session-1", stopReason: "cancelled" },
      { listed: [{ sessionId: "session-1", title: "hello agent", additionalDirectories: [tmpdir()] }] },
      { loaded: "session-1", replayedPrompts: 2 },
    ]);
    expect(result.code).toBe(0);
  });

  it(`${V1_COMMANDS.clientOnSdkAgent}: our v1 client drives the SDK's v1 agent (no session methods advertised: two turns)`, async () => {
    const result = await runCommandLine(V1_COMMANDS.clientOnSdkAgent);
    expect(result.stderr).toBe("");
    expect(jsonLines(result.stdout)).toEqual([v1Turn("sdk-v1-agent", "sdk-v1-session"), { sessionId: "sdk-v1-session", stopReason: "cancelled" }]);
    expect(result.code).toBe(0);
  });

  it("the SDK's v1 client drives our v1 agent: a turn, a cancelled turn, an unknown method", async () => {
    const child = start(V1_COMMANDS.agent);
    const kinds: string[] = [];
    const app = sdkV1
      .client({ name: "sdk-v1-client" })
      .onRequest("session/request_permission", async () => ({ outcome: { outcome: "selected", optionId: "allow" } }))
      .onNotification("session/update", async ({ params }) => void kinds.push(params.update.sessionUpdate));
    const stream = sdkV1.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const outcome = await app.connectWith(stream, async (agent) => {
      const init = await agent.request("initialize", { protocolVersion: sdkV1.PROTOCOL_VERSION });
      const { sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const first = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
      const turnKinds = kinds.splice(0);
      const second = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
      while (kinds.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      await agent.notify("session/cancel", { sessionId });
      const unknown = await agent.request("example/unknown", {}).catch((error: { code?: number }) => error.code);
      return { name: init.agentInfo?.name, first: first.stopReason, second: (await second).stopReason, turnKinds, unknown };
    });
    expect(outcome).toEqual({ name: "example-v1-agent", first: "end_turn", second: "cancelled", turnKinds: V1_KINDS, unknown: -32601 });
  });

  it("our v1 client drives the SDK's v1 agent: a turn reduced into the session store, a cancelled turn, an unknown method", async () => {
    const child = start("npx tsx test/interop/sdk-agent-v1.ts");
    const sessions = v1.createSessionStore();
    const kinds: string[] = [];
    const agent = v1.connectClient(v1.ndJsonStream({ readable: child.stdout, writable: child.stdin }), {
      "session/update": (params) => {
        kinds.push(params.update.sessionUpdate);
        sessions.update(params);
      },
      "session/request_permission": () => ({ outcome: { outcome: "selected", optionId: "allow" } }),
    });
    const init = await agent.request("initialize", { protocolVersion: v1.PROTOCOL_VERSION });
    const { sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
    const first = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
    const state = sessions.get(sessionId)!;
    expect({ name: init.agentInfo?.name, stopReason: first.stopReason, kinds: kinds.splice(0) }).toEqual({ name: "sdk-v1-agent", stopReason: "end_turn", kinds: V1_KINDS });
    expect(state.toolCalls.get("tool-1")).toMatchObject({ title: "Read the prompt", status: "completed" });
    expect(state.plan?.entries).toEqual([{ content: "Read the prompt", priority: "high", status: "completed" }]);
    const second = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
    while (kinds.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    await agent.notify("session/cancel", { sessionId });
    expect((await second).stopReason).toBe("cancelled");
    await expect(agent.extRequest("_example/unknown", {})).rejects.toMatchObject({ code: -32601 });
    agent.close();
  });
});
