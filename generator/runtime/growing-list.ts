import { firstItems, freezeJson } from "./json.js";

/*
 * Lists that chunks append to (S10, S11, S13, S17: a message's `content`, a
 * compaction's `summary`, ...), in the time of the item, not of the list.
 *
 * A stored entity's list is public as a plain frozen array of exactly its
 * items, and every kept state must keep its own. Copying the list on every
 * append makes a message of n chunks cost O(n²) time, and O(n²) memory when
 * the states are kept. Instead, while no one has read the entity (entities
 * are frozen when first read, see pmap.ts), its list field holds a
 * `GrowingList`: the first `length` items of a store that the versions of
 * the list share and that only ever grows at its end. An append to the
 * version that ends the store pushes onto it; an append to any other version
 * (a branch from an older state) copies that version's items into a store of
 * its own. The first read of an entity (`published`) puts a frozen array of
 * the list's items in place of the view: a copy of the list, once per view
 * (every entity holding the view, e.g. after an upsert that kept the list,
 * gets that same array), so a state read after every chunk still copies
 * the list per chunk, as before.
 *
 * Memory: a view holds its whole store, with the items later versions
 * appended; so a kept older state holds what the newer ones added to its
 * lists until it is read. Once read, it holds its own array, which refers to
 * the store only weakly (`readFrom`).
 *
 * A `GrowingList` only ever sits in a top-level field of a stored entity that
 * is not frozen yet; the reducer and the patch functions pass it on as a
 * value (they never look inside a list they do not replace).
 */

/** Items shared by the versions of one list; `frozen`: how many of the first items are frozen already. */
class ListStore {
  declare readonly items: unknown[];
  declare frozen: number;
  constructor(items: unknown[]) {
    this.items = items;
    this.frozen = 0;
  }
}

/** One version of a list: the first `length` items of `store`; `published`: its items as read, once read. */
class GrowingList {
  declare readonly store: ListStore;
  declare readonly length: number;
  declare published: readonly unknown[] | undefined;
  constructor(store: ListStore, length: number) {
    this.store = store;
    this.length = length;
    this.published = undefined;
  }

  /** Whether `value` is a `GrowingList` (of this runtime). */
  static is(value: unknown): value is GrowingList {
    return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === GrowingList.prototype;
  }
}

/**
 * The store of each array read from a view that ended it (`itemsOf`), held
 * weakly: an append to that array goes on with the store while the store is
 * alive (a newer state holds it), and the array alone never keeps it alive.
 */
const readFrom = new WeakMap<readonly unknown[], WeakRef<ListStore>>();

/**
 * The list `list` (a stored list field: a `GrowingList`, an array, or
 * anything else, read as `[]`) with `item` appended, as a `GrowingList`.
 * Takes amortised O(1) time when `list` is, or was read from, the newest
 * version of its store; else the time of a copy of its items.
 */
export function grown(list: unknown, item: unknown): unknown {
  if (GrowingList.is(list)) return appendedTo(list.store, list.length, item);
  if (!Array.isArray(list)) return startedFrom([], 0, item);
  const store = readFrom.get(list)?.deref();
  return store === undefined ? startedFrom(list, list.length, item) : appendedTo(store, list.length, item);
}

/** The first `length` items of `store`, then `item`: pushed onto the store when they end it, else in a store of their own. */
function appendedTo(store: ListStore, length: number, item: unknown): GrowingList {
  if (store.items.length !== length) return startedFrom(store.items, length, item);
  store.items.push(item);
  return new GrowingList(store, length + 1);
}

/** A list of a new store: the first `length` items of `items`, then `item`. */
function startedFrom(items: readonly unknown[], length: number, item: unknown): GrowingList {
  // `slice` of a frozen array takes V8's slow path: on Node 20 some 60 times slower than of one not frozen, 4-8 times slower than a loop.
  const copy = Object.isFrozen(items) ? firstItems(items, length) : items.slice(0, length);
  copy.push(item);
  return new GrowingList(new ListStore(copy), length + 1);
}

/**
 * `entity` as it is read: every `GrowingList` among its own fields replaced
 * by a frozen array of its items, then the whole value frozen (`freezeJson`).
 * The entity is changed in place: it was never handed out before (it is not
 * frozen), and its fields keep their values as JSON. Returns it.
 */
export function published<T>(entity: T): T {
  if (typeof entity !== "object" || entity === null || Object.isFrozen(entity)) return entity;
  const fields = entity as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    // S34: `key` is an own data property (a list field the overlay names), so this sets it and never a prototype.
    if (GrowingList.is(value)) fields[key] = itemsOf(value);
  }
  return freezeJson(entity);
}

/**
 * A frozen array of the view's items, made on its first read and the same
 * array on every later one; freezes those of its items not frozen yet.
 */
function itemsOf(view: GrowingList): readonly unknown[] {
  if (view.published !== undefined) return view.published;
  const { store, length } = view;
  for (let i = store.frozen; i < length; i++) freezeJson(store.items[i]);
  if (length > store.frozen) store.frozen = length;
  const items = Object.freeze(store.items.slice(0, length));
  view.published = items;
  // A view that no longer ends its store never will again: nothing to remember.
  if (store.items.length === length) readFrom.set(items, new WeakRef(store));
  return items;
}
