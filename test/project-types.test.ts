/**
 * The project's own TypeScript type-checks: the generator, the tests, the
 * benches and the generated sources, with the strict options of the root
 * `tsconfig.json`. Vitest runs the tests through esbuild, which strips types
 * without checking them, so without this a test could assert on a value its
 * own types reject and still pass. TypeScript 7's `tsc` (the `typescript-7`
 * alias of the lock file) checks the whole project in about two seconds.
 */
import { describe, expect, it } from "vitest";
import { ROOT, run, tscOf } from "./consumer/harness.js";

describe("the project type-checks", () => {
  it("tsc --noEmit -p tsconfig.json reports no error", () => {
    const result = run(process.execPath, [tscOf("typescript-7"), "--noEmit", "-p", "tsconfig.json", "--pretty", "false"], ROOT);
    expect(`${result.stdout}${result.stderr}`).toBe("");
    expect(result.code).toBe(0);
  }, 120_000);
});
