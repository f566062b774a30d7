/**
 * An ACP client (protocol v2) on acp-bindings. It starts an agent as a child
 * process and speaks ACP over its stdio:
 *
 *   npx tsx examples/v2-client.ts                    # runs examples/v2-agent.ts
 *   npx tsx examples/v2-client.ts <command> [args]   # runs any ACP v2 agent
 *
 * It initializes and reads what the agent implements; opens a session (with an
 * additional directory where the agent supports them); sends a prompt, allows
 * the permission the agent asks for, folds the streamed updates into a live
 * session state (`createSessionStore`) until the turn ends (an idle
 * `state_update`), then sends a second prompt and cancels it. Where the agent
 * has the baseline session methods (`capabilities.session`) it lists its
 * sessions, closes the session and resumes it with its history replayed from
 * the start. It prints one JSON line per step.
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { connectClient, createSessionStore, ndJsonStream, PROTOCOL_VERSION, type SessionState } from "acp-bindings/v2";

const ownAgent = [process.execPath, "--import", "tsx", fileURLToPath(new URL("./v2-agent.ts", import.meta.url))];
const [program, ...args] = process.argv.length > 2 ? process.argv.slice(2) : ownAgent;
const child = spawn(program!, args, { stdio: ["pipe", "pipe", "inherit"] });

const sessions = createSessionStore();
const agent = connectClient(ndJsonStream({ readable: child.stdout, writable: child.stdin }), {
  "session/update": sessions.update,
  "session/request_permission": (params) => {
    const allow = params.options.find((option) => option.kind === "allow_once") ?? params.options[0];
    return { outcome: allow === undefined ? { outcome: "cancelled" } : { outcome: "selected", optionId: allow.optionId } };
  },
});

const init = await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "example-client", version: "1.0.0" } });
const can = init.capabilities?.session; // present: session/list, session/resume and session/close are there
const cwd = process.cwd();
const additionalDirectories = can?.additionalDirectories ? [tmpdir()] : undefined;
const { sessionId } = await agent.request("session/new", { cwd, ...(additionalDirectories && { additionalDirectories }) });

const first = turnEnd(sessionId);
await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello agent" }] });
const done = await first;
console.log(JSON.stringify({ agent: init.info.name, sessionId, ...summary(done.state), stopReason: done.stopReason }));

const second = turnEnd(sessionId);
const started = nextUpdate(sessionId);
await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
await started;
await agent.notify("session/cancel", { sessionId });
console.log(JSON.stringify({ sessionId, stopReason: (await second).stopReason }));

if (can) {
  const { sessions: listed } = await agent.request("session/list", { cwd });
  console.log(JSON.stringify({ listed: listed.map((s) => ({ sessionId: s.sessionId, title: s.title, additionalDirectories: s.additionalDirectories })) }));
  await agent.request("session/close", { sessionId });
  await agent.request("session/resume", { sessionId, cwd, replayFrom: { type: "start" }, ...(additionalDirectories && { additionalDirectories }) });
  // The replayed messages carry their ids: they land on the messages the store holds, not beside them.
  const resumed = sessions.get(sessionId);
  console.log(JSON.stringify({ resumed: sessionId, state: resumed?.state.state, prompts: texts(resumed?.userMessages.values() ?? []) }));
}

agent.close();
child.kill();

/** Resolves with the state and stop reason when the session's turn ends (an idle `state_update` with a stop reason). */
function turnEnd(id: string): Promise<{ state: SessionState; stopReason: string }> {
  return new Promise((resolve) => {
    const stop = sessions.subscribe((updated, state) => {
      const stopReason = updated === id && state.state.state === "idle" && "stopReason" in state.state ? state.state.stopReason : undefined;
      if (typeof stopReason !== "string") return;
      stop();
      resolve({ state, stopReason });
    });
  });
}

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
function summary(state: SessionState) {
  return {
    thoughts: texts(state.agentThoughts.values()),
    replies: texts(state.agentMessages.values()),
    plans: [...state.plans.values()].map((plan) => (plan.type === "items" ? plan.entries.map((entry) => `${entry.content}: ${entry.status}`) : [])),
    toolCalls: [...state.toolCalls.values()].map((call) => `${call.title ?? ""}: ${call.status ?? ""}`),
  };
}

/** The text of each message. */
function texts(entries: Iterable<{ content?: readonly unknown[] | null }>): string[] {
  return [...entries].map((entry) => (entry.content ?? []).map((block) => textOf(block)).join(""));
}

function textOf(block: unknown): string {
  return typeof block === "object" && block !== null && "text" in block && typeof block.text === "string" ? block.text : "";
}
