import { freezeJson } from "./json.js";

/*
 * A persistent map with string keys for the session reducer, by
 * "rerooting" (Baker's trick): all versions of one map share ONE native
 * `Map`, which holds the contents of the version last used (the root).
 * Every other version holds one change (a key and the value it has there,
 * or ABSENT) relative to a neighbouring version, so the versions form a
 * tree of single-key edits around the root.
 *
 * - `with` on the root costs one `Map.set` plus one small version object;
 *   the old root turns into the inverse edit. A reducer that always extends
 *   the newest state never walks anything.
 * - Reading an older version (`get`, iteration, `size` is stored) first
 *   reroots: the edits on the path are replayed onto the shared `Map` and
 *   reversed, so reads of old versions cost the distance to the root and
 *   then move the root there. Every version always reads exactly as it was
 *   built (random access to any old version is correct).
 * - Insertion order stays exact: an edit either changes the value of a key
 *   both sides have (order untouched) or adds a key at the end / deletes it
 *   again. `without` would need an insertion in the middle to undo, so it
 *   starts a new shared `Map` (O(n); plans are the only removable entities).
 *
 * Values are stored as given and frozen when first read (`freezeJson`), so
 * a value that no one reads is never walked. Nothing read from a version
 * ever changes afterwards. Keys are plain data: `__proto__` is a key like
 * any other (S34).
 */

const ABSENT: unique symbol = Symbol("absent");

/** What all versions of one map share: the native map and the version it currently holds. */
interface Shared<V> {
  readonly map: Map<string, V>;
  root: PersistentMap<V>;
}

/** An immutable, insertion-ordered map from strings to `V`. */
export class PersistentMap<V> implements ReadonlyMap<string, V> {
  readonly #shared: Shared<V>;
  readonly #size: number;
  /** Toward the root: this version is `#next` with `#key` set to `#value` (ABSENT: deleted). */
  #next: PersistentMap<V> | undefined;
  #key: string;
  #value: V | typeof ABSENT;

  /** A version of `shared` (then the caller makes it the root), or the only version of a new map holding `map`. */
  private constructor(shared: Shared<V> | Map<string, V>, size: number) {
    this.#shared = shared instanceof Map ? { map: shared, root: this } : shared;
    this.#size = size;
    this.#next = undefined;
    this.#key = "";
    this.#value = ABSENT;
  }

  /** The empty map. */
  static empty<V>(): PersistentMap<V> {
    return new PersistentMap<V>(new Map(), 0);
  }

  /** A map of the entries of `source`, in its order (values as given). */
  static from<V>(source: Iterable<readonly [string, V]>): PersistentMap<V> {
    const map = new Map<string, V>();
    for (const [key, value] of source) map.set(key, value);
    return new PersistentMap<V>(map, map.size);
  }

  /** Whether `value` is a `PersistentMap` (of this runtime). */
  static is(value: unknown): value is PersistentMap<unknown> {
    return typeof value === "object" && value !== null && #shared in value;
  }

  /** The number of entries. */
  get size(): number {
    return this.#size;
  }

  /** The value stored under `key`, frozen, if any. */
  get(key: string): V | undefined {
    return freezeJson(this.peek(key));
  }

  /** The value stored under `key` as stored (not frozen yet): for the reducer, which only builds on it. */
  peek(key: string): V | undefined {
    return this.#reroot().get(key);
  }

  /** Whether `key` is stored. */
  has(key: string): boolean {
    return this.#reroot().has(key);
  }

  /** A map with `key` set to `value`; an existing key keeps its position. */
  with(key: string, value: V): PersistentMap<V> {
    const map = this.#reroot();
    const had = map.has(key);
    const old = had ? map.get(key)! : ABSENT;
    map.set(key, value);
    const next = new PersistentMap<V>(this.#shared, had ? this.#size : this.#size + 1);
    this.#shared.root = next;
    this.#next = next;
    this.#key = key;
    this.#value = old;
    return next;
  }

  /** A map without `key` (this map when the key is absent); a new shared map, see above. */
  without(key: string): PersistentMap<V> {
    const map = this.#reroot();
    if (!map.has(key)) return this;
    const copy = new Map(map);
    copy.delete(key);
    return new PersistentMap<V>(copy, copy.size);
  }

  /** Calls `callback` for each entry in insertion order. */
  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.#snapshot()) callback.call(thisArg, value, key, this);
  }

  /** `[key, value]` pairs in insertion order. */
  entries() {
    return this.#snapshot()[Symbol.iterator]();
  }

  /** Keys in insertion order. */
  keys() {
    return this.#snapshot().map(([key]) => key)[Symbol.iterator]();
  }

  /** Values in insertion order. */
  values() {
    return this.#snapshot().map(([, value]) => value)[Symbol.iterator]();
  }

  /** `[key, value]` pairs in insertion order. */
  [Symbol.iterator]() {
    return this.entries();
  }

  /**
   * The entries of this version, copied out (so that reading another
   * version while iterating this one cannot disturb it), values frozen.
   */
  #snapshot(): [string, V][] {
    const out: [string, V][] = [];
    for (const [key, value] of this.#reroot()) out.push([key, freezeJson(value)]);
    return out;
  }

  /** Makes this version the root (replaying and reversing the edits on the way); returns the shared map. */
  #reroot(): Map<string, V> {
    const shared = this.#shared;
    if (shared.root === this) return shared.map;
    const path: PersistentMap<V>[] = [];
    for (let v: PersistentMap<V> = this; v !== shared.root; v = v.#next!) path.push(v);
    for (let i = path.length - 1; i >= 0; i--) path[i]!.#stepRoot();
    return shared.map;
  }

  /** Moves the root from `#next` (the current root) to this version, reversing the edit. */
  #stepRoot(): void {
    const map = this.#shared.map;
    const next = this.#next!;
    const key = this.#key;
    const current = map.has(key) ? map.get(key)! : ABSENT;
    if (this.#value === ABSENT) map.delete(key);
    else map.set(key, this.#value);
    next.#next = this;
    next.#key = key;
    next.#value = current;
    this.#next = undefined;
    this.#value = ABSENT;
    this.#shared.root = this;
  }
}
