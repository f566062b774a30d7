import { published } from "./growing-list.js";

/*
 * A persistent map with string keys for the session reducer: `with` and
 * `without` return a new map that shares all untouched structure with the old
 * one (a hash array mapped trie, 32-way, behind a list of fewer than `EDITS`
 * newest edits, each a version of its own, see `#key`), so an update costs O(log32 n) instead of copying
 * a whole `Map`, and most updates of a stream copy no trie node at all.
 * Iteration follows insertion order, like
 * `Map`: re-setting a key keeps its place. Keys are plain data; `__proto__`
 * is a key like any other (S34). Nothing in a map is ever mutated after it
 * is built, so old and new versions can be shared freely.
 *
 * Values are stored as the reducer built them and published when first read
 * (`get`, iteration; growing-list.ts `published`: lists that chunks grew
 * become arrays, and the value is frozen): a value no one reads is never walked.
 *
 * Why not "rerooting" (one native `Map` for the newest version, inverse
 * edits kept by the older ones)? It was built and measured: every old version
 * must point to a newer one, so once an old version is promoted to the old
 * generation, the young versions and entities after it survive every
 * scavenge until the next full GC (about 3 MB promoted per scavenge on the
 * benchmark's stream, against 0.1 MB here), which cost more than the trie's
 * path copies saved. Here new versions point to old ones only.
 */

const BITS = 5;
const MASK = (1 << BITS) - 1;

/*
 * Trie nodes are as small as they can be, since every kept version holds the
 * nodes on its path (with every intermediate state kept, the trie is a large
 * part of the memory per update): a leaf is a three-field object, an inner
 * node one array, `[bitmap, ...children]`, told apart by `Array.isArray`
 * (not `instanceof`, which slows down once a build tool redefines a class's
 * `name`, as tsx and esbuild's keepNames do). The leaf's fields are assigned
 * in the constructor and only `declare`d, so an ES2022 class-field build
 * does not define each twice.
 */

/** One entry: key, value and its insertion number (for ordered iteration). Its hash is recomputed when needed. */
class Leaf<V> {
  declare readonly key: string;
  declare readonly value: V;
  declare readonly seq: number;
  constructor(key: string, value: V, seq: number) {
    this.key = key;
    this.value = value;
    this.seq = seq;
  }
}

/**
 * An inner node: its bitmap, then one child per set bit, in bit order. A
 * bitmap of 0 marks a collision node: its children are the leaves whose keys
 * share a full 32-bit hash.
 */
type Branch<V> = readonly (number | Trie<V>)[];

type Trie<V> = Leaf<V> | Branch<V>;

function isLeaf<V>(node: Trie<V>): node is Leaf<V> {
  return !Array.isArray(node);
}

/** How many edits a map keeps in front of its trie before they go into it. */
const EDITS = 8;

/** What `#lookup` answers for a key the map does not hold (a held key's value may be `undefined`). */
const ABSENT: unique symbol = Symbol("absent");

/** Entries in insertion order of the maps iterated so far (computed on first iteration, never kept by a map no one iterates). */
const orderedCache = new WeakMap<object, readonly Leaf<unknown>[]>();

/** `stored`, set by `PersistentMap`'s static block (declared before the class, which sets it as it is defined), where its private fields can be read. */
let storedIn: (map: PersistentMap<unknown>, key: string) => unknown;

/**
 * An immutable map from strings to `V`, ordered by first insertion. Its trie
 * and edits are held in private fields, so nothing reachable from outside
 * can change.
 */
export class PersistentMap<V> implements ReadonlyMap<string, V> {
  readonly #root: Trie<V> | undefined;
  readonly #size: number;
  /*
   * The newest edit not yet in the trie, if any (`#key` undefined: none), and
   * the version it was made on (`#older`), whose own pending edit is the next
   * newest, and so on: a map version is its trie behind a short list of its
   * newest edits, at most `EDITS - 1` long, which go into the trie together
   * with the `EDITS`th. A stream updates the same few entities in a row (a
   * message and its chunks), and a trie insert copies the root (up to 33
   * slots) and a leaf per version kept: an edit costs two fields of the
   * version instead (the version is the edit: no object of its own). The
   * edits override the trie, which holds every key, some with an older value.
   * Trade-off: a value that a newer edit replaced (in the trie, or an older
   * edit) stays reachable from the map until the edits go in, so a version
   * keeps at most `EDITS - 1` values it no longer has, for at most
   * `EDITS - 1` more edits of that map; likewise the older versions that
   * hold those edits stay reachable (with the ordered-entry list a version
   * caches once it was listed), at most `EDITS - 1` of them. A key new to the map gets its
   * insertion number when it goes into the trie (keys new to it numbered in
   * the order they came). Versions point to older versions only.
   */
  readonly #key: string | undefined;
  readonly #value: V | undefined;
  readonly #older: PersistentMap<V> | undefined;
  /** How many edits are in front of the trie, this version's own included (0 when it has none). */
  readonly #pending: number;

  private constructor(root: Trie<V> | undefined, size: number, key: string | undefined, value: V | undefined, older: PersistentMap<V> | undefined) {
    this.#root = root;
    this.#size = size;
    this.#key = key;
    this.#value = value;
    this.#older = older;
    this.#pending = key === undefined ? 0 : older!.#pending + 1;
  }

  /** The number of entries. */
  get size(): number {
    return this.#size;
  }

  /** The empty map. */
  static empty<V>(): PersistentMap<V> {
    return new PersistentMap<V>(undefined, 0, undefined, undefined, undefined);
  }

  /** The value stored under `key`, published (frozen), if any. */
  get(key: string): V | undefined {
    return published(this.#stored(key));
  }

  /** The value stored under `key` as stored (not frozen yet, its lists maybe `GrowingList`s), if any. */
  #stored(key: string): V | undefined {
    const value = this.#lookup(key);
    return value === ABSENT ? undefined : value;
  }

  static {
    storedIn = (map, key) => map.#stored(key);
  }

  /** The value stored under `key` (which may be `undefined`), or `ABSENT`: the newest pending edit of the key, else the trie's. */
  #lookup(key: string): V | typeof ABSENT {
    for (let map: PersistentMap<V> | undefined = this; map !== undefined; map = map.#older) if (map.#key === key) return map.#value as V;
    const leaf = this.#root === undefined ? undefined : find(this.#root, hashOf(key), key, 0);
    return leaf === undefined ? ABSENT : leaf.value;
  }
  /** Whether `value` is a `PersistentMap` (of this runtime). */
  static is(value: unknown): value is PersistentMap<unknown> {
    return typeof value === "object" && value !== null && #size in value;
  }
  /** A map of the entries of `source`, in its order (values as given). */
  static from<V>(source: Iterable<readonly [string, V]>): PersistentMap<V> {
    let map = PersistentMap.empty<V>();
    for (const [k, v] of source) map = map.with(k, v);
    return map;
  }

  /** Whether `key` is stored. */
  has(key: string): boolean {
    return this.#lookup(key) !== ABSENT;
  }

  /**
   * A map with `key` set to `value`; an existing key keeps its position. The
   * edit goes in front of the trie; every `EDITS` edits (of any keys, so that
   * the values they replaced are let go), they all go into the trie.
   */
  with(key: string, value: V): PersistentMap<V> {
    return this.#edited(key, value, this.has(key) ? this.#size : this.#size + 1);
  }

  /**
   * `with` for a key this map holds (the reducer has just read its value
   * with `stored`): the same map, without searching for the key again. Only
   * for a held key: for any other the size would be one short.
   */
  withHeld(key: string, value: V): PersistentMap<V> {
    return this.#edited(key, value, this.#size);
  }

  /** The map with the edit `key` = `value` in front (or, as the `EDITS`th edit, all of them in the trie), of `size` entries. */
  #edited(key: string, value: V, size: number): PersistentMap<V> {
    const edit = new PersistentMap(this.#root, size, key, value, this);
    return edit.#pending < EDITS ? edit : new PersistentMap(edit.#settled(), size, undefined, undefined, undefined);
  }

  /**
   * The trie with this version's pending edits put in: each key's newest
   * value, keys in the order they first came, so that keys new to the trie
   * are numbered in arrival order (a number is drawn for every key; one that
   * replaces keeps its own).
   */
  #settled(): Trie<V> | undefined {
    const newestFirst: PersistentMap<V>[] = [];
    for (let map: PersistentMap<V> | undefined = this; map.#key !== undefined; map = map.#older!) newestFirst.push(map);
    let out = this.#root;
    // Oldest edit first; a key goes in at its oldest edit, with the value of its newest (at most EDITS edits: a scan, no Set).
    oldestFirst: for (let i = newestFirst.length - 1; i >= 0; i--) {
      const key = newestFirst[i]!.#key!;
      for (let older = i + 1; older < newestFirst.length; older++) if (newestFirst[older]!.#key === key) continue oldestFirst;
      let newest = 0;
      while (newestFirst[newest]!.#key !== key) newest++;
      const value = newestFirst[newest]!.#value as V;
      out = out === undefined ? new Leaf(key, value, nextSeq++) : insert(out, key, value, hashOf(key), 0, nextSeq++);
    }
    return out;
  }

  /** A map without `key` (this map when the key is absent). */
  without(key: string): PersistentMap<V> {
    if (!this.has(key)) return this;
    return new PersistentMap(remove(this.#settled()!, hashOf(key), key, 0), this.#size - 1, undefined, undefined, undefined);
  }

  /** Calls `callback` for each entry in insertion order (values published). */
  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const leaf of this.#ordered()) callback.call(thisArg, published(leaf.value), leaf.key, this);
  }

  /** `[key, value]` pairs in insertion order. */
  entries() {
    return this.#ordered().map((leaf): [string, V] => [leaf.key, published(leaf.value)])[Symbol.iterator]();
  }

  /** Keys in insertion order. */
  keys() {
    return this.#ordered().map((leaf) => leaf.key)[Symbol.iterator]();
  }

  /** Values in insertion order. */
  values() {
    return this.#ordered().map((leaf) => published(leaf.value))[Symbol.iterator]();
  }

  /** `[key, value]` pairs in insertion order. */
  [Symbol.iterator]() {
    return this.entries();
  }

  #ordered(): readonly Leaf<V>[] {
    let leaves = orderedCache.get(this) as Leaf<V>[] | undefined;
    if (leaves === undefined) {
      leaves = [];
      const root = this.#settled();
      if (root !== undefined) collect(root, leaves);
      leaves.sort((a, b) => a.seq - b.seq);
      orderedCache.set(this, leaves);
    }
    return leaves;
  }
}

/**
 * The value stored under `key` in `map` as the reducer stored it (not frozen
 * yet, its lists maybe `GrowingList`s), for the reducer, which only builds on
 * it. A function of this module, not a method: a caller holding a state's map
 * reaches its values only through `get` and iteration, published (frozen), so
 * it cannot change what other states share.
 */
export function stored<V>(map: PersistentMap<V>, key: string): V | undefined {
  return storedIn(map, key) as V | undefined;
}


/**
 * The insertion number the next new entry gets, shared by every map: a key
 * new to a map is numbered above all the entries it already holds, which is
 * all that its iteration order needs, and a map version needs no counter of
 * its own (one field less in every version kept). Past 2^31 numbers drawn the
 * numbers become heap numbers: slower, still exact up to 2^53.
 */
let nextSeq = 0;

/** The last key hashed: a reducer reads and then writes the same id, so this saves the second hash. */
let lastKey = "";
let lastHash = 0x811c9dc5 | 0;

/** FNV-1a over the UTF-16 code units, as a signed 32-bit integer. */
function hashOf(key: string): number {
  if (key === lastKey) return lastHash;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  lastKey = key;
  lastHash = hash | 0;
  return lastHash;
}

/** The bit of `hash` at trie depth `shift`. */
function bitAt(hash: number, shift: number): number {
  return 1 << ((hash >>> shift) & MASK);
}

/** Position of `bit`'s child among the set bits of `bitmap`. */
function slot(bitmap: number, bit: number): number {
  let x = bitmap & (bit - 1);
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** A branch of `bitmap` over `children`, in one array of exactly its length. */
function branch<V>(bitmap: number, children: readonly Trie<V>[]): Branch<V> {
  const out = new Array<number | Trie<V>>(children.length + 1);
  out[0] = bitmap;
  for (let i = 0; i < children.length; i++) out[i + 1] = children[i]!;
  return out;
}

function bitmapOf<V>(node: Branch<V>): number {
  return node[0] as number;
}

/** The child at position `at` (0-based, after the bitmap). */
function childAt<V>(node: Branch<V>, at: number): Trie<V> {
  return node[at + 1] as Trie<V>;
}

/** The children of a branch, as a new array. */
function childrenOf<V>(node: Branch<V>): Trie<V>[] {
  return node.slice(1) as Trie<V>[];
}

/** `node` with the child at `at` replaced. */
function withChild<V>(node: Branch<V>, at: number, child: Trie<V>): Branch<V> {
  const out = node.slice();
  out[at + 1] = child;
  return out;
}

/** `node` with `child` inserted at position `at` and `bit` set, in an array of exactly the new length (`splice` leaves spare capacity). */
function withInserted<V>(node: Branch<V>, bit: number, at: number, child: Trie<V>): Branch<V> {
  const out = new Array<number | Trie<V>>(node.length + 1);
  out[0] = bitmapOf(node) | bit;
  for (let i = 1; i <= at; i++) out[i] = node[i]!;
  out[at + 1] = child;
  for (let i = at + 1; i < node.length; i++) out[i + 1] = node[i]!;
  return out;
}

/** Whether a branch is a collision node (a list of leaves with one hash). */
function isCollision<V>(node: Branch<V>): boolean {
  return bitmapOf(node) === 0;
}

/** The hash shared by the leaves under a leaf or collision node. */
function hashBelow<V>(node: Trie<V>): number {
  return hashOf((isLeaf(node) ? node : (childAt(node, 0) as Leaf<V>)).key);
}

function find<V>(node: Trie<V>, hash: number, key: string, shift: number): Leaf<V> | undefined {
  if (isLeaf(node)) return node.key === key ? node : undefined;
  if (isCollision(node)) return (childrenOf(node) as Leaf<V>[]).find((l) => l.key === key);
  const bit = bitAt(hash, shift);
  const bitmap = bitmapOf(node);
  return bitmap & bit ? find(childAt(node, slot(bitmap, bit)), hash, key, shift + BITS) : undefined;
}

/**
 * `node` with `value` stored under `key` (which hashes to `hash`): a new leaf
 * numbered `seq`, or, replacing an entry with the same key, keeping its number.
 */
function insert<V>(node: Trie<V>, key: string, value: V, hash: number, shift: number, seq: number): Trie<V> {
  if (isLeaf(node)) {
    if (node.key === key) return replacing(node, value);
  } else if (!isCollision(node)) {
    const bit = bitAt(hash, shift);
    const at = slot(bitmapOf(node), bit);
    if (!(bitmapOf(node) & bit)) return withInserted(node, bit, at, new Leaf(key, value, seq));
    return withChild(node, at, insert(childAt(node, at), key, value, hash, shift + BITS, seq));
  }
  // A leaf with another key, or a collision node: the same full hash collides, another one splits.
  const other = hashBelow(node);
  if (other !== hash) return join(node, other, new Leaf(key, value, seq), hash, shift);
  const leaves = isLeaf(node) ? [node] : (childrenOf(node) as Leaf<V>[]);
  const old = leaves.find((l) => l.key === key);
  const rest = old === undefined ? leaves : leaves.filter((l) => l !== old);
  return branch(0, [...rest, old === undefined ? new Leaf(key, value, seq) : replacing(old, value)]);
}

/** The leaf replacing `old` (same key and insertion number) with `value`. */
function replacing<V>(old: Leaf<V>, value: V): Leaf<V> {
  return new Leaf(old.key, value, old.seq);
}

/** A branch holding `a` (a leaf or collision node of hash `hashA`) and `b` (of another hash `hashB`), at depth `shift` or below. */
function join<V>(a: Trie<V>, hashA: number, b: Leaf<V>, hashB: number, shift: number): Branch<V> {
  const bitA = bitAt(hashA, shift);
  const bitB = bitAt(hashB, shift);
  if (bitA === bitB) return branch(bitA, [join(a, hashA, b, hashB, shift + BITS)]);
  return branch(bitA | bitB, bitA >>> 0 < bitB >>> 0 ? [a, b] : [b, a]);
}

/** `node` without `key`: the same node when absent, `undefined` when nothing is left. */
function remove<V>(node: Trie<V>, hash: number, key: string, shift: number): Trie<V> | undefined {
  if (isLeaf(node)) return node.key === key ? undefined : node;
  if (isCollision(node)) {
    const leaves = childrenOf(node) as Leaf<V>[];
    if (!leaves.some((l) => l.key === key)) return node;
    const rest = leaves.filter((l) => l.key !== key);
    return rest.length === 1 ? rest[0] : branch(0, rest);
  }
  const bit = bitAt(hash, shift);
  const bitmap = bitmapOf(node);
  if (!(bitmap & bit)) return node;
  const at = slot(bitmap, bit);
  const child = childAt(node, at);
  const next = remove(child, hash, key, shift + BITS);
  if (next === child) return node;
  if (next !== undefined) return withChild(node, at, next);
  const children = childrenOf(node).filter((_, i) => i !== at);
  if (children.length === 0) return undefined;
  // A lone leaf (or collision node) moves up; a lone branch stays, its position depends on the depth.
  const lone = children.length === 1 ? children[0]! : undefined;
  return lone !== undefined && (isLeaf(lone) || isCollision(lone)) ? lone : branch(bitmap & ~bit, children);
}

function collect<V>(node: Trie<V>, out: Leaf<V>[]): void {
  if (isLeaf(node)) out.push(node);
  else for (let i = 1; i < node.length; i++) collect(node[i] as Trie<V>, out);
}
