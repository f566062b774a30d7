import { put } from "./decode.js";

/*
 * Copying and freezing untyped JSON (rawInput, rawOutput, `_meta`, custom
 * payloads) for the session reducer. A peer can send any value `JSON.parse`
 * can produce, nested a million levels deep, so nothing here recurses: each
 * walk keeps its own stack. Keys stay own data properties, `__proto__`
 * included (S34).
 */

type JsonObject = Record<string, unknown>;

/** Depth up to which `cloneJson` recurses (fast, no allocation but the copies); deeper parts are copied with a stack. */
const RECURSION_LIMIT = 64;

/** A fresh deep copy of a JSON value (not frozen); every key stays plain data (S34). */
export function cloneJson(value: unknown): unknown {
  return cloneShallowDepth(value, 0);
}

function cloneShallowDepth(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth === RECURSION_LIMIT) return cloneDeep(value);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneShallowDepth(value[i], depth + 1);
    return out;
  }
  const out: JsonObject = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = cloneShallowDepth((value as JsonObject)[key], depth + 1);
    if (key === "__proto__") put(out, key, item);
    else out[key] = item;
  }
  return out;
}

/** `cloneJson` for any depth: an explicit stack instead of recursion. */
function cloneDeep(value: object): unknown {
  const root = emptyLike(value);
  // Pairs of (source, its copy) whose members are still to copy.
  const stack: object[] = [value, root];
  while (stack.length > 0) {
    const target = stack.pop() as JsonObject | unknown[];
    const source = stack.pop() as JsonObject | unknown[];
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (let i = 0; i < source.length; i++) out[i] = member(source[i], stack);
    } else {
      const out = target as JsonObject;
      for (const key of Object.keys(source)) {
        const item = member(source[key], stack);
        if (key === "__proto__") put(out, key, item);
        else out[key] = item;
      }
    }
  }
  return root;
}

/** A copy of one member: primitives as they are, containers empty and queued on `stack` for filling. */
function member(value: unknown, stack: object[]): unknown {
  if (typeof value !== "object" || value === null) return value;
  const copy = emptyLike(value);
  stack.push(value, copy);
  return copy;
}

function emptyLike(value: object): object {
  return Array.isArray(value) ? new Array<unknown>(value.length) : {};
}

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
 * `list` with `item` appended, as a new array of exactly that length. (A
 * spread or `push` leaves spare capacity behind, which every kept state
 * would hold on to.)
 */
export function appended<T>(list: readonly T[], item: T): T[] {
  const out = new Array<T>(list.length + 1);
  for (let i = 0; i < list.length; i++) out[i] = list[i]!;
  out[list.length] = item;
  return out;
}

/** A deep, frozen copy of a JSON value. */
export function frozenCopy(value: unknown): unknown {
  return freezeJson(cloneJson(value));
}
