/**
 * The README's "Debugging a session" commands as a user runs them: the
 * package is packed and installed into a scratch consumer, a small agent on
 * the installed package is written there as `my-agent.js`, and the commands
 * run exactly as written (`sh -c`). The `record` line is what the editor
 * runs, and so is the `mock-agent` line, replaying the recorded session: the
 * test plays the editor, driving each with our client over its stdio.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { connectClient, ndJsonStream, PROTOCOL_VERSION } from "../generated/src/v2/index.js";
import { packedConsumer, run } from "./consumer/harness.js";
import { readmeShellCommands } from "./docs-readme.js";

const consumerDir = packedConsumer();

const AGENT = `import { connectAgent, ndJsonStream, PROTOCOL_VERSION } from "acp-bindings/v2";
const client = connectAgent(ndJsonStream({ readable: process.stdin, writable: process.stdout }), {
  initialize: async () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "my-agent", version: "1.0.0" } }),
  "session/new": async () => ({ sessionId: "s1" }),
  "session/prompt": async ({ sessionId }) => {
    setTimeout(async () => {
      await client.notify("session/update", { sessionId, update: { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi there" } } });
      await client.notify("session/update", { sessionId, update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" } });
    }, 10);
    return { messageId: "u1" };
  },
  "session/cancel": () => {},
});
await client.closed;
`;

const COMMANDS = readmeShellCommands("Debugging a session");

/** Plays the editor: starts `command` (`sh -c`) and drives one turn with our client; what it saw and the exit code. */
async function editorTurn(command: string): Promise<{ name: string; texts: string[]; code: number | null }> {
  const editor = spawn("sh", ["-c", command], { cwd: consumerDir(), stdio: ["pipe", "pipe", "inherit"] });
  const texts: string[] = [];
  let ended: () => void = () => {};
  const turnEnded = new Promise<void>((resolve) => (ended = resolve));
  const agent = connectClient(ndJsonStream({ readable: editor.stdout, writable: editor.stdin }), {
    "session/update": ({ update }) => {
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") texts.push(update.content.text);
      if (update.sessionUpdate === "state_update" && update.state === "idle") ended();
    },
  });
  const init = await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "editor", version: "1" } });
  const { sessionId } = await agent.request("session/new", { cwd: consumerDir() });
  await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
  await turnEnded;
  agent.close();
  editor.stdin.end();
  const code = await new Promise<number | null>((resolve) => editor.on("close", resolve));
  return { name: init.info.name, texts, code };
}

describe("README: Debugging a session", () => {
  it("records a session through the tap, checks it, renders it and replays it with mock-agent", async () => {
    expect(COMMANDS.length).toBe(4);
    const [record, check, view, mockAgent] = COMMANDS as [string, string, string, string];
    writeFileSync(join(consumerDir(), "my-agent.js"), AGENT);
    writeFileSync(join(consumerDir(), "package.json"), JSON.stringify({ ...JSON.parse(readFileSync(join(consumerDir(), "package.json"), "utf8")), type: "module" }));
    const recorded = await editorTurn(record);
    expect(recorded).toEqual({ name: "my-agent", texts: ["hi there"], code: 0 });

    const checked = run("sh", ["-c", check], consumerDir());
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toContain("0 violation(s), 0 protocol error(s)");
    expect(checked.stdout).toContain("session s1: messages 1 user, 1 agent");
    const viewed = run("sh", ["-c", view], consumerDir());
    expect(viewed.code, viewed.stderr).toBe(0);
    const html = readFileSync(join(consumerDir(), "report.html"), "utf8");
    expect(html).toContain("<!doctype html>");
    expect(html).toContain("hi there");
    expect(html).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*\shref=|https?:\/\//);
    // The editor, configured with mock-agent in place of the agent, sees the same session again.
    expect(await editorTurn(mockAgent)).toEqual({ name: "my-agent", texts: ["hi there"], code: 0 });
  }, 120_000);
});
