/**
 * An ACP agent (protocol v2) on acp-bindings, speaking over stdin/stdout:
 *
 *   npx tsx examples/agent.ts
 *
 * Each prompt starts a turn: the agent answers `session/prompt` with the
 * prompt's message id, then streams a thought, a plan, a tool call that
 * asks for permission, and a reply, and ends the turn with an idle
 * `state_update` (`end_turn`). `session/cancel` ends the running turn with
 * `cancelled`. Any ACP client can drive it (examples/client.ts, the SDK's).
 */
import { connectAgent, ndJsonStream } from "../generated/src/v2/index.js";
import { echoAgent } from "./echo-agent.js";

const client = connectAgent(ndJsonStream({ readable: process.stdin, writable: process.stdout }), echoAgent(() => client));
await client.closed;
