/** The quick and slow groups of the suite (vitest.config.ts): every slow name is a test file, and CI runs both groups. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SLOW_TESTS } from "../vitest.config.js";
import { ROOT } from "./support/ir.js";

describe("the suite's groups", () => {
  it("name only test files that exist (a stale name would move nothing)", () => {
    expect(SLOW_TESTS.filter((file) => !file.endsWith(".test.ts") || !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it("are both run by .ci/run: npm test (quick) and npm run test:all (quick, then slow)", () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts["test"]).toBe("vitest run --project quick");
    expect(scripts["test:slow"]).toBe("vitest run --project slow");
    expect(scripts["test:all"]).toBe("npm test && npm run test:slow");
    expect(readFileSync(join(ROOT, ".ci", "run"), "utf8")).toMatch(/^npm run test:all$/m);
  });
});
