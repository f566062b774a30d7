/**
 * The connection under fuzzing (issue 36): seeded mutations of a valid ndjson
 * session (bit flips, truncation, invalid UTF-8, a byte order mark, NUL, huge
 * numbers, values nested up to 10^5 levels in every field position, random
 * chunk boundaries, duplicated lines) fed to an agent and to a client over
 * Node streams and Web streams. After each input a fresh `initialize` is
 * still answered; every line is answered as JSON-RPC 2.0 says (requests once,
 * with their id; notifications and responses never); nothing throws out of a
 * stream handler and no promise rejects unhandled. The engine and its judge
 * are test/support/connection-fuzz.ts; bench/connection-fuzz.bench.ts runs
 * 100,000 inputs.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { watchEscapes } from "./support/escapes.js";
import { CONNECTION_COMMANDS } from "./support/connection-readme.js";
import { AGENT_BOUND, CLIENT_BOUND, deepText, everyPlacement, expectedAnswers, fuzzInput, multisetDifference, Rng, runInput, sessionFor, TARGETS } from "./support/connection-fuzz.js";
import * as v2 from "../generated/src/v2/index.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Inputs per target (four targets): a few thousand in all. */
const INPUTS = 600;
const SEED = 36;

const escaped = watchEscapes();

describe("the fuzz sessions", () => {
  // The judge only means something when the unmutated sessions exercise real handlers: every line is valid.
  it("are valid messages of v2 before they are mutated", () => {
    for (const message of [...AGENT_BOUND, ...CLIENT_BOUND]) {
      const { method, params, result, error } = message as Record<string, unknown>;
      if (error !== undefined) expect(v2.validate.Error(error).ok).toBe(true);
      const entry = v2.methods.find((m) => m.method === method);
      if (entry !== undefined) expect(v2.validate[entry.params as keyof typeof v2.validate](params as never), String(method)).toMatchObject({ ok: true });
      else if (typeof method === "string") expect(["$/cancel_request", "no/such", "fs/read_text_file"].includes(method) || method.startsWith("_"), method).toBe(true); // methods v2 does not have: -32601
      if (result !== undefined) expect(typeof result).toBe("object");
    }
  });
});

describe.each(TARGETS)("the $end over $streams streams", (target) => {
  it(`answers every fuzzed session as JSON-RPC 2.0 says and still answers initialize after it (${INPUTS} inputs)`, async () => {
    const rng = new Rng(SEED + TARGETS.indexOf(target));
    for (let n = 0; n < INPUTS; n++) {
      const input = fuzzInput(sessionFor(target), rng);
      const outcome = await runInput(input, target);
      const where = `input ${n} (seed ${SEED + TARGETS.indexOf(target)})`;
      expect(outcome.thrown, where).toBeUndefined();
      expect(outcome.probeAnswered, `${where}: initialize after it was not answered`).toBe(true);
      expect(multisetDifference(expectedAnswers(input.bytes), outcome.answered), where).toBe("");
    }
    expect(escaped).toEqual([]);
  }, 300_000);
});

describe.each(TARGETS)("the $end over $streams streams, a value nested 100,000 deep", (target) => {
  // The line of issue 36: a response whose id JSON.stringify could not print.
  it.each([5_000, 100_000])("gets no answer for a response whose id is nested %i deep, and goes on", async (depth) => {
    const deepId = "[".repeat(depth) + "0" + "]".repeat(depth);
    const bytes = new TextEncoder().encode(`{"jsonrpc":"2.0","id":${deepId},"result":null}\n`);
    const outcome = await runInput({ bytes, chunks: [bytes.length] }, target);
    expect(outcome.probeAnswered).toBe(true);
    expect(outcome.answered).toEqual([]);
    expect(outcome.reports).toBe(1); // "response with unknown id [[[[…", bounded
    expect(escaped).toEqual([]);
  });

  it("in every field position of every line is handled as JSON-RPC 2.0 says", async () => {
    const deep = deepText(100_000, new Rng(1));
    const inputs = everyPlacement(sessionFor(target), deep);
    expect(inputs.length).toBeGreaterThan(100);
    for (const [n, input] of inputs.entries()) {
      const outcome = await runInput(input, target);
      expect(outcome.probeAnswered, `placement ${n}`).toBe(true);
      expect(multisetDifference(expectedAnswers(input.bytes), outcome.answered), `placement ${n}`).toBe("");
    }
    expect(escaped).toEqual([]);
  }, 300_000);
});

describe("examples/v2-agent.ts over stdio, sent the line of issue 36", () => {
  // The agent as the README starts it; before the fix, this line ended its process (exit 1) and session/new went unanswered.
  it(`${CONNECTION_COMMANDS.agent}: a response whose id is nested 5,000 deep gets no answer, and the next session/new is answered`, async () => {
    const child = spawn(CONNECTION_COMMANDS.agent, { cwd: ROOT, shell: true, stdio: ["pipe", "pipe", "pipe"] });
    const deepId = "[".repeat(5_000) + "0" + "]".repeat(5_000);
    const lines = [
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 2, info: { name: "t", version: "1" } } }),
      `{"jsonrpc":"2.0","id":${deepId},"result":null}`,
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/tmp" } }),
    ];
    child.stdin.write(lines.join("\n") + "\n");
    const answers: { id: unknown; result?: unknown }[] = [];
    let buffered = "";
    await new Promise<void>((resolve, reject) => {
      child.on("exit", (code) => reject(new Error(`the agent exited (${code}) with ${answers.length} answers`)));
      child.stdout.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        const parts = buffered.split("\n");
        buffered = parts.pop()!;
        for (const part of parts) answers.push(JSON.parse(part));
        if (answers.some((answer) => answer.id === 2)) resolve();
      });
    });
    child.stdin.end();
    expect(answers.map((answer) => answer.id)).toEqual([1, 2]);
    expect(answers[1]).toMatchObject({ result: { sessionId: expect.any(String) } });
  }, 120_000);
});
