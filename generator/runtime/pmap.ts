import { freezeJson } from "./json.js";

/*
 * A persistent map with string keys for the session reducer: `with` and
 * `without` return a new map that shares all untouched structure with the old
 * one (a hash array mapped trie, 32-way), so an update costs O(log32 n)
 * instead of copying a whole `Map`. Iteration follows insertion order, like
 * `Map`: re-setting a key keeps its place. Keys are plain data; `__proto__`
 * is a key like any other (S34). Nothing in a map is ever mutated after it
 * is built, so old and new versions can be shared freely.
 *
 * Values are stored as the reducer built them and frozen when first read
 * (`get`, iteration): a value no one reads is never walked.
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
 * Trie nodes carry a `kind` tag, tested instead of `instanceof` (which slows
 * down once a build tool redefines the classes' `name`, as tsx and esbuild's
 * keepNames do). They assign their fields in the constructor and only
 * `declare` them, so an ES2022 class-field build does not define each twice.
 */

/** One entry: key, value, hash and its insertion number (for ordered iteration). */
class Leaf<V> {
  declare readonly kind: "leaf";
  declare readonly hash: number;
  declare readonly key: string;
  declare readonly value: V;
  declare readonly seq: number;
  constructor(hash: number, key: string, value: V, seq: number) {
    this.kind = "leaf";
    this.hash = hash;
    this.key = key;
    this.value = value;
    this.seq = seq;
  }
}

/** Entries whose keys share a full 32-bit hash. */
class Collision<V> {
  declare readonly kind: "collision";
  declare readonly hash: number;
  declare readonly leaves: readonly Leaf<V>[];
  constructor(hash: number, leaves: readonly Leaf<V>[]) {
    this.kind = "collision";
    this.hash = hash;
    this.leaves = leaves;
  }
}

/** An inner node: one child per set bit of `bitmap`, in bit order. */
class Branch<V> {
  declare readonly kind: "branch";
  declare readonly bitmap: number;
  declare readonly children: readonly Trie<V>[];
  constructor(bitmap: number, children: readonly Trie<V>[]) {
    this.kind = "branch";
    this.bitmap = bitmap;
    this.children = children;
  }
}

type Trie<V> = Leaf<V> | Collision<V> | Branch<V>;

/**
 * An immutable map from strings to `V`, ordered by first insertion. Its trie
 * is held in private fields, so nothing reachable from outside can change.
 */
export class PersistentMap<V> implements ReadonlyMap<string, V> {
  readonly #root: Trie<V> | undefined;
  readonly #size: number;
  /** The insertion number the next new key gets. */
  readonly #nextSeq: number;
  /** Entries in insertion order, computed on first iteration. */
  #ordered: readonly Leaf<V>[] | undefined;

  private constructor(root: Trie<V> | undefined, size: number, nextSeq: number) {
    this.#root = root;
    this.#size = size;
    this.#nextSeq = nextSeq;
  }

  /** The number of entries. */
  get size(): number {
    return this.#size;
  }

  /** The empty map. */
  static empty<V>(): PersistentMap<V> {
    return new PersistentMap<V>(undefined, 0, 0);
  }

  /** The value stored under `key`, frozen, if any. */
  get(key: string): V | undefined {
    return freezeJson(this.peek(key));
  }

  /** The value stored under `key` as stored (not frozen yet): for the reducer, which only builds on it. */
  peek(key: string): V | undefined {
    return this.#root === undefined ? undefined : find(this.#root, hashOf(key), key, 0)?.value;
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
    return this.#root !== undefined && find(this.#root, hashOf(key), key, 0) !== undefined;
  }

  /** A map with `key` set to `value`; an existing key keeps its position. */
  with(key: string, value: V): PersistentMap<V> {
    const hash = hashOf(key);
    const old = this.#root === undefined ? undefined : find(this.#root, hash, key, 0);
    const leaf = new Leaf(hash, key, value, old?.seq ?? this.#nextSeq);
    const root = this.#root === undefined ? leaf : insert(this.#root, leaf, 0);
    return new PersistentMap(root, old ? this.#size : this.#size + 1, old ? this.#nextSeq : this.#nextSeq + 1);
  }

  /** A map without `key` (this map when the key is absent). */
  without(key: string): PersistentMap<V> {
    if (this.#root === undefined) return this;
    const root = remove(this.#root, hashOf(key), key, 0);
    return root === this.#root ? this : new PersistentMap(root, this.#size - 1, this.#nextSeq);
  }

  /** Calls `callback` for each entry in insertion order (values frozen). */
  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const leaf of this.ordered()) callback.call(thisArg, freezeJson(leaf.value), leaf.key, this);
  }

  /** `[key, value]` pairs in insertion order. */
  entries() {
    return this.ordered().map((leaf): [string, V] => [leaf.key, freezeJson(leaf.value)])[Symbol.iterator]();
  }

  /** Keys in insertion order. */
  keys() {
    return this.ordered().map((leaf) => leaf.key)[Symbol.iterator]();
  }

  /** Values in insertion order. */
  values() {
    return this.ordered().map((leaf) => freezeJson(leaf.value))[Symbol.iterator]();
  }

  /** `[key, value]` pairs in insertion order. */
  [Symbol.iterator]() {
    return this.entries();
  }

  private ordered(): readonly Leaf<V>[] {
    if (this.#ordered === undefined) {
      const leaves: Leaf<V>[] = [];
      if (this.#root !== undefined) collect(this.#root, leaves);
      this.#ordered = leaves.sort((a, b) => a.seq - b.seq);
    }
    return this.#ordered;
  }
}

/** The last key hashed: a reducer reads and then writes the same id, so this saves the second hash. */
let lastKey = "";
let lastHash = 0x811c9dc5 | 0;

/** FNV-1a over the UTF-16 code units, as a signed 32-bit integer (a small integer, not a boxed number, in every `Leaf`). */
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

function find<V>(node: Trie<V>, hash: number, key: string, shift: number): Leaf<V> | undefined {
  if (node.kind === "leaf") return node.key === key ? node : undefined;
  if (node.kind === "collision") return node.hash === hash ? node.leaves.find((l) => l.key === key) : undefined;
  const bit = bitAt(hash, shift);
  return node.bitmap & bit ? find(node.children[slot(node.bitmap, bit)]!, hash, key, shift + BITS) : undefined;
}

/** `node` with `leaf` stored (replacing an entry with the same key). */
function insert<V>(node: Trie<V>, leaf: Leaf<V>, shift: number): Trie<V> {
  if (node.kind === "branch") {
    const bit = bitAt(leaf.hash, shift);
    const at = slot(node.bitmap, bit);
    if (!(node.bitmap & bit)) return new Branch(node.bitmap | bit, insertedAt(node.children, at, leaf));
    const children = node.children.slice();
    children[at] = insert(children[at]!, leaf, shift + BITS);
    return new Branch(node.bitmap, children);
  }
  if (node.hash !== leaf.hash) return join(node, leaf, shift);
  if (node.kind === "leaf") return node.key === leaf.key ? leaf : new Collision(leaf.hash, [node, leaf]);
  return new Collision(leaf.hash, [...node.leaves.filter((l) => l.key !== leaf.key), leaf]);
}

/** `children` with `child` inserted at `at`, in an array of exactly the new length (`splice` leaves spare capacity). */
function insertedAt<V>(children: readonly Trie<V>[], at: number, child: Trie<V>): Trie<V>[] {
  const out = new Array<Trie<V>>(children.length + 1);
  for (let i = 0; i < at; i++) out[i] = children[i]!;
  out[at] = child;
  for (let i = at; i < children.length; i++) out[i + 1] = children[i]!;
  return out;
}

/** A branch holding `a` and `b`, whose hashes differ, at depth `shift` or below. */
function join<V>(a: Leaf<V> | Collision<V>, b: Leaf<V>, shift: number): Branch<V> {
  const bitA = bitAt(a.hash, shift);
  const bitB = bitAt(b.hash, shift);
  if (bitA === bitB) return new Branch(bitA, [join(a, b, shift + BITS)]);
  return new Branch(bitA | bitB, bitA >>> 0 < bitB >>> 0 ? [a, b] : [b, a]);
}

/** `node` without `key`: the same node when absent, `undefined` when nothing is left. */
function remove<V>(node: Trie<V>, hash: number, key: string, shift: number): Trie<V> | undefined {
  if (node.kind === "leaf") return node.key === key ? undefined : node;
  if (node.kind === "collision") {
    if (node.hash !== hash || !node.leaves.some((l) => l.key === key)) return node;
    const rest = node.leaves.filter((l) => l.key !== key);
    return rest.length === 1 ? rest[0] : new Collision(hash, rest);
  }
  const bit = bitAt(hash, shift);
  if (!(node.bitmap & bit)) return node;
  const at = slot(node.bitmap, bit);
  const child = node.children[at]!;
  const next = remove(child, hash, key, shift + BITS);
  if (next === child) return node;
  if (next !== undefined) {
    const children = node.children.slice();
    children[at] = next;
    return new Branch(node.bitmap, children);
  }
  const children = node.children.filter((_, i) => i !== at);
  if (children.length === 0) return undefined;
  // A lone leaf (or collision) moves up; a lone branch stays, its position depends on the depth.
  return children.length === 1 && children[0]!.kind !== "branch" ? children[0] : new Branch(node.bitmap & ~bit, children);
}

function collect<V>(node: Trie<V>, out: Leaf<V>[]): void {
  if (node.kind === "leaf") out.push(node);
  else if (node.kind === "collision") out.push(...node.leaves);
  else for (const child of node.children) collect(child, out);
}
