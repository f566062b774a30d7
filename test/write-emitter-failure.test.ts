/**
 * Safe output when an emitter throws half-way through a run: the CLI reports
 * an internal error (exit 3) and the output directory is exactly as before.
 */
import { describe, expect, it, vi } from "vitest";
import { SCHEMA_DIR } from "./support/ir.js";
import { cli, previousOutput, snapshotTree } from "./support/run-cli.js";

vi.mock("../generator/emit/types.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../generator/emit/types.js")>();
  let calls = 0;
  return {
    ...original,
    // The first surface emits normally; the second one throws.
    emitTypes: (...args: Parameters<typeof original.emitTypes>) => {
      if (++calls === 2) throw new Error("emitter exploded");
      return original.emitTypes(...args);
    },
  };
});

describe("an emitter throwing", () => {
  it("leaves the output exactly as it was and exits 3", () => {
    const out = previousOutput();
    const before = snapshotTree(out);
    const run = cli("generate", "--schema-dir", SCHEMA_DIR, "--surface", "v2", "--surface", "v2/unstable", "--out", out);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("internal error");
    expect(run.stderr).toContain("emitter exploded");
    expect(run.stderr).toContain("acp-codegen: v2 "); // the first surface was done before the failure
    expect(snapshotTree(out)).toEqual(before);
  });
});
