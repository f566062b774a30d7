import { isObject, own, put } from "./decode.js";

export { own, put };

/*
 * What the generated patch functions behind `apply.X` and `reduceSession`
 * share (S1-S8, S22, S34). Each upsert type gets its own generated function,
 * reading and writing its fields directly (schema/semantics.json names a
 * rule per field); results are fresh objects in the canonical stored form
 * (defaults materialised, no `null`, `_meta` omitted when empty).
 */

/** A JSON object as stored: string keys, every key an own data property (S34). */
export type JsonObject = Record<string, unknown>;

/**
 * What a patch function does with a value it takes from the update: `apply.X`
 * shares it (`share`), the reducer stores a private copy.
 */
export type Adopt = (value: unknown) => unknown;

/** The stored entity of a first sight, as patch functions read it: no fields. */
export const NOTHING: JsonObject = Object.freeze({});

/**
 * A constructor of plain objects (prototype `Object.prototype`, as `{}` has)
 * for one patch function's results. V8 sizes the objects of a constructor
 * by the most fields its first results held, so each result keeps its fields
 * in the object itself without spare slots; a `{}` literal reserves four and
 * moves a fifth field on to a separate store. Stored entities are kept by
 * every state that holds them: this is 16 bytes less per entity update of the
 * benchmark's stream (README.md, "Benchmark: the reducer").
 */
export function plainObjects(): new () => JsonObject {
  const objects = function () {} as unknown as new () => JsonObject;
  objects.prototype = Object.prototype;
  return objects;
}

/** A typed entity or update as the record of fields the patch functions read (`undefined`: no fields). */
export function fieldsOf(value: object | undefined): JsonObject {
  return (value ?? NOTHING) as JsonObject;
}

/** The `Adopt` of `apply.X`: the value itself. */
export function share(value: unknown): unknown {
  return value;
}

/** What the patch functions do with update values right now: `share`, except while the reducer runs one. */
let adopting: Adopt = share;

/**
 * Sets what the patch functions do with update values; returns the previous
 * setting, which the caller restores when done (the reducer, in `finally`).
 */
export function adoptBy(how: Adopt): Adopt {
  const before = adopting;
  adopting = how;
  return before;
}

/** A value taken from an update, through the current `Adopt`. */
export function adopt(value: unknown): unknown {
  return adopting(value);
}

/* Field rules, for the generated patch functions: `old` is the stored value, `value` the update's (`undefined`: omitted). */

/** S1, S2 `replace`: omitted keeps, `null` removes, a value replaces whole. */
export function replace(old: unknown, value: unknown): unknown {
  return value === undefined ? old : value === null ? undefined : adopting(value);
}

/** S1, S4 `reset`: like `replace`, but `null` and first sight store `fallback`. */
export function reset(old: unknown, value: unknown, fallback: string): unknown {
  if (value === undefined) return old === undefined ? fallback : old;
  return value === null ? fallback : adopting(value);
}

/** S3 collections: like `reset` with a fresh `[]` as the fallback. */
export function resetList(old: unknown, value: unknown): unknown {
  if (value === undefined) return old === undefined ? [] : old;
  return value === null ? [] : adopting(value);
}

/** S22 `keep`: omitted and `null` both keep, a value replaces. */
export function keep(old: unknown, value: unknown): unknown {
  return value === undefined || value === null ? old : adopting(value);
}

/** S15 `latest`: the update's value; omitted and `null` both remove. */
export function latest(value: unknown): unknown {
  return value === null || value === undefined ? undefined : adopting(value);
}

/**
 * Applies a `_meta` patch (S6) to stored metadata; pure, inputs untouched.
 *
 * - `patch` absent (`undefined`): `stored` unchanged;
 * - `patch` `null`: cleared (`undefined`);
 * - an object: patched one level down. A key the patch omits keeps its value,
 *   a key set to `null` is removed, any other value (including `0`, `""`,
 *   `false`, `[]`, `{}`) replaces that key's value whole, with no deep merge;
 * - `{}` is a no-op, and an object left without keys is returned as
 *   `undefined` ("no metadata", the canonical stored form).
 *
 * Keys such as `__proto__` and `constructor` are ordinary data: they are
 * stored and removed as own properties and never touch a prototype (S34).
 * A patch that is neither an object nor `null` (malformed, S8) changes nothing.
 */
export function applyMeta(stored: JsonObject | undefined, patch: JsonObject | null | undefined): JsonObject | undefined {
  if (patch === null) return undefined;
  if (!isObject(patch)) return stored;
  const keys = Object.keys(patch).filter((key) => patch[key] !== undefined);
  if (keys.length === 0) return stored;
  const out: JsonObject = {};
  let size = 0;
  const old = stored ?? NOTHING;
  for (const key of Object.keys(old)) {
    if (own(patch, key) === undefined) {
      put(out, key, old[key]);
      size++;
    }
  }
  for (const key of keys) {
    const value = patch[key];
    if (value === null) continue;
    put(out, key, adopting(value));
    size++;
  }
  return size === 0 ? undefined : out;
}

