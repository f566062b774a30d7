/**
 * The official SDK's agents (`@agentclientprotocol/sdk`, `agent()`) of the
 * interop tests, as apps to connect: over stdio by sdk-agent.ts and
 * sdk-agent-v1.ts, behind the SDK's HTTP/WebSocket server by
 * http-client-interop.test.ts.
 */
import * as sdkV1 from "@agentclientprotocol/sdk";
import { agent, PROTOCOL_VERSION, type SessionUpdate } from "@agentclientprotocol/sdk/experimental/v2";
import { afterPermission, BEFORE_PERMISSION, pause, permissionRequest } from "./v1-turn.js";

type Notify = (update: SessionUpdate) => Promise<void>;
type AskPermission = (toolCallId: string, signal: AbortSignal) => Promise<boolean>;

/**
 * The SDK's v2 agent of the interop tests: a turn of a thought, a plan, a tool
 * call that needs permission, and a reply in chunks, then an idle
 * state_update; `session/cancel` ends a turn as cancelled. Each call makes one
 * with its own session and message counters (a server may connect it many times).
 */
export function sdkAgentV2() {
  const turns = new Map<string, AbortController>();
  let sessions = 0;
  let messages = 0;
  return agent({ name: "sdk-agent" })
    .onRequest("initialize", async () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "sdk-agent", version: "2.4.0" } }))
    .onRequest("session/new", async () => ({ sessionId: `sdk-session-${++sessions}` }))
    .onRequest("session/prompt", async ({ params, client }) => {
      const turn = new AbortController();
      turns.set(params.sessionId, turn);
      const notify: Notify = (update) => client.notify("session/update", { sessionId: params.sessionId, update });
      const ask: AskPermission = async (toolCallId, signal) => {
        const answer = await client.request(
          "session/request_permission",
          {
            sessionId: params.sessionId,
            title: "Read the prompt?",
            subject: { type: "tool_call", toolCall: { toolCallId, title: "Read the prompt", kind: "read", status: "pending" } },
            options: [
              { optionId: "allow", name: "Allow", kind: "allow_once" },
              { optionId: "reject", name: "Reject", kind: "reject_once" },
            ],
          },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        );
        return answer.outcome.outcome === "selected" && "optionId" in answer.outcome && answer.outcome.optionId === "allow";
      };
      const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join(" ");
      void runTurn(messages, text, notify, ask, turn.signal);
      return { messageId: `sdk-user-${++messages}` };
    })
    .onNotification("session/cancel", async ({ params }) => {
      turns.get(params.sessionId)?.abort();
    });
}

async function runTurn(n: number, text: string, notify: Notify, ask: AskPermission, signal: AbortSignal): Promise<void> {
  const step = async (update: SessionUpdate): Promise<void> => {
    await pause(signal);
    await notify(update);
  };
  try {
    await notify({ sessionUpdate: "state_update", state: "running" });
    await step({ sessionUpdate: "agent_thought_chunk", messageId: `thought-${n}`, content: { type: "text", text: "Planning the answer." } });
    await step({ sessionUpdate: "plan_update", plan: { type: "items", planId: `plan-${n}`, entries: [{ content: "Read the prompt", priority: "high", status: "in_progress" }] } });
    await step({ sessionUpdate: "tool_call_update", toolCallId: `tool-${n}`, title: "Read the prompt", kind: "read", status: "pending" });
    const allowed = await ask(`tool-${n}`, signal);
    await step({ sessionUpdate: "tool_call_update", toolCallId: `tool-${n}`, status: allowed ? "completed" : "failed" });
    await step({ sessionUpdate: "plan_update", plan: { type: "items", planId: `plan-${n}`, entries: [{ content: "Read the prompt", priority: "high", status: "completed" }] } });
    const reply = allowed ? `You said: ${text}` : "I was not allowed to read the prompt.";
    for (const word of reply.split(/(?<= )/)) await step({ sessionUpdate: "agent_message_chunk", messageId: `reply-${n}`, content: { type: "text", text: word } });
    await notify({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
  } catch {
    const ended: SessionUpdate = signal.aborted
      ? { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" }
      : { sessionUpdate: "state_update", state: "idle", stopReason: "error" };
    await notify(ended).catch(() => {});
  }
}

/**
 * The SDK's v1 agent of the interop tests: the turn of v1-turn.ts, ended by
 * the prompt response; `session/cancel` ends it as cancelled. It offers
 * `loadSession`: `session/load` of a session it made replays one message
 * chunk ("loaded") and answers `{}`.
 */
export function sdkAgentV1() {
  const turns = new Map<string, AbortController>();
  const known = new Set<string>();
  return sdkV1
    .agent({ name: "sdk-v1-agent" })
    .onRequest("initialize", async () => ({ protocolVersion: sdkV1.PROTOCOL_VERSION, agentCapabilities: { loadSession: true }, agentInfo: { name: "sdk-v1-agent", version: "2.4.0" } }))
    .onRequest("session/new", async () => (known.add("sdk-v1-session"), { sessionId: "sdk-v1-session" }))
    .onRequest("session/load", async ({ params, client }) => {
      if (!known.has(params.sessionId)) throw sdkV1.RequestError.resourceNotFound(params.sessionId);
      await client.notify("session/update", { sessionId: params.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "loaded" } } });
      return {};
    })
    .onRequest("session/prompt", async ({ params, client }) => {
      const turn = new AbortController();
      turns.set(params.sessionId, turn);
      const say = async (update: unknown): Promise<void> => {
        await pause(turn.signal);
        await client.notify("session/update", { sessionId: params.sessionId, update: update as sdkV1.SessionUpdate });
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
}

