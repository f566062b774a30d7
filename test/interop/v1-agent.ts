/**
 * Our ACP v1 agent for the interop tests, over stdin/stdout:
 * `npx tsx test/interop/v1-agent.ts`. The turn of v1-turn.ts; the prompt
 * response carries the stop reason (`end_turn`, or `cancelled` after
 * `session/cancel`).
 */
import { connectAgent, ndJsonStream, PROTOCOL_VERSION, type SessionUpdate } from "../../generated/src/v1/index.js";
import { afterPermission, BEFORE_PERMISSION, pause, permissionRequest } from "./v1-turn.js";

const turns = new Map<string, AbortController>();

const client = connectAgent(ndJsonStream({ readable: process.stdin, writable: process.stdout }), {
  initialize: () => ({ protocolVersion: PROTOCOL_VERSION, agentInfo: { name: "our-v1-agent", version: "1.0.0" } }),
  "session/new": () => ({ sessionId: "v1-session" }),
  "session/prompt": async ({ sessionId, prompt }) => {
    const turn = new AbortController();
    turns.set(sessionId, turn);
    const say = async (update: SessionUpdate): Promise<void> => {
      await pause(turn.signal);
      await client.notify("session/update", { sessionId, update });
    };
    try {
      for (const update of BEFORE_PERMISSION) await say(update);
      const answer = await client.request("session/request_permission", permissionRequest(sessionId), { signal: turn.signal });
      const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
      const text = prompt.map((block) => (block.type === "text" ? block.text : "")).join(" ");
      for (const update of afterPermission(allowed, text)) await say(update);
      return { stopReason: "end_turn" };
    } catch (error) {
      if (turn.signal.aborted) return { stopReason: "cancelled" };
      throw error;
    }
  },
  "session/cancel": ({ sessionId }) => turns.get(sessionId)?.abort(),
});

await client.closed;
