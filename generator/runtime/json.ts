import { copyJson } from "./decode.js";

/*
 * Freezing untyped JSON (rawInput, rawOutput, `_meta`, custom payloads) for
 * the session reducer; the copy is decode.ts's `copyJson`. A peer can send any
 * value `JSON.parse` can produce, nested a million levels deep, so nothing here
 * recurses: each walk keeps its own stack. Keys stay own data properties, `__proto__`
 * included (S34).
 */

type JsonObject = Record<string, unknown>;

/**
 * Freezes a JSON value and everything inside it; returns it. A container
 * already frozen is not walked again: whatever this runtime froze, it froze
 * whole (parent and every member in one walk).
 */
export function freezeJson<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const next = stack.pop() as JsonObject;
    Object.freeze(next);
    if (Array.isArray(next)) {
      for (let i = 0; i < next.length; i++) queueUnfrozen(next[i], stack);
    } else {
      for (const key of Object.keys(next)) queueUnfrozen(next[key], stack);
    }
  }
  return value;
}

function queueUnfrozen(value: unknown, stack: object[]): void {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) stack.push(value);
}

/**
 * For the newest list `appended` made of each line of lists (a state's
 * timeline, its notices, ...), the unfrozen array it was copied from. The
 * callers freeze what `appended` returns, and on Node 20 a copy of a frozen
 * array reads each item through V8's slow path (some 6 ns an item) where a
 * `slice` of an unfrozen one is a block copy (some 0.5 ns): so the next list
 * of a line is pushed onto its source and sliced from there. Only the newest
 * list of a line has an entry, so an older one (a branch) holds no source.
 */
const sources = new WeakMap<readonly unknown[], unknown[]>();

/** Lists shorter than this are copied item by item: the `WeakMap` work would cost more than it saves. */
const SOURCED = 64;

/**
 * `list` with `item` appended, as a new array of exactly that length. (A
 * spread or `push` leaves spare capacity behind, which every kept state
 * would hold on to.) The caller may freeze it.
 */
export function appended<T>(list: readonly T[], item: T): T[] {
  if (list.length < SOURCED) {
    const out = firstItems(list, list.length, list.length + 1);
    out[list.length] = item;
    return out;
  }
  let source = sources.get(list) as T[] | undefined;
  if (source === undefined) source = firstItems(list, list.length);
  else sources.delete(list);
  source.push(item);
  const out = source.slice();
  sources.set(out, source);
  return out;
}

/**
 * The first `count` items of `list` in a new array of `size` slots (the rest
 * for the caller to fill), copied item by item: for a frozen `list`, faster
 * than its `slice` on Node 20 (V8's slow path).
 */
export function firstItems<T>(list: readonly T[], count: number, size = count): T[] {
  const out = new Array<T>(size);
  for (let i = 0; i < count; i++) out[i] = list[i]!;
  return out;
}

/** A deep, frozen copy of a JSON value. */
export function frozenCopy(value: unknown): unknown {
  return freezeJson(copyJson(value));
}
