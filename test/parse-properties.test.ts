/**
 * Property-based tests (fast-check) of `validate` and `parse` on mutated ACP
 * messages. Seeds are the wire values of our rulebook fixtures; mutations
 * replace, delete or insert values anywhere (including `__proto__` and
 * `constructor` keys) or change a tag. For every mutant:
 * - neither function throws, and Object.prototype gains nothing (S34);
 * - `validate` agrees with ajv on the schema (S31), with `{ all: true }` too;
 * - when `validate` accepts, `parse` accepts too and returns the input minus
 *   dropped unknown properties (a sub-value of the input) that validates;
 * - `parse` is idempotent on its own output.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Surface } from "../generator/ir.js";
import { ajvValid } from "./support/ajv.js";
import { loadFixtures } from "./support/fixtures.js";
import { canonicalJson } from "./support/json.js";
import { parserOf, validatorOf } from "./support/surfaces.js";

interface Seed {
  readonly surface: Surface;
  readonly type: string;
  readonly value: unknown;
}

function seeds(): Seed[] {
  const out: Seed[] = [];
  for (const file of loadFixtures<{ type: string; input: unknown }>("parse")) {
    for (const c of file.cases) for (const surface of c.surfaces) out.push({ surface, type: c.type, value: c.input });
  }
  for (const file of loadFixtures<{ updates: unknown[] }>("session")) {
    for (const c of file.cases) for (const surface of c.surfaces) for (const value of c.updates) out.push({ surface, type: "SessionUpdate", value });
  }
  return out;
}

type Path = (string | number)[];

function paths(value: unknown, prefix: Path = [], into: Path[] = []): Path[] {
  into.push(prefix);
  if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) paths((value as Record<string, unknown>)[key], [...prefix, Array.isArray(value) ? Number(key) : key], into);
  }
  return into;
}

interface Mutation {
  readonly pick: number;
  readonly op: "replace" | "delete" | "insert" | "retag";
  readonly key: string;
  readonly json: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  op: fc.constantFrom("replace", "delete", "insert", "retag"),
  key: fc.constantFrom("__proto__", "constructor", "toString", "_meta", "type", "sessionUpdate", "content", "title", "x_unknown"),
  json: fc.jsonValue({ maxDepth: 2 }),
});

/** A deep copy of `value` with one mutation applied (copied with JSON so `__proto__` stays data). */
function mutate(value: unknown, m: Mutation): unknown {
  const root = { value: JSON.parse(JSON.stringify(value)) as unknown };
  const all = paths(root.value);
  const path = all[m.pick % all.length]!;
  const parentPath = path.slice(0, -1);
  let parent: any = root;
  let key: string | number = "value";
  if (path.length) {
    parent = parentPath.reduce((v: any, k) => v[k], root.value);
    key = path[path.length - 1]!;
  }
  const target = parent[key];
  const define = (obj: any, k: string | number, v: unknown) => Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
  switch (m.op) {
    case "replace":
      define(parent, key, m.json);
      break;
    case "delete":
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      break;
    case "insert":
      if (typeof target === "object" && target !== null && !Array.isArray(target)) define(target, m.key, m.json);
      break;
    case "retag":
      if (typeof target === "object" && target !== null) for (const tag of ["type", "sessionUpdate", "state"]) if (Object.hasOwn(target, tag)) define(target, tag, typeof m.json === "string" ? m.json : "_vendor");
      break;
  }
  return root.value;
}

/** `out` is `input` with some object properties left out (S29, S31). */
function isSubValue(out: unknown, input: unknown): boolean {
  if (typeof out !== "object" || out === null) return Object.is(out, input);
  if (typeof input !== "object" || input === null || Array.isArray(out) !== Array.isArray(input)) return false;
  if (Array.isArray(out)) return out.length === (input as unknown[]).length && out.every((v, i) => isSubValue(v, (input as unknown[])[i]));
  return Object.keys(out).every((k) => Object.hasOwn(input, k) && isSubValue((out as Record<string, unknown>)[k], (input as Record<string, unknown>)[k]));
}

describe("validate and parse on mutated messages (property-based)", () => {
  const pool = seeds();

  it("never throw, agree with ajv, parse a validated value to a sub-value of it, and are idempotent", () => {
    fc.assert(
      fc.property(fc.constantFrom(...pool), mutation, (seed, m) => {
        const value = mutate(seed.value, m);
        const validated = validatorOf(seed.surface, seed.type)(value);
        const parsed = parserOf(seed.surface, seed.type)(value);
        expect(Object.keys(Object.prototype)).toEqual([]);
        expect(validated.ok).toBe(ajvValid(seed.surface, seed.type, value));
        expect((validatorOf(seed.surface, seed.type) as (v: unknown, o: { all: boolean }) => { ok: boolean })(value, { all: true }).ok).toBe(validated.ok);
        if (validated.ok) {
          expect(parsed.ok).toBe(true);
          expect(isSubValue(parsed.value, value)).toBe(true);
          expect(validatorOf(seed.surface, seed.type)(parsed.value).ok).toBe(true);
        }
        if (parsed.ok) {
          const again = parserOf(seed.surface, seed.type)(parsed.value);
          expect(again.ok).toBe(true);
          expect(canonicalJson(again.value)).toBe(canonicalJson(parsed.value));
        }
      }),
      { numRuns: 3000, seed: 20261130 },
    );
  }, 120_000);
});
