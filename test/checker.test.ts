/**
 * The traffic checker (`npx acp-bindings check`), from source: clean on a real
 * session captured between the official SDK's agent and client, and one
 * hand-made bad transcript per check, each of which must report exactly its
 * finding. The bin itself, as a user runs it, is in test/checker-bin.test.ts.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../generated/src/runtime/check-cli.js";
import { checkTraffic, type CheckerBindings } from "../generated/src/runtime/checker.js";
import * as v1 from "../generated/src/v1/index.js";
import * as v1u from "../generated/src/v1/unstable/index.js";
import * as v2u from "../generated/src/v2/unstable/index.js";
import { captureSdkSession, captureSdkSessionV2 } from "./checker-capture.js";
import { ROOT } from "./support/ir.js";
import { tempDir } from "./support/temp-dirs.js";

const V1: CheckerBindings = v1u;
const V2: CheckerBindings = v2u;
const line = (message: object) => JSON.stringify({ jsonrpc: "2.0", ...message });
const text = (t: string) => ({ type: "text", text: t });

/** A well-formed v1 opening: initialize, session/new, a prompt. */
const OPENING = [
  line({ id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }),
  line({ id: 0, result: { protocolVersion: 1, agentCapabilities: {} } }),
  line({ id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } }),
  line({ id: 1, result: { sessionId: "s1" } }),
  line({ id: 2, method: "session/prompt", params: { sessionId: "s1", prompt: [text("hi")] } }),
];
const update = (u: object, sessionId = "s1") => line({ method: "session/update", params: { sessionId, update: u } });
const findings = (lines: (string | Uint8Array)[], bindings = V1, surface = "v1/unstable") =>
  checkTraffic(lines, bindings, surface).findings.map((f) => [f.line, f.kind, f.pointer]);

describe("on SDK traffic", () => {
  it("reports nothing on a session between the SDK's agent and client, and summarises its state", async () => {
    const lines = await captureSdkSession();
    expect(lines.length).toBeGreaterThan(10);
    const report = checkTraffic(lines, V1, "v1/unstable");
    expect(report.findings).toEqual([]);
    expect(report.errors).toBe(0);
    expect(report.sessions).toEqual([
      { sessionId: "sess-1", userMessages: 1, agentMessages: 1, agentThoughts: 1, toolCalls: { completed: 1, in_progress: 1 }, planEntries: 2, stopReason: "end_turn" },
    ]);
  });

  it("the same over ACP v2: the prompt answered first, the turn ended by an idle state_update", async () => {
    const lines = await captureSdkSessionV2();
    const report = checkTraffic(lines, V2, "v2/unstable");
    expect(report.findings).toEqual([]);
    expect(report.sessions).toEqual([
      { sessionId: "sess-2", userMessages: 1, agentMessages: 1, agentThoughts: 1, toolCalls: { completed: 1 }, planEntries: 0, stopReason: "end_turn" },
    ]);
  });
});

describe("S36: the session summary counts messages as clients group them", () => {
  const turn = (id: number, said: string) => [
    line({ id, method: "session/prompt", params: { sessionId: "s1", prompt: [text(said)] } }),
    update({ sessionUpdate: "agent_message_chunk", content: text("You said: ") }),
    update({ sessionUpdate: "agent_message_chunk", content: text(said) }),
    line({ id, result: { stopReason: "end_turn" } }),
  ];

  it.each([
    ["v1", v1],
    ["v1/unstable", v1u],
  ] as const)("%s: two turns of chunks without ids are two user and two agent messages", (surface, bindings) => {
    const report = checkTraffic([...OPENING.slice(0, 4), ...turn(2, "hello there"), ...turn(3, "and again")], bindings, surface);
    expect(report.findings).toEqual([]);
    expect(report.sessions[0]).toMatchObject({ userMessages: 2, agentMessages: 2, agentThoughts: 0 });
  });

  it("v1: text, a tool call, text is two agent messages in one turn", () => {
    const lines = [
      ...OPENING,
      update({ sessionUpdate: "agent_message_chunk", content: text("Let me look.") }),
      update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Read" }),
      update({ sessionUpdate: "agent_message_chunk", content: text("Done.") }),
    ];
    expect(checkTraffic(lines, V1, "v1/unstable").sessions[0]).toMatchObject({ userMessages: 1, agentMessages: 2 });
  });
});

describe("one bad transcript per check", () => {
  it("strict violation, with the pointer into the message", () => {
    expect(findings([...OPENING, update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: 5 } })])).toEqual([
      [6, "violation", "/params/update/content/text"],
      [6, "rejected", "/params/update/content/text"], // a tolerant peer rejects the whole notification
    ]);
  });

  it("a message a tolerant peer rejects outright is an error of its own, not counted among the tolerant drops", () => {
    const lines = [...OPENING, update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: 5 } })];
    const report = checkTraffic(lines, V1, "v1/unstable");
    expect(report.findings.find((f) => f.kind === "rejected")?.message).toMatch(/^a tolerant peer rejects the whole SessionNotification: /);
    expect(report.errors).toBe(2); // the violation and the rejection
    const summary = run(["check", "t.ndjson"], { "v1/unstable": V1 }, () => new TextEncoder().encode(lines.join("\n"))).output.split("\n").find((l) => l.startsWith("6 line(s)"));
    expect(summary).toBe("6 line(s) on v1/unstable: 1 violation(s), 0 protocol error(s), 1 rejected by a tolerant peer, 0 tolerant drop(s)");
  });

  it("a rejected tool_call is reported once: its later updates are not also \"before it exists\"", () => {
    const lines = [
      ...OPENING,
      update({ sessionUpdate: "tool_call", toolCallId: "t1", title: 5 }),
      update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }),
      update({ sessionUpdate: "tool_call_update", toolCallId: "t2", status: "completed" }),
    ];
    expect(findings(lines)).toEqual([
      [6, "violation", "/params/update/title"],
      [6, "rejected", "/params/update/title"],
      [8, "protocol", "/params/update/toolCallId"], // t2 was never created at all
    ]);
  });

  it("what a tolerant peer silently drops (an unknown property): reported, not an error", () => {
    const report = checkTraffic([...OPENING, update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "x", vendorField: 1 })], V1, "v1/unstable");
    expect(report.findings.map((f) => [f.kind, f.pointer])).toEqual([["dropped", "/params/update/vendorField"]]);
    expect(report.errors).toBe(0);
  });

  it("a response to no request", () => {
    expect(findings([...OPENING, line({ id: 7, result: {} })])).toEqual([[6, "protocol", "/id"]]);
  });

  it("a duplicate id from the same side while the first is unanswered", () => {
    expect(findings([...OPENING, line({ id: 2, method: "session/prompt", params: { sessionId: "s1", prompt: [] } })])).toEqual([[6, "protocol", "/id"]]);
  });

  it("the same id from the other side is not a duplicate, and each response is checked against its own request", () => {
    const permission = { sessionId: "s1", toolCall: { toolCallId: "t1" }, options: [{ optionId: "ok", name: "OK", kind: "allow_once" }] };
    const lines = [
      ...OPENING,
      update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "x" }),
      line({ id: 2, method: "session/request_permission", params: permission }),
      line({ id: 2, result: { outcome: { outcome: "cancelled" } } }),
      line({ id: 2, result: { stopReason: "end_turn" } }),
    ];
    expect(findings(lines)).toEqual([]);
  });

  it("an update for a session never created", () => {
    expect(findings([...OPENING, update({ sessionUpdate: "agent_message_chunk", content: text("x") }, "s9")])).toEqual([[6, "protocol", "/params/sessionId"]]);
  });

  it("a subagent's session, announced by its parent's subagent_update, is a known session", () => {
    const v2 = [
      line({ id: 0, method: "session/new", params: { cwd: "/w" } }),
      line({ id: 0, result: { sessionId: "s1" } }),
      update({ sessionUpdate: "subagent_update", sessionId: "child" }),
      update({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("from the child") }, "child"),
    ];
    expect(findings(v2, V2, "v2/unstable")).toEqual([]);
    expect(findings([v2[0]!, v2[1]!, v2[3]!], V2, "v2/unstable")).toEqual([[3, "protocol", "/params/sessionId"]]);
  });

  it("a tool call updated before it exists", () => {
    expect(findings([...OPENING, update({ sessionUpdate: "tool_call_update", toolCallId: "t9", status: "completed" })])).toEqual([[6, "protocol", "/params/update/toolCallId"]]);
  });

  it("a prompt answered while updates still arrive (v1: after the response)", () => {
    const lines = [...OPENING, line({ id: 2, result: { stopReason: "end_turn" } }), update({ sessionUpdate: "agent_message_chunk", content: text("late") })];
    expect(findings(lines)).toEqual([[7, "protocol", "/params/update"]]);
    // Session-level updates outside a turn are fine.
    expect(findings([...lines.slice(0, 6), update({ sessionUpdate: "available_commands_update", availableCommands: [] })])).toEqual([]);
  });

  it("a prompt answered while updates still arrive (v2: after the idle state_update)", () => {
    const v2 = [
      line({ id: 0, method: "session/new", params: { cwd: "/w", mcpServers: [] } }),
      line({ id: 0, result: { sessionId: "s1" } }),
      line({ id: 1, method: "session/prompt", params: { sessionId: "s1", prompt: [text("hi")] } }),
      line({ id: 1, result: { messageId: "u1" } }),
      update({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("a") }),
      update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }),
      update({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("late") }),
    ];
    expect(findings(v2, V2, "v2/unstable")).toEqual([[7, "protocol", "/params/update"]]);
    expect(checkTraffic(v2.slice(0, 6), V2, "v2/unstable").sessions[0]).toMatchObject({ agentMessages: 1, stopReason: "end_turn" });
  });

  it("a session/load or session/resume replays the history: turn content until its answer, and after it content is late again", () => {
    const answered = [...OPENING, line({ id: 2, result: { stopReason: "end_turn" } })];
    const replayV1 = [
      ...answered,
      line({ id: 3, method: "session/load", params: { sessionId: "s1", cwd: "/w", mcpServers: [] } }),
      update({ sessionUpdate: "user_message_chunk", content: text("hi") }),
      update({ sessionUpdate: "agent_message_chunk", content: text("hello") }),
      line({ id: 3, result: {} }),
      update({ sessionUpdate: "agent_message_chunk", content: text("late") }),
    ];
    expect(findings(replayV1)).toEqual([[11, "protocol", "/params/update"]]);
    const replayV2 = [
      line({ id: 0, method: "session/new", params: { cwd: "/w" } }),
      line({ id: 0, result: { sessionId: "s1" } }),
      line({ id: 1, method: "session/prompt", params: { sessionId: "s1", prompt: [text("hi")] } }),
      line({ id: 1, result: { messageId: "u1" } }),
      update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }),
      line({ id: 2, method: "session/resume", params: { sessionId: "s1", cwd: "/w", replayFrom: { type: "start" } } }),
      update({ sessionUpdate: "user_message", messageId: "u1", content: [text("hi")] }),
      update({ sessionUpdate: "agent_message", messageId: "m1", content: [text("hello")] }),
      update({ sessionUpdate: "state_update", state: "idle" }),
      line({ id: 2, result: {} }),
      update({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("late") }),
    ];
    expect(findings(replayV2, V2, "v2/unstable")).toEqual([[11, "protocol", "/params/update"]]);
  });

  it("lines that are not JSON-RPC, and unknown methods (extension methods pass)", () => {
    const lines = ["{oops", line({ foo: 1 }), line({ id: 9, method: "nope/nope", params: {} }), line({ method: "_acme/ping", params: {} })];
    expect(findings(lines)).toEqual([
      [1, "violation", ""],
      [2, "violation", ""],
      [3, "violation", "/method"],
    ]);
  });
});

describe("command line", () => {
  const surfaces = { "v1/unstable": V1, "v2/unstable": V2 };
  const bytes = (text: string) => new TextEncoder().encode(text);
  const file = (lines: string[]) => () => bytes(lines.join("\n"));
  const lineCount = (text: string): unknown => JSON.parse(run(["check", "t.ndjson", "--format", "json"], surfaces, () => bytes(text)).output).lines;

  it("exits 1 on violations, 0 when clean; --format json is the report", () => {
    expect(run(["check", "t.ndjson"], surfaces, file(OPENING)).code).toBe(0);
    const bad = [...OPENING, line({ id: 7, result: {} })];
    const text = run(["check", "t.ndjson"], surfaces, file(bad));
    expect(text.code).toBe(1);
    expect(text.output).toContain("line 6: protocol /id: response to no request");
    const json = run(["check", "t.ndjson", "--format", "json", "--surface", "v1/unstable"], surfaces, file(bad));
    expect(JSON.parse(json.output)).toMatchObject({ surface: "v1/unstable", errors: 1, findings: [{ line: 6, kind: "protocol" }] });
  });

  it("takes the surface from initialize's protocolVersion unless --surface says", () => {
    const v2init = [line({ id: 0, method: "initialize", params: { protocolVersion: 2 } })];
    expect(JSON.parse(run(["check", "-", "--format", "json"], surfaces, file(v2init)).output).surface).toBe("v2/unstable");
    expect(JSON.parse(run(["check", "-", "--format", "json"], surfaces, file(OPENING)).output).surface).toBe("v1/unstable");
  });

  it("counts lines as a file has them: a final newline ends the last line, an empty file has none", () => {
    expect(lineCount(`${OPENING.join("\n")}\n`)).toBe(5);
    expect(lineCount(`${OPENING.join("\r\n")}\r\n`)).toBe(5);
    expect(lineCount(OPENING.join("\n"))).toBe(5);
    expect(lineCount("")).toBe(0);
    expect(lineCount("\n")).toBe(1);
    expect(run(["check", "t.ndjson"], surfaces, () => bytes(`${OPENING.join("\n")}\n`)).output).toMatch(/^5 line\(s\) on v1\/unstable: 0 violation\(s\)/);
  });

  it("a line that is not UTF-8 is a violation at its line, not replacement characters", () => {
    const latin = Uint8Array.from([...bytes(`${OPENING[0]}\n{"jsonrpc":"2.0","method":"_x","params":{"a":"`), 0xe9, 0xff, ...bytes('"}}\n')]);
    const outcome = run(["check", "latin.ndjson"], surfaces, () => latin);
    expect(outcome.code).toBe(1);
    expect(outcome.output).toBe("line 2: violation (message): not UTF-8 text (JSON exchanged between systems must be UTF-8)\n2 line(s) on v1/unstable: 1 violation(s), 0 protocol error(s), 0 rejected by a tolerant peer, 0 tolerant drop(s)\n");
    // Valid UTF-8, U+FFFD included, is text.
    expect(findings([line({ method: "_x", params: { a: "\u00e9\ufffd" } })].map(bytes))).toEqual([]);
  });

  it("a line starting with a UTF-8 byte order mark is not JSON, as a peer's JSON.parse finds (the mark is kept, not stripped)", () => {
    const marked = Uint8Array.from([...bytes(`${OPENING[0]}
`), 0xef, 0xbb, 0xbf, ...bytes(`${line({ method: "_x", params: {} })}
`)]);
    const outcome = run(["check", "bom.ndjson"], surfaces, () => marked);
    expect(outcome.code).toBe(1);
    expect(outcome.output).toMatch(/^line 2: violation \(message\): not JSON/);
  });

  it("an initialize with a protocolVersion this package lacks picks the newest unstable surface", () => {
    const v3init = [line({ id: 0, method: "initialize", params: { protocolVersion: 3 } })];
    expect(JSON.parse(run(["check", "-", "--format", "json"], surfaces, file(v3init)).output).surface).toBe("v2/unstable");
  });

  it("the bin ends quietly when its reader goes away (`| head -1`), with the status of a SIGPIPE", () => {
    const capture = join(tempDir("checker-epipe"), "bad.ndjson");
    writeFileSync(capture, "{oops\n".repeat(20_000)); // about 1 MB of findings: more than a pipe holds
    const bin = join(ROOT, "generated", "src", "bin", "acp-bindings.ts");
    const piped = spawnSync("bash", ["-c", `node --import tsx ${bin} check ${capture} | head -1; echo "\${PIPESTATUS[0]}"`], { cwd: ROOT, encoding: "utf8" });
    expect(piped.stderr).toBe("");
    expect(piped.stdout).toBe("line 1: violation (message): not JSON\n141\n");
  }, 60_000);

  it("bad usage exits 2 with the usage", () => {
    const unreadable = () => {
      throw new Error("ENOENT");
    };
    for (const args of [[], ["check"], ["lint", "x"], ["check", "x", "--format", "xml"], ["check", "x", "--surface", "v9"], ["check", "x", "--bogus"]]) {
      const outcome = run(args, surfaces, file(OPENING));
      expect(outcome.code, args.join(" ")).toBe(2);
      expect(outcome.output).toContain("usage: acp-bindings check");
    }
    expect(run(["check", "missing.ndjson"], surfaces, unreadable)).toMatchObject({ code: 2 });
  });
});
