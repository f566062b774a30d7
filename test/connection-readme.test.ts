/**
 * The README's "Connection" section cannot drift: its method tables are the
 * generated `methods` of each surface, and each command in its `sh` blocks is
 * one the tests run exactly as written (the examples in test/interop.test.ts;
 * the quick benchmark run here, which also checks the tables it prints and the
 * bundle's largest modules).
 */
import { exec } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { readmeSection, readmeShellCommands } from "./docs-readme.js";
import { CONNECTION_COMMANDS, methodsMarkdown, V1_COMMANDS } from "./support/connection-readme.js";
import { ENTRIES } from "./support/surfaces.js";

const ROOT = new URL("..", import.meta.url);
const SECTION = readmeSection("Connection");

describe("README: Connection", () => {
  it("lists the methods of each surface as the generated method tables have them", () => {
    expect(SECTION).toContain(methodsMarkdown(ENTRIES));
  });

  it("documents only commands the tests run exactly as written", () => {
    const commands = readmeShellCommands("Connection");
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect([...Object.values(CONNECTION_COMMANDS), ...Object.values(V1_COMMANDS)]).toContain(command);
  });

  it(`${CONNECTION_COMMANDS.benchQuick} prints the four tables`, async () => {
    const { stdout } = await promisify(exec)(CONNECTION_COMMANDS.benchQuick, { cwd: ROOT });
    expect(stdout).toMatch(/\| memory \| ours: connectClient \| [\d,]+ \|/);
    expect(stdout).toMatch(/\| stdio \| SDK: client\(\) \| [\d,]+ \|/);
    expect(stdout).toMatch(/\| none \| ours: connectClient \+ sessions\.update \(trusted\) \| [\d,]+ \|/);
    expect(stdout).toMatch(/\| ours: bench\/connection\/client-ours\.ts \| [\d.]+ KiB \| [\d.]+ KiB \|/);
    expect(stdout).toMatch(/ours, minified bytes by module \(largest\): generated\/src\/v2\/\S+\.ts [\d.]+ KiB, /);
  }, 180_000);
});
