import { appendOutput } from "./base64.js";
import { copyJson, isObject, put, withMinItemsWaived } from "./decode.js";
import { grown } from "./growing-list.js";
import { appended, freezeJson, frozenCopy } from "./json.js";
import { adopt, adoptBy, type Adopt, type JsonObject } from "./patch.js";
import { PersistentMap, stored } from "./pmap.js";
import type { Issue, Result } from "./result.js";

/*
 * The session reducer engine behind each surface's `reduceSession` (S1-S22,
 * S27, S34, S35). A surface supplies a `SessionTable`, generated from the
 * reviewed table schema/semantics.json: one route per `SessionUpdate` tag.
 * The generated reducer reads the tag itself and sends the most frequent
 * updates (keyed upserts, and chunks: into a stored entity or creating it)
 * to a fast path (`upsertEntity`, `appendItem`) with the fields it read; the rest, and any
 * case a fast path does not cover, go through `reduce` and the table.
 *
 * Purity: the state and the update are never modified. Whatever is taken
 * from an update is copied (`copyJson`, no recursion), unless the caller
 * hands the update over (`owned`). Entity maps are `PersistentMap`s (hash
 * tries, see pmap.ts), and entities are frozen when first read. A list that
 * chunks append to grows in place at its end, each version a view of it
 * until read (growing-list.ts), so a chunk costs the same at any length.
 * Singletons and lists are frozen when stored. The state object itself is
 * new for every update and shared with nothing. Ids and keys are plain
 * data (S34).
 *
 * A state the caller built or changed (plain `Map`s, a spread of a state
 * with a slot replaced, a timeline of its own) is adopted on the first
 * update: its maps become `PersistentMap`s of frozen copies, its singletons
 * and lists frozen copies, and its timeline is completed from the maps. The
 * states the runtime returns carry a mark (`StateMark`) that a copy loses.
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
      /** S36 (v1 messages): a chunk without a `key` joins the open message of its kind, or starts one under an id of ours. */
      readonly positional?: boolean;
    }
  /** Stores a snapshot whole: the update without its tag, or its `value` field; under its `key` when given (S18-S20, S22). */
  | { readonly op: "put"; readonly slot: string; readonly value?: string; readonly key?: string }
  /** Deletes the entry named by the update's `key` field (S19). */
  | { readonly op: "remove"; readonly slot: string; readonly key: string }
  /** Appends the update to a list, without its tag unless `raw` (S21, S27). */
  | { readonly op: "event"; readonly slot: string; readonly raw?: boolean };

/**
 * How a slot's stored values are checked when a saved state is read back:
 * each value is turned back into the update that stores it, `{ [tag]: tag,
 * ...value }` (or `{ [tag]: tag, [value]: value }`), and validated as a
 * `SessionUpdate`; `raw` values are updates already. A `record` slot holds
 * plain `{ key, into: item[] }` records (v1 chunks); `id` names the field
 * that must equal an entity's map key.
 */
export interface StoredAs {
  readonly tag: string;
  readonly value?: string;
  readonly raw?: boolean;
  readonly id?: string;
  readonly record?: { readonly key: string; readonly item: string; readonly into: string };
}

/**
 * `route` with every field of every op present (`undefined` where it has
 * none), in one order: all routes then share one object shape, so the
 * reducer's reads of route fields stay monomorphic.
 */
export function uniformRoute(route: Route): Route {
  const r = route as Partial<Record<string, unknown>>;
  return { op: r["op"], slot: r["slot"], patch: r["patch"], key: r["key"], item: r["item"], into: r["into"], bytes: r["bytes"], creates: r["creates"], patches: r["patches"], positional: r["positional"], value: r["value"], raw: r["raw"] } as Route;
}

/** Everything a surface's reducer needs. */
export interface SessionTable {
  /** The tag property of the session union (`sessionUpdate`). */
  readonly tag: string;
  /** Route per known tag, each made by `uniformRoute`. */
  readonly routes: ReadonlyMap<string, Route>;
  /** Route of any other tag (the custom variant, S27), made by `uniformRoute`; absent on closed unions (v1, S22). */
  readonly other?: Route;
  /** Slots that are maps, lists and singletons. */
  readonly maps: readonly string[];
  readonly lists: readonly string[];
  readonly singletons: readonly string[];
  /** Singletons present in a new session (S18: `state` starts idle). */
  readonly initial: JsonObject;
  /**
   * Where a prompt the client sent is recorded (`recordPrompt`, S36): the map of user
   * messages; v1 (`open`): the singleton naming the message that chunks without an id
   * append to; v2 (`tag`): the user-message upsert that the agent echoes the prompt as.
   */
  readonly prompt?: { readonly slot: string; readonly open?: string; readonly tag?: string };
  /** How each slot's values are checked by `fromJson`. */
  readonly stored: Readonly<Record<string, StoredAs>>;
  /** Checks a stored value as the surface's `SessionUpdate` (first issue; the same verdict as `validate.SessionUpdate`). */
  validate(value: unknown): Result<unknown>;
  /**
   * A shallow copy of a state, written by the generator as one object literal:
   * every state then shares one fast shape (a spread of a 16-key object is
   * several times slower).
   */
  copy(state: object): JsonObject;
  /**
   * `state[slot]`, written by the generator as a `switch` over the slot names: a keyed
   * access whose key varies from call to call is a megamorphic lookup, several times
   * dearer than a named one (the fast paths read and write a map slot per update).
   */
  read(state: JsonObject, slot: string): unknown;
  /** `state[slot] = value` on a fresh copy (`copy`), written like `read`. */
  write(state: JsonObject, slot: string, value: unknown): void;
}

/** One entry of `SessionState.timeline`: a map slot's name and the entity's id. */
export interface TimelineEntry {
  readonly kind: string;
  readonly id: string;
}

type State = Readonly<JsonObject>;
type Entities = PersistentMap<unknown>;
type Timeline = readonly TimelineEntry[];

/** A base class whose constructor returns its argument, so that a subclass's private field is stamped on that object. */
class Stamped {
  constructor(target: object) {
    return target as Stamped;
  }
}

/**
 * Marks the states this runtime made with a private field, stamped through
 * `Stamped`'s constructor: in a marked state every map is a `PersistentMap`,
 * the timeline is in step with the maps, and every singleton and list is a
 * frozen value of the runtime's own. The mark is invisible to iteration,
 * `JSON.stringify`, deep equality and any copy, so a state the caller built
 * or changed by a spread (`{ ...state, agentMessages: new Map(...) }`) is
 * not marked, and the next reduce adopts it whole (`adoptState`). (Cheaper
 * than `Object.defineProperty` of a symbol on every new state, and than a
 * `WeakSet`, an ephemeron per state, in time and memory.)
 */
class StateMark extends Stamped {
  #own = true;

  /** Whether `value` was marked (by `ownState`). */
  static has(value: unknown): boolean {
    return typeof value === "object" && value !== null && #own in value;
  }
}

/** Marks `state`, a fresh copy (`SessionTable.copy`) the runtime completed, as its own; returns it. */
function ownState(state: JsonObject): JsonObject {
  new StateMark(state);
  return state;
}

function isOwnState(state: unknown): boolean {
  return StateMark.has(state);
}

/** `entries` as a state's timeline: frozen, as every value a state holds. */
function ownTimeline(entries: TimelineEntry[]): Timeline {
  return Object.freeze(entries);
}

const NO_ENTITIES: Timeline = ownTimeline([]);
const NO_ITEMS: readonly unknown[] = Object.freeze([]);

/** A new session's state: empty maps and lists, the table's initial singletons, an empty timeline. */
export function emptyState<S>(table: SessionTable): S {
  const state: JsonObject = {};
  for (const slot of table.maps) state[slot] = PersistentMap.empty();
  for (const slot of table.lists) state[slot] = NO_ITEMS;
  for (const slot of Object.keys(table.initial)) state[slot] = frozenCopy(table.initial[slot]);
  state["timeline"] = NO_ENTITIES;
  return ownState(table.copy(state)) as S;
}

/**
 * The state after `update`. An update that is not an object, or whose tag
 * is unknown on a closed union, leaves the state as it is. `owned`: the
 * caller hands the update over (it is never used elsewhere), so its values
 * are stored without a copy and frozen in place.
 */
export function reduce<S>(table: SessionTable, state: S, update: unknown, owned = false): S {
  if (!isObject(update)) return state;
  const tag = update[table.tag];
  const route = typeof tag === "string" ? (table.routes.get(tag) ?? table.other) : undefined;
  if (route === undefined) return state;
  // Nothing to adopt when the state is this runtime's own (and its slot still holds what it did: the state is not frozen).
  const inSlot = table.read(state as State, route.slot);
  const adopted = isOwnState(state) && (PersistentMap.is(inSlot) || !table.maps.includes(route.slot));
  const from = adopted ? (state as State) : adoptState(table, state as State);
  const current = adopted ? inSlot : table.read(from, route.slot);
  if (route.op === "append" && route.positional === true && table.prompt?.open !== undefined) return positional(table, from, route, update, table.prompt.open, owned) as S;
  const before = copying(owned);
  let next: unknown;
  try {
    next = step(route, current, update, table.tag);
  } finally {
    copied(before);
  }
  if (next === current) return from === state ? state : (from as S);
  const copy = ownState(table.copy(from));
  table.write(copy, route.slot, next);
  if (PersistentMap.is(next)) copy["timeline"] = retimed(from["timeline"] as Timeline, route, update, (current as Entities).size, next.size);
  else freezeJson(next);
  return copy as S;
}

/**
 * `reduce` for a keyed upsert route, called by the generated reducer with
 * the fields it read from the update (`id`: the key field's value): the
 * entity under `id` patched by `patch` (S1-S9), the timeline joined by a new
 * entity. A state still to be adopted, or an id that is not a string, goes
 * the general way.
 */
export function upsertEntity<S>(table: SessionTable, state: S, update: JsonObject, slot: string, id: unknown, patch: Patch["patch"], owned: boolean): S {
  const map = fastPathMap(table, state as State, slot, id);
  if (map === undefined) return reduce(table, state, update, owned);
  const old = stored(map, id as string) as object | undefined;
  const before = copying(owned);
  let entity: object;
  try {
    entity = patch(old, update);
  } finally {
    copied(before);
  }
  return storeEntity(table, state as State, slot, map, id as string, entity, old !== undefined) as S;
}

/**
 * `reduce` for a chunk appending to an entity's list (S10, S11), called by
 * the generated reducer with the fields it read from the update:
 * `item` (copied unless `owned`) appended to the entity's `into` list. The
 * new entity is a spread of the stored one, as on the general path: an entity
 * adopted from a caller's state or `sessionStateFromJSON` keeps its keys as
 * they are (a copy by the patch function would drop unknown ones). A
 * first sight creates the entity by the update's route (S4, `firstSight`).
 * A `null` entity, a state still to be adopted, or an id that is not a
 * string, goes the general way.
 */
export function appendItem<S>(table: SessionTable, state: S, update: JsonObject, slot: string, id: unknown, into: string, item: unknown, owned: boolean): S {
  const map = fastPathMap(table, state as State, slot, id);
  if (map === undefined) return reduce(table, state, update, owned);
  const old = stored(map, id as string) as JsonObject | null | undefined;
  if (old === undefined) return firstSight(table, state as State, update, slot, map, id as string, item, owned) as S;
  // A hand-made state can hold `null` for an entity: the route creates it, as on a first sight.
  if (old === null) return reduce(table, state, update, owned);
  const current = old[into];
  const entity = { ...old };
  // S34: `into` is a list field named by the reviewed overlay (never a prototype key), not a wire key.
  entity[into] = grown(current, owned ? item : copyJson(item));
  return storeEntity(table, state as State, slot, map, id as string, entity, true) as S;
}

/**
 * `appendItem` for a chunk whose entity `stored` did not find in `slot`: the
 * entity its route creates (S4), with `item` appended, is stored and joins
 * the timeline when the map grew (a key an adopted `Map` held with the value
 * `undefined` is listed already). (The general way, minus the checks the
 * fast path has made.)
 */
function firstSight(table: SessionTable, state: State, update: JsonObject, slot: string, map: PersistentMap<unknown>, id: string, item: unknown, owned: boolean): State {
  const route = table.routes.get(update[table.tag] as string) as Extract<Route, { op: "append" }>;
  const before = copying(owned);
  let entity: JsonObject | undefined;
  try {
    entity = append(route, undefined, item, id, update);
  } finally {
    copied(before);
  }
  return entity === undefined ? state : storeEntity(table, state, slot, map, id, entity, false);
}

/**
 * Starts a patch or step that takes values from an update: unless `owned`, they
 * are copied (`copyJson`) until `copied` is called with what this returns. An
 * owned update leaves the setting alone: its default, `share`, is what it
 * needs, and switching costs two stores per update on the trusted path. (A
 * reducer called from inside a copying one, by a getter of a caller-built
 * update, then copies too: equal values, and still pure.)
 */
function copying(owned: boolean): Adopt | undefined {
  return owned ? undefined : adoptBy(copyJson);
}

/** Ends what `copying` started: restores the setting it replaced, if it replaced one. */
function copied(before: Adopt | undefined): void {
  if (before !== undefined) adoptBy(before);
}

/** The map of `slot` when the fast paths can take the update: a string id, our own map and timeline (no adoption due). */
function fastPathMap(table: SessionTable, state: State, slot: string, id: unknown): PersistentMap<unknown> | undefined {
  const map = table.read(state, slot);
  return typeof id === "string" && PersistentMap.is(map) && isOwnState(state) ? map : undefined;
}

/**
 * The next state: `entity` stored under `id` in `slot` (whose map, `map`, the
 * caller read), joining the timeline when it is new to the map. `held`: the
 * caller read a stored value under `id`.
 */
function storeEntity(table: SessionTable, from: State, slot: string, map: PersistentMap<unknown>, id: string, entity: object, held: boolean): State {
  const copy = ownState(table.copy(from));
  const next = held ? map.withHeld(id, entity) : map.with(id, entity);
  table.write(copy, slot, next);
  if (next.size !== map.size) copy["timeline"] = joined(from["timeline"] as Timeline, slot, id);
  return copy;
}

/** `timeline` with the new entity `id` of map `kind` at its end. */
function joined(timeline: Timeline, kind: string, id: string): Timeline {
  return ownTimeline(appended(timeline, Object.freeze({ kind, id })));
}

/**
 * The timeline after the route changed a map: the entity the update names
 * joins at the end when it is new, and leaves when it was removed.
 */
function retimed(timeline: Timeline, route: Route, update: JsonObject, before: number, after: number): Timeline {
  if (after === before) return timeline;
  const id = entityId(route, update);
  if (after > before) return joined(timeline, route.slot, id);
  return ownTimeline(timeline.filter((entry) => entry.kind !== route.slot || entry.id !== id));
}

/** The id of the entity a map route changes (a string whenever it changed one). */
function entityId(route: Route, update: JsonObject): string {
  switch (route.op) {
    case "put": {
      const value = route.value === undefined ? update : update[route.value];
      return (value as JsonObject)[route.key!] as string;
    }
    case "append":
      return (update[route.key] ?? "") as string;
    case "event":
      return "";
    default:
      return update[route.key!] as string;
  }
}

/**
 * A state the caller built or changed, made the runtime's own: every map that
 * is not a `PersistentMap` becomes one holding frozen copies of its entries;
 * every singleton and list becomes a frozen copy (a list slot that is not an
 * array, `[]`), so the reducer never freezes, nor shares, an object the
 * caller still holds; the timeline keeps the entries that name a stored
 * entity (once) and gains, in map order, every entity it missed.
 */
function adoptState(table: SessionTable, state: State): State {
  const copy = table.copy(state);
  for (const slot of table.singletons) if (state[slot] !== undefined) copy[slot] = frozenCopy(state[slot]);
  for (const slot of table.lists) copy[slot] = Array.isArray(state[slot]) ? frozenCopy(state[slot]) : NO_ITEMS;
  const seen = new Set<string>();
  const entries: TimelineEntry[] = [];
  for (const slot of table.maps) {
    const map = state[slot];
    if (!PersistentMap.is(map)) {
      const source = map instanceof Object && typeof (map as Map<string, unknown>).entries === "function" ? [...(map as Map<string, unknown>).entries()] : [];
      copy[slot] = PersistentMap.from(source.filter(([id]) => typeof id === "string").map(([id, value]) => [id, frozenCopy(value)] as const));
    }
  }
  const given = Array.isArray(state["timeline"]) ? (state["timeline"] as unknown[]) : [];
  const addEntry = (kind: string, id: string) => {
    const name = JSON.stringify([kind, id]);
    if (seen.has(name) || !(copy[kind] as Entities).has(id)) return;
    seen.add(name);
    entries.push(Object.freeze({ kind, id }));
  };
  for (const entry of given) {
    if (isObject(entry) && typeof entry["kind"] === "string" && table.maps.includes(entry["kind"]) && typeof entry["id"] === "string") addEntry(entry["kind"], entry["id"]);
  }
  for (const slot of table.maps) for (const id of (copy[slot] as Entities).keys()) addEntry(slot, id);
  copy["timeline"] = ownTimeline(entries);
  return ownState(copy);
}

/**
 * The new value of the route's slot. Values taken from the update go
 * through the current adopt function (`copyJson`, or as they are when
 * owned). Route field names are never `Object.prototype` members (the
 * overlay check refuses them), so they are read directly.
 */
function step(route: Route, slot: unknown, update: JsonObject, tag: string): unknown {
  switch (route.op) {
    case "upsert": {
      if (route.key === undefined) return route.patch(slot as JsonObject | undefined, update);
      const id = update[route.key];
      return typeof id === "string" ? store(slot as Entities, id, upsert(route, stored(slot as Entities, id) as JsonObject | undefined, update)) : slot;
    }
    case "append": {
      const id = update[route.key] ?? "";
      if (typeof id !== "string") return slot;
      return store(slot as Entities, id, append(route, stored(slot as Entities, id) as JsonObject | undefined, update[route.item], id, update));
    }
    case "put": {
      const value = route.value === undefined ? without(update, tag) : adopt(update[route.value]);
      if (route.key === undefined) return value;
      const id = isObject(value) ? value[route.key] : undefined;
      return typeof id === "string" ? store(slot as Entities, id, value as JsonObject) : slot;
    }
    case "remove": {
      const id = update[route.key];
      return typeof id === "string" ? (slot as Entities).without(id) : slot;
    }
    case "event":
      // Frozen here, item first, so that the list's earlier items are not walked again.
      // A list slot that is not an array (a state outside its type) is read as empty.
      return Object.freeze(appended(Array.isArray(slot) ? (slot as readonly unknown[]) : [], freezeJson(route.raw ? adopt(update) : without(update, tag))));
  }
}

/** `map` with `entity` stored under `id`; the same map when there is no entity. */
function store(map: Entities, id: string, entity: JsonObject | undefined): Entities {
  return entity === undefined ? map : map.with(id, entity);
}

/** S1-S9, S22: the entity after an upsert; `creates` fills in fields on first sight. */
function upsert(route: Extract<Route, { op: "upsert" }>, old: JsonObject | undefined, update: JsonObject): JsonObject {
  const base = old ?? (route.creates && route.patch(undefined, route.creates));
  return route.patch(base, update) as JsonObject;
}

/**
 * S10-S13, S17: the entity after a chunk. A chunk for an unseen key creates
 * the entity with its defaults (S4); the route's `patches` fields of the
 * chunk are applied to it first. Terminal bytes are decoded per chunk and
 * appended as bytes (S12); a chunk that is not base64 changes nothing.
 */
function append(route: Extract<Route, { op: "append" }>, old: JsonObject | undefined, item: unknown, id: string, update: JsonObject): JsonObject | undefined {
  let entity = old ?? created(route, id);
  if (route.patches !== undefined) entity = patchFromChunk(route, entity, update, id);
  const current = entity[route.into];
  let value: unknown;
  if (route.bytes) {
    value = typeof item === "string" ? appendOutput(current, item) : undefined;
    if (value === undefined) return undefined;
  } else {
    value = grown(current, adopt(item));
  }
  // A spread with a computed key is several times slower than a spread and a store.
  const out = { ...entity };
  out[route.into] = value;
  return out;
}

/** The entity a chunk for the unseen key `id` starts from: the route's `creates` fields and the key, through its patch function (S4). */
function created(route: Extract<Route, { op: "append" }>, id: string): JsonObject {
  const fields: JsonObject = { ...route.creates };
  // S34: `key` is a field named by the reviewed overlay (never a prototype key), not a wire key.
  fields[route.key] = id;
  return route.patch(undefined, fields) as JsonObject;
}

/** The entity after the chunk's `patches` fields, applied by the entity's own field rules (absent ones untouched). */
function patchFromChunk(route: Extract<Route, { op: "append" }>, entity: JsonObject, update: JsonObject, id: string): JsonObject {
  const fields: JsonObject = { [route.key]: id };
  for (const name of route.patches!) if (Object.hasOwn(update, name)) fields[name] = update[name];
  return route.patch(entity, fields) as JsonObject;
}

/** The update without its tag, each value adopted. */
function without(update: JsonObject, tag: string): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(update)) if (key !== tag) put(out, key, adopt(update[key]));
  return out;
}

/* ----- S36: messages without an id (v1) ----- */

type AppendRoute = Extract<Route, { op: "append" }>;

/**
 * S36: `reduce` for a v1 message chunk. Without an id (absent or `null`) it
 * appends to the open message of its kind, or starts a new message under an
 * id of ours (`ourId`) that becomes the open one (the singleton `open`). With
 * an id it follows S11; a message of ours that holds that id moves to another
 * id first (`renamed`), so no wire id ever names one of ours. `from` is the
 * state's own (adopted).
 */
function positional(table: SessionTable, from: State, route: AppendRoute, update: JsonObject, open: string, owned: boolean): State {
  const id = update[route.key];
  if (id === undefined || id === null) {
    const map = table.read(from, route.slot) as Entities;
    const openId = openMessage(table, from, route, open);
    return appendInto(table, from, route, update, openId ?? ourId(map), owned, openId === undefined ? open : undefined);
  }
  if (typeof id !== "string") return from;
  return appendInto(table, renamed(table, from, route, id, open), route, update, id, owned, undefined);
}

/**
 * The state with the chunk's item appended to message `id` of the route's map
 * (created when new, joining the timeline); `opens`: the open-message slot
 * that then names it (a message of ours just started).
 */
function appendInto(table: SessionTable, from: State, route: AppendRoute, update: JsonObject, id: string, owned: boolean, opens: string | undefined): State {
  const map = table.read(from, route.slot) as Entities;
  const old = stored(map, id) as JsonObject | undefined;
  // A message of ours is stored without the key field: no chunk ever gave it an id.
  const base = old ?? (opens === undefined ? undefined : { [route.into]: NO_ITEMS });
  const before = copying(owned);
  let entity: JsonObject;
  try {
    entity = append(route, base, update[route.item], id, update)!;
  } finally {
    copied(before);
  }
  const copy = storeEntity(table, from, route.slot, map, id, entity, old !== undefined) as JsonObject;
  if (opens !== undefined) table.write(copy, opens, Object.freeze({ kind: route.slot, id }));
  return copy;
}

/**
 * S36: the id of the open message of the route's kind: the one the `open`
 * slot names while it is the newest timeline entry and a message of ours.
 */
function openMessage(table: SessionTable, state: State, route: AppendRoute, open: string): string | undefined {
  const named = table.read(state, open);
  const timeline = state["timeline"] as Timeline;
  const last = timeline[timeline.length - 1];
  if (!isObject(named) || last === undefined || named["kind"] !== route.slot || last.kind !== route.slot || last.id !== named["id"]) return undefined;
  return isOurs(stored(table.read(state, route.slot) as Entities, last.id), route.key) ? last.id : undefined;
}

/** Whether a stored message is one of ours: an entity without the key field (S36). */
function isOurs(entity: unknown, key: string): boolean {
  return isObject(entity) && !Object.hasOwn(entity, key);
}

/** S36: a fresh id of ours in `map`: `#n`, n the map's size plus one, or the next number free. */
function ourId(map: Entities): string {
  let n = map.size + 1;
  while (map.has(`#${n}`)) n++;
  return `#${n}`;
}

/**
 * S36: the state where the wire id `id` names no message of ours: a message
 * of ours under `id` moves to a fresh id of ours, keeping its timeline place
 * (and the open slot's name of it).
 */
function renamed(table: SessionTable, from: State, route: AppendRoute, id: string, open: string): State {
  const map = table.read(from, route.slot) as Entities;
  const entity = stored(map, id);
  if (!isOurs(entity, route.key)) return from;
  const fresh = ourId(map);
  const copy = ownState(table.copy(from));
  table.write(copy, route.slot, map.without(id).with(fresh, entity));
  const moved = (entry: TimelineEntry) => (entry.kind === route.slot && entry.id === id ? Object.freeze({ kind: route.slot, id: fresh }) : entry);
  copy["timeline"] = ownTimeline((from["timeline"] as Timeline).map(moved));
  const named = table.read(from, open);
  if (isObject(named) && named["kind"] === route.slot && named["id"] === id) table.write(copy, open, Object.freeze({ kind: route.slot, id: fresh }));
  return copy;
}

/**
 * S36: the state after the client sent a prompt (`prompt`: its content
 * blocks). v1 (`open`): a new user message of ours holding the blocks, which
 * closes the open message. v2 (`tag`): the prompt as the user message
 * `messageId` the agent's answer names, unless the agent echoed it already.
 */
export function recordPrompt<S>(table: SessionTable, state: S, prompt: unknown, messageId?: unknown): S {
  const where = table.prompt;
  if (where === undefined) return state;
  const blocks = Array.isArray(prompt) ? prompt : [];
  if (where.open === undefined) {
    if (typeof messageId !== "string" || where.tag === undefined) return state;
    const map = table.read(isOwnState(state) ? (state as State) : adoptState(table, state as State), where.slot) as Entities;
    return map.has(messageId) ? state : reduce(table, state, { [table.tag]: where.tag, messageId, content: blocks });
  }
  const from = isOwnState(state) && PersistentMap.is(table.read(state as State, where.slot)) ? (state as State) : adoptState(table, state as State);
  const map = table.read(from, where.slot) as Entities;
  const id = ourId(map);
  const entity = freezeJson({ content: blocks.map((block) => copyJson(block)) });
  const copy = storeEntity(table, from, where.slot, map, id, entity, false) as JsonObject;
  delete copy[where.open];
  return copy as S;
}

/* ----- Saving and restoring a state ----- */

/**
 * A state as plain JSON data: maps as `[id, entity]` pairs in order (ids can
 * look like array indexes, which object keys would reorder), singletons and
 * lists as they are, and the timeline. Values are shared with the state
 * (they are frozen).
 */
export function toJson(table: SessionTable, state: object): JsonObject {
  // A state the caller built or changed is saved as the reducer would take it on (its timeline completed).
  const source = isOwnState(state) ? (state as State) : adoptState(table, state as State);
  const out: JsonObject = {};
  for (const slot of table.maps) out[slot] = [...(source[slot] as ReadonlyMap<string, unknown>).entries()];
  for (const slot of table.singletons) if (source[slot] !== undefined) out[slot] = source[slot];
  for (const slot of table.lists) out[slot] = [...(source[slot] as readonly unknown[])];
  out["timeline"] = (source["timeline"] as Timeline).map((entry) => ({ kind: entry.kind, id: entry.id }));
  return out;
}

/**
 * The state saved by `toJson`, every stored value validated as the update
 * that stores it; issues carry JSON pointers into `json`. Never throws.
 */
export function fromJson<S>(table: SessionTable, json: unknown): Result<S> {
  // What the reducer stored from `parse`'s output restores: `parse` does not assert minItems, so neither does this check.
  return withMinItemsWaived(() => readState<S>(table, json));
}

/** `fromJson`, with the validators' minItems waived. */
function readState<S>(table: SessionTable, json: unknown): Result<S> {
  const issues: Issue[] = [];
  if (!isObject(json)) return { ok: false, issues: [{ path: "", message: "expected an object (a saved session state)" }] };
  const known = new Set([...table.maps, ...table.lists, ...table.singletons, "timeline"]);
  for (const key of Object.keys(json)) if (!known.has(key)) issues.push({ path: pointer(key), message: "not a slot of this surface's SessionState" });
  const state: JsonObject = {};
  const listed = new Map<string, Set<string>>();
  for (const slot of table.maps) state[slot] = readMap(table, slot, json[slot], listed, issues);
  for (const slot of table.lists) state[slot] = readList(table, slot, json[slot], issues);
  for (const slot of table.singletons) {
    if (!Object.hasOwn(json, slot)) {
      if (Object.hasOwn(table.initial, slot)) issues.push({ path: pointer(slot), message: "missing: a session always has it" });
      continue;
    }
    if (slot === table.prompt?.open) {
      if (checkOpen(table, state, slot, json[slot], issues)) state[slot] = frozenCopy(json[slot]);
    } else if (checkStored(table, table.stored[slot]!, json[slot], pointer(slot), issues)) state[slot] = frozenCopy(json[slot]);
  }
  state["timeline"] = readTimeline(table, listed, json["timeline"], issues);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: ownState(table.copy(state)) as S };
}

const NOT_STORED = "no update of this surface stores anything here";

/** A saved map; `listed` gets the ids its pairs name (valid entities or not), for the timeline check. */
function readMap(table: SessionTable, slot: string, value: unknown, listed: Map<string, Set<string>>, issues: Issue[]): Entities {
  const path = pointer(slot);
  const entries: [string, unknown][] = [];
  const ids = new Set<string>();
  listed.set(slot, ids);
  if (!Array.isArray(value)) {
    issues.push({ path, message: "expected an array of [id, entity] pairs" });
    return PersistentMap.empty();
  }
  const as = table.stored[slot];
  value.forEach((entry, i) => {
    const at = `${path}/${i}`;
    if (as === undefined) return issues.push({ path: at, message: NOT_STORED });
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== "string") return issues.push({ path: at, message: "expected an [id, entity] pair with a string id" });
    const [id, entity] = entry as [string, unknown];
    if (ids.has(id)) return issues.push({ path: `${at}/0`, message: "duplicate id" });
    ids.add(id);
    if (!checkStored(table, as, entity, `${at}/1`, issues)) return;
    // S36: a v1 message of ours has no key field; its id is the map's alone.
    const keyed = as.record === undefined || (isObject(entity) && Object.hasOwn(entity, as.id ?? ""));
    if (as.id !== undefined && keyed && isObject(entity) && entity[as.id] !== id) return issues.push({ path: `${at}/1${pointer(as.id)}`, message: `must equal the entry's id ${JSON.stringify(id)}` });
    entries.push([id, frozenCopy(entity)]);
  });
  return PersistentMap.from(entries);
}

function readList(table: SessionTable, slot: string, value: unknown, issues: Issue[]): readonly unknown[] {
  const path = pointer(slot);
  if (!Array.isArray(value)) {
    issues.push({ path, message: "expected an array" });
    return Object.freeze([]);
  }
  const as = table.stored[slot];
  const valid = (item: unknown, i: number) => (as === undefined ? !issues.push({ path: `${path}/${i}`, message: NOT_STORED }) : checkStored(table, as, item, `${path}/${i}`, issues));
  return Object.freeze(value.filter(valid).map(frozenCopy));
}

/** The saved timeline: every entry names a saved entity, no entity twice, every entity listed. */
function readTimeline(table: SessionTable, listed: ReadonlyMap<string, ReadonlySet<string>>, value: unknown, issues: Issue[]): Timeline {
  if (!Array.isArray(value)) {
    issues.push({ path: "/timeline", message: "expected an array of { kind, id }" });
    return NO_ENTITIES;
  }
  const seen = new Set<string>();
  const entries: TimelineEntry[] = [];
  value.forEach((entry, i) => {
    const at = `/timeline/${i}`;
    const kind = isObject(entry) ? entry["kind"] : undefined;
    const id = isObject(entry) ? entry["id"] : undefined;
    if (!isObject(entry) || Object.keys(entry).length !== 2 || typeof kind !== "string" || typeof id !== "string" || !table.maps.includes(kind)) {
      return issues.push({ path: at, message: `expected { kind, id } with kind one of ${table.maps.join(", ")} and a string id` });
    }
    const name = JSON.stringify([kind, id]);
    if (seen.has(name)) return issues.push({ path: at, message: "this entity is listed twice" });
    if (!listed.get(kind)!.has(id)) return issues.push({ path: at, message: `no entity ${JSON.stringify(id)} in ${kind}` });
    seen.add(name);
    entries.push(Object.freeze({ kind, id }));
  });
  for (const kind of table.maps) {
    for (const id of listed.get(kind)!) {
      if (!seen.has(JSON.stringify([kind, id]))) issues.push({ path: "/timeline", message: `entity ${JSON.stringify(id)} of ${kind} is missing` });
    }
  }
  return ownTimeline(entries);
}

/** Checks one stored value as the update that stores it; issues are placed under `path`. */
function checkStored(table: SessionTable, as: StoredAs, value: unknown, path: string, issues: Issue[]): boolean {
  if (as.record !== undefined) return checkRecord(table, as, as.record, value, path, issues);
  if (as.raw) {
    // S27: the reducer keeps raw only the updates whose tag it has no route for.
    const tag = isObject(value) ? value[table.tag] : undefined;
    if (typeof tag !== "string" || !table.routes.has(tag)) return report(table.validate(value), path, "", issues);
    issues.push({ path: `${path}${pointer(table.tag)}`, message: `${JSON.stringify(tag)} is a known update: only updates of unknown kinds are kept raw` });
    return false;
  }
  const update: JsonObject = { [table.tag]: as.tag };
  if (as.value !== undefined) {
    put(update, as.value, value);
    return report(table.validate(update), path, pointer(as.value), issues);
  }
  if (!isObject(value) || Object.hasOwn(value, table.tag)) {
    issues.push({ path, message: `expected an object without ${JSON.stringify(table.tag)}` });
    return false;
  }
  for (const key of Object.keys(value)) put(update, key, value[key]);
  return report(table.validate(update), path, "", issues);
}

/**
 * A plain `{ key, into: item[] }` record (v1 chunks), or `{ into: item[] }` for a
 * message of ours (S36): each item checked as the chunk that appended it.
 */
function checkRecord(table: SessionTable, as: StoredAs, record: NonNullable<StoredAs["record"]>, value: unknown, path: string, issues: Issue[]): boolean {
  const items = isObject(value) ? value[record.into] : undefined;
  const keyed = isObject(value) && Object.hasOwn(value, record.key);
  if (!isObject(value) || (keyed && typeof value[record.key] !== "string") || !Array.isArray(items) || Object.keys(value).length !== (keyed ? 2 : 1)) {
    issues.push({ path, message: `expected { ${record.key}: string, ${record.into}: [...] } or, for a message without an id, { ${record.into}: [...] }` });
    return false;
  }
  return items.every((item, i) => {
    const chunk: JsonObject = { [table.tag]: as.tag };
    if (keyed) put(chunk, record.key, value[record.key]);
    put(chunk, record.item, item);
    return report(table.validate(chunk), `${path}${pointer(record.into)}/${i}`, pointer(record.item), issues);
  });
}

/** S36: a saved open-message slot names, as `{ kind, id }`, a message of ours in a map already read into `state`. */
function checkOpen(table: SessionTable, state: JsonObject, slot: string, value: unknown, issues: Issue[]): boolean {
  const kind = isObject(value) ? value["kind"] : undefined;
  const id = isObject(value) ? value["id"] : undefined;
  const as = typeof kind === "string" && table.maps.includes(kind) ? table.stored[kind] : undefined;
  const map = typeof kind === "string" ? state[kind] : undefined;
  if (isObject(value) && Object.keys(value).length === 2 && as?.record !== undefined && typeof id === "string" && PersistentMap.is(map) && isOurs(stored(map, id), as.record.key)) return true;
  issues.push({ path: pointer(slot), message: "expected { kind, id } naming a message without an id of a map of messages" });
  return false;
}

/** Adds a validation result's issues, re-rooted from the rebuilt update (`prefix` dropped) to `path`. */
function report(result: Result<unknown>, path: string, prefix: string, issues: Issue[]): boolean {
  if (result.ok) return true;
  for (const issue of result.issues) {
    const inside = issue.path === prefix || issue.path.startsWith(`${prefix}/`);
    const rest = inside ? issue.path.slice(prefix.length) : issue.path;
    issues.push({ path: path + rest, message: issue.message });
  }
  return false;
}

/** A one-segment JSON pointer (RFC 6901 escaping). */
function pointer(key: string): string {
  return "/" + key.replaceAll("~", "~0").replaceAll("/", "~1");
}
