/**
 * `acp-bindings mock-agent --script FILE`: a session between the SDK's client
 * and examples/v2-agent.ts is recorded with `record`, and that trace, played by
 * the mock to the SDK's client, gives the client the same outcome and the same
 * lines in the same order as the live agent did; a client that sends another
 * prompt gets a mismatch report with both messages on stderr and exit 1. The
 * player itself (no processes): ids mapped both ways, a response with the
 * wrong id refused, a script without directions refused; and the helpers it
 * walks wire data with, on a value nested 100,000 levels deep. `mock-client`
 * plays the client side of the recorded trace to examples/v2-agent.ts, and to
 * the SDK's example agent, whose different answers are reported.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadMock, MockPeer, type Outcome } from "../generated/src/runtime/mock-agent.js";
import { firstDifference, replaceId } from "../generated/src/runtime/mock-script.js";
import { sdkTurn } from "./support/sdk-turn.js";
import { tempDir } from "./support/temp-dirs.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = [process.execPath, "--import", "tsx", "generated/src/bin/acp-bindings.ts"];
const AGENT = [process.execPath, "--import", "tsx", "examples/v2-agent.ts"];
const dir = tempDir("mock-agent");

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A script as `record` writes it, from direction/message pairs. */
function script(lines: [string, unknown][]): Uint8Array {
  const text = lines.map(([d, message], i) => JSON.stringify({ t: i, dir: d, line: typeof message === "string" ? message : JSON.stringify(message) })).join("\n");
  return new TextEncoder().encode(`${text}\n`);
}

function mock(lines: [string, unknown][]): MockPeer {
  const agent = loadMock(script(lines));
  if (!(agent instanceof MockPeer)) throw new Error(agent.problem);
  return agent;
}

function sent(outcome: Outcome): unknown[] {
  if (!("send" in outcome)) throw new Error(outcome.mismatch);
  return outcome.send.map((line) => JSON.parse(String(line)));
}

const C = "client->agent";
const A = "agent->client";
const PROMPT = { jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] } };
const PERMISSION = { jsonrpc: "2.0", id: 0, method: "session/request_permission", params: { sessionId: "s1", options: [] } };
const CHOSEN = { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "selected", optionId: "allow" } } };
const ACCEPTED = { jsonrpc: "2.0", id: 7, result: { messageId: "u1" } };

describe("mock-agent: the player", () => {
  it("answers a live request under its live id, sends its own request with the script's id and awaits the answer", () => {
    const agent = mock([[A, { jsonrpc: "2.0", method: "hello" }], [C, PROMPT], [A, PERMISSION], [C, CHOSEN], [A, ACCEPTED]]);
    expect(sent(agent.start())).toEqual([{ jsonrpc: "2.0", method: "hello" }]);
    expect(sent(agent.receive(JSON.stringify({ ...PROMPT, id: "live-1" })))).toEqual([PERMISSION]);
    expect(sent(agent.receive(JSON.stringify({ result: CHOSEN.result, id: 0, jsonrpc: "2.0" })))).toEqual([{ ...ACCEPTED, id: "live-1" }]);
    expect(agent.done).toBe(true);
    expect(agent.end()).toEqual({ send: [] });
  });

  it("refuses a response under another id, another method, a different param, and input past the script's end", () => {
    const wrongId = mock([[C, PROMPT], [A, PERMISSION], [C, CHOSEN]]);
    wrongId.receive(JSON.stringify(PROMPT));
    const refused = wrongId.receive(JSON.stringify({ ...CHOSEN, id: 5 }));
    expect("mismatch" in refused && refused.mismatch).toContain("a response to another request");
    const method = mock([[C, PROMPT]]).receive(JSON.stringify({ ...PROMPT, method: "session/cancel" }));
    expect("mismatch" in method && method.mismatch).toContain("a different method");
    const param = mock([[C, PROMPT]]).receive(JSON.stringify({ ...PROMPT, params: { ...PROMPT.params, sessionId: "s2" } }));
    expect("mismatch" in param && param.mismatch).toContain('differs at "/params/sessionId"');
    const ended = mock([[C, PROMPT]]);
    ended.receive(JSON.stringify(PROMPT));
    const extra = ended.receive('{"jsonrpc":"2.0","method":"x"}');
    expect("mismatch" in extra && extra.mismatch).toContain("expected: nothing more");
    const early = mock([[C, PROMPT]]).end();
    expect("mismatch" in early && early.mismatch).toContain("received: the end of the client's output");
  });

  it("refuses a script whose lines have no direction", () => {
    const plain = loadMock(new TextEncoder().encode(`${JSON.stringify(PROMPT)}\n`));
    expect(plain).toEqual({ problem: expect.stringContaining("line 1: a wire line without a direction") });
  });

  it("rewrites only the top-level id, keeping every other byte; compares and reports without recursing", () => {
    const text = '{"jsonrpc":"2.0", "result":{"id":1,"s":"\\"id\\":1"} ,"id" : 12 }';
    expect(replaceId(text, "x")).toBe('{"jsonrpc":"2.0", "result":{"id":1,"s":"\\"id\\":1"} ,"id" : "x" }');
    expect(replaceId('{"id":[1,{"a":2}],"b":3}', 4)).toBe('{"id":4,"b":3}');
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(firstDifference(JSON.parse(deep), JSON.parse(deep))).toBeUndefined();
    const other = mock([[C, PROMPT]]).receive(`{"jsonrpc":"2.0","method":"x","params":${deep}}`);
    expect("mismatch" in other && other.mismatch.length).toBeLessThan(2000);
  });
});

describe("acp-bindings mock-agent --script", () => {
  const trace = join(dir, "session.ndjson");

  it("replays a recorded session to the SDK's client: the same outcome, the same lines in the same order", async () => {
    const live = await sdkTurn([...BIN, "record", "--out", trace, "--", ...AGENT]);
    expect(live.outcome).toMatchObject({ name: "example-agent", stopReason: "end_turn" });
    expect(readFileSync(trace, "utf8")).toContain("session/request_permission");
    const replayed = await sdkTurn([...BIN, "mock-agent", "--script", trace]);
    expect(replayed.stderr).toBe("");
    expect(replayed.code).toBe(0);
    expect(replayed.outcome).toEqual(live.outcome);
    expect(replayed.received).toEqual(live.received);
    expect(replayed.sent).toEqual(live.sent);
  }, 120_000);

  it("a client that sends another prompt: both messages on stderr, exit 1", async () => {
    const replayed = await sdkTurn([...BIN, "mock-agent", "--script", trace], "another prompt");
    expect(replayed.code).toBe(1);
    expect(replayed.outcome).toMatchObject({ error: expect.any(String) });
    expect(replayed.stderr).toContain('acp-bindings mock-agent: the client sent a message that differs at "/params/prompt/0/text"');
    expect(replayed.stderr).toMatch(/expected \(script line \d+\): \{"jsonrpc":"2.0","id":\d+,"method":"session\/prompt",.*"text":"hello agent"/);
    expect(replayed.stderr).toMatch(/received: \{"jsonrpc":"2.0","id":\d+,"method":"session\/prompt",.*"text":"another prompt"/);
  }, 120_000);

  it("mock-client plays the client's side of that trace to examples/v2-agent.ts (exit 0), and reports another agent's answer (exit 1)", () => {
    const played = spawnSync(BIN[0]!, [...BIN.slice(1), "mock-client", "--script", trace, "--", ...AGENT], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(played.stderr).toBe("");
    expect(played.status).toBe(0);
    const other = [process.execPath, "--import", "tsx", "test/interop/sdk-agent.ts"];
    const mismatch = spawnSync(BIN[0]!, [...BIN.slice(1), "mock-client", "--script", trace, "--", ...other], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(mismatch.status).toBe(1);
    expect(mismatch.stderr).toContain("acp-bindings mock-client: the agent sent a message that differs at");
    expect(mismatch.stderr).toMatch(/expected \(script line \d+\): .*\n {2}received: /);
  }, 120_000);

  it("says what is wrong with its arguments or script (exit 2)", () => {
    const usage = spawnSync(BIN[0]!, [...BIN.slice(1), "mock-agent"], { cwd: ROOT, encoding: "utf8" });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("--script FILE is required");
    const missing = spawnSync(BIN[0]!, [...BIN.slice(1), "mock-agent", "--script", join(dir, "none.ndjson")], { cwd: ROOT, encoding: "utf8" });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("cannot read");
  });
});
