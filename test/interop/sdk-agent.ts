/**
 * The official SDK's agent (`@agentclientprotocol/sdk/experimental/v2`,
 * `agent()`, made by sdk-agents.ts), doing what examples/v2-agent.ts does, over
 * stdin/stdout. The interop tests drive it with our client:
 * `npx tsx test/interop/sdk-agent.ts`.
 */
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk/experimental/v2";
import { sdkAgentV2 } from "./sdk-agents.js";

sdkAgentV2().connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
// The SDK connection does not end the process when its input ends; the test harness expects it to.
process.stdin.on("end", () => process.exit(0));
