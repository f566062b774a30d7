import { appendBase64 } from "./base64.js";
import { isObject, put } from "./decode.js";
import type { JsonObject } from "./patch.js";
import { PersistentMap } from "./pmap.js";

/*
 * The session reducer engine behind each surface's `reduceSession` (S1-S22,
 * S27, S34, S35). A surface supplies a `SessionTable`, generated from the
 * reviewed table schema/semantics.json: one route per `SessionUpdate` tag.
 *
 * Purity: the state and the update are never modified. Every value taken
 * from an update is deep-copied and everything stored in a state is frozen,
 * so old and new states share only immutable structure (the state object
 * itself is new for every update and shared with nothing). Entity maps are
 * `PersistentMap`s (insertion-ordered), so an update costs O(log n), not a
 * copy of the map. Ids and keys are plain data (S34).
 */

/** An entity's patch function: `apply.X` of its upsert type (pure, S1-S9). A method, so `apply.X` fits. */
export interface Patch {
  patch(stored: object | undefined, update: object): object;
}

/** How one `SessionUpdate` variant changes the state. */
export type Route =
  /** Applies the update (an upsert type) to the entity under its key, or to the singleton (S1-S9, S11-S17). */
  | { readonly op: "upsert"; readonly slot: string; readonly patch: Patch["patch"]; readonly key?: string; readonly creates?: JsonObject }
  /** Appends the chunk's `item` to `into` of the entity under `key` (S10-S13, S17); `bytes`: base64 bytes (S12). */
  | {
      readonly op: "append";
      readonly slot: string;
      readonly patch: Patch["patch"];
      readonly key: string;
      readonly item: string;
      readonly into: string;
      readonly bytes?: boolean;
      readonly creates?: JsonObject;
      /** Chunk fields that also patch the entity by its own rules before the append. */
      readonly patches?: readonly string[];
    }
  /** Stores a snapshot whole: the update without its tag, or its `value` field; under its `key` when given (S18-S20, S22). */
  | { readonly op: "put"; readonly slot: string; readonly value?: string; readonly key?: string }
  /** Deletes the entry named by the update's `key` field (S19). */
  | { readonly op: "remove"; readonly slot: string; readonly key: string }
  /** Appends the update to a list, without its tag unless `raw` (S21, S27). */
  | { readonly op: "event"; readonly slot: string; readonly raw?: boolean };

/** Everything a surface's reducer needs. */
export interface SessionTable {
  /** The tag property of the session union (`sessionUpdate`). */
  readonly tag: string;
  /** Route per known tag. */
  readonly routes: ReadonlyMap<string, Route>;
  /** Route of any other tag (the custom variant, S27); absent on closed unions (v1, S22). */
  readonly other?: Route;
  /** Slots that are maps, and slots that are lists. */
  readonly maps: readonly string[];
  readonly lists: readonly string[];
  /** Singletons present in a new session (S18: `state` starts idle). */
  readonly initial: JsonObject;
  /**
   * A shallow copy of a state, written by the generator as one object literal:
   * every state then shares one fast shape (a spread of a 16-key object is
   * several times slower).
   */
  copy(state: object): JsonObject;
}

type State = Readonly<JsonObject>;
type Entities = PersistentMap<JsonObject>;

/** A new session's state: empty maps and lists, the table's initial singletons. */
export function emptyState<S>(table: SessionTable): S {
  const state: JsonObject = {};
  for (const slot of table.maps) state[slot] = PersistentMap.empty();
  for (const slot of table.lists) state[slot] = Object.freeze([]);
  for (const slot of Object.keys(table.initial)) state[slot] = frozenCopy(table.initial[slot]);
  return table.copy(state) as S;
}

/**
 * The state after `update`. An update that is not an object, or whose tag
 * is unknown on a closed union, leaves the state as it is.
 */
export function reduce<S>(table: SessionTable, state: S, update: unknown): S {
  if (!isObject(update)) return state;
  const tag = update[table.tag];
  const route = typeof tag === "string" ? (table.routes.get(tag) ?? table.other) : undefined;
  if (route === undefined) return state;
  const current = (state as State)[route.slot];
  const next = step(route, current, update, table.tag);
  if (next === current) return state;
  const copy = table.copy(state as object);
  copy[route.slot] = next;
  return copy as S;
}

/**
 * The new value of the route's slot. Whatever is stored is a frozen copy of
 * the update's part. Route field names are never `Object.prototype` members
 * (the overlay check refuses them), so they are read directly.
 */
function step(route: Route, slot: unknown, update: JsonObject, tag: string): unknown {
  switch (route.op) {
    case "upsert": {
      const copy = frozenCopy(update) as JsonObject;
      if (route.key === undefined) return upsert(route, slot as JsonObject | undefined, copy);
      const id = update[route.key];
      return typeof id === "string" ? store(slot as Entities, id, upsert(route, (slot as Entities).get(id), copy)) : slot;
    }
    case "append": {
      const id = update[route.key] ?? "";
      if (typeof id !== "string") return slot;
      return store(slot as Entities, id, append(route, (slot as Entities).get(id), frozenCopy(update[route.item]), id, update));
    }
    case "put": {
      const value = route.value === undefined ? without(update, tag) : frozenCopy(update[route.value]);
      if (route.key === undefined) return value;
      const id = isObject(value) ? value[route.key] : undefined;
      return typeof id === "string" ? store(slot as Entities, id, value as JsonObject) : slot;
    }
    case "remove": {
      const id = update[route.key];
      return typeof id === "string" ? (slot as Entities).without(id) : slot;
    }
    case "event":
      return Object.freeze([...(slot as readonly unknown[]), route.raw ? frozenCopy(update) : without(update, tag)]);
  }
}

/** `map` with `entity` stored under `id`; the same map when there is no entity. */
function store(map: Entities, id: string, entity: JsonObject | undefined): Entities {
  return entity === undefined ? map : map.with(id, entity);
}

/** S1-S9, S22: the entity after an upsert; `creates` fills in fields on first sight. */
function upsert(route: Extract<Route, { op: "upsert" }>, old: JsonObject | undefined, update: JsonObject): JsonObject {
  const base = old ?? (route.creates && route.patch(undefined, route.creates));
  return freezeNew(route.patch(base, update) as JsonObject);
}

/**
 * S10-S13, S17: the entity after a chunk. A chunk for an unseen key creates
 * the entity with its defaults (S4); the route's `patches` fields of the
 * chunk are applied to it first. Terminal bytes are decoded per chunk and
 * appended as bytes (S12); a chunk that is not base64 changes nothing.
 */
function append(route: Extract<Route, { op: "append" }>, old: JsonObject | undefined, item: unknown, id: string, update: JsonObject): JsonObject | undefined {
  let entity = old ?? freezeNew(route.patch(undefined, { ...route.creates, [route.key]: id }) as JsonObject);
  if (route.patches !== undefined) entity = patchFromChunk(route, entity, update, id);
  const current = entity[route.into];
  let value: unknown;
  if (route.bytes) {
    const data = isObject(current) && typeof current["data"] === "string" ? current["data"] : "";
    const appended = typeof item === "string" ? appendBase64(data, item) : undefined;
    if (appended === undefined) return undefined;
    value = Object.freeze({ data: appended });
  } else {
    value = Object.freeze([...(Array.isArray(current) ? current : []), item]);
  }
  return Object.freeze({ ...entity, [route.into]: value });
}

/** The entity after the chunk's `patches` fields, applied by the entity's own field rules (absent ones untouched). */
function patchFromChunk(route: Extract<Route, { op: "append" }>, entity: JsonObject, update: JsonObject, id: string): JsonObject {
  const fields: JsonObject = { [route.key]: id };
  for (const name of route.patches!) if (Object.hasOwn(update, name)) fields[name] = frozenCopy(update[name]);
  return freezeNew(route.patch(entity, fields) as JsonObject);
}

/** A deep, frozen copy of `update` without its tag. */
function without(update: JsonObject, tag: string): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(update)) if (key !== tag) put(out, key, frozenCopy(update[key]));
  return Object.freeze(out);
}

/** A deep, frozen copy of a JSON value; every key stays an own data property (S34). */
export function frozenCopy(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = frozenCopy(value[i]);
    return Object.freeze(out);
  }
  const out: JsonObject = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const field = (value as JsonObject)[key];
    const item = typeof field === "object" && field !== null ? frozenCopy(field) : field;
    if (key === "__proto__") put(out, key, item);
    else out[key] = item;
  }
  return Object.freeze(out);
}

/** Freezes the containers a patch built; parts already frozen (copied or stored before) are not walked again. */
function freezeNew<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) freezeNew(value[i]);
  else for (const key of Object.keys(value)) freezeNew((value as JsonObject)[key]);
  return Object.freeze(value);
}
