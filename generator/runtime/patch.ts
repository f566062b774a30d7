import { isObject, own, put } from "./decode.js";

/*
 * The patch engine behind `apply.X` and `reduceSession` (S1-S8, S22, S34).
 * Each upsert type is described by a generated `UpsertSpec`: its fields in
 * declaration order with the rule from the reviewed table
 * schema/semantics.json. Results are fresh objects in the canonical stored
 * form (defaults materialised, no `null`, `_meta` omitted when empty); values
 * that did not change are shared with the inputs, which are never modified.
 */

/** A JSON object as stored: string keys, every key an own data property (S34). */
export type JsonObject = Record<string, unknown>;

/**
 * How one field is patched:
 * - `replace` (S1): omitted keeps, `null` removes the key, a value replaces whole (S2);
 * - `reset` (S1, S3, S4): like `replace`, but `null` and first sight store the fallback
 *   (`"other"`, `"pending"`, or a fresh `[]` for collections);
 * - `keep` (S22): omitted and `null` both keep, a value replaces;
 * - `latest` (S15): the update's value; omitted and `null` both remove;
 * - `meta` (S6): the `_meta` patch by top-level key, see `applyMeta`.
 */
export type Rule = "replace" | "reset" | "keep" | "latest" | "meta";

/** One field of an upsert type: name, rule and the `reset` fallback. */
export type FieldSpec = readonly [name: string, rule: Rule, fallback?: string | readonly []];

/** The fields of an upsert type, identity key first, in declaration order. */
export type UpsertSpec = readonly FieldSpec[];

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
  for (const key of stored === undefined ? [] : Object.keys(stored)) {
    if (own(patch, key) === undefined) {
      put(out, key, stored![key]);
      size++;
    }
  }
  for (const key of keys) {
    const value = patch[key];
    if (value === null) continue;
    put(out, key, value);
    size++;
  }
  return size === 0 ? undefined : out;
}

/**
 * Applies `update` to `stored` (or to nothing, on first sight) field by field
 * per `spec`. Returns a fresh object holding only the spec's fields; fields the
 * update omits keep their stored values (S1), first sight materialises the
 * defaults (S4). Pure: neither input is modified.
 */
export function applyUpsert<T extends object>(spec: UpsertSpec, stored: T | undefined, update: T): T {
  const out: JsonObject = {};
  for (const [name, rule, fallback] of spec) {
    const next = patchField(rule, fallback, stored === undefined ? undefined : own(stored as JsonObject, name), own(update as JsonObject, name));
    if (next !== undefined) put(out, name, next);
  }
  return out as T;
}

/** The new value of one field (`undefined`: the key is absent). */
function patchField(rule: Rule, fallback: string | readonly [] | undefined, old: unknown, value: unknown): unknown {
  switch (rule) {
    case "replace":
      return value === undefined ? old : value === null ? undefined : value;
    case "reset":
      if (value === undefined) return old === undefined ? initial(fallback) : old;
      return value === null ? initial(fallback) : value;
    case "keep":
      return value === undefined || value === null ? old : value;
    case "latest":
      return value === null ? undefined : value;
    case "meta":
      return applyMeta(old as JsonObject | undefined, value as JsonObject | null | undefined);
  }
}

/** A `reset` fallback as a fresh value (a new array for collections). */
function initial(fallback: string | readonly [] | undefined): unknown {
  return typeof fallback === "string" ? fallback : [];
}
