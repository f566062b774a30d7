/**
 * The intermediate representation: what the recogniser makes of one schema
 * file, and what every emitter reads. Nothing here refers to JSON Schema
 * keywords any more; each node says what the wire value is.
 */

/** A protocol surface; also the sub-path of the generated entry point. */
export type Surface = "v1" | "v1/unstable" | "v2" | "v2/unstable";

/** Integer widths named by `format` (S30). */
export type IntFormat = "int32" | "int64" | "uint16" | "uint32" | "uint64";

/** The range of each integer format, exact (S30). */
export const INT_RANGES: Readonly<Record<IntFormat, readonly [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

/** Documentation carried over from the schema. */
export interface Doc {
  /** The schema `description`, verbatim. */
  readonly text?: string;
  /** True when the description marks the item **UNSTABLE**. */
  readonly experimental: boolean;
}

/** One `$defs` entry. */
export interface Def {
  /** The exported TypeScript name: the `$defs` key, or its safe mapping when the key is not a usable identifier. */
  readonly name: string;
  /** The `$defs` key, present only when it differs from `name` (see `typeNameFor` in naming.ts). */
  readonly schemaName?: string;
  readonly doc: Doc;
  /** JSON pointer of the def inside its schema file. */
  readonly pointer: string;
  readonly node: Node;
  /** `x-method` / `x-side` (S32), when the def is a method's params or result. */
  readonly method?: MethodTag;
  /** `x-docs-ignore` (S32): dispatch-only wrapper, no user-facing docs. */
  readonly docsIgnore: boolean;
}

/** `x-method` + `x-side` of a request, response or notification type. */
export interface MethodTag {
  readonly method: string;
  readonly side: string;
}

/** Tolerant-decoding keywords on a field (S23-S25). */
export interface Tolerance {
  /** `x-deserialize-default-on-error` (S23). */
  readonly defaultOnError: boolean;
  /** `x-deserialize-skip-invalid-items` (S24). */
  readonly skipInvalidItems: boolean;
  /** `x-deserialize-default-on-null` (S25). */
  readonly defaultOnNull: boolean;
}

/** A property of an object node. */
export interface Field {
  readonly name: string;
  readonly doc: Doc;
  readonly node: Node;
  readonly required: boolean;
  readonly tolerance: Tolerance;
  /** The schema `default` annotation, if any (never asserted). */
  readonly default?: unknown;
}

/** A variant of a tagged union selected by a string constant in `tag`. */
export interface TaggedVariant {
  /** Exported type name, from the schema title or the reviewed naming table. */
  readonly name: string;
  readonly tagValue: string;
  readonly doc: Doc;
  /** Properties the variant declares next to its tag (SetSessionConfigOptionRequest's `value`). */
  readonly fields: readonly Field[];
  /** The variant's payload, usually a `ref` to the def holding its fields. */
  readonly payload?: Node;
}

/** The open branch of an extensible union (S27): any other string tag. */
export interface OtherVariant {
  readonly name: string;
  readonly doc: Doc;
  /** Properties the open branch declares besides the tag (`required` set from the branch's list). */
  readonly fields: readonly Field[];
  /** Required property names besides the tag (may name undeclared ones). */
  readonly required: readonly string[];
  /** An untagged union the open branch must also match (CreateElicitationRequest's scope). */
  readonly mixin?: UnionNode;
}

/** A branch that matches when the tag is absent or `null` (IdleStateUpdate "none"). */
export interface AbsentVariant {
  readonly name: string;
  readonly doc: Doc;
}

export type Node =
  | { readonly kind: "ref"; readonly name: string }
  /** Any JSON value (`{}` in the schema). */
  | { readonly kind: "json" }
  | { readonly kind: "null" }
  | { readonly kind: "boolean" }
  | {
      readonly kind: "string";
      readonly minLength?: number;
      /** ECMA-262 regular expression the string must match (asserted by strict validation, S31). */
      readonly pattern?: string;
      /** Annotation only (S31). */
      readonly format?: string;
      readonly contentEncoding?: string;
    }
  | {
      readonly kind: "integer";
      readonly format?: IntFormat;
      /** Effective bounds: the schema's own, narrowed by the format's range (S30). */
      readonly minimum?: bigint;
      readonly maximum?: bigint;
    }
  | { readonly kind: "number"; readonly format?: string; readonly minimum?: number; readonly maximum?: number }
  | { readonly kind: "const"; readonly value: string | number | boolean }
  | { readonly kind: "nullable"; readonly inner: Node }
  | { readonly kind: "array"; readonly items: Node; readonly minItems?: number }
  /** An object with no declared properties and a schema for every value. */
  | { readonly kind: "record"; readonly values: Node }
  | ObjectNode
  | EnumNode
  | TaggedUnionNode
  | UnionNode;

/** An object with declared fields. */
export interface ObjectNode {
  readonly kind: "object";
  readonly fields: readonly Field[];
  /** `additionalProperties: true` (or `unevaluatedProperties: true`): unknown keys are kept (S29). */
  readonly keepsUnknown: boolean;
  /** A union the object is also an instance of (`properties` + `anyOf`/`oneOf`). */
  readonly mixin?: TaggedUnionNode | UnionNode;
}

/** A set of string or integer constants, open when a catch-all branch accepts any other value (S28). */
export interface EnumNode {
  readonly kind: "enum";
  readonly base: "string" | "integer";
  readonly members: readonly { readonly value: string | number; readonly doc: Doc; readonly title?: string }[];
  /** The catch-all branch, when the enum is open. */
  readonly open?: { readonly doc: Doc; readonly format?: IntFormat };
}

/** A union discriminated by a string property (`tag`). */
export interface TaggedUnionNode {
  readonly kind: "tagged";
  readonly tag: string;
  readonly variants: readonly TaggedVariant[];
  /** Present when the union is open (S27). */
  readonly other?: OtherVariant;
  /** Present when a branch accepts a missing or `null` tag. */
  readonly absent?: AbsentVariant;
  /** Branches that do not use the tag at all (MultiSelectItems' `titled`). */
  readonly untagged?: readonly UnionOption[];
  /** `oneOf` (exactly one) rather than `anyOf`. */
  readonly exclusive: boolean;
}

/** One alternative of an untagged union, named from its `title`. */
export interface UnionOption {
  readonly name: string;
  readonly doc: Doc;
  readonly node: Node;
}

/** An untagged union of alternatives (RequestId, elicitation scopes, ...). */
export interface UnionNode {
  readonly kind: "union";
  readonly options: readonly UnionOption[];
  /** `oneOf` (exactly one) rather than `anyOf`. */
  readonly exclusive: boolean;
}

/** Everything recognised in one schema file. */
export interface SchemaIR {
  readonly surface: Surface;
  /** Path of the schema file relative to the schema directory, e.g. `v2/schema.unstable.json`. */
  readonly file: string;
  readonly sha256: string;
  readonly defs: readonly Def[];
  /** The reviewed semantics overlay for this surface (schema/semantics.json), once checked against the defs. */
  readonly semantics?: Semantics;
}

/**
 * How one field of an upsert type is patched (S1-S4, S6, S15, S22):
 * `replace` omitted keeps / null removes / value replaces; `reset` like
 * replace but null (and first sight) store `value`; `keep` omitted and null
 * keep; `latest` omitted and null remove; `meta-patch` the S6 `_meta` patch.
 * Spelled as in schema/semantics.json.
 */
export type FieldRule =
  | { readonly kind: "replace" | "keep" | "latest" | "meta-patch" }
  | { readonly kind: "reset"; readonly value: string | readonly [] };

/** An upsert type and the rule of each of its fields, in declaration order (identity key included). */
export interface Upsert {
  readonly type: string;
  /** The rulebook id the entry implements (S9, S22, ...). */
  readonly rule: string;
  /** The identity field; absent for a session singleton (SessionInfoUpdate, UsageUpdate). */
  readonly key?: string;
  /** False for a type stored by field rules that is not a patch type (no `apply.X`). */
  readonly patch: boolean;
  readonly fields: readonly { readonly name: string; readonly rule: FieldRule }[];
}

/** How `reduceSession` handles one `SessionUpdate` variant (S10-S22, S27). */
export type SessionRoute =
  | { readonly op: "upsert"; readonly tag: string; readonly slot: string; readonly payload: string; readonly creates?: Readonly<Record<string, string>> }
  | {
      readonly op: "append";
      readonly tag: string;
      readonly slot: string;
      readonly payload: string;
      readonly key: string;
      readonly item: string;
      readonly into: string;
      /** The upsert type of the entity; absent: a plain `{ key, into }` record. */
      readonly entity?: string;
      /** `item` is base64 whose bytes are appended to `into.data` (S12). */
      readonly bytes: boolean;
      readonly creates?: Readonly<Record<string, string>>;
      /** Chunk fields that also patch the entity, by the entity's own field rules (SDK 2.0.0 SessionMessageChunk). */
      readonly patches?: readonly string[];
    }
  | { readonly op: "put"; readonly tag: string; readonly slot: string; readonly payload: string; readonly value?: string; readonly key?: string; readonly initial?: unknown }
  | { readonly op: "remove"; readonly tag: string; readonly slot: string; readonly payload: string; readonly key: string }
  | { readonly op: "event"; readonly tag: string; readonly slot: string; readonly payload?: string; readonly raw: boolean };

/** The semantics overlay of one surface, checked against its schema (see generator/overlay.ts). */
export interface Semantics {
  /** The table it came from, for messages. */
  readonly file: string;
  /** The def whose variants `reduceSession` routes (`SessionUpdate`). */
  readonly union: string;
  readonly upserts: readonly Upsert[];
  /** One route per variant; the custom variant's route has tag `*`. */
  readonly routes: readonly SessionRoute[];
  /** Slots that are maps keyed by id on every surface, in `SessionState` order. */
  readonly maps: readonly string[];
  /** Slots that are lists on every surface. */
  readonly lists: readonly string[];
}

/** The nodes directly inside a node. */
export function childNodes(node: Node): Node[] {
  switch (node.kind) {
    case "nullable":
      return [node.inner];
    case "array":
      return [node.items];
    case "record":
      return [node.values];
    case "object":
      return [...node.fields.map((f) => f.node), ...(node.mixin ? [node.mixin] : [])];
    case "tagged":
      return [
        ...node.variants.flatMap((v) => [...v.fields.map((f) => f.node), ...(v.payload ? [v.payload] : [])]),
        ...(node.other ? [...node.other.fields.map((f) => f.node), ...(node.other.mixin ? [node.other.mixin] : [])] : []),
        ...(node.untagged ?? []).map((o) => o.node),
      ];
    case "union":
      return node.options.map((o) => o.node);
    default:
      return [];
  }
}

/** The tag of an object's tagged mixin (`properties` beside a tagged `anyOf`), if it has one. */
export function mixinTag(node: ObjectNode): string | undefined {
  return node.mixin?.kind === "tagged" ? node.mixin.tag : undefined;
}

/** An object's fields but the tag of its tagged mixin, in order: the fields it holds itself (the mixin holds the tag). */
export function ownFields(node: ObjectNode): Field[] {
  const tag = mixinTag(node);
  return node.fields.filter((f) => f.name !== tag);
}

/** The node without its `null` alternative (itself when not nullable). */
export function withoutNull(node: Node): Node {
  return node.kind === "nullable" ? node.inner : node;
}

/** Every def by its exported name (the one index the model, the check and the diff share). */
export function defsByName(defs: readonly Def[]): ReadonlyMap<string, Def> {
  return new Map(defs.map((d) => [d.name, d]));
}

/**
 * The IR graph walkers every stage shares (the check, the diff, the package
 * README). A walk goes down from a node through `children` (by default
 * `childNodes`; a caller passes a narrower one to skip some edges) and stops
 * at `ref` nodes; `reachableDefs` follows the refs from def to def. The IR is
 * the generator's own finite data, so the walks may recurse.
 */
export type ChildNodes = (node: Node) => readonly Node[];

/** `node` and every node inside it, parents first, without following refs. */
export function nodesWithin(node: Node, children: ChildNodes = childNodes): Node[] {
  return [node, ...children(node).flatMap((child) => nodesWithin(child, children))];
}

/** Names of the defs `node` refers to without going through another def, in order of appearance. */
export function refsWithin(node: Node, children: ChildNodes = childNodes): string[] {
  return nodesWithin(node, children).flatMap((n) => (n.kind === "ref" ? [n.name] : []));
}

/** `start` and every def it refers to, directly or through other defs (refs to unknown names are skipped). */
export function reachableDefs(start: Def, defs: ReadonlyMap<string, Def>, children: ChildNodes = childNodes): Def[] {
  const seen = new Map<string, Def>([[start.name, start]]);
  const queue = [start];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const name of refsWithin(next.node, children)) {
      const target = defs.get(name);
      if (target && !seen.has(name)) {
        seen.set(name, target);
        queue.push(target);
      }
    }
  }
  return [...seen.values()];
}

/**
 * The first cycle of refs among `defs` (depth first, in declaration order),
 * as the names along it with the first repeated at the end (`A -> B -> A`);
 * `undefined` when the refs seen through `children` form no cycle.
 */
export function findRefCycle(defs: readonly Def[], children: ChildNodes = childNodes): string[] | undefined {
  const byName = defsByName(defs);
  const done = new Set<string>();
  const visit = (def: Def, path: readonly string[]): string[] | undefined => {
    if (done.has(def.name)) return undefined;
    const start = path.indexOf(def.name);
    if (start !== -1) return [...path.slice(start), def.name];
    for (const target of refsWithin(def.node, children)) {
      const next = byName.get(target);
      const cycle = next && visit(next, [...path, def.name]);
      if (cycle) return cycle;
    }
    done.add(def.name);
    return undefined;
  };
  for (const def of defs) {
    const cycle = visit(def, []);
    if (cycle) return cycle;
  }
  return undefined;
}
