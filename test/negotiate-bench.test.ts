/**
 * The router-overhead bench's quick run, as README "Serving v1 and v2" writes
 * it: it prints one row per agent set-up, the router's next to the same
 * surface's connectAgent.
 */
import { exec } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { NEGOTIATE_COMMANDS } from "./support/negotiate-readme.js";

const ROOT = new URL("..", import.meta.url);

describe("bench/negotiate.bench.ts", () => {
  it(NEGOTIATE_COMMANDS.benchQuick, async () => {
    const { stdout } = await promisify(exec)(NEGOTIATE_COMMANDS.benchQuick, { cwd: ROOT });
    for (const agent of ["v2 connectAgent", "v2 serveVersions", "v1 connectAgent", "v1 serveVersions"]) {
      expect(stdout).toMatch(new RegExp(`\\| ${agent} \\| [\\d,]+ \\| [\\d,]+ \\| \\d+%, \\d+% \\|`));
    }
  }, 120_000);
});
