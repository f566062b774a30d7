/**
 * The official SDK's agent (`@agentclientprotocol/sdk/experimental/v2`,
 * `agent()`), doing what examples/agent.ts does, over stdin/stdout. The
 * interop tests drive it with our client: `npx tsx test/interop/sdk-agent.ts`.
 */
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream, PROTOCOL_VERSION, type SessionUpdate } from "@agentclientprotocol/sdk/experimental/v2";

type Notify = (update: SessionUpdate) => Promise<void>;
type AskPermission = (toolCallId: string, signal: AbortSignal) => Promise<boolean>;

const turns = new Map<string, AbortController>();
let sessions = 0;
let messages = 0;

const app = agent({ name: "sdk-agent" })
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
    void runTurn(text, notify, ask, turn.signal);
    return { messageId: `sdk-user-${++messages}` };
  })
  .onNotification("session/cancel", async ({ params }) => {
    turns.get(params.sessionId)?.abort();
  });

async function runTurn(text: string, notify: Notify, ask: AskPermission, signal: AbortSignal): Promise<void> {
  const step = async (update: SessionUpdate): Promise<void> => {
    await pause(signal);
    await notify(update);
  };
  const n = messages;
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

function pause(signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("cancelled"));
    const timer = setTimeout(resolve, 5);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("cancelled"))), { once: true });
  });
}

app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
// The SDK connection does not end the process when its input ends; the test harness expects it to.
process.stdin.on("end", () => process.exit(0));
