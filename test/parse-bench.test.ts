/**
 * The README's "Benchmark: parse and validate" section documents the quick
 * form of bench/parse.bench.ts and its `--verdicts` form on a small corpus;
 * both run here exactly as the README writes them (read out of its `sh`
 * block), and the output must have the shape the section describes: the
 * text -> value table and the check-only table on values, every row measured
 * in its own process beside its table's floor. A row of ours throws in its
 * process (and the bench exits non-zero) unless the compiled modules loaded
 * as ES modules; before, the bench imported the `.ts` sources through tsx,
 * which loads them as CommonJS.
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
const escape = (name: string) => name.replace(/[+.()]/g, "\\$&");
const N = "[\\d,]+";
// A ratio of 1,000 or more has a thousands separator (the quick form's single round under load put zod at 2,418.76× the values floor).
const X = "[\\d,]+(?:\\.\\d+)?×";
const TEXT_ROW = (name: string) => new RegExp(`^\\| ${escape(name)} \\| ${N} \\| ${N} \\| [\\d.]+ \\| ${N}–${N} \\| ${X} \\| ${X} / ${X} \\|$`, "m");
const VALUES_ROW = (name: string) => new RegExp(`^\\| ${escape(name)} \\| ${N} \\| ${N} \\| ${N}–${N} \\| ${X} \\| ${X} / ${X} \\|$`, "m");

const TEXT_ROWS = [
  "JSON.parse (floor)", "JSON.parse + route only", "JSON.parse + route + read every value", "JSON.parse + SDK zod", "JSON.parse + ajv",
  "JSON.parse + ours parse", "JSON.parse + ours validate", "JSON.parse + ours parseOwned (owned tree)", "ours parseOwned.fromText, whole line",
  "ours parseOwned.fromLines, 64 KiB reads",
];
const VALUES_ROWS = ["read every value (floor)", "ajv", "ours validate", "SDK zod (safeParse)", "ours parse"];

describe("README: Benchmark: parse and validate", () => {
  it("documents the full run, its quick form and the verdicts", () => {
    expect(COMMANDS[0]).toBe("npx tsx --expose-gc bench/parse.bench.ts");
    expect(COMMANDS).toHaveLength(3);
  });

  it(`the quick form prints both tables with every row, each row in its own process on compiled ES modules`, async () => {
    const { stdout } = await run(documented("--rounds"), { cwd: ROOT });
    expect(stdout).toMatch(/^corpus: 2,000 messages, [\d.]+ MB, \d+ payload defs$/m);
    expect(stdout).toContain(`each row in 3 fresh processes with its table's floor interleaved (${3 * (TEXT_ROWS.length + VALUES_ROWS.length - 2)} processes, one after another, row by row, 3 times over), ours from compiled ES modules, a copy per row`);
    for (const name of [...TEXT_ROWS, ...VALUES_ROWS].filter((n) => !n.includes("(floor)"))) expect(stdout).toMatch(new RegExp(`^- ${escape(name)}: ${X} \/ ${X} \/ ${X}$`, "m"));
    const [text, values] = stdout.split(/^values: /m);
    for (const name of TEXT_ROWS) expect(text).toMatch(TEXT_ROW(name));
    // The batch decodes exactly the lines that the line-by-line path decodes.
    const accepted = (name: string) => text!.match(new RegExp(`^\\| ${escape(name)} \\| (${N}) \\|`, "m"))?.[1];
    expect(accepted("ours parseOwned.fromLines, 64 KiB reads")).toBe(accepted("ours parseOwned.fromText, whole line"));
    expect(values).toMatch(/^the check alone, on the 2,000 payloads parsed and routed before timing$/m);
    for (const name of VALUES_ROWS) expect(values).toMatch(VALUES_ROW(name));
  }, 180_000);

  it(`the verdicts form finds no disagreement`, async () => {
    const { stdout } = await run(documented("--verdicts"), { cwd: ROOT });
    expect(stdout).toMatch(/^verdicts over 2,000 messages$/m);
    for (const title of ["ours validate vs ajv \\(S31 oracle\\)", "ours parse vs SDK zod", "input mutated by ours"]) expect(stdout).toMatch(new RegExp(`^${title}: 0 disagreement\\(s\\)$`, "m"));
  }, 180_000);
});
