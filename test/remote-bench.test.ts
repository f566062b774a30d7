/**
 * The network transports' benchmark (bench/remote.bench.ts) in its quick form:
 * one round, no warm-up, small samples, run as a child process. It must exit
 * cleanly and print every row of every table (round trips, notifications,
 * time to first update, memory per idle connection, the browser bundle) and
 * every target's tally; no speed is asserted.
 */
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { ROOT } from "./support/ir.js";

const QUICK = ["--rounds", "1", "--warmup", "0", "--trips", "50", "--updates", "200", "--firsts", "10", "--idle", "5", "--memory-rounds", "1"];

/** Runs `npx tsx bench/remote.bench.ts` with `args`; resolves with its exit code and output. */
function run(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["tsx", "bench/remote.bench.ts", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

it("npx tsx bench/remote.bench.ts, quick form: every table has every row", async () => {
  const { code, stdout, stderr } = await run(QUICK);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  const rows = (start: RegExp) => stdout.split("\n").filter((line) => start.test(line));
  const number = String.raw`-?[\d,]+(\.\d+)?`;
  for (const wire of ["HTTP+SSE", "WebSocket"]) {
    const perWire = rows(new RegExp(`^\\| ${wire.replace("+", "\\+")} \\| (ours|SDK)`));
    // round trips, notifications, time to first update: ours and the SDK's; memory: ours and the SDK's, server and client
    expect(perWire.filter((r) => /\| ours: connectClient \+ (httpTransport|webSocketTransport) \|/.test(r))).toHaveLength(3);
    expect(perWire.filter((r) => /\| SDK: client\(\) \+ create(Http|WebSocket)Stream, /.test(r))).toHaveLength(3);
    for (const side of ["ours", "SDK"]) for (const where of ["server", "client"]) expect(perWire.filter((r) => r.startsWith(`| ${wire} | ${side} | ${where} |`))).toHaveLength(1);
    for (const row of perWire) expect(row).toMatch(new RegExp(`\\| ${number}× \\|( ${number} \\| ${number}× \\|)?$`));
  }
  expect(rows(/^\| (ours|SDK): bench\/remote\/client-(ours|sdk)\.ts \| [\d.]+ KiB \| [\d.]+ KiB \| [\d.]+× \|$/)).toHaveLength(2);
  const targets = rows(/^\| (round trips|updates|heap per idle connection|browser bundle)/);
  expect(targets).toHaveLength(9);
  for (const row of targets) expect(row).toMatch(/\| [\d.,]+× \| \d+\/\d+ \|$/);
  expect(stdout).toMatch(/^SDK fold: (reduceSessionOwned|hand-written in-place reducer) \(/m);
}, 600_000);
