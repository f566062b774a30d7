/** The tests' throw-away directories do not outlive their test file. */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "./support/temp-dirs.js";

describe("tempDir", () => {
  it("makes fresh directories that removeTempDirs removes with their contents", () => {
    const a = tempDir("cleanup");
    const b = tempDir("cleanup");
    expect(a).not.toBe(b);
    mkdirSync(join(a, "v2"));
    writeFileSync(join(a, "v2", "schema.json"), "{}");
    removeTempDirs();
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(false);
    const c = tempDir("cleanup");
    removeTempDirs();
    expect(existsSync(c)).toBe(false);
  });
});
