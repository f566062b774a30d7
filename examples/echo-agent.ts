/**
 * The example agent's behaviour (protocol v2), for any transport: each prompt
 * starts a turn: the agent answers `session/prompt` with the prompt's message
 * id, then streams a thought, a plan, a tool call that asks for permission,
 * and a reply, and ends the turn with an idle `state_update` (`end_turn`).
 * `session/cancel` ends the running turn with `cancelled`. examples/agent.ts
 * serves it over stdio, examples/remote-server.ts over HTTP and WebSocket.
 *
 *   const client = connectAgent(transport, echoAgent(() => client));
 */
import { PROTOCOL_VERSION, type AgentHandlers, type ClientPeer, type PromptRequest, type SessionUpdate } from "../generated/src/v2/index.js";

/** The handlers of one agent; `client` gives the peer they talk back to (the value `connectAgent` returns). */
export function echoAgent(client: () => ClientPeer): AgentHandlers {
  const turns = new Map<string, AbortController>();
  let sessions = 0;
  let messages = 0;

  /** Streams one turn; a cancelled turn ends with `cancelled`, a failed one with `error`. */
  async function runTurn(prompt: PromptRequest, signal: AbortSignal): Promise<void> {
    const say = (update: SessionUpdate): Promise<void> => client().notify("session/update", { sessionId: prompt.sessionId, update });
    const step = async (update: SessionUpdate): Promise<void> => {
      await pause(signal);
      await say(update);
    };
    const turn = messages;
    const text = prompt.prompt.map((block) => (block.type === "text" ? block.text : "")).join(" ");
    try {
      await say({ sessionUpdate: "state_update", state: "running" });
      await step({ sessionUpdate: "agent_thought_chunk", messageId: `thought-${turn}`, content: { type: "text", text: "Planning the answer." } });
      const planId = `plan-${turn}`;
      await step({ sessionUpdate: "plan_update", plan: { type: "items", planId, entries: [{ content: "Read the prompt", priority: "high", status: "in_progress" }] } });
      const toolCallId = `tool-${turn}`;
      const toolCall = { toolCallId, title: "Read the prompt", kind: "read", status: "pending" } as const;
      await step({ sessionUpdate: "tool_call_update", ...toolCall });
      const permission = await client().request(
        "session/request_permission",
        {
          sessionId: prompt.sessionId,
          title: "Read the prompt?",
          subject: { type: "tool_call", toolCall },
          options: [
            { optionId: "allow", name: "Allow", kind: "allow_once" },
            { optionId: "reject", name: "Reject", kind: "reject_once" },
          ],
        },
        { signal },
      );
      const allowed = permission.outcome.outcome === "selected" && "optionId" in permission.outcome && permission.outcome.optionId === "allow";
      await step({ sessionUpdate: "tool_call_update", toolCallId, status: allowed ? "completed" : "failed" });
      await step({ sessionUpdate: "plan_update", plan: { type: "items", planId, entries: [{ content: "Read the prompt", priority: "high", status: "completed" }] } });
      const reply = allowed ? `You said: ${text}` : "I was not allowed to read the prompt.";
      for (const word of reply.split(/(?<= )/)) await step({ sessionUpdate: "agent_message_chunk", messageId: `reply-${turn}`, content: { type: "text", text: word } });
      await say({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    } catch {
      await say({ sessionUpdate: "state_update", state: "idle", stopReason: signal.aborted ? "cancelled" : "error" }).catch(() => {});
    }
  }

  return {
    initialize: () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "example-agent", version: "1.0.0" } }),
    "session/new": () => ({ sessionId: `session-${++sessions}` }),
    "session/prompt": (params) => {
      const messageId = `user-${++messages}`;
      const turn = new AbortController();
      turns.get(params.sessionId)?.abort();
      turns.set(params.sessionId, turn);
      void runTurn(params, turn.signal);
      return { messageId };
    },
    "session/cancel": ({ sessionId }) => turns.get(sessionId)?.abort(),
  };
}

/** A short wait between updates, so a turn takes long enough to be cancelled; rejects once `signal` aborts. */
function pause(signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("cancelled"));
    const cancelled = (): void => (clearTimeout(timer), reject(new Error("cancelled")));
    // The listener goes with the wait: a turn's signal would otherwise collect one per update.
    const timer = setTimeout(() => (signal.removeEventListener("abort", cancelled), resolve()), 5);
    signal.addEventListener("abort", cancelled, { once: true });
  });
}
