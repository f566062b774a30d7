/**
 * The SurfaceModel: what every emitter reads about one surface, built once
 * after the recogniser, the IR check and the semantics overlay. The IR says
 * what the schema declares; the model adds what emitters derive from it:
 * defs by name, the overlay (required here, unlike `SchemaIR.semantics`), the
 * session-update union and the notification that carries it, and the method
 * table. Protocol names come from here, not from string constants in emitters.
 */
import { defsByName, type Def, type Node, type SchemaIR, type Semantics, type Surface, type TaggedUnionNode } from "./ir.js";
import { SchemaError } from "./errors.js";
import { methodTable, type MethodEntry } from "./methods.js";

/** The session-update union (the overlay's `union`, `SessionUpdate`) and the notification whose params carry it. */
export interface SessionModel {
  /** The def of the union `reduceSession` routes. */
  readonly union: Def & { readonly node: TaggedUnionNode };
  /** The notification whose params have a field of the union's type (`session/update`, side `client`). */
  readonly notification: MethodEntry & { readonly params: string };
  /** The field of the notification's params that holds the union (`update`). */
  readonly field: string;
  /**
   * The upsert type whose entities mirror a child session's state snapshot
   * (S16, S35: `SubagentUpdate.state`), and that field. Absent when the
   * surface has none.
   */
  readonly mirror?: { readonly type: string; readonly field: string };
}

/** One surface as every emitter sees it. */
export interface SurfaceModel {
  readonly surface: Surface;
  /** Path of the schema file inside the schema directory, e.g. `v2/schema.unstable.json`. */
  readonly file: string;
  readonly sha256: string;
  /** The IR with its overlay, for emitters written against `SchemaIR`. */
  readonly ir: SchemaIR & { readonly semantics: Semantics };
  readonly defs: readonly Def[];
  /** Every def by its exported name. */
  readonly defsByName: ReadonlyMap<string, Def>;
  /** The schema's `$defs` entries as read, by `$defs` key (for emitters that ship JSON Schema). */
  readonly rawDefs: ReadonlyMap<string, unknown>;
  /** The reviewed semantics overlay of the surface. */
  readonly semantics: Semantics;
  readonly session: SessionModel;
  /** Every method, sorted by side, kind and name (see methods.ts). */
  readonly methods: readonly MethodEntry[];
  /** The def of a JSON-RPC request's id (`RequestId`), when the schema has one: the ids the connection admits. */
  readonly requestId?: string;
}

/** The protocol's name for the type of a request id. */
const REQUEST_ID = "RequestId";

/**
 * Builds the model of a checked IR and its resolved overlay. A schema whose
 * overlay union is not a tagged union, or that has no notification carrying
 * it, is a `SchemaError` in `schemaFile`.
 */
export function buildSurfaceModel(ir: SchemaIR, semantics: Semantics, rawDefs: ReadonlyMap<string, unknown>, schemaFile: string): SurfaceModel {
  const byName = defsByName(ir.defs);
  const methods = methodTable(ir, schemaFile);
  return {
    surface: ir.surface,
    file: ir.file,
    sha256: ir.sha256,
    ir: { ...ir, semantics },
    defs: ir.defs,
    defsByName: byName,
    rawDefs,
    semantics,
    session: sessionModel(byName, methods, semantics, schemaFile),
    methods,
    ...(byName.has(REQUEST_ID) ? { requestId: REQUEST_ID } : {}),
  };
}

function sessionModel(defs: ReadonlyMap<string, Def>, methods: readonly MethodEntry[], semantics: Semantics, schemaFile: string): SessionModel {
  const unionName = semantics.union;
  const union = defs.get(unionName);
  if (union?.node.kind !== "tagged") {
    throw new SchemaError(schemaFile, union?.pointer ?? "", `the semantics overlay's union "${unionName}" must be a tagged union of this schema`);
  }
  for (const m of methods) {
    const params = m.kind === "notification" && m.params !== undefined ? defs.get(m.params)?.node : undefined;
    const field = params?.kind === "object" ? params.fields.find((f) => f.node.kind === "ref" && f.node.name === unionName) : undefined;
    if (field !== undefined && m.params !== undefined) {
      const mirror = mirrorOf(defs, semantics);
      return { union: union as Def & { node: TaggedUnionNode }, notification: { ...m, params: m.params }, field: field.name, ...(mirror ? { mirror } : {}) };
    }
  }
  throw new SchemaError(schemaFile, union.pointer, `no notification has a field of type "${unionName}" (the semantics overlay's union)`);
}

/**
 * ACP's names for a child-session association and the state snapshot it
 * mirrors (S16, S35), which `subagentStatus` projects: protocol names live
 * here, emitters read `SessionModel.mirror`.
 */
const MIRROR = { type: "SubagentUpdate", snapshot: "StateUpdate" } as const;

/** The upsert type `MIRROR.type` and its field (`T | null`) of the snapshot type, when the surface has both (`SessionModel.mirror`). */
function mirrorOf(defs: ReadonlyMap<string, Def>, semantics: Semantics): SessionModel["mirror"] {
  if (!semantics.upserts.some((u) => u.type === MIRROR.type) || !defs.has(MIRROR.snapshot)) return undefined;
  const node = defs.get(MIRROR.type)?.node;
  const field = node?.kind === "object" ? node.fields.find((f) => refName(f.node) === MIRROR.snapshot) : undefined;
  return field === undefined ? undefined : { type: MIRROR.type, field: field.name };
}

/** The def a field's node names, through one `nullable`. */
function refName(node: Node): string | undefined {
  const inner = node.kind === "nullable" ? node.inner : node;
  return inner.kind === "ref" ? inner.name : undefined;
}
