/**
 * An agent serving ACP v1 and v2 on stdin/stdout with one entry
 * (`serveVersions` of acp-bindings/negotiate): the client's `initialize` picks
 * the version, and the connection is then that surface's `connectAgent`.
 * A turn echoes the prompt; v1 ends it with the prompt response's
 * `stopReason`, v2 with an idle `state_update`. Run: `npx tsx examples/versions-agent.ts`.
 */
import { serveVersions } from "acp-bindings/negotiate";
import * as v1 from "acp-bindings/v1";
import * as v2 from "acp-bindings/v2";
import { promptText } from "./turn.js";

const v1Agent = (client: v1.ClientPeer): v1.AgentHandlers => ({
  initialize: () => ({ protocolVersion: v1.PROTOCOL_VERSION, agentInfo: { name: "versions-agent", version: "1.0.0" } }),
  "session/new": () => ({ sessionId: "v1-session" }),
  "session/prompt": async ({ sessionId, prompt }) => {
    const text = `You said: ${promptText(prompt)}`;
    await client.notify("session/update", { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
    return { stopReason: "end_turn" };
  },
});

const v2Agent = (client: v2.ClientPeer): v2.AgentHandlers => ({
  initialize: () => ({ protocolVersion: v2.PROTOCOL_VERSION, info: { name: "versions-agent", version: "1.0.0" } }),
  "session/new": () => ({ sessionId: "v2-session" }),
  "session/prompt": ({ sessionId, prompt }) => {
    const text = `You said: ${promptText(prompt)}`;
    const say = (update: v2.SessionUpdate) => client.notify("session/update", { sessionId, update });
    // v2: the prompt is answered once taken; the turn streams on and ends with an idle state_update.
    void (async () => {
      await say({ sessionUpdate: "state_update", state: "running" });
      await say({ sessionUpdate: "agent_message_chunk", messageId: "reply-1", content: { type: "text", text } });
      await say({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    })().catch(() => {});
    return { messageId: "user-1" };
  },
});

const server = serveVersions(v2.ndJsonStream({ readable: process.stdin, writable: process.stdout }), { v1: v1Agent, v2: v2Agent });
await server.closed;
