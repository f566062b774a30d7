/**
 * `check` on traces (issue 31 item 2): `record`'s format and the Rust
 * conductor's `--trace` lines give each line a direction and a time, so
 * responses pair with requests going the other way (with latency), and what
 * was never answered or never completed is reported.
 */
import { describe, expect, it } from "vitest";
import { run } from "../generated/src/runtime/check-cli.js";
import type { CheckerBindings } from "../generated/src/runtime/checker.js";
import * as v1u from "../generated/src/v1/unstable/index.js";
import * as v2u from "../generated/src/v2/unstable/index.js";

const SURFACES: Record<string, CheckerBindings> = { "v1/unstable": v1u, "v2/unstable": v2u };
const bytes = (lines: unknown[]) => new TextEncoder().encode(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
const rec = (t: number, dir: string, message: unknown) => ({ t, dir, line: JSON.stringify(message) });
const check = (lines: unknown[]) => run(["check", "trace.ndjson"], SURFACES, () => bytes(lines));

describe("check on a trace", () => {
  it("reports latency, an unanswered permission request, a tool call never completed and a version mismatch", () => {
    const out = check([
      rec(1000, "client->agent", { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 2 } }),
      rec(1040, "agent->client", { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1 } }),
      rec(1050, "client->agent", { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/" } }),
      rec(1060, "agent->client", { jsonrpc: "2.0", id: 1, result: { sessionId: "s" } }),
      rec(1070, "client->agent", { jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: "s", prompt: [{ type: "text", text: "hi" }] } }),
      rec(1080, "agent->client", { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Edit", status: "in_progress" } } }),
      rec(1090, "agent->client", { jsonrpc: "2.0", id: 2, method: "session/request_permission", params: { sessionId: "s", toolCallId: "t1", options: [{ optionId: "a", name: "Allow", kind: "allow_once" }] } }),
      rec(1100, "agent->client", { jsonrpc: "2.0", id: 2, result: { messageId: "u" } }),
    ]);
    expect(out.output).toContain("line 2: protocol /result/protocolVersion: version mismatch: the client asked for protocol version 2, the agent answered 1");
    expect(out.output).toContain("line 7: protocol /id: permission request never answered");
    expect(out.output).toContain('line 8: protocol (message): tool call "t1" of session s never completed (last status "in_progress")');
    expect(out.output).toContain("3 request(s) answered; slowest initialize at line 1: 40 ms");
    expect(out.code).toBe(1);
  });

  it("reads the Rust conductor's trace lines", () => {
    const out = check([
      { ts: 5, from: "client", to: "agent", id: 0, method: "initialize", params: { protocolVersion: 1 } },
      { ts: 9, from: "agent", to: "client", id: 0, result: { protocolVersion: 1 } },
    ]);
    expect(out.output).toContain("1 request(s) answered; slowest initialize at line 1: 4 ms");
    expect(out.output).toContain("2 line(s) on v1/unstable: 0 violation(s), 0 protocol error(s)");
    expect(out.code).toBe(0);
  });
});
