/**
 * The README's "Benchmark: parse and validate" section documents the quick
 * form of bench/parse.bench.ts and its `--verdicts` form on a small corpus;
 * both run here exactly as the README writes them (read out of its `sh`
 * block), and the output must have the shape the section describes.
 */
import { exec } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { readmeShellCommands } from "./docs-readme.js";

const ROOT = new URL("..", import.meta.url);
const COMMANDS = readmeShellCommands("Benchmark: parse and validate", 3);

function documented(flag: string): string {
  const command = COMMANDS.find((c) => c.includes(flag));
  if (command === undefined) throw new Error(`README's parse benchmark section documents no command with ${flag}`);
  return command;
}

const run = promisify(exec);
const ROW = (name: string) => new RegExp(`^\\| ${name.replace(/[+.()]/g, "\\$&")} \\| [\\d,]+ \\| [\\d,]+ \\| [\\d.]+ \\| [\\d,]+–[\\d,]+ \\| [\\d.]+× \\| [\\d.]+× / [\\d.]+× \\|$`, "m");

describe("README: Benchmark: parse and validate", () => {
  it("documents the full run, its quick form and the verdicts", () => {
    expect(COMMANDS[0]).toBe("npx tsx --expose-gc bench/parse.bench.ts");
    expect(COMMANDS).toHaveLength(3);
  });

  it(`the quick form prints the table with every contender`, async () => {
    const { stdout } = await run(documented("--rounds"), { cwd: ROOT });
    expect(stdout).toMatch(/^corpus: 2,000 messages, [\d.]+ MB, \d+ payload defs$/m);
    for (const name of ["JSON.parse (floor)", "JSON.parse + route only", "JSON.parse + route + read every value", "JSON.parse + SDK zod", "JSON.parse + ajv", "JSON.parse + ours parse", "JSON.parse + ours validate", "JSON.parse + ours parseOwned (owned tree)", "ours parseOwned.fromText, whole line"]) {
      expect(stdout).toMatch(ROW(name));
    }
  }, 180_000);

  it(`the verdicts form finds no disagreement`, async () => {
    const { stdout } = await run(documented("--verdicts"), { cwd: ROOT });
    expect(stdout).toMatch(/^verdicts over 2,000 messages$/m);
    for (const title of ["ours validate vs ajv \\(S31 oracle\\)", "ours parse vs SDK zod", "input mutated by ours"]) expect(stdout).toMatch(new RegExp(`^${title}: 0 disagreement\\(s\\)$`, "m"));
  }, 180_000);
});
