/**
 * Interop of our server (createAcpServer behind nodeHttpHandler and
 * nodeWebSocketUpgrade) with the official SDK's clients (@agentclientprotocol/sdk
 * 2.4.0: `createHttpStream`, `createWebSocketStream` with the `ws` package),
 * ACP v2 and v1: initialize, session/new, session/prompt with streamed
 * updates (a thought, a plan, a tool call, message chunks), a
 * session/request_permission round trip, and a cancelled turn.
 */
import * as sdkV1 from "@agentclientprotocol/sdk";
import { client as sdkClient, type UpdateSessionNotification } from "@agentclientprotocol/sdk/experimental/v2";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { PROTOCOL_VERSION } from "../generated/src/v2/index.js";
import { type Served, serve, v1Agent, v2Agent } from "./support/http-agents.js";

const servers: Served[] = [];

afterEach(async () => {
  for (const served of servers.splice(0)) await served.stop();
});

async function started(connect: Parameters<typeof serve>[0]["connect"]): Promise<Served> {
  const served = await serve({ connect });
  servers.push(served);
  return served;
}

type SdkStream = ReturnType<typeof createHttpStream>;

const transports: [string, (served: Served) => SdkStream][] = [
  ["Streamable HTTP", (served) => createHttpStream(served.url)],
  ["WebSocket", (served) => createWebSocketStream(served.wsUrl, { WebSocket: WebSocket as never })],
];

describe.each(transports)("the SDK's v2 client over %s", (_name, open) => {
  it("drives a turn (updates, a permission round trip) and a cancelled turn", async () => {
    const served = await started(v2Agent());
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
    const outcome = await app.connectWith(open(served), async (agent) => {
      const init = await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "sdk-client", version: "2.4.0" } });
      const { sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      let ended = new Promise<string>((resolve) => (turnEnded = resolve));
      const accepted = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
      const first = await ended;
      const replies = updates.flatMap((n) => (n.update.sessionUpdate === "agent_message_chunk" ? [(n.update.content as { text?: string }).text ?? ""] : [])).join("");
      const kinds = updates.map((n) => n.update.sessionUpdate);
      ended = new Promise<string>((resolve) => (turnEnded = resolve));
      const before = updates.length;
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
      while (updates.length <= before + 1) await new Promise((resolve) => setTimeout(resolve, 2));
      await agent.notify("session/cancel", { sessionId });
      const second = await ended;
      return { name: init.info?.name, sessionId, accepted, first, second, kinds, replies };
    });
    expect(outcome).toMatchObject({ name: "http-agent", sessionId: "session-1", accepted: { messageId: "user-1" }, first: "end_turn", second: "cancelled", replies: "You said: hello agent" });
    expect(new Set(outcome.kinds)).toEqual(new Set(["state_update", "agent_thought_chunk", "plan_update", "tool_call_update", "agent_message_chunk"]));
    expect(permissions).toEqual(["Read the prompt?"]);
  }, 30_000);
});

/** The v1 turn as a client sees it: update kinds in order ("You said: hello agent" is four chunks). */
const V1_KINDS = ["agent_thought_chunk", "plan", "tool_call", "tool_call_update", "plan", ...Array(4).fill("agent_message_chunk")];

const v1Transports: [string, (served: Served) => sdkV1.Stream][] = [
  ["Streamable HTTP", (served) => createHttpStream(served.url) as unknown as sdkV1.Stream],
  ["WebSocket", (served) => createWebSocketStream(served.wsUrl, { WebSocket: WebSocket as never }) as unknown as sdkV1.Stream],
];

describe.each(v1Transports)("the SDK's v1 client over %s", (_name, open) => {
  it("drives a v1 turn (the prompt response ends it) and a cancelled turn", async () => {
    const served = await started(v1Agent());
    const kinds: string[] = [];
    const app = sdkV1
      .client({ name: "sdk-v1-client" })
      .onRequest("session/request_permission", async () => ({ outcome: { outcome: "selected", optionId: "allow" } }))
      .onNotification("session/update", async ({ params }) => void kinds.push(params.update.sessionUpdate));
    const outcome = await app.connectWith(open(served), async (agent) => {
      const init = await agent.request("initialize", { protocolVersion: sdkV1.PROTOCOL_VERSION });
      const { sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const first = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
      const turnKinds = kinds.splice(0);
      const second = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
      while (kinds.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      await agent.notify("session/cancel", { sessionId });
      return { name: init.agentInfo?.name, first: first.stopReason, second: (await second).stopReason, turnKinds };
    });
    expect(outcome).toEqual({ name: "http-v1-agent", first: "end_turn", second: "cancelled", turnKinds: V1_KINDS });
  }, 30_000);
});
