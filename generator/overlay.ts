/**
 * The semantics overlay: the reviewed table `schema/semantics.json` that says
 * what the schema states only in prose (upsert types and their field rules,
 * which chunk appends to which entity, snapshots; semantics.md S1-S22), and
 * the drift check that keeps it honest. The check derives what it can from the
 * schema prose ("patches the stored metadata by top-level key", "Omitted means
 * unchanged", "`null` resets it to `other`", ...) and fails generation with a
 * `SchemaError` naming the type and the table whenever schema and table
 * disagree: a new patch type, a new field, a new `SessionUpdate` variant or a
 * changed rule all need a reviewed table entry before anything is emitted.
 */
import { isIdentifier } from "./code.js";
import { withoutNull, type Def, type Field, type FieldRule, type Node, type ObjectNode, type SchemaIR, type Semantics, type SessionRoute, type Surface, type TaggedUnionNode, type Upsert } from "./ir.js";
import { SchemaError } from "./errors.js";
import { isPlainObject, pointerSegment, readJsonFile } from "./load.js";

/** File name of the reviewed semantics table inside the schema directory. */
export const SEMANTICS_FILE = "semantics.json";

/** S6: the `_meta` wording of the v2 upsert types. */
const META_PATCH_PROSE = /patches the stored metadata by top-level key/i;

/** Prose that marks a def as a patch type (S5); any hit makes it a candidate upsert. */
const PATCH_PROSE: readonly RegExp[] = [
  META_PATCH_PROSE,
  /\bomitted (?:means|leaves)\b[^.]*\bunchanged\b/i,
  /\bomission (?:leaves|means no change)\b/i,
  /\bomitted (?:patch )?fields? (?:leaves?|keep)\b/i,
  /\bpartial updates\b/i,
  /\bonly changed fields\b/i,
  /\bpatch semantics\b/i,
  /\bupsert\b/i,
];

/** S4: "`null` resets it to `other`". */
const RESET_PROSE = /`null` resets it to `([^`]+)`/;
/** S3: `[]` clears a collection ("both `null` and `[]` clear", "`summary: []` also clears", "Send `[]` or `null`"). */
const COLLECTION_PROSE = /`(?:\w+: )?\[\]`[^.]*\bclear|`\[\]` or `null`|`null` or `\[\]`/i;
/** S22: v1 `name` — "Omitting it or sending `null` both mean that the existing name is left unchanged". */
const KEEP_PROSE = /omitting it or sending `null` both mean that the existing/i;
/** S7/S15: a non-patch `_meta` on an upsert type is the latest report's. */
const LATEST_PROSE = /omitted and `null` are equivalent/i;

/** The table as written: per surface, upsert entries and session routes (see the file's `$comment`). */
interface Table {
  readonly union: string;
  readonly maps: readonly string[];
  readonly lists: readonly string[];
  readonly surfaces: Readonly<Record<string, SurfaceTable>>;
}

interface SurfaceTable {
  readonly extends?: string;
  readonly upserts?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly session?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** The loaded table plus the path it came from (named in every drift message). */
export interface SemanticsTable {
  readonly path: string;
  readonly table: Table;
}

/**
 * Reads and shape-checks the table; a malformed table is a `SchemaError`
 * naming the file and the JSON pointer of the bad entry.
 */
export function loadSemanticsTable(path: string): SemanticsTable {
  const table = readJsonFile(path, "the semantics table is not valid JSON");
  const bad = (pointer: string, what: string): never => {
    throw new SchemaError(path, pointer, `${what} (the reviewed semantics table; its \`$comment\` documents the format)`);
  };
  if (!isPlainObject(table)) return bad("", "the semantics table must be a JSON object");
  if (typeof table["union"] !== "string") bad("/union", "`union` must name the SessionUpdate def");
  for (const list of ["maps", "lists"]) {
    const value = table[list];
    if (!Array.isArray(value)) bad(`/${list}`, `\`${list}\` must be a list of slot names`);
    (value as unknown[]).forEach((slot, i) => {
      if (typeof slot !== "string" || !isIdentifier(slot)) bad(`/${list}/${i}`, `a slot name must be an identifier, got ${JSON.stringify(slot)}`);
    });
  }
  const surfaces = table["surfaces"];
  if (!isPlainObject(surfaces)) return bad("/surfaces", "`surfaces` must be an object");
  for (const [surface, entry] of Object.entries(surfaces)) {
    const at = `/surfaces/${pointerSegment(surface)}`;
    if (!isPlainObject(entry)) return bad(at, `surfaces["${surface}"] must be an object`);
    if (entry["extends"] !== undefined && !(typeof entry["extends"] === "string" && Object.hasOwn(surfaces, entry["extends"]))) {
      bad(`${at}/extends`, `surfaces["${surface}"].extends must name another surface of the table`);
    }
    for (const part of ["upserts", "session"]) {
      const value = entry[part] ?? {};
      if (!isPlainObject(value)) return bad(`${at}/${part}`, `surfaces["${surface}"].${part} must map names to objects`);
      for (const [name, item] of Object.entries(value)) {
        if (!isPlainObject(item)) bad(`${at}/${part}/${pointerSegment(name)}`, `surfaces["${surface}"].${part}["${name}"] must be an object`);
      }
    }
  }
  return { path, table: table as unknown as Table };
}

/**
 * The overlay of `ir`'s surface, checked against its defs. Throws a
 * `SchemaError` (in `schemaFile`, at the def concerned) naming the table for
 * every disagreement between schema and table.
 */
export function resolveSemantics(ir: SchemaIR, source: SemanticsTable, schemaFile: string): Semantics {
  const drift = new Drift(ir, source, schemaFile);
  const entries = surfaceEntries(source.table, ir.surface, source.path);
  const upserts = Object.entries(entries.upserts).map(([type, entry]) => drift.upsert(type, entry));
  drift.candidates(upserts);
  const byType = new Map(upserts.map((u) => [u.type, u]));
  const routes = drift.routes(entries.session, byType);
  return { file: source.path, union: source.table.union, upserts, routes, maps: source.table.maps, lists: source.table.lists };
}

/** A surface's entries with its `extends` chain merged in (the surface's own entries win). */
function surfaceEntries(table: Table, surface: Surface, path: string): Required<Pick<SurfaceTable, "upserts" | "session">> {
  const chain: SurfaceTable[] = [];
  let pointer = "/surfaces";
  for (let name: string | undefined = surface; name !== undefined; name = table.surfaces[name]?.extends) {
    const entry = Object.hasOwn(table.surfaces, name) ? table.surfaces[name] : undefined;
    if (entry === undefined) throw new SchemaError(path, pointer, `no entry for surface "${name}"; add one (the reviewed semantics table)`);
    if (chain.includes(entry)) throw new SchemaError(path, pointer, `surfaces["${surface}"] extends itself`);
    chain.unshift(entry);
    pointer = `/surfaces/${pointerSegment(name)}/extends`;
  }
  return {
    upserts: Object.assign({}, ...chain.map((e) => e.upserts ?? {})),
    session: Object.assign({}, ...chain.map((e) => e.session ?? {})),
  };
}

/** The drift checks of one surface; every failure names the def and the table entry to edit. */
class Drift {
  private readonly defs: ReadonlyMap<string, Def>;

  constructor(
    private readonly ir: SchemaIR,
    private readonly source: SemanticsTable,
    private readonly schemaFile: string,
  ) {
    this.defs = new Map(ir.defs.map((d) => [d.name, d]));
  }

  private fail(def: string | undefined, entry: string, detail: string): never {
    const pointer = def !== undefined && this.defs.has(def) ? `/$defs/${pointerSegment(def)}` : "";
    throw new SchemaError(this.schemaFile, pointer, `${detail}; edit ${entry} in ${this.source.path} (the reviewed semantics table)`);
  }

  private entryName(part: "upserts" | "session", name: string): string {
    return `surfaces["${this.ir.surface}"].${part}["${name}"]`;
  }

  /** An object def by name, or a drift failure. */
  private object(name: string, entry: string): { def: Def; node: ObjectNode } {
    const def = this.defs.get(name);
    if (def === undefined) this.fail(undefined, entry, `the schema has no def "${name}"`);
    if (def.node.kind !== "object") this.fail(name, entry, `"${name}" is not an object type`);
    return { def, node: def.node };
  }

  /** One upsert entry: every declared field has a rule, and the prose agrees with each rule it implies. */
  upsert(type: string, entry: Readonly<Record<string, unknown>>): Upsert {
    const where = this.entryName("upserts", type);
    const { def, node } = this.object(type, where);
    const key = entry["key"];
    const rules = isPlainObject(entry["fields"]) ? entry["fields"] : this.fail(type, where, "`fields` must be an object");
    if (typeof entry["rule"] !== "string") this.fail(type, where, "`rule` must name the rulebook id");
    if (entry["patch"] === false && typeof entry["why"] !== "string") this.fail(type, where, "`patch: false` needs a `why`");
    if (key !== undefined && !node.fields.some((f) => f.name === key && f.required)) {
      this.fail(type, where, `the identity key "${String(key)}" is not a required field of ${type}`);
    }
    for (const name of Object.keys(rules)) {
      if (!node.fields.some((f) => f.name === name)) this.fail(type, where, `the table has a rule for ${type}.${name}, which the schema does not declare`);
      if (name === key) this.fail(type, where, `the identity key ${type}.${name} takes no rule`);
    }
    const fields = node.fields.map((field) => {
      if (field.name === key) return { name: field.name, rule: { kind: "replace" } as const };
      if (!Object.hasOwn(rules, field.name)) this.fail(type, where, `the schema field ${type}.${field.name} has no rule in the table`);
      const rule = parseRule(rules[field.name]) ?? this.fail(type, where, `unknown rule ${JSON.stringify(rules[field.name])} for ${type}.${field.name}`);
      const derived = proseRule(def, field);
      if (derived !== undefined && ruleName(rule) !== derived.rule) {
        this.fail(type, where, `${type}.${field.name} is "${ruleName(rule)}" in the table, but the schema prose says "${derived.rule}" ("${derived.phrase}")`);
      }
      return { name: field.name, rule };
    });
    return { type, rule: entry["rule"] as string, ...(typeof key === "string" ? { key } : {}), patch: entry["patch"] !== false, fields };
  }

  /** The patch types the prose marks (S5) must be exactly the table's patch entries. */
  candidates(upserts: readonly Upsert[]): void {
    const listed = new Set(upserts.filter((u) => u.patch).map((u) => u.type));
    for (const def of this.ir.defs) {
      const phrase = patchPhrase(def);
      if (phrase !== undefined && !listed.has(def.name)) {
        this.fail(def.name, this.entryName("upserts", def.name), `${def.name} reads as a patch type ("${phrase}") but the table has no upsert entry for it`);
      }
      if (phrase === undefined && listed.has(def.name)) {
        this.fail(def.name, this.entryName("upserts", def.name), `the table lists ${def.name} as a patch type, but its schema prose no longer says so (set "patch": false with a "why", or remove it)`);
      }
    }
  }

  /** Every variant of the session union has exactly one route, and each route fits the defs it names. */
  routes(session: Readonly<Record<string, Readonly<Record<string, unknown>>>>, upserts: ReadonlyMap<string, Upsert>): SessionRoute[] {
    const union = this.source.table.union;
    const node = this.defs.get(union)?.node;
    if (node?.kind !== "tagged") return this.fail(union, "`union`", `"${union}" is not a tagged union`);
    if (node.tag in Object.prototype) this.fail(union, "`union`", `the tag "${node.tag}" is an Object.prototype member`);
    const tags = [...node.variants.map((v) => v.tagValue), ...(node.other ? ["*"] : [])];
    for (const tag of Object.keys(session)) {
      if (!tags.includes(tag)) this.fail(union, this.entryName("session", tag), `the table routes "${tag}", which is not a variant of ${union}`);
    }
    const routes = tags.map((tag) => {
      const entry = session[tag] ?? this.fail(union, this.entryName("session", tag), `the ${union} variant "${tag}" has no route`);
      return this.route(node, tag, entry, upserts);
    });
    this.slots(routes, union, upserts);
    return routes;
  }

  private route(node: TaggedUnionNode, tag: string, entry: Readonly<Record<string, unknown>>, upserts: ReadonlyMap<string, Upsert>): SessionRoute {
    const where = this.entryName("session", tag);
    const payload = payloadOf(node, tag);
    const str = (name: string): string | undefined => {
      const value = entry[name];
      if (value !== undefined && typeof value !== "string") this.fail(payload, where, `\`${name}\` must be a string`);
      // The reducer reads these names directly; an Object.prototype member would read an inherited value (S34).
      if (typeof value === "string" && value in Object.prototype) this.fail(payload, where, `\`${name}\` names "${value}", an Object.prototype member`);
      return value as string | undefined;
    };
    const slot = str("slot") ?? this.fail(payload, where, "`slot` is required");
    if (!isIdentifier(slot)) this.fail(payload, where, `slot "${slot}" is not an identifier`);
    const needPayload = (): string => payload ?? this.fail(undefined, where, `"${tag}" has no payload def`);
    const field = (def: string, name: string): Field =>
      this.object(def, where).node.fields.find((f) => f.name === name) ?? this.fail(def, where, `${def} has no field "${name}"`);
    const creates = this.creates(entry["creates"], payload, where);
    switch (entry["op"]) {
      case "upsert": {
        const type = needPayload();
        if (!upserts.has(type)) this.fail(type, where, `"${tag}" upserts ${type}, which has no upsert entry`);
        return { op: "upsert", tag, slot, payload: type, ...(creates ? { creates } : {}) };
      }
      case "append": {
        const type = needPayload();
        const key = str("key") ?? this.fail(type, where, "`key` is required");
        const item = str("item") ?? this.fail(type, where, "`item` is required");
        const into = str("into") ?? this.fail(type, where, "`into` is required");
        field(type, key);
        field(type, item);
        const entity = str("entity");
        if (entity !== undefined) {
          const upsert = upserts.get(entity) ?? this.fail(entity, where, `the chunk entity ${entity} has no upsert entry`);
          if (upsert.key !== key) this.fail(entity, where, `${entity} is keyed by "${String(upsert.key)}", not "${key}"`);
          field(entity, into);
        }
        const patches = this.patches(entry["patches"], type, where);
        for (const name of patches) {
          if (entity === undefined) this.fail(type, where, "`patches` needs an `entity` whose rules apply");
          field(type, name);
          field(entity, name);
        }
        // A chunk field the route neither keys, appends nor patches would be dropped silently.
        const ignored = this.object(type, where).node.fields.find((f) => f.name !== key && f.name !== item && f.name !== "_meta" && !patches.includes(f.name));
        if (ignored) this.fail(type, where, `the chunk field ${type}.${ignored.name} is not routed (list it in \`patches\` to apply it to the entity)`);
        return {
          op: "append", tag, slot, payload: type, key, item, into, bytes: entry["bytes"] === true,
          ...(entity ? { entity } : {}), ...(creates ? { creates } : {}), ...(patches.length ? { patches } : {}),
        };
      }
      case "put": {
        const type = needPayload();
        const value = str("value");
        const key = str("key");
        if (value === undefined && key !== undefined) field(type, key);
        if (value !== undefined) {
          const node = field(type, value).node;
          // The snapshot is stored under its own `key` field: every shape the value can take must require it.
          const missing = key === undefined ? undefined : this.unkeyed(node, key);
          if (missing !== undefined) this.fail(type, where, `${type}.${value} is stored under its "${key}", which ${missing} does not require`);
        }
        return { op: "put", tag, slot, payload: type, ...(value ? { value } : {}), ...(key ? { key } : {}), ...(entry["initial"] !== undefined ? { initial: entry["initial"] } : {}) };
      }
      case "remove": {
        const type = needPayload();
        const key = str("key") ?? this.fail(type, where, "`key` is required");
        field(type, key);
        return { op: "remove", tag, slot, payload: type, key };
      }
      case "event":
        if (tag === "*" && entry["raw"] !== true) this.fail(payload, where, "the custom variant must be kept raw (S27)");
        return { op: "event", tag, slot, ...(payload ? { payload } : {}), raw: entry["raw"] === true };
      default:
        return this.fail(payload, where, `unknown op ${JSON.stringify(entry["op"])}`);
    }
  }

  /** The first shape of a snapshot value (`ref`, object or tagged union) that does not require `key`, by name. */
  private unkeyed(node: Node, key: string, name = "the value"): string | undefined {
    switch (node.kind) {
      case "ref": {
        const def = this.defs.get(node.name);
        return def === undefined ? node.name : this.unkeyed(def.node, key, node.name);
      }
      case "object":
        return node.fields.some((f) => f.name === key && f.required) ? undefined : name;
      case "tagged": {
        for (const variant of node.variants) {
          if (variant.fields.some((f) => f.name === key && f.required)) continue;
          const missing = variant.payload === undefined ? variant.name : this.unkeyed(variant.payload, key, variant.name);
          if (missing !== undefined) return missing;
        }
        if (node.other !== undefined && !node.other.required.includes(key)) return node.other.name;
        return node.absent !== undefined || node.untagged !== undefined ? name : undefined;
      }
      default:
        return name;
    }
  }

  /** `patches`: names of chunk fields that patch the entity (checked against both defs by the caller). */
  private patches(value: unknown, payload: string, where: string): readonly string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && !(v in Object.prototype))) {
      this.fail(payload, where, "`patches` must list field names");
    }
    return value as string[];
  }

  /** `creates`: string values for declared fields of the payload's entity. */
  private creates(value: unknown, payload: string | undefined, where: string): Readonly<Record<string, string>> | undefined {
    if (value === undefined) return undefined;
    if (!isPlainObject(value) || !Object.values(value).every((v) => typeof v === "string")) this.fail(payload, where, "`creates` must map field names to strings");
    return value as Record<string, string>;
  }

  /** Maps and lists are keyed or listed by the right ops; a singleton has one writer. */
  private slots(routes: readonly SessionRoute[], union: string, upserts: ReadonlyMap<string, Upsert>): void {
    const { maps, lists } = this.source.table;
    const singletons = new Set<string>();
    for (const route of routes) {
      const keyed = route.op === "append" || route.op === "remove" || (route.op === "put" && route.key !== undefined) || (route.op === "upsert" && upserts.get(route.payload)?.key !== undefined);
      const kind = route.op === "event" ? "list" : keyed ? "map" : "singleton";
      const declared = maps.includes(route.slot) ? "map" : lists.includes(route.slot) ? "list" : "singleton";
      if (kind !== declared) this.fail(union, this.entryName("session", route.tag), `"${route.tag}" writes slot "${route.slot}" as a ${kind}, but it is a ${declared}`);
      if (kind === "singleton") {
        if (singletons.has(route.slot)) this.fail(union, this.entryName("session", route.tag), `singleton slot "${route.slot}" has two writers`);
        singletons.add(route.slot);
      }
    }
  }
}

/** The payload def of variant `tag` (undefined for the custom variant `*`). */
function payloadOf(node: TaggedUnionNode, tag: string): string | undefined {
  const variant = node.variants.find((v) => v.tagValue === tag);
  return variant?.payload?.kind === "ref" ? variant.payload.name : undefined;
}

/** A table rule (`"replace"`, `{ "reset": "other" }`, ...) as an IR rule, or undefined when unknown. */
function parseRule(value: unknown): FieldRule | undefined {
  switch (value) {
    case "replace":
    case "keep":
    case "latest":
    case "meta-patch":
      return { kind: value };
    case "collection":
      return { kind: "reset", value: [] };
  }
  if (isPlainObject(value) && Object.keys(value).length === 1 && typeof value["reset"] === "string") return { kind: "reset", value: value["reset"] };
  return undefined;
}

/** The table spelling of a rule, as compared with the prose. */
function ruleName(rule: FieldRule): string {
  if (rule.kind === "reset") return typeof rule.value === "string" ? `reset to "${rule.value}"` : "collection";
  return rule.kind;
}

/** The rule the prose implies for a field of an upsert type, when it implies one. */
function proseRule(def: Def, field: Field): { rule: string; phrase: string } | undefined {
  const text = field.doc.text ?? "";
  const hit = (re: RegExp, source: string = text): string | undefined => re.exec(source)?.[0];
  if (field.name === "_meta") {
    const patch = hit(META_PATCH_PROSE);
    if (patch) return { rule: "meta-patch", phrase: patch };
    const latest = hit(LATEST_PROSE);
    return latest ? { rule: "latest", phrase: latest } : undefined;
  }
  const reset = RESET_PROSE.exec(text);
  if (reset) return { rule: `reset to "${reset[1]}"`, phrase: reset[0] };
  const keep = hit(KEEP_PROSE);
  if (keep) return { rule: "keep", phrase: keep };
  const collection = withoutNull(field.node).kind === "array" ? (hit(COLLECTION_PROSE) ?? hit(COLLECTION_PROSE, def.doc.text ?? "")) : undefined;
  return collection ? { rule: "collection", phrase: collection } : undefined;
}

/** The first patch phrase (S5) in a def's or its fields' descriptions. */
function patchPhrase(def: Def): string | undefined {
  const texts = [def.doc.text ?? "", ...(def.node.kind === "object" ? def.node.fields.map((f) => f.doc.text ?? "") : [])];
  for (const re of PATCH_PROSE) {
    for (const text of texts) {
      const match = re.exec(text);
      if (match) return match[0];
    }
  }
  return undefined;
}
