/**
 * Our client's network transports against the official SDK's server
 * (@agentclientprotocol/sdk 2.4.0: `AcpServer` with its Node adapters,
 * `createNodeHttpHandler` and `createNodeWebSocketUpgradeHandler` over a `ws`
 * `WebSocketServer({ noServer: true })`), on 127.0.0.1, with the SDK agents of
 * test/interop/sdk-agents.ts behind it. Over `httpTransport` and
 * `webSocketTransport` (the `ws` package's `WebSocket`), v2 and v1: a turn
 * with streamed chunks, a plan, a tool call and a permission round trip
 * answered by our client, then a cancelled turn; and the v1 reconnect path
 * (the connection dropped, a new transport, `initialize`, `loadSession`,
 * `session/load`).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AcpServer, type HandleRequestOptions } from "@agentclientprotocol/sdk/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import * as v1 from "../generated/src/v1/index.js";
import { connectClient, httpTransport, PROTOCOL_VERSION, type SessionUpdate, type Transport, webSocketTransport } from "../generated/src/v2/index.js";
import { sdkAgentV1, sdkAgentV2 } from "./interop/sdk-agents.js";

/** An SDK server on 127.0.0.1 serving `agent` over HTTP and WebSocket at /acp. */
interface Served {
  readonly http: string;
  readonly ws: string;
  close(): Promise<void>;
}

const servers: Served[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((served) => served.close()));
});

async function serve(agent: NonNullable<HandleRequestOptions["agent"]>): Promise<Served> {
  const acp = new AcpServer({ agent });
  const sockets = new WebSocketServer({ noServer: true });
  const server: Server = createServer(createNodeHttpHandler(acp));
  server.on("upgrade", createNodeWebSocketUpgradeHandler(acp, sockets));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const served: Served = {
    http: `http://127.0.0.1:${port}/acp`,
    ws: `ws://127.0.0.1:${port}/acp`,
    async close() {
      await acp.close();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  servers.push(served);
  return served;
}

/** The two transports under test, by name, each made for a served agent. */
const TRANSPORTS: readonly [string, (served: Served) => Transport][] = [
  ["httpTransport", (served) => httpTransport(served.http)],
  ["webSocketTransport (ws)", (served) => webSocketTransport(served.ws, { WebSocket })],
];

/** Resolves once `check` holds, checking every few milliseconds (no deadline: the test's timeout is the limit). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}

describe.each(TRANSPORTS)("v2 over %s, the SDK's agent behind AcpServer", (_name, transportFor) => {
  it("a turn (chunks, a plan, a tool call, a permission answered by us), then a cancelled turn", async () => {
    const served = await serve(sdkAgentV2());
    const updates: SessionUpdate[] = [];
    const permissions: string[] = [];
    const errors: string[] = [];
    const agent = connectClient(
      transportFor(served),
      {
        "session/update": ({ update }) => void updates.push(update),
        "session/request_permission": (params) => {
          permissions.push(params.title ?? "");
          return { outcome: { outcome: "selected", optionId: "allow" } };
        },
      },
      { onError: (error) => void errors.push(error.message) },
    );
    const idle = (): SessionUpdate[] => updates.filter((u) => u.sessionUpdate === "state_update" && u.state === "idle");
    const init = await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "ours", version: "1" } });
    expect(init.info?.name).toBe("sdk-agent");
    const { sessionId } = await agent.request("session/new", { cwd: "/tmp" });
    expect(sessionId).toBe("sdk-session-1");
    expect(await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] })).toEqual({ messageId: "sdk-user-1" });
    await until(() => idle().length === 1);
    const kinds = updates.map((u) => u.sessionUpdate);
    expect(new Set(kinds)).toEqual(new Set(["state_update", "agent_thought_chunk", "plan_update", "tool_call_update", "agent_message_chunk"]));
    const reply = updates.flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []));
    expect(reply.join("")).toBe("You said: hello agent");
    expect(updates.filter((u) => u.sessionUpdate === "tool_call_update").at(-1)).toMatchObject({ status: "completed" });
    expect(permissions).toEqual(["Read the prompt?"]);
    expect(idle()[0]).toMatchObject({ stopReason: "end_turn" });

    const before = updates.length;
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
    await until(() => updates.length > before);
    await agent.notify("session/cancel", { sessionId });
    await until(() => idle().length === 2);
    expect(idle()[1]).toMatchObject({ stopReason: "cancelled" });
    await expect(agent.extRequest("_example/unknown", {})).rejects.toMatchObject({ code: -32601 });
    expect(errors).toEqual([]);
    agent.close();
    await agent.closed;
  });
});

/** The v1 turn as a client sees it (v1-turn.ts): update kinds in order ("You said: hello agent" is four chunks). */
const V1_KINDS = ["agent_thought_chunk", "plan", "tool_call", "tool_call_update", "plan", ...Array(4).fill("agent_message_chunk")];

/** Our v1 client on `transport`, recording update kinds and answering permission requests with "allow". */
function v1Client(transport: Transport, kinds: string[]) {
  return v1.connectClient(transport, {
    "session/update": ({ update }) => void kinds.push(update.sessionUpdate),
    "session/request_permission": () => ({ outcome: { outcome: "selected", optionId: "allow" } }),
  });
}

describe.each(TRANSPORTS)("v1 over %s, the SDK's v1 agent behind AcpServer", (_name, transportFor) => {
  it("a turn ended by the prompt response, then a cancelled turn", async () => {
    const served = await serve(sdkAgentV1());
    const kinds: string[] = [];
    const agent = v1Client(transportFor(served), kinds);
    const init = await agent.request("initialize", { protocolVersion: v1.PROTOCOL_VERSION });
    expect(init.agentInfo?.name).toBe("sdk-v1-agent");
    const { sessionId } = await agent.request("session/new", { cwd: "/tmp", mcpServers: [] });
    const first = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
    expect({ stopReason: first.stopReason, kinds: kinds.splice(0) }).toEqual({ stopReason: "end_turn", kinds: V1_KINDS });
    const second = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
    await until(() => kinds.length > 0);
    await agent.notify("session/cancel", { sessionId });
    expect((await second).stopReason).toBe("cancelled");
    agent.close();
  });

  it("reconnects: the connection dropped, a new transport, initialize, loadSession, session/load, a turn", async () => {
    const served = await serve(sdkAgentV1());
    const kinds: string[] = [];
    const first = v1Client(transportFor(served), kinds);
    await first.request("initialize", { protocolVersion: v1.PROTOCOL_VERSION });
    const { sessionId } = await first.request("session/new", { cwd: "/tmp", mcpServers: [] });
    first.close();
    await first.closed;
    await expect(first.request("session/prompt", { sessionId, prompt: [] })).rejects.toMatchObject({ code: -32603 });

    const again = v1Client(transportFor(served), kinds);
    const init = await again.request("initialize", { protocolVersion: v1.PROTOCOL_VERSION });
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(await again.request("session/load", { sessionId, cwd: "/tmp", mcpServers: [] })).toEqual({});
    await until(() => kinds.length > 0);
    expect(kinds.splice(0)).toEqual(["agent_message_chunk"]);
    const turn = await again.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
    expect({ stopReason: turn.stopReason, kinds }).toEqual({ stopReason: "end_turn", kinds: V1_KINDS });
    again.close();
  });
});
