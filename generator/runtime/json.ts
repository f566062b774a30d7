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
  return freezeJson(copyJson(value));
}
