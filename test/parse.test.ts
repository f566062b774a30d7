/**
 * Tolerant parsers (S23-S30, S34) against our own rulebook cases
 * (test/fixtures/parse): the output, the failure path, freshness of the
 * result, an untouched input and an untouched Object.prototype.
 */
import { describe, expect, it } from "vitest";
import { loadFixtures } from "./support/fixtures.js";
import { canonicalJson } from "./support/json.js";
import { parserOf } from "./support/surfaces.js";

interface ParseCase {
  readonly type: string;
  readonly input: unknown;
  readonly parse: { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly path?: string };
}

/** Every object in the value keeps a plain prototype (S34). */
function prototypesArePlain(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype) return false;
  return Object.values(value).every(prototypesArePlain);
}

/** True when `a` and `b` share no object (the result is a fresh value). */
function sharesNothing(a: unknown, b: unknown, seen = new Set<unknown>()): boolean {
  const collect = (v: unknown) => {
    if (typeof v !== "object" || v === null) return;
    seen.add(v);
    Object.values(v).forEach(collect);
  };
  collect(a);
  const check = (v: unknown): boolean => typeof v !== "object" || v === null || (!seen.has(v) && Object.values(v).every(check));
  return check(b);
}

for (const fixture of loadFixtures<ParseCase>("parse")) {
  describe(`${fixture.rule}: parse`, () => {
    for (const c of fixture.cases) {
      for (const surface of c.surfaces) {
        it(`${fixture.rule} ${surface} ${c.type}: ${c.name}`, () => {
          const before = canonicalJson(c.input);
          const result = parserOf(surface, c.type)(c.input);
          expect(canonicalJson(c.input)).toBe(before);
          expect(Object.keys(Object.prototype)).toEqual([]);
          expect(result.ok).toBe(c.parse.ok);
          if (c.parse.ok && result.ok) {
            expect(canonicalJson(result.value)).toBe(canonicalJson(c.parse.value));
            expect(prototypesArePlain(result.value)).toBe(true);
            expect(sharesNothing(c.input, result.value)).toBe(true);
          } else if (!c.parse.ok && !result.ok && c.parse.path !== undefined) {
            expect(result.issues?.[0]?.path).toBe(c.parse.path);
          }
        });
      }
    }
  });
}
