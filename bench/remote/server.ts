/**
 * The server side of bench/remote.bench.ts: one `node:http` server on
 * 127.0.0.1 (a free port) serving ACP over Streamable HTTP (POST + SSE) and
 * WebSocket upgrades at /acp, with the same agent on acp-bindings
 * (`createAcpServer` + `nodeHttpHandler` + `nodeWebSocketUpgrade`, agent by
 * `connectAgent`) or on the official SDK (`AcpServer` +
 * `createNodeHttpHandler` + `createNodeWebSocketUpgradeHandler`, agent by
 * `agent()`), both on ACP v2 unstable, each over a `ws` `WebSocketServer({
 * noServer: true })`. Run as a child process with an IPC channel:
 *
 *   node --import tsx [--expose-gc] bench/remote/server.ts ours|sdk [--updates N]
 *
 * It sends `{ port }` once listening, and answers `{ type: "memory" }` with
 * `{ type: "memory", heap, rss, external }` after a full GC (with
 * `--expose-gc`), and `{ type: "snapshot" }` by writing a heap snapshot (its path in the reply), `{ type: "count" }` with the numbers of sessions made and of TCP connections accepted.
 *
 * The agent: `initialize`; `session/new` answers a fresh session id
 * (`s-<n>`); `session/set_config_option` answers `{ configOptions: [] }` at
 * once (the round trip); `session/prompt` answers, then sends `session/update`
 * notifications to the prompt's session, each `notify` awaited: the first
 * `--updates` valid updates of the corpus (bench/connection/workload.ts) when
 * the prompt's text is "stream", one update when it is "first", none
 * otherwise.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { writeHeapSnapshot } from "node:v8";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import * as sdk from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { WebSocketServer } from "ws";
import { connectAgent, createAcpServer, nodeHttpHandler, nodeWebSocketUpgrade, type SessionUpdate } from "../../generated/src/v2/unstable/index.js";
import { numberArg } from "../corpus.js";
import { gc } from "../harness.js";
import { benchUpdates } from "../connection/workload.js";

const INFO = { name: "bench-agent", version: "1.0.0" };
/** The one update of a "first" prompt. */
const FIRST: SessionUpdate = { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: "hi" } };

/** What a prompt streams, by its text. */
function updatesFor(text: string, all: readonly SessionUpdate[]): readonly SessionUpdate[] {
  return text === "stream" ? all : text === "first" ? [FIRST] : [];
}
const textOf = (prompt: readonly { type: string; text?: string }[]): string => (prompt[0]?.type === "text" ? (prompt[0].text ?? "") : "");

let sessions = 0;

/** Our server: one `connectAgent` per accepted connection. */
function oursServer(updates: readonly SessionUpdate[]): { server: Server; close(): Promise<void> } {
  const acp = createAcpServer({
    connect: (transport) => {
      const client = connectAgent(transport, {
        initialize: () => ({ protocolVersion: 2, info: INFO }),
        "session/new": () => ({ sessionId: `s-${++sessions}` }),
        "session/set_config_option": () => ({ configOptions: [] }),
        "session/prompt": (params) => {
          const list = updatesFor(textOf(params.prompt), updates);
          const sessionId = params.sessionId;
          void (async () => {
            for (const update of list) await client.notify("session/update", { sessionId, update });
          })().catch(() => {});
          return { messageId: "m" };
        },
      });
      return client;
    },
  });
  const server = createServer(nodeHttpHandler(acp));
  const sockets = new WebSocketServer({ noServer: true });
  server.on("upgrade", nodeWebSocketUpgrade(acp, sockets));
  return { server, close: async () => (await acp.close(), sockets.close()) };
}

/** The SDK's server: one agent app, connected by `AcpServer` to every accepted connection. */
function sdkServer(updates: readonly SessionUpdate[]): { server: Server; close(): Promise<void> } {
  const app = sdk
    .agent()
    .onRequest("initialize", async () => ({ protocolVersion: 2, info: INFO }))
    .onRequest("session/new", async () => ({ sessionId: `s-${++sessions}` }))
    .onRequest("session/set_config_option", async () => ({ configOptions: [] }))
    .onRequest("session/prompt", async ({ params, client }) => {
      const list = updatesFor(textOf(params.prompt as { type: string; text?: string }[]), updates);
      const sessionId = params.sessionId;
      void (async () => {
        for (const update of list) await client.notify("session/update", { sessionId, update: update as sdk.SessionUpdate });
      })().catch(() => {});
      return { messageId: "m" };
    });
  const acp = new AcpServer({ agent: app });
  const server = createServer(createNodeHttpHandler(acp));
  const sockets = new WebSocketServer({ noServer: true });
  server.on("upgrade", createNodeWebSocketUpgradeHandler(acp, sockets));
  return { server, close: async () => (await acp.close(), sockets.close()) };
}

const kind = process.argv[2];
if (kind !== "ours" && kind !== "sdk") throw new Error(`bench/remote/server.ts: ours or sdk, not ${JSON.stringify(kind)}`);
const updates = benchUpdates(numberArg("updates")).map((u) => u.update);
const { server, close } = (kind === "ours" ? oursServer : sdkServer)(updates);
let sockets = 0;
server.on("connection", () => sockets++);
server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on("message", (message: { type: string }) => {
  if (message.type === "memory") {
    gc();
    gc();
    const { heapUsed, rss, external } = process.memoryUsage();
    process.send!({ type: "memory", heap: heapUsed, rss, external });
  } else if (message.type === "snapshot") {
    gc();
    process.send!({ type: "snapshot", path: writeHeapSnapshot() });
  } else if (message.type === "count") {
    process.send!({ type: "count", sessions, sockets });
  } else if (message.type === "stop") {
    void close().finally(() => {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    });
  }
});
process.on("disconnect", () => process.exit(0));
