/**
 * The reducer benchmark's command from README.md ("Benchmark: the reducer"),
 * run on a small corpus with one round: it asserts, before timing, that every
 * contender (the two naive reducers, reduceSession, reduceSessionOwned) ends
 * every session of every workload in the same state, timeline included, and
 * exits non-zero otherwise; then it prints one row per workload and reducer.
 * Each workload runs in a fresh process, which throws (and the bench exits
 * non-zero) unless the compiled modules loaded as ES modules, as the
 * published package loads: before the fix, tsx loaded them as CommonJS.
 * The memory breakdown's two commands (README.md, "Where the bytes go") run
 * too, and must give a row for each part of a state.
 */
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { ROOT } from "./support/ir.js";

it("npx tsx --expose-gc bench/reducer.bench.ts runs: identical end states, a full table", () => {
  const run = spawnSync("npx", ["tsx", "--expose-gc", "bench/reducer.bench.ts", "--rounds", "1", "--warmup", "0", "--size", "1500"], { cwd: ROOT, encoding: "utf8" });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  expect(run.stdout).toContain("end states identical for every contender and workload");
  expect(run.stdout).toContain("each workload in 3 fresh processes");
  const rows = run.stdout.split("\n").filter((line) => /^\| (all kinds|4-kind)/.test(line));
  expect(rows).toHaveLength(16); // 5 reducers x 3 workloads, and the floor row on the 4-kind stream
  for (const row of rows.filter((r) => r.includes("ours"))) expect(row).toMatch(/\| -?\d+\.\d\d \| -?\d+\.\d\d \|$/); // a tiny corpus can measure below zero
  // Every row: the median ratio, then the ratio of each of the three processes.
  for (const row of rows) expect(row).toMatch(/\| [\d,]+\.\d\d× \| [\d,]+\.\d\d \/ [\d,]+\.\d\d \/ [\d,]+\.\d\d \| /);
}, 180_000);

const MEMORY_RUNS = [
  ["tsx", "--expose-gc", "bench/reducer-memory.ts"],
  ["tsx", "--expose-gc", "bench/reducer-memory.ts", "--owned"],
];

for (const args of MEMORY_RUNS) {
  it(`npx ${args.join(" ")}: bytes per update for each part of the states`, () => {
    const run = spawnSync("npx", args, { cwd: ROOT, encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    for (const part of ["state object", "map version (PersistentMap)", "entity", "entity's content list", "content item", "timeline, copied per new entity", "**the states**"]) {
      expect(run.stdout).toMatch(new RegExp(`^\\| ${part.replace(/[()*]/g, "\\$&")} \\| [*\\d.]+ \\|$`, "m"));
    }
  }, 120_000);
}
