/**
 * emitSession: the semantics overlay -> `session.ts` of one surface: the
 * `SessionState` type, `emptySessionState()`, `reduceSession(state, update)`
 * (S1-S22, S27, S34, S35), `applyMeta` (S6) and, where subagents exist,
 * `subagentStatus(entry)`. The reducer is the runtime engine driven by a
 * generated route table: one route per `SessionUpdate` variant, one function
 * here per route op.
 */
import { ident, jsDoc, literal, objectLiteralKey, propertyAccess, propertyKey } from "../code.js";
import type { SchemaIR, Semantics, SessionRoute, TaggedUnionNode } from "../ir.js";
import { patchFunction } from "./apply.js";
import { runtimeDir, semanticsOf } from "./shared.js";

/** The TypeScript type of a slot, and whether a new session has it. */
interface Slot {
  readonly name: string;
  readonly type: string;
  readonly kind: "map" | "list" | "singleton";
  readonly initial: boolean;
  readonly writers: readonly string[];
  /** The route whose stored shape the slot has (a snapshot, then an upsert, then a chunk). */
  readonly shape?: SessionRoute;
}

/** Emits the `session.ts` module body of one surface. */
export function emitSession(ir: SchemaIR): string {
  const semantics = semanticsOf(ir);
  const union = ir.defs.find((d) => d.name === semantics.union)!.node as TaggedUnionNode;
  const local = localSpecs(semantics);
  const runtime = runtimeDir(ir);
  const subagents = hasSubagentState(ir, semantics);
  const slots = slotsOf(semantics, union);
  return [
    `import type * as T from "./types.js";`,
    `import * as apply from "./apply.js";`,
    `import * as validate from "./validate.js";`,
    ...(local.length ? [`import * as rt from ${literal(`${runtime}/patch.js`)};`] : []),
    `import type { Result } from ${literal(`${runtime}/result.js`)};`,
    `import { emptyState, fromJson, reduce, toJson, uniformRoute, type SessionTable } from ${literal(`${runtime}/session.js`)};`,
    "",
    `export { applyMeta } from ${literal(`${runtime}/patch.js`)};`,
    ...(subagents ? [`export { subagentStatus, type SubagentStatusProjection } from ${literal(`${runtime}/subagent.js`)};`] : []),
    "",
    ...local.map((code) => `${code}\n`),
    timelineType(semantics),
    stateInterface(slots, ir),
    jsonInterface(slots),
    stateCopy(slots),
    tableConst(semantics, union, slots),
    entryPoints(semantics),
  ].join("\n");
}

/** Names the patch function of an upsert type or a plain `{ key, into }` record. */
function patchFor(semantics: Semantics, type: string | undefined, key?: string, into?: string): string {
  if (type !== undefined && semantics.upserts.some((u) => u.type === type && u.patch)) return `apply.${ident(type)}`;
  return type !== undefined ? `patch${ident(type)}` : `patchRecord_${ident(key!)}_${ident(into!)}`;
}

/** Patch functions the module declares itself: non-patch types (no `apply.X`) and plain chunk records. */
function localSpecs(semantics: Semantics): string[] {
  const functions = new Map<string, string>();
  for (const upsert of semantics.upserts) {
    if (!upsert.patch) functions.set(patchFor(semantics, upsert.type), patchFunction(`function ${patchFor(semantics, upsert.type)}`, "rt.JsonObject", upsert.fields));
  }
  for (const route of semantics.routes) {
    if (route.op === "append" && route.entity === undefined) {
      const fields = [
        { name: route.key, rule: { kind: "replace" } as const },
        { name: route.into, rule: { kind: "reset", value: [] } as const },
      ];
      const name = patchFor(semantics, undefined, route.key, route.into);
      functions.set(name, patchFunction(`function ${name}`, "rt.JsonObject", fields));
    }
  }
  return [...functions.values()];
}

/** Every slot of `SessionState`, with the type the routes that write it store. */
function slotsOf(semantics: Semantics, union: TaggedUnionNode): Slot[] {
  const writers = (slot: string) => semantics.routes.filter((r) => r.slot === slot);
  const slot = (name: string, kind: Slot["kind"]): Slot => {
    const routes = writers(name);
    const ranked = [...routes].sort((a, b) => rank(a) - rank(b));
    const type = ranked.length ? storedType(ranked[0]!, union) : "never";
    const initial = routes.some((r) => r.op === "put" && r.initial !== undefined);
    return { name, kind, type, initial, writers: routes.map((r) => r.tag), ...(ranked.length ? { shape: ranked[0]! } : {}) };
  };
  const singletons = [...new Set(semantics.routes.map((r) => r.slot))].filter((s) => !semantics.maps.includes(s) && !semantics.lists.includes(s));
  return [
    ...semantics.maps.map((name) => slot(name, "map")),
    ...singletons.map((name) => slot(name, "singleton")),
    ...semantics.lists.map((name) => slot(name, "list")),
  ];
}

/** Which route's type a slot takes when several write it: a snapshot, then an upsert, then a chunk. */
function rank(route: SessionRoute): number {
  return ["put", "upsert", "append", "remove", "event"].indexOf(route.op);
}

/** The TypeScript type of what a route stores. */
function storedType(route: SessionRoute, union: TaggedUnionNode): string {
  switch (route.op) {
    case "upsert":
      return `T.${ident(route.payload)}`;
    case "append":
      return route.entity !== undefined
        ? `T.${ident(route.entity)}`
        : `{ ${propertyKey(route.key)}: string; ${propertyKey(route.into)}: T.${ident(route.payload)}[${literal(route.item)}][] }`;
    case "put":
      return route.value === undefined ? `T.${ident(route.payload)}` : `T.${ident(route.payload)}[${literal(route.value)}]`;
    case "remove":
      return "never";
    case "event":
      return route.raw ? `T.${ident(union.other!.name)}` : `T.${ident(route.payload!)}`;
  }
}

function stateInterface(slots: readonly Slot[], ir: SchemaIR): string {
  const fields = slots.map((s) => {
    const by = s.writers.length ? `Written by ${s.writers.map((t) => (t === "*" ? "custom (unknown-tag) updates" : `\`${t}\``)).join(", ")}.` : "No update of this surface writes it.";
    switch (s.kind) {
      case "map":
        return `${jsDoc([`Entities by id, in order of first appearance. ${by}`], "  ")}  readonly ${propertyKey(s.name)}: ReadonlyMap<string, ${s.type}>;`;
      case "list":
        return `${jsDoc([`In arrival order. ${by}`], "  ")}  readonly ${propertyKey(s.name)}: readonly ${s.type}[];`;
      case "singleton":
        return `${jsDoc([`The latest value. ${by}${s.initial ? "" : " Absent until first reported."}`], "  ")}  readonly ${propertyKey(s.name)}${s.initial ? "" : "?"}: ${s.type};`;
    }
  });
  const doc = jsDoc([
    `The state of one session as \`reduceSession\` builds it (ACP ${ir.surface}).`,
    "",
    "Entities are stored in the wire shape of their update type without the tag, in the",
    "canonical form: defaults materialised (S4), `null` never stored, empty `_meta` omitted (S6).",
    "Every stored value is frozen: states share structure and are never modified.",
  ]);
  const timeline = `${jsDoc(["Every entity of the maps, in order of first appearance across kinds: the order a transcript renders", "messages, thoughts and tool calls in. A removed entity leaves it."], "  ")}  readonly timeline: readonly SessionTimelineEntry[];`;
  return `${doc}export interface SessionState {\n${[...fields, timeline].join("\n")}\n}\n`;
}

/** `SessionTimelineEntry`: the kinds are the map slots' names. */
function timelineType(semantics: Semantics): string {
  const doc = jsDoc(["One entry of `SessionState.timeline`: the map an entity is in (`kind`) and its id there."]);
  return `${doc}export interface SessionTimelineEntry {\n  readonly kind: ${semantics.maps.map((m) => literal(m)).join(" | ")};\n  readonly id: string;\n}\n`;
}

/** `SessionStateJson`: what `sessionStateToJSON` returns; maps as `[id, entity]` pairs. */
function jsonInterface(slots: readonly Slot[]): string {
  const fields = slots.map((s) => {
    switch (s.kind) {
      case "map":
        return `  ${propertyKey(s.name)}: [string, ${s.type}][];`;
      case "list":
        return `  ${propertyKey(s.name)}: ${s.type}[];`;
      case "singleton":
        return `  ${propertyKey(s.name)}${s.initial ? "" : "?"}: ${s.type};`;
    }
  });
  const doc = jsDoc([
    "A `SessionState` as plain JSON data (`sessionStateToJSON`): each map as its `[id, entity]` pairs in order",
    "(ids may look like array indexes, which object keys would reorder), singletons, lists and the timeline.",
  ]);
  return `${doc}export interface SessionStateJson {\n${fields.join("\n")}\n  timeline: SessionTimelineEntry[];\n}\n`;
}

/** `copyState`: one object literal holding every slot a state always has, then the reported singletons. */
function stateCopy(slots: readonly Slot[]): string {
  const always = slots.filter((s) => s.kind !== "singleton" || s.initial);
  const optional = slots.filter((s) => s.kind === "singleton" && !s.initial);
  const doc = jsDoc(["A shallow copy of a state as one object literal, so that every state has the same fast shape."]);
  return [
    `${doc}function copyState(state: SessionState): Record<string, unknown> {`,
    `  const copy: Record<string, unknown> = { ${always.map((s) => `${objectLiteralKey(s.name)}: ${propertyAccess("state", s.name)}`).join(", ")}, timeline: state.timeline };`,
    ...optional.map((s) => `  if (${propertyAccess("state", s.name)} !== undefined) ${propertyAccess("copy", s.name)} = ${propertyAccess("state", s.name)};`),
    "  return copy;",
    "}\n",
  ].join("\n");
}

function tableConst(semantics: Semantics, union: TaggedUnionNode, slots: readonly Slot[]): string {
  const known = semantics.routes.filter((r) => r.tag !== "*");
  const other = semantics.routes.find((r) => r.tag === "*");
  const initial = Object.fromEntries(semantics.routes.flatMap((r) => (r.op === "put" && r.initial !== undefined ? [[r.slot, r.initial]] : [])));
  return [
    "const TABLE: SessionTable = {",
    `  tag: ${literal(union.tag)},`,
    "  routes: new Map([",
    ...known.map((r) => `    [${literal(r.tag)}, uniformRoute(${routeLiteral(semantics, r)})],`),
    "  ]),",
    ...(other ? [`  other: uniformRoute(${routeLiteral(semantics, other)}),`] : []),
    `  maps: [${semantics.maps.map((m) => literal(m)).join(", ")}],`,
    `  lists: [${semantics.lists.map((m) => literal(m)).join(", ")}],`,
    `  singletons: [${slots.filter((s) => s.kind === "singleton").map((s) => literal(s.name)).join(", ")}],`,
    `  initial: ${jsonLiteral(initial)},`,
    "  stored: {",
    ...slots.flatMap((s) => (s.shape ? [`    ${objectLiteralKey(s.name)}: ${storedAs(semantics, s.shape)},`] : [])),
    "  },",
    `  validate: validate.${ident(semantics.union)},`,
    "  copy: copyState,",
    "};\n",
  ].join("\n");
}

/** How `sessionStateFromJSON` checks what a slot stores: as the update of its shape route (runtime `StoredAs`). */
function storedAs(semantics: Semantics, route: SessionRoute): string {
  const parts = [`tag: ${literal(route.tag)}`];
  switch (route.op) {
    case "upsert": {
      const key = semantics.upserts.find((u) => u.type === route.payload)!.key;
      if (key !== undefined) parts.push(`id: ${literal(key)}`);
      break;
    }
    case "append":
      parts.push(`id: ${literal(route.key)}`);
      if (route.entity === undefined) parts.push(`record: { key: ${literal(route.key)}, item: ${literal(route.item)}, into: ${literal(route.into)} }`);
      break;
    case "put":
      if (route.value !== undefined) parts.push(`value: ${literal(route.value)}`);
      if (route.key !== undefined) parts.push(`id: ${literal(route.key)}`);
      break;
    case "event":
      if (route.raw) parts.push("raw: true");
      break;
    case "remove":
      break;
  }
  return `{ ${parts.join(", ")} }`;
}

/** The runtime route of one variant; one case per op. */
function routeLiteral(semantics: Semantics, route: SessionRoute): string {
  const parts = [`op: ${literal(route.op)}`, `slot: ${literal(route.slot)}`];
  switch (route.op) {
    case "upsert": {
      const key = semantics.upserts.find((u) => u.type === route.payload)!.key;
      parts.push(`patch: ${patchFor(semantics, route.payload)}`);
      if (key !== undefined) parts.push(`key: ${literal(key)}`);
      if (route.creates) parts.push(`creates: ${jsonLiteral(route.creates)}`);
      break;
    }
    case "append":
      parts.push(`patch: ${patchFor(semantics, route.entity, route.key, route.into)}`, `key: ${literal(route.key)}`, `item: ${literal(route.item)}`, `into: ${literal(route.into)}`);
      if (route.bytes) parts.push("bytes: true");
      if (route.creates) parts.push(`creates: ${jsonLiteral(route.creates)}`);
      if (route.patches) parts.push(`patches: ${jsonLiteral(route.patches)}`);
      break;
    case "put":
      if (route.value !== undefined) parts.push(`value: ${literal(route.value)}`);
      if (route.key !== undefined) parts.push(`key: ${literal(route.key)}`);
      break;
    case "remove":
      parts.push(`key: ${literal(route.key)}`);
      break;
    case "event":
      if (route.raw) parts.push("raw: true");
      break;
  }
  return `{ ${parts.join(", ")} }`;
}

function entryPoints(semantics: Semantics): string {
  const emptyDoc = jsDoc([
    "The state of a new session: every map and list empty, singletons never reported",
    "(absent), except those a new session starts with (v2: `state` is idle, S18).",
  ]);
  const reduceDoc = jsDoc([
    "The state after one `session/update` (S1-S22, S27, S35). Pure: neither `state` nor",
    "`update` is modified, and the result shares no mutable structure with them; ids and",
    "`_meta` keys such as `__proto__` are plain data (S34).",
    "",
    "Routes come from the reviewed table schema/semantics.json:",
    ...semantics.routes.map((r) => `- \`${r.tag === "*" ? "<custom tag>" : r.tag}\`: ${r.op} into \`${r.slot}\``),
    "",
    "An update whose tag this surface does not know is kept raw in `custom` on open unions",
    "and ignored on closed ones (v1, S22). Pass updates through `parse.SessionUpdate` first:",
    "a malformed field it drops then changes nothing (S8).",
    "",
    "Any state the type admits is accepted: plain `Map`s and a timeline built by hand are",
    "adopted on the first update (copied, frozen, the timeline completed from the maps).",
    "What the update holds is copied; `reduceSessionOwned` skips that copy.",
  ]);
  const ownedDoc = jsDoc([
    "`reduceSession` for an update handed over: the caller never uses or changes `update`",
    "afterwards (typically a fresh `parse.SessionUpdate` result), so its values are stored",
    "without a copy and frozen in place (entities when first read). Same result as",
    "`reduceSession`; changing the update later would change the states built from it.",
  ]);
  const toDoc = jsDoc([
    "A state as plain JSON data, for saving: `JSON.stringify` it, and read it back with",
    "`sessionStateFromJSON`. Entities are shared with the state (they are frozen).",
  ]);
  const fromDoc = jsDoc([
    "The state saved by `sessionStateToJSON` (after `JSON.parse`), or the issues found, with JSON",
    "pointers into `json`. Every stored value is validated as the update that stores it",
    "(`validate.SessionUpdate`), map ids must match the entities' ids, and the timeline must list",
    "every entity once. The result holds frozen copies; `json` is not modified. Never throws.",
  ]);
  const union = ident(semantics.union);
  return (
    `${emptyDoc}export function emptySessionState(): SessionState {\n  return emptyState(TABLE);\n}\n\n` +
    `${reduceDoc}export function reduceSession(state: SessionState, update: T.${union}): SessionState {\n  return reduce(TABLE, state, update);\n}\n\n` +
    `${ownedDoc}export function reduceSessionOwned(state: SessionState, update: T.${union}): SessionState {\n  return reduce(TABLE, state, update, true);\n}\n\n` +
    `${toDoc}export function sessionStateToJSON(state: SessionState): SessionStateJson {\n  return toJson(TABLE, state) as unknown as SessionStateJson;\n}\n\n` +
    `${fromDoc}export function sessionStateFromJSON(json: unknown): Result<SessionState> {\n  return fromJson(TABLE, json);\n}\n`
  );
}

/** Whether the surface has subagents whose mirrored `state` can be projected. */
function hasSubagentState(ir: SchemaIR, semantics: Semantics): boolean {
  return semantics.upserts.some((u) => u.type === "SubagentUpdate") && ir.defs.some((d) => d.name === "StateUpdate");
}

/** A JSON value as a TypeScript expression; every key stays an own property (`__proto__` computed, S34). */
function jsonLiteral(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsonLiteral).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([k, v]) => `${objectLiteralKey(k)}: ${jsonLiteral(v)}`);
    return entries.length ? `{ ${entries.join(", ")} }` : "{}";
  }
  return literal(value as string | number | boolean | null);
}
