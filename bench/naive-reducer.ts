/**
 * The baseline for bench/reducer.bench.ts: a session reducer for ACP v2
 * unstable written by hand the way a client author would, with object spread,
 * `Object.assign` and a copied `Map` per update, following the same rules as
 * the generated `reduceSession` (semantics.md S1-S21; the stored form of
 * schema/semantics.json). It is pure in the naive sense: it never mutates the
 * previous state's containers, but it shares update objects with the state
 * and does not freeze anything.
 */

type Json = Record<string, any>;

export interface NaiveState {
  toolCalls: Map<string, Json>;
  userMessages: Map<string, Json>;
  agentMessages: Map<string, Json>;
  agentThoughts: Map<string, Json>;
  sessionMessages: Map<string, Json>;
  terminals: Map<string, Json>;
  compactions: Map<string, Json>;
  subagents: Map<string, Json>;
  plans: Map<string, Json>;
  state: Json;
  usage?: Json;
  info?: Json;
  availableCommands?: unknown[];
  configOptions?: unknown[];
  notices: Json[];
  custom: Json[];
}

export function naiveEmpty(): NaiveState {
  return {
    toolCalls: new Map(), userMessages: new Map(), agentMessages: new Map(), agentThoughts: new Map(),
    sessionMessages: new Map(), terminals: new Map(), compactions: new Map(), subagents: new Map(), plans: new Map(),
    state: { state: "idle" }, notices: [], custom: [],
  };
}

/** Drops keys whose value is `undefined`. */
function clean(obj: Json): Json {
  for (const key of Object.keys(obj)) if (obj[key] === undefined) delete obj[key];
  return obj;
}

/** S1: omitted keeps, null clears, a value replaces. */
const field = (old: unknown, value: unknown) => (value === undefined ? old : value === null ? undefined : value);
/** S3/S4: omitted keeps, null and [] clear, a value replaces; default when new. */
const reset = (old: unknown, value: unknown, fallback: unknown) => (value === undefined ? (old ?? fallback) : value === null ? fallback : value);

/** S6: the `_meta` patch by top-level key. */
function meta(old: Json | undefined, patch: Json | null | undefined): Json | undefined {
  if (patch === undefined) return old;
  if (patch === null) return undefined;
  const out = Object.assign({}, old);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

function without(u: Json): Json {
  const { sessionUpdate: _, ...rest } = u;
  return rest;
}

function upsertIn(map: Map<string, Json>, id: string, change: (old: Json | undefined) => Json): Map<string, Json> {
  return new Map(map).set(id, change(map.get(id)));
}

const message = (old: Json | undefined, u: Json): Json =>
  clean({ messageId: u.messageId, content: reset(old?.content, u.content, []), _meta: meta(old?._meta, u._meta) });

const appendTo = (into: string, base: Json) => (old: Json | undefined, item: unknown): Json => {
  const entity = old ?? base;
  return { ...entity, [into]: [...(entity[into] ?? []), item] };
};

function toolCall(old: Json | undefined, u: Json): Json {
  return clean({
    toolCallId: u.toolCallId, name: field(old?.name, u.name), title: field(old?.title, u.title),
    kind: reset(old?.kind, u.kind, "other"), status: reset(old?.status, u.status, "pending"),
    content: reset(old?.content, u.content, []), locations: reset(old?.locations, u.locations, []),
    rawInput: field(old?.rawInput, u.rawInput), rawOutput: field(old?.rawOutput, u.rawOutput),
    capabilities: field(old?.capabilities, u.capabilities), _meta: meta(old?._meta, u._meta),
  });
}

function terminal(old: Json | undefined, u: Json): Json {
  return clean({
    terminalId: u.terminalId, command: field(old?.command, u.command), cwd: field(old?.cwd, u.cwd),
    output: field(old?.output, u.output), exitStatus: field(old?.exitStatus, u.exitStatus), size: field(old?.size, u.size),
    capabilities: field(old?.capabilities, u.capabilities), _meta: meta(old?._meta, u._meta),
  });
}

/** S12: decode the stored bytes and the chunk's, append, encode. */
function terminalBytes(old: Json | undefined, u: Json): Json {
  const entity = old ?? { terminalId: u.terminalId };
  const bytes = Buffer.concat([Buffer.from(entity.output?.data ?? "", "base64"), Buffer.from(u.data, "base64")]);
  return { ...entity, output: { data: bytes.toString("base64") } };
}

function compaction(old: Json | undefined, u: Json): Json {
  return clean({
    compactionId: u.compactionId, status: u.status, summary: reset(old?.summary, u.summary, []),
    error: field(old?.error, u.error), _meta: meta(old?._meta, u._meta),
  });
}

function subagent(old: Json | undefined, u: Json): Json {
  return clean({
    sessionId: u.sessionId, title: field(old?.title, u.title), description: field(old?.description, u.description),
    capabilities: field(old?.capabilities, u.capabilities), state: field(old?.state, u.state), cwd: field(old?.cwd, u.cwd),
    additionalDirectories: field(old?.additionalDirectories, u.additionalDirectories), _meta: meta(old?._meta, u._meta),
  });
}

function sessionMessage(old: Json | undefined, u: Json): Json {
  return clean({
    messageId: u.messageId, senderSessionId: field(old?.senderSessionId, u.senderSessionId),
    recipientSessionId: field(old?.recipientSessionId, u.recipientSessionId), senderMessageId: field(old?.senderMessageId, u.senderMessageId),
    recipientMessageId: field(old?.recipientMessageId, u.recipientMessageId), content: reset(old?.content, u.content, []),
    _meta: meta(old?._meta, u._meta),
  });
}

/** The state after one update (v2 unstable). */
export function naiveReduce(s: NaiveState, u: Json): NaiveState {
  switch (u.sessionUpdate) {
    case "user_message_chunk":
      return { ...s, userMessages: upsertIn(s.userMessages, u.messageId, (o) => appendTo("content", { messageId: u.messageId, content: [] })(o, u.content)) };
    case "agent_message_chunk":
      return { ...s, agentMessages: upsertIn(s.agentMessages, u.messageId, (o) => appendTo("content", { messageId: u.messageId, content: [] })(o, u.content)) };
    case "agent_thought_chunk":
      return { ...s, agentThoughts: upsertIn(s.agentThoughts, u.messageId, (o) => appendTo("content", { messageId: u.messageId, content: [] })(o, u.content)) };
    case "user_message":
      return { ...s, userMessages: upsertIn(s.userMessages, u.messageId, (o) => message(o, u)) };
    case "agent_message":
      return { ...s, agentMessages: upsertIn(s.agentMessages, u.messageId, (o) => message(o, u)) };
    case "agent_thought":
      return { ...s, agentThoughts: upsertIn(s.agentThoughts, u.messageId, (o) => message(o, u)) };
    case "state_update":
      return { ...s, state: without(u) };
    case "tool_call_update":
      return { ...s, toolCalls: upsertIn(s.toolCalls, u.toolCallId, (o) => toolCall(o, u)) };
    case "tool_call_content_chunk":
      return { ...s, toolCalls: upsertIn(s.toolCalls, u.toolCallId, (o) => appendTo("content", toolCall(undefined, { toolCallId: u.toolCallId }))(o, u.content)) };
    case "terminal_update":
      return { ...s, terminals: upsertIn(s.terminals, u.terminalId, (o) => terminal(o, u)) };
    case "terminal_output_chunk":
      return { ...s, terminals: upsertIn(s.terminals, u.terminalId, (o) => terminalBytes(o, u)) };
    case "plan_update":
      return { ...s, plans: new Map(s.plans).set(u.plan.planId, u.plan) };
    case "plan_removed": {
      const plans = new Map(s.plans);
      plans.delete(u.planId);
      return { ...s, plans };
    }
    case "available_commands_update":
      return { ...s, availableCommands: u.availableCommands };
    case "config_option_update":
      return { ...s, configOptions: u.configOptions };
    case "session_info_update":
      return { ...s, info: clean({ title: field(s.info?.title, u.title), updatedAt: field(s.info?.updatedAt, u.updatedAt), _meta: meta(s.info?._meta, u._meta) }) };
    case "usage_update":
      return { ...s, usage: clean({ used: u.used, size: u.size, cost: field(s.usage?.cost, u.cost), _meta: u._meta ?? undefined }) };
    case "notice":
      return { ...s, notices: [...s.notices, without(u)] };
    case "compaction_update":
      return { ...s, compactions: upsertIn(s.compactions, u.compactionId, (o) => compaction(o, u)) };
    case "compaction_summary_chunk":
      return {
        ...s,
        compactions: upsertIn(s.compactions, u.compactionId, (o) =>
          appendTo("summary", compaction(undefined, { compactionId: u.compactionId, status: "in_progress" }))(o, u.content)),
      };
    case "subagent_update":
      return { ...s, subagents: upsertIn(s.subagents, u.sessionId, (o) => subagent(o, u)) };
    case "session_message":
      return { ...s, sessionMessages: upsertIn(s.sessionMessages, u.messageId, (o) => sessionMessage(o, u)) };
    case "session_message_chunk":
      return { ...s, sessionMessages: upsertIn(s.sessionMessages, u.messageId, (o) => appendTo("content", sessionMessage(undefined, u.messageId === undefined ? {} : { messageId: u.messageId }))(o, u.content)) };
    default:
      return { ...s, custom: [...s.custom, u] };
  }
}
