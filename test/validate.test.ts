/**
 * Strict validators (S31) against our own rulebook cases (test/fixtures/parse,
 * rules S23-S31 and S34): each verdict must equal the case's expected verdict
 * and ajv's verdict on the pinned schema.
 */
import { describe, expect, it } from "vitest";
import { ajvValid, ajvValidates } from "./support/ajv.js";
import { loadFixtures } from "./support/fixtures.js";
import { validatorOf } from "./support/surfaces.js";

interface ParseCase {
  readonly type: string;
  readonly input: unknown;
  readonly validate: boolean;
}

for (const fixture of loadFixtures<ParseCase>("parse")) {
  describe(`${fixture.rule}: validate`, () => {
    for (const c of fixture.cases) {
      for (const surface of c.surfaces) {
        it(`${fixture.rule} ${surface} ${c.type}: ${c.name}`, () => {
          expect(ajvValid(surface, c.type, c.input)).toBe(c.validate);
          const result = validatorOf(surface, c.type)(c.input);
          expect(result.ok).toBe(c.validate);
          if (result.ok) expect(result.value).toBe(c.input);
          else expect(result.issues?.[0]?.path).toMatch(/^(\/[^/]*)*$/);
        });
      }
    }
  });
}

describe("string pattern (older schemas, e.g. SDK 2.0.0 Cost.currency)", () => {
  it("is asserted like ajv does it: ECMA-262 with the u flag", async () => {
    const { scalarTest } = await import("../generator/emit/checks.js");
    const { name } = await import("../generator/code.js");
    const rt = await import("../generator/runtime/decode.js");
    const test = new Function("rt", "x", `return ${scalarTest({ kind: "string", pattern: "^[A-Z]{3}$" }, name("x")).text};`) as (r: unknown, x: unknown) => boolean;
    for (const value of ["USD", "usd", "US", "USDX", "", 5]) {
      expect(Boolean(test(rt, value))).toBe(ajvValidates({ type: "string", pattern: "^[A-Z]{3}$" }, value));
    }
  });
});
