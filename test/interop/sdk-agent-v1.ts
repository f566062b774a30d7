/**
 * The official SDK's ACP v1 agent (`@agentclientprotocol/sdk`, `agent()`) for
 * the interop tests, over stdin/stdout: `npx tsx test/interop/sdk-agent-v1.ts`.
 * The same turn as v1-agent.ts.
 */
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream, PROTOCOL_VERSION, type SessionUpdate } from "@agentclientprotocol/sdk";
import { afterPermission, BEFORE_PERMISSION, pause, permissionRequest } from "./v1-turn.js";

const turns = new Map<string, AbortController>();

const app = agent({ name: "sdk-v1-agent" })
  .onRequest("initialize", async () => ({ protocolVersion: PROTOCOL_VERSION, agentInfo: { name: "sdk-v1-agent", version: "2.4.0" } }))
  .onRequest("session/new", async () => ({ sessionId: "sdk-v1-session" }))
  .onRequest("session/prompt", async ({ params, client }) => {
    const turn = new AbortController();
    turns.set(params.sessionId, turn);
    const say = async (update: unknown): Promise<void> => {
      await pause(turn.signal);
      await client.notify("session/update", { sessionId: params.sessionId, update: update as SessionUpdate });
    };
    try {
      for (const update of BEFORE_PERMISSION) await say(update);
      const answer = await client.request("session/request_permission", permissionRequest(params.sessionId), { cancellationSignal: turn.signal, stopWaitingOnCancel: true });
      const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
      const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join(" ");
      for (const update of afterPermission(allowed, text)) await say(update);
      return { stopReason: "end_turn" as const };
    } catch (error) {
      if (turn.signal.aborted) return { stopReason: "cancelled" as const };
      throw error;
    }
  })
  .onNotification("session/cancel", async ({ params }) => {
    turns.get(params.sessionId)?.abort();
  });

app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
process.stdin.on("end", () => process.exit(0));
