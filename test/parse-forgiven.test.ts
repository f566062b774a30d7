/**
 * `parse.X(value, { forgiven: true })` (issue 13): the ok result lists what the
 * tolerant decoding forgave. Our own cases (test/fixtures/forgiven.json),
 * plus the guarantees: the value is the same as without the option, a failed
 * parse is unchanged, the default result carries no `forgiven`, and deep input
 * is walked without recursion.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as v1 from "../generated/src/v1/index.js";
import * as v2u from "../generated/src/v2/unstable/index.js";
import type { Issue, Result } from "../generated/src/v2/unstable/index.js";

type Parser = (value: unknown, options?: { forgiven?: boolean }) => Result<unknown>;
const PARSE: Record<string, Record<string, Parser>> = { v1: v1.parse as never, "v2/unstable": v2u.parse as never };

interface Case {
  readonly name: string;
  readonly surfaces: readonly string[];
  readonly type: string;
  readonly input?: unknown;
  /** The input as JSON text, for keys such as `__proto__` that only JSON.parse makes own properties. */
  readonly json?: string;
  readonly forgiven: Issue[];
}
const CASES: Case[] = JSON.parse(readFileSync(new URL("fixtures/forgiven.json", import.meta.url), "utf8")).cases;

describe("parse.X(value, { forgiven: true })", () => {
  for (const c of CASES) {
    for (const surface of c.surfaces) {
      it(`${surface}: ${c.name}`, () => {
        const input = c.json === undefined ? c.input : JSON.parse(c.json);
        const parse = PARSE[surface]![c.type]!;
        const result = parse(input, { forgiven: true });
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.forgiven).toEqual(c.forgiven);
        expect(result.value).toEqual((parse(input) as { value: unknown }).value);
      });
    }
  }

  it("a result without the option carries no forgiven list; a failed parse is the same either way", () => {
    expect(v2u.parse.ToolCallUpdate({ toolCallId: "t1", title: 42 })).not.toHaveProperty("forgiven");
    expect(v2u.parse.ToolCallUpdate({ title: "x" }, { forgiven: true })).toEqual(v2u.parse.ToolCallUpdate({ title: "x" }));
  });

  it("walks input nested 10^5 deep without recursion", () => {
    let deep: unknown = 0;
    for (let i = 0; i < 100_000; i++) deep = { a: [deep] };
    const result = v2u.parse.ToolCallUpdate({ toolCallId: "t1", rawInput: deep, extra: deep }, { forgiven: true });
    expect(result.ok && result.forgiven?.map((f) => f.path)).toEqual(["/extra"]);
  });
});
