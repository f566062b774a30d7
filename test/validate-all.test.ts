/**
 * Issue 13.2: `validate.X(value, { all: true })` reports every issue, in
 * document order (the order of the value's own keys; a missing property after
 * its object's keys), with the same verdict as the default fast path, which
 * still reports the first issue only. Each rulebook case: same verdict, and
 * the fast path's issue is one of all (unless it is a root-level "matches no
 * variant", which the deepest alternative's issues make precise).
 */
import { describe, expect, it } from "vitest";
import { loadFixtures } from "./support/fixtures.js";
import { ENTRIES, validatorOf } from "./support/surfaces.js";

type AllCheck = (value: unknown, options?: { all?: boolean }) => { ok: boolean; value?: unknown; issues?: { path: string; message: string }[] };

function validateAll(surface: keyof typeof ENTRIES, type: string): AllCheck {
  return (ENTRIES[surface].validate as unknown as Record<string, AllCheck>)[type]!;
}

describe("validate with { all: true }", () => {
  it("lists every issue of a message in document order; the default lists the first", () => {
    const value = JSON.parse(
      '{"sessionId":5,"update":{"title":7,"sessionUpdate":"tool_call_update","toolCallId":3,"locations":[{"path":1},{"line":-1,"path":"a"}]}}',
    );
    const check = validateAll("v2/unstable", "UpdateSessionNotification");
    expect(check(value).issues).toEqual([{ path: "/sessionId", message: "expected a string, got number 5" }]);
    expect(check(value, { all: true }).issues).toEqual([
      { path: "/sessionId", message: "expected a string, got number 5" },
      { path: "/update/title", message: "expected a string or null, got number 7" },
      { path: "/update/toolCallId", message: "expected a string, got number 3" },
      { path: "/update/locations/0/path", message: "expected a string, got number 1" },
      { path: "/update/locations/1/line", message: "expected an integer (uint32) in [1, 4294967295] or null, got number -1" },
    ]);
  });

  it("never throws on a union alternative holding more issues than a call takes arguments", () => {
    // SessionConfigSelectOptions is an untagged union of two array shapes; 300,000 bad items give
    // each alternative 300,000 issues, more than a spread into Math.max or push() can take.
    const check = validateAll("v2/unstable", "SessionConfigSelectOptions");
    const result = check(new Array(300_000).fill(5), { all: true });
    expect(result.ok).toBe(false);
    expect(result.issues?.length).toBe(300_000);
    expect(result.issues?.[299_999]?.path).toBe("/299999");
  });

  it("puts a missing property after the keys its object has", () => {
    const check = validateAll("v1", "ToolCallLocation");
    expect(check({ line: "x" }, { all: true }).issues).toEqual([
      { path: "/line", message: "expected an integer (uint32) in [0, 4294967295] or null, got string \"x\"" },
      { path: "/path", message: "missing required property" },
    ]);
  });

  for (const fixture of loadFixtures<{ type: string; input: unknown; validate: boolean }>("parse")) {
    it(`${fixture.rule}: the same verdict as the fast path on every rulebook case, its issue among all`, () => {
      for (const c of fixture.cases) {
        for (const surface of c.surfaces) {
          const fast = validatorOf(surface, c.type)(c.input);
          const all = validateAll(surface, c.type)(c.input, { all: true });
          expect(all.ok, `${surface} ${c.type}: ${c.name}`).toBe(c.validate);
          if (all.ok) expect(all.value).toBe(c.input);
          else {
            expect(all.issues!.length).toBeGreaterThan(0);
            for (const issue of all.issues!) expect(issue.path).toMatch(/^(\/[^/]*)*$/);
            // A fast "matches no variant" at the root may be told more precisely here (the deepest alternative).
            if (fast.issues![0]!.path !== "") expect(all.issues!.map((i) => i.path), `${surface} ${c.type}: ${c.name}`).toContain(fast.issues![0]!.path);
          }
        }
      }
    });
  }
});
