/**
 * The example v2 agent's handlers, for any transport (examples/v2-agent.ts
 * serves them over stdio, examples/remote-server.ts over HTTP and WebSocket).
 *
 *   const client = connectAgent(transport, echoAgent(() => client));
 *
 * It does what the protocol asks of a real agent:
 * - `initialize` advertises the session capabilities it implements: the
 *   baseline session methods (`session/list`, `session/resume`,
 *   `session/close`) and additional directories;
 * - `session/prompt` is answered with the prompt's message id as soon as the
 *   prompt is taken; the turn then reports `running`, echoes the prompt as a
 *   `user_message` with that id, streams a thought, a plan and a tool call that
 *   asks for permission (reporting `requires_action` while it waits for the
 *   answer), then the reply, and ends with an idle `state_update`
 *   (`end_turn`);
 * - `session/cancel` ends the running turn at whatever step it is: a pending
 *   permission request is withdrawn (`$/cancel_request`), the tool call is
 *   reported `cancelled` and the turn ends idle with `cancelled`; a
 *   permission answered `cancelled` ends the turn the same way;
 * - `session/resume` goes on with a session this agent holds, or restores one
 *   from its `SessionKeeper` (with `replayFrom: { type: "start" }` it replays
 *   the history first), then reports the session's state.
 *
 * Sessions are kept in memory by default; with `options.sessions` (e.g.
 * examples/session-files.ts) they outlive the connection and the process, and
 * each reply says which turn of its session it answers.
 */
import {
  type AgentHandlers,
  type ClientPeer,
  emptySessionState,
  PROTOCOL_VERSION,
  type PromptRequest,
  reduceSession,
  type ReplayFrom,
  RequestError,
  type SessionState,
  type SessionUpdate,
} from "acp-bindings/v2";
import { listSessions, pause, promptText, type SessionListing, touch } from "./turn.js";

/** Where an agent keeps its sessions' states. */
export interface SessionKeeper {
  /** A new session id, unique among every process sharing the keeper's store. */
  newId(): string;
  /** Told of each update the agent sends, in order; folds it into the session's kept state. */
  record(sessionId: string, update: SessionUpdate): void;
  /** The kept state of a session, or `undefined` when there is none. */
  load(sessionId: string): Promise<SessionState | undefined>;
}

/** Options of `echoAgent`. */
export interface EchoAgentOptions {
  /** The `info.name` of the `initialize` answer (default `example-agent`). */
  readonly name?: string;
  /** Keeps sessions across connections and processes; without it they are kept in this agent's memory. */
  readonly sessions?: SessionKeeper;
}

/** A keeper in memory: the sessions live as long as the agent. */
export function memorySessions(): SessionKeeper {
  const states = new Map<string, SessionState>();
  return {
    newId: () => `session-${states.size + 1}`,
    record: (sessionId, update) => void states.set(sessionId, reduceSession(states.get(sessionId) ?? emptySessionState(), update)),
    load: async (sessionId) => states.get(sessionId),
  };
}

/** The handlers of one agent; `client` gives the peer they talk back to (the value `connectAgent` returns). */
export function echoAgent(client: () => ClientPeer, options: EchoAgentOptions = {}): AgentHandlers {
  const keeper = options.sessions ?? memorySessions();
  const turns = new Map<string, AbortController>();
  /** The sessions this agent holds (made here, or resumed), and how many turns each has had. */
  const held = new Map<string, number>();
  /** What `session/list` tells of each session this agent has held. */
  const listings = new Map<string, SessionListing>();

  /** Sends an update for a session, handing it to the keeper first. */
  function say(sessionId: string, update: SessionUpdate): Promise<void> {
    keeper.record(sessionId, update);
    return client().notify("session/update", { sessionId, update });
  }

  /** Streams one turn; a cancelled turn ends with `cancelled`, a failed one with `error`. */
  async function runTurn(prompt: PromptRequest, messageId: string, signal: AbortSignal, turn: number): Promise<void> {
    const { sessionId } = prompt;
    const step = async (update: SessionUpdate): Promise<void> => {
      await pause(signal);
      await say(sessionId, update);
    };
    const toolCallId = `tool-${turn}`;
    let toolCallOpen = false;
    let permissionCancelled = false;
    try {
      // Running first: a client waiting for the idle state of this turn must not take the last turn's for it.
      await say(sessionId, { sessionUpdate: "state_update", state: "running" });
      await say(sessionId, { sessionUpdate: "user_message", messageId, content: prompt.prompt });
      await step({ sessionUpdate: "agent_thought_chunk", messageId: `thought-${turn}`, content: { type: "text", text: "Planning the answer." } });
      const planId = `plan-${turn}`;
      await step({ sessionUpdate: "plan_update", plan: { type: "items", planId, entries: [{ content: "Read the prompt", priority: "high", status: "in_progress" }] } });
      const toolCall = { toolCallId, title: "Read the prompt", kind: "read", status: "pending" } as const;
      await step({ sessionUpdate: "tool_call_update", ...toolCall });
      toolCallOpen = true;
      await say(sessionId, { sessionUpdate: "state_update", state: "requires_action" });
      const permission = await client().request(
        "session/request_permission",
        {
          sessionId,
          title: "Read the prompt?",
          subject: { type: "tool_call", toolCall },
          options: [
            { optionId: "allow", name: "Allow", kind: "allow_once" },
            { optionId: "reject", name: "Reject", kind: "reject_once" },
          ],
        },
        { signal },
      );
      if (permission.outcome.outcome === "cancelled") {
        permissionCancelled = true;
        throw new Error("the permission request was cancelled");
      }
      await say(sessionId, { sessionUpdate: "state_update", state: "running" });
      const allowed = permission.outcome.outcome === "selected" && "optionId" in permission.outcome && permission.outcome.optionId === "allow";
      await step({ sessionUpdate: "tool_call_update", toolCallId, status: allowed ? "completed" : "failed" });
      toolCallOpen = false;
      await step({ sessionUpdate: "plan_update", plan: { type: "items", planId, entries: [{ content: "Read the prompt", priority: "high", status: "completed" }] } });
      const answer = allowed ? `You said: ${promptText(prompt.prompt)}` : "I was not allowed to read the prompt.";
      const reply = options.sessions ? `${answer} (turn ${turn} of this session)` : answer;
      for (const word of reply.split(/(?<= )/)) await step({ sessionUpdate: "agent_message_chunk", messageId: `reply-${turn}`, content: { type: "text", text: word } });
      await say(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    } catch {
      const cancelled = signal.aborted || permissionCancelled;
      const ending = async (): Promise<void> => {
        if (toolCallOpen) await say(sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: cancelled ? "cancelled" : "failed" });
        await say(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: cancelled ? "cancelled" : "error" });
      };
      await ending().catch(() => {}); // the connection may be gone
    } finally {
      if (turns.get(sessionId)?.signal === signal) turns.delete(sessionId);
    }
  }

  /** `session/resume`: a session held goes on; another is restored from the keeper (its history replayed when asked), then its state is reported. */
  async function resume(sessionId: string, replayFrom: ReplayFrom | null | undefined): Promise<void> {
    if (replayFrom && replayFrom.type !== "start") throw RequestError.invalidParams(`unsupported replay cursor ${JSON.stringify(replayFrom.type)}`);
    if (!held.has(sessionId) || replayFrom) {
      const state = await keeper.load(sessionId);
      if (!state) throw RequestError.resourceNotFound(`no session ${sessionId}`);
      if (!held.has(sessionId)) held.set(sessionId, state.userMessages.size); // each turn echoes its prompt first
      if (replayFrom) for (const update of historyOf(state)) await client().notify("session/update", { sessionId, update });
    }
    // The current state: running while a turn of this connection runs; else idle (a turn cut off with its process ended there).
    await say(sessionId, turns.has(sessionId) ? { sessionUpdate: "state_update", state: "running" } : { sessionUpdate: "state_update", state: "idle" });
  }

  return {
    initialize: () => ({
      protocolVersion: PROTOCOL_VERSION,
      info: { name: options.name ?? "example-agent", version: "1.0.0" },
      // `session: {...}`: the baseline session methods (list, resume, close), and sessions that span more than one directory.
      capabilities: { session: { additionalDirectories: {} } },
    }),
    "session/new": ({ cwd, additionalDirectories }) => {
      const sessionId = keeper.newId();
      held.set(sessionId, 0);
      listings.set(sessionId, { sessionId, cwd, additionalDirectories: additionalDirectories ?? [], updatedAt: new Date().toISOString() });
      return { sessionId };
    },
    "session/list": ({ cwd }) => ({
      sessions: listSessions(listings.values(), cwd).map(({ additionalDirectories, ...session }) => ({ ...session, additionalDirectories: [...additionalDirectories] })),
    }),
    "session/resume": async ({ sessionId, cwd, additionalDirectories, replayFrom }) => {
      await resume(sessionId, replayFrom);
      listings.set(sessionId, { ...listings.get(sessionId), sessionId, cwd, additionalDirectories: additionalDirectories ?? [], updatedAt: new Date().toISOString() });
      return {};
    },
    "session/close": ({ sessionId }) => {
      if (!held.has(sessionId)) throw RequestError.resourceNotFound(`session ${sessionId} is not open here`);
      turns.get(sessionId)?.abort();
      held.delete(sessionId);
      return {};
    },
    "session/prompt": (params) => {
      const before = held.get(params.sessionId);
      if (before === undefined) throw RequestError.resourceNotFound(`session ${params.sessionId} is not open here: session/resume it first`);
      const turn = before + 1; // ids count the session's turns: unique in the session whichever process runs it
      held.set(params.sessionId, turn);
      const listing = listings.get(params.sessionId);
      if (listing) touch(listing, promptText(params.prompt));
      const controller = new AbortController();
      turns.get(params.sessionId)?.abort();
      turns.set(params.sessionId, controller);
      const messageId = `user-${turn}`;
      void runTurn(params, messageId, controller.signal, turn);
      return { messageId };
    },
    "session/cancel": ({ sessionId }) => turns.get(sessionId)?.abort(),
  };
}

/** A kept state as the updates that rebuild it: its entities in timeline order, as whole (not chunked) updates. */
function historyOf(state: SessionState): SessionUpdate[] {
  return state.timeline.flatMap((entry): SessionUpdate[] => {
    switch (entry.kind) {
      case "userMessages": {
        const message = state.userMessages.get(entry.id);
        return message ? [{ sessionUpdate: "user_message", ...message }] : [];
      }
      case "agentMessages": {
        const message = state.agentMessages.get(entry.id);
        return message ? [{ sessionUpdate: "agent_message", ...message }] : [];
      }
      case "agentThoughts": {
        const thought = state.agentThoughts.get(entry.id);
        return thought ? [{ sessionUpdate: "agent_thought", ...thought }] : [];
      }
      case "toolCalls": {
        const toolCall = state.toolCalls.get(entry.id);
        return toolCall ? [{ sessionUpdate: "tool_call_update", ...toolCall }] : [];
      }
      case "plans": {
        const plan = state.plans.get(entry.id);
        return plan ? [{ sessionUpdate: "plan_update", plan }] : [];
      }
      default:
        return []; // this agent writes nothing else
    }
  });
}
