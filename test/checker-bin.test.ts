/**
 * `npx acp-bindings check` as a user runs it: the package is packed and
 * installed into a scratch consumer (test/consumer/harness.ts), and the
 * README's commands run there exactly as written, on a session captured
 * between the official SDK's agent and client, and on a bad one.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureSdkSession } from "./checker-capture.js";
import { packedConsumer, run } from "./consumer/harness.js";
import { readmeBlocks } from "./docs-readme.js";

const consumerDir = packedConsumer();

const COMMANDS = readmeBlocks("Traffic checker", "sh")[0]!.trim().split("\n");

function runCommands(session: string[]): { command: string; code: number; stdout: string; stderr: string }[] {
  writeFileSync(join(consumerDir(), "session.ndjson"), `${session.join("\n")}\n`);
  return COMMANDS.map((command) => ({ command, ...run("sh", ["-c", command], consumerDir()) }));
}

describe("npx acp-bindings check", () => {
  it("the README's commands pass on SDK traffic and print the session summary", async () => {
    expect(COMMANDS.length).toBe(3);
    const [text, json, stable] = runCommands(await captureSdkSession());
    for (const r of [text, json, stable]) expect(r!.code, `${r!.command}\n${r!.stdout}${r!.stderr}`).toBe(0);
    expect(text!.stdout).toContain("0 violation(s), 0 protocol error(s), 0 rejected by a tolerant peer, 0 tolerant drop(s)");
    expect(text!.stdout).toContain("session sess-1: messages 1 user, 1 agent, 1 thought; tool calls 1 completed, 1 in_progress; plan 2 entries; stop reason end_turn");
    expect(JSON.parse(json!.stdout)).toMatchObject({ surface: "v1/unstable", errors: 0, sessions: [{ sessionId: "sess-1", stopReason: "end_turn" }] });
    expect(stable!.stdout).toContain("on v1:");
  });

  it("exits 1 and names line and pointer on a bad capture", async () => {
    const session = await captureSdkSession();
    const bad = session.map((line) => line.replace('"kind":"read"', '"kind":7'));
    const [text] = runCommands([...bad, JSON.stringify({ jsonrpc: "2.0", id: 99, result: {} })]);
    expect(text!.code).toBe(1);
    expect(text!.stdout).toMatch(/line \d+: violation \/params\/update\/kind: /);
    expect(text!.stdout).toContain(`line ${bad.length + 1}: protocol /id: response to no request`);
  });
});
