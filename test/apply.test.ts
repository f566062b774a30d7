/**
 * apply.X and applyMeta (S1-S9, S12-S17, S34, S35) against our rulebook cases
 * (test/fixtures/apply), one test per case and surface, named with the rule
 * id. Inputs are deep-frozen (so any write throws) and must come out
 * unchanged; Object.prototype must not gain a key.
 */
import { describe, expect, it } from "vitest";
import type { Surface } from "../generator/ir.js";
import { loadFixtures } from "./support/fixtures.js";
import { canonicalJson } from "./support/json.js";
import { deepFreeze, member, orAbsent, sessionOf } from "./support/state.js";
import { parserOf } from "./support/surfaces.js";

interface ApplyCase {
  readonly fn: string;
  /** `null` or `"<absent>"`: nothing stored. */
  readonly stored: unknown;
  readonly update: unknown;
  readonly expect: unknown;
  readonly parseFirst?: boolean;
}

type Apply = (stored: unknown, update: unknown) => unknown;

/** The function under test: `applyMeta` or `apply.<fn>`. */
function target(surface: Surface, fn: string): Apply {
  return fn === "applyMeta" ? sessionOf(surface).applyMeta : member<Apply>(surface, "apply", fn);
}

/** S8: a `parseFirst` update goes through the tolerant parser of its type. */
function decoded(surface: Surface, c: ApplyCase): unknown {
  const update = orAbsent(c.update);
  if (!c.parseFirst) return update;
  const parsed = parserOf(surface, c.fn)(update);
  if (!parsed.ok) throw new Error(`parse.${c.fn} rejected the update: ${JSON.stringify(parsed.issues)}`);
  return parsed.value;
}

for (const fixture of loadFixtures<ApplyCase>("apply")) {
  describe(`${fixture.rule}: apply`, () => {
    for (const c of fixture.cases) {
      for (const surface of c.surfaces) {
        it(`${fixture.rule} ${surface} ${c.fn}: ${c.name}`, () => {
          const stored = deepFreeze(orAbsent(c.stored) ?? undefined);
          const update = deepFreeze(decoded(surface, c));
          const before = canonicalJson([stored, update]);
          const result = target(surface, c.fn)(stored, update);
          expect(canonicalJson(result ?? null)).toBe(canonicalJson(orAbsent(c.expect) ?? null));
          expect(canonicalJson([stored, update])).toBe(before);
          expect(Object.keys(Object.prototype)).toEqual([]);
        });
      }
    }
  });
}
