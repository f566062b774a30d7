/**
 * Every command the documentation (README.md, the guides in docs/) shows is run by a test exactly as written
 * (the registry test/support/readme-commands.ts says which test, and how it
 * holds the command), or is a full benchmark run whose quick form the README
 * shows next to it and a test runs, or cannot be run for the reason the
 * registry gives. This file runs the quick forms no other test runs, the
 * generate check, and the schema sync (in a scratch copy, where it must
 * reproduce the pinned schema/ byte for byte).
 */
import { exec } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SURFACES } from "../generator/surfaces.js";
import { ROOT, SCHEMA_DIR } from "./support/ir.js";
import { CHECK_RUNS, QUICK_RUNS, README_COVERAGE, readmeCommands } from "./support/readme-commands.js";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` through the shell, as a user types it, in `cwd`. */
function shell(command: string, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    exec(command, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }));
  });
}

/** A scratch project holding what `npm run schema:sync` reads and writes, node_modules linked. */
function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "acp-schema-sync-"));
  for (const path of ["package.json", "generator", "schema"]) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

/** The commands this file runs, started once before its tests (not at import: a filtered run that selects none starts nothing). */
function startRuns() {
  const scratch = scratchProject();
  // Started together, so that the file takes about as long as its slowest command.
  const started = {
    fuzz: shell(QUICK_RUNS.fuzz, ROOT),
    connectionFuzz: shell(QUICK_RUNS.connectionFuzz, ROOT),
    budgets: shell(QUICK_RUNS.budgets, ROOT),
    append: shell(QUICK_RUNS.append, ROOT),
    generateCheck: shell(CHECK_RUNS.generateCheck, ROOT),
    oneFile: shell(CHECK_RUNS.oneFile, ROOT),
    schemaSync: shell(CHECK_RUNS.schemaSync, scratch),
  };
  return { scratch, started };
}

let runs: ReturnType<typeof startRuns>["started"];
let scratch: string | undefined;
beforeAll(() => {
  ({ scratch, started: runs } = startRuns());
});
// Every command has ended before its scratch directory goes (a failing test does not wait for the others).
afterAll(async () => {
  if (runs) await Promise.all(Object.values(runs));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("README commands", () => {
  const documented = readmeCommands();

  it("are each in the registry, and the registry has no command the README lost", () => {
    const commands = documented.map((c) => c.command);
    expect(commands.filter((c) => !Object.hasOwn(README_COVERAGE, c))).toEqual([]);
    expect(Object.keys(README_COVERAGE).filter((c) => !commands.includes(c))).toEqual([]);
  });

  it("are held by the test the registry names, as it runs them", () => {
    const missing = Object.entries(README_COVERAGE).flatMap(([command, coverage]) => {
      if (!("ranBy" in coverage)) return [];
      const file = join(ROOT, coverage.ranBy);
      const via = coverage.via ?? JSON.stringify(command);
      return existsSync(file) && readFileSync(file, "utf8").includes(via) ? [] : [`${command}: ${coverage.ranBy} has no ${via}`];
    });
    expect(missing).toEqual([]);
  });

  it("that are full benchmark runs have their quick form next to them, and a test runs it", () => {
    const sectionOf = new Map(documented.map((c) => [c.command, c.section]));
    for (const [command, coverage] of Object.entries(README_COVERAGE)) {
      if (!("quick" in coverage)) continue;
      expect(coverage.quick.startsWith(`${command} `), coverage.quick).toBe(true);
      expect(sectionOf.get(coverage.quick), coverage.quick).toBe(sectionOf.get(command));
      expect(README_COVERAGE[coverage.quick], coverage.quick).toHaveProperty("ranBy");
    }
  });
});

describe("the quick runs, as written", () => {
  it(QUICK_RUNS.fuzz, async () => {
    const run = await runs.fuzz;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^total: 2,000 messages .* calls into \d+ functions/m);
    expect(run.stdout).toMatch(/^throws: 0; input mutations: 0; prototype changes: 0; parseOwned != parse: 0; built values failing validate: 0; /m);
  }, 120_000);

  it(QUICK_RUNS.connectionFuzz, async () => {
    const run = await runs.connectionFuzz;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^total: 400 inputs \(seed 36; /m);
    expect(run.stdout).toMatch(/^initialize unanswered after an input: 0; inputs answered wrongly: 0; throws: 0; escaped to the process: 0$/m);
  }, 120_000);

  it(QUICK_RUNS.budgets, async () => {
    const run = await runs.budgets;
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| budget") && !line.startsWith("| ---"));
    expect(rows.map((r) => r.split(" | ")[0])).toEqual([
      "| `tsc --noEmit` time, consumer calling `parse` (v2/unstable)",
      "| `tsc --noEmit` peak memory, same consumer",
      "| bundle of a consumer parsing one `session/update`, minified + gzip",
      "| bundle of a types-only consumer, minified + gzip",
      ...SURFACES.map((s) => `| \`.d.ts\` of \`${s.surface}\``),
      "| `npm run generate`, whole process, 4 surfaces",
    ]);
    for (const row of rows) expect(row).toMatch(/ — (met|\*\*missed\*\*)|met \|$/);
    expect(run.stdout).toContain("1 runs per consumer");
  }, 240_000);
});

describe("the append bench's quick run, as written", () => {
  /** The table rows (`| 100 | ...`) of a part of the output, each as its cells. */
  const rowsOf = (text: string) =>
    text
      .split("\n")
      .filter((line) => /^\| [\d,]+ \|/.test(line))
      .map((line) => line.slice(2, -2).split(" | "));
  /** Checks that a timing table has a row for each size and each contender, in that order (`contenderCell`: the contender's column). */
  const expectContenders = (text: string, contenderCell: number, contenders: readonly string[]) =>
    expect(rowsOf(text).map((cells) => [cells[0], cells[contenderCell]])).toEqual(["100", "200"].flatMap((n) => contenders.map((c) => [n, c])));

  it(QUICK_RUNS.append, async () => {
    const run = await runs.append;
    expect(run.code, run.stderr).toBe(0);
    const [, terminal, message] = run.stdout.split(/^### (?:terminal|message)$/m);
    // Each size with each contender (the decoding one too: 200 chunks are within --naive-upto); the bench exits 1 on a wrong end value.
    const [terminalTimes, terminalHeap] = terminal!.split("Heap held by");
    expectContenders(terminalTimes!, 2, ["ours: reduceSession", "ours: reduceSessionOwned (trusted)", "hand-written in place: decode the output, append, encode"]);
    // With --expose-gc: the heap each newest state holds. At 100-200 chunks (a few KB of output) the reading is within
    // the heap's noise (CI once read 0.71× where a quiet run reads about 1×), so only its form is checked, as below;
    // the full run's readings, at up to 64,000 chunks, are in docs/session-state.md.
    const held = rowsOf(terminalHeap ?? "");
    expect(held.map((cells) => cells[0])).toEqual(["100", "200"]);
    for (const cells of held) expect(cells.slice(2, 4)).toEqual([expect.stringMatching(/^-?\d+\.\d\d MB$/), expect.stringMatching(/^-?\d+\.\d\d×$/)]);
    const [messageTimes, messageHeap] = message!.split("Heap held by");
    expectContenders(messageTimes!, 1, [
      "ours: reduceSession",
      "ours: reduceSessionOwned (trusted)",
      "ours: reduceSession, the message read after every chunk",
      "hand-written in place: a fresh entity and list per chunk",
      "hand-written in place: the block pushed onto the list",
    ]);
    // Every state kept, per chunk (a reading: at 100-200 chunks, tens of KB, within the heap's noise, so only its form is checked).
    const kept = rowsOf(messageHeap ?? "");
    expect(kept.map((cells) => cells[0])).toEqual(["100", "200"]);
    for (const cells of kept) expect(cells[2]).toMatch(/^-?\d+ bytes$/);
  }, 120_000);
});

describe("the other commands this file runs, as written", () => {
  it(`${CHECK_RUNS.generateCheck} finds generated/ fresh`, async () => {
    const run = await runs.generateCheck;
    expect(run.code, run.stdout + run.stderr).toBe(0);
  }, 120_000);

  it(`${CHECK_RUNS.oneFile} runs that one file`, async () => {
    const run = await runs.oneFile;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/Test Files +1 passed \(1\)/);
  }, 120_000);

  it(`${CHECK_RUNS.schemaSync} reproduces the pinned schema/ from the installed SDK, byte for byte`, async () => {
    const run = await runs.schemaSync;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("schema/ now holds @agentclientprotocol/sdk@");
    const synced = join(scratch!, "schema");
    const files = readdirSync(SCHEMA_DIR, { recursive: true, encoding: "utf8" }).sort();
    expect(readdirSync(synced, { recursive: true, encoding: "utf8" }).sort()).toEqual(files);
    for (const file of files.filter((f) => f.endsWith(".json"))) {
      expect(readFileSync(join(synced, file)).equals(readFileSync(join(SCHEMA_DIR, file))), file).toBe(true);
    }
  }, 120_000);
});
