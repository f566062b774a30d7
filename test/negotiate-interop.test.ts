/**
 * Version negotiation over real child processes (issue 30), a router x client
 * matrix; each pairing runs one scripted turn in the version it negotiated and
 * asserts which one: our router (examples/versions-agent.ts) with the SDK's v1
 * client and its v2 client; the SDK's `agentProtocolRouter` agent
 * (test/interop/sdk-router-agent.ts) with our negotiating client
 * (examples/versions-client.ts) configured for v1 only, v2 only and both; our
 * router with our client; our client offering v2 to a v1-only agent.
 */
import { Readable, Writable } from "node:stream";
import * as sdkV1 from "@agentclientprotocol/sdk";
import * as sdkV2 from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import { commandLineStarter, runCommandLine } from "./support/command-lines.js";
import { NEGOTIATE_COMMANDS } from "./support/negotiate-readme.js";

const run = runCommandLine;
const start = commandLineStarter();



/** What examples/versions-client.ts prints for one turn. */
function turn(version: number, agent: string) {
  return { version, agent, reply: "You said: hello agent", stopReason: "end_turn" };
}

/** The text of a content block (the SDK's v1 types leave an update's content open). */
function textOf(content: unknown): string {
  const { type, text } = (content ?? {}) as { type?: unknown; text?: unknown };
  return type === "text" && typeof text === "string" ? text : "";
}

const SDK_ROUTER = "npx tsx test/interop/sdk-router-agent.ts";

describe("our client (examples/versions-client.ts)", () => {
  it.each([
    [NEGOTIATE_COMMANDS.client, turn(2, "versions-agent")],
    [NEGOTIATE_COMMANDS.clientV1, turn(1, "versions-agent")],
    ["npx tsx examples/versions-client.ts --v2 npx tsx examples/versions-agent.ts", turn(2, "versions-agent")],
    [NEGOTIATE_COMMANDS.clientOnSdkRouter, turn(2, "sdk-agent")],
    [`npx tsx examples/versions-client.ts --v1 ${SDK_ROUTER}`, turn(1, "sdk-v1-agent")],
    [`npx tsx examples/versions-client.ts --v2 ${SDK_ROUTER}`, turn(2, "sdk-agent")],
    [NEGOTIATE_COMMANDS.clientOnSdkV1Agent, turn(1, "sdk-v1-agent")],
  ])("%s", async (command, expected) => {
    const result = await run(command);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual(expected);
    expect(result.code).toBe(0);
  }, 60_000);
});

describe(`our router (${NEGOTIATE_COMMANDS.agent}) with the SDK's clients`, () => {
  it("the SDK's v1 client: v1 is negotiated, the turn ends with the prompt response", async () => {
    const child = start(NEGOTIATE_COMMANDS.agent);
    const replies: string[] = [];
    const app = sdkV1
      .client({ name: "sdk-v1-client" })
      .onNotification("session/update", async ({ params }) => {
        if (params.update.sessionUpdate === "agent_message_chunk") replies.push(textOf(params.update.content));
      });
    const stream = sdkV1.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const outcome = await app.connectWith(stream, async (agent) => {
      const init = await agent.request("initialize", { protocolVersion: sdkV1.PROTOCOL_VERSION, clientInfo: { name: "sdk-v1-client", version: "2.4.0" } });
      const { sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const { stopReason } = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
      return { version: init.protocolVersion, name: init.agentInfo?.name, sessionId, stopReason };
    });
    expect(outcome).toEqual({ version: 1, name: "versions-agent", sessionId: "v1-session", stopReason: "end_turn" });
    expect(replies).toEqual(["You said: hello agent"]);
  }, 60_000);

  it("the SDK's v2 client: v2 is negotiated, the turn ends with an idle state_update", async () => {
    const child = start(NEGOTIATE_COMMANDS.agent);
    const replies: string[] = [];
    let turnEnded: (stopReason: string) => void = () => {};
    const app = sdkV2
      .client({ name: "sdk-client" })
      .onNotification("session/update", async ({ params }) => {
        const update = params.update;
        if (update.sessionUpdate === "agent_message_chunk") replies.push(textOf(update.content));
        if (update.sessionUpdate === "state_update" && update.state === "idle" && "stopReason" in update && typeof update.stopReason === "string") turnEnded(update.stopReason);
      });
    const stream = sdkV2.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const outcome = await app.connectWith(stream, async (agent) => {
      const init = await agent.request("initialize", { protocolVersion: sdkV2.PROTOCOL_VERSION, info: { name: "sdk-client", version: "2.4.0" } });
      const { sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const ended = new Promise<string>((resolve) => (turnEnded = resolve));
      const accepted = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
      return { version: init.protocolVersion, name: init.info?.name, sessionId, accepted, stopReason: await ended };
    });
    expect(outcome).toEqual({ version: 2, name: "versions-agent", sessionId: "v2-session", accepted: { messageId: "user-1" }, stopReason: "end_turn" });
    expect(replies).toEqual(["You said: hello agent"]);
  }, 60_000);
});
