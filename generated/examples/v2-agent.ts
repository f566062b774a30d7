/**
 * An ACP agent (protocol v2) on acp-bindings, speaking over stdin/stdout:
 *
 *   npx tsx examples/v2-agent.ts
 *
 * Its handlers are examples/echo-agent.ts: session list, resume and close,
 * additional directories; each prompt is echoed as a \`user_message\` with
 * the prompt's message id, the turn streams a thought, a plan, a tool call
 * that asks for permission (\`requires_action\` while it waits) and a reply,
 * and ends with an idle \`state_update\`; \`session/cancel\` ends the turn at
 * any step. Any ACP v2 client can drive it (examples/v2-client.ts, the SDK's).
 */
import { connectAgent, ndJsonStream } from "acp-bindings/v2";
import { echoAgent } from "./echo-agent.js";

const client = connectAgent(ndJsonStream({ readable: process.stdin, writable: process.stdout }), echoAgent(() => client));
await client.closed;
