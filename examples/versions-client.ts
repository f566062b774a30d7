/**
 * A client speaking ACP v1 and v2 with one entry (`connectVersions` of
 * acp-bindings/negotiate): it starts the agent command given as arguments,
 * offers v2 (`--v1`: v1 only, `--v2`: v2 only), runs one turn in the version
 * the agent answered and prints `{ version, agent, reply, stopReason }`.
 * Run: `npx tsx examples/versions-client.ts npx tsx examples/versions-agent.ts`.
 */
import { spawn } from "node:child_process";
import { connectVersions, type NegotiatedAgent } from "acp-bindings/negotiate";
import * as v1 from "acp-bindings/v1";
import * as v2 from "acp-bindings/v2";

const [flag, ...rest] = process.argv.slice(2);
const only = flag === "--v1" || flag === "--v2" ? flag : undefined;
const command = only === undefined ? [flag!, ...rest] : rest;
const child = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const transport = v2.ndJsonStream({ readable: child.stdout, writable: child.stdin });

let reply = "";
let turnEnded: (stopReason: string) => void = () => {};
const v1Client: v1.ClientHandlers = {
  "session/update": ({ update }) => void (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" && (reply += update.content.text)),
  "session/request_permission": () => ({ outcome: { outcome: "selected", optionId: "allow" } }),
};
const v2Client: v2.ClientHandlers = {
  "session/update": ({ update }) => {
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") reply += update.content.text;
    if (update.sessionUpdate === "state_update" && update.state === "idle") turnEnded(update.stopReason ?? "unknown");
  },
  "session/request_permission": () => ({ outcome: { outcome: "selected", optionId: "allow" } }),
};

const clientInfo = { name: "versions-client", version: "1.0.0" };

/** Connects offering the versions the flag asks for (both by default). */
function negotiate(): Promise<NegotiatedAgent> {
  if (only === "--v1") return connectVersions(transport, { v1: v1Client }, { clientInfo });
  if (only === "--v2") return connectVersions(transport, { v2: v2Client }, { info: clientInfo });
  return connectVersions(transport, { v1: v1Client, v2: v2Client }, { info: clientInfo });
}

const agent = await negotiate();

/** One turn in the negotiated version; the stop reason. */
async function turn(): Promise<{ name: string | undefined; stopReason: string }> {
  const prompt = [{ type: "text" as const, text: "hello agent" }];
  switch (agent.version) {
    case 1: {
      const { sessionId } = await agent.peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const { stopReason } = await agent.peer.request("session/prompt", { sessionId, prompt });
      return { name: agent.initialize.agentInfo?.name, stopReason };
    }
    case 2: {
      const { sessionId } = await agent.peer.request("session/new", { cwd: process.cwd() });
      const ended = new Promise<string>((resolve) => (turnEnded = resolve));
      await agent.peer.request("session/prompt", { sessionId, prompt });
      return { name: agent.initialize.info.name, stopReason: await ended };
    }
  }
}

const { name, stopReason } = await turn();
console.log(JSON.stringify({ version: agent.version, agent: name, reply, stopReason }));
agent.peer.close();
child.stdin.end();
