/**
 * The README's "Connection" section cannot drift: its method tables are the
 * generated `methods` of each surface, and each command in its `sh` blocks is
 * one the tests run exactly as written (the examples in test/interop.test.ts;
 * the quick benchmark run here, which also checks the tables it prints and the
 * bundle's largest modules).
 */
import { exec } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { CONNECTION_COMMANDS, methodsMarkdown } from "./support/connection-readme.js";
import { ENTRIES } from "./support/surfaces.js";

const ROOT = new URL("..", import.meta.url);
const README = readFileSync(new URL("README.md", ROOT), "utf8");
const SECTION = README.slice(README.indexOf("\n## Connection"), README.indexOf("\n## ", README.indexOf("\n## Connection") + 1));

describe("README: Connection", () => {
  it("lists the methods of each surface as the generated method tables have them", () => {
    expect(SECTION).toContain(methodsMarkdown(ENTRIES));
  });

  it("documents only commands the tests run exactly as written", () => {
    const blocks = [...SECTION.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n").filter((line) => line.trim() && !line.startsWith("#")));
    expect(blocks.length).toBeGreaterThan(0);
    for (const command of blocks) expect(Object.values(CONNECTION_COMMANDS)).toContain(command.trim());
  });

  it(`${CONNECTION_COMMANDS.benchQuick} prints the three tables`, async () => {
    const { stdout } = await promisify(exec)(CONNECTION_COMMANDS.benchQuick, { cwd: ROOT });
    expect(stdout).toMatch(/\| memory \| ours: connectClient \| [\d,]+ \|/);
    expect(stdout).toMatch(/\| stdio \| SDK: client\(\) \| [\d,]+ \|/);
    expect(stdout).toMatch(/\| ours: bench\/connection\/client-ours\.ts \| [\d.]+ KiB \| [\d.]+ KiB \|/);
    expect(stdout).toMatch(/ours, minified bytes by module \(largest\): generated\/src\/v2\/\S+\.ts [\d.]+ KiB, /);
  }, 180_000);
});
