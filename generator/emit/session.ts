/**
 * emitSession: the semantics overlay -> `session.ts` of one surface: the
 * `SessionState` type, `emptySessionState()`, `reduceSession(state, update)`
 * (S1-S22, S27, S34, S35), `applyMeta` (S6) and, where subagents mirror a
 * child's state, `subagentStatus(entry)`. The reducer is the runtime engine
 * driven by a generated route table (one route per `SessionUpdate` variant),
 * behind a generated `switch` that sends keyed upserts and chunks into a
 * stored entity straight to the runtime's fast paths.
 */
import type { EmitContext } from "../api.js";
import { block, clause, code, doc, GeneratedFile, join, key, lines, literalKey, member, name, own, wrapped, type Code } from "../code.js";
import type { SessionRoute, Semantics, TaggedUnionNode } from "../ir.js";
import type { SurfaceModel } from "../model.js";
import { patchFunction } from "./apply.js";
import { FIRST_ISSUE_MODULE } from "./validators.js";

/** The TypeScript type of a slot, and whether a new session has it. */
interface Slot {
  readonly name: string;
  readonly type: Code;
  readonly kind: "map" | "list" | "singleton";
  readonly initial: boolean;
  readonly writers: readonly string[];
  /** The route whose stored shape the slot has (a snapshot, then an upsert, then a chunk). */
  readonly shape?: SessionRoute;
  /** A doc comment of its own (a slot no route stores into: the open message of S36). */
  readonly doc?: readonly string[];
}

/** The singleton naming the message that v1 chunks without an id append to (S36). */
const OPEN_SLOT = "openMessage";

/** S36: whether a route is a v1 message chunk: a plain `{ key, into }` record, whose key a chunk may omit. */
function isPositional(route: SessionRoute): boolean {
  return route.op === "append" && route.entity === undefined && !route.bytes;
}

/** The namespaces the module's code refers to, registered on its file. */
interface Names {
  readonly T: Code;
  readonly apply: Code;
  /** runtime/patch.ts, for the patch functions declared here. */
  readonly rt: () => Code;
}

/** Emits the `session.ts` module of one surface. */
export function emitSession(model: SurfaceModel, context: Pick<EmitContext, "runtime">): string {
  const { semantics } = model;
  const f = new GeneratedFile();
  const patchModule = `${context.runtime}/patch.js`;
  const sessionModule = `${context.runtime}/session.js`;
  const names: Names = { T: f.importAll("./types.js", "T", { type: true }), apply: f.importAll("./apply.js", "apply"), rt: () => f.importAll(patchModule, "rt") };
  const slots = slotsOf(semantics, model.session.union.node, names.T);
  const reexports = [code`export { applyMeta } from ${patchModule};`];
  if (model.session.mirror) reexports.push(code`export { subagentStatus, type SubagentStatusProjection } from ${`${context.runtime}/subagent.js`};`);
  f.print(lines(reexports));
  f.print(...localPatches(semantics, names));
  f.print(timelineType(semantics), stateInterface(slots, model.surface), jsonInterface(slots), stateCopy(slots), ...slotAccess(slots));
  // The first-issue check (validate-first.ts), not `validate.X`: a bundle of the reducer then keeps no all-issues collector.
  const validate = code`(value: unknown) => ${f.import(`${context.runtime}/decode.js`, "finish")}(${f.importAll(FIRST_ISSUE_MODULE, "first")}.${name(semantics.union)}(value) ? value : undefined)`;
  f.print(tableConst(model, slots, names, validate, f.import(sessionModule, "uniformRoute"), f.import(sessionModule, "SessionTable", { type: true })));
  const union = code`${names.T}.${name(model.session.union.name)}`;
  f.print(reducer(model, union, names, { reduce: f.import(sessionModule, "reduce"), upsertEntity: f.import(sessionModule, "upsertEntity"), appendItem: f.import(sessionModule, "appendItem") }));
  const runtime = { emptyState: f.import(sessionModule, "emptyState"), toJson: f.import(sessionModule, "toJson"), fromJson: f.import(sessionModule, "fromJson") };
  f.print(...entryPoints(model, union, runtime, f.import(`${context.runtime}/result.js`, "Result", { type: true })));
  if (recordsPrompts(model)) f.print(promptEntry(model, names.T, f.import(sessionModule, "recordPrompt")));
  return f.toString();
}

/** The patch function of an upsert type (`apply.X`, or one declared here) or of a plain `{ key, into }` record. */
function patchFor(semantics: Semantics, names: Names, type: string | undefined, key?: string, into?: string): Code {
  if (type !== undefined && semantics.upserts.some((u) => u.type === type && u.patch)) return code`${names.apply}.${name(type)}`;
  return type !== undefined ? name(`patch${type}`) : name(`patchRecord_${key!}_${into!}`);
}

/** Patch functions the module declares itself: non-patch types (no `apply.X`) and plain chunk records. */
function localPatches(semantics: Semantics, names: Names): Code[] {
  const functions = new Map<string, Code>();
  const declare = (fn: Code, fields: Parameters<typeof patchFunction>[3]) => {
    const rt = names.rt();
    functions.set(fn.text, patchFunction(code`function`, fn, code`${rt}.JsonObject`, fields, rt));
  };
  for (const upsert of semantics.upserts) if (!upsert.patch) declare(patchFor(semantics, names, upsert.type), upsert.fields);
  for (const route of semantics.routes) {
    if (route.op === "append" && route.entity === undefined) {
      declare(patchFor(semantics, names, undefined, route.key, route.into), [
        { name: route.key, rule: { kind: "replace" } },
        { name: route.into, rule: { kind: "reset", value: [] } },
      ]);
    }
  }
  return [...functions.values()];
}

/** Every slot of `SessionState`, with the type the routes that write it store. */
function slotsOf(semantics: Semantics, union: TaggedUnionNode, types: Code): Slot[] {
  const slot = (slotName: string, kind: Slot["kind"]): Slot => {
    const routes = semantics.routes.filter((r) => r.slot === slotName);
    const shape = [...routes].sort((a, b) => rank(a) - rank(b))[0];
    const type = shape ? storedType(shape, union, types) : code`never`;
    const initial = routes.some((r) => r.op === "put" && r.initial !== undefined);
    return { name: slotName, kind, type, initial, writers: routes.map((r) => r.tag), ...(shape ? { shape } : {}) };
  };
  const singletons = [...new Set(semantics.routes.map((r) => r.slot))].filter((s) => !semantics.maps.includes(s) && !semantics.lists.includes(s));
  return [...semantics.maps.map((s) => slot(s, "map")), ...singletons.map((s) => slot(s, "singleton")), ...openSlot(semantics), ...semantics.lists.map((s) => slot(s, "list"))];
}

/** S36: the open-message singleton, on surfaces whose message chunks may lack an id. */
function openSlot(semantics: Semantics): Slot[] {
  const writers = semantics.routes.filter(isPositional).map((r) => r.tag);
  if (writers.length === 0) return [];
  const comment = [
    "S36: the message that chunks without a `messageId` append to: the last one such a chunk started,",
    "open while it is the newest timeline entry. Those messages are stored without `messageId`, under",
    "ids of the reducer's own (`#1`, `#2`, ... per map) that no wire id shares. Absent when none was started.",
  ];
  return [{ name: OPEN_SLOT, type: code`SessionTimelineEntry`, kind: "singleton", initial: false, writers, doc: comment }];
}

/** Which route's type a slot takes when several write it: a snapshot, then an upsert, then a chunk. */
function rank(route: SessionRoute): number {
  return ["put", "upsert", "append", "remove", "event"].indexOf(route.op);
}

/** The TypeScript type of what a route stores. */
function storedType(route: SessionRoute, union: TaggedUnionNode, T: Code): Code {
  switch (route.op) {
    case "upsert":
      return code`${T}.${name(route.payload)}`;
    case "append":
      return route.entity !== undefined
        ? code`${T}.${name(route.entity)}`
        : code`{ ${key(route.key)}?: string; ${key(route.into)}: ${T}.${name(route.payload)}[${route.item}][] }`;
    case "put":
      return route.value === undefined ? code`${T}.${name(route.payload)}` : code`${T}.${name(route.payload)}[${route.value}]`;
    case "remove":
      return code`never`;
    case "event":
      return code`${T}.${name(route.raw ? union.other!.name : route.payload!)}`;
  }
}

function stateInterface(slots: readonly Slot[], surface: string): Code {
  const fields = slots.map((s) => {
    const by = s.writers.length ? `Written by ${s.writers.map((t) => (t === "*" ? "custom (unknown-tag) updates" : `\`${t}\``)).join(", ")}.` : "No update of this surface writes it.";
    switch (s.kind) {
      case "map":
        return code`${doc([`Entities by id, in order of first appearance. ${by}`])}readonly ${key(s.name)}: ReadonlyMap<string, ${s.type}>;`;
      case "list":
        return code`${doc([`In arrival order. ${by}`])}readonly ${key(s.name)}: readonly ${s.type}[];`;
      case "singleton":
        return code`${doc(s.doc ?? [`The latest value. ${by}${s.initial ? "" : " Absent until first reported."}`])}readonly ${key(s.name)}${optional(s)}: ${s.type};`;
    }
  });
  const timeline = doc([
    "Every entity of the maps, in order of first appearance across kinds: the order a transcript renders",
    "messages, thoughts and tool calls in. A removed entity leaves it.",
  ]);
  const comment = doc([
    `The state of one session as \`reduceSession\` builds it (ACP ${surface}).`,
    "",
    "Entities are stored in the wire shape of their update type without the tag, in the",
    "canonical form: defaults materialised (S4), `null` never stored, empty `_meta` omitted (S6).",
    "Every stored value is frozen: states share structure and are never modified.",
  ]);
  return code`${comment}${block(code`export interface SessionState`, [...fields, code`${timeline}readonly timeline: readonly SessionTimelineEntry[];`])}`;
}

/** `?` for a singleton a new session lacks. */
function optional(slot: Slot): Code {
  return slot.initial ? code`` : code`?`;
}

/** `SessionTimelineEntry`: the kinds are the map slots' names. */
function timelineType(semantics: Semantics): Code {
  const comment = doc(["One entry of `SessionState.timeline`: the map an entity is in (`kind`) and its id there."]);
  const kinds = join(
    semantics.maps.map((m) => code`${m}`),
    code` | `,
  );
  return code`${comment}${block(code`export interface SessionTimelineEntry`, [code`readonly kind: ${kinds};`, code`readonly id: string;`])}`;
}

/** `SessionStateJson`: what `sessionStateToJSON` returns; maps as `[id, entity]` pairs. */
function jsonInterface(slots: readonly Slot[]): Code {
  const fields = slots.map((s) => {
    switch (s.kind) {
      case "map":
        return code`${key(s.name)}: [string, ${s.type}][];`;
      case "list":
        return code`${key(s.name)}: ${s.type}[];`;
      case "singleton":
        return code`${key(s.name)}${optional(s)}: ${s.type};`;
    }
  });
  const comment = doc([
    "A `SessionState` as plain JSON data (`sessionStateToJSON`): each map as its `[id, entity]` pairs in order",
    "(ids may look like array indexes, which object keys would reorder), singletons, lists and the timeline.",
  ]);
  return code`${comment}${block(code`export interface SessionStateJson`, [...fields, code`timeline: SessionTimelineEntry[];`])}`;
}

/** `copyState`: one object literal holding every slot a state always has, then the reported singletons. */
function stateCopy(slots: readonly Slot[]): Code {
  const [state, copy] = [code`state`, code`copy`];
  const always = slots.filter((s) => s.kind !== "singleton" || s.initial).map((s) => code`${literalKey(s.name)}: ${member(state, s.name)}`);
  const reported = slots.filter((s) => s.kind === "singleton" && !s.initial);
  const comment = doc(["A shallow copy of a state as one object literal, so that every state has the same fast shape."]);
  return code`${comment}${block(code`function copyState(state: SessionState): Record<string, unknown>`, [
    code`const copy: Record<string, unknown> = { ${join([...always, code`timeline: state.timeline`], code`, `)} };`,
    ...reported.map((s) => code`if (${member(state, s.name)} !== undefined) ${member(copy, s.name)} = ${member(state, s.name)};`),
    code`return copy;`,
  ])}`;
}

/**
 * `readSlot` and `writeSlot`: a state's slot by its name, through a `switch` of named
 * accesses (the runtime's fast paths get the slot name as a value; `state[slot]` with a
 * key that varies is a megamorphic lookup). Any other name is read and written by key.
 */
function slotAccess(slots: readonly Slot[]): [Code, Code] {
  const [state, value] = [code`state`, code`value`];
  const reads = slots.map((s) => clause(code`case ${s.name}:`, [code`return ${member(state, s.name)};`]));
  const writes = slots.map((s) => clause(code`case ${s.name}:`, [code`${member(state, s.name)} = ${value};`, code`return;`]));
  const readDoc = doc(["`state[slot]` by a named access per slot (`SessionTable.read`)."]);
  const writeDoc = doc(["`state[slot] = value` by a named access per slot, on a state copy (`SessionTable.write`)."]);
  return [
    code`${readDoc}${block(code`function readSlot(state: Record<string, unknown>, slot: string): unknown`, [
      block(code`switch (slot)`, [...reads, clause(code`default:`, [code`return state[slot];`])]),
    ])}`,
    code`${writeDoc}${block(code`function writeSlot(state: Record<string, unknown>, slot: string, value: unknown): void`, [
      block(code`switch (slot)`, [...writes, clause(code`default:`, [code`state[slot] = value;`])]),
    ])}`,
  ];
}

/** The reducer's table; `validate` checks a stored value as an update (first issue). */
function tableConst(model: SurfaceModel, slots: readonly Slot[], names: Names, validate: Code, uniformRoute: Code, sessionTable: Code): Code {
  const { semantics } = model;
  const known = semantics.routes.filter((r) => r.tag !== "*");
  const other = semantics.routes.find((r) => r.tag === "*");
  const initial = Object.fromEntries(semantics.routes.flatMap((r) => (r.op === "put" && r.initial !== undefined ? [[r.slot, r.initial]] : [])));
  const route = (r: SessionRoute) => code`${uniformRoute}(${routeLiteral(semantics, names, r)})`;
  const strings = (items: readonly string[]) => code`[${join(items.map((i) => code`${i}`), code`, `)}]`;
  return wrapped(
    code`const TABLE: ${sessionTable} = {`,
    [
      code`tag: ${model.session.union.node.tag},`,
      wrapped(code`routes: new Map([`, known.map((r) => code`[${r.tag}, ${route(r)}],`), code`]),`),
      ...(other ? [code`other: ${route(other)},`] : []),
      code`maps: ${strings(semantics.maps)},`,
      code`lists: ${strings(semantics.lists)},`,
      code`singletons: ${strings(slots.filter((s) => s.kind === "singleton").map((s) => s.name))},`,
      code`initial: ${jsonLiteral(initial)},`,
      ...promptPlace(semantics),
      wrapped(code`stored: {`, slots.flatMap((s) => (s.shape ? [code`${literalKey(s.name)}: ${storedAs(semantics, s.shape)},`] : [])), code`},`),
      code`validate: ${validate},`,
      code`copy: copyState,`,
      code`read: readSlot,`,
      code`write: writeSlot,`,
    ],
    code`};`,
  );
}

/**
 * S36: where `reducePrompt` records a prompt: the user messages' map, and on v1 the
 * open-message slot it closes, on v2 the user-message upsert the agent echoes.
 */
function promptPlace(semantics: Semantics): Code[] {
  const chunk = semantics.routes.find((r) => r.tag === USER_CHUNK);
  if (chunk === undefined) return [];
  if (isPositional(chunk)) return [code`prompt: ${objectOf([code`slot: ${chunk.slot}`, code`open: ${OPEN_SLOT}`])},`];
  const upsert = semantics.routes.find((r) => r.op === "upsert" && r.slot === chunk.slot);
  return upsert === undefined ? [] : [code`prompt: ${objectOf([code`slot: ${chunk.slot}`, code`tag: ${upsert.tag}`])},`];
}

/** The chunk of a user message: its map is where prompts go (S36). */
const USER_CHUNK = "user_message_chunk";

/** An object literal of `name: value` parts. */
function objectOf(parts: readonly Code[]): Code {
  return code`{ ${join(parts, code`, `)} }`;
}

/** The identity field of an upsert type, if it has one. */
function upsertKey(semantics: Semantics, type: string): string | undefined {
  return semantics.upserts.find((u) => u.type === type)!.key;
}

/** How `sessionStateFromJSON` checks what a slot stores: as the update of its shape route (runtime `StoredAs`). */
function storedAs(semantics: Semantics, route: SessionRoute): Code {
  const parts = [code`tag: ${route.tag}`];
  switch (route.op) {
    case "upsert": {
      const id = upsertKey(semantics, route.payload);
      if (id !== undefined) parts.push(code`id: ${id}`);
      break;
    }
    case "append":
      parts.push(code`id: ${route.key}`);
      if (route.entity === undefined) parts.push(code`record: ${objectOf([code`key: ${route.key}`, code`item: ${route.item}`, code`into: ${route.into}`])}`);
      break;
    case "put":
      if (route.value !== undefined) parts.push(code`value: ${route.value}`);
      if (route.key !== undefined) parts.push(code`id: ${route.key}`);
      break;
    case "event":
      if (route.raw) parts.push(code`raw: true`);
      break;
    case "remove":
      break;
  }
  return objectOf(parts);
}

/** The runtime route of one variant; one case per op. */
function routeLiteral(semantics: Semantics, names: Names, route: SessionRoute): Code {
  const parts = [code`op: ${route.op}`, code`slot: ${route.slot}`];
  switch (route.op) {
    case "upsert": {
      const id = upsertKey(semantics, route.payload);
      parts.push(code`patch: ${patchFor(semantics, names, route.payload)}`);
      if (id !== undefined) parts.push(code`key: ${id}`);
      if (route.creates) parts.push(code`creates: ${jsonLiteral(route.creates)}`);
      break;
    }
    case "append":
      parts.push(code`patch: ${patchFor(semantics, names, route.entity, route.key, route.into)}`, code`key: ${route.key}`, code`item: ${route.item}`, code`into: ${route.into}`);
      if (route.bytes) parts.push(code`bytes: true`);
      if (route.creates) parts.push(code`creates: ${jsonLiteral(route.creates)}`);
      if (route.patches) parts.push(code`patches: ${jsonLiteral(route.patches)}`);
      if (isPositional(route)) parts.push(code`positional: true`);
      break;
    case "put":
      if (route.value !== undefined) parts.push(code`value: ${route.value}`);
      if (route.key !== undefined) parts.push(code`key: ${route.key}`);
      break;
    case "remove":
      parts.push(code`key: ${route.key}`);
      break;
    case "event":
      if (route.raw) parts.push(code`raw: true`);
      break;
  }
  return objectOf(parts);
}

/**
 * `reduceWith`: the reducer. It reads the update's tag and, for the most
 * frequent updates (keyed upserts, chunks), the fields the route names
 * directly, and calls the runtime's fast path for it (`fastPath`); every
 * other update goes through the route table (`reduce`).
 */
function reducer(model: SurfaceModel, union: Code, names: Names, engine: FastPaths): Code {
  const { semantics } = model;
  const u = code`u`;
  const rt = names.rt();
  const cases = semantics.routes.flatMap((route) => {
    const call = fastPath(semantics, names, engine, u, route);
    return call === undefined ? [] : [clause(code`case ${route.tag}:`, [code`return ${call};`])];
  });
  const tag = own(u, model.session.union.node.tag);
  const comment = doc(["The state after `update`; `owned`: the caller hands the update over (no copy)."]);
  return code`${comment}${block(code`function reduceWith(state: SessionState, update: ${union}, owned: boolean): SessionState`, [
    code`const ${u} = update as unknown as ${rt}.JsonObject;`,
    block(code`switch (typeof update === "object" && update !== null ? ${tag} : undefined)`, [...cases, clause(code`default:`, [code`return ${engine.reduce}(TABLE, state, update, owned);`])]),
  ])}`;
}

/**
 * The runtime call of a route's fast path, if it has one: a keyed upsert
 * without `creates` (`upsertEntity`), or a list chunk into an entity without
 * `patches` (`appendItem`, first sights included; bytes and plain records
 * go the table's way).
 */
function fastPath(semantics: Semantics, names: Names, engine: FastPaths, u: Code, route: SessionRoute): Code | undefined {
  if (route.op === "upsert" && route.creates === undefined) {
    const id = upsertKey(semantics, route.payload);
    return id === undefined ? undefined : code`${engine.upsertEntity}(TABLE, state, ${u}, ${route.slot}, ${own(u, id)}, ${patchFor(semantics, names, route.payload)}, owned)`;
  }
  if (route.op === "append" && route.entity !== undefined && !route.bytes && route.patches === undefined) {
    return code`${engine.appendItem}(TABLE, state, ${u}, ${route.slot}, ${own(u, route.key)}, ${route.into}, ${own(u, route.item)}, owned)`;
  }
  return undefined;
}

/** The runtime functions the generated reducer calls. */
interface FastPaths {
  readonly reduce: Code;
  readonly upsertEntity: Code;
  readonly appendItem: Code;
}

/** The runtime functions the entry points call. */
interface Engine {
  readonly emptyState: Code;
  readonly toJson: Code;
  readonly fromJson: Code;
}

function entryPoints(model: SurfaceModel, union: Code, engine: Engine, result: Code): Code[] {
  const { semantics } = model;
  const unionName = model.session.union.name;
  const emptyDoc = doc([
    "The state of a new session: every map and list empty, singletons never reported",
    "(absent), except those a new session starts with (v2: `state` is idle, S18).",
  ]);
  const reduceDoc = doc([
    `The state after one \`${model.session.notification.method}\` (S1-S22, S27, S35). Pure: neither \`state\` nor`,
    "`update` is modified, and the result shares no mutable structure with them; ids and",
    "`_meta` keys such as `__proto__` are plain data (S34).",
    "",
    "Routes come from the reviewed table schema/semantics.json:",
    ...semantics.routes.map((r) => `- \`${r.tag === "*" ? "<custom tag>" : r.tag}\`: ${r.op} into \`${r.slot}\``),
    "",
    "An update whose tag this surface does not know is kept raw in `custom` on open unions",
    `and ignored on closed ones (v1, S22). Pass updates through \`parse.${unionName}\` first:`,
    "a malformed field it drops then changes nothing (S8).",
    "",
    "Any state the type admits is accepted: a state built by hand or changed by a spread (plain",
    "`Map`s, singletons, lists, a timeline of its own) is adopted on the first update (copied,",
    "frozen, the timeline completed from the maps).",
    "What the update holds is copied; `reduceSessionOwned` skips that copy.",
  ]);
  const ownedDoc = doc([
    "`reduceSession` for an update handed over: the caller never uses or changes `update`",
    `afterwards (typically a fresh \`parse.${unionName}\` result), so its values are stored`,
    "without a copy and frozen in place (entities when first read). Same result as",
    "`reduceSession`; changing the update later would change the states built from it. A part",
    "the caller froze is taken as frozen through and through (as `Object.freeze` of every level",
    "leaves it) and is not walked again.",
  ]);
  const toDoc = doc([
    "A state as plain JSON data, for saving: `JSON.stringify` it, and read it back with",
    "`sessionStateFromJSON`. Entities are shared with the state (they are frozen).",
  ]);
  const fromDoc = doc([
    "The state saved by `sessionStateToJSON` (after `JSON.parse`), or the issues found, with JSON",
    "pointers into `json`. Every stored value is validated as the update that stores it",
    `(\`validate.${unionName}\`), map ids must match the entities' ids, and the timeline must list`,
    "every entity once. `minItems` is not asserted: the tolerant parser keeps shorter arrays, which",
    "the reducer stores. The result holds frozen copies; `json` is not modified. Never throws.",
  ]);
  return [
    code`${emptyDoc}${block(code`export function emptySessionState(): SessionState`, [code`return ${engine.emptyState}(TABLE);`])}`,
    code`${reduceDoc}${block(code`export function reduceSession(state: SessionState, update: ${union}): SessionState`, [code`return reduceWith(state, update, false);`])}`,
    code`${ownedDoc}${block(code`export function reduceSessionOwned(state: SessionState, update: ${union}): SessionState`, [code`return reduceWith(state, update, true);`])}`,
    code`${toDoc}${block(code`export function sessionStateToJSON(state: SessionState): SessionStateJson`, [code`return ${engine.toJson}(TABLE, state) as unknown as SessionStateJson;`])}`,
    code`${fromDoc}${block(code`export function sessionStateFromJSON(json: unknown): ${result}<SessionState>`, [code`return ${engine.fromJson}(TABLE, json);`])}`,
  ];
}

const PROMPT_REQUEST = "PromptRequest";

/** Whether the surface's session.ts exports `reducePrompt` (S36): it has a prompt request and a map for user messages. */
export function recordsPrompts(model: SurfaceModel): boolean {
  return promptPlace(model.semantics).length > 0 && model.defsByName.has(PROMPT_REQUEST);
}

/**
 * `reducePrompt`: S36, a prompt the client sent recorded as a user message. v1: called
 * when the prompt is sent (its id is ours); v2: when its answer names the message.
 */
function promptEntry(model: SurfaceModel, T: Code, recordPrompt: Code): Code {
  const v1 = isPositional(model.semantics.routes.find((r) => r.tag === USER_CHUNK)!);
  const request = code`request: ${T}.${name(PROMPT_REQUEST)}`;
  if (v1) {
    const comment = doc([
      "S36: the state after the client sent `request` (`session/prompt`): its content blocks as a new user",
      "message under an id of the reducer's own, which closes the open message (`openMessage`), so the reply",
      "to this prompt never joins the previous one. Call it as the prompt is sent; `createSessionStore()` does.",
    ]);
    return code`${comment}${block(code`export function reducePrompt(state: SessionState, ${request}): SessionState`, [code`return ${recordPrompt}(TABLE, state, request.prompt);`])}`;
  }
  const comment = doc([
    "S36: the state after the agent answered `request` (`session/prompt`) with `response`: the prompt's content",
    "blocks as the user message `response.messageId`, unless the agent's `user_message` echo stored it already",
    "(then the state is returned as it is). Call it when the answer comes; `createSessionStore()` does.",
  ]);
  return code`${comment}${block(code`export function reducePrompt(state: SessionState, ${request}, response: ${T}.${name("PromptResponse")}): SessionState`, [
    code`return ${recordPrompt}(TABLE, state, request.prompt, response.messageId);`,
  ])}`;
}

/** A JSON value of the overlay as a TypeScript expression; every key stays an own property (`__proto__` computed, S34). */
function jsonLiteral(value: unknown): Code {
  if (Array.isArray(value)) return code`[${join(value.map(jsonLiteral), code`, `)}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([k, v]) => code`${literalKey(k)}: ${jsonLiteral(v)}`);
    return entries.length ? objectOf(entries) : code`{}`;
  }
  return code`${value as string | number | boolean | null}`;
}
