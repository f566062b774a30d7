/**
 * An ACP client (protocol v1, as editors speak it today) on acp-bindings. It
 * starts an agent as a child process and speaks ACP over its stdio:
 *
 *   npx tsx examples/v1-client.ts                    # runs examples/v1-agent.ts
 *   npx tsx examples/v1-client.ts <command> [args]   # runs any ACP v1 agent
 *
 * It initializes and reads what the agent implements; opens a session (with an
 * additional directory where the agent supports them); sends a prompt, allows
 * the permission the agent asks for, and folds the streamed updates into a
 * live session state (`createSessionStore`); sends a second prompt and
 * cancels it. Where the agent supports them it lists its sessions, closes the
 * session, and loads it again, counting the prompts of the agent's replay of
 * the conversation. It prints one JSON line per step.
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { connectClient, createSessionStore, ndJsonStream, PROTOCOL_VERSION, type SessionState } from "acp-bindings/v1";

const ownAgent = [process.execPath, "--import", "tsx", fileURLToPath(new URL("./v1-agent.ts", import.meta.url))];
const [program, ...args] = process.argv.length > 2 ? process.argv.slice(2) : ownAgent;
const child = spawn(program!, args, { stdio: ["pipe", "pipe", "inherit"] });

const sessions = createSessionStore();
const agent = connectClient(ndJsonStream({ readable: child.stdout, writable: child.stdin }), {
  "session/update": sessions.update, // the store itself: it also learns from the requests (S4, S20)
  "session/request_permission": ({ options }) => {
    const allow = options.find((option) => option.kind === "allow_once") ?? options[0];
    return { outcome: allow === undefined ? { outcome: "cancelled" } : { outcome: "selected", optionId: allow.optionId } };
  },
});

const init = await agent.request("initialize", {
  protocolVersion: PROTOCOL_VERSION,
  clientCapabilities: {},
  clientInfo: { name: "example-v1-client", version: "1.0.0" },
});
const can = init.agentCapabilities?.sessionCapabilities;
const cwd = process.cwd();
const additionalDirectories = can?.additionalDirectories ? [tmpdir()] : undefined;
const { sessionId } = await agent.request("session/new", { cwd, mcpServers: [], ...(additionalDirectories && { additionalDirectories }) });

const first = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
console.log(JSON.stringify({ agent: init.agentInfo?.name, sessionId, ...summary(sessions.get(sessionId)), stopReason: first.stopReason }));

const started = nextUpdate(sessionId);
const second = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
await started;
await agent.notify("session/cancel", { sessionId });
console.log(JSON.stringify({ sessionId, stopReason: (await second).stopReason }));

if (can?.list) {
  const { sessions: listed } = await agent.request("session/list", { cwd });
  console.log(JSON.stringify({ listed: listed.map((s) => ({ sessionId: s.sessionId, title: s.title, additionalDirectories: s.additionalDirectories })) }));
}
if (can?.close && init.agentCapabilities?.loadSession) {
  await agent.request("session/close", { sessionId });
  const before = sessions.get(sessionId)?.userMessages.size ?? 0;
  await agent.request("session/load", { sessionId, cwd, mcpServers: [], ...(additionalDirectories && { additionalDirectories }) });
  // The replay's prompts, each a user message of its own (S36: v1 messages are grouped by position).
  console.log(JSON.stringify({ loaded: sessionId, replayedPrompts: (sessions.get(sessionId)?.userMessages.size ?? 0) - before }));
}

agent.close();
child.kill();

/** Resolves at the session's next update. */
function nextUpdate(id: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = sessions.subscribe((updated) => {
      if (updated !== id) return;
      stop();
      resolve();
    });
  });
}

/** What the turn produced, read from the session state. */
function summary(state: SessionState | undefined) {
  return {
    thoughts: texts(state?.agentThoughts.values() ?? []),
    replies: texts(state?.agentMessages.values() ?? []),
    plan: (state?.plan?.entries ?? []).map((entry) => `${entry.content}: ${entry.status}`),
    toolCalls: [...(state?.toolCalls.values() ?? [])].map((call) => `${call.title}: ${call.status ?? "pending"}`),
  };
}

/** The text of each message. */
function texts(messages: Iterable<{ readonly content: readonly { readonly type: string; readonly text?: string }[] }>): string[] {
  return [...messages].map((message) => message.content.map((block) => (block.type === "text" ? block.text : "")).join(""));
}
