/**
 * `acp-bindings record`, the stdio tap, between real peers in child
 * processes: the SDK's client and our example agent, our example client and
 * the SDK's agent. The peers see the same messages in the same order as
 * without the tap, and the trace has every line once with its direction.
 * An agent that crashes mid-turn, writes noise, bytes that are not UTF-8 and
 * a last line without newline: bytes, stderr and exit code pass through and
 * the trace keeps everything that passed. `check` reads the trace.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readTrace } from "../generated/src/runtime/trace.js";
import { sdkTurn } from "./support/sdk-turn.js";
import { tempDir } from "./support/temp-dirs.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = "generated/src/bin/acp-bindings.ts";
const TAP = [process.execPath, "--import", "tsx", BIN, "record", "--out"];
const dir = tempDir("record");

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The trace's wire lines in order, each with its direction. */
function traced(file: string): { dir: string; line: string }[] {
  const trace = readTrace(readFileSync(file, "utf8").trimEnd().split("\n"));
  return trace.entries.filter((e) => e.dir !== undefined).map((e) => ({ dir: e.dir!, line: String(e.wire) }));
}

/** Runs a command with `input` on stdin; its exit, signal, stdout bytes and stderr. */
function runWith(command: string[], input: string) {
  const result = spawnSync(command[0]!, command.slice(1), { cwd: ROOT, input });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr.toString("utf8") };
}

describe("acp-bindings record", () => {
  it("between the SDK's client and examples/v2-agent.ts: same messages, same order, each line traced once", async () => {
    const agent = [process.execPath, "--import", "tsx", "examples/v2-agent.ts"];
    const direct = await sdkTurn(agent);
    const trace = join(dir, "sdk-client.ndjson");
    const tapped = await sdkTurn([...TAP, trace, "--", ...agent]);
    expect(tapped.outcome).toEqual(direct.outcome);
    expect(tapped.outcome).toMatchObject({ name: "example-agent", stopReason: "end_turn" });
    expect(tapped.received).toEqual(direct.received);
    expect(tapped.sent).toEqual(direct.sent);
    const lines = traced(trace);
    expect(lines.filter((l) => l.dir === "client->agent").map((l) => l.line)).toEqual(tapped.sent);
    expect(lines.filter((l) => l.dir === "agent->client").map((l) => l.line)).toEqual(tapped.received);
    const check = spawnSync(process.execPath, ["--import", "tsx", BIN, "check", trace], { cwd: ROOT, encoding: "utf8" });
    expect(check.stdout).toContain("0 violation(s), 0 protocol error(s)");
    expect(check.status).toBe(0);
  }, 120_000);

  it("between examples/v2-client.ts and the SDK's agent: the client prints what it prints without the tap", () => {
    const trace = join(dir, "our-client.ndjson");
    const client = [process.execPath, "--import", "tsx", "examples/v2-client.ts"];
    const sdkAgent = [process.execPath, "--import", "tsx", "test/interop/sdk-agent.ts"];
    const direct = spawnSync(client[0]!, [...client.slice(1), ...sdkAgent], { cwd: ROOT, encoding: "utf8" });
    const tapped = spawnSync(client[0]!, [...client.slice(1), ...TAP, trace, "--", ...sdkAgent], { cwd: ROOT, encoding: "utf8" });
    expect(tapped.stdout).toBe(direct.stdout);
    expect(tapped.stdout).toContain('"stopReason":"end_turn"');
    expect(tapped.status).toBe(0);
    const lines = traced(trace);
    const messages = lines.map((l) => JSON.parse(l.line) as { method?: string; id?: number });
    expect(messages[0]).toMatchObject({ method: "initialize" });
    expect(lines[0]!.dir).toBe("client->agent");
    const updates = lines.filter((l, i) => messages[i]!.method === "session/update");
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((l) => l.dir === "agent->client")).toBe(true);
    const ids = lines.filter((l, i) => messages[i]!.method !== undefined && messages[i]!.id !== undefined).map((l, i) => `${l.dir}:${i}`);
    expect(new Set(ids).size).toBe(ids.length);
  }, 120_000);

  it("an agent that crashes mid-turn: its bytes, noise, stderr and exit code pass; the trace keeps every line", () => {
    const agent = `
      process.stdin.once("data", () => {
        process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2}}\\n');
        process.stdout.write("agent log: not JSON\\n");
        process.stdout.write(Buffer.from([0xff, 0xfe, 0x0a]));
        process.stdout.write('{"jsonrpc":"2.0","method":"session/up');
        process.stderr.write("boom: crashed mid-turn\\n");
        setTimeout(() => process.exit(3), 50);
      });`;
    const trace = join(dir, "crash.ndjson");
    const input = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 2 } })}\n`;
    const result = runWith([...TAP, trace, "--", process.execPath, "-e", agent], input);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe("boom: crashed mid-turn\n");
    const expected = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2}}\nagent log: not JSON\n'),
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.from('{"jsonrpc":"2.0","method":"session/up'),
    ]);
    expect(Buffer.compare(result.stdout, expected)).toBe(0);
    const events = readFileSync(trace, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map(({ t: _t, ...rest }) => rest)).toEqual([
      { event: "start", command: [process.execPath, "-e", agent] },
      { dir: "client->agent", line: input.trimEnd() },
      { dir: "agent->client", line: '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2}}' },
      { dir: "agent->client", line: "agent log: not JSON" },
      { dir: "agent->client", base64: "//4=" },
      { dir: "agent->client", line: '{"jsonrpc":"2.0","method":"session/up', partial: true },
      { event: "exit", code: 3, signal: null },
    ]);
    expect(events.every((e) => typeof e.t === "number")).toBe(true);
    const check = spawnSync(process.execPath, ["--import", "tsx", BIN, "check", trace], { cwd: ROOT, encoding: "utf8" });
    expect(check.stdout).toContain("line 4: violation (message): not JSON");
    expect(check.stdout).toContain("line 5: violation (message): not UTF-8 text");
  }, 60_000);

  it("passes the agent's signal on, and says so when the agent cannot start", () => {
    const killed = runWith([...TAP, join(dir, "signal.ndjson"), "--", process.execPath, "-e", "process.kill(process.pid, 'SIGKILL')"], "");
    expect(killed.signal).toBe("SIGKILL");
    expect(readFileSync(join(dir, "signal.ndjson"), "utf8")).toContain('"event":"exit","code":null,"signal":"SIGKILL"');
    const missing = runWith([...TAP, join(dir, "missing.ndjson"), "--", "/nonexistent/agent"], "");
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain('cannot start "/nonexistent/agent"');
    const usage = runWith([process.execPath, "--import", "tsx", BIN, "record", "--", "agent"], "");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--out FILE is required");
  }, 60_000);
});
