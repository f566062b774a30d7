/**
 * The baselines for bench/reducer.bench.ts: a session reducer for ACP v2
 * unstable written by hand the way a client author would, following the same
 * rules as the generated `reduceSession` (semantics.md S1-S21; the stored form
 * of schema/semantics.json), with a fresh object per entity update. Three
 * flavours share every rule:
 * - `naiveReduceInPlace`: ONE state whose `Map`s and lists are updated in
 *   place, lists copied per chunk (issue 11's baseline; old states are gone);
 * - `naiveReduceInPlacePushing`: the same, but a chunk pushes onto the
 *   entity's list (one it made itself) instead of copying it;
 * - `naiveReduce`: pure in the naive sense, a spread state and a copied `Map`
 *   per update, so the previous state's containers are never mutated.
 * None copies or freezes what it takes from an update: states share the
 * update's objects.
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
  /** Entities in order of first appearance across the maps. */
  timeline: { kind: MapSlot; id: string }[];
}

export function naiveEmpty(): NaiveState {
  return {
    toolCalls: new Map(), userMessages: new Map(), agentMessages: new Map(), agentThoughts: new Map(),
    sessionMessages: new Map(), terminals: new Map(), compactions: new Map(), subagents: new Map(), plans: new Map(),
    state: { state: "idle" }, notices: [], custom: [], timeline: [],
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

/** The slots that hold entities by id; each new id also joins the timeline. */
type MapSlot = "toolCalls" | "userMessages" | "agentMessages" | "agentThoughts" | "sessionMessages" | "terminals" | "compactions" | "subagents" | "plans";

/** How a reducer flavour changes a state: a slot's new value, an entity, a removal, a list item. */
interface Mode {
  slot<K extends keyof NaiveState>(s: NaiveState, slot: K, value: NaiveState[K]): NaiveState;
  /** Stores `change(old, u, mode)` under `id`; called as a method, so `this` is the mode (its list rule `grow` included). */
  upsert(this: Mode, s: NaiveState, slot: MapSlot, id: string, change: (old: Json | undefined, u: Json, m: Mode) => Json, u: Json): NaiveState;
  remove(s: NaiveState, slot: MapSlot, id: string): NaiveState;
  push(list: Json[], item: Json): Json[];
  /** An entity's chunk list (`undefined`: none yet) with `item` at its end. */
  grow(list: unknown[] | undefined, item: unknown): unknown[];
}

const copying: Mode = {
  slot: (s, slot, value) => ({ ...s, [slot]: value }),
  upsert(s, slot, id, change, u) {
    const map = s[slot];
    const next = { ...s, [slot]: new Map(map).set(id, change(map.get(id), u, this)) };
    if (!map.has(id)) next.timeline = [...s.timeline, { kind: slot, id }];
    return next;
  },
  remove(s, slot, id) {
    if (!s[slot].has(id)) return s;
    const map = new Map(s[slot]);
    map.delete(id);
    return { ...s, [slot]: map, timeline: s.timeline.filter((e) => e.kind !== slot || e.id !== id) };
  },
  push: (list, item) => [...list, item],
  grow: (list, item) => [...(list ?? []), item],
};

const inPlace: Mode = {
  slot(s, slot, value) {
    s[slot] = value;
    return s;
  },
  upsert(s, slot, id, change, u) {
    const map = s[slot];
    const old = map.get(id);
    if (old === undefined) s.timeline.push({ kind: slot, id });
    map.set(id, change(old, u, this));
    return s;
  },
  remove(s, slot, id) {
    if (s[slot].delete(id)) s.timeline.splice(s.timeline.findIndex((e) => e.kind === slot && e.id === id), 1);
    return s;
  },
  push(list, item) {
    list.push(item);
    return list;
  },
  grow: (list, item) => [...(list ?? []), item],
};

/** The chunk lists `pushing` made itself, which no update or other state shares: it may push onto them. */
const ownLists = new WeakSet<unknown[]>();

/** `inPlace`, but a chunk pushes onto the entity's list (copied once, the first time, when an update or another state may share it). */
const pushing: Mode = {
  ...inPlace,
  grow(list, item) {
    let own = list;
    if (own === undefined || !ownLists.has(own)) ownLists.add((own = own === undefined ? [] : [...own]));
    own.push(item);
    return own;
  },
};

const message = (old: Json | undefined, u: Json): Json =>
  clean({ messageId: u.messageId, content: reset(old?.content, u.content, []), _meta: meta(old?._meta, u._meta) });

/** A fresh entity: `entity` with the chunk's `content` appended to its `into` list (as `m` grows lists). */
function appendTo(m: Mode, into: string, entity: Json, u: Json): Json {
  return { ...entity, [into]: m.grow(entity[into], u.content) };
}

/* The entity after a chunk, one function per chunk kind (no closure per update). */
const messageChunk = (o: Json | undefined, u: Json, m: Mode) => appendTo(m, "content", o ?? { messageId: u.messageId, content: [] }, u);
const toolCallChunk = (o: Json | undefined, u: Json, m: Mode) => appendTo(m, "content", o ?? toolCall(undefined, { toolCallId: u.toolCallId }), u);
const compactionChunk = (o: Json | undefined, u: Json, m: Mode) => appendTo(m, "summary", o ?? compaction(undefined, { compactionId: u.compactionId, status: "in_progress" }), u);
const sessionMessageChunk = (o: Json | undefined, u: Json, m: Mode) =>
  appendTo(m, "content", o ?? sessionMessage(undefined, u.messageId === undefined ? {} : { messageId: u.messageId }), u);
const planOf = (_: Json | undefined, u: Json) => u.plan;

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

/** S12: a chunk that is not (padded or unpadded) base64 changes nothing. */
function isBase64(text: unknown): boolean {
  return typeof text === "string" && Buffer.from(text, "base64").toString("base64") === text.padEnd(Math.ceil(text.length / 4) * 4, "=");
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

/** The state after one update (v2 unstable), changed the way `m` says. */
function reduceBy(m: Mode, s: NaiveState, u: Json): NaiveState {
  switch (u.sessionUpdate) {
    case "user_message_chunk":
      return m.upsert(s, "userMessages", u.messageId, messageChunk, u);
    case "agent_message_chunk":
      return m.upsert(s, "agentMessages", u.messageId, messageChunk, u);
    case "agent_thought_chunk":
      return m.upsert(s, "agentThoughts", u.messageId, messageChunk, u);
    case "user_message":
      return m.upsert(s, "userMessages", u.messageId, message, u);
    case "agent_message":
      return m.upsert(s, "agentMessages", u.messageId, message, u);
    case "agent_thought":
      return m.upsert(s, "agentThoughts", u.messageId, message, u);
    case "state_update":
      return m.slot(s, "state", without(u));
    case "tool_call_update":
      return m.upsert(s, "toolCalls", u.toolCallId, toolCall, u);
    case "tool_call_content_chunk":
      return m.upsert(s, "toolCalls", u.toolCallId, toolCallChunk, u);
    case "terminal_update":
      return m.upsert(s, "terminals", u.terminalId, terminal, u);
    case "terminal_output_chunk":
      if (!isBase64(u.data)) return s;
      return m.upsert(s, "terminals", u.terminalId, terminalBytes, u);
    case "plan_update":
      return m.upsert(s, "plans", u.plan.planId, planOf, u);
    case "plan_removed":
      return m.remove(s, "plans", u.planId);
    case "available_commands_update":
      return m.slot(s, "availableCommands", u.availableCommands);
    case "config_option_update":
      return m.slot(s, "configOptions", u.configOptions);
    case "session_info_update":
      return m.slot(s, "info", clean({ title: field(s.info?.title, u.title), updatedAt: field(s.info?.updatedAt, u.updatedAt), _meta: meta(s.info?._meta, u._meta) }));
    case "usage_update":
      return m.slot(s, "usage", clean({ used: u.used, size: u.size, cost: field(s.usage?.cost, u.cost), _meta: u._meta ?? undefined }));
    case "notice":
      return m.slot(s, "notices", m.push(s.notices, without(u)));
    case "compaction_update":
      return m.upsert(s, "compactions", u.compactionId, compaction, u);
    case "compaction_summary_chunk":
      return m.upsert(s, "compactions", u.compactionId, compactionChunk, u);
    case "subagent_update":
      return m.upsert(s, "subagents", u.sessionId, subagent, u);
    case "session_message":
      return m.upsert(s, "sessionMessages", u.messageId, sessionMessage, u);
    case "session_message_chunk":
      return m.upsert(s, "sessionMessages", u.messageId, sessionMessageChunk, u);
    default:
      return m.slot(s, "custom", m.push(s.custom, u));
  }
}

/** The state after one update; the previous state is left as it was (copied containers). */
export function naiveReduce(s: NaiveState, u: Json): NaiveState {
  return reduceBy(copying, s, u);
}

/** The state after one update, made by changing `s` in place (returns `s`). */
export function naiveReduceInPlace(s: NaiveState, u: Json): NaiveState {
  return reduceBy(inPlace, s, u);
}

/**
 * `naiveReduceInPlace`, but a chunk pushes onto the entity's list instead of
 * copying it (still a fresh entity object per update): what an author who
 * keeps only the newest state writes for long messages. It never pushes onto
 * a list it did not make, so updates stay untouched.
 */
export function naiveReduceInPlacePushing(s: NaiveState, u: Json): NaiveState {
  return reduceBy(pushing, s, u);
}
