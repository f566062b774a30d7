/**
 * An ACP agent (protocol v1, what editors speak today) on acp-bindings,
 * speaking over stdin/stdout:
 *
 *   npx tsx examples/v1-agent.ts
 *
 * It does what the protocol asks of a real agent:
 * - `initialize` advertises what it implements: `session/load`, and the
 *   session capabilities `list`, `resume`, `close` and additional directories;
 * - `session/prompt` runs a turn: a thought, a plan, a tool call that asks for
 *   permission, the reply in chunks; the answer's `stopReason` ends the turn
 *   (`end_turn`, or `cancelled`);
 * - `session/cancel` ends the running turn at whatever step it is: a pending
 *   permission request is withdrawn, and the prompt is answered `cancelled`
 *   (also when the client answers the permission request `cancelled`);
 * - `session/load` replays the whole conversation (the user's prompts too) as
 *   `session/update` notifications before it answers; `session/resume` goes on
 *   without a replay; `session/close` ends a session's turn and frees it;
 *   `session/list` lists the sessions, newest first, with titles.
 *
 * Sessions are kept in this process's memory. Any ACP v1 client can drive it
 * (examples/v1-client.ts, the SDK's, an editor).
 */
import { type ClientPeer, connectAgent, ndJsonStream, PROTOCOL_VERSION, RequestError, type SessionUpdate } from "acp-bindings/v1";
import { listSessions, pause, promptText, type SessionListing, touch } from "./turn.js";

/** A session: its listing, the updates that replay it, whether it is open, its running turn. */
interface Session extends SessionListing {
  readonly history: SessionUpdate[];
  open: boolean;
  turns: number;
  turn?: AbortController;
}

const sessions = new Map<string, Session>();

/** The session, which must be open (`session/new`, `load` or `resume` opened it; `close` closes it). */
function openSession(sessionId: string): Session {
  const session = sessions.get(sessionId);
  if (!session?.open) throw RequestError.resourceNotFound(`session ${sessionId} is not open: session/load or session/resume it first`);
  return session;
}

/** Sends an update and keeps it in the session's history, for `session/load`. */
function say(client: ClientPeer, session: Session, update: SessionUpdate): Promise<void> {
  session.history.push(update);
  return client.notify("session/update", { sessionId: session.sessionId, update });
}

/** One turn; resolves with its stop reason. */
async function runTurn(client: ClientPeer, session: Session, prompt: string, signal: AbortSignal): Promise<"end_turn" | "cancelled"> {
  const turn = ++session.turns;
  const step = async (update: SessionUpdate): Promise<void> => {
    await pause(signal);
    await say(client, session, update);
  };
  const toolCallId = `tool-${turn}`;
  try {
    await step({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Planning the answer." } });
    await step({ sessionUpdate: "plan", entries: [{ content: "Read the prompt", priority: "high", status: "in_progress" }] });
    await step({ sessionUpdate: "tool_call", toolCallId, title: "Read the prompt", kind: "read", status: "pending" });
    const permission = await client.request(
      "session/request_permission",
      {
        sessionId: session.sessionId,
        toolCall: { toolCallId, title: "Read the prompt", kind: "read", status: "pending" },
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ],
      },
      { signal },
    );
    if (permission.outcome.outcome === "cancelled") return "cancelled";
    const allowed = permission.outcome.optionId === "allow";
    await step({ sessionUpdate: "tool_call_update", toolCallId, status: allowed ? "completed" : "failed" });
    await step({ sessionUpdate: "plan", entries: [{ content: "Read the prompt", priority: "high", status: "completed" }] });
    const reply = allowed ? `You said: ${prompt}` : "I was not allowed to read the prompt.";
    for (const word of reply.split(/(?<= )/)) await step({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: word } });
    return "end_turn";
  } catch (error) {
    if (signal.aborted) return "cancelled";
    throw error; // answered as a JSON-RPC error
  }
}

const client: ClientPeer = connectAgent(ndJsonStream({ readable: process.stdin, writable: process.stdout }), {
  initialize: () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentInfo: { name: "example-v1-agent", version: "1.0.0" },
    agentCapabilities: {
      loadSession: true,
      sessionCapabilities: { list: {}, resume: {}, close: {}, additionalDirectories: {} },
    },
  }),
  "session/new": ({ cwd, additionalDirectories }) => {
    const sessionId = `session-${sessions.size + 1}`;
    sessions.set(sessionId, { sessionId, cwd, additionalDirectories: additionalDirectories ?? [], updatedAt: new Date().toISOString(), history: [], open: true, turns: 0 });
    return { sessionId };
  },
  "session/list": ({ cwd }) => ({
    sessions: listSessions(sessions.values(), cwd).map(({ sessionId, cwd, additionalDirectories, title, updatedAt }) => ({
      sessionId,
      cwd,
      additionalDirectories: [...additionalDirectories],
      updatedAt,
      ...(title !== undefined && { title }),
    })),
  }),
  "session/load": async ({ sessionId }) => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.resourceNotFound(`no session ${sessionId}`);
    session.open = true;
    // The whole conversation, as it happened, before the answer.
    for (const update of session.history) await client.notify("session/update", { sessionId, update });
    return {};
  },
  "session/resume": ({ sessionId }) => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.resourceNotFound(`no session ${sessionId}`);
    session.open = true;
    return {};
  },
  "session/close": ({ sessionId }) => {
    const session = openSession(sessionId);
    session.turn?.abort();
    session.open = false;
    return {};
  },
  "session/prompt": async ({ sessionId, prompt }) => {
    const session = openSession(sessionId);
    session.turn?.abort(); // one turn at a time
    const turn = new AbortController();
    session.turn = turn;
    const text = promptText(prompt);
    touch(session, text);
    for (const block of prompt) session.history.push({ sessionUpdate: "user_message_chunk", content: block }); // replayed by session/load
    try {
      return { stopReason: await runTurn(client, session, text, turn.signal) };
    } finally {
      if (session.turn === turn) delete session.turn;
    }
  },
  "session/cancel": ({ sessionId }) => sessions.get(sessionId)?.turn?.abort(),
});
await client.closed;
