/**
 * The example agent's behaviour (protocol v2), for any transport: each prompt
 * starts a turn: the agent answers `session/prompt` with the prompt's message
 * id, then streams a thought, a plan, a tool call that asks for permission,
 * and a reply, and ends the turn with an idle `state_update` (`end_turn`).
 * `session/cancel` ends the running turn with `cancelled`. examples/agent.ts
 * serves it over stdio, examples/remote-server.ts over HTTP and WebSocket.
 *
 *   const client = connectAgent(transport, echoAgent(() => client));
 *
 * With `options.sessions` (a `SessionKeeper`, e.g. examples/session-files.ts)
 * sessions outlive the connection and the process: every update the agent
 * sends is handed to the keeper, the agent advertises the session
 * capabilities (`session/resume`), a `session/resume` of a session this
 * connection does not hold restores it from the keeper, and each reply says
 * which turn of its session it answers.
 */
import {
  type AgentHandlers,
  type ClientPeer,
  PROTOCOL_VERSION,
  type PromptRequest,
  type ReplayFrom,
  RequestError,
  type SessionState,
  type SessionUpdate,
} from "../generated/src/v2/index.js";

/** Where an agent keeps its sessions beyond one connection (and one process). */
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
  /** Keeps sessions across connections and processes; without it a session lives as long as its agent. */
  readonly sessions?: SessionKeeper;
}

/** The handlers of one agent; `client` gives the peer they talk back to (the value `connectAgent` returns). */
export function echoAgent(client: () => ClientPeer, options: EchoAgentOptions = {}): AgentHandlers {
  const keeper = options.sessions;
  const turns = new Map<string, AbortController>();
  /** With a keeper: the sessions this agent holds, and how many turns each has had. */
  const held = new Map<string, number>();
  let sessions = 0;
  let messages = 0;

  /** Sends an update for a session, handing it to the keeper first. */
  function say(sessionId: string, update: SessionUpdate): Promise<void> {
    keeper?.record(sessionId, update);
    return client().notify("session/update", { sessionId, update });
  }

  /** Streams one turn; a cancelled turn ends with `cancelled`, a failed one with `error`. */
  async function runTurn(prompt: PromptRequest, signal: AbortSignal, turn: number, ofSession: number | undefined): Promise<void> {
    const step = async (update: SessionUpdate): Promise<void> => {
      await pause(signal);
      await say(prompt.sessionId, update);
    };
    const text = prompt.prompt.map((block) => (block.type === "text" ? block.text : "")).join(" ");
    try {
      await say(prompt.sessionId, { sessionUpdate: "state_update", state: "running" });
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
      const answer = allowed ? `You said: ${text}` : "I was not allowed to read the prompt.";
      const reply = ofSession === undefined ? answer : `${answer} (turn ${ofSession} of this session)`;
      for (const word of reply.split(/(?<= )/)) await step({ sessionUpdate: "agent_message_chunk", messageId: `reply-${turn}`, content: { type: "text", text: word } });
      await say(prompt.sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    } catch {
      await say(prompt.sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: signal.aborted ? "cancelled" : "error" }).catch(() => {});
    } finally {
      if (turns.get(prompt.sessionId)?.signal === signal) turns.delete(prompt.sessionId);
    }
  }

  /** `session/resume` with a keeper: a session held goes on; another is restored from the keeper (its history replayed when asked), then its state is reported. */
  async function resume(sessionId: string, replayFrom: ReplayFrom | null | undefined): Promise<void> {
    if (!keeper) throw RequestError.methodNotFound("session/resume needs a session store");
    if (replayFrom && replayFrom.type !== "start") throw RequestError.invalidParams(`unsupported replay cursor ${JSON.stringify(replayFrom.type)}`);
    if (!held.has(sessionId) || replayFrom) {
      const state = await keeper.load(sessionId);
      if (!state) throw RequestError.resourceNotFound(`no session ${sessionId}`);
      if (!held.has(sessionId)) held.set(sessionId, state.agentThoughts.size); // each turn starts with one thought
      if (replayFrom) for (const update of historyOf(state)) await client().notify("session/update", { sessionId, update });
    }
    // The current state: running while a turn of this connection runs; else idle (a turn cut off with its process ended there).
    await say(sessionId, turns.has(sessionId) ? { sessionUpdate: "state_update", state: "running" } : { sessionUpdate: "state_update", state: "idle" });
  }

  return {
    initialize: () => ({
      protocolVersion: PROTOCOL_VERSION,
      info: { name: options.name ?? "example-agent", version: "1.0.0" },
      ...(keeper && { capabilities: { session: {} } }), // `session: {}`: the baseline session methods, session/resume among them
    }),
    "session/new": () => {
      const sessionId = keeper ? keeper.newId() : `session-${++sessions}`;
      held.set(sessionId, 0);
      return { sessionId };
    },
    "session/resume": async ({ sessionId, replayFrom }) => (await resume(sessionId, replayFrom), {}),
    "session/prompt": (params) => {
      const before = held.get(params.sessionId);
      if (keeper && before === undefined) throw RequestError.resourceNotFound(`session ${params.sessionId} is not open here: session/resume it first`);
      const messageId = `user-${++messages}`;
      if (before !== undefined) held.set(params.sessionId, before + 1);
      const turn = new AbortController();
      turns.get(params.sessionId)?.abort();
      turns.set(params.sessionId, turn);
      // With a keeper, ids count the session's turns: unique in the session whichever process runs it.
      void runTurn(params, turn.signal, keeper ? (before ?? 0) + 1 : messages, keeper && (before ?? 0) + 1);
      return { messageId };
    },
    "session/cancel": ({ sessionId }) => turns.get(sessionId)?.abort(),
  };
}

/** A kept state as the updates that rebuild it: its entities in timeline order, as whole (not chunked) updates. */
function historyOf(state: SessionState): SessionUpdate[] {
  return state.timeline.flatMap((entry): SessionUpdate[] => {
    switch (entry.kind) {
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
