/** The tests' throw-away directories do not outlive their test file. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import config from "../vitest.config.js";
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

  it("is called after every test file: the setup file vitest runs in each registers it", () => {
    expect(config.test?.setupFiles).toContain("test/support/setup.ts");
    expect(readFileSync(new URL("support/setup.ts", import.meta.url), "utf8")).toContain("afterAll(removeTempDirs)");
  });
});
