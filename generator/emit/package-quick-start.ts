/**
 * The package README's quick start: a v1 agent and a v1 client (what editors
 * speak today), what v2 changes, parse and validate, and the example programs
 * the package ships. test/package.test.ts type-checks every block against the
 * packed package; the repository README's tour shows the same blocks
 * (test/docs.test.ts compares them).
 */
import type { Surface } from "../ir.js";
import { PACKAGE_NAME, shippedExamples } from "./package-layout.js";

/** A v1 agent over stdin/stdout that echoes each prompt; `session/cancel` ends the turn with `cancelled`. */
export const V1_AGENT_EXAMPLE = `import { connectAgent, ndJsonStream, PROTOCOL_VERSION } from "${PACKAGE_NAME}/v1";

let sessions = 0;
const turns = new Map<string, AbortController>(); // the running turn of each session
const client = connectAgent(ndJsonStream({ readable: process.stdin, writable: process.stdout }), {
  initialize: () => ({ protocolVersion: PROTOCOL_VERSION, agentInfo: { name: "echo", version: "1.0.0" } }),
  "session/new": () => ({ sessionId: \`session-\${++sessions}\` }),
  "session/prompt": async ({ sessionId, prompt }) => {
    const turn = new AbortController();
    turns.set(sessionId, turn);
    const text = prompt.map((block) => (block.type === "text" ? block.text : "")).join(" ");
    await client.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: \`You said: \${text}\` } },
    });
    return { stopReason: turn.signal.aborted ? "cancelled" : "end_turn" };
  },
  "session/cancel": ({ sessionId }) => turns.get(sessionId)?.abort(),
});
await client.closed;
`;

/** A v1 client that starts an agent, folds its updates with the session store, and prints the reply. */
export const V1_CLIENT_EXAMPLE = `import { spawn } from "node:child_process";
import { connectClient, createSessionStore, ndJsonStream, PROTOCOL_VERSION } from "${PACKAGE_NAME}/v1";

const child = spawn("node", ["my-agent.js"], { stdio: ["pipe", "pipe", "inherit"] });
const sessions = createSessionStore();
const agent = connectClient(ndJsonStream({ readable: child.stdout, writable: child.stdin }), {
  "session/update": sessions.update,
  "session/request_permission": ({ options }) => {
    const allow = options.find((option) => option.kind === "allow_once");
    return { outcome: allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" } };
  },
});

await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: "my-editor", version: "1.0.0" } });
const { sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] });
const { stopReason } = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });

const state = sessions.get(sessionId);
for (const message of state?.agentMessages.values() ?? []) {
  console.log(message.content.map((block) => (block.type === "text" ? block.text : \`[\${block.type}]\`)).join(""));
}
console.log(stopReason);
agent.close();
child.kill();
`;

/** The v2 agent's prompt: answered at once with the prompt's message id; the turn streams on and ends with an idle \`state_update\`. */
export const V2_AGENT_EXAMPLE = `import { connectAgent, ndJsonStream, PROTOCOL_VERSION, type SessionUpdate } from "${PACKAGE_NAME}/v2";

let messages = 0;
const client = connectAgent(ndJsonStream({ readable: process.stdin, writable: process.stdout }), {
  initialize: () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "echo", version: "1.0.0" } }),
  "session/new": () => ({ sessionId: "session-1" }),
  "session/prompt": ({ sessionId, prompt }) => {
    const messageId = \`user-\${++messages}\`;
    const say = (update: SessionUpdate) => client.notify("session/update", { sessionId, update });
    void (async () => {
      await say({ sessionUpdate: "state_update", state: "running" });
      await say({ sessionUpdate: "user_message", messageId, content: prompt });
      await say({ sessionUpdate: "agent_message_chunk", messageId: \`reply-\${messages}\`, content: { type: "text", text: "Hello!" } });
      await say({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    })();
    return { messageId }; // answered once the prompt is taken
  },
});
await client.closed;
`;

/** Strict and tolerant decoding of one wire message. */
export const PARSE_EXAMPLE = `import { parse, validate } from "${PACKAGE_NAME}/v2";

const wire: unknown = JSON.parse('{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"hi"}}}');
const strict = validate.UpdateSessionNotification(wire, { all: true });
if (!strict.ok) for (const issue of strict.issues) console.error(\`\${issue.path}: \${issue.message}\`);
const tolerant = parse.UpdateSessionNotification(wire);
if (tolerant.ok && tolerant.value.update.sessionUpdate === "agent_message_chunk") console.log(tolerant.value.update.content);
`;

const ts = (code: string): string => `\`\`\`ts\n${code}\`\`\``;

/** The quick start, for a package with the v1 and v2 surfaces (empty otherwise: its examples name both). */
export function quickStartSection(surfaces: readonly Surface[]): string {
  if (!surfaces.includes("v1") || !surfaces.includes("v2")) return "";
  const examples = shippedExamples(surfaces).filter((path) => /\/v\d-/.test(path));
  return `## Quick start

An agent answers a client's requests: \`connectAgent\` types every handler from the surface's method tables, checks
what comes in and goes out against the schema (a bad params never reaches your handler: the peer gets a JSON-RPC
error naming the JSON pointer), and returns the peer you talk back through. A v1 agent (what editors speak today)
over stdin and stdout:

${ts(V1_AGENT_EXAMPLE)}

A v1 client starts the agent and folds its \`session/update\` notifications into one state per session (messages,
thoughts, tool calls, plans, modes, usage) with \`createSessionStore\`; \`sessions.subscribe(listener)\` tells a UI of
every new state:

${ts(V1_CLIENT_EXAMPLE)}

ACP v2 differs where the protocol does: \`session/prompt\` is answered at once with the prompt's message id, the agent
echoes the prompt as a \`user_message\`, and every turn ends with an idle \`state_update\`:

${ts(V2_AGENT_EXAMPLE)}

\`validate.X\` accepts exactly what the JSON Schema accepts (\`{ all: true }\`: every issue, in document order);
\`parse.X\` reads a message the way the Rust reference does (a malformed optional value is dropped, unknown variants
are kept). Neither throws:

${ts(PARSE_EXAMPLE)}

Complete programs ship in \`examples/\`: ${examples.map((path) => `[\`${path}\`](${path})`).join(", ")}. The agents advertise the
session capabilities they implement (list, load or resume with replay, close, additional directories) and honour
cancellation at every step; the clients use them. Each client starts the agent of its version (or the agent command
you give it after its name) and prints one JSON line per step (with [tsx](https://tsx.is) installed):

\`\`\`sh
${examples.filter((path) => path.endsWith("-client.ts")).map((path) => `npx tsx node_modules/${PACKAGE_NAME}/${path}`).join("\n")}
\`\`\`

The API reference is the package's own: every export has its documentation in the \`.d.ts\` files, which editors
show on hover, and the acp-codegen repository builds it as pages (\`npm run docs\`).
`;
}
