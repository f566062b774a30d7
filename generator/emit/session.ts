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
import { specLiteral } from "./apply.js";
import { runtimeDir, semanticsOf } from "./shared.js";

/** The TypeScript type of a slot, and whether a new session has it. */
interface Slot {
  readonly name: string;
  readonly type: string;
  readonly kind: "map" | "list" | "singleton";
  readonly initial: boolean;
  readonly writers: readonly string[];
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
    ...(local.length ? [`import { applyUpsert, type UpsertSpec } from ${literal(`${runtime}/patch.js`)};`] : []),
    `import { emptyState, reduce, type SessionTable } from ${literal(`${runtime}/session.js`)};`,
    "",
    `export { applyMeta } from ${literal(`${runtime}/patch.js`)};`,
    ...(subagents ? [`export { subagentStatus, type SubagentStatusProjection } from ${literal(`${runtime}/subagent.js`)};`] : []),
    "",
    ...local.map((code) => `${code}\n`),
    stateInterface(slots, ir),
    stateCopy(slots),
    tableConst(semantics, union),
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
  const specs = new Map<string, string>();
  for (const upsert of semantics.upserts) {
    if (!upsert.patch) specs.set(patchFor(semantics, upsert.type), specLiteral(upsert));
  }
  for (const route of semantics.routes) {
    if (route.op === "append" && route.entity === undefined) {
      const fields = [
        { name: route.key, rule: { kind: "replace" } as const },
        { name: route.into, rule: { kind: "reset", value: [] } as const },
      ];
      specs.set(patchFor(semantics, undefined, route.key, route.into), specLiteral({ fields }));
    }
  }
  return [...specs].map(
    ([name, spec]) => `const ${name}Spec: UpsertSpec = ${spec};\nconst ${name} = (stored: object | undefined, update: object): object => applyUpsert(${name}Spec, stored, update);`,
  );
}

/** Every slot of `SessionState`, with the type the routes that write it store. */
function slotsOf(semantics: Semantics, union: TaggedUnionNode): Slot[] {
  const writers = (slot: string) => semantics.routes.filter((r) => r.slot === slot);
  const slot = (name: string, kind: Slot["kind"]): Slot => {
    const routes = writers(name);
    const ranked = [...routes].sort((a, b) => rank(a) - rank(b));
    const type = ranked.length ? storedType(ranked[0]!, union) : "never";
    return { name, kind, type, initial: routes.some((r) => r.op === "put" && r.initial !== undefined), writers: routes.map((r) => r.tag) };
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
  return `${doc}export interface SessionState {\n${fields.join("\n")}\n}\n`;
}

/** `copyState`: one object literal holding every slot a state always has, then the reported singletons. */
function stateCopy(slots: readonly Slot[]): string {
  const always = slots.filter((s) => s.kind !== "singleton" || s.initial);
  const optional = slots.filter((s) => s.kind === "singleton" && !s.initial);
  const doc = jsDoc(["A shallow copy of a state as one object literal, so that every state has the same fast shape."]);
  return [
    `${doc}function copyState(state: SessionState): Record<string, unknown> {`,
    `  const copy: Record<string, unknown> = { ${always.map((s) => `${objectLiteralKey(s.name)}: ${propertyAccess("state", s.name)}`).join(", ")} };`,
    ...optional.map((s) => `  if (${propertyAccess("state", s.name)} !== undefined) ${propertyAccess("copy", s.name)} = ${propertyAccess("state", s.name)};`),
    "  return copy;",
    "}\n",
  ].join("\n");
}

function tableConst(semantics: Semantics, union: TaggedUnionNode): string {
  const known = semantics.routes.filter((r) => r.tag !== "*");
  const other = semantics.routes.find((r) => r.tag === "*");
  const initial = Object.fromEntries(semantics.routes.flatMap((r) => (r.op === "put" && r.initial !== undefined ? [[r.slot, r.initial]] : [])));
  return [
    "const TABLE: SessionTable = {",
    `  tag: ${literal(union.tag)},`,
    "  routes: new Map([",
    ...known.map((r) => `    [${literal(r.tag)}, ${routeLiteral(semantics, r)}],`),
    "  ]),",
    ...(other ? [`  other: ${routeLiteral(semantics, other)},`] : []),
    `  maps: [${semantics.maps.map((m) => literal(m)).join(", ")}],`,
    `  lists: [${semantics.lists.map((m) => literal(m)).join(", ")}],`,
    `  initial: ${jsonLiteral(initial)},`,
    "  copy: copyState,",
    "};\n",
  ].join("\n");
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
  ]);
  return (
    `${emptyDoc}export function emptySessionState(): SessionState {\n  return emptyState(TABLE);\n}\n\n` +
    `${reduceDoc}export function reduceSession(state: SessionState, update: T.${ident(semantics.union)}): SessionState {\n  return reduce(TABLE, state, update);\n}\n`
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
